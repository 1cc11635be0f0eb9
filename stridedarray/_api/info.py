"""Inspection (Array API chapter "Inspection"): `__array_namespace_info__()`, and the array's
`__array_namespace__` with the namespaces of older versions of the standard."""

from __future__ import annotations

import functools
import types
import warnings
from typing import TYPE_CHECKING, Any

from .._base import dtypes as _dtypes
from .._base.device import CPU_DEVICE, Device
from .._base.dtypes import DType

if TYPE_CHECKING:
    from .._array.array import Array

__all__ = ["__array_namespace_info__"]

_ATOMIC_KINDS = ("bool", "signed integer", "unsigned integer", "real floating", "complex floating")
_ALL_KINDS = _ATOMIC_KINDS + ("integral", "numeric")


def _check_device(device: Any) -> None:
    if device is not None and device != CPU_DEVICE:
        raise ValueError(f"device must be None or {CPU_DEVICE!r}, got {device!r}")


class Info:
    """The namespace inspection object returned by `__array_namespace_info__()`."""

    __slots__ = ("_version",)

    def __init__(self, version: str = "2025.12") -> None:
        self._version = version  # the API version whose answers this object gives

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return _unpickle_info, (self._version,)  # stridedarray._pickle.namespace_info

    def capabilities(self) -> dict[str, Any]:
        """Optional features this library supports."""
        # Data-dependent shapes (boolean masks, unique_*, nonzero) are eager here, so both
        # are supported; the rank limit is the C descriptor's.
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        """The device arrays are created on by default."""
        return CPU_DEVICE

    def devices(self) -> tuple[Device, ...] | list[Device]:
        """All supported devices (a tuple since 2025.12, a list before)."""
        return (CPU_DEVICE,) if self._version >= "2025.12" else [CPU_DEVICE]

    def default_dtypes(self, *, device: Device | None = None) -> dict[str, DType]:
        """Default dtypes for floating, complex, integral and indexing results."""
        _check_device(device)
        default = _dtypes.DEFAULT_DTYPE
        return {
            "real floating": default[float],
            "complex floating": default[complex],
            "integral": default[int],
            "indexing": _dtypes.int64,  # index results' dtype (docs/dtypes.md), not a scalar's
        }

    def dtypes(
        self, *, device: Device | None = None, kind: str | tuple[str, ...] | None = None
    ) -> dict[str, DType]:
        """The supported dtypes, optionally restricted to one kind or a tuple of kinds."""
        _check_device(device)
        # Clients ask this on every call (scikit-learn per fit): the answer is made once per
        # kind and each call gets its own copy, so no caller can change another's.
        try:
            cached = _DTYPES_OF_KIND.get(kind)
        except TypeError:  # an unhashable kind: the checks below say what is wrong
            cached = None
        if cached is not None:
            return cached.copy()
        if kind is None:
            chosen = set(_dtypes.DTYPES)
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            chosen = set()
            for k in kinds:
                if k not in _ALL_KINDS:
                    raise ValueError(
                        f"kind must be one of {_ALL_KINDS} or a tuple of them, got {k!r}"
                    )
                chosen |= _dtypes.KIND_OF[k]
        answer = {d.name: d for d in _dtypes.DTYPES if d in chosen}
        _DTYPES_OF_KIND[kind] = answer
        return answer.copy()


_DTYPES_OF_KIND: dict[Any, dict[str, DType]] = {}  # kind argument -> Info.dtypes' answer


_INFO = Info()


def __array_namespace_info__() -> Info:
    """The inspection namespace object (capabilities, devices, default and supported dtypes)."""
    return _INFO


_NAMESPACES: dict[str, types.ModuleType] = {}


def _pickled_namespace(version: Any) -> types.ModuleType:
    import pickle

    if version.__class__ is not str or version not in (*_API_VERSIONS, _DRAFT_VERSION):
        raise pickle.UnpicklingError(f"not a stridedarray API version: {version!r:.40}")
    return namespace_for(version)


def _unpickle_info(version: str) -> Info:
    """`__array_namespace_info__()` of the namespace of API version `version`
    (stridedarray._pickle.namespace_info)."""
    return _pickled_namespace(version).__array_namespace_info__()


def _unpickle_function(version: str, name: str) -> Any:
    """The function `name` of the namespace of API version `version`, whose functions differ
    from the package's own before 2025.12 (stridedarray._pickle.versioned_function)."""
    import pickle

    ns = _pickled_namespace(version)
    public = name.__class__ is str and (
        not name.startswith("_") or name == "__array_namespace_info__"
    )
    f = getattr(ns, name, None) if public else None
    if f is None or not callable(f):
        raise pickle.UnpicklingError(f"not a stridedarray function: {name!r:.40}")
    return f


class _OlderFunction:
    """A function of an older version's namespace (`namespace_for`): `func`, or, for the
    sequences of arrays that were lists before 2025.12, `func` returning a list; it pickles by
    reference to the same function of that version's namespace and copies to itself."""

    __slots__ = ("__dict__", "_func", "_name", "_to_list", "_version")

    def __init__(self, version: str, func: Any, to_list: bool) -> None:
        functools.update_wrapper(self, func)  # name, doc, and the signature via __wrapped__
        self._func, self._name, self._to_list, self._version = func, func.__name__, to_list, version

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        r = self._func(*args, **kwargs)
        return list(r) if self._to_list else r

    def __repr__(self) -> str:
        return f"<function {self._name} of stridedarray as Array API {self._version} sees it>"

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        # stridedarray._pickle.versioned_function
        return _unpickle_function, (self._version, self._name)

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: Any) -> Any:
        return self


# Every published version of the standard, as NumPy and array-api-strict accept them. One
# before 2025.12 gets a namespace whose `__array_api_version__` is that version and whose
# sequences of arrays are lists (`namespace_for`); every other answer is 2025.12's, a superset
# that code written for an older version runs on (the few answers that changed since, such as
# the dtype of sum of float32 before 2023.12, follow the newer version).
_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
# The revision in draft, accepted with a UserWarning (array-api-strict's class for it). Its one
# change so far (data-apis/array-api's draft against 2025.12) is the array type's
# `__dlpack_c_exchange_api__`, which Array has whatever version is asked for; its namespace is
# 2025.12's with `__array_api_version__` "2026.12".
_DRAFT_VERSION = "2026.12"
# The package itself, the namespace of the current version: set once, by `set_namespace` when
# the package has imported its modules (this module is imported by it, so it cannot import it).
_NAMESPACE: list[types.ModuleType] = []


def set_namespace(package: types.ModuleType) -> None:
    """Record the stridedarray package as the namespace `__array_namespace__` returns."""
    _NAMESPACE[:] = [package]


def namespace_for(version: str | None) -> types.ModuleType:
    """The namespace `x.__array_namespace__(api_version=version)` returns.

    The current version is the package itself. Another version (older, or the draft) gets a
    module object with the same functions whose version-dependent answers follow that version
    (its `__array_api_version__`, and lists instead of tuples before 2025.12 from `devices()`,
    `meshgrid` and `broadcast_arrays`); it is made once per version. Nothing is global: a
    caller asking for 2023.12 leaves every other caller's namespace as it was."""
    (stridedarray,) = _NAMESPACE
    if version is None or version == stridedarray.__array_api_version__:
        return stridedarray
    ns = _NAMESPACES.get(version)
    if ns is None:
        # The extensions (fft, linalg) load on first use, through the package's __getattr__:
        # load them now, so that the copy below holds them.
        for extension in stridedarray._LAZY:
            getattr(stridedarray, extension)
        ns = types.ModuleType("stridedarray", f"stridedarray as Array API {version} sees it")
        ns.__dict__.update(
            {
                k: v
                for k, v in vars(stridedarray).items()
                if not k.startswith("__") or k == "__version__"
            }
        )
        setattr(ns, "__array_api_version__", version)  # noqa: B010  (a module's own names)
        info = Info(version)
        info_of_version = functools.update_wrapper(
            lambda: info, vars(stridedarray)["__array_namespace_info__"]
        )  # its name, doc and signature; it pickles as _OlderFunction's name
        older_info = _OlderFunction(version, info_of_version, to_list=False)
        setattr(ns, "__array_namespace_info__", older_info)  # noqa: B010
        if version < "2025.12":
            for name in ("meshgrid", "broadcast_arrays"):
                setattr(ns, name, _OlderFunction(version, getattr(stridedarray, name), True))
        _NAMESPACES[version] = ns
    return ns


def __array_namespace__(self: Array, /, *, api_version: str | None = None) -> Any:
    """The stridedarray namespace; api_version may be None, any published version ("2021.12",
    "2022.12", "2023.12", "2024.12", "2025.12") or the draft "2026.12" (with a UserWarning)."""
    if api_version is None:  # array-API code asks on every call
        return _NAMESPACE[0]
    if api_version == _DRAFT_VERSION:
        warnings.warn(
            f"Array API {_DRAFT_VERSION} is a draft revision of the standard and may change "
            "before it is published; stridedarray implements what the draft adds so far "
            "(the array type's __dlpack_c_exchange_api__)",
            UserWarning,
            stacklevel=2,
        )
    elif api_version not in _API_VERSIONS:
        raise ValueError(
            f"api_version must be None, one of {_API_VERSIONS} or the draft "
            f"{_DRAFT_VERSION!r}, got {api_version!r}"
        )
    # Per request: an older version gets its own namespace object; nothing global changes.
    return namespace_for(api_version)

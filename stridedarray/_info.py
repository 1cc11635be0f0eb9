"""Inspection (Array API chapter "Inspection"): `__array_namespace_info__()`."""

from __future__ import annotations

import functools
import types
from typing import Any

from . import _dtypes
from ._array import CPU_DEVICE, Device
from ._dtypes import DType

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
        return {
            "real floating": _dtypes.float64,
            "complex floating": _dtypes.complex128,
            "integral": _dtypes.int64,
            "indexing": _dtypes.int64,
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


def _as_list(func: Any) -> Any:
    """`func` returning a list of its tuple result: sequences of arrays were lists before
    2025.12."""

    @functools.wraps(func)  # keeps the signature (inspect follows __wrapped__)
    def f(*args: Any, **kwargs: Any) -> Any:
        return list(func(*args, **kwargs))

    return f


def namespace_for(version: str | None) -> types.ModuleType:
    """The namespace `x.__array_namespace__(api_version=version)` returns.

    The current version is the package itself. An older version gets a module object with the
    same functions whose version-dependent answers follow that version (its
    `__array_api_version__`, and lists instead of tuples before 2025.12 from `devices()`,
    `meshgrid` and `broadcast_arrays`); it is made once per version. Nothing is global: a
    caller asking for 2023.12 leaves every other caller's namespace as it was."""
    import stridedarray

    if version is None or version == stridedarray.__array_api_version__:
        return stridedarray
    ns = _NAMESPACES.get(version)
    if ns is None:
        ns = types.ModuleType("stridedarray", f"stridedarray as Array API {version} sees it")
        ns.__dict__.update(
            {
                k: v
                for k, v in vars(stridedarray).items()
                if not k.startswith("__") or k == "__version__"
            }
        )
        info = Info(version)
        setattr(ns, "__array_api_version__", version)  # noqa: B010  (a module's own names)
        setattr(ns, "__array_namespace_info__", lambda: info)  # noqa: B010
        if version < "2025.12":
            for name in ("meshgrid", "broadcast_arrays"):
                setattr(ns, name, _as_list(getattr(stridedarray, name)))
        _NAMESPACES[version] = ns
    return ns

"""The array object's protocols that are not about layout: namespace and device, conversion
to Python scalars, lists and NumPy, the sequence protocol, pickling and copying, NumPy's
function protocols (NEP 13/18, in `_numpy_dispatch`), and DLPack export. Array inherits
them from this mixin."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

import numpy as np

from ._validation import as_int

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ._array import Array

__all__ = ["Device", "CPU_DEVICE"]

class Device:
    """The one device stridedarray computes on: host memory."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "CPU_DEVICE"

    def __eq__(self, other: object) -> bool:
        # The string "cpu" names this device too, as torch spells it (to_device("cpu")).
        return isinstance(other, Device) or (isinstance(other, str) and other == "cpu")

    def __hash__(self) -> int:
        return hash("cpu")  # equal objects hash alike: "cpu" == CPU_DEVICE


CPU_DEVICE = Device()

_API_VERSIONS = ("2023.12", "2024.12", "2025.12")
_DL_CPU = 1  # kDLCPU in DLPack's DLDeviceType


class _ArrayProtocols:
    """Mixin for Array: namespace, device, Python scalar conversion, DLPack."""

    __slots__ = ()

    # -- namespace, device, conversion to Python scalars ---------------------------------------
    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """The stridedarray namespace; api_version may be None, "2023.12", "2024.12" or
        "2025.12"."""
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(f"api_version must be None or one of {_API_VERSIONS}, "
                             f"got {api_version!r}")
        from ._info import namespace_for

        # Per request: an older version gets its own namespace object; nothing global changes.
        return namespace_for(api_version)

    def to_device(self, device: Device | str, /, *, stream: Any = None) -> Array:
        """This array on `device` (only the CPU exists, also spelled "cpu"; returns self)."""
        if device != CPU_DEVICE:
            raise ValueError(f"device must be {CPU_DEVICE!r} or 'cpu', got {device!r}")
        if stream is not None:
            raise ValueError("stream must be None on the CPU device")
        return self  # type: ignore[return-value]

    def _scalar(self, what: str) -> Any:
        if self.ndim != 0:
            raise TypeError(f"only 0-d arrays can be converted to Python {what}; this array "
                            f"has shape {self._shape}")
        return self._np[()]

    def __bool__(self) -> bool:
        """Truth value of a 0-d array (complex: real or imaginary part non-zero)."""
        return bool(self._scalar("bool"))

    def __int__(self) -> int:
        """A 0-d real array as a Python int (inf -> OverflowError, NaN -> ValueError)."""
        v = self._scalar("int")
        if self._dtype.kind == "c":
            raise TypeError("int() of a complex array is not defined; take real() first")
        return int(v)

    def __index__(self) -> int:
        """A 0-d integer array as a Python int (for use as an index)."""
        if self._dtype.kind not in "iu":
            raise TypeError(f"only integer arrays can be used as an index, got "
                            f"{self._dtype.name}")
        return int(self._scalar("int"))

    def __float__(self) -> float:
        """A 0-d real array as a Python float."""
        v = self._scalar("float")
        if self._dtype.kind == "c":
            raise TypeError("float() of a complex array is not defined; take real() first")
        return float(v)

    def __complex__(self) -> complex:
        """A 0-d array as a Python complex."""
        return complex(self._scalar("complex"))

    def __format__(self, spec: str) -> str:
        """format(x, spec): a 0-d array formats as its Python scalar; other arrays only
        with an empty spec (as NumPy)."""
        if not spec:
            return str(self)
        if self.ndim != 0:
            raise TypeError(f"format spec {spec!r} applies to 0-d arrays only; this array "
                            f"has shape {self._shape}")
        return format(self._np.item(), spec)

    # -- Python sequences and lists ------------------------------------------------------------
    def __len__(self) -> int:
        """Extent of the first axis (TypeError for a 0-d array, as NumPy)."""
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __iter__(self) -> Iterator[Array]:
        """Iterate over the first axis, yielding views (TypeError for a 0-d array)."""
        if not self._shape:
            raise TypeError("iteration over a 0-d array")  # at iter(), not at the first next()
        return map(self.__getitem__, range(self._shape[0]))  # type: ignore[attr-defined]

    def tolist(self) -> Any:
        """The elements as nested Python lists of Python scalars (a scalar for 0-d)."""
        return self._np.tolist()

    # -- NumPy conversion and function protocols --------------------------------------------------
    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """NumPy's conversion protocol: the zero-copy NumPy view, a converted copy when
        `dtype` differs, a copy when `copy` is True; `copy=False` with a needed copy raises."""
        v = self._np
        if dtype is not None and np.dtype(dtype) != v.dtype:
            if copy is False:
                raise ValueError(f"__array__(copy=False): converting {self._dtype.name} to "
                                 f"{np.dtype(dtype)} needs a copy")
            return v.astype(dtype)
        return v.copy() if copy else v

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NEP 13: NumPy ufuncs on stridedarray arrays (rule in `_numpy_dispatch`)."""
        from ._numpy_dispatch import array_ufunc

        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """NEP 18: NumPy functions on stridedarray arrays (rule in `_numpy_dispatch`)."""
        from ._numpy_dispatch import array_function

        return array_function(func, types, args, kwargs)

    # Dask's tensordot picks the chunk with the highest priority to choose the implementation:
    # above ndarray's 0, so a product with a NumPy chunk runs on ours.
    __array_priority__ = 10.0

    def __dask_tokenize__(self) -> tuple:
        """Dask's token: the same for equal dtype, shape and values, whatever the layout, and
        different from an ndarray's with the same values (the chunk types differ)."""
        from dask.base import normalize_token

        return ("stridedarray.Array", normalize_token(self._np))

    # -- pickling and copying --------------------------------------------------------------------
    def __reduce_ex__(self, protocol: Any) -> tuple:
        """Pickle the elements this array reaches, not its whole buffer (rule in `_payload`);
        protocol 5 ships the payload as an out-of-band buffer when the pickler takes one."""
        payload, strides, origin = _payload(self)  # type: ignore[arg-type]
        data: Any = pickle.PickleBuffer(payload) if protocol >= 5 else payload.tobytes()
        return (_rebuild, (data, self._dtype.name, self._shape, strides, origin, self.readonly))

    def __copy__(self) -> Array:
        """copy.copy: a new row-major array with its own (writable) memory, as NumPy's."""
        return self.to_row_major()  # type: ignore[attr-defined,no-any-return]

    def __deepcopy__(self, memo: dict) -> Array:
        """copy.deepcopy: the same as copy.copy (elements are plain numbers)."""
        return self.to_row_major()  # type: ignore[attr-defined,no-any-return]

    # -- DLPack ---------------------------------------------------------------------------------
    def __dlpack__(self, /, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        """Export as a DLPack capsule (versioned DLPack 1.0 when max_version allows it).

        NumPy's exporter is used on the zero-copy view, so strides (negative included) are
        exported as they are."""
        if stream is not None:
            raise ValueError("stream must be None for CPU arrays")
        if dl_device is not None:
            device = _int_pair(dl_device, "dl_device", "(device_type, device_id)")
            if device != (_DL_CPU, 0):
                raise BufferError(f"dl_device {device} is not supported; only the CPU "
                                  f"({_DL_CPU}, 0) is")
        kw: dict[str, Any] = {}
        if max_version is not None:
            major, minor = _int_pair(max_version, "max_version", "(major, minor)")
            # Versions beyond a C int mean "any version up to this": NumPy reads a C long.
            kw["max_version"] = (min(major, 2**31 - 1), min(minor, 2**31 - 1))
        if copy is not None:
            kw["copy"] = copy
        arr = self._np
        if not arr.flags.writeable and copy is None and (max_version is None
                                                          or max_version[0] < 1):
            # Legacy (unversioned) capsules have no read-only flag; NumPy refuses to export,
            # so give the consumer a private copy.
            kw["copy"] = True
        return arr.__dlpack__(**kw)

    def __dlpack_device__(self) -> tuple[int, int]:
        """The DLPack device: (kDLCPU, 0)."""
        return (_DL_CPU, 0)


def _int_pair(value: Any, name: str, what: str) -> tuple[int, int]:
    """A DLPack pair argument as two ints; TypeError naming it otherwise (checked before any
    conversion, so a huge iterable or a float is refused without being walked)."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"__dlpack__: {name} must be None or a {what} tuple of two ints, got "
                        f"{type(value).__name__} {value!r:.40}")
    return (as_int(value[0], f"{name}[0]", "__dlpack__"),
            as_int(value[1], f"{name}[1]", "__dlpack__"))


def _payload(x: Array) -> tuple[np.ndarray, tuple, int]:
    """The memory a pickle of `x` carries, and x's strides and origin within it.

    The payload is the smallest window of the buffer holding every element x reaches, so the
    layout (negative, step and zero strides, transposes) survives the round trip, when that
    window holds at most twice as many elements as x; otherwise (a sparse selection, such as
    a small corner or x[::10] of a large buffer) x's elements are packed row-major, so a small
    view never ships its whole buffer. Empty arrays ship nothing."""
    from ._array import _offset_range

    st = x._st
    flat = st.arr.reshape(-1)  # the storage is C-contiguous: a view
    size = x.size
    if size == 0:
        return flat[:0], tuple(0 for _ in x._shape), 0
    lo, hi = _offset_range(x._shape, x._strides, x._origin)
    if hi - lo + 1 <= 2 * size:
        return flat[lo:hi + 1], x._strides, x._origin - lo
    packed = x.to_row_major()
    return packed._st.arr.reshape(-1), packed._strides, 0


def _rebuild(data: Any, dtype_name: str, shape: tuple, strides: tuple, origin: int,
             readonly: bool) -> Array:
    """Unpickle an array: a descriptor over the payload's memory, shared when the unpickler
    hands a writable out-of-band buffer (copied when misaligned for the dtype, or read-only
    for an array that was writable)."""
    from . import _dtypes
    from ._array import _make, _Storage

    dt = _dtypes.by_name(dtype_name)
    arr = np.frombuffer(data, dtype=dt.np)
    if not arr.flags.aligned or (not readonly and not arr.flags.writeable):
        # The C kernels load elements as their C type; a writable array stays writable even
        # when its bytes arrive in immutable memory (protocols < 5 carry them as `bytes`).
        arr = arr.copy()
    if readonly and arr.flags.writeable:
        arr.flags.writeable = False
    return _make(_Storage(arr), dt, tuple(shape), tuple(strides), origin)

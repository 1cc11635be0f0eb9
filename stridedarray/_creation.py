"""Creation functions (Array API chapter "Creation Functions")."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtypes
from ._array import CPU_DEVICE, Array, Device, _alloc, _from_ndarray, _wrap
from ._dtypes import DType
from ._validation import normalize_shape

__all__ = ["asarray", "empty", "zeros", "ones", "full", "arange"]


def _check_device(device: Any) -> None:
    if device is not None and device != CPU_DEVICE:
        raise ValueError(f"unsupported device {device!r}; stridedarray has only {CPU_DEVICE!r}")


def _check_dtype(dtype: Any, name: str = "dtype") -> DType | None:
    if dtype is None or isinstance(dtype, DType):
        return dtype
    raise TypeError(f"{name} must be a stridedarray dtype (e.g. stridedarray.float64), "
                    f"got {dtype!r}")


def _default_dtype_for(obj: Any) -> DType | None:
    """Default dtype of a Python scalar per the standard (bool, int64, float64, complex128)."""
    if isinstance(obj, bool):
        return _dtypes.bool
    if isinstance(obj, int):
        return _dtypes.int64
    if isinstance(obj, float):
        return _dtypes.float64
    if isinstance(obj, complex):
        return _dtypes.complex128
    return None


def asarray(
    obj: Any,
    /,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
    copy: bool | None = None,
) -> Array:
    """Convert an object to an Array, sharing memory whenever `copy` allows."""
    _check_device(device)
    dtype = _check_dtype(dtype)
    if isinstance(obj, Array):
        if dtype is not None and dtype is not obj.dtype:
            if copy is False:
                raise ValueError(f"asarray(copy=False) cannot convert {obj.dtype.name} to "
                                 f"{dtype.name} without a copy")
            return obj._pack(dtype)
        return obj.to_row_major() if copy else obj
    if isinstance(obj, np.ndarray):
        arr = obj
    elif isinstance(obj, np.generic):
        arr = np.asarray(obj)
    else:
        try:
            view = memoryview(obj)
        except TypeError:
            view = None
        if view is not None:
            arr = np.asarray(view)
        else:
            if copy is False:
                raise ValueError(f"asarray(copy=False) cannot wrap a {type(obj).__name__} "
                                 "without copying it")
            arr = _from_python(obj, dtype)
            copy = None  # already a fresh array
    if dtype is not None and arr.dtype != dtype.np:
        if copy is False:
            raise ValueError(f"asarray(copy=False) cannot convert {arr.dtype} to "
                             f"{dtype.name} without a copy")
        _dtypes.from_numpy_dtype(arr.dtype)  # reject unsupported sources before casting
        arr = arr.astype(dtype.np)
        copy = None
    return _from_ndarray(arr, copy)


def _from_python(obj: Any, dtype: DType | None) -> np.ndarray:
    """A fresh ndarray from a Python scalar or nested sequence, with the standard's defaults."""
    default = _default_dtype_for(obj)
    target = dtype or default
    try:
        if target is not None:
            if target.kind in "iu" and isinstance(obj, int) and not isinstance(obj, bool):
                info = np.iinfo(target.np)
                if not info.min <= obj <= info.max:
                    raise OverflowError(f"Python int {obj} is out of range for {target.name}")
            return np.asarray(obj, dtype=target.np)
        arr = np.asarray(obj)
    except OverflowError as e:
        raise OverflowError(str(e)) from None
    if arr.dtype == object or arr.dtype.kind not in "biufc":
        raise TypeError(f"cannot make an array from {type(obj).__name__} "
                        f"(NumPy infers {arr.dtype})")
    return arr


def _filled(shape: Any, dtype: DType, value: Any) -> Array:
    a = _alloc(dtype, normalize_shape(shape))
    a._np.fill(value)
    return a


def empty(shape: int | tuple[int, ...], *, dtype: DType | None = None,
          device: Device | None = None) -> Array:
    """An uninitialised array of the given shape (default dtype float64)."""
    _check_device(device)
    return _alloc(_check_dtype(dtype) or _dtypes.float64, normalize_shape(shape))


def zeros(shape: int | tuple[int, ...], *, dtype: DType | None = None,
          device: Device | None = None) -> Array:
    """An array of zeros (default dtype float64)."""
    _check_device(device)
    return _filled(shape, _check_dtype(dtype) or _dtypes.float64, 0)


def ones(shape: int | tuple[int, ...], *, dtype: DType | None = None,
         device: Device | None = None) -> Array:
    """An array of ones (default dtype float64)."""
    _check_device(device)
    return _filled(shape, _check_dtype(dtype) or _dtypes.float64, 1)


def full(shape: int | tuple[int, ...], fill_value: bool | int | float | complex, *,
         dtype: DType | None = None, device: Device | None = None) -> Array:
    """An array filled with `fill_value` (dtype inferred from it by default)."""
    _check_device(device)
    dt = _check_dtype(dtype) or _default_dtype_for(fill_value)
    if dt is None:
        raise TypeError(f"fill_value must be a Python bool, int, float or complex, "
                        f"got {type(fill_value).__name__}")
    return _filled(shape, dt, fill_value)


def arange(start: int | float, /, stop: int | float | None = None, step: int | float = 1, *,
           dtype: DType | None = None, device: Device | None = None) -> Array:
    """Evenly spaced values in [start, stop) (int64 for int arguments, float64 otherwise)."""
    _check_device(device)
    dt = _check_dtype(dtype)
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange: step must not be zero")
    if dt is None:
        ints = all(isinstance(v, int) for v in (start, stop, step))
        dt = _dtypes.int64 if ints else _dtypes.float64
    return _wrap(np.arange(start, stop, step, dtype=dt.np))

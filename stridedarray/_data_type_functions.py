"""Data type functions (Array API chapter "Data Type Functions")."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _dtypes
from ._array import CPU_DEVICE, Array, Device
from ._dtypes import KIND_OF, DType, promote, promote_standard, scalar_dtype

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]


def _dtype_of(arg: Any, name: str) -> DType:
    if isinstance(arg, DType):
        return arg
    if isinstance(arg, Array):
        return arg.dtype
    raise TypeError(f"{name} must be a stridedarray dtype or Array, got {type(arg).__name__}")


def astype(x: Array, dtype: DType, /, *, copy: bool = True, device: Device | None = None) -> Array:
    """Cast `x` to `dtype` (the C core casts while packing); `copy=False` may return `x`."""
    if not isinstance(x, Array):
        raise TypeError(f"x must be a stridedarray.Array, got {type(x).__name__}")
    dtype = _dtypes.as_dtype(dtype)
    if device is not None and device != CPU_DEVICE:
        raise ValueError(f"device must be None or {CPU_DEVICE!r}, got {device!r}")
    if not copy and dtype is x.dtype:
        return x
    if x.dtype.kind == "c" and dtype.kind != "c":
        # The standard leaves complex -> real unspecified; NumPy drops the imaginary part
        # with a warning. We refuse rather than silently lose data.
        raise TypeError(
            f"astype: casting {x.dtype.name} to {dtype.name} is not defined; "
            "take real(x) or abs(x) first"
        )
    return x._pack(dtype)


def can_cast(from_: DType | Array, to: DType, /) -> builtins.bool:
    """True when `from_` promotes to `to` under the standard's promotion table."""
    f = _dtype_of(from_, "from_")
    if not isinstance(to, DType):
        raise TypeError(f"to must be a stridedarray dtype, got {to!r}")
    # Only the standard's own table: cross-kind casts (int -> float, bool -> int) are not
    # promotions it defines, so they are False here even though `promote` gives NumPy's
    # answer for them (NumPy's can_cast calls some of them "safe").
    return promote_standard(f, to) is to


@dataclass(frozen=True)
class finfo_object:
    """Machine limits of a floating dtype; numeric fields are Python floats."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


@dataclass(frozen=True)
class iinfo_object:
    """Machine limits of an integer dtype; fields are Python ints."""

    bits: int
    max: int
    min: int
    dtype: DType


def finfo(type: DType | Array, /) -> finfo_object:  # noqa: A002 - the standard's name
    """Limits of a real or complex floating dtype (complex: those of its real component)."""
    dt = type if type.__class__ is DType else _dtype_of(type, "type")
    cached = _INFO.get(dt)
    if cached.__class__ is finfo_object:
        return cached
    if dt.kind not in "fc":
        raise TypeError(f"finfo: type must be a floating-point dtype, got {dt.name}")
    real = (
        dt if dt.kind == "f" else (_dtypes.float32 if dt is _dtypes.complex64 else _dtypes.float64)
    )
    fi = np.finfo(real.np)
    _INFO[dt] = info = finfo_object(
        int(fi.bits), float(fi.eps), float(fi.max), float(fi.min), float(fi.smallest_normal), real
    )
    return info


def iinfo(type: DType | Array, /) -> iinfo_object:  # noqa: A002 - the standard's name
    """Limits of an integer dtype."""
    dt = type if type.__class__ is DType else _dtype_of(type, "type")
    cached = _INFO.get(dt)
    if cached.__class__ is iinfo_object:
        return cached
    if dt.kind not in "iu":
        raise TypeError(f"iinfo: type must be an integer dtype, got {dt.name}")
    ii = np.iinfo(dt.np)
    _INFO[dt] = info = iinfo_object(int(ii.bits), int(ii.max), int(ii.min), dt)
    return info


# dtype -> its finfo or iinfo object, made on first use: they are frozen, so every caller
# shares one (clients ask on every call; NumPy's finfo is slow to build).
_INFO: dict[DType, finfo_object | iinfo_object] = {}


def isdtype(dtype: DType, kind: DType | str | tuple[DType | str, ...]) -> builtins.bool:
    """True when `dtype` is `kind` (a dtype or a category name) or any of a tuple of them."""
    if type(kind) is str and type(dtype) is DType:
        # The common call, one category by name (clients ask on every call): one lookup.
        members = KIND_OF.get(kind)
        if members is not None:
            return dtype in members
    if not isinstance(dtype, DType):
        raise TypeError(f"dtype must be a stridedarray dtype, got {dtype!r}")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, DType):
            if k is dtype:
                return True
        elif isinstance(k, str):
            members = KIND_OF.get(k)
            if members is None:
                raise ValueError(
                    f"kind: unknown dtype category {k!r}; expected one of {sorted(KIND_OF)}"
                )
            if dtype in members:
                return True
        else:
            raise TypeError(f"kind must be a dtype, a category name or a tuple of them, got {k!r}")
    return False


def result_type(*arrays_and_dtypes: Array | DType | builtins.bool | int | float | complex) -> DType:
    """The dtype the standard's promotion gives these arrays, dtypes and Python scalars."""
    dts = []
    scalars: list[builtins.bool | int | float | complex] = []
    for a in arrays_and_dtypes:
        # Exact types first (clients pass arrays, dtypes and Python floats): no isinstance.
        if type(a) is Array:
            dts.append(a._dtype)
        elif type(a) is DType:
            dts.append(a)
        elif type(a) is float or type(a) is int:
            scalars.append(a)
        elif isinstance(a, (DType, Array)):
            dts.append(_dtype_of(a, "arrays_and_dtypes"))
        elif _dtypes.numpy_value(a):  # a NumPy scalar or 0-d array: a 0-d array of its dtype
            dts.append(_dtypes.from_numpy_dtype(np.asarray(a).dtype))
        elif isinstance(a, (builtins.bool, int, float, complex)):
            scalars.append(a)
        else:
            raise TypeError(
                f"result_type: arguments must be arrays, dtypes, Python or NumPy "
                f"scalars, got {type(a).__name__}"
            )
    if not dts:
        raise ValueError("result_type needs at least one array or dtype")
    out = dts[0]
    for d in dts[1:]:
        out = promote(out, d)
    for s in scalars:
        out = scalar_dtype(out, s, "arrays_and_dtypes")
    return out

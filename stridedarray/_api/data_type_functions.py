"""Data type functions (Array API chapter "Data Type Functions")."""

from __future__ import annotations

import builtins
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._base import dtypes as _dtypes
from .._base.arguments import as_bool
from .._base.construct import ArrayBase, array_argument
from .._base.device import CPU_DEVICE, Device
from .._base.dtypes import (
    KIND_OF,
    DType,
    as_dtype,
    dtype_named,
    promote,
    promote_standard,
    scalar_dtype,
)

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]


def _dtype_of(arg: Any, name: str) -> DType:
    """The dtype of an Array, or the dtype a dtype argument names (_dtypes.as_dtype's rule)."""
    if isinstance(arg, ArrayBase):
        return arg.dtype
    d = dtype_named(arg)
    if d is None:
        raise TypeError(
            f"{name} must be an Array or name a supported dtype: {_dtypes.ACCEPTED}; "
            f"got {_dtypes.refused(arg)}"
        )
    return d


def astype(x: Array, dtype: DType, /, *, copy: bool = True, device: Device | None = None) -> Array:
    """Cast `x` to `dtype` (the C core casts while packing); `copy=False` may return `x`."""
    if not isinstance(x, ArrayBase):
        x = array_argument(x, "x", "astype")
    dtype = as_dtype(dtype)
    if device is not None and device != CPU_DEVICE:
        raise ValueError(f"device must be None or {CPU_DEVICE!r}, got {device!r}")
    if copy.__class__ is not bool:
        copy = as_bool(copy, "copy", "astype")
    if not copy and dtype is x.dtype:
        return x
    if x.dtype.kind == "c" and dtype.kind != "c":
        # The standard leaves complex -> real unspecified; NumPy drops the imaginary part
        # with a warning. We refuse rather than silently lose data.
        raise TypeError(
            f"astype: casting {x.dtype.name} to {dtype.name} is not defined; "
            "take real(x) or abs(x) first"
        )
    if x.dtype.kind == "f" and dtype.kind in "iu" and x.size:
        _warn_invalid_cast(x._np, dtype.name)
    return x._pack(dtype)


# Float to integer: the range of the C conversion each integer type goes through (docs/
# dtypes.md, "Casting"), as [low, high) of the truncated value; uint64 also takes [2**63, 2**64).
_CAST_RANGE = {
    "int64": (-(2.0**63), 2.0**63),
    "uint32": (-(2.0**63), 2.0**63),
    "uint64": (-(2.0**63), 2.0**64),
}


def _warn_invalid_cast(a: np.ndarray, to: str) -> None:
    """NumPy's RuntimeWarning "invalid value encountered in cast" (or its np.errstate
    choice) when a float has no value of the conversion's integer type: NaN, an infinity,
    or out of its range. NumPy's warning comes from the processor's invalid-operation flag,
    which our C loop does not read; these are the values that set it."""
    mode = np.geterr()["invalid"]
    if mode == "ignore":
        return
    low, high = _CAST_RANGE.get(to, (-(2.0**31), 2.0**31))
    t = np.trunc(a.astype(np.float64, copy=False))
    with np.errstate(invalid="ignore"):
        fits = bool(np.all((t >= low) & (t < high)))  # NaN compares False: it does not fit
    if fits:
        return
    if mode == "raise":
        raise FloatingPointError("invalid value encountered in cast")
    warnings.warn("invalid value encountered in cast", RuntimeWarning, stacklevel=3)


def can_cast(from_: DType | Array, to: DType, /) -> builtins.bool:
    """True when `from_` promotes to `to` under the standard's promotion table."""
    f = _dtype_of(from_, "from_")
    to = as_dtype(to, "to")
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

    def __reduce__(self) -> tuple[Any, tuple[DType]]:
        return finfo, (self.dtype,)  # by its public name, stridedarray.finfo


@dataclass(frozen=True)
class iinfo_object:
    """Machine limits of an integer dtype; fields are Python ints."""

    bits: int
    max: int
    min: int
    dtype: DType

    def __reduce__(self) -> tuple[Any, tuple[DType]]:
        return iinfo, (self.dtype,)  # by its public name, stridedarray.iinfo


def _finfo_of(dt: DType) -> finfo_object:
    """A floating dtype's limits (a complex one's are its real component's)."""
    real = dt if dt.kind == "f" else _dtypes.float32 if dt is _dtypes.complex64 else _dtypes.float64
    fi = np.finfo(real.np)
    return finfo_object(
        int(fi.bits), float(fi.eps), float(fi.max), float(fi.min), float(fi.smallest_normal), real
    )


def _iinfo_of(dt: DType) -> iinfo_object:
    ii = np.iinfo(dt.np)
    return iinfo_object(int(ii.bits), int(ii.max), int(ii.min), dt)


# Each dtype's limits, made once: they are frozen, so every caller shares one object (clients
# ask on every call; NumPy's finfo is slow to build).
_FINFO = {dt: _finfo_of(dt) for dt in _dtypes.DTYPES if dt.kind in "fc"}
_IINFO = {dt: _iinfo_of(dt) for dt in _dtypes.DTYPES if dt.kind in "iu"}


def finfo(type: DType | Array, /) -> finfo_object:  # noqa: A002 - the standard's name
    """Limits of a real or complex floating dtype (complex: those of its real component)."""
    dt = type if isinstance(type, DType) else _dtype_of(type, "type")
    info = _FINFO.get(dt)
    if info is None:
        raise TypeError(f"finfo: type must be a floating-point dtype, got {dt.name}")
    return info


def iinfo(type: DType | Array, /) -> iinfo_object:  # noqa: A002 - the standard's name
    """Limits of an integer dtype."""
    dt = type if isinstance(type, DType) else _dtype_of(type, "type")
    info = _IINFO.get(dt)
    if info is None:
        raise TypeError(f"iinfo: type must be an integer dtype, got {dt.name}")
    return info


def isdtype(dtype: DType, kind: DType | str | tuple[DType | str, ...]) -> builtins.bool:
    """True when `dtype` is `kind` (a dtype or a category name) or any of a tuple of them."""
    if type(kind) is str and type(dtype) is DType:
        # The common call, one category by name (clients ask on every call): one lookup.
        members = KIND_OF.get(kind)
        if members is not None:
            return dtype in members
    dtype = as_dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        # A string is a category name first (the standard's); one that is not names a dtype
        # ("float32") by the rule of every dtype argument. The two sets of names share only
        # "bool", which means the same in both.
        members = KIND_OF.get(k) if isinstance(k, str) else None
        if members is not None:
            if dtype in members:
                return True
            continue
        d = dtype_named(k)
        if d is None:
            if isinstance(k, str):
                raise ValueError(
                    f"kind: {_dtypes.refused(k)} is neither a dtype category "
                    f"({', '.join(sorted(KIND_OF))}) nor a name of a supported dtype"
                )
            raise TypeError(
                f"kind must be a dtype category name, or name a supported dtype "
                f"({_dtypes.ACCEPTED}), or be a tuple of them; got {_dtypes.refused(k)}"
            )
        if d is dtype:
            return True
    return False


def result_type(*arrays_and_dtypes: Array | DType | builtins.bool | int | float | complex) -> DType:
    """The dtype the standard's promotion gives these arrays, dtypes and Python scalars."""
    dts = []
    scalars: list[builtins.bool | int | float | complex] = []
    for a in arrays_and_dtypes:
        # Exact types first (clients pass arrays, dtypes and Python floats): no isinstance.
        if isinstance(a, ArrayBase):
            dts.append(a._dtype)
        elif type(a) is DType:
            dts.append(a)
        elif type(a) is float or type(a) is int:
            scalars.append(a)
        elif isinstance(a, (DType, ArrayBase)):
            dts.append(_dtype_of(a, "arrays_and_dtypes"))
        elif _dtypes.numpy_value(a):  # a NumPy scalar or 0-d array: a 0-d array of its dtype
            dts.append(_dtypes.from_numpy_dtype(np.asarray(a).dtype))
        elif isinstance(a, np.ndarray):  # an array argument (array_argument's rule)
            dts.append(array_argument(a, "arrays_and_dtypes", "result_type")._dtype)
        elif isinstance(a, (builtins.bool, int, float, complex)):
            scalars.append(a)
        elif (d := dtype_named(a)) is not None:  # np.dtype("float32"), "float32", np.float32
            dts.append(d)
        else:
            raise TypeError(
                f"result_type: arguments must be arrays, Python or NumPy scalars, or name a "
                f"supported dtype ({_dtypes.ACCEPTED}); got {_dtypes.refused(a)}"
            )
    if not dts:
        if not scalars:
            raise ValueError("result_type needs at least one array, dtype or scalar")
        # Python scalars alone (the standard asks for an array or dtype among them): the
        # default dtype of the highest kind, as NumPy and JAX answer. xarray asks this of each
        # argument alone, and takes only a TypeError for "no answer".
        dts.append(_dtypes.bool)
    out = dts[0]
    for d in dts[1:]:
        out = promote(out, d)
    for s in scalars:
        out = scalar_dtype(out, s, "arrays_and_dtypes")
    return out

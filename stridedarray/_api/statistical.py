"""Statistical functions (Array API chapter "Statistical Functions").

Reductions run in NumPy on the zero-copy view `x._np`. The result dtype is decided here, from
the standard's rules, and passed to NumPy explicitly so it never depends on platform defaults.
Where NumPy accepts more (max of complex) we raise TypeError: the standard leaves those
undefined and a portable program should not rely on them. Integer and bool input to mean, std
and var computes in float64, the package's one rule for floating-point functions
(`_dtypes.INTEGERS_AS_FLOAT64`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import _wrap
from .._base import dtypes as _dtypes
from .._base import fpe as _fpe
from .._base.arguments import as_bool, normalize_axis
from .._base.construct import ArrayBase
from .._base.dtypes import DType
from .._base.numpy_names import NUMPY, numpy_arguments, numpy_call
from ._common import check_array, check_kind, reduce_axes, sum_dtype

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var"]

_Axis = int | tuple[int, ...] | None


def accumulate(
    fn: Callable,
    name: str,
    x: Array,
    axis: int | None,
    dtype: DType | None,
    include_initial: bool,
    nan_as_zero: bool = False,
) -> Array:
    """cumulative_sum's and cumulative_prod's body, and nancumsum's and cumsum's
    (stridedarray/_api/numpy_extensions.py): `nan_as_zero` sums NaN as 0."""
    x = check_array(x, func=name)
    check_kind(x, "biufc", name, "numeric or bool")  # bool: see _sumlike
    if x.ndim == 0:
        raise ValueError(f"{name}: x must have rank >= 1, got a 0-d array")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(
                f"{name}: axis is required for an array of rank {x.ndim} (only "
                "1-d arrays may omit it)"
            )
        ax = 0
    else:
        ax = normalize_axis(axis, x.ndim, func=name)
    dt = sum_dtype(x, dtype, name)
    include = as_bool(include_initial, "include_initial", name)
    a = x._np
    if nan_as_zero and x._dtype.kind in "fc":
        a = np.where(np.isnan(a), a.dtype.type(0), a)  # NumPy's nancumsum: NaN counts as 0
    with np.errstate(invalid="ignore", over="ignore"):  # inf + -inf is NaN: the answer
        return _wrap(fn(a, axis=ax, dtype=dt.np, include_initial=include))


@numpy_arguments
def cumulative_sum(
    x: Array,
    /,
    *numpy_args: Any,
    axis: int | None = None,
    dtype: DType | None = None,
    include_initial: bool = False,
) -> Array:
    """Cumulative sum along an axis (optionally starting with the additive identity 0)."""
    if numpy_args:
        raise numpy_call("cumulative_sum", numpy_args)
    return accumulate(np.cumulative_sum, "cumulative_sum", x, axis, dtype, include_initial)


@numpy_arguments
def cumulative_prod(
    x: Array,
    /,
    *numpy_args: Any,
    axis: int | None = None,
    dtype: DType | None = None,
    include_initial: bool = False,
) -> Array:
    """Cumulative product along an axis (optionally starting with the identity 1)."""
    if numpy_args:
        raise numpy_call("cumulative_prod", numpy_args)
    return accumulate(np.cumulative_prod, "cumulative_prod", x, axis, dtype, include_initial)


def _extremum(uf: np.ufunc, name: str, x: Array, axis: _Axis, keepdims: bool) -> Array:
    if not isinstance(x, ArrayBase):
        x = check_array(x, func=name)
    # The standard orders real numbers only; NumPy's lexicographic complex order is not it.
    if x._dtype.kind not in "biuf":
        check_kind(x, "biuf", name, "real-valued")
    axes = reduce_axes(axis, len(x._shape), name)
    if keepdims.__class__ is not bool:
        keepdims = as_bool(keepdims, "keepdims", name)
    if 0 in x._shape:
        n = x.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
        if n == 0:
            raise ValueError(
                f"{name}: zero-size reduction (shape {x.shape}, axis {axis}) has no identity"
            )
    # The ufunc's reduce is what np.max/np.min run for an ndarray, without their Python layer.
    return _wrap(uf.reduce(x._np, axis=axes, keepdims=keepdims))


@numpy_arguments
def max(  # noqa: A001
    x: Array, /, *numpy_args: Any, axis: _Axis = None, keepdims: bool = False, out: Any = NUMPY
) -> Array:
    """Maximum along the given axes (NaN propagates)."""
    if numpy_args or out is not NUMPY:
        raise numpy_call("max", numpy_args, out=out)
    return _extremum(np.maximum, "max", x, axis, keepdims)


@numpy_arguments
def min(  # noqa: A001
    x: Array, /, *numpy_args: Any, axis: _Axis = None, keepdims: bool = False, out: Any = NUMPY
) -> Array:
    """Minimum along the given axes (NaN propagates)."""
    if numpy_args or out is not NUMPY:
        raise numpy_call("min", numpy_args, out=out)
    return _extremum(np.minimum, "min", x, axis, keepdims)


def _sumlike(
    uf: np.ufunc, name: str, x: Array, axis: _Axis, dtype: DType | None, keepdims: bool
) -> Array:
    if not isinstance(x, ArrayBase):
        x = check_array(x, func=name)
    k = x._dtype.kind
    # bool input: the standard asks for numeric; NumPy, PyTorch and JAX sum and multiply bools
    # as integers (a count of the true values), in the default integer dtype: so do we.
    if k not in "biufc":
        check_kind(x, "biufc", name, "numeric or bool")
    dt = x._dtype if dtype is None and k in "fc" else sum_dtype(x, dtype, name)
    axes = reduce_axes(axis, len(x._shape), name)
    if keepdims.__class__ is not bool:
        keepdims = as_bool(keepdims, "keepdims", name)
    a = x._np
    if k in "biu" and dt.kind in "biu":  # integer accumulation sets no floating-point flag
        return _wrap(uf.reduce(a, axis=axes, dtype=dt.np, keepdims=keepdims))
    # NaN (inf + -inf, inf * 0) and inf (overflow) are the IEEE answers, not warnings. The
    # ufunc's reduce is what np.sum/np.prod run for an ndarray, without their Python layer.
    return _wrap(_fpe.call(uf.reduce, a, axis=axes, dtype=dt.np, keepdims=keepdims))


@numpy_arguments
def sum(
    x: Array,
    /,
    *numpy_args: Any,
    axis: _Axis = None,
    dtype: DType | None = None,  # noqa: A001
    keepdims: bool = False,
    out: Any = NUMPY,
) -> Array:
    """Sum along the given axes (integers accumulate in the 64-bit default)."""
    if numpy_args or out is not NUMPY:
        raise numpy_call("sum", numpy_args, out=out)
    return _sumlike(np.add, "sum", x, axis, dtype, keepdims)


@numpy_arguments
def prod(
    x: Array,
    /,
    *numpy_args: Any,
    axis: _Axis = None,
    dtype: DType | None = None,
    keepdims: bool = False,
    out: Any = NUMPY,
) -> Array:
    """Product along the given axes (integers accumulate in the 64-bit default)."""
    if numpy_args or out is not NUMPY:
        raise numpy_call("prod", numpy_args, out=out)
    return _sumlike(np.multiply, "prod", x, axis, dtype, keepdims)


# The dtype category of the functions below that ask for floating-point input, and of the
# NumPy extensions that share their rules (stridedarray/_api/numpy_extensions.py).
_CATEGORY = {
    "mean": "floating-point",
    "std": "real floating",
    "var": "real floating",
    "nanmean": "floating-point",
    "nanstd": "real floating",
    "nanvar": "real floating",
    "nanmedian": "real floating",
    "median": "real floating",
    "quantile": "real floating",
    "nanquantile": "real floating",
}
_KINDS = {"floating-point": ("fc", "floating-point"), "real floating": ("f", "real floating-point")}


def floating(x: Array, name: str) -> Array:
    """x, or its float64 copy for bool and integer input (the one rule of
    `_dtypes.INTEGERS_AS_FLOAT64`); TypeError for another kind outside the category."""
    if not isinstance(x, ArrayBase):
        x = check_array(x, func=name)
    cat = _CATEGORY[name]
    kinds, what = _KINDS[cat]
    k = x._dtype.kind
    if k not in kinds:
        if k in "biu" and cat in _dtypes.INTEGERS_AS_FLOAT64:
            return x._pack(_dtypes.float64)
        check_kind(x, kinds, name, what)
    return x


def mean_dtype(x: Array, dtype: DType, name: str) -> DType:
    """The dtype `mean(x, dtype=dtype)` computes and returns in (NumPy's `dtype=`): a
    floating-point dtype, complex for complex x (a real one would drop the imaginary part);
    a real one for nanvar and nanstd, whose input is real."""
    x = check_array(x, func=name)
    dt = _dtypes.as_dtype(dtype, f"{name}: dtype")
    if x._dtype.kind not in "biufc":
        check_kind(x, "fc", name, "floating-point")
    real = _CATEGORY[name] == "real floating"
    if dt.kind not in ("f" if real else "fc") or (x._dtype.kind == "c" and dt.kind != "c"):
        need = (
            "real floating-point"
            if real
            else "complex floating-point"
            if x._dtype.kind == "c"
            else "floating-point"
        )
        raise TypeError(
            f"{name}: dtype must be a {need} dtype for x of dtype {x._dtype.name}, got {dt.name}"
        )
    return dt


@numpy_arguments
def mean(
    x: Array,
    /,
    *numpy_args: Any,
    axis: _Axis = None,
    keepdims: bool = False,
    dtype: DType | None = None,
    out: Any = NUMPY,
) -> Array:
    """Arithmetic mean along the given axes (integers in float64; NaN for empty).

    `dtype`, beyond the standard (NumPy's): the floating-point dtype to sum in and return."""
    if numpy_args or out is not NUMPY:
        raise numpy_call("mean", numpy_args, out=out)
    if keepdims.__class__ is not bool:
        keepdims = as_bool(keepdims, "keepdims", "mean")
    if dtype is None:
        x = floating(x, "mean")
        dt = x._dtype
    else:  # NumPy's mean(dtype=): the reduction casts as it reads, as np.mean's does
        x = check_array(x, func="mean")
        dt = mean_dtype(x, dtype, "mean")
    axes = reduce_axes(axis, len(x._shape), "mean")
    n = 1
    for k in range(len(x._shape)) if axes is None else axes:
        n *= x._shape[k]
    a = x._np
    if n == 0:
        with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # empty input: NaN, as specified
            return _wrap(np.mean(a, axis=axes, keepdims=keepdims, dtype=dt.np))
    # np.mean's own steps for an ndarray (numpy/_core/_methods.py, _mean), without its Python
    # layer: the sum, then a division by the count as a NumPy intp, in place for an array.
    tok = _fpe.enter()
    try:
        add: Any = np.add  # its typed overloads want a literal keepdims
        s = add.reduce(a, axis=axes, dtype=dt.np, keepdims=keepdims)
        if type(s) is np.ndarray:
            r = np.true_divide(s, np.intp(n), out=s, casting="unsafe", subok=False)
        else:
            r = s.dtype.type(s / np.intp(n))
    finally:
        _fpe.leave(tok)
    return _wrap(r)


class _DefaultCorrection(float):
    """The default of `correction`, 0.0, told apart from a caller's 0.0 by identity: `ddof`
    (NumPy's spelling) may be given only where `correction` is not."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "0.0"


NO_CORRECTION: Any = _DefaultCorrection(0.0)


def correction_of(name: str, correction: Any, ddof: Any) -> Any:
    """The correction a call asks for: `correction`, or NumPy's `ddof` in its place (one
    spelling of one argument: both given is a TypeError naming them)."""
    if ddof is None:
        return correction
    if correction is not NO_CORRECTION:
        raise TypeError(
            f"{name}: give correction or ddof (NumPy's name for it), not both; got "
            f"correction={correction!r} and ddof={ddof!r}"
        )
    return ddof


def moment(
    fn: Callable,
    name: str,
    x: Array,
    axis: _Axis,
    correction: float,
    keepdims: bool,
    dtype: DType | None = None,
) -> Array:
    """std's and var's body, and nanstd's and nanvar's (`fn`: NumPy's function; `dtype`,
    NumPy's, theirs only)."""
    x = floating(x, name)
    dt = None if dtype is None else mean_dtype(x, dtype, name)
    if isinstance(correction, bool) or not isinstance(correction, (int, float, np.integer)):
        raise TypeError(f"{name}: correction must be an int or float, got {correction!r}")
    if correction < 0:
        raise ValueError(f"{name}: correction must be >= 0, got {correction}")
    if keepdims.__class__ is not bool:
        keepdims = as_bool(keepdims, "keepdims", name)
    axes = reduce_axes(axis, x.ndim, name)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        # N - correction <= 0 yields NaN (or inf), as the standard specifies; no warning.
        warnings.simplefilter("ignore", RuntimeWarning)
        return _wrap(
            fn(
                x._np,
                axis=axes,
                ddof=float(correction),
                keepdims=keepdims,
                dtype=(dt or x.dtype).np,
            )
        )


@numpy_arguments
def std(
    x: Array,
    /,
    *numpy_args: Any,
    axis: _Axis = None,
    correction: int | float = NO_CORRECTION,
    keepdims: bool = False,
    ddof: int | float | None = None,
    out: Any = NUMPY,
) -> Array:
    """Standard deviation along the given axes, dividing by N - correction.

    `ddof`, beyond the standard, is NumPy's name for `correction`."""
    if numpy_args or out is not NUMPY:
        raise numpy_call("std", numpy_args, out=out)
    return moment(np.std, "std", x, axis, correction_of("std", correction, ddof), keepdims)


@numpy_arguments
def var(
    x: Array,
    /,
    *numpy_args: Any,
    axis: _Axis = None,
    correction: int | float = NO_CORRECTION,
    keepdims: bool = False,
    ddof: int | float | None = None,
    out: Any = NUMPY,
) -> Array:
    """Variance along the given axes, dividing by N - correction.

    `ddof`, beyond the standard, is NumPy's name for `correction`."""
    if numpy_args or out is not NUMPY:
        raise numpy_call("var", numpy_args, out=out)
    return moment(np.var, "var", x, axis, correction_of("var", correction, ddof), keepdims)

"""Statistical functions (Array API chapter "Statistical Functions").

Reductions run in NumPy on the zero-copy view `x._np`. The result dtype is decided here, from
the standard's rules, and passed to NumPy explicitly so it never depends on platform defaults.
Where NumPy accepts more (mean of integers, max of complex) we raise TypeError: the standard
leaves those undefined and a portable program should not rely on them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from ._array import Array, _wrap
from ._dtypes import DType
from ._utility import check_array, check_kind, reduce_axes, sum_dtype
from ._validation import normalize_axis

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum",
           "var"]

_Axis = int | tuple[int, ...] | None


def _accumulate(fn: Callable, name: str, x: Array, axis: int | None, dtype: DType | None,
                include_initial: bool) -> Array:
    check_array(x)
    check_kind(x, "iufc", name, "numeric")
    if x.ndim == 0:
        raise ValueError(f"{name}: x must have rank >= 1, got a 0-d array")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"{name}: axis is required for an array of rank {x.ndim} (only "
                             "1-d arrays may omit it)")
        ax = 0
    else:
        ax = normalize_axis(axis, x.ndim, func=name)
    dt = sum_dtype(x, dtype, name)
    with np.errstate(invalid="ignore", over="ignore"):  # inf + -inf is NaN: the answer
        return _wrap(fn(x._np, axis=ax, dtype=dt.np, include_initial=bool(include_initial)))


def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: DType | None = None,
                   include_initial: bool = False) -> Array:
    """Cumulative sum along an axis (optionally starting with the additive identity 0)."""
    return _accumulate(np.cumulative_sum, "cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(x: Array, /, *, axis: int | None = None, dtype: DType | None = None,
                    include_initial: bool = False) -> Array:
    """Cumulative product along an axis (optionally starting with the identity 1)."""
    return _accumulate(np.cumulative_prod, "cumulative_prod", x, axis, dtype, include_initial)


def _extremum(fn: Callable, name: str, x: Array, axis: _Axis, keepdims: bool) -> Array:
    check_array(x)
    # The standard orders real numbers only; NumPy's lexicographic complex order is not it.
    check_kind(x, "biuf", name, "real-valued")
    axes = reduce_axes(axis, x.ndim, name)
    if x.size == 0:
        n = x.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
        if n == 0:
            raise ValueError(f"{name}: zero-size reduction (shape {x.shape}, axis {axis}) has "
                             "no identity")
    return _wrap(fn(x._np, axis=axes, keepdims=keepdims))


def max(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:  # noqa: A001
    """Maximum along the given axes (NaN propagates)."""
    return _extremum(np.max, "max", x, axis, keepdims)


def min(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:  # noqa: A001
    """Minimum along the given axes (NaN propagates)."""
    return _extremum(np.min, "min", x, axis, keepdims)


def _sumlike(fn: Callable, name: str, x: Array, axis: _Axis, dtype: DType | None,
             keepdims: bool) -> Array:
    check_array(x)
    check_kind(x, "iufc", name, "numeric")
    dt = sum_dtype(x, dtype, name)
    # NaN (inf + -inf, inf * 0) and inf (overflow) are the IEEE answers, not warnings.
    with np.errstate(invalid="ignore", over="ignore"):
        return _wrap(fn(x._np, axis=reduce_axes(axis, x.ndim, name), dtype=dt.np,
                        keepdims=keepdims))


def sum(x: Array, /, *, axis: _Axis = None, dtype: DType | None = None,  # noqa: A001
        keepdims: bool = False) -> Array:
    """Sum along the given axes (integers accumulate in the 64-bit default)."""
    return _sumlike(np.sum, "sum", x, axis, dtype, keepdims)


def prod(x: Array, /, *, axis: _Axis = None, dtype: DType | None = None,
         keepdims: bool = False) -> Array:
    """Product along the given axes (integers accumulate in the 64-bit default)."""
    return _sumlike(np.prod, "prod", x, axis, dtype, keepdims)


def mean(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:
    """Arithmetic mean along the given axes (floating-point input; NaN for empty)."""
    check_array(x)
    check_kind(x, "fc", "mean", "floating-point")
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # empty input: NaN, as specified
        return _wrap(np.mean(x._np, axis=reduce_axes(axis, x.ndim, "mean"), keepdims=keepdims,
                             dtype=x.dtype.np))


def _moment(fn: Callable, name: str, x: Array, axis: _Axis, correction: float,
            keepdims: bool) -> Array:
    check_array(x)
    check_kind(x, "f", name, "real floating-point")
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise TypeError(f"{name}: correction must be an int or float, got {correction!r}")
    if correction < 0:
        raise ValueError(f"{name}: correction must be >= 0, got {correction}")
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        # N - correction <= 0 yields NaN (or inf), as the standard specifies; no warning.
        warnings.simplefilter("ignore", RuntimeWarning)
        return _wrap(fn(x._np, axis=reduce_axes(axis, x.ndim, name), ddof=correction,
                        keepdims=keepdims, dtype=x.dtype.np))


def std(x: Array, /, *, axis: _Axis = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Array:
    """Standard deviation along the given axes, dividing by N - correction."""
    return _moment(np.std, "std", x, axis, correction, keepdims)


def var(x: Array, /, *, axis: _Axis = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Array:
    """Variance along the given axes, dividing by N - correction."""
    return _moment(np.var, "var", x, axis, correction, keepdims)

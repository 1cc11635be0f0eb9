"""NumPy's functions beyond the standard that array-API consumers call on the namespace: the
nan-functions, `pad` and `cumsum` (docs/functions.md, "Beyond the standard").

Cubed computes every chunk of its `nansum`, `nanmean`, `nanvar`, ... with the backend's
function of that name, and xarray pads through the namespace's `pad`; NumPy, CuPy, JAX and
PyTorch provide them. Each has NumPy's semantics, computed by NumPy's function on the zero-copy
view, with the rules of its standard counterpart: the same checks, the same result dtypes (the
nan-sum of int32 is int64, as `sum`'s is) and the same quiet floating-point state. Where NumPy
warns (an all-NaN slice, the mean of an empty slice) these stay quiet as the standard's
reductions do, and return NumPy's value (NaN); `nanargmax` and `nanargmin` of an all-NaN slice
have no answer and raise ValueError.

The keywords that extend a standard function (`mean(dtype=)`, `std(ddof=)`, `diff(append=)`
with a scalar, `full_like(shape=)`, `squeeze()` without an axis) are in its chapter's module.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np

from .._arraytype import _wrap
from .._base import fpe as _fpe
from .._base.arguments import as_bool, as_int, normalize_axis
from .._base.construct import ArrayBase, array_argument
from .._base.dtypes import DType
from ._common import check_array, check_kind, reduce_axes, sum_dtype
from .manipulation import reshape
from .statistical import NO_CORRECTION, accumulate, correction_of, floating, mean_dtype, moment

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = [
    "cumprod",
    "cumsum",
    "gradient",
    "median",
    "nanargmax",
    "nanargmin",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmedian",
    "nanmin",
    "nanprod",
    "nanquantile",
    "nanstd",
    "nansum",
    "nanvar",
    "pad",
    "quantile",
]

_Axis = int | tuple[int, ...] | None


class _Reduction(NamedTuple):
    """How a nan-reduction checks and computes: NumPy's function, the dtype kinds it takes
    (and how its errors name them), and its result dtype's rule."""

    fn: Callable
    kinds: str
    what: str
    dtype: str  # "sum": sum's rule (integers widen); "same": x's; "floating": mean's rule


_REDUCTIONS = {
    # bool sums and multiplies as integers, as `sum` and `prod` do (_api/statistical.py)
    "nansum": _Reduction(np.nansum, "biufc", "numeric or bool", "sum"),
    "nanprod": _Reduction(np.nanprod, "biufc", "numeric or bool", "sum"),
    # the standard's order is real numbers' only, as for `max` and `min`
    "nanmax": _Reduction(np.nanmax, "biuf", "real-valued", "same"),
    "nanmin": _Reduction(np.nanmin, "biuf", "real-valued", "same"),
    # integers and bool in float64, the rule of `mean` (`floating`)
    "nanmean": _Reduction(np.nanmean, "biufc", "floating-point", "floating"),
    "nanmedian": _Reduction(np.nanmedian, "biuf", "real floating-point", "floating"),
    "median": _Reduction(np.median, "biuf", "real floating-point", "floating"),
}


def _reduce(name: str, x: Array, axis: _Axis, keepdims: bool, dtype: DType | None = None) -> Array:
    """The nan-reductions' one body, by their row of `_REDUCTIONS`."""
    row = _REDUCTIONS[name]
    if not isinstance(x, ArrayBase):
        x = array_argument(x, "x", name)
    if x._dtype.kind not in row.kinds:
        check_kind(x, row.kinds, name, row.what)
    axes = reduce_axes(axis, x.ndim, name)
    keepdims = as_bool(keepdims, "keepdims", name)
    if row.dtype == "same":
        if 0 in x._shape and 0 in (x._shape if axes is None else tuple(x._shape[a] for a in axes)):
            raise ValueError(
                f"{name}: zero-size reduction (shape {x.shape}, axis {axis}) has no identity"
            )
        kwargs: dict[str, Any] = {}
    elif row.dtype == "sum":
        dt = x._dtype if dtype is None and x._dtype.kind in "fc" else sum_dtype(x, dtype, name)
        kwargs = {"dtype": dt.np}
    elif dtype is not None:  # nanmean(dtype=), as mean(dtype=)
        kwargs = {"dtype": mean_dtype(x, dtype, name).np}
    else:
        x = floating(x, name)
        kwargs = {}
    with warnings.catch_warnings():
        # An all-NaN or empty slice gives NaN, as in NumPy, without its RuntimeWarning: the
        # standard's reductions are quiet (docs/functions.md, "Empty input").
        warnings.simplefilter("ignore", RuntimeWarning)
        return _wrap(_fpe.call(row.fn, x._np, axis=axes, keepdims=keepdims, **kwargs))


_SUMLIKE_DOC = """{what} along the given axes, NaN counted as {identity} (NumPy's `{name}`).

    Parameters
    ----------
    x : Array
        Numeric or bool input.
    axis : int, tuple of ints or None
        The axes to reduce (all of them by default).
    dtype : dtype, optional
        The dtype to compute in and return; by default `{plain}`'s: integers and bool
        accumulate in the 64-bit default (where the result equals `{plain}`'s),
        floating-point in x's dtype.
    keepdims : bool
        Keep the reduced axes with extent 1.

    Returns
    -------
    Array
        {what}s; {identity} for an empty or all-NaN slice.

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.{name}(sa.asarray([[2.0, sa.nan], [sa.nan, sa.nan]]), axis=1)
    Array([2., {example}.], dtype=float64, shape=(2,))
    >>> sa.{name}(sa.asarray([1, 2], dtype=sa.int32)).dtype
    stridedarray.int64
    """


def nansum(
    x: Array, /, *, axis: _Axis = None, dtype: DType | None = None, keepdims: bool = False
) -> Array:
    return _reduce("nansum", x, axis, keepdims, dtype)


def nanprod(
    x: Array, /, *, axis: _Axis = None, dtype: DType | None = None, keepdims: bool = False
) -> Array:
    return _reduce("nanprod", x, axis, keepdims, dtype)


# One text for the two (`help()` and the API pages read __doc__).
nansum.__doc__ = _SUMLIKE_DOC.format(what="Sum", identity=0, name="nansum", plain="sum", example=0)
nanprod.__doc__ = _SUMLIKE_DOC.format(
    what="Product", identity=1, name="nanprod", plain="prod", example=1
)


_EXTREMUM_DOC = """{what} along the given axes, NaN ignored (NumPy's `{name}`).

    Parameters
    ----------
    x : Array
        Real-valued input.
    axis : int, tuple of ints or None
        The axes to reduce (all of them by default).
    keepdims : bool
        Keep the reduced axes with extent 1.

    Returns
    -------
    Array
        The {what_lower}s, of x's dtype; NaN for an all-NaN slice (without NumPy's warning).

    Raises
    ------
    ValueError
        For a zero-size reduction, as `{plain}` does: it has no identity.

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.{name}(sa.asarray([[1.0, sa.nan, 2.0], [sa.nan, sa.nan, sa.nan]]), axis=1)
    Array([ {example}., nan], dtype=float64, shape=(2,))
    """


def nanmax(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:
    return _reduce("nanmax", x, axis, keepdims)


def nanmin(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:
    return _reduce("nanmin", x, axis, keepdims)


# One text for the two (`help()` and the API pages read __doc__).
nanmax.__doc__ = _EXTREMUM_DOC.format(
    what="Maximum", what_lower="maximum", name="nanmax", plain="max", example=2
)
nanmin.__doc__ = _EXTREMUM_DOC.format(
    what="Minimum", what_lower="minimum", name="nanmin", plain="min", example=1
)


def nanmean(
    x: Array, /, *, axis: _Axis = None, keepdims: bool = False, dtype: DType | None = None
) -> Array:
    """Arithmetic mean along the given axes, NaN ignored (NumPy's `nanmean`).

    Parameters
    ----------
    x : Array
        Input; integers and bool are averaged in float64, as by `mean`.
    axis : int, tuple of ints or None
        The axes to reduce (all of them by default).
    keepdims : bool
        Keep the reduced axes with extent 1.
    dtype : floating-point dtype, optional
        The dtype to sum in and return, as `mean(dtype=)`.

    Returns
    -------
    Array
        The means of the values that are not NaN; NaN for an all-NaN or empty slice (without
        NumPy's warning).

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.nanmean(sa.asarray([[1.0, sa.nan, 2.0], [sa.nan, sa.nan, sa.nan]]), axis=1)
    Array([1.5, nan], dtype=float64, shape=(2,))
    """
    return _reduce("nanmean", x, axis, keepdims, dtype)


_MEDIAN_DOC = """Median along the given axes{nan} (NumPy's `{name}`).

    Parameters
    ----------
    x : Array
        Real-valued input; integers and bool give float64.
    axis : int, tuple of ints or None
        The axes to reduce (all of them by default).
    keepdims : bool
        Keep the reduced axes with extent 1.

    Returns
    -------
    Array
        The medians; NaN for {nan_slice} empty slice (without NumPy's warning).

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.{name}(sa.asarray([[3.0, 1.0, 2.0], [4.0, {example}, 5.0]]), axis=1)
    Array([2.{pad}, {result}], dtype=float64, shape=(2,))
    """


def _median(name: str, x: Array, axis: _Axis, keepdims: bool) -> Array:
    x = check_array(x, func=name)
    if axis == ():
        # nothing reduced: x as floating point (NumPy's median of an empty x fails here)
        return _wrap(np.array(floating(x, name)._np, copy=True))
    axes = reduce_axes(axis, x.ndim, name)
    if x.size == 0:
        # NaN per empty slice, as NumPy gives for a 1-D one; no slice at all: an empty result
        # (NumPy's median fails on some of those shapes)
        shape = _reduced_shape(x.shape, axes, as_bool(keepdims, "keepdims", name))
        return _wrap(np.full(shape, np.nan, dtype=floating(x, name)._dtype.np))
    return _reduce(name, x, axis, keepdims)


def _reduced_shape(shape: tuple[int, ...], axes: tuple[int, ...] | None, keep: bool) -> tuple:
    """The shape a reduction over `axes` (None: all) leaves."""
    gone = range(len(shape)) if axes is None else axes
    return tuple(1 if k in gone else n for k, n in enumerate(shape) if keep or k not in gone)


def median(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:
    return _median("median", x, axis, keepdims)


def nanmedian(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:
    return _median("nanmedian", x, axis, keepdims)


# One text for the two (`help()` and the API pages read __doc__).
median.__doc__ = _MEDIAN_DOC.format(
    nan="",
    name="median",
    nan_slice="a slice holding NaN, and for an",
    example="6.0",
    pad="",
    result="5.",
)
nanmedian.__doc__ = _MEDIAN_DOC.format(
    nan=", NaN ignored",
    name="nanmedian",
    nan_slice="an all-NaN or",
    example="sa.nan",
    pad=" ",
    result="4.5",
)


_MOMENT_DOC = """{what} along the given axes, NaN ignored (NumPy's `{name}`).

    Parameters
    ----------
    x : Array
        Real floating-point input; integers and bool in float64, as by `{plain}`.
    axis : int, tuple of ints or None
        The axes to reduce (all of them by default).
    correction : int or float
        Divide by N - correction, N the count of values that are not NaN.
    keepdims : bool
        Keep the reduced axes with extent 1.
    ddof : int or float, optional
        NumPy's name for `correction`; give one of them.
    dtype : real floating-point dtype, optional
        The dtype to compute in and return (NumPy's; x's by default, float64 for integers).

    Returns
    -------
    Array
        NaN (or inf) where N - correction <= 0, an all-NaN slice too, without NumPy's warning.

    Raises
    ------
    TypeError
        When both `correction` and `ddof` are given.

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.{name}(sa.asarray([1.0, sa.nan, 3.0]), ddof=1)
    {example}
    """


def nanvar(
    x: Array,
    /,
    *,
    axis: _Axis = None,
    correction: int | float = NO_CORRECTION,
    keepdims: bool = False,
    ddof: int | float | None = None,
    dtype: DType | None = None,
) -> Array:
    return moment(
        np.nanvar, "nanvar", x, axis, correction_of("nanvar", correction, ddof), keepdims, dtype
    )


def nanstd(
    x: Array,
    /,
    *,
    axis: _Axis = None,
    correction: int | float = NO_CORRECTION,
    keepdims: bool = False,
    ddof: int | float | None = None,
    dtype: DType | None = None,
) -> Array:
    return moment(
        np.nanstd, "nanstd", x, axis, correction_of("nanstd", correction, ddof), keepdims, dtype
    )


# One text for the two (`help()` and the API pages read __doc__).
nanvar.__doc__ = _MOMENT_DOC.format(
    what="Variance", name="nanvar", plain="var", example="Array(2., dtype=float64, shape=())"
)
nanstd.__doc__ = _MOMENT_DOC.format(
    what="Standard deviation",
    name="nanstd",
    plain="std",
    example="Array(1.41421356, dtype=float64, shape=())",
)


def _nanarg(fn: Callable, name: str, x: Array, axis: int | None, keepdims: bool) -> Array:
    x = check_array(x, func=name)
    check_kind(x, "biuf", name, "real-valued")
    ax = None if axis is None else normalize_axis(axis, x.ndim, func=name)
    keepdims = as_bool(keepdims, "keepdims", name)
    if x.ndim and (x.size == 0 if ax is None else x.shape[ax] == 0):
        raise ValueError(
            f"{name}: x of shape {x.shape} is empty along "
            f"{'its elements' if ax is None else f'axis {ax}'}, so there is no extremum"
        )
    try:
        out = fn(x._np, axis=ax, keepdims=keepdims)
    except ValueError:  # NumPy's "All-NaN slice encountered": no index to give
        where = "x is all NaN" if ax is None else f"a slice of x along axis {ax} is all NaN"
        raise ValueError(
            f"{name}: {where}, so it has no index to return; replace the NaNs first "
            f"(where(isnan(x), value, x)) or use argmax/argmin, which return the first NaN"
        ) from None
    return _wrap(np.asarray(out, dtype=np.int64))


_ARG_DOC = """Index of the first {what} along an axis, NaN ignored (NumPy's `{name}`).

    Parameters
    ----------
    x : Array
        Real-valued input.
    axis : int or None
        The axis to search; the flattened array (row-major) when None.
    keepdims : bool
        Keep the searched axis with extent 1.

    Returns
    -------
    Array
        int64 indices.

    Raises
    ------
    ValueError
        Where a searched slice is all NaN (it has no answer), or empty.

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.{name}(sa.asarray([[sa.nan, 2.0, 1.0], [4.0, sa.nan, 5.0]]), axis=1)
    {example}
    >>> sa.{name}(sa.asarray([sa.nan, sa.nan]))
    Traceback (most recent call last):
        ...
    ValueError: {name}: x is all NaN, so it has no index to return; ...
    """


def nanargmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    return _nanarg(np.nanargmax, "nanargmax", x, axis, keepdims)


def nanargmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    return _nanarg(np.nanargmin, "nanargmin", x, axis, keepdims)


# One text for the two (`help()` and the API pages read __doc__).
nanargmax.__doc__ = _ARG_DOC.format(
    what="maximum", name="nanargmax", example="Array([1, 2], dtype=int64, shape=(2,))"
)
nanargmin.__doc__ = _ARG_DOC.format(
    what="minimum", name="nanargmin", example="Array([2, 0], dtype=int64, shape=(2,))"
)


def nancumsum(
    x: Array,
    /,
    *,
    axis: int | None = None,
    dtype: DType | None = None,
    include_initial: bool = False,
) -> Array:
    """Cumulative sum along an axis, NaN counted as zero (NumPy's `nancumsum`).

    The signature and rules are `cumulative_sum`'s.

    Parameters
    ----------
    x : Array
        Numeric or bool input of rank 1 or more.
    axis : int or None
        The axis to sum along; may be omitted for a 1-d array only (NumPy's `nancumsum`
        flattens instead).
    dtype : dtype, optional
        The dtype to sum in and return; by default `cumulative_sum`'s.
    include_initial : bool
        Start with 0, so the axis grows by one.

    Returns
    -------
    Array
        The running sums.

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.nancumsum(sa.asarray([1.0, sa.nan, 2.0]), include_initial=True)
    Array([0., 1., 1., 3.], dtype=float64, shape=(4,))
    """
    return accumulate(
        np.cumulative_sum, "nancumsum", x, axis, dtype, include_initial, nan_as_zero=True
    )


def cumsum(x: Array, /, axis: int | None = None, dtype: DType | None = None) -> Array:
    """Cumulative sum, NumPy's `cumsum`: along an axis, or of the flattened array.

    `cumulative_sum` is the standard's spelling: it needs `axis` for an array of rank 2 or
    more, refuses 0-d input and can start with 0 (`include_initial`); `cumsum` flattens when
    `axis` is None, whatever x's rank, as NumPy's does. Both sum integers and bool in the
    64-bit default.

    Parameters
    ----------
    x : Array
        Numeric or bool input, of any rank (a 0-d array counts as one element).
    axis : int or None
        The axis to sum along; None (the default) sums the flattened array, row-major.
    dtype : dtype, optional
        The dtype to sum in and return; by default `cumulative_sum`'s.

    Returns
    -------
    Array
        The running sums: 1-d when `axis` is None, else of x's shape.

    Examples
    --------
    >>> import stridedarray as sa
    >>> x = sa.asarray([[1, 2], [3, 4]])
    >>> sa.cumsum(x)
    Array([ 1,  3,  6, 10], dtype=int64, shape=(4,))
    >>> sa.cumsum(x, axis=0)
    Array([[1, 2],
           [4, 6]], dtype=int64, shape=(2, 2))
    """
    if axis is None:
        x = check_array(x, func="cumsum")
        x = reshape(x, (-1,))
        axis = 0
    return accumulate(np.cumulative_sum, "cumsum", x, axis, dtype, False)


def cumprod(x: Array, /, axis: int | None = None, dtype: DType | None = None) -> Array:
    """Cumulative product, NumPy's `cumprod`: along an axis, or of the flattened array.

    `cumulative_prod` is the standard's spelling; `cumprod` differs from it as `cumsum` does
    from `cumulative_sum` (it flattens when `axis` is None, takes 0-d input, has no
    `include_initial`).

    Parameters
    ----------
    x : Array
        Numeric or bool input, of any rank (a 0-d array counts as one element).
    axis : int or None
        The axis to multiply along; None (the default) the flattened array, row-major.
    dtype : dtype, optional
        The dtype to multiply in and return; by default `cumulative_prod`'s.

    Returns
    -------
    Array
        The running products: 1-d when `axis` is None, else of x's shape.

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.cumprod(sa.asarray([[1, 2], [3, 4]]))
    Array([ 1,  2,  6, 24], dtype=int64, shape=(4,))
    """
    if axis is None:
        x = check_array(x, func="cumprod")
        x = reshape(x, (-1,))
        axis = 0
    return accumulate(np.cumulative_prod, "cumprod", x, axis, dtype, False)


_QUANTILE_METHODS = frozenset(
    "inverted_cdf averaged_inverted_cdf closest_observation interpolated_inverted_cdf hazen "
    "weibull linear median_unbiased normal_unbiased lower higher midpoint nearest".split()
)


def _quantile(
    fn: Callable, name: str, x: Array, q: Any, axis: _Axis, keepdims: bool, method: str
) -> Array:
    """quantile's and nanquantile's body: NumPy's function on the zero-copy view."""
    if not isinstance(x, ArrayBase):
        x = array_argument(x, "x", name)
    if x._dtype.kind not in "biuf":
        check_kind(x, "biuf", name, "real-valued")
    if method not in _QUANTILE_METHODS:
        raise ValueError(
            f"{name}: method must be one of {', '.join(sorted(_QUANTILE_METHODS))}, got {method!r}"
        )
    qa = q._np if isinstance(q, ArrayBase) else np.asarray(q)
    if qa.dtype.kind not in "biuf" or qa.ndim > 1:
        raise TypeError(f"{name}: q must be a real number or a 1-D array of them, got {q!r}")
    if qa.size and not (np.all(qa >= 0) and np.all(qa <= 1)):
        raise ValueError(f"{name}: q must lie in [0, 1], got {q!r}")
    axes = reduce_axes(axis, x.ndim, name)
    keepdims = as_bool(keepdims, "keepdims", name)
    x = floating(x, name)
    a, npdt = x._np, x._dtype.np
    if axes == ():  # nothing reduced: x itself, per q (NumPy's quantile may fail here)
        return _wrap(np.array(np.broadcast_to(a, qa.shape + x.shape), dtype=npdt))
    if x.size == 0:
        # empty slices: NaN, as `median` gives (NumPy's quantile raises an IndexError); or
        # no slice at all: an empty result (NumPy's fails on some of those shapes)
        return _wrap(np.full(qa.shape + _reduced_shape(x.shape, axes, keepdims), np.nan, npdt))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice: NaN, quietly
        out = _fpe.call(fn, a, qa.astype(npdt), axis=axes, keepdims=keepdims, method=method)
    return _wrap(np.asarray(out, dtype=npdt))


_QUANTILE_DOC = """The q-th quantiles along the given axes{nan} (NumPy's `{name}`).

    Parameters
    ----------
    x : Array
        Real-valued input; integers and bool give float64.
    q : float or 1-D array of floats
        The quantiles, in [0, 1].
    axis : int, tuple of ints or None
        The axes to reduce (all of them by default).
    keepdims : bool
        Keep the reduced axes with extent 1.
    method : str
        NumPy's estimation method ("linear" by default).

    Returns
    -------
    Array
        The quantiles, with q's axis first when q is an array; NaN for an empty slice (where
        NumPy raises).

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.{name}(sa.asarray([1.0, 2.0, 3.0, 4.0{example}]), [0.25, 0.5])
    Array([1.75, 2.5 ], dtype=float64, shape=(2,))
    """


def quantile(
    x: Array,
    /,
    q: Any,
    *,
    axis: _Axis = None,
    keepdims: bool = False,
    method: str = "linear",
) -> Array:
    return _quantile(np.quantile, "quantile", x, q, axis, keepdims, method)


def nanquantile(
    x: Array,
    /,
    q: Any,
    *,
    axis: _Axis = None,
    keepdims: bool = False,
    method: str = "linear",
) -> Array:
    return _quantile(np.nanquantile, "nanquantile", x, q, axis, keepdims, method)


quantile.__doc__ = _QUANTILE_DOC.format(nan="", name="quantile", example="")
nanquantile.__doc__ = _QUANTILE_DOC.format(
    nan=", NaN ignored", name="nanquantile", example=", sa.nan"
)


# -- gradient --------------------------------------------------------------------------------


def gradient(
    f: Array, /, *varargs: Any, axis: _Axis = None, edge_order: int = 1
) -> Array | tuple[Array, ...]:
    """The gradient of sampled values, NumPy's `gradient`.

    Central differences inside, one-sided differences at the edges (xarray's `differentiate`
    calls it on the namespace).

    Parameters
    ----------
    f : Array
        Numeric samples; integers give float64, floating and complex dtypes are kept.
    *varargs : number or 1-d Array
        The spacing: none (1 along every axis), one scalar for every axis, or one per axis in
        `axis`, each a scalar or the sample coordinates along that axis (uneven spacing).
    axis : int, tuple of ints or None
        The axes to differentiate along; every axis by default.
    edge_order : int
        The accuracy of the one-sided differences at the edges: 1 or 2.

    Returns
    -------
    Array or tuple of Array
        One derivative of f's shape per axis; an Array alone when one axis is asked for.

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.gradient(sa.asarray([1, 4, 9, 16]))
    Array([3., 4., 6., 7.], dtype=float64, shape=(4,))
    >>> sa.gradient(sa.asarray([1.0, 4.0, 9.0, 16.0]), sa.asarray([0.0, 1.0, 3.0, 4.0]))
    Array([3.        , 2.83333333, 5.5       , 7.        ], dtype=float64, shape=(4,))
    """
    if not isinstance(f, ArrayBase):
        f = array_argument(f, "f", "gradient")
    if f._dtype.kind not in "iufc":
        check_kind(f, "iufc", "gradient", "numeric", "f")
    axes = reduce_axes(axis, f.ndim, "gradient")
    edge_order = as_int(edge_order, "edge_order", "gradient")
    if edge_order not in (1, 2):
        raise ValueError(f"gradient: edge_order must be 1 or 2, got {edge_order}")
    axes = tuple(range(f.ndim)) if axes is None else axes
    for ax in axes:
        if f.shape[ax] < edge_order + 1:
            raise ValueError(
                f"gradient: axis {ax} has {f.shape[ax]} samples, and edge_order={edge_order} "
                f"needs at least {edge_order + 1}"
            )
    spacing = [v._np if isinstance(v, ArrayBase) else np.asarray(v) for v in varargs]
    if not (len(spacing) in (0, len(axes)) or (len(spacing) == 1 and spacing[0].ndim == 0)):
        raise TypeError(
            f"gradient: give no spacing, one scalar spacing, or one spacing for each of the "
            f"{len(axes)} axes; got {len(spacing)}"
        )
    for i, v in enumerate(spacing):
        # (a 1-d spacing is one of one per axis: the count check above leaves no other case)
        n = f.shape[axes[i]] if v.ndim == 1 else 0
        if v.dtype.kind not in "biufc" or v.ndim > 1 or (v.ndim == 1 and len(v) != n):
            where = f"the {n} coordinates of the samples along axis {axes[i]}" if n else "1-d"
            raise ValueError(
                f"gradient: varargs[{i}] must be a number or {where}, got {v.dtype} of shape "
                f"{v.shape}"
            )
    out = _fpe.call(np.gradient, f._np, *spacing, axis=axes, edge_order=edge_order)
    if isinstance(out, np.ndarray):  # (NumPy gives one axis's derivative alone)
        return _wrap(out)
    return tuple(_wrap(d) for d in out)


# -- pad -------------------------------------------------------------------------------------

# NumPy's modes that consumers call (Cubed's overlap, xarray's Variable.pad); NumPy's others
# (linear_ramp, maximum, mean, median, minimum, empty) take np.pad(x, ...), which returns an
# Array (NEP 18).
_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")

# What a constant fills an array of each kind with: NumPy's same-kind rule, so the result
# keeps x's dtype and no value is truncated (an int fills a float array, not the reverse).
_FILLS = {"b": "b", "i": "biu", "u": "biu", "f": "biuf", "c": "biufc"}


def _pairs(value: Any, ndim: int, name: str, what: str) -> np.ndarray:
    """`pad_width` or `constant_values` as an (ndim, 2) ndarray by NumPy's broadcasting: one
    value, one (before, after) pair, or one pair per axis."""
    a = value._np if isinstance(value, ArrayBase) else np.asarray(value)
    if a.size == 0 and a.ndim == 1:  # no pairs: what a 0-d x has one of per axis
        a = a.astype(np.intp).reshape(0, 2)
    if a.dtype.kind not in what:
        raise TypeError(
            f"pad: {name} must be {'integers' if what == 'iu' else 'numbers'} (one value, a "
            f"(before, after) pair or one pair per axis), got {value!r}"
        )
    try:
        return np.broadcast_to(a, (ndim, 2))
    except ValueError:
        raise ValueError(
            f"pad: {name} must be one value, a (before, after) pair or one pair for each of "
            f"x's {ndim} axes, got shape {a.shape}"
        ) from None


def pad(
    x: Array,
    /,
    pad_width: int | tuple[int, int] | tuple[tuple[int, int], ...],
    mode: str = "constant",
    *,
    constant_values: bool | int | float | complex | tuple = 0,
) -> Array:
    """Pad an array (NumPy's `pad`): a new array of x's dtype, grown at both ends of each axis.

    Parameters
    ----------
    x : Array
        The array to pad.
    pad_width : int, (before, after) or one (before, after) pair per axis
        How many elements to add before and after each axis; non-negative integers.
    mode : str
        What the new elements are: "constant" (`constant_values`), "edge" (the edge value
        repeated), "reflect" (mirrored about the edge value), "symmetric" (mirrored, the edge
        value repeated) or "wrap" (from the other end). NumPy's other modes: `np.pad(x, ...)`
        takes and returns stridedarray arrays.
    constant_values : scalar, (before, after) or one pair per axis
        The fill of mode "constant", 0 by default; of a kind x's dtype holds (NumPy's same-kind
        rule: an int fills a float array, a float does not fill an int array).

    Returns
    -------
    Array
        A new array of x's dtype.

    Raises
    ------
    ValueError
        For an unknown mode, a negative or misshapen `pad_width`, or a mode other than
        "constant" extending an empty axis.
    TypeError
        For a `constant_values` x's dtype does not hold (OverflowError for an integer out of
        its range).

    Examples
    --------
    >>> import stridedarray as sa
    >>> x = sa.asarray([1, 2, 3])
    >>> sa.pad(x, (2, 1), constant_values=9)
    Array([9, 9, 1, 2, 3, 9], dtype=int64, shape=(6,))
    >>> sa.pad(x, 2, mode="reflect")
    Array([3, 2, 1, 2, 3, 2, 1], dtype=int64, shape=(7,))
    >>> sa.pad(x, 2, mode="wrap")
    Array([2, 3, 1, 2, 3, 1, 2], dtype=int64, shape=(7,))
    """
    x = check_array(x, func="pad")
    if not isinstance(mode, str) or mode not in _PAD_MODES:
        raise ValueError(
            f"pad: mode must be one of {', '.join(map(repr, _PAD_MODES))}, got {mode!r}; "
            "NumPy's other modes: np.pad(x, ...) takes and returns stridedarray arrays"
        )
    widths = _pairs(pad_width, x.ndim, "pad_width", "iu")
    if (widths < 0).any():
        raise ValueError(f"pad: pad_width must not be negative, got {pad_width!r}")
    if mode == "constant":
        fill = _pairs(constant_values, x.ndim, "constant_values", "biufc")
        kind = x._dtype.kind
        ok = fill.dtype.kind in _FILLS[kind] or (
            kind == "b" and fill.dtype.kind in "iu" and ((fill == 0) | (fill == 1)).all()
        )
        if not ok:
            raise TypeError(
                f"pad: constant_values {constant_values!r} ({fill.dtype.kind}-kind) cannot "
                f"fill an array of dtype {x.dtype.name}; convert x with astype first"
            )
        if kind in "iu" and fill.size:
            info = np.iinfo(x._dtype.np)
            if fill.min() < info.min or fill.max() > info.max:
                raise OverflowError(
                    f"pad: constant_values {constant_values!r} is out of range for "
                    f"{x.dtype.name} [{info.min}, {info.max}]"
                )
    for k, n in enumerate(x._shape):
        if n == 0 and mode != "constant" and widths[k].any():
            raise ValueError(
                f"pad: mode {mode!r} cannot extend axis {k} of extent 0; only "
                "mode='constant' pads an empty axis"
            )
    if x.ndim == 0:  # no axis to pad (NumPy's own pad fails on its (0, 2) widths): a copy
        return x.to_row_major()
    if mode == "constant":
        return _wrap(np.pad(x._np, widths, mode="constant", constant_values=fill))
    return _wrap(np.pad(x._np, widths, mode=cast(Any, mode)))  # checked above

"""Searching functions (Array API chapter "Searching Functions").

Index results use the default index dtype, int64. `where` and `searchsorted` accept Python
scalars per the 2024.12/2025.12 mixing rules (see `_common.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .._arraytype import _wrap
from .._base import dtypes as _dtypes
from .._base.arguments import as_bool, normalize_axis
from .._base.construct import ArrayBase
from .._base.numpy_names import numpy_arguments, numpy_call
from ._common import call_names, check_array, check_kind, operands, reduce_axes

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


_INT64 = np.dtype(np.int64)
_np_where = np.where


def _arg_extremum(fn: Callable, name: str, x: Array, axis: int | None, keepdims: bool) -> Array:
    x = check_array(x, func=name)
    check_kind(x, "biuf", name, "real-valued")
    ax = None if axis is None else normalize_axis(axis, x.ndim, func=name)
    keepdims = as_bool(keepdims, "keepdims", name)
    # Empty only where a searched extent is 0: a (0, 4) array along axis 1 has no rows to
    # search and gives shape (0,), as in NumPy; along axis 0 (or flattened) there is no answer.
    if (x.size == 0 if ax is None else x.shape[ax] == 0) if x.ndim else False:
        raise ValueError(
            f"{name}: x of shape {x.shape} is empty along "
            f"{'its elements' if ax is None else f'axis {ax}'}, so there is no "
            "extremum"
        )
    out = fn(x._np, axis=ax, keepdims=keepdims)
    return _wrap(out if out.dtype == _INT64 else np.asarray(out, dtype=np.int64))


@numpy_arguments
def argmax(x: Array, /, *numpy_args: Any, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first maximum along an axis (of the flattened array when axis is None)."""
    if numpy_args:
        raise numpy_call("argmax", numpy_args)
    return _arg_extremum(np.ndarray.argmax, "argmax", x, axis, keepdims)


@numpy_arguments
def argmin(x: Array, /, *numpy_args: Any, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first minimum along an axis (of the flattened array when axis is None)."""
    if numpy_args:
        raise numpy_call("argmin", numpy_args)
    return _arg_extremum(np.ndarray.argmin, "argmin", x, axis, keepdims)


def count_nonzero(
    x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> Array:
    """Number of non-zero elements along the given axes."""
    x = check_array(x, func="count_nonzero")
    axes = reduce_axes(axis, x.ndim, "count_nonzero")
    keepdims = as_bool(keepdims, "keepdims", "count_nonzero")
    if axes is None:
        axes = tuple(range(x.ndim))
    out = np.count_nonzero(x._np, axis=axes, keepdims=keepdims)
    return _wrap(np.asarray(out, dtype=np.int64))


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """Indices of the non-zero elements, one int64 array per axis, in row-major order."""
    x = check_array(x, func="nonzero")
    if x.ndim == 0:
        # NumPy deprecated and then removed 0-d nonzero; the standard forbids it.
        raise ValueError("nonzero: x must have rank >= 1, got a 0-d array")
    return tuple(_wrap(i.astype(np.int64, copy=False)) for i in np.nonzero(x._np))


_SEARCHSORTED_NAMES = call_names("searchsorted")


def searchsorted(
    x1: Array,
    x2: Array | int | float,
    /,
    *,
    side: Literal["left", "right"] = "left",
    sorter: Array | None = None,
) -> Array:
    """Insertion indices into the 1-d sorted (or `sorter`-sorted) x1 that keep it sorted."""
    x1 = check_array(x1, "x1", func="searchsorted")
    check_kind(x1, "iuf", "searchsorted", "real-valued", "x1")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-d, got shape {x1.shape}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if isinstance(x2, ArrayBase):
        v = x2._np
    else:
        _, v, _ = operands(x1, x2, _SEARCHSORTED_NAMES)
    s = None
    if sorter is not None:
        sorter = check_array(sorter, "sorter", func="searchsorted")
        check_kind(sorter, "iu", "searchsorted", "integer", "sorter")
        if sorter.shape != x1.shape:
            raise ValueError(
                f"searchsorted: sorter shape {sorter.shape} must equal x1 shape {x1.shape}"
            )
        s = sorter._np
    out = np.searchsorted(x1._np, v, side=side, sorter=s)
    return _wrap(np.asarray(out, dtype=np.int64))


_WHERE_NAMES = call_names("where")


def where(condition: Array, x1: Array | Any, x2: Array | Any, /) -> Array:
    """Elements of x1 where condition is true, else of x2 (broadcast; dtypes promoted)."""
    if not isinstance(condition, ArrayBase):
        condition = check_array(condition, "condition", func="where")
    if condition._dtype is not _dtypes.bool:
        # NumPy would take truthiness of any dtype; the standard asks for bool (2024.12).
        raise TypeError(f"where: condition must have dtype bool, got {condition.dtype.name}")
    # Three arrays of one dtype: nothing to promote. One class makes arrays, so the types'
    # identity with condition's (an array, checked above) is the cheapest test that they are.
    t = type(condition)
    if type(x1) is t and type(x2) is t and x1._dtype is x2._dtype:
        c, a, b = condition._npv, x1._npv, x2._npv
        return _wrap(
            _np_where(
                condition._np if c is None else c,
                x1._np if a is None else a,
                x2._np if b is None else b,
            )
        )
    a, b, dt = operands(x1, x2, _WHERE_NAMES)
    return _wrap(np.where(condition._np, np.asarray(a, dt.np), np.asarray(b, dt.np)))

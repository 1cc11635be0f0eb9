"""Indexing functions (Array API chapter "Indexing Functions"): `take` and `take_along_axis`,
new arrays computed by NumPy on the zero-copy views after the indices are checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import _wrap
from .._base.arguments import as_int, convert_hint, normalize_axis
from .._base.construct import ArrayBase, array_argument

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["take", "take_along_axis"]


def _check_indices(name: str, x: Any, indices: Any) -> tuple[Array, Array]:
    """(x, indices) as Arrays (NumPy ndarrays taken as Arrays over their memory), checked."""
    if not isinstance(x, ArrayBase):
        x = array_argument(x, "x", name)
    if not isinstance(indices, ArrayBase) and isinstance(indices, np.ndarray):
        indices = array_argument(indices, "indices", name)
    if not isinstance(indices, ArrayBase):
        raise TypeError(
            f"{name}: indices must be an integer Array, got {type(indices).__name__}; "
            f"{convert_hint('indices')}"
        )
    if indices.dtype.kind not in "iu":
        raise TypeError(f"{name}: indices must be an integer Array, got {indices.dtype.name}")
    return x, indices


def _out_of_range(name: str, idx: np.ndarray, ax: int, n: int) -> IndexError:
    """The IndexError naming the first index outside [-n, n) and its position in indices."""
    bad = np.flatnonzero((idx < -n) | (idx >= n))[0]
    where = np.unravel_index(bad, idx.shape)
    pos = where[0] if idx.ndim == 1 else tuple(int(i) for i in where)
    return IndexError(
        f"{name}: index {int(idx.reshape(-1)[bad])} (indices[{pos}]) is out of range for "
        f"axis {ax} of size {n}; indices must lie in [-{n}, {n})"
    )


def _take_axis(x: Array, axis: int | None) -> tuple[int, int]:
    """take's axis in [0, ndim) and its extent; `axis` may be omitted for a 1-D x only."""
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for an array of rank {x.ndim}")
        axis = 0
    ax = normalize_axis(axis, max(x.ndim, 1), func="take")
    return ax, (x.shape[ax] if x.ndim else 1)


def _take_one(x: Array, index: Any, axis: int | None) -> Array:
    """take(x, i, axis=axis) for one integer i, beyond the standard, as NumPy takes it: the
    slice at i, the axis dropped, as a new array (Cubed's var and nanvar combine their
    partial results so)."""
    if not isinstance(x, ArrayBase):
        x = array_argument(x, "x", "take")
    i = as_int(index, "indices", "take")
    ax, n = _take_axis(x, axis)
    if not -n <= i < n:
        raise IndexError(
            f"take: index {i} is out of range for axis {ax} of size {n}; indices must lie in "
            f"[-{n}, {n})"
        )
    return _wrap(np.take(x._np, i, axis=ax))


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    """Elements of x at `indices` (1-D) along `axis` (optional for 1-D x).

    Beyond the standard, as in NumPy, `indices` may be one integer: the slice at it, without
    the axis."""
    if not isinstance(indices, ArrayBase) and isinstance(indices, int | np.integer):
        return _take_one(x, indices, axis)
    x, indices = _check_indices("take", x, indices)
    if indices.ndim != 1:
        raise ValueError(f"take: indices must be 1-D, got shape {indices.shape}")
    ax, n = _take_axis(x, axis)
    idx = indices._np
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise _out_of_range("take", idx, ax, n)
    return _wrap(np.take(x._np, idx, axis=ax))


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """Elements of x at `indices` (same rank as x, broadcast) along `axis`."""
    x, indices = _check_indices("take_along_axis", x, indices)
    if indices.ndim != x.ndim:
        raise ValueError(
            f"take_along_axis: indices must have the rank of x ({x.ndim}), got "
            f"shape {indices.shape}"
        )
    ax = normalize_axis(axis, x.ndim, func="take_along_axis")
    n = x.shape[ax]
    idx = indices._np
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise _out_of_range("take_along_axis", idx, ax, n)
    return _wrap(np.take_along_axis(x._np, idx, axis=ax))

"""Indexing functions (Array API chapter "Indexing Functions"): `take` and `take_along_axis`,
new arrays computed by NumPy on the zero-copy views after the indices are checked.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, _wrap
from ._validation import normalize_axis, not_array

__all__ = ["take", "take_along_axis"]


def _check_indices(name: str, x: Any, indices: Any) -> None:
    if not isinstance(x, Array):
        raise not_array(x, "x", name)
    if not isinstance(indices, Array) or indices.dtype.kind not in "iu":
        what = indices.dtype.name if isinstance(indices, Array) else type(indices).__name__
        raise TypeError(f"{name}: indices must be an integer Array, got {what}")


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    """Elements of x at `indices` (1-D) along `axis` (optional for 1-D x)."""
    _check_indices("take", x, indices)
    if indices.ndim != 1:
        raise ValueError(f"take: indices must be 1-D, got shape {indices.shape}")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for an array of rank {x.ndim}")
        axis = 0
    ax = normalize_axis(axis, max(x.ndim, 1))
    n = x.shape[ax] if x.ndim else 1
    idx = indices._np
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"take: indices must lie in [-{n}, {n}) for axis {ax} of size {n}")
    return _wrap(np.take(x._np, idx, axis=ax))


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """Elements of x at `indices` (same rank as x, broadcast) along `axis`."""
    _check_indices("take_along_axis", x, indices)
    if indices.ndim != x.ndim:
        raise ValueError(
            f"take_along_axis: indices must have the rank of x ({x.ndim}), got "
            f"shape {indices.shape}"
        )
    ax = normalize_axis(axis, x.ndim)
    n = x.shape[ax]
    idx = indices._np
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(
            f"take_along_axis: indices must lie in [-{n}, {n}) for axis {ax} of size {n}"
        )
    return _wrap(np.take_along_axis(x._np, idx, axis=ax))

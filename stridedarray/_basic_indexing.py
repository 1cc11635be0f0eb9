"""Basic indexing: parse ints, slices, '...' and None into a new descriptor (a view).

`Array.__getitem__` handles a lone slice or int inline (the hottest path); tuples come here.
Every slice's first and last index is checked against its axis, so a view reaches only
offsets its parent reaches and needs no full bounds check (`_derive`).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ._array import Array, _derive

__all__: list[str] = []


def _simple_tuple_index(a: Array, key: tuple) -> Array | None:
    """The view for a tuple of ints, slices, None and one '...', else None (general path)."""
    shape, strides = a._shape, a._strides
    nd = len(shape)
    # One cheap pass over the types: axes consumed (to expand '...') and axes added.
    used = added = 0
    for k in key:
        tk = type(k)
        if tk is slice or tk is int:
            used += 1
        elif k is None:
            added += 1
        elif k is not Ellipsis:
            return None
    if used > nd or nd - used + added > 64:
        return None  # _basic_index / _make raise the specific error
    origin = a._origin
    new_shape: list = []
    new_strides: list = []
    empty = 0 in shape  # an empty parent has only empty children: keep its origin
    ellipsis = False
    ax = 0
    for k in key:
        tk = type(k)
        if tk is slice:
            s = strides[ax]
            dim = shape[ax]
            start, stop, step = k.indices(dim)
            if step > 0:
                n = (stop - start + step - 1) // step if stop > start else 0
            else:
                n = (start - stop - step - 1) // -step if start > stop else 0
            if n:
                # Derived bounds check: first and last index inside the parent's axis.
                if not (0 <= start < dim and 0 <= start + (n - 1) * step < dim):
                    raise IndexError(f"slice {k} escapes axis {ax} of size {dim}")
                origin += start * s
            else:
                empty = True
            new_shape.append(n)
            new_strides.append(s * step)
            ax += 1
        elif tk is int:
            n = shape[ax]
            i = k + n if k < 0 else k
            if not 0 <= i < n:
                raise IndexError(f"index {k} is out of bounds for axis {ax} with size {n}")
            origin += i * strides[ax]
            ax += 1
        elif k is None:
            new_shape.append(1)
            new_strides.append(0)
        else:
            if ellipsis:
                return None  # two ellipses: _basic_index raises
            ellipsis = True
            m = ax + nd - used
            new_shape.extend(shape[ax:m])
            new_strides.extend(strides[ax:m])
            ax = m
    if ax < nd:
        new_shape.extend(shape[ax:])
        new_strides.extend(strides[ax:])
    return _derive(a, tuple(new_shape), tuple(new_strides), a._origin if empty else origin)


def _is_int_index(k: Any) -> bool:
    if isinstance(k, (bool, np.bool_)):
        return False
    if isinstance(k, Array):
        return k.ndim == 0 and k.dtype.kind in "iu"
    return hasattr(k, "__index__") and not isinstance(k, np.ndarray)


def _basic_index(a: Array, key: Any):
    """(shape, strides, origin) for a basic index, or None when the key is not basic."""
    if not isinstance(key, tuple):
        key = (key,)
    consumed = 0
    n_ellipsis = 0
    for k in key:
        if k is Ellipsis:
            n_ellipsis += 1
        elif isinstance(k, slice) or _is_int_index(k):
            consumed += 1
        elif k is not None:
            return None
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > a.ndim:
        raise IndexError(f"too many indices: {consumed} for an array of rank {a.ndim}")
    shape, strides = [], []
    origin = a._origin
    empty = False
    axis = 0
    for k in key:
        if k is None:
            shape.append(1)
            strides.append(0)
        elif k is Ellipsis:
            for _ in range(a.ndim - consumed):
                shape.append(a._shape[axis])
                strides.append(a._strides[axis])
                axis += 1
        elif isinstance(k, slice):
            n, s = a._shape[axis], a._strides[axis]
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            if length:
                origin += start * s
            else:
                empty = True
            shape.append(length)
            strides.append(s * step)
            axis += 1
        else:
            i = operator.index(k)
            n = a._shape[axis]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            origin += (i + n if i < 0 else i) * a._strides[axis]
            axis += 1
    shape.extend(a._shape[axis:])
    strides.extend(a._strides[axis:])
    if empty:
        origin = a._origin
    return tuple(shape), tuple(strides), origin

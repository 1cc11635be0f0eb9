"""Basic indexing: parse ints, slices, '...' and None into a new descriptor (a view).

`Array.__getitem__` handles a lone slice or int inline (the hottest path); tuples come here.
Every slice's first and last index is checked against its axis, so a view reaches only
offsets its parent reaches and needs no full bounds check (`_derive`).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ._array import Array, _new

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
        return None  # _basic_index raises the specific error
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
    # _derive, inlined (a Python call is a visible share of a view's cost)
    v = _new(Array)
    v._st = a._st
    v._dtype = a._dtype
    v._shape = tuple(new_shape)
    v._strides = tuple(new_strides)
    v._origin = a._origin if empty else origin
    v._npv = None
    v._cd = None
    return v


def _is_int_index(k: Any) -> bool:
    if isinstance(k, (bool, np.bool_)):
        return False
    if isinstance(k, Array):
        return k.ndim == 0 and k.dtype.kind in "iu"
    return hasattr(k, "__index__") and not isinstance(k, np.ndarray)


def _basic_index(a: Array, key: Any) -> Array | None:
    """The view for any basic index, or None when the key is not basic (advanced indexing).

    Normalizes the key (integer-likes such as NumPy ints or 0-d integer Arrays become ints),
    raises the specific IndexError for malformed keys, and builds the view with the same code
    as the tuple fast path."""
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    consumed = 0
    n_ellipsis = 0
    for k in key:
        if k is Ellipsis:
            n_ellipsis += 1
        elif isinstance(k, slice):
            consumed += 1
        elif _is_int_index(k):
            consumed += 1
            k = operator.index(k)
        elif k is not None:
            return None
        items.append(k)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > a.ndim:
        raise IndexError(f"too many indices: {consumed} for an array of rank {a.ndim}")
    view = _simple_tuple_index(a, tuple(items))
    if view is None:  # the only case left: the result would exceed the rank limit
        rank = a.ndim - consumed + sum(k is None for k in items)
        raise ValueError(f"arrays have at most 64 dimensions, got {rank}")
    return view

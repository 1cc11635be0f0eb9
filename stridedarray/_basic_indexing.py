"""Reading with a key, `x[key]`: the Python path of the array type's indexing.

The array type does keys of exact ints, slices, None and one '...' in C, and `mT` and `T`
(csrc/arraytype/indexing.c). Every other key comes here, to `getitem`, which `_bind` registers
with the type: NumPy integers, 0-d integer arrays, malformed keys (their specific errors),
advanced keys, and parents whose strides C does not hold exactly. It handles a lone slice or
int inline; tuples take `_simple_tuple_index`, anything else `_basic_index`.
Every slice's first and last index is checked against its axis (for the specific
IndexError); every view is then built, and bounds-checked, by the one constructor (`_view`).
Advanced keys (integer arrays, boolean masks) take `getitem_advanced`: NumPy computes them on
the zero-copy view and they return new arrays.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from ._array import Array, _wrap

__all__: list[str] = []


def _simple_tuple_index(a: Array, key: tuple) -> Array | None:
    """The view for a tuple of ints, slices, None and one '...', else None (general path)."""
    shape, strides = a._shape, a._strides
    nd = len(shape)
    # One cheap pass over the types: axes consumed (to expand '...'), axes dropped (ints; a
    # slice keeps its axis) and axes added (None).
    used = removed = added = 0
    for k in key:
        tk = type(k)
        if tk is slice:
            used += 1
        elif tk is int:
            used += 1
            removed += 1
        elif k is None:
            added += 1
        elif k is not Ellipsis:
            return None
    if used > nd or nd - removed + added > 64:
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
    return a._view(tuple(new_shape), tuple(new_strides), a._origin if empty else origin)


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
        # NumPy's error and words (csrc/arraytype/indexing.c raises the same).
        rank = a.ndim - sum(type(k) is int for k in items) + sum(k is None for k in items)
        raise IndexError(
            f"number of dimensions must be within [0, 64], indexing result would have {rank}"
        )
    return view


def getitem(self: Array, key: Any) -> Array:
    """Basic indexing (ints, slices, ..., None) returns a view."""
    # Fast path for the common keys (a slice, an int, or a tuple of them): one pass, no
    # helper calls. Anything else (None, ..., NumPy ints, arrays) takes _basic_index.
    new_shape: tuple[int, ...]
    new_strides: tuple[int, ...]
    tk = type(key)
    if tk is slice:
        shape = self._shape
        nd = len(shape)
        if nd:
            strides = self._strides
            s = strides[0]
            dim = shape[0]
            start, stop, step = key.indices(dim)
            # Length by arithmetic (len(range(...)) costs a call and an object).
            if step > 0:
                n = (stop - start + step - 1) // step if stop > start else 0
            else:
                n = (start - stop - step - 1) // -step if start > stop else 0
            if not n or (nd > 1 and 0 in shape):
                origin = self._origin  # empty: keep the parent's (in-buffer) origin
            elif 0 <= start < dim and 0 <= start + (n - 1) * step < dim:
                # Derived bounds check passed: first and last index inside axis 0.
                origin = self._origin + start * s
            else:
                raise IndexError(f"slice {key} escapes axis 0 of size {dim}")
            # Tuples spelled out per rank: slicing and concatenating tuples costs
            # several times more on CPython 3.11.
            if nd == 1:
                new_shape, new_strides = (n,), (s * step,)
            elif nd == 2:
                new_shape, new_strides = (n, shape[1]), (s * step, strides[1])
            elif nd == 3:
                new_shape = (n, shape[1], shape[2])
                new_strides = (s * step, strides[1], strides[2])
            else:
                new_shape, new_strides = (n,) + shape[1:], (s * step,) + strides[1:]
            return self._view(new_shape, new_strides, origin)
    elif tk is int:
        shape = self._shape
        nd = len(shape)
        if nd:
            n = shape[0]
            i = key + n if key < 0 else key
            if not 0 <= i < n:
                raise IndexError(f"index {key} is out of bounds for axis 0 with size {n}")
            strides = self._strides
            origin = self._origin
            if nd == 1:
                new_shape, new_strides = (), ()
                origin += i * strides[0]
            else:
                if nd == 2:
                    new_shape, new_strides = (shape[1],), (strides[1],)
                elif nd == 3:
                    new_shape, new_strides = (shape[1], shape[2]), (strides[1], strides[2])
                else:
                    new_shape, new_strides = shape[1:], strides[1:]
                if 0 not in new_shape:  # else empty: keep the parent's origin
                    origin += i * strides[0]
            return self._view(new_shape, new_strides, origin)
    elif tk is tuple:
        view = _simple_tuple_index(self, key)
        if view is not None:
            return view
    elif key is None or key is Ellipsis:  # x[None], x[...]: a one-item tuple, no normalising
        view = _simple_tuple_index(self, (key,))
        if view is not None:
            return view
    view = _basic_index(self, key)
    if view is None:
        return getitem_advanced(self, key)
    return view


def _numpy_key(a: Array, key: Any) -> Any:
    """Translate an advanced index to NumPy's form, checking what the standard allows:
    ints, slices, Ellipsis, None, Python bools, and integer or boolean Arrays."""
    parts = key if isinstance(key, tuple) else (key,)
    out: list[Any] = []
    for k in parts:
        if isinstance(k, Array):
            if k.dtype.kind not in "biu":
                raise IndexError(
                    f"array indices must have an integer or bool dtype, got {k.dtype.name}"
                )
            out.append(k._np)
        elif isinstance(k, np.ndarray) and k.dtype.kind in "biu":
            # A NumPy index array (scikit-learn's cross-validation splits, Dask's arg
            # reductions): NumPy, torch and JAX all accept it, so we do.
            out.append(k)
        elif k is None or k is Ellipsis or isinstance(k, (slice, builtins.bool, np.bool_)):
            out.append(k)
        elif hasattr(k, "__index__") and not isinstance(k, np.ndarray):
            out.append(operator.index(k))
        else:
            what = (
                f"a NumPy array of dtype {k.dtype}"
                if isinstance(k, np.ndarray)
                else type(k).__name__
            )
            if isinstance(k, (list, tuple)):
                # NumPy's fancy indexing with a list: here an index array says it (standard)
                shown = repr(k) if len(repr(k)) <= 40 else "indices"
                what += (
                    f" (index with an array, x[stridedarray.asarray({shown})], "
                    "or use stridedarray.take)"
                )
            raise IndexError(
                f"only integers, slices, '...', None, bools and integer or "
                f"boolean arrays are valid indices; got {what}"
            )
    return tuple(out)


def getitem_advanced(a: Array, key: Any) -> Array:
    """Integer-array and boolean-mask indexing (a new array, computed by NumPy)."""
    return _wrap(a._np[_numpy_key(a, key)])

"""Manipulation functions (Array API chapter "Manipulation Functions").

Everything here that can be expressed as a new descriptor over the same storage is a view:
permute_dims, flip, broadcast_to, expand_dims, squeeze, and reshape when the strides allow.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from ._array import Array
from ._validation import c_strides, normalize_axes, normalize_axis

__all__ = ["permute_dims", "matrix_transpose", "flip", "broadcast_to", "expand_dims",
           "squeeze", "reshape"]


def _check_array(x: object, name: str = "x") -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{name} must be a stridedarray.Array, got {type(x).__name__}")
    return x


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """Reorder the axes (a view)."""
    _check_array(x)
    perm = normalize_axes(axes, x.ndim, "axes")
    if len(perm) != x.ndim:
        raise ValueError(f"axes {tuple(axes)} must be a permutation of range({x.ndim})")
    return x._view(tuple(x.shape[p] for p in perm), tuple(x.strides[p] for p in perm), x.origin)


def matrix_transpose(x: Array, /) -> Array:
    """Swap the last two axes (a view)."""
    return _check_array(x).mT


def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """Reverse the order of elements along the given axes (a view with negated strides)."""
    _check_array(x)
    axes = range(x.ndim) if axis is None else normalize_axes(axis, x.ndim)
    shape, strides, origin = x.shape, list(x.strides), x.origin
    for a in axes:
        if shape[a] > 0:
            origin += (shape[a] - 1) * strides[a]
        strides[a] = -strides[a]
    return x._view(shape, tuple(strides), origin)


def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """Broadcast to `shape` (a view; broadcast axes get stride 0)."""
    _check_array(x)
    shape = tuple(operator.index(s) for s in shape)
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ValueError(f"cannot broadcast an array of shape {x.shape} to the shape {shape} "
                         "of lower rank")
    strides = [0] * lead
    for n, s, target in zip(x.shape, x.strides, shape[lead:]):
        if n == target:
            strides.append(s)
        elif n == 1 and target >= 0:
            strides.append(0)
        else:
            raise ValueError(f"cannot broadcast an array of shape {x.shape} to shape {shape}")
    if any(s < 0 for s in shape):
        raise ValueError(f"shape {shape} has a negative extent")
    return x._view(shape, tuple(strides), x.origin)


def expand_dims(x: Array, /, axis: int | tuple[int, ...] = 0) -> Array:
    """Insert axes of extent 1 at the given positions of the result (a view)."""
    _check_array(x)
    n_new = 1 if isinstance(axis, int) else len(axis)
    axes = normalize_axes(axis, x.ndim + n_new)
    shape, strides = list(x.shape), list(x.strides)
    for a in sorted(axes):
        shape.insert(a, 1)
        strides.insert(a, 0)
    return x._view(tuple(shape), tuple(strides), x.origin)


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """Remove the given axes, each of which must have extent 1 (a view)."""
    _check_array(x)
    axes = normalize_axes(axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"cannot squeeze axis {a}: its extent is {x.shape[a]}, not 1")
    keep = [k for k in range(x.ndim) if k not in axes]
    return x._view(tuple(x.shape[k] for k in keep), tuple(x.strides[k] for k in keep), x.origin)


def _view_strides(shape: tuple, strides: tuple, new_shape: tuple) -> tuple | None:
    """Strides that present (shape, strides) as new_shape without moving data, or None.

    Groups of old axes are matched to groups of new axes with the same element count; each
    old group must itself be one strided run (NumPy's _attempt_nocopy_reshape)."""
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    new_strides = [0] * len(new_shape)
    oi = ni = 0
    while oi < len(old) and ni < len(new_shape):
        oj, nj = oi + 1, ni + 1
        op, np_ = old[oi][0], new_shape[ni]
        while op != np_:
            if np_ < op:
                np_ *= new_shape[nj]
                nj += 1
            else:
                op *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        new_strides[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            new_strides[k - 1] = new_strides[k] * new_shape[k]
        oi, ni = oj, nj
    return tuple(new_strides)


def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    """Give a new shape: a view when the strides allow, else a copy (never with copy=False)."""
    _check_array(x)
    if not isinstance(shape, Sequence):
        shape = (shape,)
    shape = [operator.index(s) for s in shape]
    if shape.count(-1) > 1:
        raise ValueError(f"shape {tuple(shape)} may contain at most one -1")
    if any(s < -1 for s in shape):
        raise ValueError(f"shape {tuple(shape)} has a negative extent")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or x.size % known:
            raise ValueError(f"cannot reshape an array of size {x.size} into shape "
                             f"{tuple(shape)}")
        shape[shape.index(-1)] = x.size // known
    new_shape = tuple(shape)
    if _prod(new_shape) != x.size:
        raise ValueError(f"cannot reshape an array of shape {x.shape} (size {x.size}) into "
                         f"shape {new_shape}")
    if copy:
        return _reshape_copy(x, new_shape)
    if x.size == 0:
        return x._view(new_shape, c_strides(new_shape), x.origin)
    strides = _view_strides(x.shape, x.strides, new_shape)
    if strides is not None:
        return x._view(new_shape, strides, x.origin)
    if copy is False:
        raise ValueError(f"reshape(copy=False): an array of shape {x.shape} and strides "
                         f"{x.strides} cannot be viewed as shape {new_shape}")
    return _reshape_copy(x, new_shape)


def _prod(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _reshape_copy(x: Array, shape: tuple) -> Array:
    packed = x.to_row_major()
    return packed._view(shape, c_strides(shape), 0)

"""Manipulation functions (Array API chapter "Manipulation Functions").

Everything here that can be expressed as a new descriptor over the same storage is a view:
permute_dims, moveaxis, flip, broadcast_to, broadcast_arrays, expand_dims, squeeze, unstack,
and reshape when the strides allow. concat, stack, repeat, roll and tile make new arrays
(NumPy does the copying, on the zero-copy views `x._np`).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import NativeFunction, _reshape_strides, _wrap
from .._base import dtypes as _dtypes
from .._base.arguments import AxisError, as_bool, as_int, as_ints, normalize_axes, normalize_axis
from .._base.construct import ArrayBase, _derive
from .._base.descriptor import MAX_BYTES, c_strides, check_size
from .._base.numpy_names import numpy_arguments, numpy_call
from ._common import check_array as _check_array

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = [
    "permute_dims",
    "matrix_transpose",
    "flip",
    "broadcast_to",
    "expand_dims",
    "squeeze",
    "reshape",
    "broadcast_arrays",
    "broadcast_shapes",
    "concat",
    "moveaxis",
    "repeat",
    "roll",
    "stack",
    "tile",
    "unstack",
]


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """Reorder the axes (a view). A tuple of exact ints is taken in C
    (csrc/arraytype/indexing.c); other axes, and the errors, here."""
    x = _check_array(x, func="permute_dims")
    perm = normalize_axes(axes, x.ndim, "axes", "permute_dims")
    if len(perm) != x.ndim:
        raise ValueError(f"axes {tuple(axes)} must be a permutation of range({x.ndim})")
    return x._view(tuple(x.shape[p] for p in perm), tuple(x.strides[p] for p in perm), x.origin)


def matrix_transpose(x: Array, /) -> Array:
    """Swap the last two axes (a view)."""
    return _check_array(x, func="matrix_transpose").mT


def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """Reverse the order of elements along the given axes (a view with negated strides).
    axis None or an exact int is taken in C (csrc/arraytype/indexing.c); a tuple of axes,
    and the errors, here."""
    x = _check_array(x, func="flip")
    axes = range(x.ndim) if axis is None else normalize_axes(axis, x.ndim, func="flip")
    shape, signed, origin = x.shape, list(x.strides), x.origin
    for a in axes:
        if 0 not in shape:  # an empty array keeps its origin
            origin += (shape[a] - 1) * signed[a]
        signed[a] = -signed[a]
    return x._view(shape, tuple(signed), origin)


def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """Broadcast to `shape` (a view; broadcast axes get stride 0)."""
    x = _check_array(x, func="broadcast_to")
    if type(shape) is not tuple or any(type(s) is not int for s in shape):
        shape = as_ints(shape, "shape", "broadcast_to")
    # One pass for both size checks (this is a view function): negative extents, and a byte
    # size beyond int64 (a stride-0 view can claim any count; NumPy refuses those too).
    nbytes = x._dtype.np.itemsize
    for s in shape:
        if s > 0:
            nbytes *= s
        elif s < 0:
            raise ValueError(
                f"cannot broadcast an array of shape {x.shape} to shape {shape}: negative extent"
            )
    if nbytes > MAX_BYTES:
        check_size(shape, x._dtype.np.itemsize, "broadcast_to: shape")
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ValueError(
            f"cannot broadcast an array of shape {x.shape} to the shape {shape} of lower rank"
        )
    strides = [0] * lead
    for n, s, target in zip(x.shape, x.strides, shape[lead:], strict=True):
        if n == target:
            strides.append(s)
        elif n == 1 and target >= 0:
            strides.append(0)
        else:
            raise ValueError(f"cannot broadcast an array of shape {x.shape} to shape {shape}")
    if len(shape) > 64:
        raise ValueError(f"arrays have at most 64 dimensions, got {len(shape)}")
    # Stride 0 repeats an element x already reaches: the offsets are x's (derived check).
    return _derive(x, shape, tuple(strides), x._origin)


def expand_dims(x: Array, /, axis: int | tuple[int, ...] = 0) -> Array:
    """Insert axes of extent 1 at the given positions of the result (a view)."""
    x = _check_array(x, func="expand_dims")
    shape, strides = x._shape, x._strides
    if type(axis) is int and -len(shape) - 1 <= axis <= len(shape) < 64:
        # Fast path: one new extent-1 axis; the offsets are x's (derived check).
        a = axis % (len(shape) + 1)
        return _derive(x, shape[:a] + (1,) + shape[a:], strides[:a] + (0,) + strides[a:], x._origin)
    n_new = len(axis) if isinstance(axis, Sequence) else 1
    axes = normalize_axes(axis, x.ndim + n_new, func="expand_dims")
    dims, steps = list(x.shape), list(x.strides)
    for a in sorted(axes):
        dims.insert(a, 1)
        steps.insert(a, 0)
    return x._view(tuple(dims), tuple(steps), x.origin)


def squeeze(x: Array, /, axis: int | tuple[int, ...] | None = None) -> Array:
    """Remove the given axes, each of which must have extent 1 (a view).

    Without `axis` (beyond the standard, NumPy's default), every axis of extent 1."""
    x = _check_array(x, func="squeeze")
    shape, strides = x._shape, x._strides
    if axis is None:
        axis = tuple(k for k, n in enumerate(shape) if n == 1)
    elif type(axis) is int and -len(shape) <= axis < len(shape) and shape[axis] == 1:
        # Fast path: dropping one extent-1 axis leaves the offsets unchanged (derived check).
        a = axis % len(shape)
        return _derive(x, shape[:a] + shape[a + 1 :], strides[:a] + strides[a + 1 :], x._origin)
    axes = normalize_axes(axis, x.ndim, func="squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"cannot squeeze axis {a}: its extent is {x.shape[a]}, not 1")
    keep = [k for k in range(x.ndim) if k not in axes]
    return x._view(tuple(x.shape[k] for k in keep), tuple(x.strides[k] for k in keep), x.origin)


def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    """Give a new shape: a view when the strides allow, else a copy (never with copy=False)."""
    x = _check_array(x, func="reshape")
    if copy is not None and copy.__class__ is not bool:
        copy = as_bool(copy, "copy", "reshape", none=True)
    dims = list(as_ints(shape if isinstance(shape, Sequence) else (shape,), "shape", "reshape"))
    if dims.count(-1) > 1:
        raise ValueError(f"shape {tuple(dims)} may contain at most one -1")
    if any(s < -1 for s in dims):
        raise ValueError(f"shape {tuple(dims)} has a negative extent")
    known = 1
    for s in dims:
        if s != -1:
            known *= s
    if -1 in dims:
        if known == 0 or x.size % known:
            raise ValueError(f"cannot reshape an array of size {x.size} into shape {tuple(dims)}")
        dims[dims.index(-1)] = x.size // known
    new_shape = tuple(dims)
    check_size(new_shape, x._dtype.np.itemsize, "reshape: shape")
    if math.prod(new_shape) != x.size:
        raise ValueError(
            f"cannot reshape an array of shape {x.shape} (size {x.size}) into shape {new_shape}"
        )
    if copy:
        return _reshape_copy(x, new_shape)
    if x.size == 0:
        return x._view(new_shape, c_strides(new_shape), x.origin)
    strides = _reshape_strides(x, new_shape)  # csrc/arraytype/reshape.c's rule
    if strides is not None:
        return x._view(new_shape, strides, x.origin)
    if copy is False:
        raise ValueError(
            f"reshape(copy=False): an array of shape {x.shape} and strides "
            f"{x.strides} cannot be viewed as shape {new_shape}"
        )
    return _reshape_copy(x, new_shape)


def _reshape_copy(x: Array, shape: tuple) -> Array:
    return x._pack(x._dtype, shape)


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that all `shapes` broadcast to (right-aligned; extents equal or 1)."""
    shapes = tuple(
        as_ints(shape, f"shapes[{i}]", "broadcast_shapes") for i, shape in enumerate(shapes)
    )
    for i, shape in enumerate(shapes):
        if any(n < 0 for n in shape):
            raise ValueError(
                f"broadcast_shapes: shapes[{i}] {shape} has a negative extent "
                "(negative dimensions are not allowed)"
            )
    ndim = max((len(s) for s in shapes), default=0)
    out: list[int] = []
    # Axis by axis, and per axis argument by argument, as NumPy compares them: the first
    # mismatch found is the one NumPy names.
    for k in range(ndim):
        n, owner = 1, -1  # the extent so far, and the first argument that had it
        for i, shape in enumerate(shapes):
            m = shape[k - ndim + len(shape)] if k >= ndim - len(shape) else 1
            if m == 1 or m == n:
                continue
            if n == 1:
                n, owner = m, i
                continue
            # Ours, then NumPy's wording (code written for NumPy matches it).
            raise ValueError(
                f"shapes {', '.join(map(str, shapes))} are not broadcast compatible (extents "
                f"{n} and {m} at axis {k}); shape mismatch: objects cannot be broadcast to a "
                f"single shape.  Mismatch is between arg {owner} with shape {shapes[owner]} "
                f"and arg {i} with shape {shape}."
            )
        out.append(n)
    return tuple(out)


def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    """Broadcast arrays against each other (views)."""
    arrays = tuple(
        _check_array(a, f"arrays[{i}]", func="broadcast_arrays") for i, a in enumerate(arrays)
    )
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)


def moveaxis(
    x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...], /
) -> Array:
    """Move axes to new positions, keeping the order of the others (a view)."""
    x = _check_array(x, func="moveaxis")
    src = _moveaxis_axes(source, x.ndim, "source")
    dst = _moveaxis_axes(destination, x.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError(
            f"moveaxis: source {source} and destination {destination} must name "
            "the same number of axes (`source` and `destination` arguments must "
            "have the same number of elements)"
        )
    order = [k for k in range(x.ndim) if k not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return permute_dims(x, tuple(order))


def _moveaxis_axes(axes: int | Sequence[int], ndim: int, name: str) -> tuple[int, ...]:
    """`normalize_axes` with NumPy's wording of the errors added (SciPy's tests match it)."""
    try:
        return normalize_axes(axes, ndim, name, "moveaxis")
    except AxisError as e:
        bad = next(
            a
            for a in ((axes,) if not isinstance(axes, Sequence) else axes)
            if not -ndim <= operator.index(a) < ndim
        )
        raise AxisError(
            f"{e} ({name}: axis {operator.index(bad)} is out of bounds for array "
            f"of dimension {ndim})"
        ) from None
    except ValueError as e:
        if "repeated" not in str(e):
            raise
        raise ValueError(f"{e} (repeated axis in `{name}` argument)") from None


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """Split x along an axis into a tuple of views, one per index."""
    x = _check_array(x, func="unstack")
    if x.ndim == 0:
        raise ValueError("unstack: x must have rank >= 1, got a 0-d array")
    ax = normalize_axis(axis, x.ndim, func="unstack")
    shape = x.shape[:ax] + x.shape[ax + 1 :]
    strides = x.strides[:ax] + x.strides[ax + 1 :]
    step = x.strides[ax]
    return tuple(x._view(shape, strides, x.origin + i * step) for i in range(x.shape[ax]))


def _joined(arrays: Sequence[Array], func: str) -> tuple[list, _dtypes.DType]:
    if isinstance(arrays, ArrayBase) or not isinstance(arrays, (list, tuple)):
        raise TypeError(
            f"{func}: arrays must be a list or tuple of arrays, got {type(arrays).__name__}"
        )
    if not arrays:
        raise ValueError(f"{func}: need at least one array")
    checked = [_check_array(a, f"arrays[{i}]", func=func) for i, a in enumerate(arrays)]
    dt = checked[0].dtype
    for a in checked[1:]:
        dt = _dtypes.promote(dt, a.dtype)
    return [a._np for a in checked], dt


@numpy_arguments
def concat(
    arrays: tuple[Array, ...] | list[Array], /, *numpy_args: Any, axis: int | None = 0
) -> Array:
    """Join arrays along an existing axis (flattened first when axis is None)."""
    if numpy_args:
        raise numpy_call("concat", numpy_args)
    nps, dt = _joined(arrays, "concat")
    if axis is None:
        return _wrap(np.concatenate([a.reshape(-1) for a in nps], dtype=dt.np))
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError("concat: 0-d arrays cannot be concatenated along an axis")
    ax = normalize_axis(axis, ndim, func="concat")
    ref = arrays[0].shape
    for a in arrays:
        if a.ndim != ndim or any(
            n != m for k, (n, m) in enumerate(zip(a.shape, ref, strict=True)) if k != ax
        ):
            raise ValueError(
                f"concat: shapes {[b.shape for b in arrays]} must agree except on axis {ax}"
            )
    return _wrap(np.concatenate(nps, axis=ax, dtype=dt.np))


@numpy_arguments
def stack(arrays: tuple[Array, ...] | list[Array], /, *numpy_args: Any, axis: int = 0) -> Array:
    """Join arrays of equal shape along a new axis."""
    if numpy_args:
        raise numpy_call("stack", numpy_args)
    nps, dt = _joined(arrays, "stack")
    shapes = [a.shape for a in arrays]
    if any(s != shapes[0] for s in shapes):
        raise ValueError(f"stack: all arrays must have the same shape, got {shapes}")
    ax = normalize_axis(axis, arrays[0].ndim + 1, func="stack")
    return _wrap(np.stack(nps, axis=ax, dtype=dt.np))


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Repeat each element `repeats` times (per element when repeats is an array)."""
    x = _check_array(x, func="repeat")
    r: np.ndarray | int
    if isinstance(repeats, ArrayBase):
        if repeats.dtype.kind not in "iu":
            raise TypeError(f"repeat: repeats must have an integer dtype, got {repeats.dtype.name}")
        if repeats.ndim > 1:
            raise ValueError(f"repeat: repeats must be 0-d or 1-d, got shape {repeats.shape}")
        r = repeats._np.astype(np.int64, copy=False)
    else:
        try:
            r = as_int(repeats, "repeats", "repeat")
        except TypeError:
            raise TypeError(
                f"repeat: repeats must be an int or an integer array, got {type(repeats).__name__}"
            ) from None
    if np.any(np.asarray(r) < 0):
        raise ValueError("repeat: repeats must be non-negative")
    ax = None if axis is None else normalize_axis(axis, x.ndim, func="repeat")
    if isinstance(r, int):  # the result's size, before NumPy converts r to a C long
        n = (x.size if ax is None else x.shape[ax]) * r
        shape = (n,) if ax is None else x.shape[:ax] + (n,) + x.shape[ax + 1 :]
        check_size(shape, x._dtype.np.itemsize, "repeat: the result shape")
    if ax is None:
        return _wrap(np.repeat(x._np.reshape(-1), r))
    return _wrap(np.repeat(x._np, r, axis=ax))


def roll(
    x: Array, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None
) -> Array:
    """Shift elements cyclically along axes (of the flattened array when axis is None)."""
    x = _check_array(x, func="roll")
    if axis is None:
        try:
            shift = as_int(shift, "shift", "roll")
        except TypeError:
            raise TypeError(
                f"roll: shift must be an int when axis is None, got {type(shift).__name__}"
            ) from None
        n = x.size
        return _wrap(np.roll(x._np, shift % n if n else 0))
    axes = normalize_axes(axis, x.ndim, func="roll")
    if isinstance(shift, tuple):
        if not isinstance(axis, tuple) or len(shift) != len(axes):
            raise ValueError(f"roll: shift {shift} and axis {axis} must have the same length")
        shifts = as_ints(shift, "shift", "roll")
    else:
        shifts = (as_int(shift, "shift", "roll"),) * len(axes)
    # Reduced modulo each extent (the same rotation): NumPy would overflow a C long on a
    # huge shift.
    shifts = tuple(k % x.shape[a] if x.shape[a] else 0 for k, a in zip(shifts, axes, strict=True))
    return _wrap(np.roll(x._np, shifts, axis=axes))


def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """Repeat the whole array `repetitions[i]` times along each axis i."""
    x = _check_array(x, func="tile")
    reps = as_ints(repetitions, "repetitions", "tile", low=0)
    # the result's shape, checked before NumPy converts the repetitions to C longs
    lead = len(reps) - x.ndim
    full = (1,) * -lead + reps if lead < 0 else reps
    base = (1,) * max(lead, 0) + x.shape
    check_size(
        tuple(n * r for n, r in zip(base, full, strict=True)),
        x._dtype.np.itemsize,
        "tile: the result shape",
    )
    out = np.tile(x._np, reps)
    if np.may_share_memory(out, x._np):
        out = out.copy()  # np.tile returns its input for all-ones repetitions
    return _wrap(out)


# `reshape(x, shape)` (copy None or False) that has a view runs in C (csrc/arraytype/reshape.c),
# as do flip and permute_dims with plain arguments (csrc/arraytype/indexing.c); every other
# call takes the function above, its fallback. (Type checkers call the NativeFunction with the
# function's signature: _arraytype.pyi.)
reshape = NativeFunction(reshape, "reshape")
flip = NativeFunction(flip, "flip")
permute_dims = NativeFunction(permute_dims, "permute_dims")

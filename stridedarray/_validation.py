"""Shared argument checks: axes, shapes. One place so every function words errors alike."""

from __future__ import annotations

import operator
from collections.abc import Sequence

__all__ = ["AxisError", "normalize_axis", "normalize_axes", "normalize_shape", "c_strides",
           "check_size", "MAX_BYTES"]

# The largest array, in bytes: NumPy's limit (its sizes are signed 64-bit), which every Array
# meets because it has a zero-copy NumPy view; the C core's offsets are int64 too.
MAX_BYTES = 2**63 - 1


class AxisError(ValueError, IndexError):
    """An axis argument outside [-ndim, ndim). Both a ValueError and an IndexError, as NumPy's."""


def normalize_axis(axis: int, ndim: int, name: str = "axis") -> int:
    """Map an axis in [-ndim, ndim) to [0, ndim); AxisError names the axis and the rank."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(axis).__name__}") from None
    if not -ndim <= a < ndim:
        raise AxisError(f"{name} {a} is out of bounds for an array of rank {ndim}")
    return a + ndim if a < 0 else a


def normalize_axes(axes: int | Sequence[int], ndim: int, name: str = "axis") -> tuple[int, ...]:
    """Normalize an int or a sequence of ints to a tuple of distinct axes in [0, ndim)."""
    if not isinstance(axes, Sequence):
        return (normalize_axis(axes, ndim, name),)
    out = tuple(normalize_axis(a, ndim, name) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{name} contains repeated axes: {tuple(axes)}")
    return out


def normalize_shape(shape: int | Sequence[int], name: str = "shape") -> tuple[int, ...]:
    """A shape as a tuple of non-negative Python ints."""
    if type(shape) is tuple and len(shape) <= 64:  # the common case: checked in one pass
        for s in shape:
            if type(s) is not int or s < 0:
                break
        else:
            return shape
    elif type(shape) is int and shape >= 0:
        return (shape,)
    if not isinstance(shape, Sequence):
        shape = (shape,)
    try:
        out = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"{name} must be an int or a sequence of ints, got {shape!r}") from None
    if any(s < 0 for s in out):
        raise ValueError(f"{name} must not contain negative extents, got {out}")
    if len(out) > 64:
        raise ValueError(f"{name} has {len(out)} entries; arrays have at most 64 dimensions")
    return out


def check_size(shape: tuple[int, ...], itemsize: int, name: str = "shape") -> None:
    """ValueError when a shape cannot describe any array: the product of its non-zero extents
    times the item size does not fit a signed 64-bit integer (NumPy's rule, zero-size too).

    A ValueError, not a MemoryError: no machine could hold it, so the argument is at fault;
    sizes that fit but cannot be allocated here still raise NumPy's MemoryError."""
    n = itemsize
    for s in shape:
        if s:
            n *= s
    if n > MAX_BYTES:
        raise ValueError(f"{name} {tuple(shape)} is too large: its non-zero extents times the "
                         f"item size ({itemsize} bytes) make {n} bytes, more than an array can "
                         "address (2**63 - 1 bytes)")


def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major (C order) element strides for a shape."""
    strides = [0] * len(shape)
    step = 1
    for k in range(len(shape) - 1, -1, -1):
        strides[k] = step
        step *= max(shape[k], 1)
    return tuple(strides)

"""Shared argument checks: axes, shapes. One place so every function words errors alike."""

from __future__ import annotations

import operator
from collections.abc import Sequence

__all__ = ["AxisError", "normalize_axis", "normalize_axes", "normalize_shape", "c_strides"]


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
    if isinstance(axes, Sequence):
        out = tuple(normalize_axis(a, ndim, name) for a in axes)
    else:
        out = (normalize_axis(axes, ndim, name),)
    if len(set(out)) != len(out):
        raise ValueError(f"{name} contains repeated axes: {tuple(axes)}")
    return out


def normalize_shape(shape: int | Sequence[int], name: str = "shape") -> tuple[int, ...]:
    """A shape as a tuple of non-negative Python ints."""
    if not isinstance(shape, Sequence):
        shape = (shape,)
    try:
        out = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"{name} must be an int or a sequence of ints, got {shape!r}") from None
    if any(s < 0 for s in out):
        raise ValueError(f"{name} must not contain negative extents, got {out}")
    return out


def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major (C order) element strides for a shape."""
    strides = [0] * len(shape)
    step = 1
    for k in range(len(shape) - 1, -1, -1):
        strides[k] = step
        step *= max(shape[k], 1)
    return tuple(strides)

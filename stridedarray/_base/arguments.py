"""Shared argument checks: integers, axes, shapes. One place so every function words errors alike.

Every integer argument of the namespace (axis, offset, k, n, num, shape extents, repetitions,
shifts, ...) enters through `as_int`: `operator.index` semantics (Python ints, NumPy integer
scalars and 0-d integer arrays are accepted), bool refused (the standard says int; a bool where an
int is meant is a bug, and NumPy's own bool scalars have no `__index__`), and the message names
the function and the argument.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "AxisError",
    "as_bool",
    "as_int",
    "as_ints",
    "normalize_axis",
    "normalize_axes",
    "normalize_shape",
    "not_array",
    "convert_hint",
]


def _where(func: str) -> str:
    return f"{func}: " if func else ""


def _shown(value: Any) -> str:
    """A short description of a rejected value: its type and (a prefix of) its repr."""
    r = repr(value)
    if len(r) > 40:
        r = r[:37] + "..."
    return f"{type(value).__name__} {r}"


def convert_hint(name: str) -> str:
    """How to make an Array of the argument `name` ("x2", "add: x2" or "searchsorted(x2)")."""
    arg = re.split(r"[:(]", name)[-1].strip(" )") or "..."
    return f"convert it with stridedarray.asarray({arg})"


def not_array(value: Any, name: str = "x", func: str = "") -> TypeError:
    """The TypeError for an argument that must be a stridedarray.Array and is not: names the
    function, the argument and what it got, and says how to convert it (every function and
    operator words this alike)."""
    got = type(value).__name__
    return TypeError(
        f"{_where(func)}{name} must be a stridedarray.Array, got {got}; {convert_hint(name)}"
    )


def as_int(
    value: Any, name: str, func: str = "", low: int | None = None, high: int | None = None
) -> int:
    """`value` as a Python int by `operator.index`, bool refused, optionally in [low, high].

    TypeError for a non-integer, ValueError outside the bounds; both name `func` and `name`."""
    if value.__class__ is int:  # the common case first: an exact int needs no conversion
        v = value
    else:
        if isinstance(value, bool):
            raise TypeError(f"{_where(func)}{name} must be an integer, not a bool (got {value!r})")
        try:
            v = operator.index(value)
        except TypeError:
            raise TypeError(
                f"{_where(func)}{name} must be an integer, got {_shown(value)}"
            ) from None
    if low is not None and v < low:
        raise ValueError(f"{_where(func)}{name} must be >= {low}, got {v}")
    if high is not None and v > high:
        raise ValueError(f"{_where(func)}{name} must be <= {high}, got {v}")
    return v


def as_bool(value: Any, name: str, func: str = "", none: bool = False) -> Any:
    """A boolean argument (keepdims, stable, endpoint, copy, ...) as a Python bool, or None
    where `none` allows it. Python's and NumPy's bools only: NumPy would take any object's
    truth value, so `copy="no"` or `keepdims="False"` would silently mean True.

    TypeError naming `func`, `name` and what it accepts otherwise."""
    if value.__class__ is bool:
        return value
    if value is None and none:
        return None
    if isinstance(value, np.bool_):
        return bool(value)
    accepted = "True, False or None" if none else "True or False"
    raise TypeError(f"{_where(func)}{name} must be {accepted}, got {_shown(value)}")


def as_ints(values: Any, name: str, func: str = "", low: int | None = None) -> tuple[int, ...]:
    """A sequence of integers (each through `as_int`, bounded below by `low`) as a tuple.

    An int alone is NOT accepted here (callers that allow one wrap it first)."""
    if values.__class__ is not tuple:  # a tuple (the common case) needs none of these
        if isinstance(values, memoryview) and values.ndim != 1:
            # iterating a multi-dimensional memoryview raises NotImplementedError
            raise TypeError(
                f"{_where(func)}{name} must be a sequence of integers, got a "
                f"{values.ndim}-d memoryview"
            )
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise TypeError(
                f"{_where(func)}{name} must be a sequence of integers, got {_shown(values)}"
            )
    out = []
    for i, v in enumerate(values):
        if v.__class__ is int and (low is None or v >= low):
            out.append(v)
        else:  # the item's name is only spelled out when it is needed
            out.append(as_int(v, f"{name}[{i}]", func, low))
    return tuple(out)


class AxisError(ValueError, IndexError):
    """An axis argument outside [-ndim, ndim). Both a ValueError and an IndexError, as NumPy's."""


def normalize_axis(axis: int, ndim: int, name: str = "axis", func: str = "") -> int:
    """Map an axis in [-ndim, ndim) to [0, ndim); AxisError names the axis and the rank."""
    a = as_int(axis, name, func)
    if not -ndim <= a < ndim:
        raise AxisError(f"{_where(func)}{name} {a} is out of bounds for an array of rank {ndim}")
    return a + ndim if a < 0 else a


def normalize_axes(
    axes: int | Sequence[int], ndim: int, name: str = "axis", func: str = ""
) -> tuple[int, ...]:
    """Normalize an int or a sequence of ints to a tuple of distinct axes in [0, ndim)."""
    if not isinstance(axes, Sequence):  # one axis: nothing can repeat
        return (normalize_axis(axes, ndim, name, func),)
    seq = axes if axes.__class__ is tuple else as_ints(axes, name, func)  # memoryviews too
    normalized = []
    for i, a in enumerate(seq):
        if a.__class__ is int and -ndim <= a < ndim:  # the common case, inline
            normalized.append(a + ndim if a < 0 else a)
        else:
            normalized.append(normalize_axis(as_int(a, f"{name}[{i}]", func), ndim, name, func))
    out = tuple(normalized)
    if len(set(out)) != len(out):
        raise ValueError(f"{_where(func)}{name} contains repeated axes: {tuple(axes)}")
    return out


def normalize_shape(
    shape: int | Sequence[int], name: str = "shape", func: str = ""
) -> tuple[int, ...]:
    """A shape (an int or a sequence of ints) as a tuple of non-negative Python ints."""
    if type(shape) is tuple and len(shape) <= 64:  # the common case: checked in one pass
        for s in shape:
            if type(s) is not int or s < 0:
                break
        else:
            return shape
    elif type(shape) is int and shape >= 0:
        return (shape,)
    if isinstance(shape, Sequence):  # memoryviews included
        out = as_ints(shape, name, func)
    else:
        try:
            out = (as_int(shape, name, func),)
        except TypeError:
            raise TypeError(
                f"{_where(func)}{name} must be an int or a sequence of ints, got {_shown(shape)}"
            ) from None
    if any(s < 0 for s in out):
        raise ValueError(f"{_where(func)}{name} must not contain negative extents, got {out}")
    if len(out) > 64:
        raise ValueError(
            f"{_where(func)}{name} has {len(out)} entries; arrays have at most 64 dimensions"
        )
    return out

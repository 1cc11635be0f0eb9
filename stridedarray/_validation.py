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

from ._operator_table import SYMBOL

__all__ = [
    "AxisError",
    "as_bool",
    "as_int",
    "as_ints",
    "normalize_axis",
    "normalize_axes",
    "normalize_shape",
    "c_strides",
    "check_size",
    "MAX_BYTES",
    "not_array",
    "convert_hint",
    "foreign_operand",
]

# The largest array, in bytes: NumPy's limit (its sizes are signed 64-bit), which every Array
# meets because it has a zero-copy NumPy view; the C core's offsets are int64 too.
MAX_BYTES = 2**63 - 1


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


_EQUALITY = {"equal": "__eq__", "not_equal": "__ne__"}


def foreign_operand(func: str, array: Any, other: Any, reflected: bool) -> Any:
    """What an operator of `array` does with an `other` that is neither an Array nor a Python
    scalar (the operands the standard gives operators; NumPy's arrays and scalars arrive here
    too and are NumPy's to compute, through its operators and `__array_ufunc__`).

    A list or tuple is a TypeError saying how to convert it, for every operator alike (NumPy
    would convert it; the standard and this library's functions do not). Any other object
    gets NotImplemented, so Python asks it for the reflected operation, except for == and !=:
    there Python's last resort is identity, a silent `False`/`True` where an element-wise
    result was meant, so the reflected method is called here and, if it declines too, the
    answer is the same TypeError."""
    sequence = isinstance(other, (list, tuple))
    if not sequence:
        dunder = _EQUALITY.get(func)
        if dunder is None:
            return NotImplemented
        r = getattr(type(other), dunder)(other, array)
        if r is not NotImplemented:
            return r
    sym = SYMBOL.get(func, func)
    expr = f"other {sym} x" if reflected else f"x {sym} other"
    hint = f"; {convert_hint('other')}" if sequence else " (arrays compare element-wise)"
    raise TypeError(
        f"{expr}: other must be a stridedarray.Array or a Python bool, int, float or "
        f"complex, got {type(other).__name__}{hint}"
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
        raise ValueError(
            f"{name} {tuple(shape)} is too large: its non-zero extents times the "
            f"item size ({itemsize} bytes) make {n} bytes, more than an array can "
            "address (2**63 - 1 bytes)"
        )


def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major (C order) element strides for a shape."""
    strides = [0] * len(shape)
    step = 1
    for k in range(len(shape) - 1, -1, -1):
        strides[k] = step
        step *= max(shape[k], 1)
    return tuple(strides)

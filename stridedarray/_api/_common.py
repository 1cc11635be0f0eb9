"""The one conversion of an operand pair on the Python path: what the binary element-wise
functions and their operators (`_elementwise`), `where`, `isin` and `searchsorted` compute on.

The C operators and NativeUfuncs decide the common pairs themselves (csrc/arraytype/operators.c,
`operand()`: two arrays of one dtype, an array and a Python scalar its dtype takes) and hand
every other pair here, so this is the rule for all of them:

- an Array gives its zero-copy NumPy view;
- a Python bool, int, float or complex beside an array takes the dtype the 2024.12 rules give
  it (`_dtypes.scalar_dtype`: the array's where the standard says so, a Python int checked to
  fit it; else the default dtype of the scalar's kind);
- a NumPy scalar or 0-d ndarray beside an array is a 0-d array of its own dtype (NumPy's rule:
  its scalars are typed, not weak as Python's are; `_dtypes.numpy_value`);
- two arrays promote by the standard's table (`_dtypes.promote`);
- anything else is a TypeError naming the function and the argument.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._base import dtypes as _dtypes
from .._base.arguments import convert_hint, normalize_axes
from .._base.construct import ArrayBase, array_argument, numpy_operand
from .._base.dtypes import DType, numpy_value, promote, scalar_dtype, scalar_np, scalar_operand

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["Names", "function_names", "call_names", "operands", "numpy_operand"]

_PY_SCALARS = frozenset({builtins.bool, int, float, complex})  # exact types: the fast paths


class Names(NamedTuple):
    """How a caller's errors name its two operands (made once per function, not per call)."""

    func: str  # "add": "add: at least one of x1, x2 must be a stridedarray.Array, ..."
    scalar1: str  # x1 when it is exactly a Python bool, int, float or complex beside an
    scalar2: str  # Array (the fast path)
    other1: str  # x1 when it is anything else (a subclass of those, a wrong type)
    other2: str


def function_names(func: str) -> Names:
    """The element-wise functions' and operators' words: an exact Python scalar is named by
    its argument alone (`x2: Python int 1000 is out of range for int8 ...`, as docs/dtypes.md
    shows for `i8 + 1000`), any other value with the function too (`add: x2 must be an
    Array, ...`)."""
    return Names(func, "x1", "x2", f"{func}: x1", f"{func}: x2")


def call_names(func: str) -> Names:
    """The other functions' words: `where(x2): Python int 300 is out of range ...`."""
    return Names(func, f"{func}(x1)", f"{func}(x2)", f"{func}(x1)", f"{func}(x2)")


def operands(x1: Any, x2: Any, names: Names) -> tuple[Any, Any, DType]:
    """The NumPy operands of (x1, x2) and the dtype the standard gives the pair.

    A Python scalar's operand is the scalar itself where NumPy's weak-scalar conversion gives
    exactly that dtype's value, else a 0-d ndarray of the pair's dtype
    (`_dtypes.scalar_operand`): callers that need arrays convert with `np.asarray(op, dt.np)`."""
    a1, a2 = isinstance(x1, ArrayBase), isinstance(x2, ArrayBase)
    # Arrays and exact Python scalars first, in the fewest steps: the pairs that reach here
    # most (mixed dtypes, fix-ups, scalars the C path declines).
    if a1:
        n1 = x1._npv
        if n1 is None:
            n1 = x1._np
        if a2:
            dt = x1._dtype
            if dt is not x2._dtype:
                dt = promote(dt, x2._dtype)
            n2 = x2._npv
            if n2 is None:
                n2 = x2._np
            return n1, n2, dt
        if type(x2) in _PY_SCALARS:
            a = x1._dtype
            dt = scalar_dtype(a, x2, names.scalar2)
            return n1, (scalar_operand(x2, dt) if dt is a else scalar_np(x2, dt)), dt
    elif a2 and type(x1) in _PY_SCALARS:
        a = x2._dtype
        dt = scalar_dtype(a, x1, names.scalar1)
        n2 = x2._npv
        if n2 is None:
            n2 = x2._np
        return (scalar_operand(x1, dt) if dt is a else scalar_np(x1, dt)), n2, dt
    # Everything else: NumPy values, subclasses of Python's scalars, wrong types.
    if a1 and not a2 and numpy_value(x2):
        x2, a2 = numpy_operand(x2), True
    elif a2 and not a1 and numpy_value(x1):
        x1, a1 = numpy_operand(x1), True
    # NumPy ndarrays of any shape, as Arrays over their memory (array_argument), as JAX's
    # functions take them. The operators never hand one here: they leave it to NumPy.
    if not a1 and isinstance(x1, np.ndarray):
        x1, a1 = array_argument(x1, names.other1), True
    if not a2 and isinstance(x2, np.ndarray):
        x2, a2 = array_argument(x2, names.other2), True
    if a1 and a2:
        return x1._np, x2._np, promote(x1.dtype, x2.dtype)
    if a1:
        dt = scalar_dtype(x1.dtype, x2, names.other2)
        return x1._np, (scalar_operand(x2, dt) if dt is x1._dtype else scalar_np(x2, dt)), dt
    if a2:
        dt = scalar_dtype(x2.dtype, x1, names.other1)
        return (scalar_operand(x1, dt) if dt is x2._dtype else scalar_np(x1, dt)), x2._np, dt
    raise TypeError(
        f"{names.func}: at least one of x1, x2 must be a stridedarray.Array, got "
        f"{type(x1).__name__} and {type(x2).__name__}; {convert_hint('x1')}"
    )


def check_array(x: object, name: str = "x", func: str = "") -> Array:
    """`x` itself if it is an Array; a NumPy ndarray as an Array over its memory
    (`array_argument`); else a TypeError naming the function and the argument. Callers rebind
    the argument to what this returns."""
    if isinstance(x, ArrayBase):
        return x
    return array_argument(x, name, func)


def check_kind(x: Array, kinds: str, func: str, what: str, name: str = "x") -> None:
    """TypeError unless x's dtype kind is one of `kinds` (b, i, u, f, c)."""
    if x.dtype.kind not in kinds:
        raise TypeError(f"{func}: {name} must have a {what} data type, got {x.dtype.name}")


def reduce_axes(
    axis: int | Sequence[int] | None, ndim: int, func: str = ""
) -> tuple[int, ...] | None:
    """Normalize a reduction's axis argument (None means all axes)."""
    if axis is None:
        return None
    if type(axis) is int and -ndim <= axis < ndim:  # the common case: one valid int axis
        return (axis + ndim if axis < 0 else axis,)
    return normalize_axes(axis, ndim, func=func)


def sum_dtype(x: Array, dtype: DType | None, func: str) -> DType:
    """Accumulator dtype of sum/prod/cumulative_*/trace: integers widen to 64 bits."""
    if dtype is not None:
        return _dtypes.as_dtype(dtype, f"{func}: dtype")
    k = x.dtype.kind
    if k == "i" or k == "b":
        return _dtypes.int64
    if k == "u":
        return _dtypes.uint64
    return x.dtype

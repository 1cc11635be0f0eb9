"""Array's operators, one named assignment each: what `Array.__add__` and the others are.

`Array`'s class body (`_array.py`) names these for type checkers and editors, so "go to
definition" on `x.__add__` (or on `x + y`) lands here, on the object Python calls, with its
signature (the annotation). At run time `_bind` sets each of them on the class under the same
name. Their docstrings are written once, from the operator table (`_operator_table.doc`), where
each object is made.

Each object is made by the chapter that defines the operation, not wrapped here: the arithmetic,
bitwise, comparison and unary operators by the element-wise table (`_elementwise.OPERATORS`;
most are C NativeUfuncs whose fallback is the Python operator, see `_native_ufuncs`), `@` by
`_matmul`. Naming them adds no call layer: `x + y` runs the NativeUfunc itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from . import _matmul
from ._elementwise import OPERATORS as _OPS

if TYPE_CHECKING:
    from ._array import Array, _Operand


# An operator's signature, as the standard's: `self` an Array, `other` an array or a Python
# scalar, the result an Array (Python's NotImplemented protocol aside). Written as the
# descriptor a function is, so that the class body's `from ._operators import __add__` makes
# `x.__add__` (and `x + y`) the bound method to type checkers too.
class _Binary(Protocol):
    def __call__(self, x: Array, other: _Operand, /) -> Array: ...
    def __get__(self, x: Array, owner: Any, /) -> Callable[[_Operand], Array]: ...


class _Unary(Protocol):
    def __call__(self, x: Array, /) -> Array: ...
    def __get__(self, x: Array, owner: Any, /) -> Callable[[], Array]: ...


__all__: list[str] = []

# -- arithmetic and bitwise: `x op y`, the reflected `y op x`, the in-place `x op= y` ----
__add__: _Binary = _OPS["__add__"]
__radd__: _Binary = _OPS["__radd__"]
__iadd__: _Binary = _OPS["__iadd__"]
__sub__: _Binary = _OPS["__sub__"]
__rsub__: _Binary = _OPS["__rsub__"]
__isub__: _Binary = _OPS["__isub__"]
__mul__: _Binary = _OPS["__mul__"]
__rmul__: _Binary = _OPS["__rmul__"]
__imul__: _Binary = _OPS["__imul__"]
__truediv__: _Binary = _OPS["__truediv__"]
__rtruediv__: _Binary = _OPS["__rtruediv__"]
__itruediv__: _Binary = _OPS["__itruediv__"]
__floordiv__: _Binary = _OPS["__floordiv__"]
__rfloordiv__: _Binary = _OPS["__rfloordiv__"]
__ifloordiv__: _Binary = _OPS["__ifloordiv__"]
__mod__: _Binary = _OPS["__mod__"]
__rmod__: _Binary = _OPS["__rmod__"]
__imod__: _Binary = _OPS["__imod__"]
__pow__: _Binary = _OPS["__pow__"]
__rpow__: _Binary = _OPS["__rpow__"]
__ipow__: _Binary = _OPS["__ipow__"]
__and__: _Binary = _OPS["__and__"]
__rand__: _Binary = _OPS["__rand__"]
__iand__: _Binary = _OPS["__iand__"]
__or__: _Binary = _OPS["__or__"]
__ror__: _Binary = _OPS["__ror__"]
__ior__: _Binary = _OPS["__ior__"]
__xor__: _Binary = _OPS["__xor__"]
__rxor__: _Binary = _OPS["__rxor__"]
__ixor__: _Binary = _OPS["__ixor__"]
__lshift__: _Binary = _OPS["__lshift__"]
__rlshift__: _Binary = _OPS["__rlshift__"]
__ilshift__: _Binary = _OPS["__ilshift__"]
__rshift__: _Binary = _OPS["__rshift__"]
__rrshift__: _Binary = _OPS["__rrshift__"]
__irshift__: _Binary = _OPS["__irshift__"]
# -- comparisons (element-wise: an Array of bool, not a bool) ------------------------
__lt__: _Binary = _OPS["__lt__"]
__le__: _Binary = _OPS["__le__"]
__gt__: _Binary = _OPS["__gt__"]
__ge__: _Binary = _OPS["__ge__"]
__eq__: _Binary = _OPS["__eq__"]
__ne__: _Binary = _OPS["__ne__"]
# -- unary: `-x`, `+x`, `abs(x)`, `~x` -----------------------------------------------
__neg__: _Unary = _OPS["__neg__"]
__pos__: _Unary = _OPS["__pos__"]
__abs__: _Unary = _OPS["__abs__"]
__invert__: _Unary = _OPS["__invert__"]
# -- the matrix product: `x @ y`, `y @ x`, `x @= y` ---------------------------------------------
__matmul__: _Binary = _matmul.matmul_operator
__rmatmul__: _Binary = _matmul.rmatmul_operator
__imatmul__: _Binary = _matmul.imatmul_operator

# The names above, in order: what `_bind` sets on Array (tests/test_operators_static.py checks
# that it is the standard's whole operator list, each assigned by name here).
NAMES: tuple[str, ...] = (*_OPS, "__matmul__", "__rmatmul__", "__imatmul__")

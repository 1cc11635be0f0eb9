"""Array's operators, one named assignment each: what `Array.__add__` and the others are.

`Array`'s class body (`_array.py`) names these for type checkers and editors, so "go to
definition" on `x.__add__` (or on `x + y`) lands here, on the object Python calls, with its
signature (the annotation) and its docstring. At run time `_bind` sets each of them on the class
under the same name.

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
"""``x + y`` for an array ``x``: the element-wise `add`."""
__radd__: _Binary = _OPS["__radd__"]
"""``y + x`` for an array ``x`` when ``y`` does not compute it: the element-wise `add`."""
__iadd__: _Binary = _OPS["__iadd__"]
"""``x += y``: the element-wise `add`, written into ``x``."""
__sub__: _Binary = _OPS["__sub__"]
"""``x - y`` for an array ``x``: the element-wise `subtract`."""
__rsub__: _Binary = _OPS["__rsub__"]
"""``y - x`` for an array ``x`` when ``y`` does not compute it: the element-wise `subtract`."""
__isub__: _Binary = _OPS["__isub__"]
"""``x -= y``: the element-wise `subtract`, written into ``x``."""
__mul__: _Binary = _OPS["__mul__"]
"""``x * y`` for an array ``x``: the element-wise `multiply`."""
__rmul__: _Binary = _OPS["__rmul__"]
"""``y * x`` for an array ``x`` when ``y`` does not compute it: the element-wise `multiply`."""
__imul__: _Binary = _OPS["__imul__"]
"""``x *= y``: the element-wise `multiply`, written into ``x``."""
__truediv__: _Binary = _OPS["__truediv__"]
"""``x / y`` for an array ``x``: the element-wise `divide`."""
__rtruediv__: _Binary = _OPS["__rtruediv__"]
"""``y / x`` for an array ``x`` when ``y`` does not compute it: the element-wise `divide`."""
__itruediv__: _Binary = _OPS["__itruediv__"]
"""``x /= y``: the element-wise `divide`, written into ``x``."""
__floordiv__: _Binary = _OPS["__floordiv__"]
"""``x // y`` for an array ``x``: the element-wise `floor_divide`."""
__rfloordiv__: _Binary = _OPS["__rfloordiv__"]
"""``y // x`` for an array ``x`` when ``y`` does not compute it: the element-wise `floor_divide`."""
__ifloordiv__: _Binary = _OPS["__ifloordiv__"]
"""``x //= y``: the element-wise `floor_divide`, written into ``x``."""
__mod__: _Binary = _OPS["__mod__"]
"""``x % y`` for an array ``x``: the element-wise `remainder`."""
__rmod__: _Binary = _OPS["__rmod__"]
"""``y % x`` for an array ``x`` when ``y`` does not compute it: the element-wise `remainder`."""
__imod__: _Binary = _OPS["__imod__"]
"""``x %= y``: the element-wise `remainder`, written into ``x``."""
__pow__: _Binary = _OPS["__pow__"]
"""``x ** y`` for an array ``x``: the element-wise `pow`."""
__rpow__: _Binary = _OPS["__rpow__"]
"""``y ** x`` for an array ``x`` when ``y`` does not compute it: the element-wise `pow`."""
__ipow__: _Binary = _OPS["__ipow__"]
"""``x **= y``: the element-wise `pow`, written into ``x``."""
__and__: _Binary = _OPS["__and__"]
"""``x & y`` for an array ``x``: the element-wise `bitwise_and`."""
__rand__: _Binary = _OPS["__rand__"]
"""``y & x`` for an array ``x`` when ``y`` does not compute it: the element-wise `bitwise_and`."""
__iand__: _Binary = _OPS["__iand__"]
"""``x &= y``: the element-wise `bitwise_and`, written into ``x``."""
__or__: _Binary = _OPS["__or__"]
"""``x | y`` for an array ``x``: the element-wise `bitwise_or`."""
__ror__: _Binary = _OPS["__ror__"]
"""``y | x`` for an array ``x`` when ``y`` does not compute it: the element-wise `bitwise_or`."""
__ior__: _Binary = _OPS["__ior__"]
"""``x |= y``: the element-wise `bitwise_or`, written into ``x``."""
__xor__: _Binary = _OPS["__xor__"]
"""``x ^ y`` for an array ``x``: the element-wise `bitwise_xor`."""
__rxor__: _Binary = _OPS["__rxor__"]
"""``y ^ x`` for an array ``x`` when ``y`` does not compute it: the element-wise `bitwise_xor`."""
__ixor__: _Binary = _OPS["__ixor__"]
"""``x ^= y``: the element-wise `bitwise_xor`, written into ``x``."""
__lshift__: _Binary = _OPS["__lshift__"]
"""``x << y`` for an array ``x``: the element-wise `bitwise_left_shift`."""
__rlshift__: _Binary = _OPS["__rlshift__"]
"""``y << x`` for an array ``x`` when ``y`` does not compute it: the element-wise
`bitwise_left_shift`."""
__ilshift__: _Binary = _OPS["__ilshift__"]
"""``x <<= y``: the element-wise `bitwise_left_shift`, written into ``x``."""
__rshift__: _Binary = _OPS["__rshift__"]
"""``x >> y`` for an array ``x``: the element-wise `bitwise_right_shift`."""
__rrshift__: _Binary = _OPS["__rrshift__"]
"""``y >> x`` for an array ``x`` when ``y`` does not compute it: the element-wise
`bitwise_right_shift`."""
__irshift__: _Binary = _OPS["__irshift__"]
"""``x >>= y``: the element-wise `bitwise_right_shift`, written into ``x``."""
# -- comparisons (element-wise: an Array of bool, not a bool) ------------------------
__lt__: _Binary = _OPS["__lt__"]
"""``x < y`` for an array ``x``: the element-wise `less`."""
__le__: _Binary = _OPS["__le__"]
"""``x <= y`` for an array ``x``: the element-wise `less_equal`."""
__gt__: _Binary = _OPS["__gt__"]
"""``x > y`` for an array ``x``: the element-wise `greater`."""
__ge__: _Binary = _OPS["__ge__"]
"""``x >= y`` for an array ``x``: the element-wise `greater_equal`."""
__eq__: _Binary = _OPS["__eq__"]
"""``x == y`` for an array ``x``: the element-wise `equal`."""
__ne__: _Binary = _OPS["__ne__"]
"""``x != y`` for an array ``x``: the element-wise `not_equal`."""
# -- unary: `-x`, `+x`, `abs(x)`, `~x` -----------------------------------------------
__neg__: _Unary = _OPS["__neg__"]
"""``-x`` for an array ``x``: the element-wise `negative`."""
__pos__: _Unary = _OPS["__pos__"]
"""``+x`` for an array ``x``: the element-wise `positive`."""
__abs__: _Unary = _OPS["__abs__"]
"""``abs(x)`` for an array ``x``: the element-wise `abs`."""
__invert__: _Unary = _OPS["__invert__"]
"""``~x`` for an array ``x``: the element-wise `bitwise_invert`."""
# -- the matrix product: `x @ y`, `y @ x`, `x @= y` ---------------------------------------------
__matmul__: _Binary = _matmul.matmul_operator
"""``x @ y`` for an array ``x``: the planned matrix product, `matmul`."""
__rmatmul__: _Binary = _matmul.rmatmul_operator
"""``y @ x`` for an array ``x`` when ``y`` does not compute it: the matrix product."""
__imatmul__: _Binary = _matmul.imatmul_operator
"""``x @= y``: the matrix product written into ``x``."""

# The names above, in order: what `_bind` sets on Array (tests/test_operators_static.py checks
# that it is the standard's whole operator list, each assigned by name here).
NAMES: tuple[str, ...] = (*_OPS, "__matmul__", "__rmatmul__", "__imatmul__")

"""The names the Array API standard 2025.12 puts in the namespace, written out by hand from
the standard's pages (https://data-apis.org/array-api/2025.12/API_specification/), so that
tests of the namespace do not take them from the code under test."""

from __future__ import annotations

import operator

# Each element-wise function and the dtype category its page asks for (the arguments' for
# binary functions).
UNARY_CATEGORY: dict[str, str] = {
    "abs": "numeric",
    "acos": "floating-point",
    "acosh": "floating-point",
    "asin": "floating-point",
    "asinh": "floating-point",
    "atan": "floating-point",
    "atanh": "floating-point",
    "bitwise_invert": "integer or boolean",
    "ceil": "real numeric",
    "conj": "numeric",
    "cos": "floating-point",
    "cosh": "floating-point",
    "exp": "floating-point",
    "expm1": "floating-point",
    "floor": "real numeric",
    "imag": "complex floating",
    "isfinite": "numeric",
    "isinf": "numeric",
    "isnan": "numeric",
    "log": "floating-point",
    "log1p": "floating-point",
    "log2": "floating-point",
    "log10": "floating-point",
    "logical_not": "boolean",
    "negative": "numeric",
    "positive": "numeric",
    "real": "numeric",
    "reciprocal": "floating-point",
    "round": "numeric",
    "sign": "numeric",
    "signbit": "real floating",
    "sin": "floating-point",
    "sinh": "floating-point",
    "square": "numeric",
    "sqrt": "floating-point",
    "tan": "floating-point",
    "tanh": "floating-point",
    "trunc": "real numeric",
}
BINARY_CATEGORY: dict[str, str] = {
    "add": "numeric",
    "atan2": "real floating",
    "bitwise_and": "integer or boolean",
    "bitwise_left_shift": "integer",
    "bitwise_or": "integer or boolean",
    "bitwise_right_shift": "integer",
    "bitwise_xor": "integer or boolean",
    "copysign": "real floating",
    "divide": "numeric",
    "equal": "all",
    "floor_divide": "real numeric",
    "greater": "real numeric",
    "greater_equal": "real numeric",
    "hypot": "real floating",
    "less": "real numeric",
    "less_equal": "real numeric",
    "logaddexp": "real floating",
    "logical_and": "boolean",
    "logical_or": "boolean",
    "logical_xor": "boolean",
    "maximum": "real numeric",
    "minimum": "real numeric",
    "multiply": "numeric",
    "nextafter": "real floating",
    "not_equal": "all",
    "pow": "numeric",
    "remainder": "real numeric",
    "subtract": "numeric",
}
ELEMENTWISE = frozenset(UNARY_CATEGORY) | frozenset(BINARY_CATEGORY) | {"clip"}

STANDARD = ELEMENTWISE | frozenset(
    """
e inf nan newaxis pi
arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones ones_like
tril triu zeros zeros_like
astype can_cast finfo iinfo isdtype result_type
bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128
take take_along_axis
__array_namespace_info__ __array_api_version__
matmul matrix_transpose tensordot vecdot
broadcast_arrays broadcast_shapes broadcast_to concat expand_dims flip moveaxis permute_dims
repeat reshape roll squeeze stack tile unstack
argmax argmin count_nonzero nonzero searchsorted where
isin unique_all unique_counts unique_inverse unique_values
argsort sort
cumulative_prod cumulative_sum max mean min prod std sum var
all any diff
fft linalg
""".split()
)

# The 13 data types, in the standard's order, and its dtype categories by name: the kinds of
# `isdtype` and the categories the function pages ask for.
DTYPE_NAMES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
_SIGNED = frozenset({"int8", "int16", "int32", "int64"})
_UNSIGNED = frozenset({"uint8", "uint16", "uint32", "uint64"})
_REAL_FLOATING = frozenset({"float32", "float64"})
_COMPLEX = frozenset({"complex64", "complex128"})
CATEGORIES: dict[str, frozenset[str]] = {
    "bool": frozenset({"bool"}),
    "boolean": frozenset({"bool"}),
    "signed integer": _SIGNED,
    "unsigned integer": _UNSIGNED,
    "integral": _SIGNED | _UNSIGNED,
    "integer": _SIGNED | _UNSIGNED,
    "integer or boolean": _SIGNED | _UNSIGNED | {"bool"},
    "real floating": _REAL_FLOATING,
    "complex floating": _COMPLEX,
    "floating-point": _REAL_FLOATING | _COMPLEX,
    "real numeric": _SIGNED | _UNSIGNED | _REAL_FLOATING,
    "numeric": _SIGNED | _UNSIGNED | _REAL_FLOATING | _COMPLEX,
    "all": frozenset(DTYPE_NAMES),
}


# The standard's arithmetic operators and comparisons, by symbol, as Python's operator module
# spells them.
ARITHMETIC_OPERATORS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
}
COMPARISON_OPERATORS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}

"""Element-wise functions (Array API chapter "Element-wise Functions") and the operators.

Every function is generated from one table row: name -> accepted dtype category -> NumPy
ufunc (plus, where NumPy's special cases differ from the standard's, a fix-up from
`_special_cases`). Computation runs on the zero-copy NumPy views `x._np` of our descriptors,
so no input is copied to compute; results are wrapped without a copy.

Dtype rules are checked here, before NumPy sees anything: a dtype outside the function's
category raises TypeError, and an operand pair takes the dtype `_common.operands` gives it
(the standard's promotion table, and the 2024.12 rules for Python scalars).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._arraytype import _wrap
from .._base import dtypes as _dtypes
from .._base import fpe as _fpe
from .._base.arguments import not_array
from .._base.construct import ArrayBase, array_argument, numpy_operand
from .._base.dtypes import DTYPES, DType, scalar_dtype, scalar_np
from .._base.operator_table import OPERATORS as _OPERATOR_ROWS
from .._base.operator_table import doc as _operator_doc
from .._base.operator_table import foreign_operand
from . import special_cases as _sc
from ._common import function_names, operands

if TYPE_CHECKING:
    from .._array.array import Array


_K = {
    "all": "biufc",
    "numeric": "iufc",
    "real numeric": "iuf",
    "floating-point": "fc",
    "real floating": "f",
    "complex floating": "c",
    "integer": "iu",
    "integer or boolean": "biu",
    "boolean": "b",
}
_CATEGORY = {cat: frozenset(d for d in DTYPES if d.kind in kinds) for cat, kinds in _K.items()}

_Scalar = builtins.bool | int | float | complex


def _copy_of(a: np.ndarray) -> np.ndarray:
    return np.array(a, copy=True)


# name, accepted category, NumPy ufunc (or a callable on ndarrays), special-case fix-up
_UNARY: list[tuple[str, str, Callable, Callable | None]] = [
    ("abs", "numeric", np.absolute, None),
    ("acos", "floating-point", np.arccos, None),
    ("acosh", "floating-point", np.arccosh, None),
    ("asin", "floating-point", np.arcsin, None),
    ("asinh", "floating-point", np.arcsinh, None),
    ("atan", "floating-point", np.arctan, None),
    ("atanh", "floating-point", np.arctanh, None),
    ("bitwise_invert", "integer or boolean", np.invert, None),
    ("ceil", "real numeric", np.ceil, None),
    ("conj", "numeric", np.conjugate, None),
    ("cos", "floating-point", np.cos, None),
    ("cosh", "floating-point", np.cosh, None),
    ("exp", "floating-point", np.exp, None),
    ("expm1", "floating-point", np.expm1, _sc.expm1),
    ("floor", "real numeric", np.floor, None),
    ("imag", "complex floating", lambda a: _copy_of(np.imag(a)), None),
    ("isfinite", "numeric", np.isfinite, None),
    ("isinf", "numeric", np.isinf, None),
    ("isnan", "numeric", np.isnan, None),
    ("log", "floating-point", np.log, None),
    ("log1p", "floating-point", np.log1p, None),
    ("log2", "floating-point", np.log2, None),
    ("log10", "floating-point", np.log10, None),
    ("logical_not", "boolean", np.logical_not, None),
    ("negative", "numeric", np.negative, None),
    ("positive", "numeric", np.positive, None),
    ("real", "numeric", lambda a: _copy_of(np.real(a)), None),
    ("reciprocal", "floating-point", np.reciprocal, None),
    ("round", "numeric", np.round, None),
    ("sign", "numeric", np.sign, None),
    ("signbit", "real floating", np.signbit, None),
    ("sin", "floating-point", np.sin, None),
    ("sinh", "floating-point", np.sinh, None),
    ("square", "numeric", np.square, None),
    ("sqrt", "floating-point", np.sqrt, None),
    ("tan", "floating-point", np.tan, None),
    ("tanh", "floating-point", np.tanh, _sc.tanh),
    ("trunc", "real numeric", np.trunc, None),
]

_BINARY: list[tuple[str, str, Callable, Callable | None]] = [
    ("add", "numeric", np.add, None),
    ("atan2", "real floating", np.arctan2, None),
    ("bitwise_and", "integer or boolean", np.bitwise_and, None),
    ("bitwise_left_shift", "integer", np.left_shift, None),
    ("bitwise_or", "integer or boolean", np.bitwise_or, None),
    ("bitwise_right_shift", "integer", np.right_shift, None),
    ("bitwise_xor", "integer or boolean", np.bitwise_xor, None),
    ("copysign", "real floating", np.copysign, None),
    ("divide", "numeric", np.true_divide, None),
    ("equal", "all", np.equal, None),
    ("floor_divide", "real numeric", np.floor_divide, _sc.floor_divide),
    ("greater", "real numeric", np.greater, None),
    ("greater_equal", "real numeric", np.greater_equal, None),
    ("hypot", "real floating", np.hypot, None),
    ("less", "real numeric", np.less, None),
    ("less_equal", "real numeric", np.less_equal, None),
    ("logaddexp", "real floating", np.logaddexp, None),
    ("logical_and", "boolean", np.logical_and, None),
    ("logical_or", "boolean", np.logical_or, None),
    ("logical_xor", "boolean", np.logical_xor, None),
    ("maximum", "real numeric", np.maximum, None),
    ("minimum", "real numeric", np.minimum, None),
    ("multiply", "numeric", np.multiply, None),
    ("nextafter", "real floating", np.nextafter, None),
    ("not_equal", "all", np.not_equal, None),
    ("pow", "numeric", np.power, None),
    ("remainder", "real numeric", np.remainder, None),
    ("subtract", "numeric", np.subtract, None),
]

# Operator dunder stem -> the function it calls (forward, reflected "r" and in-place "i" forms),
# from the one operator table (`@` is _matmul's); the function's category check on the operands'
# dtype covers Python scalar operands too.
_OPERATORS = {
    op.stem: op.function for op in _OPERATOR_ROWS if op.form == "binary" and op.function != "matmul"
}
_COMPARISONS = {op.stem: op.function for op in _OPERATOR_ROWS if op.form == "comparison"}
_UNARY_OPERATORS = {op.stem: op.function for op in _OPERATOR_ROWS if op.form == "unary"}


# Arithmetic of bool operands: the standard asks for numeric dtypes and is silent on bool;
# NumPy computes these (add and multiply as logical or and and, with bool results; divide in
# float64; floor_divide, remainder and pow in int8; abs a bool copy), PyTorch agrees on + and
# *, and code written for NumPy (SciPy's) relies on it: we give NumPy's answer. subtract,
# negative and positive of bools stay TypeErrors, as in NumPy.
_BOOLS_AS_NUMPY = frozenset(
    {"add", "multiply", "divide", "floor_divide", "remainder", "pow", "abs"}
)


def _kinds(name: str, cat: str) -> str:
    """The dtype kinds `name` computes on directly: its category's, and bool where above."""
    return _K[cat] + "b" if name in _BOOLS_AS_NUMPY else _K[cat]


def _check_unary(name: str, cat: str, x: Any) -> None:
    if not isinstance(x, ArrayBase):
        raise not_array(x, "x", name)
    if x.dtype not in _CATEGORY[cat]:
        raise TypeError(f"{name}: x must have a {cat} dtype, got {x.dtype.name}")


def _category_error(name: str, cat: str, x1: Any, x2: Any) -> TypeError:
    return TypeError(
        f"{name}: x1 and x2 must have {cat} dtypes, got {_describe(x1)} and {_describe(x2)}"
    )


def _check_broadcast(name: str, s1: tuple, s2: tuple) -> None:
    """ValueError naming x1 and x2 when their shapes do not broadcast."""
    try:
        np.broadcast_shapes(s1, s2)
    except ValueError:
        raise ValueError(
            f"{name}: x1 of shape {s1} and x2 of shape {s2} do not broadcast "
            "(extents must be equal or 1, aligned from the right)"
        ) from None


def _describe(x: Any) -> str:
    return x.dtype.name if isinstance(x, ArrayBase) else f"Python {type(x).__name__}"


# NumPy's floating-point warnings are not errors in the standard (inf and nan are the
# answers): `_fpe.can_warn` says for which operand kinds a function needs them silenced, and
# only those calls enter the quiet state: a lone ufunc call through `_fpe.call` (in C), a
# ufunc and its fix-up between `_fpe.enter()` and `_fpe.leave(token)`.
_enter = _fpe.enter
_leave = _fpe.leave
_quiet_call = _fpe.call


def _make_unary(name: str, cat: str, uf: Callable, fix: Callable | None) -> Callable:
    kinds = _kinds(name, cat)
    loud = _fpe.can_warn(name)
    via_float64 = cat in _dtypes.INTEGERS_AS_FLOAT64  # the one rule, in _dtypes

    def f(x: Array, /) -> Array:
        # The common case costs one type test and one string test; anything else raises in
        # _check_unary with the specific message.
        if not isinstance(x, ArrayBase) or x._dtype.kind not in kinds:
            if via_float64 and isinstance(x, ArrayBase) and x._dtype.kind in "biu":
                return f(x._pack(_dtypes.float64))
            if isinstance(x, np.ndarray):  # as an Array over its memory (docs/interop.md)
                return f(array_argument(x, "x", name))
            _check_unary(name, cat, x)
        a = x._npv
        if a is None:
            a = x._np
        if x._dtype.kind in loud:
            if fix is None:
                return _wrap(_quiet_call(uf, a))
            tok = _enter()
            try:
                r = fix(a, uf(a))
            finally:
                _leave(tok)
        else:
            r = uf(a) if fix is None else fix(a, uf(a))
        return _wrap(r)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Element-wise {name} of x (dtype category: {cat})."
    return f


# With an ndarray or NumPy scalar operand, the operators return NotImplemented and Python
# hands the operation to NumPy's operator, which reaches Array.__array_ufunc__: mixed
# NumPy/stridedarray arithmetic follows one rule in both orders (see _numpy_dispatch).
_OPERAND_TYPES = (ArrayBase, builtins.bool, int, float, complex)


def _make_binary(
    name: str, cat: str, uf: Callable, fix: Callable | None, form: str = "function"
) -> Callable:
    """The function `name`, or with form "operator"/"reflected" its dunder (x1 is self, or
    x2 is self). One body for all three, so `x + y` runs one Python frame, not two."""
    kinds = _kinds(name, cat)
    loud = _fpe.can_warn(name)
    via_float64 = cat in _dtypes.INTEGERS_AS_FLOAT64  # the one rule, in _dtypes
    operator = form != "function"
    reflected = form == "reflected"
    # `x ** 2` and `pow(x, 2)` compute square(x), as NumPy's `**` does: the rule of the C
    # operators (csrc/arraytype/operators.c, `is_two`), which this path must match when they
    # hand a call over: an exponent of exactly the int 2, or the float 2.0 unless x is complex
    # (NumPy's `z ** 2.0` takes the power loop, whose values differ in the last bit), and a
    # result of x's own dtype (the pairs C takes): `int8 ** 2.0` is float64 and `bool ** 2`
    # int64 (np.power's dtypes), which squaring x would not give.
    squares = name == "pow" and not reflected
    names = function_names(name)

    def f(x1: Array | _Scalar, x2: Array | _Scalar, /) -> Array:
        if operator and not isinstance(x2, _OPERAND_TYPES):
            # x2 is the other operand in both forms: a list, NumPy's operands, another
            # library's array (`foreign_operand` says which)
            return foreign_operand(name, x1, x2, reflected)
        u: Any = x1
        v: Any = x2
        if reflected:
            u, v = v, u
        n1, n2, dt = operands(u, v, names)
        k = dt.kind
        if k not in kinds:
            if not (via_float64 and k in "biu"):
                raise _category_error(name, cat, u, v)
            dt, k = _dtypes.float64, "f"  # see _dtypes.INTEGERS_AS_FLOAT64
            n1, n2 = np.asarray(n1, dtype=np.float64), np.asarray(n2, dtype=np.float64)
        if (
            squares
            and (
                (v.__class__ is int and v == 2) or (v.__class__ is float and v == 2.0 and k != "c")
            )
            and dt is u._dtype
        ):
            return _wrap(_quiet_call(np.square, n1) if k in loud else np.square(n1))
        try:
            if k in loud:
                if fix is None:
                    r = _quiet_call(uf, n1, n2)
                else:
                    tok = _enter()
                    try:
                        r = fix(n1, n2, uf(n1, n2))
                    finally:
                        _leave(tok)
            else:
                r = uf(n1, n2) if fix is None else fix(n1, n2, uf(n1, n2))
        except ValueError:
            # NumPy's message names no argument
            _check_broadcast(name, np.shape(n1), np.shape(n2))
            raise
        return _wrap(r)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Element-wise {name} of x1 and x2 (dtype category: {cat})."
    return f


_FUNCS: dict[str, Callable] = {}
for _row in _UNARY:
    _FUNCS[_row[0]] = _make_unary(*_row)
for _row in _BINARY:
    _FUNCS[_row[0]] = _make_binary(*_row)


def clip(
    x: Array,
    /,
    min: int | float | Array | None = None,  # noqa: A002
    max: int | float | Array | None = None,
) -> Array:  # noqa: A002
    """Clamp each element of x to [min, max]; min and max do not take part in promotion."""
    _check_unary("clip", "real numeric", x)
    bounds: list[Any] = []  # per bound: None, an ndarray or a NumPy scalar
    for label, bound in (("min", min), ("max", max)):
        b: Any = _dtypes.python_scalar(bound)  # a NumPy scalar bound clips as its Python value
        if b is None:
            bounds.append(None)
        elif isinstance(b, ArrayBase):
            if b.dtype is not x.dtype:
                raise TypeError(
                    f"clip: {label} must have the dtype of x ({x.dtype.name}), got {b.dtype.name}"
                )
            bounds.append(b._np)
        else:
            if x.dtype.kind in "iu" and isinstance(b, int) and not isinstance(b, builtins.bool):
                # A bound outside the dtype's range clips exactly like the nearest limit.
                info = np.iinfo(x.dtype.np)
                b = builtins.min(builtins.max(b, int(info.min)), int(info.max))
            dt = scalar_dtype(x.dtype, b, label)
            if dt is not x.dtype:
                raise TypeError(f"clip: {label} must be a real scalar, got {b!r}")
            bounds.append(scalar_np(b, x.dtype))
    lo, hi = bounds
    a = x._np
    with np.errstate(all="ignore"):
        r = a if lo is None else np.maximum(a, lo)
        r = r if hi is None else np.minimum(r, hi)
        if r is a:
            r = np.array(a, copy=True)
    return _wrap(r)


_FUNCS["clip"] = clip

__all__ = sorted(_FUNCS)


# -- Array's operators ------------------------------------------------------------------------
_BINARY_ROWS = {row[0]: row for row in _BINARY}
_UNARY_ROWS = {row[0]: row for row in _UNARY}


# In-place operators: `x op= y` computes `x op y` by the usual promotion and stores it in x,
# whose dtype and shape never change. The standard requires the stored values to equal
# `x op y` and leaves undefined the case where `x op y` has another dtype than x. There we
# follow NumPy's same-kind casting: the result is stored if NumPy's can_cast(result, x,
# "same_kind") allows it (int64 into int32, float64 into float32, int16 into int8: wrapping
# or rounding as NumPy's cast does), and TypeError names both dtypes if not (a float result
# into an integer x, complex into real, signed into unsigned, bool as a result of arithmetic).
_SAME_KIND = {(a, b): bool(np.can_cast(a.np, b.np, "same_kind")) for a in DTYPES for b in DTYPES}


def _negative_exponent(n2: Any) -> bool:
    """Whether an integer power's exponent operand (a NumPy operand or a Python int) holds a
    negative value, which NumPy refuses only on reaching it, after earlier writes."""
    if type(n2) is int:
        return n2 < 0
    return bool(np.any(np.less(n2, 0)))


def _cast_error(fname: str, result: DType, left: DType) -> TypeError:
    return TypeError(
        f"in-place {fname}: cannot store the result dtype {result.name} in the "
        f"left operand's dtype {left.name} (in-place operators keep the left "
        "dtype and cast only within a kind, as NumPy's same-kind rule)"
    )


def _binary_operator(fname: str) -> tuple[Callable, Callable, Callable]:
    func = _FUNCS[fname]
    op = _make_binary(*_BINARY_ROWS[fname], form="operator")
    rop = _make_binary(*_BINARY_ROWS[fname], form="reflected")
    _, cat, uf, fix = _BINARY_ROWS[fname]
    kinds, loud = _kinds(fname, cat), _fpe.can_warn(fname)
    integer_power = fname == "pow"
    names = function_names(fname)

    def iop(self: Array, other: Any) -> Array:
        if not isinstance(other, _OPERAND_TYPES):
            if not isinstance(other, np.ndarray | np.generic):
                return NotImplemented
            # Not NotImplemented: Python would fall back to `self = self op other`, a new
            # array, and views of self would silently miss the update. Over a view only we
            # hold: what was checked is what is read (docs/reliability.md).
            other = numpy_operand(other)
        dt = None
        if fix is None and isinstance(self, ArrayBase) and not self.readonly:
            # The common case: the ufunc writes straight into self (NumPy's `out=` is
            # overlap-safe, so `x += x[::-1]` reads the old values), with no temporary the
            # size of x and no copy. Only when nothing can fail after the first write: the
            # dtype, the cast into x and the broadcast shape are checked first, and an
            # integer power's exponents are all >= 0 (NumPy raises for a negative one
            # mid-loop); otherwise the general path below computes into a temporary and
            # raises the specific error with x untouched. casting="no" makes NumPy refuse,
            # before it writes anything, a loop whose result is of another dtype (true
            # division of integers gives float64): the general path then says why.
            a = self._dtype
            n1, n2, dt = operands(self, other, names)
            own = dt is a
            if (
                dt.kind in kinds
                and (own or _SAME_KIND[dt, self._dtype])
                and (
                    not isinstance(other, ArrayBase)
                    or other._shape == self._shape
                    or _broadcasts_into(other._shape, self._shape)
                )
                and not (integer_power and dt.kind in "iu" and _negative_exponent(n2))
            ):
                casting, loop = ("no", None) if own else ("same_kind", dt.np)
                try:
                    if dt.kind in loud:
                        _quiet_call(uf, n1, n2, out=n1, casting=casting, dtype=loop)
                    else:
                        uf(n1, n2, out=n1, casting=casting, dtype=loop)
                    return self
                except TypeError:
                    pass
        # The general path: every check and the whole computation before the one write. A
        # result dtype known to be refused is refused first, as NumPy does, before computing.
        if dt is not None and dt.kind in kinds and not _SAME_KIND[dt, self._dtype]:
            raise _cast_error(fname, dt, self._dtype)
        r = func(self, other)
        if r.dtype is not self.dtype and not _SAME_KIND[r.dtype, self.dtype]:
            raise _cast_error(fname, r.dtype, self._dtype)
        if r.shape != self.shape:
            raise ValueError(
                f"in-place {fname}: the result shape {r.shape} differs from the "
                f"left operand's {self.shape}"
            )
        self[...] = r
        return self

    return op, rop, iop


def _broadcasts_into(s: tuple, target: tuple) -> bool:
    """Whether shape `s` broadcasts to exactly `target` (an in-place operand's rule)."""
    if len(s) > len(target):
        return False
    return all(n == 1 or n == m for n, m in zip(s[::-1], target[::-1], strict=False))


def _operators() -> dict[str, Any]:
    """Array's operators but `@` (_matmul's), dunder name -> the Python function (NativeUfuncs
    replace most), each named and documented from its row of the operator table."""
    ops: dict[str, Any] = {}
    for row in _OPERATOR_ROWS:
        fname = row.function
        if row.form == "unary":
            methods = {"": _make_unary(*_UNARY_ROWS[fname])}
        elif row.form == "comparison":
            methods = {"": _make_binary(*_BINARY_ROWS[fname], form="operator")}
        elif fname != "matmul":
            op, rop, iop = _binary_operator(fname)
            methods = {"": op, "r": rop, "i": iop}
        else:
            continue
        for prefix, meth in methods.items():
            meth.__name__ = meth.__qualname__ = dunder = f"__{prefix}{row.stem}__"
            meth.__doc__ = _operator_doc(dunder)
            ops[dunder] = meth
    return ops


# Array's operators (arithmetic, bitwise, comparisons, unary), which Array's class statement
# assigns by name.
OPERATORS = _operators()

# Those operators and the element-wise functions wrapped as NativeUfuncs: their common operand
# pairs run in C, the Python ones above stay their fallback.
from .._base.numpy_names import round_without_decimals  # noqa: E402
from .native_ufuncs import install as _install_native_ufuncs  # noqa: E402

_FUNCS["round"] = round_without_decimals(_FUNCS["round"])  # NumPy's decimals: a hint
_install_native_ufuncs(
    _BINARY_ROWS,
    _UNARY_ROWS,
    _kinds,
    _OPERATORS,
    _COMPARISONS,
    _UNARY_OPERATORS,
    OPERATORS,
    _FUNCS,
)

# The namespace's element-wise functions, bound by name (the table's generated functions, most
# of them now NativeUfuncs; clip is defined above).
abs = _FUNCS["abs"]
acos = _FUNCS["acos"]
acosh = _FUNCS["acosh"]
add = _FUNCS["add"]
asin = _FUNCS["asin"]
asinh = _FUNCS["asinh"]
atan = _FUNCS["atan"]
atan2 = _FUNCS["atan2"]
atanh = _FUNCS["atanh"]
bitwise_and = _FUNCS["bitwise_and"]
bitwise_invert = _FUNCS["bitwise_invert"]
bitwise_left_shift = _FUNCS["bitwise_left_shift"]
bitwise_or = _FUNCS["bitwise_or"]
bitwise_right_shift = _FUNCS["bitwise_right_shift"]
bitwise_xor = _FUNCS["bitwise_xor"]
ceil = _FUNCS["ceil"]
conj = _FUNCS["conj"]
copysign = _FUNCS["copysign"]
cos = _FUNCS["cos"]
cosh = _FUNCS["cosh"]
divide = _FUNCS["divide"]
equal = _FUNCS["equal"]
exp = _FUNCS["exp"]
expm1 = _FUNCS["expm1"]
floor = _FUNCS["floor"]
floor_divide = _FUNCS["floor_divide"]
greater = _FUNCS["greater"]
greater_equal = _FUNCS["greater_equal"]
hypot = _FUNCS["hypot"]
imag = _FUNCS["imag"]
isfinite = _FUNCS["isfinite"]
isinf = _FUNCS["isinf"]
isnan = _FUNCS["isnan"]
less = _FUNCS["less"]
less_equal = _FUNCS["less_equal"]
log = _FUNCS["log"]
log10 = _FUNCS["log10"]
log1p = _FUNCS["log1p"]
log2 = _FUNCS["log2"]
logaddexp = _FUNCS["logaddexp"]
logical_and = _FUNCS["logical_and"]
logical_not = _FUNCS["logical_not"]
logical_or = _FUNCS["logical_or"]
logical_xor = _FUNCS["logical_xor"]
maximum = _FUNCS["maximum"]
minimum = _FUNCS["minimum"]
multiply = _FUNCS["multiply"]
negative = _FUNCS["negative"]
nextafter = _FUNCS["nextafter"]
not_equal = _FUNCS["not_equal"]
positive = _FUNCS["positive"]
pow = _FUNCS["pow"]
real = _FUNCS["real"]
reciprocal = _FUNCS["reciprocal"]
remainder = _FUNCS["remainder"]
round = _FUNCS["round"]
sign = _FUNCS["sign"]
signbit = _FUNCS["signbit"]
sin = _FUNCS["sin"]
sinh = _FUNCS["sinh"]
sqrt = _FUNCS["sqrt"]
square = _FUNCS["square"]
subtract = _FUNCS["subtract"]
tan = _FUNCS["tan"]
tanh = _FUNCS["tanh"]
trunc = _FUNCS["trunc"]

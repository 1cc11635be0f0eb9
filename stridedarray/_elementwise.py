"""Element-wise functions (Array API chapter "Element-wise Functions") and the operators.

Every function is generated from one table row: name -> accepted dtype category -> NumPy
ufunc (plus, where NumPy's special cases differ from the standard's, a fix-up from
`_special_cases`). Computation runs on the zero-copy NumPy views `x._np` of our descriptors,
so no input is copied to compute; results are wrapped without a copy.

Dtype rules are checked here, before NumPy sees anything: a dtype outside the function's
category raises TypeError, array-array promotion follows the standard's table (mixed kinds
raise TypeError, where NumPy would promote), and Python scalars follow the 2024.12 rules in
`_dtypes.scalar_dtype`.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _special_cases as _sc
from ._array import Array, _from_ndarray, _wrap
from ._dtypes import DTYPES, DType, promote, scalar_dtype, scalar_np

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

# Operator dunder stem -> the function it calls (forward, reflected "r" and in-place "i" forms);
# the function's category check on the operands' dtype covers Python scalar operands too.
_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}
_COMPARISONS = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
                "eq": "equal", "ne": "not_equal"}
_UNARY_OPERATORS = {"neg": "negative", "pos": "positive", "abs": "abs",
                    "invert": "bitwise_invert"}


def _check_unary(name: str, cat: str, x: Any) -> None:
    if not isinstance(x, Array):
        raise TypeError(f"{name}: x must be a stridedarray.Array, got {type(x).__name__}")
    if x.dtype not in _CATEGORY[cat]:
        raise TypeError(f"{name}: x must have a {cat} dtype, got {x.dtype.name}")


def _operands(name: str, cat: str, x1: Any, x2: Any) -> tuple[Any, Any, DType]:
    """NumPy operands for a binary function and the dtype the standard gives the result's
    inputs; scalars become 0-d NumPy arrays of the array's (or the promoted) dtype."""
    a1, a2 = isinstance(x1, Array), isinstance(x2, Array)
    if a1 and a2:
        dt = promote(x1.dtype, x2.dtype)
        n1, n2 = x1._np, x2._np
    elif a1:
        dt = scalar_dtype(x1.dtype, x2, "x2")
        n1, n2 = x1._np, scalar_np(x2, dt)
    elif a2:
        dt = scalar_dtype(x2.dtype, x1, "x1")
        n1, n2 = scalar_np(x1, dt), x2._np
    else:
        raise TypeError(f"{name}: at least one of x1, x2 must be a stridedarray.Array, got "
                        f"{type(x1).__name__} and {type(x2).__name__}")
    if dt not in _CATEGORY[cat]:
        raise TypeError(f"{name}: x1 and x2 must have {cat} dtypes, got "
                        f"{_describe(x1)} and {_describe(x2)}")
    return n1, n2, dt


def _check_broadcast(name: str, s1: tuple, s2: tuple) -> None:
    """ValueError naming x1 and x2 when their shapes do not broadcast."""
    try:
        np.broadcast_shapes(s1, s2)
    except ValueError:
        raise ValueError(f"{name}: x1 of shape {s1} and x2 of shape {s2} do not broadcast "
                         "(extents must be equal or 1, aligned from the right)") from None


def _describe(x: Any) -> str:
    return x.dtype.name if isinstance(x, Array) else f"Python {type(x).__name__}"


# NumPy warnings (overflow, invalid, divide by zero) are not errors in the standard: the
# values (inf, nan) are the answer. np.errstate used as a decorator makes its context per call
# and is thread-safe, at about half the cost of a `with np.errstate(...)` block per call.
_quiet = np.errstate(all="ignore")


@_quiet
def _apply1(uf: Callable, fix: Callable | None, a: np.ndarray) -> Any:
    r = uf(a)
    return r if fix is None else fix(a, r)


@_quiet
def _apply2(uf: Callable, fix: Callable | None, a: Any, b: Any) -> Any:
    r = uf(a, b)
    return r if fix is None else fix(a, b, r)


# Functions whose NumPy loops never set floating-point error flags, whatever the values
# (comparisons, bit and logical operations, sign manipulation); integer and bool operands set
# none either except through division by zero. Those calls skip the errstate context, which
# costs more than the ufunc itself on small arrays.
_NEVER_WARNS = frozenset(
    "equal not_equal less less_equal greater greater_equal logical_and logical_or logical_xor "
    "logical_not bitwise_and bitwise_or bitwise_xor bitwise_invert bitwise_left_shift "
    "bitwise_right_shift isnan isinf isfinite signbit copysign real imag conj positive "
    "negative".split())
_INTEGER_WARNS = frozenset({"divide", "floor_divide", "remainder"})


def _make_unary(name: str, cat: str, uf: Callable, fix: Callable | None) -> Callable:
    allowed = _CATEGORY[cat]
    quiet_kinds = "biufc" if name in _NEVER_WARNS else "biu"

    def f(x: Array, /) -> Array:
        if type(x) is not Array or x._dtype not in allowed:
            _check_unary(name, cat, x)
        if fix is None and x._dtype.kind in quiet_kinds:
            return _wrap(uf(x._np))
        return _wrap(_apply1(uf, fix, x._np))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Element-wise {name} of x (dtype category: {cat})."
    return f


def _make_binary(name: str, cat: str, uf: Callable, fix: Callable | None) -> Callable:
    quiet_kinds = "biufc" if name in _NEVER_WARNS else ("" if name in _INTEGER_WARNS
                                                          else "biu")

    def f(x1: Array | _Scalar, x2: Array | _Scalar, /) -> Array:
        n1, n2, dt = _operands(name, cat, x1, x2)
        try:
            if fix is None and dt.kind in quiet_kinds:
                return _wrap(uf(n1, n2))
            return _wrap(_apply2(uf, fix, n1, n2))
        except ValueError:
            _check_broadcast(name, n1.shape, n2.shape)  # NumPy's message names no argument
            raise

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Element-wise {name} of x1 and x2 (dtype category: {cat})."
    return f


_FUNCS: dict[str, Callable] = {}
for _row in _UNARY:
    _FUNCS[_row[0]] = _make_unary(*_row)
for _row in _BINARY:
    _FUNCS[_row[0]] = _make_binary(*_row)
globals().update(_FUNCS)


def clip(x: Array, /, min: int | float | Array | None = None,  # noqa: A002
         max: int | float | Array | None = None) -> Array:  # noqa: A002
    """Clamp each element of x to [min, max]; min and max do not take part in promotion."""
    _check_unary("clip", "real numeric", x)
    bounds: list[Any] = []  # per bound: None, an ndarray or a NumPy scalar
    for label, b in (("min", min), ("max", max)):
        if b is None:
            bounds.append(None)
        elif isinstance(b, Array):
            if b.dtype is not x.dtype:
                raise TypeError(f"clip: {label} must have the dtype of x ({x.dtype.name}), "
                                f"got {b.dtype.name}")
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


# -- operators on the Array class ----------------------------------------------------------
# With an ndarray or NumPy scalar operand, `op` and `rop` return NotImplemented and Python
# hands the operation to NumPy's operator, which reaches Array.__array_ufunc__: mixed
# NumPy/stridedarray arithmetic follows one rule in both orders (see _numpy_dispatch).
_OPERAND_TYPES = (Array, builtins.bool, int, float, complex)


def _binary_operator(fname: str) -> tuple[Callable, Callable, Callable]:
    func = _FUNCS[fname]

    def op(self: Array, other: Any) -> Array:
        if not isinstance(other, _OPERAND_TYPES):
            return NotImplemented
        return func(self, other)

    def rop(self: Array, other: Any) -> Array:
        if not isinstance(other, _OPERAND_TYPES):
            return NotImplemented
        return func(other, self)

    def iop(self: Array, other: Any) -> Array:
        if not isinstance(other, _OPERAND_TYPES):
            if not isinstance(other, np.ndarray | np.generic):
                return NotImplemented
            # Not NotImplemented: Python would fall back to `self = self op other`, a new
            # array, and views of self would silently miss the update.
            other = _from_ndarray(np.asarray(other), None)
        r = func(self, other)
        if r.dtype is not self.dtype:
            raise TypeError(f"in-place {fname}: the result dtype {r.dtype.name} differs from "
                            f"the left operand's {self.dtype.name}; in-place operators keep "
                            "the left dtype")
        if r.shape != self.shape:
            raise ValueError(f"in-place {fname}: the result shape {r.shape} differs from the "
                             f"left operand's {self.shape}")
        self[...] = r
        return self

    return op, rop, iop


def _install_operators() -> None:
    for dunder, fname in _OPERATORS.items():
        op, rop, iop = _binary_operator(fname)
        for prefix, meth in (("", op), ("r", rop), ("i", iop)):
            meth.__name__ = meth.__qualname__ = f"__{prefix}{dunder}__"
            meth.__doc__ = f"Operator form of {fname} ({'reflected' if prefix == 'r' else ''}"\
                           f"{'in-place' if prefix == 'i' else ''})."
            setattr(Array, meth.__name__, meth)
    for dunder, fname in _COMPARISONS.items():
        op, _, _ = _binary_operator(fname)
        op.__name__ = op.__qualname__ = f"__{dunder}__"
        op.__doc__ = f"Operator form of {fname}."
        setattr(Array, op.__name__, op)
    for dunder, fname in _UNARY_OPERATORS.items():
        setattr(Array, f"__{dunder}__", _FUNCS[fname])
    # Arrays compare element-wise, so they cannot be hashed (as NumPy's).
    Array.__hash__ = None


_install_operators()

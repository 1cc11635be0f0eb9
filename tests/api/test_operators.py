"""Operators: forward, reflected and in-place forms against NumPy over random views; in-place
keeps the left dtype and shape; scalar conversions (__bool__, __int__, ...); the operators in C
against the Python functions they replaced (their fallback)."""

from __future__ import annotations

import math
import operator
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from outcomes import assert_same_result, quiet_outcome
from standard_names import ARITHMETIC_OPERATORS, COMPARISON_OPERATORS
from strategies import ALL_DTYPES as DTYPES
from strategies import dtype_list, numpy_promote, views

import stridedarray as sa
from stridedarray._api import elementwise as _elementwise
from stridedarray._arraytype import NativeUfunc
from stridedarray._base import operator_table as _operator_table

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

SETTINGS = settings(max_examples=12, deadline=None)

# operator symbol -> (python operator, in-place operator, category, numpy ufunc)
BINARY_OPS = {
    "+": (operator.add, operator.iadd, "numeric", np.add),
    "-": (operator.sub, operator.isub, "numeric", np.subtract),
    "*": (operator.mul, operator.imul, "numeric", np.multiply),
    "/": (operator.truediv, operator.itruediv, "floating-point", np.true_divide),
    "//": (operator.floordiv, operator.ifloordiv, "real numeric", np.floor_divide),
    "%": (operator.mod, operator.imod, "real numeric", np.remainder),
    "**": (operator.pow, operator.ipow, "numeric", np.power),
    "&": (operator.and_, operator.iand, "integer or boolean", np.bitwise_and),
    "|": (operator.or_, operator.ior, "integer or boolean", np.bitwise_or),
    "^": (operator.xor, operator.ixor, "integer or boolean", np.bitwise_xor),
    "<<": (operator.lshift, operator.ilshift, "integer", np.left_shift),
    ">>": (operator.rshift, operator.irshift, "integer", np.right_shift),
}
COMPARISONS = {
    "<": (operator.lt, "real numeric", np.less),
    "<=": (operator.le, "real numeric", np.less_equal),
    ">": (operator.gt, "real numeric", np.greater),
    ">=": (operator.ge, "real numeric", np.greater_equal),
    "==": (operator.eq, "all", np.equal),
    "!=": (operator.ne, "all", np.not_equal),
}
UNARY = {
    "-": (operator.neg, "numeric", np.negative),
    "+": (operator.pos, "numeric", np.positive),
    "abs": (abs, "numeric", np.absolute),
    "~": (operator.invert, "integer or boolean", np.invert),
}


def _dtypes_of(cat):
    return dtype_list(cat)  # the standard's category, by hand (standard_names)


def _values(ref):
    if ref.dtype.kind in "iu":  # keep shifts and powers defined
        return np.abs(ref.astype(np.int64)) % 5
    return ref


def _eq(out, expected):
    expected = np.asarray(expected)
    assert out.dtype.np == expected.dtype
    if expected.dtype.kind in "fc":  # SIMD and strided loops may differ by an ulp (pow)
        np.testing.assert_allclose(
            np.asarray(out), expected, rtol=4 * np.finfo(expected.dtype).eps, atol=0
        )
    else:
        np.testing.assert_array_equal(np.asarray(out), expected)


@pytest.mark.parametrize("sym", sorted(BINARY_OPS))
@SETTINGS
@given(data=st.data())
def test_binary_operator_forward_reflected_inplace(sym, data):
    op, iop, cat, uf = BINARY_OPS[sym]
    dt = data.draw(st.sampled_from(_dtypes_of(cat)))
    pair = data.draw(views(dt, broadcast=False))
    other_np = np.array(_values(np.flip(pair.ref)), dtype=dt.np)  # same shape, other values
    if sym in ("//", "%", "/") and dt.kind in "iu":
        other_np[other_np == 0] = 1
    other = sa.asarray(other_np)
    with np.errstate(all="ignore"):
        _eq(op(pair.x, other), uf(pair.ref, other_np))
        scalar = 2 if dt.kind != "b" else True
        ref_s = np.asarray(scalar, dt.np)
        _eq(op(pair.x, scalar), uf(pair.ref, ref_s))
        if not (sym in ("<<", ">>", "**") and dt.kind == "i" and (pair.ref < 0).any()):
            _eq(op(scalar, pair.x), uf(ref_s, pair.ref))  # reflected
        expected = uf(pair.ref, other_np)
        x = pair.x
        before_id = id(x)
        x = iop(x, other)
        assert id(x) == before_id and x.dtype is dt
        _eq(sa.asarray(pair.ref.copy()), expected)  # written through the view


@pytest.mark.parametrize("sym", sorted(COMPARISONS))
@SETTINGS
@given(data=st.data())
def test_comparison_operators(sym, data):
    op, cat, uf = COMPARISONS[sym]
    dt = data.draw(st.sampled_from(_dtypes_of(cat)))
    pair = data.draw(views(dt))
    other_np = np.flip(pair.ref).copy()
    _eq(op(pair.x, sa.asarray(other_np)), uf(pair.ref, other_np))
    s = True if dt.kind == "b" else 1
    _eq(op(pair.x, s), uf(pair.ref, np.asarray(s, dt.np)))
    _eq(op(s, pair.x), uf(np.asarray(s, dt.np), pair.ref))


@pytest.mark.parametrize("sym", sorted(UNARY))
@SETTINGS
@given(data=st.data())
def test_unary_operators(sym, data):
    op, cat, uf = UNARY[sym]
    dt = data.draw(st.sampled_from(_dtypes_of(cat)))
    pair = data.draw(views(dt))
    _eq(op(pair.x), uf(pair.ref))


def test_inplace_keeps_left_dtype_or_raises():
    # Same-kind casting (test_inplace.py has the differential test against NumPy).
    x = sa.asarray([1, 2], dtype=sa.int8)
    x += sa.asarray([1, 127], dtype=sa.int16)
    assert x.dtype is sa.int8 and x.tolist() == [2, -127]  # int16 result wraps into int8
    with pytest.raises(TypeError, match="in-place"):
        x += sa.asarray([1.0, 2.0])  # float64 result: another kind
    with pytest.raises(TypeError, match="in-place"):
        x /= 2  # would become floating
    f = sa.asarray([1.0], dtype=sa.float32)
    with pytest.raises(TypeError, match="in-place"):
        f += 1j  # complex scalar promotes the result to complex64
    y = sa.asarray([1, 2], dtype=sa.int16)
    y += sa.asarray([1, 2], dtype=sa.int8)
    assert y.dtype is sa.int16 and list(np.asarray(y)) == [2, 4]
    with pytest.raises(ValueError, match="shape"):
        z = sa.ones(2)
        z += sa.ones((3, 2))


def test_operator_promotion_table_matches_functions():
    for a in DTYPES:
        for b in DTYPES:
            x, y = sa.ones(1, dtype=a), sa.ones(1, dtype=b)
            expected = numpy_promote(a, b)
            assert (x + y).dtype is expected
            assert (x == y).dtype is sa.bool


def test_unknown_operand_type_returns_notimplemented():
    x = sa.ones(2)
    assert x.__add__("a") is NotImplemented
    with pytest.raises(TypeError):
        x + "a"  # noqa: B018
    # == and != do not fall back to identity (a silent Python bool): see test_array_core
    with pytest.raises(TypeError, match="got NoneType"):
        x == None  # noqa: B015, E711


def test_arrays_are_unhashable():
    with pytest.raises(TypeError):
        hash(sa.ones(1))


# -- conversion to Python scalars -----------------------------------------------------------
def test_bool_int_float_complex_index():
    assert bool(sa.asarray(math.nan)) is True and bool(sa.asarray(-0.0)) is False
    assert bool(sa.asarray(0j)) is False and bool(sa.asarray(1j)) is True
    assert int(sa.asarray(-3.9)) == -3 and int(sa.asarray(True)) == 1
    assert float(sa.asarray(3, dtype=sa.int8)) == 3.0
    assert complex(sa.asarray(2.5)) == 2.5 + 0j
    assert operator.index(sa.asarray(7, dtype=sa.uint8)) == 7
    with pytest.raises(OverflowError):
        int(sa.asarray(math.inf))
    with pytest.raises(ValueError):
        int(sa.asarray(math.nan))
    with pytest.raises(TypeError, match="of a complex array is not defined; take real"):
        int(sa.asarray(1j))
    with pytest.raises(TypeError, match="of a complex array is not defined; take real"):
        float(sa.asarray(1j))
    with pytest.raises(TypeError, match="integer"):
        operator.index(sa.asarray(1.0))
    for conv in (int, float, complex):
        assert type(conv(sa.asarray(1, dtype=sa.int16))) is conv


def test_numpy_operands_follow_numpys_rule_in_both_orders():
    # Details and the differential tests: test_numpy_protocols.py.
    x = sa.ones(2)
    for r in (np.ones(2) + x, x + np.ones(2), x @ np.ones(2), np.ones(2) @ x):
        assert isinstance(r, sa.Array)
    np.testing.assert_array_equal(np.asarray(np.ones(2) + x), [2.0, 2.0])
    np.testing.assert_array_equal(np.asarray(x), [1.0, 1.0])  # explicit conversion works


INPLACE = {
    "+=": (operator.iadd, "numeric"),
    "-=": (operator.isub, "numeric"),
    "*=": (operator.imul, "numeric"),
    "/=": (operator.itruediv, "floating-point"),
    "&=": (operator.iand, "integer or boolean"),
    "|=": (operator.ior, "integer or boolean"),
}


@pytest.mark.parametrize("sym", sorted(INPLACE))
@SETTINGS
@given(data=st.data())
def test_inplace_with_an_overlapping_or_broadcast_operand_matches_numpy(sym, data):
    # The in-place operators write straight into x: an operand that is a view of x's own
    # memory (reversed, transposed) must read the old values, as NumPy's own `a op= b` does,
    # and a broadcast operand (extent-1 axes, fewer axes) must be stretched.
    iop, cat = INPLACE[sym]
    dt = data.draw(st.sampled_from([d for d in _dtypes_of(cat) if d.kind != "u"]))
    pair = data.draw(views(dt, broadcast=False))
    x, ref = pair.x, pair.ref
    how = data.draw(st.sampled_from(["flip", "transpose", "broadcast"]))
    if how == "flip":
        other, other_ref = sa.flip(x), np.flip(ref)
    elif how == "transpose":
        other, other_ref = sa.permute_dims(x, tuple(range(x.ndim))[::-1]), ref.T
        if other.shape != x.shape:
            return  # a transpose only broadcasts into x when x is "square"
    else:
        keep = data.draw(st.lists(st.booleans(), min_size=x.ndim, max_size=x.ndim))
        shape = tuple(n if k else 1 for n, k in zip(x.shape, keep, strict=True))
        other_ref = _values(np.full(shape, 3, dtype=dt.np)).astype(dt.np)
        other = sa.asarray(other_ref)
    expected = ref.copy()
    with np.errstate(all="ignore"):
        iop(expected, np.array(other_ref))  # NumPy on a copy, the operand's old values
        out = iop(x, other)
    assert out is x
    _eq(sa.asarray(ref.copy()), expected)


def test_inplace_refusals_leave_the_left_operand_unchanged():
    x = sa.asarray([1, 2], dtype=sa.int8)
    for bad in (
        lambda: x.__iadd__(sa.asarray([1.5, 2.5])),
        lambda: x.__itruediv__(2),
        lambda: x.__iadd__(sa.ones((3, 2), dtype=sa.int8)),
    ):
        with pytest.raises((TypeError, ValueError), match="the left operand's"):
            bad()
        assert x.tolist() == [1, 2]
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    r = sa.asarray(frozen)
    with pytest.raises(ValueError, match="read-only"):
        r += 1.0
    assert frozen.tolist() == [0.0, 1.0, 2.0]


def _numpy_error(f, *args):
    """The exception NumPy raises for f(*args), to match ours against (type and message)."""
    try:
        f(*args)
    except Exception as e:  # noqa: BLE001 - whatever NumPy raises is the reference
        return e
    raise AssertionError(f"NumPy did not raise for {f}{args}")


@SETTINGS
@given(data=st.data())
def test_bool_of_an_array_follows_numpy(data):
    """One element, of any rank and view: its truth value; any other size: NumPy's
    ValueError, with NumPy's message."""
    dt = data.draw(st.sampled_from(DTYPES))
    pair = data.draw(views(dt))
    if pair.ref.size == 1:
        assert bool(pair.x) is bool(pair.ref)
        return
    want = _numpy_error(bool, pair.ref)
    with pytest.raises(type(want), match=re.escape(str(want))):
        bool(pair.x)


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
@pytest.mark.parametrize("value", [0.0, -0.0, 2.5, math.nan, 0j, 1j])
def test_bool_of_one_element_arrays(shape, value):
    ref = np.full(shape, value)
    assert bool(sa.asarray(ref)) is bool(ref)


BOOL_ARITHMETIC = ARITHMETIC_OPERATORS
BOOL_INPLACE = {
    "+": operator.iadd,
    "-": operator.isub,
    "*": operator.imul,
    "/": operator.itruediv,
    "//": operator.ifloordiv,
    "%": operator.imod,
    "**": operator.ipow,
}


@pytest.mark.parametrize("sym", sorted(BOOL_ARITHMETIC))
@SETTINGS
@given(data=st.data())
def test_arithmetic_of_bools_follows_numpy(sym, data):
    """The standard is silent on arithmetic of bools; NumPy's answer (dtype, values, or a
    TypeError for -) in every operand order, with Python bools too."""
    op = BOOL_ARITHMETIC[sym]
    pair = data.draw(views(sa.bool))
    other_np = np.flip(pair.ref).copy()
    s = data.draw(st.booleans())
    cases = [
        ((pair.x, sa.asarray(other_np)), (pair.ref, other_np)),
        ((pair.x, s), (pair.ref, s)),
        ((s, pair.x), (s, pair.ref)),
    ]
    for ours, ref in cases:
        with np.errstate(all="ignore"):
            try:
                want = op(*ref)
            except TypeError:
                with pytest.raises(
                    TypeError, match="subtract: x1 and x2 must have numeric dtypes, got"
                ):
                    op(*ours)
                continue
            _eq(op(*ours), want)


BOOL_UNARY = {"+": operator.pos, "-": operator.neg, "abs": abs, "~": operator.invert}


@pytest.mark.parametrize("sym", sorted(BOOL_UNARY))
def test_unary_operators_of_bools_follow_numpy(sym):
    """abs and ~ of bools give NumPy's bool answer; + and - are refused, as in NumPy."""
    op = BOOL_UNARY[sym]
    ref = np.asarray([True, False, True])[::-1]
    try:
        want = op(ref)
    except TypeError:
        with pytest.raises(TypeError, match="x must have a numeric dtype, got bool"):
            op(sa.asarray(ref))
        return
    _eq(op(sa.asarray(ref)), want)


@pytest.mark.parametrize("sym", sorted(BOOL_INPLACE))
def test_inplace_arithmetic_of_bools_follows_numpy(sym):
    """In place, NumPy keeps bool for + and * and refuses the others (their results are not
    bool); a refusal leaves x unchanged."""
    iop = BOOL_INPLACE[sym]
    a, b = np.asarray([True, False, True, False]), np.asarray([True, True, False, False])
    x = sa.asarray(a.copy())
    try:
        with np.errstate(all="ignore"):
            want = iop(a.copy(), b)
    except TypeError:
        with pytest.raises(TypeError):
            iop(x, sa.asarray(b))
        np.testing.assert_array_equal(np.asarray(x), a)
        return
    _eq(iop(x, sa.asarray(b)), want)


class _RMatmul:
    """Implements only the reflected product."""

    def __rmatmul__(self, other):
        return "rmatmul"


class _NoUfuncs:
    """Opts out of NumPy's ufuncs (NEP 13) and implements the reflected operators."""

    __array_ufunc__ = None

    def __rmatmul__(self, other):
        return "rmatmul"

    def __radd__(self, other):
        return "radd"


def test_matmul_defers_to_an_operand_that_implements_the_reflected_product():
    a = sa.ones((2, 2))
    for other in (_RMatmul(), _NoUfuncs()):
        assert a.__matmul__(other) is NotImplemented
        assert a @ other == "rmatmul"
        x = sa.ones((2, 2))
        assert x.__imatmul__(other) is NotImplemented
        x @= other  # Python falls back to x @ other, then to other.__rmatmul__
        assert x == "rmatmul"
    # NumPy defers in the same case (__array_ufunc__ = None), and so do our other operators
    assert np.ones((2, 2)) @ _NoUfuncs() == "rmatmul"
    assert a + _NoUfuncs() == "radd"
    # operands that defer nothing keep matmul's own error
    for bad in ([[1.0, 2.0]], 3.0):
        with pytest.raises(TypeError, match="x2 must be"):
            a @ bad  # noqa: B018
        with pytest.raises(TypeError, match="x2 must be"):
            y = sa.ones((2, 2))
            y @= bad


def test_operator_and_function_share_one_body() -> None:
    x = sa.asarray([1.0, 2.0])
    assert x.__add__(np.ones(2)) is NotImplemented
    assert x.__radd__("a") is NotImplemented
    assert x.__matmul__(np.ones(2)) is NotImplemented
    with pytest.raises(TypeError, match="x2 must be an Array"):
        sa.add(x, "a")
    with pytest.raises(TypeError, match="matmul: x2 must be a stridedarray.Array"):
        sa.matmul(x, [1.0, 1.0])
    assert float(sa.matmul(x, np.ones(2))) == 3.0  # the function takes an ndarray
    assert float(2.0 - x[0]) == 1.0 and float(x @ x) == 5.0
    assert sa.matmul.__name__ == "matmul" and sa.add.__name__ == "add"


# The operator table (stridedarray/_base/operator_table.py) pairs each dunder with its function and
# symbol, and Array's operators, their docstrings and the wording of operand errors are made
# from it: a row that pairs a symbol with the wrong function computes the wrong thing here.
_DUNDER_FORMS = {"binary": ("", "r", "i"), "comparison": ("",), "unary": ("",)}


@pytest.mark.parametrize("row", _operator_table.OPERATORS, ids=lambda row: row.stem)
def test_each_operator_computes_its_tables_function_and_symbol(row) -> None:
    a_np, b_np = np.array([1, 6, 3], dtype=np.int64), np.array([1, 2, 7], dtype=np.int64)
    a, b = sa.asarray(a_np), sa.asarray(b_np)
    func = getattr(sa, row.function)
    if row.form == "unary":
        expr = "abs(a)" if row.symbol == "abs" else f"{row.symbol}a"
        computed = [(eval(expr), func(a)), (eval(expr, {"a": a_np}), func(a))]
    else:
        expr = f"a {row.symbol} b"
        computed = [
            (eval(expr), func(a, b)),
            (eval(expr, {"a": a_np, "b": b_np}), func(a, b)),  # NumPy's spelling of the symbol
        ]
        if row.function != "matmul":  # reflected: a Python scalar on the left
            computed.append((eval(f"2 {row.symbol} a"), func(2, a)))
    for got, want in computed:
        assert np.asarray(got).dtype == np.asarray(want).dtype, expr
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=expr)
    for prefix in _DUNDER_FORMS[row.form]:
        dunder = f"__{prefix}{row.stem}__"
        doc = vars(sa.Array)[dunder].__doc__
        if dunder in ("__rmatmul__", "__imatmul__"):
            continue  # their own docstrings say how they reach matmul (_matmul/product.py)
        assert doc == _operator_table.doc(dunder), dunder
        assert row.symbol in doc and f"`{row.function}`" in doc, doc


def test_the_operator_table_lists_the_standards_operators() -> None:
    # the standard's arithmetic and comparison operators, by symbol (tests/standard_names.py)
    symbols = {row.symbol for row in _operator_table.OPERATORS if row.form != "unary"}
    assert set(ARITHMETIC_OPERATORS) | set(COMPARISON_OPERATORS) <= symbols
    dunders = {
        f"__{p}{row.stem}__" for row in _operator_table.OPERATORS for p in _DUNDER_FORMS[row.form]
    }
    assert len(dunders) == 49 and dunders <= set(vars(sa.Array))


# Chained expressions (docs/array.md, "What a call costs"), in the operator spelling and in
# the function spelling array-API code uses, against NumPy. Large results go through the
# result-buffer cache (tests/array/test_buffer_cache.py), so each is evaluated three times: the
# later ones are made in blocks the earlier ones freed.
def _chains(xp, x, y, m, s):
    """(name, operator form, function form) of the issue's chains, on namespace `xp`."""
    floating = x.dtype.kind in "fc"
    out = [
        ("x*2+1", lambda: x * 2 + 1, lambda: xp.add(xp.multiply(x, 2), 1)),
        ("x*y+x*x-y", lambda: x * y + x * x - y,
         lambda: xp.subtract(xp.add(xp.multiply(x, y), xp.multiply(x, x)), y)),
        ("sum((x-m)**2)", lambda: xp.sum((x - m) ** 2, axis=0),
         lambda: xp.sum(xp.pow(xp.subtract(x, m), 2) if xp is sa else np.power(x - m, 2), axis=0)),
        ("x[::-1]*2+1", lambda: x[::-1] * 2 + 1, lambda: xp.add(xp.multiply(x[::-1], 2), 1)),
    ]  # fmt: skip
    if floating:
        out += [
            ("exp(x)*x-1", lambda: xp.exp(x) * x - 1,
             lambda: xp.subtract(xp.multiply(xp.exp(x), x), 1)),
            ("(x-m)/s", lambda: (x - m) / s, lambda: xp.divide(xp.subtract(x, m), s)),
        ]  # fmt: skip
    return out


# Each chain's terms in absolute value, summed: a rounding error of an ulp in any step (NumPy's
# SIMD and strided loops, `x * x` as a square) moves the result by a few ulps of this, which is
# far more than an ulp of the result where the terms cancel (`x * y + x * x - y`, or a complex
# product's own ac - bd).
_CHAIN_SCALE = {
    "x*2+1": lambda x, y, m, s: 2 * abs(x) + 1,
    "x*y+x*x-y": lambda x, y, m, s: abs(x) * abs(y) + abs(x) ** 2 + abs(y),
    "sum((x-m)**2)": lambda x, y, m, s: np.sum((abs(x) + abs(m)) ** 2, axis=0),
    "x[::-1]*2+1": lambda x, y, m, s: 2 * abs(x[::-1]) + 1,
    "exp(x)*x-1": lambda x, y, m, s: abs(np.exp(x)) * abs(x) + 1,
    "(x-m)/s": lambda x, y, m, s: (abs(x) + abs(m)) / abs(s),
}


def _eq_chain(out, expected, scale):
    """`_eq` for a chain: integers exactly, floating results within a few ulps of the terms."""
    expected = np.asarray(expected)
    if expected.dtype.kind not in "fc":
        return _eq(out, expected)
    assert out.dtype.np == expected.dtype
    eps = np.finfo(expected.dtype).eps
    err = np.abs(np.asarray(out).astype(complex) - expected.astype(complex))
    assert np.all(err <= 8 * eps * np.asarray(scale, dtype=float)), (err.max(), out, expected)


def _check_chains(x_np, y_np, x, y):
    m_np, s_np = y_np[:1], y_np[-1:] * 0 + 3  # one row each (none when x has none)
    m, s = y[:1], y[-1:] * 0 + 3
    want = {name: (op(), fn()) for name, op, fn in _chains(np, x_np, y_np, m_np, s_np)}
    # the terms' sizes, in float64 (complex128 for complex operands)
    wide = [np.asarray(v, dtype=np.result_type(v.dtype, np.float64)) for v in (x_np, y_np)]
    xw, yw = wide
    scale = {name: f(xw, yw, yw[:1], yw[-1:] * 0 + 3) for name, f in _CHAIN_SCALE.items()}
    for _ in range(3):
        for name, op, fn in _chains(sa, x, y, m, s):
            for got, w in zip((op(), fn()), want[name], strict=True):
                _eq_chain(got, w, scale[name])


@SETTINGS
@given(data=st.data())
def test_chains_match_numpy_on_views(data):
    dt = data.draw(st.sampled_from(dtype_list("numeric")))
    pair = data.draw(views(dt, max_dims=3))
    if pair.ref.ndim == 0:
        return
    x_np, x = pair.ref, pair.x
    if dt.kind in "iu":  # small values keep the powers defined: a copy of the view
        x_np = _values(pair.ref).astype(dt.np)
        x = sa.asarray(x_np)
    y_np = np.array(np.flip(x_np), dtype=dt.np)
    with np.errstate(all="ignore"):
        _check_chains(x_np, y_np, x, sa.asarray(y_np))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex128"])
@pytest.mark.parametrize("layout", ["contiguous", "reversed", "step-two", "transposed"])
def test_large_chains_match_numpy(dtype, layout):
    rng = np.random.default_rng(0)
    base = rng.integers(1, 9, (300, 400)).astype(dtype) + (0.5 if dtype[0] in "fc" else 0)
    if dtype.startswith("complex"):
        base = base + 1j * base[::-1]
    y_base = base[::-1] * 2
    view = {
        "contiguous": lambda a: a,
        "reversed": lambda a: a[::-1, ::-1],
        "step-two": lambda a: a[:, ::2],
        "transposed": lambda a: a.T,
    }[layout]
    x_np, y_np = view(base), view(y_base)
    x, y = view(sa.asarray(base)), view(sa.asarray(y_base))
    with np.errstate(all="ignore"):
        _check_chains(x_np, y_np, x, y)
    np.testing.assert_array_equal(np.asarray(x), x_np)  # operands unchanged


@pytest.mark.parametrize(
    "dtype, scalar",
    [
        ("float32", 0.1),  # rounded to float32, as the Python path's 0-d array is
        ("float32", 1e39),  # beyond float32: the Python path's quiet inf
        ("float32", -(2**24) - 1),  # an int float32 does not hold exactly
        ("float32", 2**24),
        ("complex64", 3.0),
        ("complex64", 1e39),
        ("int8", 127),
        ("int8", -128),
        ("uint8", 255),
        ("int32", 2**31 - 1),
        ("uint64", 2**63 - 1),
        ("uint64", 2**63),  # beyond C's long long: the Python path
        ("int16", True),  # a bool is not an exact int: the Python path
    ],
)
def test_python_scalars_beside_narrow_dtypes_follow_the_weak_scalar_rule(dtype, scalar):
    x_np = np.array([0, 1, 2, 100], dtype=dtype)
    x = sa.asarray(x_np)
    with np.errstate(all="ignore"):
        s_np = np.array(scalar, dtype=dtype) if not isinstance(scalar, bool) else scalar
        for op in (operator.add, operator.mul, operator.sub):
            got, want = op(x, scalar), op(x_np, s_np)
            assert got.dtype.np == want.dtype
            np.testing.assert_array_equal(np.asarray(got), want)
            got, want = op(scalar, x), op(s_np, x_np)
            assert got.dtype.np == want.dtype
            np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("dtype, scalar", [("int8", 128), ("int8", -129), ("uint8", -1),
                                           ("uint16", 2**16), ("int32", 2**31)])  # fmt: skip
def test_python_ints_outside_an_integer_dtype_raise_the_python_path_s_error(dtype, scalar):
    x = sa.asarray(np.array([1, 2], dtype=dtype))
    for f in (lambda: x + scalar, lambda: scalar * x, lambda: sa.subtract(x, scalar)):
        with pytest.raises(OverflowError, match="out of range for " + dtype):
            f()


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint32", "float32", "float64", "complex128"])
def test_squaring_gives_numpy_s_operator_values(dtype):
    # NumPy's `**` squares for an exponent of 2 (fast_scalar_power); so do `**` and pow here.
    x_np = (
        (np.arange(-6, 6) * 1.37).astype(dtype) if dtype[0] != "u" else np.arange(12, dtype=dtype)
    )
    if dtype.startswith("complex"):
        x_np = x_np + 0.5j * x_np[::-1]
    x = sa.asarray(x_np)
    for exponent in (2, 2.0) if dtype[0] in "fc" else (2,):
        np.testing.assert_array_equal(np.asarray(x**exponent), x_np**exponent)
        np.testing.assert_array_equal(np.asarray(sa.pow(x, exponent)), x_np**exponent)
        np.testing.assert_array_equal(np.asarray(x[::-1] ** exponent), x_np[::-1] ** exponent)
    with np.errstate(all="ignore"):  # the base 2 is not squared: NumPy's power
        _eq(
            2**x if dtype[0] != "i" else 2 ** abs(x),
            np.power(2, x_np if dtype[0] != "i" else abs(x_np)),
        )
    b = sa.asarray(np.array([True, False]))
    np.testing.assert_array_equal(np.asarray(b**2), np.array([True, False]) ** 2)
    # an exponent that changes the dtype is not a square of x: np.power's dtype and values
    for base, exponent in [(b, 2), (x, 2.0)] if dtype[0] in "iu" else [(b, 2)]:
        for got in (base**exponent, sa.pow(base, exponent)):
            _eq(got, np.power(np.asarray(base), exponent))


# -- the C operators against their Python fallback -------------------------------------------
# The operators run in C (csrc/arraytype/operators.c); each keeps the Python function it
# replaced as its fallback (`__wrapped__`). Against NumPy and that fallback: every operator,
# every dtype, operands that are views of views (negative, step, zero strides, broadcast, 0-d,
# empty), Python scalars on both sides; no floating-point warning leaks; anything the C path
# does not take gives the Python path's answer and error.

# the dunder stem of each operator (`__add__`, `__radd__`) -> its Python operator
BINARY_BY_STEM = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "lshift": operator.lshift,
    "rshift": operator.rshift,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}


UNARY_BY_STEM = {
    "neg": operator.neg,
    "pos": operator.pos,
    "abs": operator.abs,
    "invert": operator.invert,
}


def _python_path(stem: str):
    """The Python operator a NativeUfunc replaced (its fallback), or the operator itself."""
    op = vars(sa.Array)[f"__{stem}__"]
    return op.__wrapped__ if isinstance(op, NativeUfunc) else op


def _like_numpy(got: np.ndarray, ref: np.ndarray) -> None:
    """Equal to NumPy's answer; for inexact results within 4 ulps, because NumPy's own
    contiguous (SIMD) and strided loops differ in the last bit (abs of complex64: hypot), and
    our view of an extent-1 axis may be contiguous where the reference view is not."""
    if ref.dtype.kind in "fc":
        np.testing.assert_allclose(got, ref, rtol=4 * np.finfo(ref.dtype).eps, atol=0)
        assert got.dtype == ref.dtype
    else:
        np.testing.assert_array_equal(got, ref)


def test_the_operators_are_in_c():
    ops = [f"__{p}{s}__" for s in _elementwise._OPERATORS for p in ("", "r")]
    ops += [f"__{s}__" for s in (*_elementwise._COMPARISONS, *_elementwise._UNARY_OPERATORS)]
    fast = {n for n in ops if isinstance(vars(sa.Array)[n], NativeUfunc)}
    # floor division and its reflection keep their special-case fix-up in Python
    assert set(ops) - fast == {"__floordiv__", "__rfloordiv__"}


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(DTYPES).flatmap(lambda d: st.tuples(views(d), views(d))),
    st.sampled_from(sorted(BINARY_BY_STEM)),
)
def test_binary_operators_match_the_python_path_and_numpy(pair, stem):
    p, q = pair
    fast = quiet_outcome(lambda: BINARY_BY_STEM[stem](p.x, q.x))
    slow = quiet_outcome(lambda: _python_path(stem)(p.x, q.x))
    assert_same_result(fast, slow)  # the C path gives exactly the Python path's result or error
    if fast[0] == "ok":
        with np.errstate(all="ignore"):
            ref = BINARY_BY_STEM[stem](p.ref, q.ref)
        _like_numpy(np.asarray(fast[1]), ref)
        assert np.asarray(fast[1]).dtype == np.asarray(ref).dtype


SCALARS = [
    0.0,
    -1.5,
    3.0,
    float("inf"),
    float("nan"),
    2,
    -3,
    0,
    2**53,
    -(2**53) - 1,
    2**62,
    2**63,
    -(2**70),
    True,
    1 + 2j,
]


@settings(max_examples=400, deadline=None)
@given(
    views(st.sampled_from(DTYPES)),
    st.sampled_from(sorted(BINARY_BY_STEM)),
    st.sampled_from(SCALARS),
    st.booleans(),
)
def test_scalar_operands_match_the_python_path(p, stem, s, reflected):
    if reflected:
        if stem in ("lt", "le", "gt", "ge", "eq", "ne"):
            return  # Python reflects comparisons into the other comparison
        name = f"__r{stem}__"
        fast = quiet_outcome(lambda: getattr(p.x, name)(s))
        op = vars(sa.Array)[name]
        py = op.__wrapped__ if isinstance(op, NativeUfunc) else op
        slow = quiet_outcome(lambda: py(p.x, s))
    else:
        fast = quiet_outcome(lambda: BINARY_BY_STEM[stem](p.x, s))
        slow = quiet_outcome(lambda: _python_path(stem)(p.x, s))
    if fast[0] == "ok" and fast[1] is NotImplemented:
        assert slow == fast
        return
    assert_same_result(fast, slow)


@settings(max_examples=300, deadline=None)
@given(views(st.sampled_from(DTYPES)), st.sampled_from(sorted(UNARY_BY_STEM)))
def test_unary_operators_match_the_python_path_and_numpy(p, stem):
    fast = quiet_outcome(lambda: UNARY_BY_STEM[stem](p.x))
    slow = quiet_outcome(lambda: _python_path(stem)(p.x))
    assert_same_result(fast, slow)
    if fast[0] == "ok":
        with np.errstate(all="ignore"):
            ref = UNARY_BY_STEM[stem](p.ref)
        _like_numpy(np.asarray(fast[1]), ref)


def test_errors_and_fallbacks_keep_their_messages():
    x = sa.reshape(sa.arange(16.0), (4, 4))
    with pytest.raises(ValueError, match="do not broadcast"):
        _ = x + sa.ones(3)
    with pytest.raises(TypeError, match="unsupported operand"):
        _ = x + "a"
    with pytest.raises(
        TypeError, match="bitwise_invert: x must have a integer or boolean dtype, got"
    ):
        _ = ~x
    assert (x + np.ones((4, 4))).dtype == sa.float64  # NumPy operands: NEP 13 path
    with pytest.raises(
        OverflowError, match="x2: Python int 18446744073709551616 is out of range for"
    ):
        sa.asarray([1], dtype=sa.int64) + 2**64
    assert (sa.asarray([1], dtype=sa.int8) + 1).dtype == sa.int8


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32", "int16"])
@pytest.mark.parametrize("exponent", [2, 2.0])
def test_square_exponent_gives_numpy_operators_values_on_both_paths(dtype, exponent):
    # `x ** 2` squares as NumPy's `**` does, complex included (its power loop differs in the
    # last bit there); `z ** 2.0` takes the power loop, as NumPy's. The Python path a C
    # operator hands calls to computes the same (hypothesis found complex64 ** 2 differing).
    if dtype == "int16" and exponent == 2.0:
        return  # a float exponent makes an integer array's result float64: another rule
    ref = (np.arange(1, 9) * (1.37 - 2.3j if dtype.startswith("complex") else 1)).astype(dtype)
    x = sa.asarray(ref)
    want = ref**exponent
    for got in (
        x**exponent,
        vars(sa.Array)["__pow__"].__wrapped__(x, exponent),
        sa.pow(x, exponent),
        sa.pow.__wrapped__(x, exponent),
    ):
        np.testing.assert_array_equal(np.asarray(got), want)

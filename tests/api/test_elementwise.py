"""Element-wise functions: differential against NumPy over random views and every accepted
dtype, category rejections, Python scalars, and the standard's special cases we fix; the
functions in C against the Python functions they replaced (their fallback).

Every oracle here is independent of the package: the NumPy function each standard function is
checked against is named by hand below, and the dtype categories are the standard's, written
out in standard_names.py (docs/dev/testing.md says how a mutation run checks this)."""

from __future__ import annotations

import cmath
import math
import operator
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from outcomes import assert_same_result, quiet_outcome
from standard_names import BINARY_CATEGORY, ELEMENTWISE, UNARY_CATEGORY
from strategies import ALL_DTYPES, dtype_list, fill, numpy_promote, views

import stridedarray as sa
from stridedarray._api import elementwise as _elementwise
from stridedarray._arraytype import NativeUfunc
from stridedarray._base.dtypes import scalar_np, scalar_operand

SETTINGS = settings(max_examples=15, deadline=None)

# The NumPy function that computes each standard function, by hand.
REF_UNARY = {
    "abs": np.absolute,
    "acos": np.arccos,
    "acosh": np.arccosh,
    "asin": np.arcsin,
    "asinh": np.arcsinh,
    "atan": np.arctan,
    "atanh": np.arctanh,
    "bitwise_invert": np.invert,
    "ceil": np.ceil,
    "conj": np.conjugate,
    "cos": np.cos,
    "cosh": np.cosh,
    "exp": np.exp,
    "expm1": np.expm1,
    "floor": np.floor,
    "imag": np.imag,
    "isfinite": np.isfinite,
    "isinf": np.isinf,
    "isnan": np.isnan,
    "log": np.log,
    "log1p": np.log1p,
    "log2": np.log2,
    "log10": np.log10,
    "logical_not": np.logical_not,
    "negative": np.negative,
    "positive": np.positive,
    "real": np.real,
    "reciprocal": np.reciprocal,
    "round": np.round,
    "sign": np.sign,
    "signbit": np.signbit,
    "sin": np.sin,
    "sinh": np.sinh,
    "square": np.square,
    "sqrt": np.sqrt,
    "tan": np.tan,
    "tanh": np.tanh,
    "trunc": np.trunc,
}
REF_BINARY = {
    "add": np.add,
    "atan2": np.arctan2,
    "bitwise_and": np.bitwise_and,
    "bitwise_left_shift": np.left_shift,
    "bitwise_or": np.bitwise_or,
    "bitwise_right_shift": np.right_shift,
    "bitwise_xor": np.bitwise_xor,
    "copysign": np.copysign,
    "divide": np.true_divide,
    "equal": np.equal,
    "floor_divide": np.floor_divide,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
    "hypot": np.hypot,
    "less": np.less,
    "less_equal": np.less_equal,
    "logaddexp": np.logaddexp,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "multiply": np.multiply,
    "nextafter": np.nextafter,
    "not_equal": np.not_equal,
    "pow": np.power,
    "remainder": np.remainder,
    "subtract": np.subtract,
}
CAT_UNARY = UNARY_CATEGORY
CAT_BINARY = BINARY_CATEGORY
DTYPES = ALL_DTYPES


def _category(cat: str) -> list:
    """The dtypes of a category of the standard (by hand, in standard_names)."""
    return dtype_list(cat)


def test_the_reference_tables_cover_the_standard():
    assert set(REF_UNARY) == set(CAT_UNARY) and set(REF_BINARY) == set(CAT_BINARY)
    assert set(REF_UNARY) | set(REF_BINARY) | {"clip"} == ELEMENTWISE


def test_every_2025_12_function_exists():
    missing = [n for n in ELEMENTWISE if not callable(getattr(sa, n, None))]
    assert not missing


def _equal(out: sa.Array, expected: np.ndarray) -> None:
    exp = np.asarray(expected)
    assert out.dtype.np == exp.dtype, (out.dtype, exp.dtype)
    assert out.shape == exp.shape
    if exp.dtype.kind in "fc":
        # NumPy picks SIMD or scalar loops by stride (a length-1 axis has stride 0 in our
        # descriptor, not NumPy's), and those can differ by an ulp in transcendental functions.
        eps = np.finfo(exp.dtype).eps
        np.testing.assert_allclose(np.asarray(out), exp, rtol=4 * eps, atol=0)
    else:
        np.testing.assert_array_equal(np.asarray(out), exp)


@pytest.mark.parametrize("name", sorted(REF_UNARY))
@SETTINGS
@given(data=st.data())
def test_unary_matches_numpy_on_views(name, data):
    dt = data.draw(st.sampled_from(_category(CAT_UNARY[name])))
    pair = data.draw(views(dt))
    before = pair.base_np.copy()
    out = getattr(sa, name)(pair.x)
    with np.errstate(all="ignore"):
        expected = REF_UNARY[name](pair.ref)
    _equal(out, expected)
    np.testing.assert_array_equal(pair.base_np, before)  # input untouched


FLOAT_CATEGORIES = ("floating-point", "real floating")

# Bool arguments NumPy computes although the standard asks for numeric ones (the operator
# tests check the values against NumPy).
BOOL_ARITHMETIC = {"add", "multiply", "divide", "floor_divide", "remainder", "pow", "abs"}


@pytest.mark.parametrize("name", sorted(REF_UNARY))
def test_unary_rejects_other_dtypes(name):
    for dt in DTYPES:
        if dt not in _category(CAT_UNARY[name]):
            if CAT_UNARY[name] in FLOAT_CATEGORIES and dt.kind in "biu":
                continue  # computed in float64 (next test)
            if dt.kind == "b" and name in BOOL_ARITHMETIC:
                continue  # NumPy's answer (tests/api/test_operators.py)
            with pytest.raises(TypeError, match=name):
                getattr(sa, name)(sa.ones(2, dtype=dt))


@pytest.mark.parametrize("name", sorted(REF_BINARY))
def test_binary_rejects_other_dtypes(name):
    cat = CAT_BINARY[name]
    for dt in DTYPES:
        if (
            dt in _category(cat)
            or (cat in FLOAT_CATEGORIES and dt.kind in "biu")
            or (dt.kind == "b" and name in BOOL_ARITHMETIC)
        ):
            continue  # computed (float64 for integers: the test below)
        x = sa.ones(2, dtype=dt)
        for args in ((x, x), (x, sa.ones((), dtype=dt))):
            with pytest.raises(TypeError, match=name):
                getattr(sa, name)(*args)


INT_DTYPES = [d for d in DTYPES if d.kind in "biu"]


@pytest.mark.parametrize("name", sorted(n for n in REF_UNARY if CAT_UNARY[n] in FLOAT_CATEGORIES))
@SETTINGS
@given(data=st.data())
def test_floating_functions_of_integers_compute_in_float64(name, data):
    """NumPy, PyTorch and JAX compute floating functions of integers in floating point; we use
    float64 for every width (NumPy's float16/32 for narrow integers have no dtype here)."""
    pair = data.draw(views(st.sampled_from(INT_DTYPES)))
    out = getattr(sa, name)(pair.x)
    with np.errstate(all="ignore"):
        expected = REF_UNARY[name](pair.ref.astype(np.float64))
    _equal(out, expected)


@pytest.mark.parametrize("name", sorted(n for n in REF_BINARY if CAT_BINARY[n] in FLOAT_CATEGORIES))
@pytest.mark.parametrize("d1", INT_DTYPES, ids=lambda d: d.name)
def test_floating_binary_functions_of_integers_compute_in_float64(name, d1):
    a = np.asarray([0, 1, 3, 1]).astype(d1.np)
    b = np.asarray([1, 2, 0, 1]).astype(np.int16)
    for x1, x2, r1, r2 in (
        (sa.asarray(a), sa.asarray(b), a, b),
        (sa.asarray(a), 2, a, 2),
        (2, sa.asarray(a), 2, a),
    ):
        got = getattr(sa, name)(x1, x2)
        with np.errstate(all="ignore"):
            want = REF_BINARY[name](
                np.asarray(r1, dtype=np.float64), np.asarray(r2, dtype=np.float64)
            )
        _equal(got, want)


def _broadcast_partner(data, shape, dt):
    """A NumPy/Array pair broadcastable against `shape`, as a reversed (negative-stride) view."""
    k = data.draw(st.integers(0, len(shape)))
    tail = shape[len(shape) - k :]
    sh = tuple(1 if data.draw(st.booleans()) else n for n in tail)
    base = fill(dt, sh + (2,), data.draw(st.integers(0, 2**32 - 1)))
    x, ref = sa.asarray(base)[..., 1], base[..., 1]  # step-two strides
    if ref.ndim:
        x, ref = x[::-1], ref[::-1]  # and a negative one
    return x, ref


def _promotable_pair(data, cat):
    allowed = _category(cat)
    d1 = data.draw(st.sampled_from(allowed))
    ok = []
    for d in allowed:
        if numpy_promote(d1, d) in allowed:
            ok.append(d)
    return d1, data.draw(st.sampled_from(ok))


def _nonzero_divisor(name, ref):
    # Integer division by zero and negative integer powers are unspecified by the standard.
    if name in ("divide", "floor_divide", "remainder") and ref.dtype.kind in "iu":
        ref[ref == 0] = 1
    if name == "pow" and ref.dtype.kind in "iu":
        np.abs(ref, out=ref) if ref.dtype.kind == "i" else None
        ref %= 4
    if name.startswith("bitwise_") and name.endswith("shift"):
        np.abs(ref, out=ref) if ref.dtype.kind == "i" else None
        ref %= 8


@pytest.mark.parametrize("name", sorted(REF_BINARY))
@SETTINGS
@given(data=st.data())
def test_binary_matches_numpy_with_broadcasting(name, data):
    d1, d2 = _promotable_pair(data, CAT_BINARY[name])
    pair = data.draw(views(d1))
    y, yref = _broadcast_partner(data, pair.ref.shape, d2)
    _nonzero_divisor(name, yref)
    before = pair.base_np.copy()
    out = getattr(sa, name)(pair.x, y)
    with np.errstate(all="ignore"):
        expected = REF_BINARY[name](pair.ref, yref)
    if name == "divide" and d1.kind in "iu" and d2.kind in "iu":
        expected = expected.astype(np.float64)
    _equal(out, expected)
    np.testing.assert_array_equal(pair.base_np, before)


@pytest.mark.parametrize("name", sorted(REF_BINARY))
@SETTINGS
@given(data=st.data())
def test_binary_with_python_scalars(name, data):
    cat = CAT_BINARY[name]
    dt = data.draw(st.sampled_from(_category(cat)))
    pair = data.draw(views(dt))
    if dt.kind == "b":
        s = data.draw(st.booleans())
    elif dt.kind in "iu":
        s = data.draw(st.integers(1, 3))
    else:
        s = data.draw(st.sampled_from([1, 2.5, -0.5]))
    f = getattr(sa, name)
    with np.errstate(all="ignore"):
        ref_scalar = np.asarray(s, dtype=dt.np)
        _equal(f(pair.x, s), REF_BINARY[name](pair.ref, ref_scalar))
        if not (name == "pow" and dt.kind == "i" and (pair.ref < 0).any()):
            # (integers to negative integer powers are unspecified; NumPy raises ValueError)
            _equal(f(s, pair.x), REF_BINARY[name](ref_scalar, pair.ref))


def test_scalar_rules():
    i8 = sa.asarray([1, 2], dtype=sa.int8)
    f32 = sa.asarray([1.0, 2.0], dtype=sa.float32)
    assert sa.add(i8, 1).dtype is sa.int8
    assert sa.add(f32, 1).dtype is sa.float32
    assert sa.add(f32, 1.5).dtype is sa.float32
    # complex scalar with a real floating array: complex of the same precision
    assert sa.add(f32, 1j).dtype is sa.complex64
    assert sa.add(sa.asarray([1.0]), 1j).dtype is sa.complex128
    with pytest.raises(OverflowError, match="int8"):
        sa.add(i8, 1000)
    # unspecified by the standard: the scalar's kind wins, at its default dtype (NumPy's rule)
    assert sa.add(i8, 1.5).dtype is sa.float64
    assert sa.add(sa.asarray([True]), 1).dtype is sa.int64
    with pytest.raises(TypeError, match="at least one"):
        sa.add(1, 2)
    with pytest.raises(TypeError, match="real floating"):
        sa.atan2(f32, 1j)


def test_mixed_kind_arrays_compute_numpys_answer():
    """Pairs the standard leaves undefined give NumPy's dtype and values (the binary test
    above also draws them for every function)."""
    cases = [
        (sa.int64, sa.float32),
        (sa.uint64, sa.int64),
        (sa.bool, sa.int8),
        (sa.int32, sa.complex64),
        (sa.bool, sa.float64),
    ]
    for d1, d2 in cases:
        a, b = np.arange(1, 4).astype(d1.np), np.asarray([2, 0, 5]).astype(d2.np)
        funcs = [(sa.add, np.add), (sa.equal, np.equal)]
        if d2.kind != "c":
            funcs.append((sa.maximum, np.maximum))
        for f, ref in funcs:
            got, want = f(sa.asarray(a), sa.asarray(b)), ref(a, b)
            assert got.dtype.np == want.dtype, (f, d1, d2)
            np.testing.assert_array_equal(np.asarray(got), want)


@SETTINGS
@given(data=st.data())
def test_clip_matches_numpy(data):
    dt = data.draw(st.sampled_from(dtype_list(["integral", "real floating"])))
    pair = data.draw(views(dt))
    lo = data.draw(st.none() | st.integers(-20, 0))
    hi = data.draw(st.none() | st.integers(1, 20))
    out = sa.clip(pair.x, min=lo, max=hi)
    expected = pair.ref.copy() if lo is None and hi is None else np.clip(pair.ref, lo, hi)
    _equal(out, expected.astype(dt.np))
    # array bounds broadcast and keep x's dtype
    lo_a = sa.zeros(pair.x.shape[-1:], dtype=dt) if pair.x.ndim else sa.zeros((), dtype=dt)
    _equal(sa.clip(pair.x, min=lo_a), np.maximum(pair.ref, np.zeros(lo_a.shape, dt.np)))


def test_clip_integer_bounds_outside_the_dtype_range_are_exact():
    x = sa.asarray([0, 7, 255], dtype=sa.uint8)
    _equal(sa.clip(x, min=-1, max=300), np.asarray([0, 7, 255], np.uint8))
    _equal(sa.clip(x, min=400), np.asarray([255, 255, 255], np.uint8))


def test_clip_rejects_bounds_of_other_dtype():
    with pytest.raises(TypeError, match="min"):
        sa.clip(sa.ones(3, dtype=sa.float32), min=sa.zeros(3, dtype=sa.float64))


INF, NAN = math.inf, math.nan


def _same(a, b):
    """Equal including NaN and the sign of zero."""
    if isinstance(a, complex) or isinstance(b, complex):
        return _same(complex(a).real, complex(b).real) and _same(complex(a).imag, complex(b).imag)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


FLOOR_DIVIDE_CASES = [  # the standard's special cases where NumPy differs
    (INF, 2.0, INF),
    (INF, -2.0, -INF),
    (-INF, 2.0, -INF),
    (-INF, -2.0, INF),
    (1.0, -INF, -0.0),
    (-1.0, INF, -0.0),
    (1.0, INF, 0.0),
    (-1.0, -INF, 0.0),
    (INF, INF, NAN),
    (7.0, 2.0, 3.0),
    (-7.0, 2.0, -4.0),
]


@pytest.mark.parametrize("dt", [sa.float32, sa.float64])
@pytest.mark.parametrize("x1,x2,expected", FLOOR_DIVIDE_CASES)
def test_floor_divide_special_cases(dt, x1, x2, expected):
    a, b = sa.asarray(x1, dtype=dt), sa.asarray(x2, dtype=dt)
    assert _same(float(sa.floor_divide(a, b)), expected)
    assert _same(float(a // b), expected)
    c = sa.asarray([x1], dtype=dt)
    c //= b
    assert _same(float(c[0]), expected)


EXPM1_CASES = [
    (complex(0.0, 0.0), complex(0.0, 0.0)),
    (complex(-0.0, 0.0), complex(0.0, 0.0)),
    (complex(INF, 0.0), complex(INF, 0.0)),
    (complex(-INF, INF), complex(-1.0, 0.0)),
    (complex(INF, INF), complex(INF, NAN)),
    (complex(-INF, NAN), complex(-1.0, 0.0)),
    (complex(INF, NAN), complex(INF, NAN)),
    (complex(NAN, 0.0), complex(NAN, 0.0)),
    (complex(1.0, NAN), complex(NAN, NAN)),
    (complex(NAN, NAN), complex(NAN, NAN)),
]


@pytest.mark.parametrize("dt", [sa.complex64, sa.complex128])
@pytest.mark.parametrize("z,expected", EXPM1_CASES)
def test_complex_expm1_special_cases(dt, z, expected):
    assert _same(complex(sa.expm1(sa.asarray(z, dtype=dt))), expected)


TANH_CASES = [
    (complex(INF, 1.0), complex(1.0, 0.0)),
    (complex(INF, -1.0), complex(1.0, -0.0)),
    (complex(INF, INF), complex(1.0, 0.0)),
    (complex(INF, NAN), complex(1.0, 0.0)),
    (complex(-INF, 2.0), complex(-1.0, 0.0)),
    (complex(0.0, 0.0), complex(0.0, 0.0)),
]


@pytest.mark.parametrize("dt", [sa.complex64, sa.complex128])
@pytest.mark.parametrize("z,expected", TANH_CASES)
def test_complex_tanh_special_cases(dt, z, expected):
    out = complex(sa.tanh(sa.asarray(z, dtype=dt)))
    assert _same(out.real, expected.real)
    assert out.imag == 0  # the sign of this zero is unspecified for infinite imaginary parts


def test_real_imag_return_copies():
    z = sa.asarray([1 + 2j, 3 - 4j])
    r = sa.real(z)
    r[0] = 9.0
    assert complex(z[0]) == 1 + 2j
    x = sa.asarray([1.0, 2.0])
    y = sa.real(x)
    y[0] = 5.0
    assert float(x[0]) == 1.0


SPECIALS = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 0.5, 2.0]
PATCHED = {"expm1", "tanh", "floor_divide"}  # checked against the standard's tables above


def _special_values(dt):
    vals = np.asarray(SPECIALS)
    if dt.kind == "c":
        vals = np.asarray([complex(r, i) for r in SPECIALS for i in SPECIALS])
    return vals.astype(dt.np)


@pytest.mark.parametrize("name", sorted(n for n, c in CAT_UNARY.items() if c == "floating-point"))
@pytest.mark.parametrize("dt", [sa.float32, sa.float64, sa.complex64, sa.complex128])
def test_unary_special_values_match_numpy_outside_the_patched_cases(name, dt):
    vals = _special_values(dt)
    out = np.asarray(getattr(sa, name)(sa.asarray(vals)[::-1]))
    with np.errstate(all="ignore"):
        expected = REF_UNARY[name](vals[::-1])
    if name in PATCHED and dt.kind == "c":
        re = vals[::-1].real
        keep = np.isfinite(re) & (re != 0)  # patches touch only infinite/NaN/zero real parts
        out, expected = out[keep], expected[keep]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dt", [sa.float32, sa.float64])
def test_floor_divide_special_values_with_broadcasting_and_scalars(dt):
    vals = _special_values(dt)
    a, b = vals[:, None], vals[None, :]
    out = np.asarray(sa.floor_divide(sa.asarray(a), sa.asarray(b)))
    with np.errstate(all="ignore"):
        finite = np.isfinite(a) & np.isfinite(b)
        expected = np.where(finite, np.floor_divide(a, b), np.floor(a / b))
    np.testing.assert_array_equal(out, expected)
    for s in (INF, -INF, 2.0):
        sv = dt.np.type(s)
        with np.errstate(all="ignore"):
            ref = np.where(
                np.isinf(vals) | np.isinf(sv), np.floor(vals / sv), np.floor_divide(vals, sv)
            )
        np.testing.assert_array_equal(np.asarray(sa.asarray(vals) // s), ref)


def test_python_floats_beyond_float32_become_inf_without_warnings():
    import warnings

    x = sa.ones(2, dtype=sa.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float((x + 1e300)[0]) == INF
        assert float(sa.clip(x, max=-1e300)[0]) == -INF
        x[0] = 1e300
        assert float(x[0]) == INF
        assert float(sa.full((), 1e300, dtype=sa.float32)) == INF
        assert float(sa.asarray([0.0], dtype=sa.float32)[0] / 0.0) != 0.0  # nan, quietly


# -- operator operand pairs: one conversion (_api/_common.py) behind functions, operators, @= --

_OPERATOR_OF = {
    "add": (operator.add, operator.iadd),
    "subtract": (operator.sub, operator.isub),
    "multiply": (operator.mul, operator.imul),
    "divide": (operator.truediv, operator.itruediv),
    "floor_divide": (operator.floordiv, operator.ifloordiv),
    "remainder": (operator.mod, operator.imod),
    "pow": (operator.pow, operator.ipow),
    "bitwise_and": (operator.and_, operator.iand),
    "bitwise_or": (operator.or_, operator.ior),
    "bitwise_xor": (operator.xor, operator.ixor),
    "bitwise_left_shift": (operator.lshift, operator.ilshift),
    "bitwise_right_shift": (operator.rshift, operator.irshift),
    "less": (operator.lt, None),
    "less_equal": (operator.le, None),
    "greater": (operator.gt, None),
    "greater_equal": (operator.ge, None),
    "equal": (operator.eq, None),
    "not_equal": (operator.ne, None),
}


def _run(f):
    """("ok", result) or ("raised", exception type)."""
    try:
        return "ok", f()
    except Exception as exc:  # the comparison below says which are allowed
        return "raised", type(exc)


def _int_out_of_range(s, r) -> bool:
    """Whether `s` is a Python int outside int64 or outside the integer dtype of array `r`."""
    if type(s) is not int:
        return False
    info = np.iinfo(r.dtype if r.dtype.kind in "iu" else np.int64)
    return not (np.iinfo(np.int64).min <= s <= np.iinfo(np.int64).max) or not (
        info.min <= s <= info.max
    )


def _check_pair(name, x1, x2, r1, r2):
    """x1 op x2 as a function, an operator (x2 reflected when x1 is not an Array) and in
    place, against NumPy on the NumPy operands r1, r2 (Python scalars stay scalars: NumPy's
    weak-scalar rule is the standard's). Where we refuse and NumPy computes, the result's
    dtype must be outside the function's category of the standard."""
    op, iop = _OPERATOR_OF[name]
    allowed_np = [d.np for d in _category(CAT_BINARY[name])]
    forms = {"function": lambda: getattr(sa, name)(x1, x2)}
    if not isinstance(x1, np.generic):  # a NumPy x1's operator is NumPy's own
        forms["operator"] = lambda: op(x1, x2)
    with np.errstate(all="ignore"):
        want = _run(lambda: REF_BINARY[name](r1, r2))
    outcomes = {what: _run(f) for what, f in forms.items()}
    for what, got in outcomes.items():
        where = (name, what, r1, r2)
        if got[0] == "ok":
            assert want[0] == "ok", where
            _equal(got[1], want[1])
        elif want[0] == "ok" and got[1] is OverflowError:
            # refused: a Python int the array's dtype (or int64) cannot hold
            assert _int_out_of_range(r1, r2) or _int_out_of_range(r2, r1), where
        elif want[0] == "ok":
            # refused: the operands' promoted dtype is outside the standard's category
            assert got[1] is TypeError and np.result_type(r1, r2) not in allowed_np, where
    if "operator" in outcomes and not isinstance(x2, np.generic):
        # (beside a NumPy scalar the operator may be NumPy's: see _numpy_dispatch)
        assert outcomes["function"][0] == outcomes["operator"][0], (name, r1, r2)
    if iop is None or not isinstance(x1, sa.Array):
        return
    y = sa.asarray(np.array(r1, copy=True))
    r = np.array(r1, copy=True)
    with np.errstate(all="ignore"):
        iwant = _run(lambda: iop(r, r2))
    got = _run(lambda: iop(y, x2))
    if got[0] == "ok":
        assert got[1] is y and iwant[0] == "ok", (name, "in place", r1, r2)
        _equal(y, r)
    else:
        assert (iwant[0] == "raised" or outcomes["function"][0] == "raised") and got[1] in (
            TypeError,
            ValueError,
            OverflowError,
        ), (name, "in place", r1, r2, got)
        np.testing.assert_array_equal(np.asarray(y), r1)  # left unchanged


def _operand_values(dt, shape):
    """Small nonzero values of `dt` (no division by zero, no negative integer exponents)."""
    return (np.arange(shape and np.prod(shape) or 1).reshape(shape) % 3 + 1).astype(dt.np)


@pytest.mark.parametrize("name", sorted(_OPERATOR_OF))
def test_operator_pairs_of_every_dtype_pair_against_numpy(name):
    """Every pair of the 13 dtypes, for arrays of one shape, a 0-d array beside an array, and
    broadcasting shapes: same dtype pairs are the C operators', the rest the Python path's."""
    for d1 in DTYPES:
        for d2 in DTYPES:
            for s1, s2 in (((3,), (3,)), ((2, 3), ()), ((), (2, 1)), ((2, 1), (3,))):
                r1, r2 = _operand_values(d1, s1), _operand_values(d2, s2)
                _check_pair(name, sa.asarray(r1), sa.asarray(r2), r1, r2)


_SCALARS = [
    True,
    False,
    0,
    1,
    2,
    -1,
    127,
    300,
    2**31,
    2**53 + 1,
    2**63,
    -(2**63) - 1,
    2**70,
    1.5,
    -0.5,
    0.0,
    float("inf"),
    float("nan"),
    3e300,
    2j,
    1.5 - 0.5j,
]


@pytest.mark.parametrize("name", sorted(_OPERATOR_OF))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_operator_pairs_with_scalars_against_numpy(name, data):
    """An array of any dtype beside a Python scalar of every kind (bool, int in and beyond
    the dtype's range and int64's, float, complex), a NumPy scalar of any dtype, or a 0-d
    array, in both orders and in place."""
    dt = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(st.sampled_from([(), (1,), (2, 3)]))
    r = _operand_values(dt, shape)
    x = sa.asarray(r)
    kind = data.draw(st.sampled_from(["python", "numpy scalar", "0-d array"]))
    if kind == "python":
        s = data.draw(st.sampled_from(_SCALARS))
        if name in ("divide", "floor_divide", "remainder") and s == 0 and dt.kind in "biu":
            s = 2  # integer division by zero is unspecified
        if name == "pow" and isinstance(s, int) and s < 0:
            s = 2  # integers to negative integer powers are unspecified
        if name == "floor_divide" and not (cmath.isfinite(s) and abs(s) < 1e38):
            # the standard's special cases differ from NumPy's (tested above); 3e300 is an
            # infinity beside a float32 or complex64 array
            s = 1.5
        other, ref = s, s
    else:
        # (np.float64 and np.complex128 are Python floats and complexes: the draws above)
        d2 = data.draw(st.sampled_from([d for d in DTYPES if d not in (sa.float64, sa.complex128)]))
        ref = _operand_values(d2, ())
        other = sa.asarray(ref) if kind == "0-d array" else ref[()]
        if kind == "numpy scalar":
            ref = ref[()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _check_pair(name, x, other, r, ref)
        _check_pair(name, other, x, ref, r)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_numpy_scalar_results_are_wrapped_in_c(dt):
    """A full reduction's or a 0-d operation's NumPy scalar result becomes a 0-d array in the
    C wrapper: the Python wrapper (for layouts and dtypes C declines) is not reached, and the
    value and dtype are NumPy's."""
    from stridedarray._base import construct as _construct

    reached = []
    wrapper_code = _construct._wrap_py.__code__

    def profile(frame, event, arg):  # C calls the Python wrapper: a Python frame starts
        if event == "call" and frame.f_code is wrapper_code:
            reached.append(frame.f_locals.get("arr"))

    r = _operand_values(dt, (2, 3))
    x, x0 = sa.asarray(r), sa.asarray(r[0, 0])
    sys.setprofile(profile)
    try:
        with np.errstate(all="ignore"):
            got = [sa.max(x) if dt.kind != "c" else sa.sum(x), x0 == x0, sa.equal(x0, x0)]
            want = [r.max() if dt.kind != "c" else r.sum(), r[0, 0] == r[0, 0]]
        if dt.kind in "iufc":
            got.append(sa.sum(x, dtype=dt))
            want.append(np.add.reduce(r, axis=None, dtype=dt.np))
    finally:
        sys.setprofile(None)
    assert reached == []
    sys.setprofile(profile)  # the control: a call of the wrapper is seen
    try:
        _construct._wrap_py(r)
    finally:
        sys.setprofile(None)
    assert len(reached) == 1 and reached[0] is r
    want.insert(2, want[1])
    for g, w in zip(got, want, strict=True):
        assert g.shape == () and isinstance(g, sa.Array)
        _equal(g, np.asarray(w))


_DT = st.sampled_from(
    [
        "bool",
        "int8",
        "uint8",
        "int32",
        "int64",
        "uint64",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    dtype=_DT,
    value=st.one_of(
        st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True)
    ),
)
def test_scalar_operand_gives_the_bits_of_a_0d_array(dtype: str, value: object) -> None:
    dt = getattr(sa, dtype)
    a = np.array([0, 1, 2], dtype=dtype) if dtype != "bool" else np.array([True, False])
    if isinstance(value, bool) != (dtype == "bool"):
        return
    if isinstance(value, float) and dt.kind not in "fc":
        return
    if isinstance(value, int) and dt.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            return
    try:
        ref_operand = scalar_np(value, dt)
    except OverflowError:
        return  # a Python int beyond float range: refused either way
    ours = scalar_operand(value, dt)
    ops = [np.add, np.multiply, np.equal] if dtype != "bool" else [np.logical_and, np.equal]
    for uf in ops:
        with np.errstate(all="ignore"):
            ref, got = uf(a, ref_operand), uf(a, ours)
        assert got.dtype == ref.dtype
        assert got.tobytes() == ref.tobytes()


# -- the functions in C against their Python fallback ------------------------------------------
# The element-wise functions without a special-case fix-up run in C (NativeUfunc), each keeping
# the Python function it replaced as its fallback (`__wrapped__`): the same result or error
# for views of every dtype and Python scalars. These tests reach the array type's C entry
# points, so they carry the markers of the modules that do (tests/conftest.py).

FUNCS = sorted(n for n in _elementwise._FUNCS if isinstance(getattr(sa, n), NativeUfunc))


@pytest.mark.c_core
@pytest.mark.version_sensitive
def test_the_functions_without_fixups_are_in_c():
    assert {"exp", "add", "multiply", "less", "negative", "sqrt"} <= set(FUNCS)
    assert "expm1" not in FUNCS and "floor_divide" not in FUNCS  # special-case fix-ups


@pytest.mark.c_core
@pytest.mark.version_sensitive
@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(ALL_DTYPES).flatmap(lambda d: st.tuples(views(d), views(d))),
    st.sampled_from(FUNCS),
    st.sampled_from([None, 2.5, 3, True]),
)
def test_functions_match_the_python_path(pair, name, scalar):
    p, q = pair
    f = getattr(sa, name)
    n = 1 if name in {r[0] for r in _elementwise._UNARY} else 2
    args = (p.x,) if n == 1 else (p.x, q.x if scalar is None else scalar)
    assert_same_result(quiet_outcome(lambda: f(*args)), quiet_outcome(lambda: f.__wrapped__(*args)))

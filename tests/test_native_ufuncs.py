"""The operators in C (csrc/arraytype/operators.c) against NumPy: every operator, every dtype,
operands that are views of views (negative, step, zero strides, broadcast, 0-d, empty), Python
scalars on both sides; no floating-point warning leaks; anything the C path does not take
gives the Python path's answer and error."""

from __future__ import annotations

import contextvars
import operator
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from outcomes import assert_same_descriptor
from strategies import ALL_DTYPES, views

import stridedarray as sa
from stridedarray import _elementwise, _fpe
from stridedarray._arraytype import NativeUfunc, _quiet_call

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

BINARY = {
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
UNARY = {"neg": operator.neg, "pos": operator.pos, "abs": operator.abs, "invert": operator.invert}


def _outcome(f):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a leaked floating-point warning fails the test
        try:
            r = f()
        except Exception as e:  # noqa: BLE001 - the exception type is compared
            return ("raises", type(e))
    return ("ok", r)


def _python_path(stem: str):
    """The Python operator a NativeUfunc replaced (its fallback), or the operator itself."""
    op = vars(sa.Array)[f"__{stem}__"]
    return op.__wrapped__ if isinstance(op, NativeUfunc) else op


def _same(a, b) -> None:
    assert a[0] == b[0], (a, b)
    if a[0] == "raises":
        assert a[1] is b[1], (a, b)
        return
    x, y = a[1], b[1]
    assert x.dtype == y.dtype and x.shape == y.shape
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


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
    st.sampled_from(ALL_DTYPES).flatmap(lambda d: st.tuples(views(d), views(d))),
    st.sampled_from(sorted(BINARY)),
)
def test_binary_operators_match_the_python_path_and_numpy(pair, stem):
    p, q = pair
    fast = _outcome(lambda: BINARY[stem](p.x, q.x))
    slow = _outcome(lambda: _python_path(stem)(p.x, q.x))
    _same(fast, slow)  # the C path gives exactly the Python path's result or error
    if fast[0] == "ok":
        with np.errstate(all="ignore"):
            ref = BINARY[stem](p.ref, q.ref)
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
    views(st.sampled_from(ALL_DTYPES)),
    st.sampled_from(sorted(BINARY)),
    st.sampled_from(SCALARS),
    st.booleans(),
)
def test_scalar_operands_match_the_python_path(p, stem, s, reflected):
    if reflected:
        if stem in ("lt", "le", "gt", "ge", "eq", "ne"):
            return  # Python reflects comparisons into the other comparison
        name = f"__r{stem}__"
        fast = _outcome(lambda: getattr(p.x, name)(s))
        op = vars(sa.Array)[name]
        py = op.__wrapped__ if isinstance(op, NativeUfunc) else op
        slow = _outcome(lambda: py(p.x, s))
    else:
        fast = _outcome(lambda: BINARY[stem](p.x, s))
        slow = _outcome(lambda: _python_path(stem)(p.x, s))
    if fast[0] == "ok" and fast[1] is NotImplemented:
        assert slow == fast
        return
    _same(fast, slow)


@settings(max_examples=300, deadline=None)
@given(views(st.sampled_from(ALL_DTYPES)), st.sampled_from(sorted(UNARY)))
def test_unary_operators_match_the_python_path_and_numpy(p, stem):
    fast = _outcome(lambda: UNARY[stem](p.x))
    slow = _outcome(lambda: _python_path(stem)(p.x))
    _same(fast, slow)
    if fast[0] == "ok":
        with np.errstate(all="ignore"):
            ref = UNARY[stem](p.ref)
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


def test_the_quiet_state_is_restored_after_an_error():
    before = np.geterr()
    x = sa.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(np.asarray(x / 0.0)[0])
        with pytest.raises(ValueError, match="extents must be equal or 1, aligned from the right"):
            x / sa.ones(2)
    assert np.geterr() == before
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            np.ones(1) / 0.0  # the user's own state still applies outside our calls
        np.asarray(x / 0.0)  # and ours stays quiet inside it


def test_the_quiet_state_keeps_the_users_other_settings_and_context():
    # The quiet state is made from the user's: only the warnings change, and the caller's own
    # context variables are untouched by the prepared context the ufunc runs in.
    var: contextvars.ContextVar[str] = contextvars.ContextVar("user", default="outer")
    token = var.set("mine")
    x = sa.asarray([1.0, -1.0, 0.0])
    with np.errstate(divide="raise", over="warn"), np.errstate(invalid="raise"):
        setting = np.geterr()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(3):  # the first call prepares the context, the rest reuse it
                r = np.asarray(x / 0.0)
                assert np.array_equal(r, [np.inf, -np.inf, np.nan], equal_nan=True)
                assert np.isnan(np.asarray(sa.log(x))[1])
                assert np.asarray(sa.sum(sa.asarray([1e308, 1e308]))) == np.inf
        assert np.geterr() == setting
        assert var.get() == "mine"
        with pytest.raises(FloatingPointError):
            np.ones(1) / 0.0
    var.reset(token)


def test_the_quiet_state_under_threads():
    # A ufunc over a large array releases the GIL, so two threads can be inside the prepared
    # context's call at once: the second takes the set-and-reset way. Every call stays quiet
    # and right, and every thread's own error state is its own afterwards.
    n = 2_000_000  # large enough that the threads overlap inside the ufunc (measured)
    x = sa.asarray(np.linspace(-1.0, 1.0, n))
    zero = sa.zeros(n)
    with np.errstate(all="ignore"):
        expected = np.linspace(-1.0, 1.0, n) / np.zeros(n)
    failures: list[BaseException] = []

    def work(raise_outside: bool) -> None:
        try:
            for _ in range(8):  # one outer state, so one prepared context for all threads
                assert np.array_equal(np.asarray(x / zero), expected, equal_nan=True)
                assert np.array_equal(np.asarray(x / 0.0), expected, equal_nan=True)
                assert np.isnan(np.asarray(sa.sum(x / zero)))
            with np.errstate(divide="raise" if raise_outside else "warn"):
                assert np.array_equal(np.asarray(x / zero), expected, equal_nan=True)
                with pytest.raises(FloatingPointError if raise_outside else RuntimeWarning):
                    np.ones(1) / 0.0
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            failures.append(e)

    # The warning filters are process-wide: set once here, not per thread.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        threads = [threading.Thread(target=work, args=(k % 2 == 0,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []


def test_quiet_call_runs_a_ufunc_method_quietly_and_passes_keywords():
    a = np.array([[1e308, 1.0], [1e308, -1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = _fpe.call(np.add.reduce, a, axis=0, keepdims=True)
        assert r.shape == (1, 2) and r[0, 0] == np.inf
        assert np.isnan(_fpe.call(np.divide, 0.0, np.zeros(1))[0])
    with pytest.raises(TypeError):
        _fpe.call(np.add.reduce, a, bogus=1)
    with pytest.raises(TypeError, match="needs f"):
        _quiet_call()


FUNCS = sorted(n for n in _elementwise._FUNCS if isinstance(getattr(sa, n), NativeUfunc))


def test_the_functions_without_fixups_are_in_c():
    assert {"exp", "add", "multiply", "less", "negative", "sqrt"} <= set(FUNCS)
    assert "expm1" not in FUNCS and "floor_divide" not in FUNCS  # special-case fix-ups


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
    _same(_outcome(lambda: f(*args)), _outcome(lambda: f.__wrapped__(*args)))


@pytest.mark.parametrize(
    "shape",
    [
        (),
        0,
        3,
        (2, 3),
        (0, 5),
        (1,) * 64,
        (1,) * 65,
        (-1,),
        (2**62, 2**62),
        (True,),
        2.0,
        [2, 3],
        (np.int64(2),),
    ],
)
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_zeros_ones_and_empty_in_c_match_the_python_path(name, shape):
    f = getattr(sa, name)
    assert type(f).__name__ == "NativeFunction"
    fast, slow = _outcome(lambda: f(shape)), _outcome(lambda: f.__wrapped__(shape))
    assert fast[0] == slow[0] and (fast[0] == "ok" or fast[1] is slow[1])
    if fast[0] == "ok":
        a, b = fast[1], slow[1]
        assert (a.shape, a.strides, a.dtype, a.readonly) == (b.shape, b.strides, b.dtype, False)
        if name != "empty":
            assert np.array_equal(np.asarray(a), np.asarray(b))
            assert np.all(np.asarray(a) == (0.0 if name == "zeros" else 1.0))


@pytest.mark.parametrize(
    "obj",
    [
        np.arange(6.0).reshape(2, 3),
        np.arange(6)[::-1],
        np.zeros(3, np.float16),
        np.zeros(0),
        np.asarray(3.5),
        np.arange(4, dtype=">i4"),
        np.frombuffer(bytes(8), np.float64),
        [1, 2],
        np.arange(4, dtype=np.longlong),
        np.broadcast_to(np.ones(1), (3,)),
    ],
)
def test_asarray_in_c_matches_the_python_path(obj):
    fast, slow = _outcome(lambda: sa.asarray(obj)), _outcome(lambda: sa.asarray.__wrapped__(obj))
    assert fast[0] == slow[0] and (fast[0] == "ok" or fast[1] is slow[1])
    if fast[0] == "ok":
        a, b = fast[1], slow[1]
        assert_same_descriptor(a, b)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        if isinstance(obj, np.ndarray) and obj.flags.c_contiguous and obj.dtype.isnative:
            assert np.shares_memory(np.asarray(a), obj) or obj.size == 0


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

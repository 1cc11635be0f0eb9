"""Temporary elision (csrc/arraytype/elide.c): an operator whose first operand is a large
floating temporary that nothing else can see writes its result into that operand's memory.
Only CPython 3.14+ can say that an object is such a temporary; before it nothing is elided.
The results must equal NumPy's in every case, and no array anyone can still see (a named
array, a view, a NumPy view, a memoryview, an argument C code holds) may change."""

from __future__ import annotations

import collections
import functools
import itertools
import operator
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridedarray as sa
from stridedarray._arraytype import NativeUfunc, _elided, _elision_available

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

N = 256 * 1024 // 8 + 8  # float64 elements just above the 256 KiB threshold
# How many elisions an operation on a temporary makes: none where the interpreter cannot say
# what a temporary is (CPython < 3.14).
ELIDED = 1 if _elision_available() else 0
needs_elision = pytest.mark.skipif(
    not _elision_available(),
    reason="CPython < 3.14 cannot tell a temporary operand: nothing is elided (docs/array.md)",
)
RNG = np.random.default_rng(0)
X_NP = RNG.random((8, N // 8 + 1)) + 0.5
X = sa.asarray(X_NP)


def _elisions(f):
    """(f's result, how many operations f elided)."""
    before = _elided()
    r = f()
    return r, _elided() - before


def _standardize(a, m, s):
    return (a - m) / s


@needs_elision
def test_a_chained_temporary_in_a_function_takes_the_result():
    s_np = RNG.random(X_NP.shape[1]) + 0.5
    s = sa.asarray(s_np)
    r, n = _elisions(lambda: _standardize(X, 1.0, s))
    assert n == 1
    np.testing.assert_array_equal(np.asarray(r), (X_NP - 1.0) / s_np)
    np.testing.assert_array_equal(np.asarray(X), X_NP)  # the named operand is untouched


def test_a_chained_temporary_gives_numpy_s_result():
    s_np = RNG.random(X_NP.shape[1]) + 0.5
    s = sa.asarray(s_np)
    r, n = _elisions(lambda: (X - 1.0) / s)
    assert n == ELIDED
    np.testing.assert_array_equal(np.asarray(r), (X_NP - 1.0) / s_np)
    np.testing.assert_array_equal(np.asarray(X), X_NP)


def test_a_reflected_operator_uses_its_own_temporary():
    r, n = _elisions(lambda: -2.0 * (X + 0.0))
    assert n == ELIDED
    np.testing.assert_array_equal(np.asarray(r), -2.0 * (X_NP + 0.0))


def test_builtin_sum_does_not_reuse_its_running_total():
    # sum() holds the total in C, not on the interpreter's stack: no rule here can tell it
    # from C code that goes on using the value it adds to.
    r, n = _elisions(lambda: sum([X, X, X]))
    assert n == 0
    np.testing.assert_array_equal(np.asarray(r), X_NP + X_NP + X_NP)
    np.testing.assert_array_equal(np.asarray(X), X_NP)


M = 100_000  # float64 elements: 800 KB, well above the threshold


def _ones():
    return sa.ones(M) * 1.0  # a fresh array referenced once


def _unchanged(a, value=1.0):
    np.testing.assert_array_equal(np.asarray(a), np.full(M, value))


def test_a_named_local_is_not_a_temporary():
    def f():
        t = sa.ones(M) * 1.0
        u = t * 2.0
        return t, u

    t, u = f()
    _unchanged(t)
    np.testing.assert_array_equal(np.asarray(u), np.ones(M) * 2.0)


def test_an_argument_stored_in_a_partial_is_not_a_temporary():
    p = functools.partial(operator.add, _ones())
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(p(1.0)), np.ones(M) + 1.0)
    _unchanged(p.args[0])


def test_an_operand_held_by_a_tuple_is_not_a_temporary():
    pair = (_ones(), 1.0)
    np.testing.assert_array_equal(np.asarray(operator.add(*pair)), np.ones(M) + 1.0)
    _unchanged(pair[0])
    pairs = [(_ones(), 3.0), (_ones(), 5.0)]
    got = list(itertools.starmap(operator.mul, pairs))
    for (a, k), r in zip(pairs, got, strict=True):
        _unchanged(a)
        np.testing.assert_array_equal(np.asarray(r), np.ones(M) * k)


def test_the_self_of_a_bound_method_is_not_a_temporary():
    got = list(map((sa.ones(M) * 2.0).__mul__, [3.0, 5.0]))
    for r, k in zip(got, [3.0, 5.0], strict=True):
        np.testing.assert_array_equal(np.asarray(r), np.full(M, 2.0) * k)


def test_an_operand_with_a_weak_reference_is_not_a_temporary():
    d: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    def registered(a):
        d["k"] = a
        return a

    r = registered(_ones()) * 2.0
    np.testing.assert_array_equal(np.asarray(r), np.ones(M) * 2.0)
    if "k" in d:  # still alive only if the product is the registered array itself
        _unchanged(d["k"])


def test_an_operand_dropped_during_the_call_stays_alive_until_it_returns(monkeypatch):
    # Counter.update adds 1 to a dict value it holds borrowed. Code that runs during the
    # addition (a gc callback, or another thread while NumPy's loop has released the GIL) and
    # deletes the value drops its last reference, and a new array made there may take its
    # memory: the addition must still return the sum. The deletion is made to happen inside
    # the operator, deterministically: under an error state not seen before, the operator's
    # quiet floating-point call learns the quiet state (csrc/arraytype/fpe.h, quiet_state ->
    # _fpe._learn -> _fpe._quiet_of), after it took its operands and before the ufunc runs.
    from stridedarray._base import fpe as _fpe

    learn = _fpe._quiet_of
    for _ in range(3):
        c = collections.Counter({"k": sa.ones(N) * 1.0})
        alive = weakref.ref(c["k"])
        state: dict = {"made": None, "inside": False}

        def drop(outer, c=c, state=state):
            if state["inside"] and "k" in c:
                del c["k"]  # the dict's reference was the only one outside the operator
                state["made"] = sa.zeros(3)  # may take the freed array's memory
            return learn(outer)

        monkeypatch.setattr(_fpe, "_quiet_of", drop)
        with np.errstate(over="warn", under="ignore", invalid="warn", divide="warn"):
            state["inside"] = True
            c.update(["k"])
            state["inside"] = False
        monkeypatch.setattr(_fpe, "_quiet_of", learn)
        assert state["made"] is not None  # the value was deleted during the addition
        assert alive() is None or alive() is c["k"]  # dropped (or it is the elided result)
        np.testing.assert_array_equal(np.asarray(state["made"]), np.zeros(3))
        np.testing.assert_array_equal(np.asarray(c["k"]), np.ones(N) + 1)


def test_arrays_someone_can_see_are_never_written():
    t = X + 1.0
    held = np.asarray(X + 1.0)
    kept: list = []

    def numpy_view_of(a):
        kept.append(np.asarray(a))
        return a

    def view_of(a):
        kept.append(a[::2])
        return a

    def memoryview_of(a):
        kept.append(memoryview(a))
        return a

    cases = [
        lambda: t * 2.0,  # named
        lambda: numpy_view_of(X + 1.0) * 2.0,  # a NumPy view handed out
        lambda: view_of(X + 1.0) * 2.0,  # a view of it made
        lambda: memoryview_of(X + 1.0) * 2.0,  # exported through the buffer protocol
        lambda: sa.multiply(X + 1.0, 2.0),  # a function call, not an operator
        lambda: (X[:, ::-1] + 1.0)[:, ::-1] * 2.0,  # a view of a temporary, not the temporary
    ]
    for f in cases:
        r, n = _elisions(f)
        assert n == 0
        np.testing.assert_array_equal(np.asarray(r), (X_NP + 1.0) * 2.0)
    np.testing.assert_array_equal(np.asarray(t), X_NP + 1.0)
    np.testing.assert_array_equal(held, X_NP + 1.0)
    for k in kept:
        want = (X_NP + 1.0)[::2] if isinstance(k, sa.Array) else X_NP + 1.0
        np.testing.assert_array_equal(np.asarray(k), want)


def test_small_integer_bool_and_growing_results_are_not_elided():
    small = sa.asarray(X_NP[:1, :100])
    ints = sa.asarray((X_NP * 100).astype(np.int64))
    row = sa.asarray(X_NP[:1])
    for f, want in [
        (lambda: (small + 1.0) * 2.0, (X_NP[:1, :100] + 1.0) * 2.0),
        (lambda: (ints + 1) * 2, ((X_NP * 100).astype(np.int64) + 1) * 2),
        (lambda: (row + 0.0) * X, (X_NP[:1] + 0.0) * X_NP),  # the temporary would have to grow
        (lambda: (X > 1.0) & (X < 1.2), (X_NP > 1.0) & (X_NP < 1.2)),
    ]:
        r, n = _elisions(f)
        assert n == 0
        np.testing.assert_array_equal(np.asarray(r), want)


OPERATORS = [
    operator.add,
    operator.sub,
    operator.mul,
    operator.truediv,
    operator.floordiv,
    operator.mod,
    operator.pow,
]


@settings(max_examples=60, deadline=None)
@given(
    op=st.sampled_from(OPERATORS),
    dtype=st.sampled_from(["float32", "float64", "complex64", "complex128"]),
    other=st.sampled_from(["same", "row", "column", "scalar", "reflected"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_elided_results_equal_numpy(op, dtype, other, seed):
    if dtype.startswith("complex") and op in (operator.floordiv, operator.mod):
        return  # not defined for complex
    rng = np.random.default_rng(seed)
    shape = (16, 4200)  # 67,200 elements: above the threshold for every dtype here
    a_np = (rng.random(shape) + 0.5).astype(dtype)
    a = sa.asarray(a_np)
    if other == "same":
        b_np = (rng.random(shape) + 0.5).astype(dtype)
    elif other == "row":
        b_np = (rng.random(shape[1:]) + 0.5).astype(dtype)
    elif other == "column":
        b_np = (rng.random((shape[0], 1)) + 0.5).astype(dtype)
    else:
        b_np = None
    scalar = 1.5
    with np.errstate(all="ignore"):
        t_np = a_np + a_np.dtype.type(0)
        if other == "reflected":
            want = op(scalar, t_np)
            r, n = _elisions(lambda: op(scalar, a + 0.0))
        elif b_np is None:
            want = op(t_np, scalar)
            r, n = _elisions(lambda: op(a + 0.0, scalar))
        else:
            b = sa.asarray(b_np)
            want = op(t_np, b_np)
            r, n = _elisions(lambda: op(a + 0.0, b))
    dunder = f"__{'r' if other == 'reflected' else ''}{op.__name__.strip('_')}__"
    # The C operators take two arrays of one dtype, or a Python float such as 1.5 with a
    # floating or complex array of any width (csrc/arraytype/operators.c): every operand pair
    # here. Operators with special-case fix-ups run in Python, which does not elide.
    in_c = isinstance(getattr(sa.Array, dunder), NativeUfunc)
    assert n == (ELIDED if in_c else 0)
    assert r.dtype.np == want.dtype and r.shape == want.shape
    np.testing.assert_array_equal(np.asarray(r), want)
    np.testing.assert_array_equal(np.asarray(a), a_np)


@pytest.mark.parametrize("op", [operator.truediv, operator.pow])
def test_a_floating_point_error_in_an_elided_operation_stays_quiet(op):
    import warnings

    z = sa.zeros(X.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r, n = _elisions(lambda: op(X - X, z) if op is operator.truediv else op(X * 1e200, 2.0))
    assert n == ELIDED
    assert not np.isfinite(np.asarray(r)).all()

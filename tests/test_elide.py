"""Temporary elision (csrc/arraytype/elide.c): an operator whose first operand is a large
floating temporary that nothing else can see writes its result into that operand's memory.
The results must equal NumPy's in every case, and no array anyone can still see (a named
array, a view, a NumPy view, a memoryview) may change."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridedarray as sa
from stridedarray._arraytype import FastOp, _elided

N = 256 * 1024 // 8 + 8  # float64 elements just above the 256 KiB threshold
RNG = np.random.default_rng(0)
X_NP = RNG.random((8, N // 8 + 1)) + 0.5
X = sa.asarray(X_NP)


def _elisions(f):
    """(f's result, how many operations f elided)."""
    before = _elided()
    r = f()
    return r, _elided() - before


def test_a_chained_temporary_takes_the_result():
    s_np = RNG.random(X_NP.shape[1]) + 0.5
    s = sa.asarray(s_np)
    r, n = _elisions(lambda: (X - 1.0) / s)
    assert n == 1
    np.testing.assert_array_equal(np.asarray(r), (X_NP - 1.0) / s_np)
    np.testing.assert_array_equal(np.asarray(X), X_NP)  # the named operand is untouched


def test_a_reflected_operator_uses_its_own_temporary():
    r, n = _elisions(lambda: -2.0 * (X + 0.0))
    assert n == 1
    np.testing.assert_array_equal(np.asarray(r), -2.0 * (X_NP + 0.0))


def test_builtin_sum_reuses_its_running_total():
    r, n = _elisions(lambda: sum([X, X, X]))
    assert n == 2  # 0 + X makes the total; the two additions after it reuse it
    np.testing.assert_array_equal(np.asarray(r), X_NP + X_NP + X_NP)


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
    # The C operators take two arrays of one dtype, or a Python scalar with a float64 or
    # complex128 array (csrc/arraytype/fastops.c); operators with special-case fix-ups and
    # other operands run in Python, which does not elide.
    in_c = isinstance(getattr(sa.Array, dunder), FastOp) and (
        other in ("same", "row", "column") or dtype in ("float64", "complex128")
    )
    assert n == (1 if in_c else 0)
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
    assert n == 1
    assert not np.isfinite(np.asarray(r)).all()

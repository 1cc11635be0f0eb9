"""`x @ y` and `matmul` in C (csrc/arraytype/matmul.c) against NumPy and against the Python
functions they replaced (their fallback): the same results for random shapes (batch
broadcasting, 0-size, 1-d operands) and views (negative, step-two, transposed, zero strides)
of every numeric dtype; the same exception type and message for every call the C path leaves
to Python; the policy steers the C path (a forced route, the GIL threshold)."""

from __future__ import annotations

import inspect
import pydoc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALL_DTYPES, NUMERIC_DTYPES, fill, views
from test_matmul import check, matmul_case
from test_threads import _GIL_PROOF, CONTROL_ATTEMPTS, _spinner_counts

import stridedarray as sa
from stridedarray import _diagnostics
from stridedarray._arraytype import NativeMatmul
from stridedarray._policy import BACKENDS

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means

OPERATOR = vars(sa.Array)["__matmul__"]


def _outcome(f):
    """("ok", result) or ("raises", type, message): what a call gives, to compare two paths."""
    try:
        return ("ok", f())
    except Exception as e:  # noqa: BLE001 - the exception type and message are compared
        return ("raises", type(e), str(e))


def _same(fast, slow) -> None:
    """The C path's outcome is the Python path's: the same error, or the same array bit for
    bit (both run the same C core with the same policy)."""
    assert fast[0] == slow[0], (fast, slow)
    if fast[0] == "raises":
        assert fast[1:] == slow[1:]
        return
    x, y = fast[1], slow[1]
    if x is NotImplemented or y is NotImplemented:
        assert x is y
        return
    assert type(x) is sa.Array and x.dtype == y.dtype and x.shape == y.shape
    assert x.is_c_contiguous and not x.readonly
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def _both(x1, x2) -> None:
    """The function and the operator, each against its fallback."""
    _same(_outcome(lambda: sa.matmul(x1, x2)), _outcome(lambda: sa.matmul.__wrapped__(x1, x2)))
    _same(_outcome(lambda: OPERATOR(x1, x2)), _outcome(lambda: OPERATOR.__wrapped__(x1, x2)))


def test_matmul_and_the_operator_are_in_c():
    assert isinstance(sa.matmul, NativeMatmul) and isinstance(OPERATOR, NativeMatmul)
    # __rmatmul__ and __imatmul__ keep their Python functions (which call the C matmul)
    assert inspect.isfunction(vars(sa.Array)["__rmatmul__"])
    assert inspect.isfunction(vars(sa.Array)["__imatmul__"])
    assert sa.matmul.__name__ == "matmul" and OPERATOR.__name__ == "__matmul__"
    assert sa.matmul.__doc__ == sa.matmul.__wrapped__.__doc__
    assert "Matrix product per the Array API" in pydoc.render_doc(sa.matmul)
    assert str(inspect.signature(sa.matmul)) == str(inspect.signature(sa.matmul.__wrapped__))
    assert "/)" in str(inspect.signature(sa.matmul))  # positional-only, as the fallback


@settings(max_examples=300, deadline=None)
@given(matmul_case())
def test_random_roles_layouts_and_batches_match_numpy_and_the_python_path(case):
    x1, r1, x2, r2 = case
    got = x1 @ x2
    check(got, r1 @ r2, r1, r2, (r1.shape, r1.strides, r2.shape, r2.strides))
    check(sa.matmul(x1, x2), r1 @ r2, r1, r2)
    _both(x1, x2)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_random_view_chains_match_numpy_and_the_python_path(data):
    """Both operands from the random view chains (flips, steps, transposes, broadcast_to with
    zero strides, reshape views, 0-size), their contracted axis made to agree."""
    dt = data.draw(st.sampled_from(NUMERIC_DTYPES))
    p = data.draw(views(dt, max_dims=4, max_side=4))
    q = data.draw(views(dt, max_dims=4, max_side=4))
    if p.ref.ndim == 0 or q.ref.ndim == 0:
        return
    k = p.ref.shape[-1]
    qk = 0 if q.ref.ndim == 1 else q.ref.ndim - 2
    if q.ref.shape[qk] != k:  # take a slice of q's contracted axis of p's length, if it can
        if q.ref.shape[qk] < k:
            return
        key = (slice(None),) * qk + (slice(0, k),)
        x2, r2 = q.x[key], q.ref[key]
    else:
        x2, r2 = q.x, q.ref
    try:
        want = np.matmul(p.ref, r2)
    except ValueError:  # the batch shapes do not broadcast: both paths raise the same error
        _both(p.x, x2)
        return
    check(p.x @ x2, want, p.ref, r2, (p.ops, q.ops))
    _both(p.x, x2)


SHAPES = st.lists(st.integers(0, 3), min_size=0, max_size=4).map(tuple)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(ALL_DTYPES), st.sampled_from(ALL_DTYPES), SHAPES, SHAPES)
def test_any_shapes_and_dtypes_give_the_python_paths_result_or_error(d1, d2, s1, s2):
    """Random shape pairs (most do not multiply: 0-d operands, contracted lengths that differ,
    batch shapes that do not broadcast) and dtype pairs (bool, mixed): the C path gives what
    the Python functions give, the message included."""
    x1 = sa.asarray(fill(d1, s1, 1))
    x2 = sa.asarray(fill(d2, s2, 2))
    _both(x1, x2)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=lambda d: d.name)
def test_every_dtype_exactly_or_within_tolerance(dtype):
    wide = dtype.kind in "iu"  # integers over their whole range: products wrap as NumPy's
    r1, r2 = fill(dtype, (2, 3, 5), 3, full_range=wide), fill(dtype, (5, 4), 4, full_range=wide)
    with np.errstate(over="ignore"):
        want = r1 @ r2
    check(sa.asarray(r1) @ sa.asarray(r2), want, r1, r2, dtype.name)
    pairs = (((5,), (5,)), ((5,), (5, 4)), ((3, 5), (5,)), ((0, 5), (5, 0)), ((3, 0), (0, 4)))
    for s1, s2 in pairs:
        a, b = fill(dtype, s1, 5), fill(dtype, s2, 6)
        check(sa.matmul(sa.asarray(a), sa.asarray(b)), a @ b, a, b, (s1, s2))


class _Reflected:
    def __rmatmul__(self, other):
        return "reflected"


class _OptsOut:
    __array_ufunc__ = None


OTHERS = [
    np.ones((3, 3)),
    np.ones((3, 3), dtype=np.int8),
    np.float64(2.0),
    [[1.0, 2.0, 3.0]] * 3,
    2.0,
    3,
    None,
    "3",
    _Reflected(),
    _OptsOut(),
]


@pytest.mark.parametrize("other", OTHERS, ids=lambda o: type(o).__name__)
def test_other_operands_keep_the_python_rules(other):
    """NumPy operands, scalars and objects that defer: NotImplemented from the operator and
    TypeError from the function, exactly as the Python path, in both orders."""
    x = sa.ones((3, 3))
    _both(x, other)
    _same(_outcome(lambda: sa.matmul(other, x)), _outcome(lambda: sa.matmul.__wrapped__(other, x)))


def test_keywords_and_argument_counts_take_the_python_path():
    x = sa.ones((2, 2))
    for args, kwargs in (((), {"x1": x, "x2": x}), ((x,), {}), ((x, x, x), {}), ((), {})):
        _same(
            _outcome(lambda: sa.matmul(*args, **kwargs)),  # noqa: B023 - called at once
            _outcome(lambda: sa.matmul.__wrapped__(*args, **kwargs)),  # noqa: B023
        )


_O8 = sa.ones((1, 1), dtype=sa.int8)
EXTREME = {
    # the C core refuses: 2*M*N*K does not fit 64 bits (its code goes to _raise)
    "work overflows": (_O8._view((1, 2**62), (0, 0), 0), _O8._view((2**62, 1), (0, 0), 0)),
    # the output's byte size does not fit (Python's check_size says so)
    "output too large": (_O8._view((2**40, 1), (0, 0), 0), _O8._view((1, 2**40), (0, 0), 0)),
    "batch too large": (_O8._view((2**62, 2, 1, 1), (0,) * 4, 0), _O8._view((1, 1), (0, 0), 0)),
    # an extent beyond int64 (no C descriptor)
    "extent beyond int64": (_O8._view((2**64, 1), (0, 0), 0), _O8._view((1, 1), (0, 0), 0)),
    "empty output too large": (
        _O8._view((2**62, 0, 3), (0, 0, 0), 0),
        _O8._view((2**62, 3, 2), (0, 0, 0), 0),
    ),
    # an empty output whose other extents are huge but fit: computed (nothing to write)
    "empty with a huge batch": (
        _O8._view((2**61, 0, 3), (0, 0, 0), 0),
        _O8._view((1, 3, 2), (0, 0, 0), 0),
    ),
}


@pytest.mark.parametrize("name", sorted(EXTREME))
def test_extreme_sizes_give_the_python_paths_error(name):
    x1, x2 = EXTREME[name]
    fast, slow = _outcome(lambda: x1 @ x2), _outcome(lambda: sa.matmul.__wrapped__(x1, x2))
    _same(fast, slow)
    assert fast[0] == "ok" if name.startswith("empty with") else fast[1] is ValueError


def test_out_of_memory_in_the_core_gives_the_python_paths_error():
    """An allocation of the C core that fails (a pack, here) reaches _raise: MemoryError."""
    x1 = sa.asarray(np.ones((1, 40, 40)))[..., ::-1]
    x2 = sa.ones((4, 40, 40))
    with sa.matmul_policy(force="pack_blas"):
        with _diagnostics.fail_c_alloc_after(0):
            fast = _outcome(lambda: x1 @ x2)
        with _diagnostics.fail_c_alloc_after(0):
            slow = _outcome(lambda: sa.matmul.__wrapped__(x1, x2))
    assert fast[1] is MemoryError
    _same(fast, slow)


@pytest.mark.parametrize("force", BACKENDS)
def test_a_forced_route_is_honoured(force):
    """Under matmul_policy(force=...) the C path runs the route the plan names: pack-once BLAS
    copies the reversed operand (one pack allocation), the others copy nothing; and the
    result is the Python path's, bit for bit, under the same policy."""
    rng = np.random.default_rng(7)
    x1 = sa.asarray(rng.standard_normal((1, 40, 40)))[..., ::-1]
    x2 = sa.asarray(rng.standard_normal((4, 40, 40)))
    with sa.matmul_policy(force=force):
        route = sa.matmul_explain(x1, x2)["route"]
        before = _diagnostics.c_alloc_stats()["pack"]["allocations"]
        got = x1 @ x2
        packs = _diagnostics.c_alloc_stats()["pack"]["allocations"] - before
        slow = sa.matmul.__wrapped__(x1, x2)
    assert route == ("generic" if force == "blas" else force)  # BLAS declines the layout
    assert packs == (1 if route == "pack_blas" else 0)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(slow))
    np.testing.assert_allclose(np.asarray(got), np.asarray(x1) @ np.asarray(x2), rtol=1e-12)


def test_the_policy_of_a_block_is_read_per_call():
    """Policies that change from call to call (a new struct per block) are each honoured."""
    rng = np.random.default_rng(8)
    x1 = sa.asarray(rng.standard_normal((1, 40, 40)))[..., ::-1]
    x2 = sa.asarray(rng.standard_normal((4, 40, 40)))
    for force in ("pack_blas", "generic", "pack_blas", None, "pack_blas"):
        with sa.matmul_policy(force=force, gemm_pack_min=32, gemm_batch_blas_min=32):
            before = _diagnostics.c_alloc_stats()["pack"]["allocations"]
            x1 @ x2
            packs = _diagnostics.c_alloc_stats()["pack"]["allocations"] - before
        assert packs == (0 if force == "generic" else 1), force


# -- the GIL ----------------------------------------------------------------------------------

BIG = 600  # a 600x600 float64 product: tens of milliseconds, one C call


def _product_at(threshold: int):
    """`a @ a` (BIG x BIG float64, BIG**3 multiply-adds) with `gil_release_min_work=threshold`."""
    a = sa.asarray(np.random.default_rng(9).standard_normal((BIG, BIG)))

    def call() -> sa.Array:
        with sa.matmul_policy(gil_release_min_work=threshold):
            return a @ a

    call()  # warm up: OpenBLAS buffers, the policy's first use
    return call


@_GIL_PROOF
def test_a_product_above_the_threshold_releases_the_gil():
    # The argument of tests/test_threads.py's spinner proof (no timing threshold): with forced
    # GIL switches off, a Python thread counts only while the product has released the GIL.
    # Exactly at the threshold the product releases it; a few attempts, since the spinner
    # may not be scheduled during one call on a busy machine.
    grew = _spinner_counts(_product_at(BIG**3))
    assert any(g > 0 for g in grew), f"the spinner never ran during a product: {grew}"


@_GIL_PROOF
def test_a_product_below_the_threshold_holds_the_gil():
    # One multiply-add below the threshold the product keeps the GIL: the spinner can never
    # count across it (the control of the same harness in tests/test_threads.py).
    grew = _spinner_counts(_product_at(BIG**3 + 1), CONTROL_ATTEMPTS)
    assert grew == [0] * CONTROL_ATTEMPTS, grew


def test_the_default_threshold_holds_the_gil_for_small_products():
    with sa.matmul_policy() as policy:
        assert 8 * 8 * 8 < policy["gil_release_min_work"] <= BIG**3


def test_the_tuner_measures_the_gil_threshold():
    import dataclasses

    from stridedarray import tune

    (sweep,) = [s for s in tune.SWEEPS if s.key == "gil_release_min_work"]
    r = tune.measure_sweep(dataclasses.replace(sweep, sizes=(2, 24), min_sample_s=0.002), repeats=3)
    assert [p["value"] for p in r["points"]] == [8, 24**3]
    assert all(p["hold"] > 0 and p["release"] > 0 for p in r["points"])
    assert r["crossover"] in (8, 24**3, 2 * 24**3)

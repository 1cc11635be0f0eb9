"""matmul / `@`: differential tests against NumPy.

Explicit grids cover 4 roles x broadcasting (none, LHS, RHS, cross, broadcast_to zero stride)
x layouts (C, F, padded leading dimension, negative inner, negative outer, step-two, both axes
strided) x every numeric dtype x sizes below and above the BLAS / pack crossovers, plus empty
M, N, K and batch. Every backend forced on its own must agree with the reference kernel.
Hypothesis adds random shapes, layouts and dtype pairs. Repeated products with new storage and
policies, and from several threads, check the plan cache takes nothing stale. The C path of
`@` and `matmul` gives its Python fallback's results and errors, and follows the policy (the
last section). Helpers here are reused by test_matmul_dispatch.py and test_diagnostics.py.
"""

from __future__ import annotations

import inspect
import pydoc
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from outcomes import outcome
from strategies import ALL_DTYPES, NUMERIC_DTYPES, fill, views
from test_threads import _GIL_PROOF, CONTROL_ATTEMPTS, _spinner_counts

import stridedarray as sa
from stridedarray._arraytype import NativeMatmul
from stridedarray._matmul import diagnostics as _diagnostics
from stridedarray._matmul.policy import BACKENDS

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means

LAYOUTS = ("C", "F", "padded", "neg_inner", "neg_outer", "step2", "both")
VEC_LAYOUTS = ("C", "neg", "step2")
BROADCASTS = ("none", "lhs", "rhs", "cross", "zero")


def matrix(dtype, batch: tuple, rows: int, cols: int, layout: str, seed: int):
    """An Array and the equal NumPy array of shape batch + (rows, cols) in `layout`, both
    views of one base buffer (so strides are exactly the layout's)."""
    if layout == "F":
        base = fill(dtype, batch + (cols, rows), seed)
        view = (Ellipsis, slice(None), slice(None))
        x, ref = sa.asarray(base), base
        return sa.matrix_transpose(x[view]), np.swapaxes(ref[view], -1, -2)
    extra = {
        "C": (0, 0),
        "padded": (0, 3),
        "neg_inner": (0, 0),
        "neg_outer": (0, 0),
        "step2": (0, cols),
        "both": (rows, cols),
    }[layout]
    base = fill(dtype, batch + (rows + extra[0], cols + extra[1]), seed)
    key = {
        "C": (Ellipsis, slice(None), slice(None)),
        "padded": (Ellipsis, slice(None), slice(0, cols)),
        "neg_inner": (Ellipsis, slice(None), slice(None, None, -1)),
        "neg_outer": (Ellipsis, slice(None, None, -1), slice(None)),
        "step2": (Ellipsis, slice(None), slice(None, None, 2)),
        "both": (Ellipsis, slice(None, None, 2), slice(None, None, 2)),
    }[layout]
    return sa.asarray(base)[key], base[key]


def vector(dtype, k: int, layout: str, seed: int):
    """A 1-D operand of length k: contiguous, reversed, or step two."""
    if layout == "step2":
        base = fill(dtype, (2 * k,), seed)
        return sa.asarray(base)[::2], base[::2]
    base = fill(dtype, (k,), seed)
    if layout == "neg":
        return sa.asarray(base)[::-1], base[::-1]
    return sa.asarray(base), base


def batches(mode: str) -> tuple[tuple, tuple]:
    """(lhs batch, rhs batch) for a broadcasting mode ("zero" is handled by the caller)."""
    return {
        "none": ((3,), (3,)),
        "lhs": ((1,), (3,)),
        "rhs": ((3,), ()),
        "cross": ((2, 1), (1, 3)),
        "zero": ((3,), (3,)),
    }[mode]


def operands(
    role: str, mode: str, dtype, M: int, N: int, K: int, lay_l: str, lay_r: str, seed: int = 0
):
    """(x1, ref1, x2, ref2) for a role, broadcasting mode and layouts."""
    bl, br = batches(mode)
    if role in ("DOT", "GEVM"):
        x1, r1 = vector(dtype, K, lay_l if lay_l in VEC_LAYOUTS else "C", seed)
    else:
        x1, r1 = matrix(dtype, bl if mode != "zero" else (1,), M, K, lay_l, seed)
    if role in ("DOT", "GEMV"):
        x2, r2 = vector(dtype, K, lay_r if lay_r in VEC_LAYOUTS else "C", seed + 1)
    elif role == "GEVM":
        x2, r2 = matrix(dtype, bl if mode != "zero" else (1,), K, N, lay_r, seed + 1)
    else:
        x2, r2 = matrix(dtype, br, K, N, lay_r, seed + 1)
    # a physical zero batch stride: many logical matrices alias one storage
    if mode == "zero" and role in ("GEMM", "GEMV"):
        x1 = sa.broadcast_to(x1, (3,) + x1.shape[1:])
        r1 = np.broadcast_to(r1, (3,) + r1.shape[1:])
    if mode == "zero" and role == "GEVM":
        x2 = sa.broadcast_to(x2, (3,) + x2.shape[1:])
        r2 = np.broadcast_to(r2, (3,) + r2.shape[1:])
    return x1, r1, x2, r2


def check(got: sa.Array, want: np.ndarray, ref1: np.ndarray, ref2: np.ndarray, what=""):
    """Values and shape equal to NumPy's: exact for integers, K*eps-scaled for floats."""
    g = np.asarray(got)
    assert g.shape == want.shape, (what, g.shape, want.shape)
    assert g.dtype == want.dtype, (what, g.dtype, want.dtype)
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(g, want, err_msg=str(what))
        return
    K = ref1.shape[-1]
    eps = np.finfo(want.dtype).eps
    bound = np.abs(ref1).astype(np.float64) @ np.abs(ref2).astype(np.float64)
    tol = 4 * max(K, 1) * eps * bound + np.finfo(want.dtype).tiny
    err = np.abs(g.astype(np.complex128) - want.astype(np.complex128))
    assert np.all(err <= tol), (what, float(np.max(err - tol)))


ROLES = ("DOT", "GEVM", "GEMV", "GEMM")
SIZES = ((3, 4, 5), (17, 18, 19))


def _modes(role):
    return ("none",) if role == "DOT" else BROADCASTS


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=lambda d: d.name)
def test_grid_roles_broadcast_layouts(dtype):
    """Every role x broadcasting x layout (lhs layout i with rhs layout i+3) x two sizes."""
    n = 0
    for role in ROLES:
        for mode in _modes(role):
            for i, lay_l in enumerate(LAYOUTS):
                lay_r = LAYOUTS[(i + 3) % len(LAYOUTS)]
                for M, N, K in SIZES:
                    x1, r1, x2, r2 = operands(role, mode, dtype, M, N, K, lay_l, lay_r, i)
                    before = (r1.copy(), r2.copy())
                    check(x1 @ x2, r1 @ r2, r1, r2, (role, mode, lay_l, lay_r, M, N, K))
                    # inputs untouched
                    np.testing.assert_array_equal(r1, before[0])
                    np.testing.assert_array_equal(r2, before[1])
                    n += 1
    assert n > 200


@pytest.mark.parametrize(
    "dtype", [sa.float32, sa.float64, sa.complex64, sa.complex128], ids=lambda d: d.name
)
def test_every_layout_pair_gemm(dtype):
    """All 49 layout pairs for a broadcast GEMM above the crossovers (BLAS, pack, generic)."""
    for lay_l in LAYOUTS:
        for lay_r in LAYOUTS:
            for mode in ("lhs", "rhs", "cross"):
                x1, r1, x2, r2 = operands("GEMM", mode, dtype, 16, 17, 18, lay_l, lay_r)
                check(x1 @ x2, r1 @ r2, r1, r2, (lay_l, lay_r, mode))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "dtype",
    [sa.float32, sa.float64, sa.complex64, sa.complex128, sa.int16, sa.uint32],
    ids=lambda d: d.name,
)
def test_forced_backends_agree_with_reference(backend, dtype):
    """Each backend forced alone gives the reference kernel's values where it accepts."""
    accepted = 0
    for role in ROLES:
        for mode in _modes(role):
            for i, lay_l in enumerate(LAYOUTS):
                lay_r = LAYOUTS[(i + 1) % len(LAYOUTS)]
                for M, N, K in ((2, 3, 4), (9, 10, 11)):
                    x1, r1, x2, r2 = operands(role, mode, dtype, M, N, K, lay_l, lay_r, i)
                    with sa.matmul_policy(force="reference"):
                        base = np.asarray(x1 @ x2)
                    with sa.matmul_policy(force=backend):
                        route = sa.matmul_explain(x1, x2).to_dict()["route"]
                        got = x1 @ x2
                    assert route in (backend, "generic")
                    accepted += route == backend
                    check(got, base, r1, r2, (backend, role, mode, lay_l, lay_r))
                    check(got, r1 @ r2, r1, r2, (backend, role, mode, lay_l, lay_r))
    if backend != "pack_blas" and not (backend.endswith("blas") and dtype.kind in "iu"):
        assert accepted > 0


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=lambda d: d.name)
def test_empty_dimensions(dtype):
    """M, N, K or batch = 0: right shape; K = 0 gives zeros; every role."""
    cases = [
        ((0, 4), (4, 3)),
        ((3, 4), (4, 0)),
        ((3, 0), (0, 5)),
        ((0, 3, 4), (4, 2)),
        ((2, 1, 3, 0), (1, 5, 0, 2)),
        ((0,), (0,)),
        ((0,), (2, 0, 3)),
        ((2, 3, 0), (0,)),
        ((4, 3, 2), (0, 1, 2, 5)),
        ((3,), (0, 3, 2)),
        ((40, 0), (0, 40)),
    ]
    for s1, s2 in cases:
        r1, r2 = fill(dtype, s1, 1), fill(dtype, s2, 2)
        for backend in (None, "blas", "pack_blas"):
            with sa.matmul_policy(force=backend):
                check(sa.asarray(r1) @ sa.asarray(r2), r1 @ r2, r1, r2, (s1, s2, backend))


def _wild_unit_axis(x: sa.Array, axis: int) -> sa.Array:
    """x with the stride of its extent-1 `axis` taken to -2**63 or below by public slicing
    (reverse, then steps of two): a stride no index uses, which C must not negate or
    overflow on (exactly -2**63 when the axis started with stride 1)."""
    key = [slice(None)] * x.ndim
    key[axis] = slice(None, None, -1)
    x = x[tuple(key)]
    key[axis] = slice(None, None, 2)
    while x.strides[axis] > -(2**63):
        x = x[tuple(key)]
    return x


@pytest.mark.parametrize("backend", [None, *BACKENDS])
@pytest.mark.parametrize("dtype", [sa.int16, sa.float64, sa.complex64], ids=lambda d: d.name)
def test_wild_strides_on_extent_one_axes(backend, dtype):
    """K = 1, M = 1 and a batch of 1 whose strides are -2**63: the product is unaffected (the
    sanitizer build reported the overflowing negations these once caused in the C core)."""
    for s1, s2, axis1, axis2 in [
        ((3, 1), (1, 4), 1, 0),
        ((1, 5), (5,), 0, 0),
        ((1, 3, 2), (2, 2), 0, 0),
        ((4, 1), (1,), 1, 0),
        ((2, 3), (3, 1), 0, 1),
    ]:
        r1, r2 = fill(dtype, s1, 1), fill(dtype, s2, 2)
        x1 = _wild_unit_axis(sa.asarray(r1), axis1)
        x2 = _wild_unit_axis(sa.asarray(r2), axis2) if s2[axis2] == 1 else sa.asarray(r2)
        n1, n2 = np.asarray(x1), np.asarray(x2)
        with sa.matmul_policy(force=backend):
            check(x1 @ x2, n1 @ n2, n1, n2, (s1, s2, backend))
            assert sa.matmul_explain(x1, x2)["route"] in BACKENDS


def test_dot_is_zero_d_and_vector_shapes():
    """vector @ vector is 0-d, as the Array API says (not (1,), as some libraries give)."""
    a = sa.asarray(np.arange(5.0))
    r = a @ a
    assert r.shape == () and float(r) == 30.0
    m = sa.asarray(np.ones((2, 5)))
    assert (m @ a).shape == (2,) and (a @ m.mT).shape == (2,)


@pytest.mark.parametrize(
    "pair",
    [
        ("int8", "int16"),
        ("uint8", "int32"),
        ("float32", "float64"),
        ("float32", "complex128"),
        ("complex64", "float64"),
        ("uint16", "uint64"),
    ],
)
def test_mixed_dtypes_promote_and_cast_while_packing(pair):
    """Mixed dtypes follow Array API promotion; the cast operand is packed (explain says so)."""
    d1, d2 = (getattr(sa, n) for n in pair)
    for lay in ("C", "neg_inner", "both"):
        x1, r1 = matrix(d1, (2,), 5, 6, lay, 1)
        x2, r2 = matrix(d2, (1,), 6, 7, "F", 2)
        out = x1 @ x2
        assert out.dtype == sa.result_type(d1, d2)
        check(out, r1 @ r2, r1, r2, (pair, lay))
        ex = sa.matmul_explain(x1, x2).to_dict()
        assert ex["cast"] == tuple(n for n, d in (("lhs", d1), ("rhs", d2)) if d != out.dtype)


def test_mixed_dtype_broadcast_to_operand_is_not_expanded():
    """A cast operand with a physical zero batch stride is packed once, not per alias."""
    base = fill(sa.float32, (1, 6, 6), 3)
    x1 = sa.broadcast_to(sa.asarray(base), (50, 6, 6))
    x2 = sa.asarray(fill(sa.float64, (50, 6, 6), 4))
    ex = sa.matmul_explain(x1, x2).to_dict()
    assert ex["cast"] == ("lhs",) and ex["payload_bytes"] == 6 * 6 * 8
    ref1 = np.broadcast_to(base, (50, 6, 6))
    check(x1 @ x2, ref1 @ np.asarray(x2), ref1, np.asarray(x2))


def test_integer_products_wrap_like_numpy():
    """Integer products wrap modulo 2**bits, for every integer dtype."""
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        d = getattr(sa, name)
        r1, r2 = fill(d, (3, 7, 9), 5, full_range=True), fill(d, (9, 4), 6, full_range=True)
        with np.errstate(over="ignore"):
            want = r1 @ r2
        check(sa.asarray(r1) @ sa.asarray(r2), want, r1, r2, name)


@st.composite
def matmul_case(draw):
    """Random role, batch shapes (with broadcasting, 0 and 1 extents), sizes and layouts."""
    dtype = draw(st.sampled_from(NUMERIC_DTYPES))
    role = draw(st.sampled_from(ROLES))
    big = draw(st.integers(0, 4)) == 0
    side = st.integers(14, 20) if big else st.integers(0, 6)
    M, N, K = draw(side), draw(side), draw(side)
    nb = draw(st.integers(0, 2))
    b = [draw(st.integers(0, 3)) for _ in range(nb)]
    bl = tuple(e if draw(st.booleans()) else 1 for e in b)
    br = tuple(e if draw(st.booleans()) else 1 for e in b)
    bl = bl[draw(st.integers(0, len(bl))) :]
    seed = draw(st.integers(0, 2**16))
    if role in ("DOT", "GEVM"):
        x1, r1 = vector(dtype, K, draw(st.sampled_from(VEC_LAYOUTS)), seed)
    else:
        x1, r1 = matrix(dtype, bl, M, K, draw(st.sampled_from(LAYOUTS)), seed)
    if role in ("DOT", "GEMV"):
        x2, r2 = vector(dtype, K, draw(st.sampled_from(VEC_LAYOUTS)), seed + 1)
    else:
        x2, r2 = matrix(dtype, br, K, N, draw(st.sampled_from(LAYOUTS)), seed + 1)
    return x1, r1, x2, r2


@settings(max_examples=400, deadline=None)
@given(matmul_case())
def test_hypothesis_against_numpy(case):
    x1, r1, x2, r2 = case
    check(x1 @ x2, r1 @ r2, r1, r2, (r1.shape, r1.strides, r2.shape, r2.strides))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_hypothesis_random_view_chains(data):
    """One operand from the shared random view chains (flips, transposes, broadcast_to with
    zero strides, reshape views, ...), the other a matching operand in a random layout."""
    from strategies import views

    dt = data.draw(st.sampled_from(NUMERIC_DTYPES))
    p = data.draw(views(dt, max_dims=4, max_side=5))
    if p.ref.ndim == 0:
        return
    left = data.draw(st.booleans())
    K = p.ref.shape[-1] if left else (p.ref.shape[0] if p.ref.ndim == 1 else p.ref.shape[-2])
    lay = data.draw(st.sampled_from(LAYOUTS))
    n = data.draw(st.integers(0, 5))
    seed = data.draw(st.integers(0, 2**16))
    if data.draw(st.booleans()):
        other, oref = vector(dt, K, data.draw(st.sampled_from(VEC_LAYOUTS)), seed)
    elif left:
        other, oref = matrix(dt, (), K, n, lay, seed)
    else:
        other, oref = matrix(dt, (), n, K, lay, seed)
    x1, r1, x2, r2 = (p.x, p.ref, other, oref) if left else (other, oref, p.x, p.ref)
    check(x1 @ x2, r1 @ r2, r1, r2, p.ops)


# -- the output-shape rule: one implementation (csrc/arraytype/matmul.c) for every path -------


@st.composite
def shape_pair(draw):
    """Two operand shapes, multiplying or not: 0-d and 1-d operands, 0 and 1 extents, batches
    that broadcast, batches that do not, contracted extents that differ."""

    def shape():
        return tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=5)))

    s1, s2 = shape(), shape()
    if s1 and s2 and draw(st.integers(0, 3)):  # mostly: make the contracted extents agree
        k = s1[-1]
        s2 = (k,) if len(s2) == 1 else s2[:-2] + (k,) + s2[-1:]
    return s1, s2


def _shape_error_kind(s1, s2) -> str:
    """The refusal NumPy's matmul agrees is one, in the library's words (an oracle by hand)."""
    if not s1 or not s2:
        return "is 0-d"
    if s1[-1] != (s2[0] if len(s2) == 1 else s2[-2]):
        return "contracted dimensions differ"
    return "do not broadcast"


@settings(max_examples=300, deadline=None)
@given(shape_pair(), st.sampled_from(NUMERIC_DTYPES), st.sampled_from(NUMERIC_DTYPES))
def test_hypothesis_output_shapes_against_numpy(shapes, d1, d2):
    """The output shape, or the ValueError, for one dtype (the C path), mixed dtypes (the
    Python path), the operator, in-place matmul and matmul_explain: all NumPy's shape."""
    s1, s2 = shapes
    x1 = sa.zeros(s1, dtype=d1)
    x2 = sa.zeros(s2, dtype=d2)
    try:
        want = np.matmul(np.zeros(s1), np.zeros(s2)).shape
    except ValueError:
        want = None
    calls = {
        "matmul": lambda: sa.matmul(x1, x2),
        "operator": lambda: x1 @ x2,
        "same dtype": lambda: sa.matmul(x1, sa.zeros(s2, dtype=d1)),
        "explain": lambda: sa.matmul_explain(x1, x2),
    }
    for what, call in calls.items():
        if want is None:
            with pytest.raises(ValueError, match=_shape_error_kind(s1, s2)) as info:
                call()
            msg = str(info.value)
            assert msg.startswith("matmul: ") and str(s1) in msg and str(s2) in msg, what
        else:
            r = call()
            got = r["out_shape"] if what == "explain" else r.shape
            assert got == want, (what, s1, s2)
    # x1 @= x2 keeps x1's shape: it runs when the product has it, else says why
    y = sa.zeros(s1, dtype=sa.result_type(d1, d2))
    if want is None:
        with pytest.raises(ValueError, match=_shape_error_kind(s1, s2)):
            y @= x2
    elif want != s1:
        with pytest.raises(ValueError, match="would change x1's shape"):
            y @= x2
    else:
        y @= x2
        assert y.shape == s1


def test_output_shape_rule_with_extents_beyond_int64():
    """Extents int64 cannot hold take the same rule (compared exactly, copied unchanged)."""
    from stridedarray._arraytype import _matmul_shape

    big, bigger = 2**64, 2**65
    assert _matmul_shape((big, 2, 3), (big, 3, 1)) == (big, 2, 1)
    assert _matmul_shape((1, 2, 3), (bigger, 3, big)) == (bigger, 2, big)
    assert _matmul_shape((big, 2, 3), (bigger, 3, 1)) == 4  # batches do not broadcast
    assert _matmul_shape((2, big), (big + 1,)) == 3  # contracted extents differ
    assert _matmul_shape((2, big), (big,)) == (2,)
    o = sa.ones((1, 1), dtype=sa.int8)
    x1 = o._view((big, 3), (0, 0), 0)
    msg = (
        r"contracted dimensions differ: x1 shape \(18446744073709551616, 3\) has 3 columns, "
        r"x2 shape \(2, 1\) has 2 rows"
    )
    with pytest.raises(ValueError, match=msg):
        sa.matmul(x1, o._view((2, 1), (0, 0), 0))
    for bad in ((2, -1), [2, 3], (2, "3"), (1,) * 65):
        with pytest.raises((TypeError, ValueError), match="_matmul_shape: s1"):
            _matmul_shape(bad, (3,))


@pytest.mark.parametrize("dtype", ["int64", "float64", "complex64"])
def test_repeated_products_with_new_storage_origins_and_strides(dtype: str) -> None:
    # The C core's plan cache keys on rank, shape, strides, dtypes and policy; storage and
    # origin change between calls and must be taken from each call's operands.
    rng = np.random.default_rng(7)
    base = [
        (rng.integers(-9, 9, (6, 5, 7)) + (1j if dtype.startswith("c") else 0)).astype(dtype)
        for _ in range(3)
    ]
    views = [
        lambda b: b[1:5, 0, :4],
        lambda b: b[0:4, 1, 1:5],
        lambda b: b[1:5, 2, 3:],
        lambda b: b[:4, 0, ::-1][:, :4],
        lambda b: b[::-1][:4, 3, :4],
    ]
    rhs = [lambda b: b[:4, :3, 0], lambda b: b[1:5, 1:4, 2], lambda b: b[2:, :3, 6][:4]]
    for _ in range(3):  # every (layout, storage) pair again: cache hits with new pointers
        for v in views:
            for w in rhs:
                for bl, br in ((base[0], base[1]), (base[2], base[0])):
                    a, b = v(bl), w(br)
                    got = np.asarray(sa.asarray(a) @ sa.asarray(b))
                    np.testing.assert_allclose(got, a @ b, rtol=1e-6)
                    batch = np.asarray(sa.asarray(bl[:3, :4, :5]) @ sa.asarray(br[:3, :5, :2]))
                    np.testing.assert_allclose(batch, bl[:3, :4, :5] @ br[:3, :5, :2], rtol=1e-6)


def test_repeated_products_follow_the_policy_in_force() -> None:
    # Same operands under another policy: the plan is not reused across policies. A reversed
    # lhs reused over a batch runs generic by default at this size and packs once when
    # pack_blas is forced, which the C allocation counters show.
    from stridedarray._matmul.diagnostics import c_alloc_stats

    rng = np.random.default_rng(5)
    an, bn = rng.standard_normal((1, 8, 8))[..., ::-1], rng.standard_normal((4, 8, 8))
    a, b = sa.asarray(an), sa.asarray(bn)

    def packs() -> int:
        return c_alloc_stats()["pack"]["allocations"]

    for _ in range(2):
        before = packs()
        np.testing.assert_allclose(np.asarray(a @ b), an @ bn, rtol=1e-12)
        assert packs() == before and sa.matmul_explain(a, b)["route"] == "generic"
        with sa.matmul_policy(force="pack_blas"):
            np.testing.assert_allclose(np.asarray(a @ b), an @ bn, rtol=1e-12)
            np.testing.assert_allclose(np.asarray(a @ b), an @ bn, rtol=1e-12)
            assert packs() == before + 2
        np.testing.assert_allclose(np.asarray(a @ b), an @ bn, rtol=1e-12)
        assert packs() == before + 2


def test_plan_cache_is_per_thread() -> None:
    errors: list[BaseException] = []
    rng = np.random.default_rng(3)
    mats = [rng.standard_normal((8, 8)) for _ in range(4)]

    def work(k: int) -> None:
        try:
            x, y = mats[k], mats[(k + 1) % 4][:, ::-1]
            sx, sy = sa.asarray(x), sa.asarray(y)
            for _ in range(300):
                np.testing.assert_allclose(np.asarray(sx @ sy), x @ y, rtol=1e-12)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# -- the C path against its Python fallback ---------------------------------------------------
# `x @ y` and `matmul` run in C (csrc/arraytype/matmul.c); each keeps the Python function it
# replaced as its fallback (`__wrapped__`). Against NumPy and against that fallback: the same
# results for random shapes (batch broadcasting, 0-size, 1-d operands) and views (negative,
# step-two, transposed, zero strides) of every numeric dtype; the same exception type and
# message for every call the C path leaves to Python; the policy steers the C path (a forced
# route, the GIL threshold).

OPERATOR = vars(sa.Array)["__matmul__"]


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
    _same(outcome(lambda: sa.matmul(x1, x2)), outcome(lambda: sa.matmul.__wrapped__(x1, x2)))
    _same(outcome(lambda: OPERATOR(x1, x2)), outcome(lambda: OPERATOR.__wrapped__(x1, x2)))


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
    _same(outcome(lambda: sa.matmul(other, x)), outcome(lambda: sa.matmul.__wrapped__(other, x)))


def test_keywords_and_argument_counts_take_the_python_path():
    x = sa.ones((2, 2))
    for args, kwargs in (((), {"x1": x, "x2": x}), ((x,), {}), ((x, x, x), {}), ((), {})):
        _same(
            outcome(lambda: sa.matmul(*args, **kwargs)),  # noqa: B023 - called at once
            outcome(lambda: sa.matmul.__wrapped__(*args, **kwargs)),  # noqa: B023
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
    fast, slow = outcome(lambda: x1 @ x2), outcome(lambda: sa.matmul.__wrapped__(x1, x2))
    _same(fast, slow)
    assert fast[0] == "ok" if name.startswith("empty with") else fast[1] is ValueError


def test_out_of_memory_in_the_core_gives_the_python_paths_error():
    """An allocation of the C core that fails (a pack, here) reaches _raise: MemoryError."""
    x1 = sa.asarray(np.ones((1, 40, 40)))[..., ::-1]
    x2 = sa.ones((4, 40, 40))
    with sa.matmul_policy(force="pack_blas"):
        with _diagnostics.fail_c_alloc_after(0):
            fast = outcome(lambda: x1 @ x2)
        with _diagnostics.fail_c_alloc_after(0):
            slow = outcome(lambda: sa.matmul.__wrapped__(x1, x2))
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
    # The argument of tests/matmul/test_threads.py's spinner proof (no timing threshold): with
    # forced GIL switches off, a Python thread counts only while the product has released the GIL.
    # Exactly at the threshold the product releases it; a few attempts, since the spinner
    # may not be scheduled during one call on a busy machine.
    grew = _spinner_counts(_product_at(BIG**3))
    assert any(g > 0 for g in grew), f"the spinner never ran during a product: {grew}"


@_GIL_PROOF
def test_a_product_below_the_threshold_holds_the_gil():
    # One multiply-add below the threshold the product keeps the GIL: the spinner can never
    # count across it (the control of the same harness in tests/matmul/test_threads.py).
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

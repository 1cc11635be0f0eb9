"""The product over a contracted dimension made of two strided axes (the C core's
`sa_matmul_ksplit`, reached through the private `matmul_ksplit`, which einsum uses when no
joint order makes its contracted axes one run in both operands; docs/matmul.md,
"Contractions").

Differential against NumPy's matmul on C-ordered copies reshaped to one K axis: random M, N,
K1, K2 (0 and 1 too, and past the kernel's 256-deep K block), every numeric dtype (integers
over their full range, so products wrap), each operand's four axes stored in any order, with
step-two, reversed and zero strides, batches and broadcast batches; on the generic route, on
the reference kernel, and with the BLAS routes forced (they decline: BLAS reads one K stride).
The C entry's refusals are error codes, checked on the raw call.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_generic_kernel import DTYPES, EPS, _values

import stridedarray as sa
from stridedarray._matmul.ffi import ffi, lib
from stridedarray._matmul.policy import _current
from stridedarray._matmul.product import matmul_ksplit, matmul_ksplit_explain

pytestmark = [pytest.mark.c_core]  # tests/conftest.py says what each means


def _view(rng: np.random.Generator, shape: tuple, dtype: str, draw) -> np.ndarray:  # type: ignore[no-untyped-def]
    """A NumPy view of logical `shape` over a buffer stored in a random axis order, each axis
    at random every second element, reversed, or (extent kept) of stride zero."""
    nd = len(shape)
    order = draw(st.permutations(range(nd)))
    step = [draw(st.sampled_from([1, 1, 2])) for _ in range(nd)]
    zero = [draw(st.integers(0, 7)) == 0 for _ in range(nd)]
    stored = tuple(1 if zero[k] else shape[k] * step[k] for k in order)
    base = _values(rng, stored, dtype)
    base = base[tuple(slice(None, None, 1 if zero[k] else step[k]) for k in order)]
    x = np.transpose(base, [order.index(k) for k in range(nd)])
    for k in range(nd):
        if draw(st.integers(0, 3)) == 0:
            x = np.flip(x, axis=k)
    return np.broadcast_to(x, shape)


@st.composite
def problems(draw):  # type: ignore[no-untyped-def]
    """(a, b): a of shape (*batch_a, M, K1, K2), b of (*batch_b, K1, K2, N)."""
    dtype = draw(st.sampled_from(DTYPES))
    M, N = (draw(st.sampled_from([0, 1, 2, 3, 8, 9, 17])) for _ in range(2))
    K1, K2 = (draw(st.sampled_from([0, 1, 2, 3, 5, 40])) for _ in range(2))
    batch = draw(st.sampled_from([(), (3,), (2, 1)]))
    ba = draw(st.sampled_from([batch, (1,) * len(batch), batch[1:]]))
    bb = draw(st.sampled_from([batch, (1,) * len(batch)]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return _view(rng, (*ba, M, K1, K2), dtype, draw), _view(rng, (*bb, K1, K2, N), dtype, draw)


def _expected(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """NumPy's matmul on C-ordered copies with K1 and K2 merged into one axis."""
    k = a.shape[-2] * a.shape[-1]
    a1 = np.ascontiguousarray(a).reshape(*a.shape[:-2], k)
    b1 = np.ascontiguousarray(b).reshape(*b.shape[:-3], k, b.shape[-1])
    with np.errstate(all="ignore"):
        return np.matmul(a1, b1)


def _check(a: np.ndarray, b: np.ndarray, force: str | None) -> None:
    x, y = sa.asarray(a), sa.asarray(b)
    with sa.matmul_policy(force=force):
        e = matmul_ksplit_explain(x, y)
        out = np.asarray(matmul_ksplit(x, y))
    ref = _expected(a, b)
    assert out.shape == ref.shape and out.dtype == ref.dtype
    K1, K2 = a.shape[-2:]
    split = K1 > 1 and K2 > 1
    assert e["K"] == K1 * K2 and e["out_shape"] == ref.shape
    if split:
        assert e["k_split"]["K1"] == K1 and e["k_split"]["K2"] == K2
        assert e["verdicts"][0]["outcome"] != "accepted"  # BLAS cannot read it
        assert e["route"] == ("reference" if force == "reference" else "generic")
    else:
        assert e["k_split"] is None  # one K axis: an ordinary product
    if ref.dtype.kind in "iu":
        np.testing.assert_array_equal(out, ref)
    else:
        scale = max(1.0, float(np.abs(a).max(initial=0)) * float(np.abs(b).max(initial=0)))
        tol = 8 * max(K1 * K2, 1) * EPS[ref.dtype.name] * scale
        np.testing.assert_allclose(out, ref, rtol=0, atol=tol)
    # inputs untouched
    assert np.array_equal(np.asarray(x), a) and np.array_equal(np.asarray(y), b)


@settings(max_examples=200, deadline=None)
@given(ab=problems(), force=st.sampled_from([None, "generic", "reference", "blas", "pack_blas"]))
def test_split_k_matches_numpy(ab, force):
    _check(*ab, force)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 64])
def test_the_ljmk_layout_every_dtype(dtype, n):
    """pytorch#57121's B (stored l, j, m, k: l, j one run, k another) times a matching A,
    K = 384 x 24 (past one K block), every dtype; N == 1 takes the packed path too."""
    rng = np.random.default_rng(7)
    b = np.transpose(_values(rng, (16, 24, n, 24), dtype), (0, 1, 3, 2)).reshape(384, 24, n)
    a = _values(rng, (5, 384, 24), dtype)
    _check(a, b, None)
    _check(a[::-1, ::-1], b[::-1, :, ::-1], "reference")


def test_the_plan_cache_keeps_split_and_ordinary_plans_apart():
    """The same descriptors read as one K axis (matmul) and as two (matmul_ksplit), in turn:
    a split plan is never cached, so neither is served the other's plan."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 6, 5))
    b = rng.standard_normal((6, 5, 3))
    x2, y2 = sa.asarray(a.reshape(4, 30)), sa.asarray(b.reshape(30, 3))
    x3, y3 = sa.asarray(a[:, :, ::-1]), sa.asarray(b[:, ::-1])
    ref = a.reshape(4, 30) @ b.reshape(30, 3)
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(x2 @ y2), ref, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(matmul_ksplit(x3, y3)), ref, rtol=1e-12)


def _raw(x: sa.Array, y: sa.Array, code: int, nbuf: int = 1 << 20) -> int:
    out = np.empty(nbuf, np.complex128)
    return lib.sa_matmul_ksplit(
        x._c, y._c, code, ffi.from_buffer(out), nbuf, _current.get(), ffi.NULL, 0
    )


def test_the_entry_refuses_bad_descriptors_with_codes():
    f64 = sa.float64.code
    a, b = sa.ones((2, 3, 4)), sa.ones((3, 4, 5))
    assert _raw(a, b, f64) == lib.SA_MM_OK
    assert _raw(sa.ones((3, 4)), b, f64) == lib.SA_MM_ERR_RANK
    assert _raw(a, sa.ones((4, 5)), f64) == lib.SA_MM_ERR_RANK
    assert _raw(a, sa.ones((3, 5, 5)), f64) == lib.SA_MM_ERR_CORE_SHAPE
    assert _raw(a, sa.ones((4, 4, 5)), f64) == lib.SA_MM_ERR_CORE_SHAPE
    assert _raw(a, sa.ones((3, 4, 5), dtype=sa.float32), f64) == lib.SA_MM_ERR_DTYPE
    assert (
        _raw(sa.ones((2, 3, 4), dtype=sa.bool), sa.ones((3, 4, 5), dtype=sa.bool), sa.bool.code)
        == lib.SA_MM_ERR_DTYPE
    )
    assert _raw(sa.ones((2, 2, 3, 4)), sa.ones((3, 3, 4, 5)), f64) == lib.SA_MM_ERR_BATCH_SHAPE
    assert _raw(a, b, f64, nbuf=9) == lib.SA_MM_ERR_OUTPUT


def test_a_zero_stride_split_k_too_large_to_run_is_refused():
    """Broadcast operands can ask for more than 2**63 flops: explained, refused when run."""
    a = sa.broadcast_to(sa.ones((1, 1, 1)), (2**9, 2**25, 2**25))
    b = sa.broadcast_to(sa.ones((1, 1, 1)), (2**25, 2**25, 2**9))
    assert matmul_ksplit_explain(a, b)["flops"] == 2 * 2**9 * 2**9 * 2**50
    assert _raw(a, b, sa.float64.code, nbuf=2**18) == lib.SA_MM_ERR_OVERFLOW


def test_explain_describes_the_split():
    a = sa.asarray(np.zeros((8, 6, 5)))[:, ::-1]
    b = sa.permute_dims(sa.asarray(np.zeros((5, 7, 6))), (2, 0, 1))
    e = matmul_ksplit_explain(a, b)
    assert e["k_split"] == {"K1": 6, "K2": 5, "lhs_strides": (-5, 1), "rhs_strides": (1, 42)}
    assert "K split: K1=6 x K2=5" in str(e)
    assert e["route"] == "generic" and e["verdicts"][0]["outcome"] == "declined: layout"

"""The C core's allocation accounting and fault injection (stridedarray._matmul.diagnostics).

Every heap block of the C core goes through one allocator that counts operand packs/casts
("pack") and generic-kernel panels ("scratch"). These tests check the counters against the
ledger (`matmul_explain`'s payload_bytes is what pack-once really allocates at its peak), that
nothing stays allocated after a call, and, with injected allocation failures at every
allocation a call makes, that matmul raises MemoryError, leaves its inputs and the counters as
they were, and that the next call works.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import fill
from test_matmul import check, matmul_case, matrix, vector

import stridedarray as sa
from stridedarray._matmul.diagnostics import c_alloc_stats, fail_c_alloc_after, reset_c_alloc_peak

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

CATEGORIES = ("pack", "scratch")


def held() -> dict[str, int]:
    """Bytes currently held by the C core, per category."""
    return {k: v["current"] for k, v in c_alloc_stats().items()}


def measure(x1: sa.Array, x2: sa.Array) -> tuple[sa.Array, dict, dict]:
    """Run x1 @ x2 from a fresh peak: (result, stats before, stats after)."""
    reset_c_alloc_peak()
    before = c_alloc_stats()
    out = x1 @ x2
    return out, before, c_alloc_stats()


def allocations(before: dict, after: dict) -> int:
    """Allocations (all categories) made between two snapshots; each was freed."""
    n = 0
    for cat in CATEGORIES:
        made = after[cat]["allocations"] - before[cat]["allocations"]
        assert after[cat]["frees"] - before[cat]["frees"] == made, cat
        n += made
    return n


def snapshot(*refs: np.ndarray) -> list[bytes]:
    """The bytes of every operand's whole base buffer (to prove inputs are untouched)."""
    out = []
    for r in refs:
        base = r
        while base.base is not None and isinstance(base.base, np.ndarray):
            base = base.base
        out.append(base.tobytes())
    return out


# ---- the API ---------------------------------------------------------------------------


def test_stats_shape_and_types():
    """c_alloc_stats: both categories, four integer counters each, nothing held at rest."""
    s = c_alloc_stats()
    assert set(s) == set(CATEGORIES)
    for cat in CATEGORIES:
        assert set(s[cat]) == {"current", "peak", "allocations", "frees"}
        assert all(type(v) is int for v in s[cat].values())
        assert s[cat]["current"] == 0
        assert s[cat]["allocations"] - s[cat]["frees"] == 0
    reset_c_alloc_peak()
    assert all(c_alloc_stats()[cat]["peak"] == 0 for cat in CATEGORIES)


@pytest.mark.parametrize("bad", [-1, 1.0, "1", True, None])
def test_fail_after_rejects_bad_n(bad):
    """fail_c_alloc_after needs a non-negative int and arms nothing otherwise."""
    with pytest.raises(ValueError, match="non-negative int"):
        with fail_c_alloc_after(bad):
            pass


def test_fail_after_disarms_on_exception():
    """An exception inside the block still disarms the injection."""
    x1, r1 = matrix(sa.float64, (), 32, 32, "neg_inner", 1)
    x2, r2 = matrix(sa.float64, (4,), 32, 32, "C", 2)
    with pytest.raises(KeyError, match="boom"):
        with fail_c_alloc_after(5):
            raise KeyError("boom")
    with sa.matmul_policy(force="pack_blas"):
        check(x1 @ x2, r1 @ r2, r1, r2)


def test_small_products_and_explain_allocate_nothing():
    """The 2x2 hot path and plan-only explain never reach the allocator (any route)."""
    a = sa.asarray(np.array([[1.0, 2.0], [3.0, 4.0]]))
    for force in (None, "blas", "generic", "reference"):
        with sa.matmul_policy(force=force):
            _, before, after = measure(a, a)
            assert allocations(before, after) == 0
    x1, _ = matrix(sa.float64, (), 32, 32, "neg_inner", 1)
    x2, _ = matrix(sa.float64, (10,), 32, 32, "C", 2)
    before = c_alloc_stats()
    with sa.matmul_policy(force="pack_blas"):
        assert sa.matmul_explain(x1, x2)["payload_bytes"] == 8192
    assert allocations(before, c_alloc_stats()) == 0


# ---- pack peak == ledger payload ---------------------------------------------------------


def _seed_case():
    """docs/matmul.md's worked example: (1,32,32) strides (1024,32,-1) @ (10,32,32) float64."""
    x1, r1 = matrix(sa.float64, (1,), 32, 32, "neg_inner", 3)
    x2, r2 = matrix(sa.float64, (10,), 32, 32, "C", 4)
    return x1, r1, x2, r2


def _reversed_rows_broadcast():
    """A 2-D lhs with reversed rows, broadcast (shape) against a batch of 6."""
    x1, r1 = matrix(sa.float32, (), 24, 40, "neg_outer", 5)
    x2, r2 = matrix(sa.float32, (6,), 40, 20, "C", 6)
    return x1, r1, x2, r2


def _cross_pack_both():
    """Cross broadcasting (2,1) x (1,3), both operands step-two: packs 2 + 3 matrices."""
    x1, r1 = matrix(sa.complex128, (2, 1), 20, 18, "step2", 7)
    x2, r2 = matrix(sa.complex128, (1, 3), 18, 22, "both", 8)
    return x1, r1, x2, r2


def _cast_lhs():
    """float32 @ float64: lhs cast to float64 while it is packed row-major."""
    x1, r1 = matrix(sa.float32, (3,), 17, 19, "neg_inner", 9)
    x2, r2 = matrix(sa.float64, (3,), 19, 16, "C", 10)
    return x1, r1, x2, r2


def _cast_both_int():
    """int8 @ int16 -> int16: only lhs is cast; with a broadcast_to lhs not expanded."""
    x1, r1 = matrix(sa.int8, (1,), 9, 7, "C", 11)
    x1 = sa.broadcast_to(x1, (4, 9, 7))
    r1 = np.broadcast_to(r1, (4, 9, 7))
    x2, r2 = matrix(sa.int16, (4,), 7, 5, "F", 12)
    return x1, r1, x2, r2


def _blas_k_parts():
    """A deep, narrow product BLAS sums in K parts, each part's output scratch (blas.c)."""
    x1, r1 = matrix(sa.float64, (), 64, 2048, "C", 8)
    x2, r2 = matrix(sa.float64, (), 2048, 64, "C", 9)
    return x1, r1, x2, r2


PACK_CASES = {
    "seed": (_seed_case, "pack_blas"),
    "rows": (_reversed_rows_broadcast, "pack_blas"),
    "cross": (_cross_pack_both, "pack_blas"),
    "cast": (_cast_lhs, None),
    "cast_int": (_cast_both_int, None),
}


@pytest.mark.parametrize("name", PACK_CASES)
def test_pack_peak_equals_ledger_payload(name):
    """Pack peak == explain's payload_bytes, one allocation per pack, all freed after."""
    make, force = PACK_CASES[name]
    x1, r1, x2, r2 = make()
    with sa.matmul_policy(force=force):
        ex = sa.matmul_explain(x1, x2)
        out, before, after = measure(x1, x2)
    check(out, r1 @ r2, r1, r2, name)
    if force:
        assert ex["route"] == force
    assert ex["payload_bytes"] > 0
    assert before["pack"]["current"] == 0
    assert after["pack"]["peak"] == ex["payload_bytes"]
    assert after["pack"]["current"] == 0
    packs = len(ex["packed"])
    assert after["pack"]["allocations"] - before["pack"]["allocations"] == packs
    assert after["pack"]["frees"] - before["pack"]["frees"] == packs
    if name == "seed":
        assert ex["payload_bytes"] == 8192 and ex["packed_matrices"] == 1
    if name == "cross":
        assert ex["packed_matrices"] == 5
        assert ex["payload_bytes"] == 16 * (2 * 20 * 18 + 3 * 18 * 22)
    if name == "cast_int":  # the broadcast_to lhs is cast once, not 4 times
        assert ex["payload_bytes"] == 2 * 9 * 7


@settings(max_examples=150, deadline=None)
@given(matmul_case())
def test_random_matmuls_pack_peak_is_payload(case):
    """Over random roles, batches, layouts and dtypes: pack peak == payload, nothing held."""
    x1, r1, x2, r2 = case
    ex = sa.matmul_explain(x1, x2)
    out, _, after = measure(x1, x2)
    check(out, r1 @ r2, r1, r2)
    assert after["pack"]["peak"] == ex["payload_bytes"]
    assert held() == {"pack": 0, "scratch": 0}


# ---- generic-route scratch ---------------------------------------------------------------


def _generic_gemm():
    """int64 64x64 @ 64x64 batch: panels beyond the 16 KiB stack scratch come from the heap."""
    x1, r1 = matrix(sa.int64, (3,), 64, 70, "neg_inner", 13)
    x2, r2 = matrix(sa.int64, (3,), 70, 48, "step2", 14)
    return x1, r1, x2, r2


def _generic_gemv():
    """float64 GEMV, long reversed vector: the packed vector (32 KiB) is heap scratch."""
    x1, r1 = matrix(sa.float64, (2,), 5, 5000, "step2", 15)
    x2, r2 = vector(sa.float64, 5000, "neg", 16)
    return x1, r1, x2, r2


def _generic_complex():
    """complex64 GEMM large enough for heap panels."""
    x1, r1 = matrix(sa.complex64, (), 80, 300, "F", 17)
    x2, r2 = matrix(sa.complex64, (), 300, 40, "neg_outer", 18)
    return x1, r1, x2, r2


GENERIC_CASES = {"gemm": _generic_gemm, "gemv": _generic_gemv, "complex": _generic_complex}


@pytest.mark.parametrize("name", GENERIC_CASES)
def test_generic_scratch_is_counted_and_freed(name):
    """The generic route's heap panels are counted as scratch and all freed."""
    x1, r1, x2, r2 = GENERIC_CASES[name]()
    with sa.matmul_policy(force="generic"):
        out, before, after = measure(x1, x2)
    check(out, r1 @ r2, r1, r2, name)
    assert after["scratch"]["allocations"] > before["scratch"]["allocations"]
    assert after["scratch"]["peak"] > 0
    assert after["scratch"]["current"] == 0
    assert after["pack"]["peak"] == 0
    allocations(before, after)


# ---- fault injection -----------------------------------------------------------------------

ALL_CASES = {
    **{k: v for k, v in PACK_CASES.items()},
    "blas_k_parts": (_blas_k_parts, "blas"),
    **{f"generic_{k}": (v, "generic") for k, v in GENERIC_CASES.items()},
}


@pytest.mark.parametrize("name", ALL_CASES)
def test_every_allocation_failure_raises_memory_error_cleanly(name):
    """Failing the 1st, 2nd, ... allocation of a call: MemoryError, inputs unchanged, nothing
    held; failing past the last allocation changes nothing; the next call works."""
    make, force = ALL_CASES[name]
    x1, r1, x2, r2 = make()
    want = r1 @ r2
    inputs = snapshot(r1, r2)
    with sa.matmul_policy(force=force):
        _, before, after = measure(x1, x2)
        n = allocations(before, after)
        assert n >= 1
        for k in range(n):
            with fail_c_alloc_after(k):
                with pytest.raises(MemoryError, match="out of memory"):
                    x1 @ x2
            assert snapshot(r1, r2) == inputs, k
            assert held() == {"pack": 0, "scratch": 0}, k
            check(x1 @ x2, want, r1, r2, (name, k))
        with fail_c_alloc_after(n):  # armed past this call's last allocation
            check(x1 @ x2, want, r1, r2, name)
    assert snapshot(r1, r2) == inputs


@settings(max_examples=100, deadline=None)
@given(matmul_case())
def test_random_matmuls_fail_first_allocation(case):
    """Random cases: a call that allocates raises MemoryError when its first allocation
    fails (inputs and counters unchanged, next call right); one that does not is unaffected."""
    x1, r1, x2, r2 = case
    want = r1 @ r2
    _, before, after = measure(x1, x2)
    n = allocations(before, after)
    inputs = snapshot(r1, r2)
    with fail_c_alloc_after(0):
        if n:
            with pytest.raises(MemoryError):
                x1 @ x2
        else:
            check(x1 @ x2, want, r1, r2)
    assert snapshot(r1, r2) == inputs
    assert held() == {"pack": 0, "scratch": 0}
    check(x1 @ x2, want, r1, r2)


def test_imatmul_failure_leaves_target_unchanged():
    """x1 @= x2 whose product fails to allocate leaves x1 as it was."""
    base = fill(sa.float64, (8, 32, 32), 19)
    x1 = sa.asarray(base.copy())
    x2, r2 = matrix(sa.float64, (), 32, 32, "neg_inner", 20)
    keep = np.asarray(x1).copy()
    with sa.matmul_policy(force="pack_blas"), fail_c_alloc_after(0):
        with pytest.raises(
            MemoryError, match="matmul: out of memory packing operands or kernel scratch for"
        ):
            x1 @= x2
    np.testing.assert_array_equal(np.asarray(x1), keep)


# ---- threads -------------------------------------------------------------------------------


def test_counters_are_consistent_under_threads():
    """Two threads packing concurrently: every allocation freed, nothing held, right values."""
    x1, r1, x2, r2 = _cross_pack_both()
    y1, q1, y2, q2 = _generic_gemm()
    want_x, want_y = r1 @ r2, q1 @ q2
    before = c_alloc_stats()
    errors = []

    def work(a, b, ra, rb, want, force):
        try:
            with sa.matmul_policy(force=force):
                for _ in range(30):
                    check(a @ b, want, ra, rb)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [
        threading.Thread(target=work, args=(x1, x2, r1, r2, want_x, "pack_blas")),
        threading.Thread(target=work, args=(y1, y2, q1, q2, want_y, "generic")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    after = c_alloc_stats()
    assert allocations(before, after) >= 60
    assert held() == {"pack": 0, "scratch": 0}

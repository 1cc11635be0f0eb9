"""Memory: a pack-once matmul's extra memory is its ledger payload plus the
output, and many small calls leave memory flat.

Two meters, one per kind of memory:
- the C core's allocation counters (stridedarray._matmul.diagnostics.c_alloc_stats): every pack and
  cast buffer matmul makes ("pack") and the generic kernel's heap panels ("scratch"). The C
  core allocates with malloc, which tracemalloc does not see.
- tracemalloc: NumPy reports its data allocations to it (the output array is allocated by
  NumPy), and Python objects are traced too.

So "peak extra memory = payload + output" is checked as two exact-or-tight equalities:
pack peak - pack current before == `matmul_explain(...)["payload_bytes"]`, and traced peak
during the call - traced before == output bytes + a few Python objects.

The RSS test (100,000 calls) is slow and runs by hand:
`pytest -m slow tests/matmul/test_memory.py -s` prints the figures recorded in docs/dev/testing.md.
"""

from __future__ import annotations

import gc
import os
import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest

import stridedarray as sa
from stridedarray._matmul import diagnostics as diag

pytestmark = [pytest.mark.version_sensitive]  # tests/conftest.py says what each means

# Python objects made per call besides the output's data (the result Array, its _Storage and
# cffi pointer, NumPy's array header, a few small tuples), in bytes, generously.
PY_OBJECTS = 2048


@pytest.fixture(autouse=True)
def _batch_crossover() -> object:
    """The routes below are those of the AVX-512 kernel sets' batch crossover; with AVX2
    kernels (OPENBLAS_CORETYPE=Haswell) the default sends small batches to the generic
    kernel (docs/matmul.md, "Batches of small products")."""
    with sa.matmul_policy(gemm_batch_blas_min=12):
        yield


def _rng_array(shape: tuple[int, ...], dtype: type = np.float64, seed: int = 0) -> sa.Array:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return sa.asarray(rng.integers(-50, 50, shape).astype(dtype))
    return sa.asarray(rng.standard_normal(shape).astype(dtype))


# (name, operands, route expected, operands packed): pack-once with a reused operand (the docs'
# S = 32 trace), cross broadcasting, casts of mixed dtypes, a reused vector.
CASES: list[tuple[str, Callable[[], tuple[sa.Array, sa.Array]], str, tuple[str, ...]]] = [
    (
        "S=32 trace: reversed lhs reused",
        lambda: (_rng_array((1, 32, 32))[:, :, ::-1], _rng_array((10, 32, 32), seed=1)),
        "pack_blas",
        ("lhs",),
    ),
    (
        "reversed lhs reused, S=96 batch 32",
        lambda: (_rng_array((1, 96, 96))[:, ::-1], _rng_array((32, 96, 96), seed=1)),
        "pack_blas",
        ("lhs",),
    ),
    (
        "cross broadcasting (2,1) x (1,5)",
        lambda: (
            _rng_array((2, 1, 48, 48))[..., ::-1],
            _rng_array((1, 5, 48, 48), seed=1)[..., ::-1, :],
        ),
        "pack_blas",
        ("lhs", "rhs"),
    ),
    (
        "cast float32 lhs to float64",
        lambda: (_rng_array((4, 64, 40), np.float32), _rng_array((4, 40, 56), seed=1)),
        "blas",
        ("lhs",),
    ),
    (
        "cast both: int8 @ uint8 -> int16",
        lambda: (_rng_array((3, 50, 70), np.int8), _rng_array((70, 60), np.uint8, seed=1)),
        "generic",
        ("lhs", "rhs"),
    ),
    (
        "cast complex64 rhs, reversed",
        lambda: (_rng_array((64, 64), np.complex128), _rng_array((64, 64), np.complex64)[::-1]),
        "blas",
        ("rhs",),
    ),
]


def _measure(x1: sa.Array, x2: sa.Array) -> dict:
    """One matmul with both meters running: C pack/scratch deltas and tracemalloc's peak."""
    gc.collect()
    gc.disable()  # a collection inside the call would free unrelated memory and skew t1 - t0
    try:
        diag.reset_c_alloc_peak()
        c0 = diag.c_alloc_stats()
        tracemalloc.reset_peak()
        t0, _ = tracemalloc.get_traced_memory()
        z = x1 @ x2
        t1, tpeak = tracemalloc.get_traced_memory()
        c1 = diag.c_alloc_stats()
    finally:
        gc.enable()
    out = {"z": z, "traced_peak": tpeak - t0, "traced_kept": t1 - t0}
    for cat in ("pack", "scratch"):
        out[cat] = {
            "peak": c1[cat]["peak"] - c0[cat]["current"],
            "kept": c1[cat]["current"] - c0[cat]["current"],
            "allocations": c1[cat]["allocations"] - c0[cat]["allocations"],
            "frees": c1[cat]["frees"] - c0[cat]["frees"],
        }
    return out


@pytest.mark.parametrize("name,operands,route,packed", CASES, ids=[c[0] for c in CASES])
def test_peak_extra_memory_is_payload_plus_output(name, operands, route, packed):
    x1, x2 = operands()
    c0 = diag.c_alloc_stats()
    e = sa.matmul_explain(x1, x2)
    assert diag.c_alloc_stats() == c0, "explain plans the packs but must not make them"
    assert e["route"] == route and set(e["packed"]) == set(packed), str(e)
    payload = e["payload_bytes"]
    assert payload > 0
    out_bytes = int(np.prod(e["out_shape"])) * sa.result_type(x1, x2).np.itemsize
    x1 @ x2  # warm up: caches (output geometry, C descriptors) and BLAS buffers
    tracemalloc.start()
    try:
        m = _measure(x1, x2)
    finally:
        tracemalloc.stop()
    # C side: the packs are exactly the ledger's payload, one buffer per packed operand,
    # all freed before matmul returned.
    assert m["pack"]["peak"] == payload, (name, m["pack"], payload)
    assert m["pack"]["allocations"] == m["pack"]["frees"] == len(packed)
    assert m["pack"]["kept"] == 0 and m["scratch"]["kept"] == 0
    if route != "generic":
        assert m["scratch"]["allocations"] == 0  # BLAS routes use no kernel scratch
    # NumPy side: the only data allocated is the output; a few Python objects besides.
    assert out_bytes <= m["traced_peak"] <= out_bytes + PY_OBJECTS, (name, m, out_bytes)
    assert out_bytes <= m["traced_kept"] <= out_bytes + PY_OBJECTS
    want = np.matmul(np.asarray(x1).astype(m["z"].dtype.np), np.asarray(x2).astype(m["z"].dtype.np))
    np.testing.assert_allclose(np.asarray(m["z"]), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "shape,view",
    [
        ((300, 200), lambda x: x[::-1, ::-1]),
        ((40, 30, 20), lambda x: sa.permute_dims(x, (2, 0, 1))[:, ::-2]),
        ((500,), lambda x: sa.broadcast_to(x[::-1], (7, 500))),
    ],
)
def test_to_row_major_allocates_only_its_output(shape, view):
    """to_row_major copies in C into an output NumPy allocates: no C heap block, and traced
    memory grows by the output's bytes plus a few Python objects."""
    v = view(_rng_array(shape))
    v.to_row_major()  # warm up
    out_bytes = v.size * 8
    gc.collect()
    tracemalloc.start()
    gc.disable()
    try:
        c0 = diag.c_alloc_stats()
        t0, _ = tracemalloc.get_traced_memory()
        y = v.to_row_major()
        t1, peak = tracemalloc.get_traced_memory()
        c1 = diag.c_alloc_stats()
    finally:
        gc.enable()
        tracemalloc.stop()
    assert c1 == c0
    assert out_bytes <= peak - t0 <= out_bytes + PY_OBJECTS
    assert out_bytes <= t1 - t0 <= out_bytes + PY_OBJECTS
    np.testing.assert_array_equal(np.asarray(y), np.asarray(v))


def _small_calls(n: int) -> list[tuple[str | None, sa.Array, sa.Array]]:
    """Small matmuls (2x2..8x8) over several routes, dtypes and views, cycled by the loops."""
    calls = []
    for s in (2, 3, 5, 8):
        a = _rng_array((s, s), seed=s)
        b = _rng_array((4, s, s), seed=s + 1)
        i = _rng_array((s, s), np.int64, seed=s)
        calls += [
            (None, a, a),
            ("blas", a.T, a),
            ("pack_blas", sa.expand_dims(a[::-1], axis=0), b),  # pack-once
            ("generic", a[::-1, ::-1], b[:, ::-1]),
            ("reference", i[::-1], i.T),
            (None, _rng_array((s, s), np.float32, seed=s), a[:, ::-1]),  # cast
            (None, sa.broadcast_to(a[0], (3, s, s)), b[:3]),  # zero stride
            (None, a[0, ::-1], a[::-1, 0]),  # dot, reversed
        ]
    return calls[:n]


def _run_small(calls: list, count: int) -> None:
    for k in range(count):
        force, x, y = calls[k % len(calls)]
        if force is None:
            x @ y
        else:
            with sa.matmul_policy(force=force):
                x @ y


def test_small_calls_leave_counters_and_traced_memory_flat():
    """2,000 small calls: C counters back to start, every allocation freed, and no traced
    Python/NumPy memory kept (after a warm-up that fills the library's shape caches)."""
    calls = _small_calls(64)
    _run_small(calls, 200)
    gc.collect()
    c0 = diag.c_alloc_stats()
    tracemalloc.start()
    try:
        _run_small(calls, 200)  # warm-up under tracing
        gc.collect()
        t0, _ = tracemalloc.get_traced_memory()
        _run_small(calls, 2000)
        gc.collect()
        t1, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    c1 = diag.c_alloc_stats()
    for cat in ("pack", "scratch"):
        assert c1[cat]["current"] == c0[cat]["current"], (cat, c0, c1)
        assert (
            c1[cat]["allocations"] - c0[cat]["allocations"] == c1[cat]["frees"] - c0[cat]["frees"]
        ), (cat, c0, c1)
    assert c1["pack"]["allocations"] > c0["pack"]["allocations"]  # packs did happen
    assert t1 - t0 <= 4096, f"traced memory grew by {t1 - t0} bytes over 2,000 calls"


def _rss() -> int:
    """Resident set size in bytes, from /proc/self/statm (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux)")
def test_100k_small_calls_leave_rss_flat():
    """100,000 small matmuls after a 10,000-call warm-up: RSS grows by less than 1 MiB."""
    calls = _small_calls(64)
    _run_small(calls, 10_000)
    gc.collect()
    c0 = diag.c_alloc_stats()
    before = _rss()
    _run_small(calls, 100_000)
    gc.collect()
    after = _rss()
    c1 = diag.c_alloc_stats()
    print(
        f"\nRSS before {before} bytes, after {after} bytes, growth {after - before} bytes; "
        f"C pack allocations {c1['pack']['allocations'] - c0['pack']['allocations']}, "
        f"current {c0['pack']['current']} -> {c1['pack']['current']}"
    )
    assert c1["pack"]["current"] == c0["pack"]["current"]
    assert after - before < 1 << 20

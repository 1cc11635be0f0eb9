"""Threads: concurrent matmul, views and packing; the GIL is released in C.

Part 1: several Python threads run every matmul route (each thread forcing its own route with
`matmul_policy`, a contextvars context manager, so threads must not see each other's policy),
views, `to_row_major` and `_pack` over SHARED read-only inputs, many iterations each, started
together by a barrier. Every result must equal the serial run's bit for bit, every `explain`
route must be the one the thread forced, and the inputs must be unchanged. The shared Arrays
are fresh (their lazily made C descriptors, NumPy views and storage pointers not built yet),
so the threads also race on those caches.

Part 2: the C calls release the GIL. The proofs are logical, not timing thresholds; see
`test_gil_released_two_calls_overlap` and `test_gil_released_spinner_runs_during_c_call`.

Our OpenBLAS runs one thread here (as in the benchmarks): bit-for-bit comparison then does not
depend on how OpenBLAS splits work, and a large call lasts long enough to observe.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridedarray as sa
from stridedarray._matmul.ffi import lib
from stridedarray._matmul.policy import current_policy

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

NTHREADS = 6
ITERATIONS = 60


@pytest.fixture(scope="module", autouse=True)
def one_blas_thread() -> Iterator[None]:
    """Our OpenBLAS at one thread for this module (restored afterwards)."""
    before = lib.scipy_openblas_get_num_threads()
    lib.scipy_openblas_set_num_threads(1)
    yield
    lib.scipy_openblas_set_num_threads(before)


def _ro(a: np.ndarray) -> np.ndarray:
    """A read-only C-contiguous copy (shared inputs must not be written by anyone)."""
    a = np.array(a, order="C")
    a.flags.writeable = False
    return a


def _inputs(seed: int = 7) -> dict[str, np.ndarray]:
    """The shared operands, as read-only NumPy arrays."""
    rng = np.random.default_rng(seed)

    def f64(*s: int) -> np.ndarray:
        return _ro(rng.standard_normal(s))

    return {
        "A": f64(64, 64),
        "B": f64(64, 48),
        "L1": f64(1, 40, 40),
        "R8": f64(8, 40, 40),  # lhs reused across a batch
        "X2": f64(2, 1, 24, 24),
        "Y3": f64(1, 3, 24, 24),  # cross broadcasting
        "F32": _ro(rng.standard_normal((32, 64)).astype(np.float32)),
        "C64": _ro(
            (rng.standard_normal((20, 20)) + 1j * rng.standard_normal((20, 20))).astype(
                np.complex64
            )
        ),
        "I64": _ro(rng.integers(-(2**40), 2**40, (40, 40))),
        "I8": _ro(rng.integers(-128, 128, (30, 30)).astype(np.int8)),
        "U8": _ro(rng.integers(0, 256, (30, 30)).astype(np.uint8)),
        "V": f64(256),
        "M": f64(256, 256),
    }


Operands = Callable[[dict[str, sa.Array]], tuple[sa.Array, sa.Array]]

# (name, forced route or None, the two operands). Every route, pack-once with a reused
# operand, cross broadcasting, casts, physical zero strides and the vector roles.
MATMULS: list[tuple[str, str | None, Operands]] = [
    ("blas gemm", "blas", lambda a: (a["A"], a["B"])),
    ("blas transposed", "blas", lambda a: (a["A"].T, a["B"])),
    # big enough (~1 ms) that C calls of different threads really run at the same time
    ("blas 256", "blas", lambda a: (a["M"], a["M"].T)),
    ("generic 256 reversed", "generic", lambda a: (a["M"][::-1], a["M"][:, ::2])),
    ("pack_blas reused reversed lhs", "pack_blas", lambda a: (a["L1"][..., ::-1], a["R8"])),
    (
        "pack_blas cross broadcasting",
        "pack_blas",
        lambda a: (a["X2"][..., ::-1], a["Y3"][..., ::-1, :]),
    ),
    (
        "pack_blas views",
        "pack_blas",
        lambda a: (sa.expand_dims(a["R8"][0, ::-1], axis=0), a["R8"][1:, :, 3:27]),
    ),
    ("generic f64 step-two reversed", "generic", lambda a: (a["A"][::2, ::-1], a["B"][::-1])),
    ("generic int64", "generic", lambda a: (a["I64"][::-1], a["I64"].T)),
    ("generic int8 @ uint8 (casts)", "generic", lambda a: (a["I8"][:, ::-1], a["U8"][::-1])),
    ("reference complex64", "reference", lambda a: (a["C64"][:, ::2], a["C64"][::2])),
    ("default f32 @ f64 (cast)", None, lambda a: (a["F32"], a["A"][:, ::-1])),
    ("default dot reversed", None, lambda a: (a["V"][::-1], a["V"][::-1])),
    ("default gemv strided vector", None, lambda a: (a["M"][:, ::2], a["V"][::-2])),
    ("default batched gemv reused vector", None, lambda a: (a["R8"], a["V"][40:0:-1])),
    (
        "default broadcast_to zero stride",
        None,
        lambda a: (sa.broadcast_to(a["A"][:40, :40], (8, 40, 40)), a["R8"][:, ::-1]),
    ),
]

# (name, operation): views and the packing primitives on their own.
VIEW_OPS: list[tuple[str, Callable[[dict[str, sa.Array]], sa.Array]]] = [
    (
        "to_row_major of a view chain",
        lambda a: sa.permute_dims(sa.flip(a["X2"], axis=-1), (3, 0, 2, 1))[::2].to_row_major(),
    ),
    ("to_row_major reversed", lambda a: a["M"][::-1, ::-3].to_row_major()),
    ("_pack with cast", lambda a: a["I64"].mT[::-3]._pack(sa.complex128)),
    ("broadcast view read", lambda a: sa.broadcast_to(a["V"][::-4], (3, 64)).to_row_major()),
]
NTASKS = len(MATMULS) + len(VIEW_OPS)


def _arrays(src: dict[str, np.ndarray]) -> dict[str, sa.Array]:
    """Fresh Arrays over the shared read-only buffers (no cached C descriptors yet)."""
    return {k: sa.asarray(v) for k, v in src.items()}


def _run(i: int, arrs: dict[str, sa.Array]) -> tuple[tuple, str | None]:
    """Task i: (its result as (dtype, shape, bytes), the route explain reports or None)."""
    if i < len(MATMULS):
        _, force, operands = MATMULS[i]
        x1, x2 = operands(arrs)
        with sa.matmul_policy(force=force):
            out = np.asarray(x1 @ x2)
            route = sa.matmul_explain(x1, x2)["route"]
        return (out.dtype.str, out.shape, out.tobytes()), route
    out = np.asarray(VIEW_OPS[i - len(MATMULS)][1](arrs))
    return (out.dtype.str, out.shape, out.tobytes()), None


def _serial(src: dict[str, np.ndarray]) -> list[tuple[tuple, str | None]]:
    """Every task once, in this thread, on its own Arrays (the shared ones stay cold)."""
    arrs = _arrays(src)
    results = [_run(i, arrs) for i in range(NTASKS)]
    # Sanity: the serial run is NumPy's product, on the forced route.
    for i, (name, force, operands) in enumerate(MATMULS):
        x1, x2 = operands(arrs)
        (dt, shape, raw), route = results[i]
        got = np.frombuffer(raw, dt).reshape(shape)
        want = np.matmul(np.asarray(x1).astype(dt), np.asarray(x2).astype(dt))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4, err_msg=name)
        assert force is None or route == force, (name, route)
    return results


def _c_pack_stats() -> dict:
    """The C core's allocation counters."""
    from stridedarray._matmul.diagnostics import c_alloc_stats

    return c_alloc_stats()


def _threads_match_serial(iterations: int) -> None:
    """NTHREADS threads x `iterations` rounds of every task on shared Arrays == serial run."""
    src = _inputs()
    before = {k: v.copy() for k, v in src.items()}
    expected = _serial(src)
    stats0 = _c_pack_stats()
    shared = _arrays(src)  # one set of Arrays used by every thread
    barrier = threading.Barrier(NTHREADS)
    failures: list[str] = []
    done = [0] * NTHREADS

    def worker(t: int) -> None:
        try:
            barrier.wait()
            for it in range(iterations):
                # Each thread walks the tasks in its own rotated order, so at any moment the
                # threads run different routes under different forced policies.
                for j in range(NTASKS):
                    i = (j + t * 3 + it) % NTASKS
                    got = _run(i, shared)
                    if got != expected[i]:
                        name = (MATMULS + VIEW_OPS)[i][0]
                        failures.append(
                            f"thread {t} iteration {it}: {name}: route "
                            f"{got[1]} (serial {expected[i][1]}), result "
                            f"bit-identical: {got[0] == expected[i][0]}"
                        )
                    done[t] += 1
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            failures.append(f"thread {t}: {type(e).__name__}: {e}")
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(NTHREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures, "\n".join(failures[:20])
    assert done == [iterations * NTASKS] * NTHREADS
    for k, v in src.items():
        np.testing.assert_array_equal(v, before[k], err_msg=f"input {k} changed")
    # Every pack and scratch block the threads made was freed (the counters are atomic).
    stats = _c_pack_stats()
    for cat in ("pack", "scratch"):
        assert stats[cat]["current"] == stats0[cat]["current"], (cat, stats0, stats)
        assert (
            stats[cat]["allocations"] - stats0[cat]["allocations"]
            == stats[cat]["frees"] - stats0[cat]["frees"]
        ), (cat, stats0, stats)


# _threads_match_serial compares the C core's process-wide allocation counters before and
# after: parallel copies of the test allocate in between.
_COUNTS_ALLOCATIONS = pytest.mark.thread_unsafe(
    reason="compares the C core's process-wide allocation counters before and after; other "
    "threads' calls allocate in between"
)


@_COUNTS_ALLOCATIONS
def test_threads_match_serial_run_bit_for_bit():
    _threads_match_serial(ITERATIONS)


@_COUNTS_ALLOCATIONS
def test_threads_match_serial_with_two_blas_threads():
    """The same with our OpenBLAS at two threads: several Python threads then call into one
    OpenBLAS pool at once. Bit-for-bit still holds: threaded ?gemm/?gemv split the output,
    not the contraction, and the vectors here are below OpenBLAS's threaded-dot size."""
    before = lib.scipy_openblas_get_num_threads()
    lib.scipy_openblas_set_num_threads(2)
    try:
        _threads_match_serial(ITERATIONS // 4)
    finally:
        lib.scipy_openblas_set_num_threads(before)


def test_matmul_policy_is_per_thread():
    """A policy set in one thread is invisible to another, even while both are inside
    `matmul_policy` blocks at the same time (the barriers fix the interleaving)."""
    a = sa.asarray(np.arange(64.0 * 64).reshape(64, 64))
    b = sa.asarray(np.ones((64, 64)))
    step = threading.Barrier(2)
    seen: dict[str, list] = {"A": [], "B": []}
    errors: list[str] = []

    def record(who: str) -> None:
        pol = current_policy()
        seen[who].append((pol["force"], pol["gemm_blas_min"], sa.matmul_explain(a, b)["route"]))

    def thread_a() -> None:
        try:
            with sa.matmul_policy(force="generic"):
                step.wait()  # 1: A is inside its block
                record("A")
                step.wait()  # 2: B entered its own block
                record("A")
                step.wait()  # 3
            step.wait()  # 4: A left its block, B is still inside its own
            record("A")
            step.wait()  # 5
        except Exception as e:  # noqa: BLE001
            errors.append(f"A: {e!r}")
            step.abort()

    def thread_b() -> None:
        try:
            step.wait()  # 1
            record("B")  # A's block must not leak here
            with sa.matmul_policy(force="reference", gemm_blas_min=1000):
                step.wait()  # 2
                record("B")
                step.wait()  # 3
                step.wait()  # 4
                record("B")
            step.wait()  # 5
            record("B")
        except Exception as e:  # noqa: BLE001
            errors.append(f"B: {e!r}")
            step.abort()

    ths = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    assert not errors, errors
    default_route = sa.matmul_explain(a, b)["route"]
    assert default_route == "blas"
    base = current_policy()["gemm_blas_min"]
    assert seen["A"] == [
        ("generic", base, "generic"),
        ("generic", base, "generic"),
        (None, base, default_route),
    ]
    assert seen["B"] == [
        (None, base, default_route),
        ("reference", 1000, "reference"),
        ("reference", 1000, "reference"),
        (None, base, default_route),
    ]


# -- Part 2: the GIL is released during the C calls ------------------------------------------------
@contextmanager
def no_forced_gil_switch() -> Iterator[None]:
    """While active, a thread holding the GIL is never made to drop it between bytecodes.

    CPython forces a switch only when another thread has waited `sys.getswitchinterval()`
    seconds; at 1000 s that never happens within a test, so a thread gives up the GIL only
    where it blocks or calls C code that releases it (here: barrier waits and, if the claim
    under test holds, the C core's calls)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _big_operands() -> dict[str, Callable[[], sa.Array]]:
    """Calls that run for tens of milliseconds in one C call, per route."""
    rng = np.random.default_rng(1)
    f = sa.asarray(rng.standard_normal((1000, 1000)))
    # Values beyond 32 bits keep the generic kernel off its vpmuldq fast path (and slower).
    i = sa.asarray(rng.integers(-(2**40), 2**40, (600, 600)))
    lhs = sa.asarray(rng.standard_normal((1, 500, 500)))[..., ::-1]
    rhs = sa.asarray(rng.standard_normal((6, 500, 500)))
    r = sa.asarray(rng.standard_normal((2000, 2000))).T[::-1]

    def forced(route: str, x1: sa.Array, x2: sa.Array) -> Callable[[], sa.Array]:
        def call() -> sa.Array:
            with sa.matmul_policy(force=route):
                return x1 @ x2

        return call

    return {
        "blas": forced("blas", f, f),
        "pack_blas": forced("pack_blas", lhs, rhs),
        "generic": forced("generic", i, i),
        "to_row_major": r.to_row_major,
    }


BIG = ["blas", "pack_blas", "generic", "to_row_major"]
ATTEMPTS = 10
CONTROL_ATTEMPTS = 3


# The GIL proofs watch what other threads of the process do during a call: copies of the same
# test running in other threads at once (pytest-run-parallel) are such threads, and make a
# call that holds the GIL look as if it released it.
_GIL_PROOF = pytest.mark.thread_unsafe(
    reason="observes the process's other threads, which parallel copies of the test would be"
)


def _overlaps(fn: Callable[[], object], attempts: int = ATTEMPTS) -> list[bool]:
    """Run `fn` in two barrier-started threads, up to `attempts` times, with forced GIL switches
    off; per attempt, whether the two [start, end] perf_counter intervals overlapped (stops at
    the first overlap)."""
    overlaps: list[bool] = []
    with no_forced_gil_switch():
        for _ in range(attempts):
            barrier = threading.Barrier(2)
            spans: list[tuple[float, float]] = []

            def worker(
                barrier: threading.Barrier = barrier, spans: list[tuple[float, float]] = spans
            ) -> None:
                barrier.wait()
                start = time.perf_counter()
                fn()
                end = time.perf_counter()
                spans.append((start, end))

            ths = [threading.Thread(target=worker) for _ in range(2)]
            for th in ths:
                th.start()
            for th in ths:
                th.join()
            (s1, e1), (s2, e2) = spans
            overlaps.append(max(s1, s2) < min(e1, e2))
            if overlaps[-1]:
                break
    return overlaps


def _spinner_counts(fn: Callable[[], object], attempts: int = ATTEMPTS) -> list[int]:
    """Run `fn` in this thread while a Python spinner thread counts, up to `attempts` times with
    forced GIL switches off; per attempt, how much the count grew across the call (stops at
    the first growth)."""
    count = [0]
    stop = threading.Event()
    running = threading.Event()

    def spinner() -> None:
        while not stop.is_set():
            count[0] += 1
            running.set()
            # Sleeping releases the GIL: this only lets the main thread take the GIL back
            # after its call; it plays no part in the argument.
            time.sleep(1e-4)

    grew: list[int] = []
    with no_forced_gil_switch():
        th = threading.Thread(target=spinner)
        th.start()
        try:
            running.wait()
            for _ in range(attempts):
                c0 = count[0]
                fn()
                c1 = count[0]
                grew.append(c1 - c0)
                if c1 > c0:
                    break
        finally:
            stop.set()
            th.join()
    return grew


def _holds_gil() -> int:
    """A call that keeps the GIL throughout (pure Python, tens of milliseconds)."""
    return sum(range(2_000_000))


@_GIL_PROOF
@pytest.mark.parametrize("kind", BIG)
def test_gil_released_two_calls_overlap(kind):
    """Two threads, started together by a barrier, each record `time.perf_counter()` right
    before and right after one large C-core call (`x @ y` on the given route, or
    `to_row_major`).

    Argument (no timing threshold): with forced GIL switches off (`no_forced_gil_switch`), a
    thread that holds the GIL keeps it until it blocks or enters C code that releases it.
    Between its two perf_counter() calls a thread runs only the library's Python wrapper
    (validation, `numpy.empty`, `ffi.from_buffer`: none of them releases the GIL) and the C
    call. If the C call kept the GIL, each thread would hold the GIL without a break from its
    `start` to its `end`, so the two [start, end] intervals would be disjoint: two threads
    cannot hold the GIL at once, and perf_counter is one monotonic system clock shared by all
    threads. Intervals that overlap therefore prove the C call released the GIL.

    Overlap also needs the second thread to reach its call while the first is still inside
    its own; on a loaded machine it may not, so the pair is tried up to ATTEMPTS times and
    one overlap is enough (a GIL held throughout could never produce one; the control test
    below shows the harness finds none for such a call)."""
    fn = _big_operands()[kind]
    fn()  # warm up: descriptors, pack paths, OpenBLAS buffers
    overlaps = _overlaps(fn)
    assert any(overlaps), f"{kind}: no overlap in {ATTEMPTS} attempts"


@_GIL_PROOF
@pytest.mark.parametrize("kind", BIG)
def test_gil_released_spinner_runs_during_c_call(kind):
    """A Python spinner thread counts loop iterations while the main thread makes one large
    C-core call; the main thread reads the count right before and right after the call.

    Argument (no timing threshold): with forced GIL switches off, the main thread keeps the
    GIL from its first read of the counter to its second unless the call releases it (the
    wrapper around the C call does not block). The spinner increments the counter only
    while it holds the GIL (it is Python code). So a count that grew across the call proves
    the GIL was released inside it. Tried up to ATTEMPTS times in case the spinner is not
    scheduled during a call; the control test shows a GIL-holding call never lets it grow."""
    fn = _big_operands()[kind]
    fn()
    grew = _spinner_counts(fn)
    assert any(g > 0 for g in grew), f"{kind}: spinner never ran during a call: {grew}"


@_GIL_PROOF
def test_gil_harness_control_call_holding_the_gil():
    """Control for the two proofs: a call that keeps the GIL (pure Python) gives no overlap
    and no spinner growth in any attempt, so a positive result above is not an artefact."""
    assert not any(_overlaps(_holds_gil, CONTROL_ATTEMPTS))
    assert not any(_spinner_counts(_holds_gil, CONTROL_ATTEMPTS))


# ---- Part 3: the thread pool (csrc/core/runtime/threads.c) ---------------------------------
# A product at N threads equals the product at 1 thread, bit for bit: the work is split over
# output rows, columns or batch items, never over K, and a BLAS product is cut into bands
# that depend on its shape alone (csrc/core/matmul/blas.c), so the same calls are made whoever runs
# them. `parallel_min_work=0` makes every product that can split do so.

_DTYPES = ["int8", "uint16", "int32", "int64", "float32", "float64", "complex64", "complex128"]


def _operand(rng: np.random.Generator, dtype: str, batch: tuple, rows: int, cols: int, layout: str):
    """A (batch..., rows, cols) operand as a NumPy array in one of several layouts."""
    if layout == "T":
        base = rng.integers(-4, 5, (*batch, cols, rows)).astype(dtype)
        return np.swapaxes(base, -1, -2)
    if layout == "rev":
        return rng.integers(-4, 5, (*batch, rows, cols)).astype(dtype)[..., ::-1, :]
    if layout == "step2":
        return rng.integers(-4, 5, (*batch, rows, 2 * cols)).astype(dtype)[..., ::2]
    if layout == "bcast" and batch:
        one = rng.integers(-4, 5, (rows, cols)).astype(dtype)
        return np.broadcast_to(one, (*batch, rows, cols))
    return rng.integers(-4, 5, (*batch, rows, cols)).astype(dtype)


def _floats(rng: np.random.Generator, a: np.ndarray) -> np.ndarray:
    """Non-integer values for float operands (so rounding, and its order, shows)."""
    if a.dtype.kind not in "fc":
        return a
    out = np.array(a)  # (broadcast operands become writable copies with their layout lost)
    out += rng.standard_normal(out.shape).astype(out.dtype) / 3
    return out


# The tests below set the process-wide thread count (or the processor count behind its
# default): parallel copies of a test would set it between another copy's steps.
_SETS_THE_THREAD_COUNT = pytest.mark.thread_unsafe(
    reason="sets the process-wide thread count, which parallel copies of the test set too"
)


@_SETS_THE_THREAD_COUNT
@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from(_DTYPES),
    size=st.sampled_from(["small", "medium", "bands", "kparts"]),
    batch=st.sampled_from([(), (1,), (3,), (2, 3), (9,)]),
    layouts=st.tuples(*[st.sampled_from(["C", "T", "rev", "step2", "bcast"])] * 2),
    vec=st.sampled_from(["", "lhs", "rhs"]),
    force=st.sampled_from([None, "generic", "blas", "pack_blas"]),
    threads=st.integers(2, 4),
    seed=st.integers(0, 2**16),
)
def test_product_at_n_threads_equals_one_thread_bit_for_bit(
    dtype, size, batch, layouts, vec, force, threads, seed
):
    rng = np.random.default_rng(seed)
    M, N, K = {
        "small": (int(rng.integers(1, 9)), int(rng.integers(1, 9)), int(rng.integers(1, 9))),
        "medium": (int(rng.integers(20, 90)), int(rng.integers(20, 140)), int(rng.integers(8, 70))),
        # past the BLAS bands' threshold (4M multiply-adds and 256 columns)
        "bands": (
            int(rng.integers(120, 160)),
            int(rng.integers(256, 300)),
            int(rng.integers(140, 170)),
        ),
        # a single deep, narrow product: BLAS sums it in K parts (4M multiply-adds, at most
        # 65,536 outputs and fewer than 256 columns, K at least 2 x 512)
        "kparts": (
            int(rng.integers(40, 100)),
            int(rng.integers(50, 250)),
            int(rng.integers(1100, 2600)),
        ),
    }[size]
    if size == "bands":
        batch = batch[:1]
    if size == "kparts":
        batch = ()
    a = _floats(rng, _operand(rng, dtype, batch, M, K, layouts[0]))
    b = _floats(rng, _operand(rng, dtype, batch, K, N, layouts[1]))
    lead = (0,) * len(batch)
    if vec == "lhs":  # a vector (K,) against the whole stack
        a = a[(*lead, 0)]
    elif vec == "rhs":
        b = b[lead][:, 0]
    x, y = sa.asarray(a), sa.asarray(b)
    before = sa.set_num_threads(1)
    try:
        with sa.matmul_policy(force=force, parallel_min_work=0):
            one = np.asarray(x @ y)
            sa.set_num_threads(threads)
            many = np.asarray(x @ y)
            used = sa.matmul_explain(x, y)["threads"]
    finally:
        sa.set_num_threads(before)
    assert 1 <= used <= threads
    assert one.dtype == many.dtype and one.shape == many.shape
    assert one.tobytes() == many.tobytes(), (dtype, a.shape, b.shape, layouts, force, used)
    np.testing.assert_allclose(
        one, a @ b, rtol=1e-4 if one.dtype.itemsize <= 8 else 1e-12, atol=1e-3
    )


@_SETS_THE_THREAD_COUNT
@settings(max_examples=20, deadline=None)
@given(
    dtype=st.sampled_from(["float32", "float64", "complex64", "complex128"]),
    k=st.integers(1 << 16, 5 << 16),
    reverse=st.booleans(),
    threads=st.integers(2, 4),
    seed=st.integers(0, 2**16),
)
def test_dot_in_k_parts_equals_one_thread_bit_for_bit(dtype, k, reverse, threads, seed):
    """A long dot product is summed in K parts fixed by K (csrc/core/matmul/blas.c): the same
    sum on any thread count, both vectors walked backwards too (BLAS's both -1 case)."""
    rng = np.random.default_rng(seed)
    a = _floats(rng, rng.integers(-4, 5, k).astype(dtype))
    b = _floats(rng, rng.integers(-4, 5, k).astype(dtype))
    x, y = sa.asarray(a), sa.asarray(b)
    if reverse:
        x, y, a, b = x[::-1], y[::-1], a[::-1], b[::-1]
    before = sa.set_num_threads(1)
    try:
        with sa.matmul_policy(parallel_min_work=0):
            one = np.asarray(x @ y)
            sa.set_num_threads(threads)
            many = np.asarray(x @ y)
            assert sa.matmul_explain(x, y)["route"] == "blas"
    finally:
        sa.set_num_threads(before)
    assert one.tobytes() == many.tobytes()
    exact = np.dot(a.astype(np.complex256 if a.dtype.kind == "c" else np.longdouble), b)
    scale = float(np.abs(a).max()) * float(np.abs(b).max()) * k
    tol = 8 * np.finfo(one.dtype).eps * scale
    assert abs(complex(one) - complex(exact)) <= tol


@_SETS_THE_THREAD_COUNT
def test_products_do_use_several_threads() -> None:
    """The bit-for-bit test above is not vacuous: these products do split (explain)."""
    before = sa.set_num_threads(3)
    try:
        with sa.matmul_policy(parallel_min_work=0):
            g = sa.asarray(np.ones((40, 30), dtype=np.int64))
            assert sa.matmul_explain(g, g.mT)["threads"] == 3  # generic, row bands
            f = sa.asarray(np.ones((9, 20, 20)))
            assert sa.matmul_explain(f, f)["threads"] == 3  # BLAS, batch items
            big = sa.asarray(np.ones((128, 400)))
            assert sa.matmul_explain(big.mT, big)["threads"] == 3  # BLAS, bands
            deep = sa.asarray(np.ones((64, 4096)))
            assert sa.matmul_explain(deep, deep.mT)["threads"] == 2  # BLAS, two K parts
            long = sa.asarray(np.ones(1 << 18))
            assert sa.matmul_explain(long, long)["threads"] == 2  # BLAS dot, two K parts
    finally:
        sa.set_num_threads(before)


@_SETS_THE_THREAD_COUNT
def test_set_num_threads_none_restores_the_default_in_every_thread() -> None:
    """set_num_threads(1) makes 1 the calling thread's OpenMP limit too; None gives every
    thread its default back: the thread that set it, one started before, one after."""
    default = sa.set_num_threads(None)
    default = sa.get_num_threads()
    ready, go, seen = threading.Event(), threading.Event(), {}

    def early() -> None:
        sa.set_num_threads(1)
        seen["early_at_1"] = sa.get_num_threads()
        ready.set()
        go.wait(30)
        seen["early"] = sa.get_num_threads()

    t = threading.Thread(target=early)
    t.start()
    assert ready.wait(30)
    sa.set_num_threads(1)
    assert sa.get_num_threads() == 1
    sa.set_num_threads(None)
    assert sa.get_num_threads() == default
    go.set()
    t.join()
    late = threading.Thread(target=lambda: seen.__setitem__("late", sa.get_num_threads()))
    late.start()
    late.join()
    assert seen == {"early_at_1": 1, "early": default, "late": default}


AFFINITY = textwrap.dedent("""
    import os
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    import stridedarray as sa
    from stridedarray._matmul.ffi import lib
    print(sa.get_num_threads(), lib.sa_threads_cores())
    os.sched_setaffinity(0, allowed)
    sa.set_num_threads(None)
    print(lib.sa_threads_cores() == len(os.sched_getaffinity(0)))
""")


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity")
def test_thread_count_follows_the_affinity() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", AFFINITY], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    assert out == ["1", "1", "True"]


STEERING = textwrap.dedent("""
    import os, time
    import numpy as np, stridedarray as sa
    allowed = os.sched_getaffinity(0)
    sa.set_num_threads(2)
    a = sa.asarray(np.ones((256, 256)))
    with sa.matmul_policy(parallel_min_work=0):
        for _ in range(20):
            a @ a
    def workers():
        names = {t: open(f"/proc/self/task/{t}/comm").read().strip()
                 for t in os.listdir("/proc/self/task")}
        return [os.sched_getaffinity(int(t)) for t, name in names.items() if name == "sa-worker"]
    # a worker moves itself before it sleeps; give a loaded machine time to run it
    deadline = time.monotonic() + 60
    while not (masks := workers()) or any(len(m) != len(allowed) - 1 for m in masks):
        if time.monotonic() > deadline:
            break
        time.sleep(0.01)
    print(len(masks), all(len(m) == len(allowed) - 1 and m < allowed for m in masks))
""")


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2,
    reason="Linux, with two processors or more",
)
def test_a_sleeping_worker_leaves_the_callers_processor() -> None:
    """Before a pool worker sleeps it moves off the processor its last caller ran on (its
    affinity: the processors it started with, less that one), so that a product after a
    pause finds it on another processor instead of queued behind the caller
    (csrc/core/runtime/threads.c; docs/matmul.md, "Threads")."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", STEERING], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    assert out == ["1", "True"]


def test_thread_count_follows_a_cgroup_quota(tmp_path) -> None:
    from stridedarray._matmul.threads import _cgroup_cpus

    proc = tmp_path / "cgroup"
    proc.write_text("1:cpu:/\n0::/user.slice/job\n")
    root = tmp_path / "fs"
    job = root / "user.slice" / "job"
    job.mkdir(parents=True)
    assert _cgroup_cpus(root, proc) is None  # no cpu.max anywhere
    (job / "cpu.max").write_text("max 100000\n")
    assert _cgroup_cpus(root, proc) is None  # no limit
    (job / "cpu.max").write_text("150000 100000\n")
    assert _cgroup_cpus(root, proc) == 2  # 1.5 processors: rounded up
    (job / "cpu.max").write_text("20000 100000\n")
    assert _cgroup_cpus(root, proc) == 1  # at least 1
    (job / "cpu.max").write_text("300000 100000\n")
    (root / "user.slice" / "cpu.max").write_text("200000 100000\n")
    assert _cgroup_cpus(root, proc) == 2  # the parent's quota is smaller
    proc.write_text("1:cpu:/\n")
    assert _cgroup_cpus(root, proc) is None  # cgroup v1 only
    assert _cgroup_cpus(root, tmp_path / "missing") is None


@_SETS_THE_THREAD_COUNT
def test_cgroup_quota_caps_the_default(monkeypatch) -> None:
    import stridedarray._matmul.threads as th

    monkeypatch.setattr(th, "_cgroup_cpus", lambda: 1)
    before = lib.sa_threads_setting()
    try:
        sa.set_num_threads(None)
        assert lib.sa_threads_cores() == 1 and sa.get_num_threads() == 1
    finally:
        monkeypatch.undo()
        sa.set_num_threads(None)
        if before != lib.sa_threads_setting():
            sa.set_num_threads(before)

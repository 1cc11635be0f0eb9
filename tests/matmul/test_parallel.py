"""The core on several threads (docs/matmul.md, "Threads"): same results as on one thread.

The generic kernel splits only the batch, C's rows or C's columns, never the contraction, so
its results on any thread count must equal the one-thread results bit for bit, for every
dtype and layout. The BLAS routes split into smaller BLAS calls of the same kind; OpenBLAS's
summation order may then differ, so they are held to the matmul tolerance. `parallel_min_work`
is set to 0 so that even small products run on every thread, and thread counts above the
machine's cores (3) give uneven bands.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_generic_kernel import DTYPES, LAYOUTS, _operand
from test_ksplit import problems as ksplit_problems

import stridedarray as sa
from stridedarray._matmul.ffi import lib
from stridedarray._matmul.threads import openmp_library

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
    pytest.mark.serial,
]  # tests/conftest.py says what each means


@pytest.fixture(autouse=True)
def restore_threads() -> Iterator[None]:
    """Every test leaves the core's setting as it found it."""
    before = lib.sa_threads_setting()
    yield
    sa.set_num_threads(before)


def _bits(x: sa.Array) -> tuple[str, tuple[int, ...], bytes]:
    a = np.asarray(x)
    return a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes()


def _on(threads: int, force: str | None, a: np.ndarray, b: np.ndarray) -> sa.Array:
    sa.set_num_threads(threads)
    x, y = sa.asarray(a), sa.asarray(b)
    with sa.matmul_policy(force=force, parallel_min_work=0):
        return x @ y


# Shapes that reach every split: long batches (items), many rows (row bands of 8), few rows and
# many columns (column bands of 64), N == 1 (row bands of the dot products), K past one block.
@st.composite
def _problem(draw):  # type: ignore[no-untyped-def]
    dtype = draw(st.sampled_from(DTYPES))
    M = draw(st.sampled_from([0, 1, 2, 5, 9, 17, 40, 131]))
    N = draw(st.sampled_from([0, 1, 3, 64, 65, 130, 200]))
    K = draw(st.sampled_from([0, 1, 7, 33, 300]))
    batch = draw(st.sampled_from([(), (1,), (2,), (3,), (7,), (2, 3)]))
    lb = draw(st.sampled_from([batch, (1,) * len(batch), batch[1:]]))
    la, lb_ = draw(st.sampled_from(LAYOUTS)), draw(st.sampled_from(LAYOUTS))
    a_vec = draw(st.booleans()) and not lb
    b_vec = draw(st.booleans()) and not batch and not a_vec
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    a = _operand(rng, (K,) if a_vec else (*lb, M, K), dtype, la)
    b = _operand(rng, (K,) if b_vec else (*batch, K, N), dtype, lb_)
    return a, b


@settings(max_examples=150, deadline=None)
@given(_problem())
def test_generic_kernel_is_bit_identical_on_any_thread_count(ab) -> None:
    a, b = ab
    one = _bits(_on(1, "generic", a, b))
    for threads in (2, 3):
        assert _bits(_on(threads, "generic", a, b)) == one, f"{threads} threads"


@settings(max_examples=100, deadline=None)
@given(ksplit_problems())
def test_split_k_is_bit_identical_on_any_thread_count(ab) -> None:
    """A contracted dimension of two strided axes (einsum's, tests/matmul/test_ksplit.py):
    the generic kernel reads it on any thread count with the same bits."""
    from stridedarray._matmul.product import matmul_ksplit

    a, b = ab
    outs = []
    for threads in (1, 2, 3):
        sa.set_num_threads(threads)
        with sa.matmul_policy(parallel_min_work=0):
            outs.append(_bits(matmul_ksplit(sa.asarray(a), sa.asarray(b))))
    assert outs[1] == outs[0] and outs[2] == outs[0]


@settings(max_examples=60, deadline=None)
@given(_problem())
def test_default_routes_match_one_thread(ab) -> None:
    """Whatever route is chosen (BLAS split into bands or over the batch, pack-once, generic),
    two and three threads agree with one thread within the matmul tolerance."""
    a, b = ab
    one = np.asarray(_on(1, None, a, b))
    for threads in (2, 3):
        got = np.asarray(_on(threads, None, a, b))
        assert got.shape == one.shape and got.dtype == one.dtype
        if one.dtype.kind in "iu":
            np.testing.assert_array_equal(got, one)
        else:
            k = a.shape[-1]
            eps = np.finfo(one.dtype).eps
            scale = max(1.0, float(np.abs(a).max(initial=0)) * float(np.abs(b).max(initial=0)))
            np.testing.assert_allclose(got, one, rtol=0, atol=8 * max(k, 1) * eps * scale)


@pytest.mark.parametrize(
    "shape_a, shape_b, route",
    [
        ((10, 64, 64), (10, 64, 64), "blas"),  # the batch over threads
        ((300, 300), (300, 300), "blas"),  # one product in column bands
        ((1, 96, 96), (8, 96, 96), "pack_blas"),  # packed, then the batch over threads
        ((200, 200), (200, 200), "generic"),  # the generic kernel in row bands
    ],
)
def test_explain_reports_the_threads_used(shape_a, shape_b, route) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape_a)
    b = rng.standard_normal(shape_b)
    x, y = sa.asarray(a), sa.asarray(b)
    if route == "pack_blas":
        x = x[..., ::-1]
    force = "generic" if route == "generic" else None
    sa.set_num_threads(2)
    with sa.matmul_policy(force=force):
        e = sa.matmul_explain(x, y)
        assert e["route"] == route and e["threads"] == 2
        np.testing.assert_allclose(
            np.asarray(x @ y), np.asarray(x) @ np.asarray(y), rtol=1e-12, atol=1e-10
        )
    sa.set_num_threads(1)
    assert sa.matmul_explain(x, y)["threads"] == 1
    # Small products stay on one thread whatever the setting.
    sa.set_num_threads(2)
    assert sa.matmul_explain(sa.ones((8, 8)), sa.ones((8, 8)))["threads"] == 1


def test_set_num_threads_checks_its_argument() -> None:
    with pytest.raises(ValueError, match="n"):
        sa.set_num_threads(0)
    with pytest.raises(TypeError, match="n"):
        sa.set_num_threads(True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="n"):
        sa.set_num_threads(1.5)  # type: ignore[arg-type]
    before = sa.set_num_threads(3)
    assert lib.sa_threads_setting() == 3
    assert sa.set_num_threads(None) == 3
    assert lib.sa_threads_setting() == lib.sa_threads_cores()
    sa.set_num_threads(before)


def test_default_is_the_cores_and_every_route_has_one_setting() -> None:
    sa.set_num_threads(None)
    assert lib.sa_threads_openmp() == 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert lib.sa_threads_setting() == cores
    # Our OpenBLAS runs one thread per call: the core splits BLAS work itself.
    assert sa.blas_info()["threads"] == 1


def test_threadpoolctl_sees_and_limits_the_core() -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    sa.set_num_threads(2)
    here = os.path.dirname(sa.__file__)
    info = threadpoolctl.threadpool_info()
    # our OpenMP runtime: other packages (scikit-learn, ...) may load copies of their own
    runtime = os.path.realpath(openmp_library())
    openmp = [
        d for d in info if d["user_api"] == "openmp" and os.path.realpath(d["filepath"]) == runtime
    ]
    assert len(openmp) == 1, (runtime, info)
    ours = [
        d
        for d in info
        if d["user_api"] == "blas"
        and os.path.realpath(d["filepath"]).startswith(os.path.realpath(here))
    ]
    assert len(ours) == 1 and ours[0]["num_threads"] == 1, info
    x = sa.ones((256, 256))
    big = sa.matmul_explain(x, x)
    assert big["threads"] == min(2, openmp[0]["num_threads"])
    with threadpoolctl.threadpool_limits(1):
        assert sa.get_num_threads() == 1
        assert sa.matmul_explain(x, x)["threads"] == 1
        assert all(
            d["num_threads"] == 1
            for d in threadpoolctl.threadpool_info()
            if d["filepath"] == ours[0]["filepath"]
        )
    with threadpoolctl.threadpool_limits(1, user_api="openmp"):
        assert sa.get_num_threads() == 1
    # threadpoolctl raising our OpenBLAS: BLAS threads itself, the core does not split on top.
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        assert sa.matmul_explain(x, x)["threads"] == 1
        np.testing.assert_array_equal(np.asarray(x @ x), np.full((256, 256), 256.0))
    assert sa.matmul_explain(x, x)["threads"] == big["threads"]


def test_cli_prints_the_thread_count() -> None:
    # (other tests' imports may leave OMP_NUM_THREADS in the environment: Dask sets it)
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-m", "stridedarray"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    ).stdout
    assert f"threads: {lib.sa_threads_cores()} " in out
    env["OMP_NUM_THREADS"] = "1"
    out = subprocess.run(
        [sys.executable, "-m", "stridedarray"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    ).stdout
    assert "threads: 1 " in out


# A fork while the pool's workers run, and after they ran: the child must finish with the
# right result. The workers do not survive a fork; the child forgets them and starts its own
# (csrc/core/runtime/threads.c), so it still uses two threads.
FORK = textwrap.dedent("""
    import os, threading
    import numpy as np
    import stridedarray as sa
    sa.set_num_threads(2)
    a = sa.asarray(np.arange(300 * 300, dtype=np.int64).reshape(300, 300) % 7)
    b = a[::-1]
    expected = np.asarray(a) @ np.asarray(b)
    assert sa.matmul_explain(a, b)["threads"] == 2
    def ok():
        return bool(np.array_equal(np.asarray(a @ b), expected))
    assert ok()
    stop = threading.Event()
    def work():
        while not stop.is_set():
            a @ b
    t = threading.Thread(target=work)
    t.start()
    for _ in range(10):
        pid = os.fork()
        if pid == 0:
            good = ok() and sa.get_num_threads() == 2
            good = good and sa.matmul_explain(a, b)["threads"] == 2 and ok()
            os._exit(0 if good else 3)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
    stop.set()
    t.join()
    print("ok", ok())
""")


def test_fork_while_pool_workers_run_does_not_hang() -> None:
    if not hasattr(os, "fork") or lib.sa_threads_cores() < 2:
        pytest.skip("needs fork and two processors")
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    proc = subprocess.Popen(
        [sys.executable, "-c", FORK],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("a fork while pool workers ran hung")
    assert proc.returncode == 0, err
    assert out.split() == ["ok", "True"]

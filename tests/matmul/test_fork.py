"""Fork safety: forks racing BLAS-routed matmuls in other threads neither hang nor break BLAS.

Without the guard of csrc/core/runtime/fork_guard.c, OpenBLAS's pre-fork handler races a threaded
BLAS call in another thread and the parent hangs in a join (within the first few forks here).
Each test runs the race in a child interpreter with a timeout, so a hang fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

import stridedarray as sa
from stridedarray._matmul.ffi import lib

pytestmark = [
    pytest.mark.c_core,  # tests/conftest.py says what each marker means
    pytest.mark.version_sensitive,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform has no fork"),
]

TIMEOUT = 60  # seconds; a passing run takes 2-3 s on a busy 2-core machine

# The race, run in a child interpreter. Two threads multiply 128 x 128 float64 matrices (BLAS
# route, large enough for OpenBLAS to use its worker threads) until told to stop; the main
# thread forks with os.fork, with multiprocessing's "fork" start method and through
# subprocess with a preexec_fn (which forks in C). Every forked child multiplies too and
# exits with 0 only when its result is right, so BLAS must work again after the fork.
RACE = textwrap.dedent("""
    import multiprocessing, os, subprocess, sys, threading
    import stridedarray as sa
    from stridedarray._matmul.ffi import blas_info, lib

    n = 128
    a = sa.ones((n, n))
    b = sa.ones((n, n))
    assert sa.matmul_explain(a, b)["route"] == "blas"

    def child_ok():
        c = a @ b
        return bool(sa.all(c == float(n)))

    def mp_child():
        sys.exit(0 if child_ok() else 3)

    stop = threading.Event()
    rounds = [0, 0]

    def work(k):
        while not stop.is_set():
            a @ b
            rounds[k] += 1

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for _ in range(20):
        pid = os.fork()
        if pid == 0:
            os._exit(0 if child_ok() else 3)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
    ctx = multiprocessing.get_context("fork")
    for _ in range(5):
        p = ctx.Process(target=mp_child)
        p.start()
        p.join()
        assert p.exitcode == 0, p.exitcode
    for _ in range(3):
        subprocess.run(["true"], preexec_fn=lambda: None, check=True)
    stop.set()
    for t in threads:
        t.join()
    assert lib.sa_fork_guard_active() == 0
    print("threads", blas_info()["threads"], "rounds", min(rounds), "ok", child_ok())
""")


def _run_race() -> str:
    # OpenBLAS with worker threads (two, or one per core if fewer): the race needs them.
    # Other tests' imports may have left a thread limit in the environment (Dask sets
    # OMP_NUM_THREADS for its workers, and OpenBLAS reads that too).
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
    }
    env["OPENBLAS_NUM_THREADS"] = "2"
    # A session of its own, so that a hang is ended with every process it forked.
    proc = subprocess.Popen(
        [sys.executable, "-W", "ignore::DeprecationWarning", "-c", RACE],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"forks racing BLAS matmuls hung (no end within {TIMEOUT} s)")
    assert proc.returncode == 0, err
    return out


def test_forks_racing_blas_matmuls_finish() -> None:
    """os.fork, multiprocessing 'fork' and subprocess forks while two threads run BLAS."""
    words = _run_race().split()
    threads, rounds = int(words[1]), int(words[3])
    assert words[4:] == ["ok", "True"]
    # The race needs OpenBLAS worker threads; with one core there are none to race.
    if (os.cpu_count() or 1) >= 2:
        assert threads >= 2
    # Both threads were multiplying while the forks happened.
    assert rounds > 0


def test_guard_counts_nothing_after_calls() -> None:
    """Every BLAS section entered is left: none in flight after matmuls, failed ones too."""
    a = sa.ones((16, 16))
    assert sa.matmul_explain(a, a)["route"] == "blas"
    for _ in range(3):
        a @ a
    with pytest.raises(ValueError, match="matmul: contracted dimensions differ: x1 shape"):
        a @ sa.ones((3, 3))
    assert lib.sa_fork_guard_active() == 0


def test_guard_install_is_idempotent() -> None:
    """The import installed the handlers; a second install returns the first result."""
    assert lib.sa_fork_guard_install() == 0

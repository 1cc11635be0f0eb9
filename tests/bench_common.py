"""What the tests of the benchmark (tests/project/test_bench.py) and of the research suites
(tests/project/test_benchmarks_lab.py) share: leaving the process's thread counts as they were
found, and running a suite's command line."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import stridedarray as sa


@pytest.fixture(autouse=True, scope="module")
def thread_counts_restored() -> Iterator[None]:
    """The suites set the process's thread counts (stridedarray's core and, through
    threadpoolctl, every BLAS and OpenMP pool) for their runs; a test module that imports this
    fixture leaves them as it found them, so that later tests in the same process see the
    defaults."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with threadpoolctl.threadpool_limits(limits=None):  # restores every pool on exit
        yield
    sa.set_num_threads(None)  # the default, which the rest of the suite runs with


def run_suite(module: str, args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`python -m MODULE --no-progress ARGS` (in `cwd`), its output captured."""
    return subprocess.run(
        [sys.executable, "-m", module, "--no-progress", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )

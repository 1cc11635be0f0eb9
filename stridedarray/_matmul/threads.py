"""The C core's thread count: one setting for every matmul route and for packing.

The core splits large products over a pool of worker threads of its own, which join a call
only when they are ready (docs/matmul.md, "Threads"). One process-wide setting says how many
threads a call may use; it defaults to the processors this process may use (`cpu_count`:
its CPU affinity, and a cgroup v2 CPU quota). A call uses at most the OpenMP limit of the
thread that makes it, which is what threadpoolctl's `threadpool_limits` and the
OMP_NUM_THREADS variable set, so both reach the core too.

Our bundled OpenBLAS runs each call on one thread: the core splits BLAS work itself, over the
same threads as the generic kernel, so that the core's pool never runs on top of OpenBLAS's
own. An explicit OPENBLAS_NUM_THREADS (or threadpoolctl raising our OpenBLAS's count) gives
the BLAS calls OpenBLAS's own threads back; the core then does not split them.
"""

from __future__ import annotations

import math
import os

from .._base.arguments import as_int
from .ffi import lib, library_path

__all__ = ["get_num_threads", "set_num_threads", "openmp_library"]

# One OpenBLAS thread per call unless the user asked OpenBLAS for more by name.
if "OPENBLAS_NUM_THREADS" not in os.environ:
    lib.scipy_openblas_set_num_threads(1)


def _cgroup_cpus(
    root: str | os.PathLike = "/sys/fs/cgroup", proc: str | os.PathLike = "/proc/self/cgroup"
) -> int | None:
    """The CPU quota of this process's cgroup v2 and its ancestors, in whole processors.

    `cpu.max` holds "quota period" (or "max period": no limit); the quota in processors is
    quota / period rounded up, at least 1, and the smallest along the path from the
    process's cgroup (read from `proc`, the "0::" line) up to `root` counts. None when there
    is no cgroup v2 or no quota. `root` and `proc` are arguments for tests.
    """

    # os.path and open, not pathlib: this runs at import, and pathlib would be imported for it.
    def read(path: str) -> str:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()

    try:
        lines = read(os.fspath(proc)).splitlines()
    except OSError:
        return None
    rel = next((line[3:] for line in lines if line.startswith("0::")), None)
    if rel is None:
        return None
    best: int | None = None
    base = os.path.normpath(os.fspath(root))
    here = os.path.normpath(os.path.join(base, rel.strip("/"))) if rel.strip("/") else base
    while True:
        try:
            words = read(os.path.join(here, "cpu.max")).split()
        except OSError:
            words = []
        if len(words) == 2 and words[0] != "max":
            try:
                quota, period = int(words[0]), int(words[1])
            except ValueError:
                quota, period = 0, 0
            if quota > 0 and period > 0:
                n = max(1, math.ceil(quota / period))
                best = n if best is None else min(best, n)
        # Up one level until the root; a path outside the root (a "../" in the cgroup file)
        # stops at once.
        if here == base or os.path.commonpath([base, here]) != base:
            return best
        here = os.path.dirname(here)


def cpu_count() -> int:
    """The processors this process may use: its CPU affinity, capped by a cgroup v2 quota.

    The default of `set_num_threads`. Counted again by ``set_num_threads(None)``.

    Examples
    --------
    >>> from stridedarray._matmul.threads import cpu_count
    >>> cpu_count() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        n = len(os.sched_getaffinity(0))
    else:  # pragma: no cover - not on Linux
        n = os.cpu_count() or 1
    quota = _cgroup_cpus()
    return max(1, min(n, quota) if quota is not None else n)


lib.sa_threads_set_cores(cpu_count())


def get_num_threads() -> int:
    """The number of threads a matmul called from this thread may use now.

    Returns
    -------
    int
        The process-wide setting (`set_num_threads`; default: the processors this process
        may use), capped by this thread's OpenMP limit (threadpoolctl's
        ``threadpool_limits``, OMP_NUM_THREADS).

    Examples
    --------
    >>> import stridedarray as sa
    >>> sa.get_num_threads() >= 1
    True
    """
    return int(lib.sa_threads_get())


def set_num_threads(n: int | None) -> int:
    """Set how many threads the C core may use, for every thread of the process.

    Parameters
    ----------
    n : int or None
        At least 1; None restores the default (the processors this process may use, counted
        again now: affinity and cgroup quota) in every thread. A number also becomes the
        OpenMP limit of the calling thread (overriding OMP_NUM_THREADS or threadpoolctl
        there); other threads keep theirs, which caps what their calls use. None gives back
        each thread the OpenMP limit it had before a number replaced it.

    Returns
    -------
    int
        The previous setting.

    Raises
    ------
    ValueError
        `n` is below 1.
    TypeError
        `n` is not an integer or None.

    Examples
    --------
    >>> import stridedarray as sa
    >>> before = sa.set_num_threads(1)
    >>> sa.get_num_threads()
    1
    >>> _ = sa.set_num_threads(before)
    """
    if n is None:
        lib.sa_threads_set_cores(cpu_count())
        return int(lib.sa_threads_set(0))
    k = as_int(n, "n", "set_num_threads", low=1)
    return int(lib.sa_threads_set(min(k, 1 << 16)))


def openmp_library() -> str:
    """The file of the OpenMP runtime the core is linked with (for reports and threadpoolctl)."""
    return library_path(lib.sa_threads_runtime_address())

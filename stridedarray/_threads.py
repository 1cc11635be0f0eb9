"""The C core's thread count: one setting for every matmul route and for packing.

The core splits large products over threads with OpenMP (docs/matmul.md, "Threads"). One
process-wide setting says how many; it defaults to the processors this process may run on. A
call uses at most the OpenMP limit of the thread that makes it, which is what threadpoolctl's
`threadpool_limits` and the OMP_NUM_THREADS variable set, so both reach the core too.

Our bundled OpenBLAS runs each call on one thread: the core splits BLAS work itself, over the
same threads as the generic kernel, so that no OpenMP team ever runs on top of OpenBLAS's own
pool. An explicit OPENBLAS_NUM_THREADS (or threadpoolctl raising our OpenBLAS's count) gives
the BLAS calls OpenBLAS's own threads back; the core then does not split them.
"""

from __future__ import annotations

import os

from ._ffi import lib, library_path
from ._validation import as_int

__all__ = ["get_num_threads", "set_num_threads", "openmp_library"]

# One OpenBLAS thread per call unless the user asked OpenBLAS for more by name.
if "OPENBLAS_NUM_THREADS" not in os.environ:
    lib.scipy_openblas_set_num_threads(1)


def get_num_threads() -> int:
    """The number of threads a matmul called from this thread may use now.

    Returns
    -------
    int
        The process-wide setting (`set_num_threads`; default: the processors this process
        may run on), capped by this thread's OpenMP limit (threadpoolctl's
        ``threadpool_limits``, OMP_NUM_THREADS); 1 in a build without OpenMP and in a child
        forked after the core had run threads.

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
        At least 1; None restores the default (the processors this process may run on). A
        number also becomes the OpenMP limit of the calling thread (overriding
        OMP_NUM_THREADS or threadpoolctl there); other threads keep theirs, which caps what
        their calls use.

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
        return int(lib.sa_threads_set(0))
    k = as_int(n, "n", "set_num_threads", low=1)
    return int(lib.sa_threads_set(min(k, 1 << 16)))


def openmp_library() -> str:
    """The file of the OpenMP runtime the core is linked with (for reports and threadpoolctl)."""
    return library_path(lib.sa_threads_runtime_address())

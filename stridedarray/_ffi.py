"""Loads the C core. The BLAS library must be in the process before the extension is.

`import scipy_openblas32` loads libscipy_openblas with RTLD_GLOBAL, which is what resolves
the extension's BLAS symbols in an editable install (where the `$ORIGIN`-relative rpath set
by build_ffi.py does not point at the wheel's library).
"""

import os

import numpy  # noqa: F401  (NumPy's own OpenBLAS loads first, under the user's environment)

# Our OpenBLAS reads OPENBLAS_THREAD_TIMEOUT once, as it loads (next import). An idle worker
# busy-waits 2**timeout cycles before it sleeps; the default 2**28 (~0.1 s) leaves our workers
# spinning after every call, which slows NumPy's next multi-threaded BLAS call several-fold when
# the two libraries alternate (docs/benchmarks.md, "Two threads"). With 2**14 cycles (a few
# microseconds) our workers sleep right after a call: measured best of 2**14/2**20/2**28 here,
# alone and alternating. NumPy's library is already loaded, so its behaviour is unchanged; a
# value the user set is kept.
_SET_TIMEOUT = "OPENBLAS_THREAD_TIMEOUT" not in os.environ
if _SET_TIMEOUT:
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = "14"
try:
    import scipy_openblas32  # side effect: loads the BLAS library globally
finally:
    if _SET_TIMEOUT:
        del os.environ["OPENBLAS_THREAD_TIMEOUT"]

from ._core import ffi, lib  # noqa: E402  (after the BLAS library is loaded)

# Fork safety (csrc/blas_fork_guard.c): our pthread_atfork handler waits for BLAS calls in
# flight before OpenBLAS's own handler stops its threads. Registered now, after OpenBLAS has
# registered its handler, so that ours runs first.
# pthread_atfork fails only when out of memory; everything but fork safety still works.
if lib.sa_fork_guard_install() != 0:
    import warnings

    warnings.warn("stridedarray: could not register the fork handler of the BLAS guard "
                  "(pthread_atfork failed); a fork while a matmul runs may hang",
                  RuntimeWarning, stacklevel=2)

__all__ = ["ffi", "lib", "blas_info"]


def blas_info() -> dict:
    """What BLAS the core runs on: library file, OpenBLAS config, core type, thread count.

    This is stridedarray's own OpenBLAS (from scipy-openblas32), not NumPy's: the two are
    separate libraries with separate thread pools. `python -m stridedarray` prints the same.

    Returns
    -------
    dict
        ``library`` (the shared library's file name), ``version`` (of the scipy-openblas32
        package), ``config`` (OpenBLAS's build configuration string), ``corename`` (the CPU
        kernel set chosen at load time, e.g. "Haswell"; OPENBLAS_CORETYPE overrides it) and
        ``threads`` (the thread count BLAS calls use now).

    Examples
    --------
    >>> import stridedarray as sa
    >>> info = sa.blas_info()
    >>> sorted(info)
    ['config', 'corename', 'library', 'threads', 'version']
    >>> info["config"].startswith("OpenBLAS"), info["threads"] >= 1
    (True, True)
    """
    return {
        "library": scipy_openblas32.get_library(fullname=True),
        "version": scipy_openblas32.__version__,
        "config": ffi.string(lib.scipy_openblas_get_config()).decode(),
        "corename": ffi.string(lib.scipy_openblas_get_corename()).decode(),
        "threads": lib.scipy_openblas_get_num_threads(),
    }

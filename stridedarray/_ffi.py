"""Loads the C core. The BLAS library must be in the process before the extension is.

`import scipy_openblas32` loads libscipy_openblas with RTLD_GLOBAL, which is what resolves
the extension's BLAS symbols in an editable install (where the `$ORIGIN`-relative rpath set
by build_ffi.py does not point at the wheel's library).
"""

import scipy_openblas32  # noqa: F401  (side effect: loads the BLAS library globally)

from ._core import ffi, lib

__all__ = ["ffi", "lib", "blas_info"]


def blas_info() -> dict:
    """What BLAS the core runs on: library file, OpenBLAS config, core type, thread count."""
    return {
        "library": scipy_openblas32.get_library(fullname=True),
        "version": scipy_openblas32.__version__,
        "config": ffi.string(lib.scipy_openblas_get_config()).decode(),
        "corename": ffi.string(lib.scipy_openblas_get_corename()).decode(),
        "threads": lib.scipy_openblas_get_num_threads(),
    }

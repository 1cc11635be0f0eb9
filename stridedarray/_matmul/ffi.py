"""Loads the C core and, with it, the OpenBLAS bundled beside it.

The extension links `_blas/libscipy_openblas_stridedarray.so` (a copy of scipy-openblas32's
library under a name of its own, see setup.py) through an `$ORIGIN`-relative run-time path, so
loading the extension loads that library; no other package is imported for it.
"""

import ctypes
import os

import numpy  # noqa: F401  (NumPy's own OpenBLAS loads first, under the user's environment)

# Our OpenBLAS reads OPENBLAS_THREAD_TIMEOUT once, as it loads (with the extension, below).
# An idle worker busy-waits 2**timeout cycles before it sleeps; the default 2**28 (~0.1 s)
# leaves our workers spinning after every call, which slows NumPy's next multi-threaded BLAS
# call several-fold when the two libraries alternate. With 2**14 cycles (a few microseconds)
# our workers sleep right after a call and our own products are no slower, alone or
# alternating (docs/benchmark-method.md, "Two OpenBLAS pools in one process", has the
# figures). NumPy's library is already loaded, so its behaviour is unchanged; a value the
# user set is kept.
_SET_TIMEOUT = "OPENBLAS_THREAD_TIMEOUT" not in os.environ
if _SET_TIMEOUT:
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = "14"
try:
    from .._core import ffi, lib  # loads the bundled OpenBLAS
finally:
    if _SET_TIMEOUT:
        del os.environ["OPENBLAS_THREAD_TIMEOUT"]

# Fork safety (csrc/core/runtime/fork_guard.c): our pthread_atfork handler waits for BLAS calls in
# flight before OpenBLAS's own handler stops its threads. Registered now, after OpenBLAS has
# registered its handler (it loaded with the extension), so that ours runs first.
# pthread_atfork fails only when out of memory; everything but fork safety still works.
if lib.sa_fork_guard_install() != 0:
    import warnings

    warnings.warn(
        "stridedarray: could not register the fork handler of the BLAS guard "
        "(pthread_atfork failed); a fork while a matmul runs may hang",
        RuntimeWarning,
        stacklevel=2,
    )

__all__ = ["ffi", "lib", "blas_info", "library_path"]


_dl_info: type | None = None  # dladdr's Dl_info, made on first use (see _dl_info_type)


def _dl_info_type() -> type:
    """ctypes' Dl_info structure, defined on first use: on 3.14 defining a Structure imports
    ctypes._layout, which `import stridedarray` has no need for."""
    global _dl_info
    if _dl_info is None:

        class DlInfo(ctypes.Structure):
            _fields_ = [
                ("dli_fname", ctypes.c_char_p),
                ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p),
                ("dli_saddr", ctypes.c_void_p),
            ]

        _dl_info = DlInfo
    return _dl_info


def _blas_library_path() -> str:
    """The file the core's BLAS symbols were bound to, as the dynamic loader reports it."""
    return library_path(lib.sa_blas_function_address())


def library_path(function: object) -> str:
    """The file of the shared library holding `function` (a cffi pointer), via dladdr."""
    addr = int(ffi.cast("uintptr_t", function))
    if not addr:
        return "(none)"
    # dladdr is in libc from glibc 2.34 on, in libdl before (looked up only then:
    # ctypes.util brings subprocess and more, and find_library may run ldconfig).
    for name in (None, "dl"):
        if name is not None:
            from ctypes.util import find_library

            name = find_library(name)
        try:
            dladdr = ctypes.CDLL(name).dladdr
        except (OSError, AttributeError):
            continue
        dl_info = _dl_info_type()
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(dl_info)]
        dladdr.restype = ctypes.c_int
        info = dl_info()
        if dladdr(ctypes.c_void_p(addr), ctypes.byref(info)) and info.dli_fname:
            return os.fsdecode(info.dli_fname)
    return "(unknown)"


def blas_info() -> dict:
    """What BLAS the core runs on: library file, OpenBLAS config, core type, thread count.

    This is stridedarray's own OpenBLAS (scipy-openblas32's library, bundled in the package),
    not NumPy's: the two are separate libraries with separate thread pools.
    `python -m stridedarray` prints the same.

    Returns
    -------
    dict
        ``library`` (the path of the shared library the core's BLAS calls are bound to),
        ``version`` (the scipy-openblas32 release it was bundled from), ``config``
        (OpenBLAS's build configuration string), ``corename`` (the CPU kernel set chosen at
        load time, e.g. "Haswell"; OPENBLAS_CORETYPE overrides it) and ``threads`` (the
        thread count BLAS calls use now).

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
        "library": _blas_library_path(),
        "version": ffi.string(lib.sa_blas_package_version()).decode(),
        "config": ffi.string(lib.scipy_openblas_get_config()).decode(),
        "corename": ffi.string(lib.scipy_openblas_get_corename()).decode(),
        "threads": lib.scipy_openblas_get_num_threads(),
    }

"""What the numbers were measured on, and the two BLAS thread pools (NumPy's and ours).

NumPy bundles its own OpenBLAS and stridedarray links scipy-openblas32: two libraries, two
thread pools. `set_threads` sets both libraries' thread counts: ours through the C core's one
setting, NumPy's through threadpoolctl (selected by file path, so the call never reaches our
library or misses NumPy's).
"""

from __future__ import annotations

import os
import platform
import warnings
from typing import Any

import numpy as np

import stridedarray as sa

from .._matmul.ffi import blas_info

__all__ = [
    "RUN",
    "blas_kernels",
    "default_threads",
    "thread_label",
    "set_threads",
    "machine_info",
    "numpy_blas",
    "numpy_idle_spin",
    "header_lines",
    "busy_warning",
]

_ENV_KEYS = (
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "OPENBLAS_NUM_THREADS",
    "OPENBLAS_THREAD_TIMEOUT",
    "OMP_NUM_THREADS",
    "STRIDEDARRAY_POLICY",
)


def _numpy_controllers() -> list[Any] | None:
    """threadpoolctl controllers of the BLAS libraries that are not ours, or None if absent."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    ours = os.path.dirname(os.path.realpath(blas_info()["library"]))
    return [
        c
        for c in ThreadpoolController().select(user_api="blas").lib_controllers
        if not os.path.realpath(c.filepath).startswith(ours)
    ]


def numpy_blas() -> list[dict]:
    """NumPy's BLAS as threadpoolctl sees it (file, version, core type, threads)."""
    ctrls = _numpy_controllers()
    if ctrls is None:
        return [{"error": "threadpoolctl not installed"}]
    return [c.info() for c in ctrls]


# What the command line adds to every run's header (cli.py fills it): the busy processes of
# --load, the pause of --pause. machine_info() copies it.
RUN: dict[str, Any] = {}

# Each library's own thread counts as this process found them, read once before any run sets
# them (`default_threads`): what `--threads default` restores.
_DEFAULTS: dict[str, Any] = {}


def default_threads() -> int:
    """The threads stridedarray's core uses by default here (the processors this process may
    run on); the first call also records NumPy's BLAS pools' own counts, for `set_threads(None)`.
    """
    if not _DEFAULTS:
        _DEFAULTS["ours"] = sa.get_num_threads()
        ctrls = _numpy_controllers()
        _DEFAULTS["numpy"] = [(c, c.num_threads) for c in ctrls] if ctrls is not None else None
    return int(_DEFAULTS["ours"])


def thread_label(n: int) -> str:
    """ "1thread", "2threads": how file and table names say a run's thread count."""
    return f"{n}thread{'s' if n > 1 else ''}"


def set_threads(n: int | None) -> None:
    """Run both libraries on n threads: stridedarray's core setting (its OpenBLAS stays at one
    thread per call, the core splits the work), NumPy's OpenBLAS via threadpoolctl. None: each
    library at its own default (ours the processors this process may use, NumPy's as it was
    when the process started), which is how a user's program runs them."""
    if n is not None and n < 1:
        raise ValueError(f"threads must be >= 1, got {n}")
    ours = default_threads()
    sa.set_num_threads(ours if n is None else n)
    ctrls = _numpy_controllers()
    if ctrls is None:
        warnings.warn(
            "threadpoolctl is not installed: NumPy's BLAS threads were not set", stacklevel=2
        )
        return
    if n is None:
        for c, count in _DEFAULTS["numpy"] or []:
            c.set_num_threads(count)
        return
    for c in ctrls:
        c.set_num_threads(n)


def machine_info() -> dict:
    """Machine, versions, BLAS core types, thread counts and the OPENBLAS_* environment."""
    ours = blas_info()
    theirs = numpy_blas()
    return {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "load_average": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "stridedarray": sa.__version__,
        "numpy_blas": _describe_numpy_blas(theirs),
        "stridedarray_blas": f"{ours['library']} {ours['version']} core {ours['corename']}, "
        f"{ours['threads']} thread(s) per call, idle thread timeout "
        f"{_timeout()}",
        "stridedarray_threads": sa.get_num_threads(),
        "blas_kernels": blas_kernels(theirs, ours),
        "env": {k: os.environ.get(k, "(unset)") for k in _ENV_KEYS},
        "matmul_policy": _policy_in_force(),
        **RUN,
    }


def blas_kernels(theirs: list[dict] | None = None, ours: dict | None = None) -> str:
    """Which OpenBLAS kernels each library loaded, and whether OPENBLAS_CORETYPE chose them
    (the machine's setting) or the library detected the CPU (native)."""
    theirs = numpy_blas() if theirs is None else theirs
    ours = blas_info() if ours is None else ours
    numpy_core = ", ".join(str(d.get("architecture", "?")) for d in theirs if "error" not in d)
    forced = os.environ.get("OPENBLAS_CORETYPE")
    how = (
        f"forced by OPENBLAS_CORETYPE={forced}"
        if forced
        else "native: OPENBLAS_CORETYPE unset, each library detected the CPU"
    )
    return f"NumPy {numpy_core or 'unknown'}, stridedarray {ours.get('corename', '?')} ({how})"


def numpy_idle_spin(settle_s: float, window_s: float = 0.05) -> str:
    """The CPU time this process burns while it sleeps right after one NumPy 256x256 product,
    and while it sleeps after first waiting `settle_s`: NumPy's idle OpenBLAS workers spinning
    (the medians of 5; the second should be ~0 for the 2-thread sampling's pause to work)."""
    import resource
    import time

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    a = np.ones((256, 256))
    burned: dict[float, list[float]] = {0.0: [], settle_s: []}
    for delay in burned:
        for _ in range(5):
            a @ a
            time.sleep(delay)
            c0 = cpu()
            time.sleep(window_s)
            burned[delay].append(cpu() - c0)
    at_once, settled = (sorted(v)[2] * 1e3 for v in burned.values())
    return (
        f"{at_once:.0f} ms of CPU in the {window_s * 1e3:.0f} ms after a call, "
        f"{settled:.1f} ms after a pause of {settle_s * 1e3:.0f} ms"
    )


def _describe_numpy_blas(libs: list[dict]) -> str:
    """NumPy's BLAS libraries in words, or why they could not be read."""
    if not libs:
        return "none found"
    if "error" in libs[0]:
        return (
            "not known: threadpoolctl is not installed, so NumPy's BLAS (library, version, "
            "core type, threads) could not be read, nor its threads set "
            "(pip install threadpoolctl)"
        )
    return ", ".join(
        f"{d.get('internal_api', '?')} {d.get('version', '?')} "
        f"core {d.get('architecture', '?')}, {d.get('num_threads', '?')} thread(s)"
        for d in libs
    )


def busy_warning(info: dict, threads: int) -> str | None:
    """A warning when other work loaded the machine: the 1-minute load average at the start,
    or at the end less the run's own `threads`, above half the cores. None on a quiet machine.
    """
    cores = info.get("cores") or 1
    start = float(str(info.get("load_average", "0")).split()[0])
    end = info.get("load_average_at_end")
    # --load K's busy processes are the run's own, asked for: not "other work".
    own = int(info.get("load_processes") or 0)
    others = max(start, float(str(end).split()[0]) - threads if end else 0.0) - own
    if others <= cores / 2:
        return None
    at_end = f", {str(end).split()[0]} at the end" if end else ""
    return (
        f"WARNING: the machine was busy: load average {start:.2f} at the start{at_end}, "
        f"on {cores} cores (other work took more than half of them). The timings are "
        "noisy and a target may be missed because of the load, not the code; run again on "
        "a quiet machine."
    )


def header_lines(info: dict, threads: int) -> list[str]:
    """The machine header as Markdown list items, then the busy-machine warning if any."""
    lines = []
    for key, value in info.items():
        if key == "env":
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        lines.append(f"- {key}: {value}")
    warning = busy_warning(info, threads)
    return lines + (["", f"**{warning}**"] if warning else [])


def _timeout() -> str:
    """The OPENBLAS_THREAD_TIMEOUT our library loaded with (stridedarray sets one if unset)."""
    from .._matmul import ffi as _ffi

    if getattr(_ffi, "_SET_TIMEOUT", False):
        return "2^14 cycles (set by stridedarray)"
    value = os.environ.get("OPENBLAS_THREAD_TIMEOUT")
    return f"2^{value} cycles (user)" if value else "OpenBLAS default 2^28 cycles"


def _policy_in_force() -> str:
    """The selector's thresholds this run used (from the library's policy table)."""
    try:
        from .._matmul.policy import current_policy
    except ImportError:
        return "unknown"
    return ", ".join(f"{k}={v}" for k, v in current_policy().items() if v is not None)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"

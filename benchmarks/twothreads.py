"""`python -m benchmarks --suite twothreads`: the two-OpenBLAS-pools problem, measured.

NumPy's bundled OpenBLAS and ours each keep a pool of worker threads. After a call, an
OpenBLAS worker busy-waits for new work for a while (OPENBLAS_THREAD_TIMEOUT, 2**28 cycles by
default, ~0.1 s) before it sleeps. Calling the two libraries alternately at 2 threads each on 2
cores therefore runs every call next to the other library's spinning worker.

Each configuration runs in a fresh subprocess (the timeout is read when a library loads), with
NumPy imported first so that an OPENBLAS_THREAD_TIMEOUT set afterwards reaches only our
library and never changes NumPy's behaviour. It times `a @ b` for NumPy alone, stridedarray
alone, and the two alternating call by call, and prints the slowdown of each side; then the CPU
time the process burns during 0.2 s of sleep right after a call of each library (the idle
workers' spinning; a number that other load on the machine barely moves).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

__all__ = ["main", "CONFIGS"]

# (label, our OPENBLAS_THREAD_TIMEOUT or None for what stridedarray sets, our OpenBLAS
# pool's threads, the core's own pool's threads)
CONFIGS = [
    ("OpenBLAS default (2^28 cycles) in both, 2 threads each", "28", 2, 1),
    ("ours 2^20 cycles, 2 threads", "20", 2, 1),
    ("ours 2^14 cycles, 2 threads", None, 2, 1),
    ("ours 1 thread", None, 1, 1),
    ("shipped: our OpenBLAS 1 thread per call, the core's pool of 2 threads", None, 1, 2),
]

_CHILD = r"""
import json, os, sys, time
import numpy as np
timeout, ours_threads, S, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
core_threads = int(sys.argv[5])
if timeout != "default":
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = timeout   # NumPy's OpenBLAS is already loaded
import stridedarray as sa
from stridedarray._matmul.ffi import lib
os.environ.pop("OPENBLAS_THREAD_TIMEOUT", None)
from threadpoolctl import threadpool_limits
threadpool_limits(2, user_api="blas")               # NumPy's pool (and ours) at 2 threads
lib.scipy_openblas_set_num_threads(ours_threads)
sa.set_num_threads(core_threads)
rng = np.random.default_rng(0)
a = rng.standard_normal((batch, S, S)); b = rng.standard_normal((batch, S, S))
x, y = sa.asarray(a), sa.asarray(b)
n = max(5, min(2000, int(2e8 / (batch * S ** 3))))
def run(mode):
    tn = ts = 0.0
    for _ in range(n):
        t0 = time.perf_counter()
        if mode != "numpy": x @ y
        t1 = time.perf_counter()
        if mode != "ours": a @ b
        t2 = time.perf_counter()
        ts += t1 - t0; tn += t2 - t1
    return ts / n, tn / n
out = {}
for mode in ("ours", "numpy", "alternate"):
    run(mode); time.sleep(0.3)
    rs = [run(mode) for _ in range(5)]
    out[mode] = [sorted(r[0] for r in rs)[2], sorted(r[1] for r in rs)[2]]
    time.sleep(0.3)
import resource
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
for who, f in (("ours_idle_cpu", lambda: x @ y), ("numpy_idle_cpu", lambda: a @ b)):
    burn = []
    for _ in range(5):   # CPU the idle workers burn while the caller sleeps 0.2 s after a call
        f(); c0 = cpu(); time.sleep(0.2); burn.append(cpu() - c0)
    out[who] = sorted(burn)[2]
print(json.dumps(out))
"""


def measure(
    timeout: str | None, ours_threads: int, size: int, batch: int, core_threads: int = 1
) -> dict:
    """Run one configuration in a fresh interpreter; median seconds per call per mode."""
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            timeout or "default",
            str(ours_threads),
            str(size),
            str(batch),
            str(core_threads),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the measuring subprocess failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None, prog: str = "python -m benchmarks.twothreads") -> int:
    """Print, per size and configuration, each library's time alone and alternating."""
    p = argparse.ArgumentParser(
        prog=prog,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--sizes", default="64,128,256", help="comma-separated S (default 64,128,256)")
    p.add_argument("--batch", type=int, default=10, help="matrices per call (default 10)")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        "| S | configuration | sa alone | NumPy alone | sa alternating | NumPy alternating "
        "| idle CPU after sa call | idle CPU after NumPy call |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for s in sizes:
        for label, timeout, threads, core in CONFIGS:
            r = measure(timeout, threads, s, args.batch, core)
            sa_alone, np_alone = r["ours"][0], r["numpy"][1]
            sa_alt, np_alt = r["alternate"]
            print(
                f"| {s} | {label} | {sa_alone * 1e3:.3f} ms | {np_alone * 1e3:.3f} ms | "
                f"{sa_alt * 1e3:.3f} ms ({sa_alt / sa_alone:.2f}x) | "
                f"{np_alt * 1e3:.3f} ms ({np_alt / np_alone:.2f}x) | "
                f"{r['ours_idle_cpu'] * 1e3:.0f} ms / 200 ms | "
                f"{r['numpy_idle_cpu'] * 1e3:.0f} ms / 200 ms |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

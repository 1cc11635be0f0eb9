"""View-cost benchmark: time to make a view with stridedarray against the same NumPy call.

    python -m benchmarks --suite views [--repeat 7] [--markdown]

Each case builds a view of the same array in both libraries, in one process, and reports the
best-of-`repeat` time per call (timeit auto-ranges the loop count) and the speed-up, NumPy's
time / stridedarray's (above 1: stridedarray is faster), as the benchmark command reports it.
The target is a speed-up of at least 1/3 (at most three times NumPy's time). This is a
benchmark, not a test: nothing asserts.
"""

from __future__ import annotations

import argparse
import platform
import time
import timeit
from collections.abc import Callable

import numpy as np

import stridedarray as sa


def cases(x: sa.Array, n: np.ndarray, v: sa.Array, m: np.ndarray) -> list[tuple]:
    """(name, stridedarray call, NumPy call) triples; x/n are 3-D, v/m are 2-D."""
    b, b_np = x[:, :1, :], n[:, :1, :]
    return [
        ("slice 1 axis  a[2:10]", lambda: x[2:10], lambda: n[2:10]),
        ("slice step -1 a[::-1]", lambda: x[::-1], lambda: n[::-1]),
        ("slice 2 axes  a[1:-1, ::2]", lambda: x[1:-1, ::2], lambda: n[1:-1, ::2]),
        ("integer index a[3]", lambda: x[3], lambda: n[3]),
        ("mixed a[..., None, 1:5]", lambda: x[..., None, 1:5], lambda: n[..., None, 1:5]),
        ("flip(axis=0)", lambda: sa.flip(x, axis=0), lambda: np.flip(n, axis=0)),
        ("flip() all axes", lambda: sa.flip(x), lambda: np.flip(n)),
        ("2-D .T", lambda: v.T, lambda: m.T),
        (".mT", lambda: x.mT, lambda: n.mT),
        ("matrix_transpose", lambda: sa.matrix_transpose(x), lambda: np.matrix_transpose(n)),
        (
            "permute_dims(2, 0, 1)",
            lambda: sa.permute_dims(x, (2, 0, 1)),
            lambda: np.permute_dims(n, (2, 0, 1)),
        ),
        ("reshape view (8, 512)", lambda: sa.reshape(x, (8, 512)), lambda: np.reshape(n, (8, 512))),
        (
            "reshape view 2-D -> (4096,)",
            lambda: sa.reshape(v, (4096,)),
            lambda: np.reshape(m, (4096,)),
        ),
        (
            "broadcast_to (4, 8, 16, 32)",
            lambda: sa.broadcast_to(b, (4, 8, 16, 32)),
            lambda: np.broadcast_to(b_np, (4, 8, 16, 32)),
        ),
        ("expand_dims(axis=0)", lambda: sa.expand_dims(x, axis=0), lambda: np.expand_dims(n, 0)),
        ("squeeze(axis=1)", lambda: sa.squeeze(b, axis=1), lambda: np.squeeze(b_np, axis=1)),
    ]


def best(fn: Callable[[], object], repeat: int) -> float:
    """Best CPU seconds per call over `repeat` auto-ranged timeit runs.

    CPU time of this process, not wall time: the machine is shared (2 cores, builds and test
    runs of other sessions), and time spent descheduled is not a cost of making a view."""
    t = timeit.Timer(fn, timer=time.process_time)
    loops, _ = t.autorange()
    return min(t.repeat(repeat=repeat, number=loops)) / loops


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run every case and print a table (markdown with --markdown)."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    n = np.arange(8 * 16 * 32, dtype=np.float64).reshape(8, 16, 32)
    m = np.arange(64 * 64, dtype=np.float64).reshape(64, 64)
    x, v = sa.asarray(n), sa.asarray(m)
    rows = []
    for name, f_sa, f_np in cases(x, n, v, m):
        # Same result first: a benchmark of a wrong view would be meaningless.
        assert np.array_equal(np.asarray(f_sa()), f_np()), name
        t_sa, t_np = best(f_sa, args.repeat), best(f_np, args.repeat)
        rows.append((name, t_sa * 1e9, t_np * 1e9, t_np / t_sa))
    print(
        f"# view cost, Python {platform.python_version()}, NumPy {np.__version__}, "
        f"stridedarray {sa.__version__}"
    )
    if args.markdown:
        print("| view | stridedarray (ns) | NumPy (ns) | speed-up |\n|---|---:|---:|---:|")
        for r in rows:
            print(f"| {r[0]} | {r[1]:.0f} | {r[2]:.0f} | {r[3]:.2f} |")
    else:
        for r in rows:
            print(f"{r[0]:<30} {r[1]:8.0f} ns {r[2]:8.0f} ns  speed-up {r[3]:5.2f}")
    worst = min(rows, key=lambda r: r[3])
    print(f"worst speed-up {worst[3]:.2f} ({worst[0]}); target >= 0.33")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Timing of the generic integer matmul kernels (int8, int16) on one thread, beside NumPy.

    python -m benchmarks --suite int-kernels [--repeat 7]

The kernels' products were made free of undefined behaviour (csrc/core/kernels/generic_real.h,
SA_SMUL); this shows whether they still vectorise: run it on two builds (say, before and after a
change to the kernels) on a quiet machine and compare the columns. Each case is forced onto the
generic kernel and reported as the best of `repeat` timings of a loop (microseconds per call),
with NumPy's time for the same product (NumPy has no integer BLAS either). The cases cover the
register tile (256 x 256 and a batch of small products), the row dot products of GEMV with and
without scalar tails, and the column updates of a column-major GEMV. This is a benchmark, not a
test: nothing asserts.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import stridedarray as sa


def best(f: Callable[[], object], loops: int, repeat: int) -> float:
    t = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(loops):
            f()
        t = min(t, (time.perf_counter() - t0) / loops)
    return t * 1e6


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    sa.set_num_threads(1)
    rng = np.random.default_rng(0)
    print(f"{'case':44s} {'stridedarray':>13s} {'NumPy':>10s}  (us per call, 1 thread)")
    for dt in ("int8", "int16"):
        info = np.iinfo(dt)

        def v(*shape: int, dt: str = dt, info: np.iinfo = info) -> np.ndarray:
            return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)

        cases = [
            ("256x256 @ 256x256", v(256, 256), v(256, 256), 20),
            ("batch 64 x (32x32 @ 32x32)", v(64, 32, 32), v(64, 32, 32), 50),
            ("GEMV 256x256 @ 256 (rows)", v(256, 256), v(256), 2000),
            ("GEMV 256x257 @ 257 (scalar tails)", v(256, 257), v(257), 2000),
            ("GEMV F-order 256x256 @ 256 (columns)", np.asfortranarray(v(256, 256)), v(256), 2000),
        ]
        for name, a, b, loops in cases:
            x, y = sa.asarray(a), sa.asarray(b)
            with sa.matmul_policy(force="generic"):
                ours = best(lambda x=x, y=y: x @ y, loops, args.repeat)  # type: ignore[misc]
            theirs = best(lambda a=a, b=b: a @ b, loops, args.repeat)  # type: ignore[misc]
            print(f"{dt + ' ' + name:44s} {ours:13.1f} {theirs:10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

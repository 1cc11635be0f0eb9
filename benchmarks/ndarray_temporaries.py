"""Cost of the view only stridedarray holds (`_creation._own`) that the operations taking a
caller's ndarray as a temporary operand make (issue 37, finding 3; docs/reliability.md).

In one process, alternating rounds: each operation as it is, and with `_own` replaced by
`numpy.asarray` (the conversion before: the caller's ndarray itself, one C call). Prints the
median ns per call of each and their difference. Run from the checkout's root:

    python -m benchmarks --suite ndarray-temporaries [rounds]
"""

from __future__ import annotations

import argparse
import importlib
import operator
import statistics
import timeit

import numpy as np

import stridedarray as sa

OWN = importlib.import_module("stridedarray._api.creation")._own
MODULES = [
    importlib.import_module(f"stridedarray.{name}")
    for name in ("_elementwise", "_matmul", "_setitem")
]
x = sa.ones(4)
m = sa.ones((2, 2))
a = np.arange(4.0)
e = np.eye(2)
a0 = np.array(2.0)
CASES = {
    "sa.add(x, 0-d ndarray)": "sa.add(x, a0)",
    "x += ndarray": "iadd(x, a)",
    "x @= ndarray (2x2)": "imatmul(m, e)",
    "x[...] = 0-d ndarray": "x[...] = a0",
    "the conversion alone (4 elements)": "_from_ndarray(_own(a), None)",
    "x + ndarray (unchanged path)": "x + a",
    "x @ ndarray (unchanged path)": "x @ a",
}


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("rounds", type=int, nargs="?", default=15, help="rounds (default 15)")
    rounds = ap.parse_args(argv).rounds
    n = 20000
    env = {
        "_own": OWN,
        "_from_ndarray": importlib.import_module("stridedarray._array.array")._from_ndarray,
        "iadd": operator.iadd,
        "imatmul": operator.imatmul,
        "sa": sa,
        "x": x,
        "m": m,
        "a": a,
        "e": e,
        "a0": a0,
    }
    print(f"ns per call, median of {rounds} rounds of {n}; 'before': _own -> numpy.asarray")
    for label, stmt in CASES.items():
        t_now: list[float] = []
        t_before: list[float] = []
        for _ in range(rounds):
            t_now.append(timeit.timeit(stmt, globals=env, number=n) / n * 1e9)
            for mod in MODULES:
                mod._own = np.asarray  # type: ignore[attr-defined]
            env["_own"] = np.asarray
            try:
                t_before.append(timeit.timeit(stmt, globals=env, number=n) / n * 1e9)
            finally:
                for mod in MODULES:
                    mod._own = OWN  # type: ignore[attr-defined]
                env["_own"] = OWN
        now, before = statistics.median(t_now), statistics.median(t_before)
        print(f"{label:32s} now {now:7.0f}  before {before:7.0f}  added {now - before:+6.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

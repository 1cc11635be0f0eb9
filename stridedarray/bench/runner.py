"""Timing: interleaved samples of NumPy and stridedarray on the same operands, medians.

Method. Each case is timed as `a @ b` through `timeit` (a compiled loop: no Python function
call per product, so the 2x2 overhead case measures the operator, not the harness). One inner
count `n` is calibrated per case so that a sample of the *fastest* variant lasts at least
`target_s`; every variant of the case uses the same `n`. After a warm-up sample of each variant,
the repeats are interleaved (NumPy, stridedarray, limit, then rotated), so a slow phase of the
machine hits all variants alike (`sampling.sample`, which the per-call suites use too). A
case's time is the median per-call time over its repeats.

Samples are short (0.25 ms) and many (up to 201 per variant, within a time budget per case):
on a machine shared with other work, a short sample is rarely interrupted by the scheduler, so
the median of many short samples measures the library, not the neighbours.
"""

from __future__ import annotations

import timeit
from dataclasses import dataclass, field

import numpy as np

import stridedarray as sa

from .sampling import Budget, median, percentile, sample, sample_after_pause
from .workloads import Case, Operands

__all__ = ["BUDGET", "BUDGET_THREADS", "QUICK", "QUICK_THREADS", "Result", "run_case", "route_of"]


# The matmul workload's sampling: samples of 0.25 ms, up to 201 per variant (see the module doc).
BUDGET = Budget(target_s=2.5e-4, min_repeats=15, max_repeats=201, case_budget_s=0.8, case_cap_s=3.0)
# At 2+ threads: longer samples and a pause whenever the library changes, so that neither
# library is timed beside the other's spinning BLAS workers (sampling.py's module doc).
BUDGET_THREADS = Budget(
    target_s=2e-3,
    min_repeats=9,
    max_repeats=41,
    case_budget_s=2.0,
    case_cap_s=5.0,
    settle_s=0.15,
    warm_s=0.1,
)
QUICK = Budget(target_s=2e-4, min_repeats=3, max_repeats=3, case_budget_s=0.02, case_cap_s=0.5)
# --quick at 2+ threads keeps the pools apart too (a shorter warm-up): a quick run is
# indicative, not a measurement of two pools stealing each other's cores.
QUICK_THREADS = Budget(
    target_s=2e-4,
    min_repeats=3,
    max_repeats=3,
    case_budget_s=0.02,
    case_cap_s=0.5,
    settle_s=0.15,
    warm_s=0.02,
    blocks=True,
)


@dataclass
class Result:
    """One case's raw samples (seconds per call, per variant), route and correctness."""

    case: Case
    inner: int
    samples: dict[str, list[float]] = field(default_factory=dict)
    route: str = ""
    correct: bool = True
    error: str = ""

    def median(self, variant: str) -> float:
        """Median seconds per call of a variant (numpy, stridedarray, limit); nan if absent."""
        return median(self.samples.get(variant))

    @property
    def ratio(self) -> float:
        """The speed-up, NumPy time / stridedarray time: above 1 means stridedarray is faster."""
        return self.median("numpy") / self.median("stridedarray")

    @property
    def scaling(self) -> float:
        """The speed-up over one thread: stridedarray at one thread / at the run's thread count
        (nan if not measured)."""
        return self.median("stridedarray_1t") / self.median("stridedarray")

    def pause_ratio(self, variant: str = "stridedarray", q: float = 50) -> float:
        """A call's time after a pause (--pause; the q-th percentile of the single calls) over
        its back-to-back median: 1.0 means the pause costs nothing; nan without --pause."""
        return percentile(self.samples.get(f"{variant}_pause"), q) / self.median(variant)

    @property
    def limit_speedup(self) -> float:
        """NumPy-on-contiguous time / stridedarray time: 1.0 is the BLAS bound, below 1 is
        slower than the bound."""
        return self.median("limit") / self.median("stridedarray")


def route_of(a: sa.Array, b: sa.Array) -> str:
    """The route matmul_explain reports for a @ b, with what it packs; 'unknown' if no explain."""
    explain = getattr(sa, "matmul_explain", None)
    if explain is None:
        return "unknown (no matmul_explain)"
    try:
        d = explain(a, b).to_dict()
    except Exception as exc:  # a failing explain is reported, not fatal to the benchmark
        return f"explain failed: {type(exc).__name__}"
    route = str(d.get("route", "?"))
    packed = d.get("packed") or ()
    return f"{route} (pack {'+'.join(packed)})" if packed else route


# Integer GEMM from this size on is also timed on one thread in a multi-thread run: the
# thread scaling of the generic kernel is one of the targets.
SCALING_MIN_SIZE = 128


def _timers(ops: Operands, case: Case) -> dict[str, timeit.Timer]:
    # Each stridedarray sample first sets the core's thread count it is timed at (the setup
    # runs once per sample, outside the timed loop), so the one-thread variant cannot leak.
    threads = sa.get_num_threads()
    sa_globals = {"a": sa.asarray(ops.a), "b": sa.asarray(ops.b), "_set": sa.set_num_threads}
    timers = {
        "numpy": timeit.Timer("a @ b", globals={"a": ops.a, "b": ops.b}),
        "stridedarray": timeit.Timer("a @ b", setup=f"_set({threads})", globals=sa_globals),
    }
    if ops.limit is not None:
        timers["limit"] = timeit.Timer("a @ b", globals={"a": ops.limit[0], "b": ops.limit[1]})
    if threads > 1 and case.group == "int" and case.size >= SCALING_MIN_SIZE:
        timers["stridedarray_1t"] = timeit.Timer("a @ b", setup="_set(1)", globals=sa_globals)
    return timers


def _check(ops: Operands, out: sa.Array) -> bool:
    expected = ops.a @ ops.b
    got = np.asarray(out)
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return False
    if expected.dtype.kind in "iu":
        return bool(np.array_equal(got, expected))
    k = ops.a.shape[-1]
    tol = 8 * k * np.finfo(expected.dtype).eps
    scale = np.abs(ops.a).max(initial=0) * np.abs(ops.b).max(initial=0)
    return bool(np.allclose(got, expected, rtol=tol, atol=tol * max(scale, 1.0) * k))


def run_case(case: Case, budget: Budget, rng: np.random.Generator) -> Result:
    """Build the case's operands, check stridedarray against NumPy once, then time it."""
    ops = case.make(rng)
    a, b = sa.asarray(ops.a), sa.asarray(ops.b)
    result = Result(case, inner=0, route=route_of(a, b))
    try:
        result.correct = _check(ops, a @ b)
    except Exception as exc:  # record and time NumPy alone: the table shows the failure
        result.correct = False
        result.error = f"{type(exc).__name__}: {exc}"
    threads = sa.get_num_threads()
    timers = _timers(ops, case)
    if result.error:
        del timers["stridedarray"]
        timers.pop("stridedarray_1t", None)
    try:
        result.inner, result.samples = sample(timers, budget)
        if budget.pause_s > 0:
            result.samples.update(sample_after_pause(timers, budget, ("numpy", "stridedarray")))
    finally:
        sa.set_num_threads(threads)
    return result

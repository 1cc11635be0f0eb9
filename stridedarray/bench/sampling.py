"""Interleaved timing of several variants of one call, shared by the per-call suites.

Each variant is a `timeit.Timer` (a compiled loop, no Python call per repetition of the
statement). One inner count is calibrated so that a sample of the fastest variant lasts about
`target_s`; all variants use it. After a warm-up, samples are taken in turn (the order rotated
every repeat) until the case's budget is spent, so a slow phase of a shared machine hits every
variant alike. A variant's time is the median seconds per call over its samples.

With several threads, a library's idle BLAS workers keep spinning on a core for a while after
its last call (NumPy's OpenBLAS ~0.1 s), so a sample taken right after another library's
sample runs next to that spinning worker and measures one thread against two. `settle_s`
handles this: each repeat takes one library's variants together, then the other's, and the
sampler sleeps `settle_s` whenever the library changes, so every sample starts with the other
library's pool asleep. The pause lets this library's workers fall asleep too, and waking them
is slow (on the reference virtual machine our first two 2-thread products after a pause took
~12 ms more than the next ones), so the next variant then runs untimed for `warm_s` before its
sample (docs/benchmark-method.md, "Two OpenBLAS pools in one process").
"""

from __future__ import annotations

import math
import os
import sys
import time
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["Budget", "Timed", "median", "percentile", "run_all", "sample", "sample_after_pause"]


@dataclass(frozen=True)
class Budget:
    """Per-sample target, repeat bounds and the time budget of one case."""

    target_s: float = 2e-4
    min_repeats: int = 15
    max_repeats: int = 151
    case_budget_s: float = 0.4
    case_cap_s: float = 2.0
    settle_s: float = 0.0  # sleep when the sampled library changes (0: no pause)
    warm_s: float = 0.0  # then run the next variant untimed this long
    pause_s: float = 0.0  # --pause: also time single calls, each after sleeping this long
    # with settle_s: all of one library's repeats, then all of the other's (one pause per case
    # instead of one per repeat; for --quick, whose few repeats are indicative only)
    blocks: bool = False
    pause_repeats: int = 15  # single calls per variant after a pause

    @classmethod
    def quick(cls) -> Budget:
        """CI-sized: the suite runs in seconds; numbers are indicative only."""
        return cls(target_s=1e-4, min_repeats=3, max_repeats=3, case_budget_s=0.01, case_cap_s=0.2)


def sample(timers: dict[str, timeit.Timer], budget: Budget) -> tuple[int, dict[str, list[float]]]:
    """(inner count, seconds per call of every sample, per variant)."""
    fastest = math.inf
    for timer in timers.values():
        timer.timeit(1)
        fastest = min(fastest, timer.timeit(1) or 1e-9)
    inner = max(1, min(200_000, math.ceil(budget.target_s / max(fastest, 1e-9))))
    for timer in timers.values():
        timer.timeit(inner)
    names = list(timers)
    samples: dict[str, list[float]] = {name: [] for name in names}
    if budget.blocks and budget.settle_s > 0:
        groups = [[n for n in names if _library(n) == lib] for lib in ("numpy", "stridedarray")]
        for k, group in enumerate(g for g in groups if g):
            if k:
                _settle(timers[group[0]], inner, budget)
            for _ in range(budget.max_repeats):
                for name in group:
                    samples[name].append(timers[name].timeit(inner) / inner)
        return inner, samples
    start = time.perf_counter()
    rep = 0
    previous: str | None = None
    while rep < budget.max_repeats:
        elapsed = time.perf_counter() - start
        if rep >= 3 and elapsed >= budget.case_cap_s:
            break
        if rep >= budget.min_repeats and elapsed >= budget.case_budget_s:
            break
        for name in _order(names, rep, budget.settle_s > 0):
            if budget.settle_s > 0 and previous is not None and _library(name) != previous:
                _settle(timers[name], inner, budget)
            previous = _library(name)
            samples[name].append(timers[name].timeit(inner) / inner)
        rep += 1
    return inner, samples


def _settle(timer: timeit.Timer, inner: int, budget: Budget) -> None:
    """Sleep `settle_s` (the other library's pool falls asleep), then run `timer` untimed for
    `warm_s` (this library's workers wake)."""
    time.sleep(budget.settle_s)
    warm_until = time.perf_counter() + budget.warm_s
    while time.perf_counter() < warm_until:
        timer.timeit(inner)


def sample_after_pause(
    timers: dict[str, timeit.Timer], budget: Budget, variants: Sequence[str]
) -> dict[str, list[float]]:
    """Seconds of single calls each made after `budget.pause_s` of sleep, `pause_repeats`
    per variant, under the name "<variant>_pause": a call made between other Python work,
    when the library's threads have gone idle. One library's calls come together (the other
    library's pool asleep: `settle_s` more sleep when the library changes); the variants'
    setup (their thread count) runs outside the timed call."""
    out: dict[str, list[float]] = {}
    previous: str | None = None
    for name in variants:
        if name not in timers:
            continue
        if previous is not None and _library(name) != previous:
            time.sleep(budget.settle_s)
        previous = _library(name)
        out[f"{name}_pause"] = got = []
        for _ in range(budget.pause_repeats):
            time.sleep(budget.pause_s)
            got.append(timers[name].timeit(1))
    return out


def percentile(samples: list[float] | None, q: float) -> float:
    """The q-th percentile (0-100) of the samples; nan when there are none."""
    return float(np.percentile(samples, q)) if samples else math.nan


def _library(variant: str) -> str:
    """Whose thread pool a variant runs on: ours for the "stridedarray..." variants, NumPy's
    for every other (NumPy, the contiguous limit, array-api-strict)."""
    return "stridedarray" if variant.startswith("stridedarray") else "numpy"


def _order(names: list[str], rep: int, by_library: bool) -> list[str]:
    """The variants' order in repeat `rep`: rotated by one every repeat, or, `by_library`,
    grouped by library with the groups swapped every repeat (one library change per repeat)."""
    k = rep % len(names)
    rotated = names[k:] + names[:k]
    if not by_library:
        return rotated
    ours = [n for n in rotated if _library(n) == "stridedarray"]
    theirs = [n for n in rotated if _library(n) != "stridedarray"]
    return ours + theirs if rep % 2 else theirs + ours


def median(samples: list[float] | None) -> float:
    """Median of the samples; nan when there are none."""
    return float(np.median(samples)) if samples else math.nan


@dataclass(kw_only=True)
class Timed:
    """What a per-call suite keeps of one case: the inner count and samples per library (from
    `sample`), the libraries whose result differed from NumPy's, and those that failed."""

    inner: int = 0
    samples: dict[str, list[float]] = field(default_factory=dict)
    mismatch: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)

    def time(self, lib: str) -> float:
        """Median seconds per run of a library (nan when it did not run)."""
        return median(self.samples.get(lib))

    def speedup(self, lib: str = "stridedarray") -> float:
        """NumPy's time over the library's (medians): above 1 the library is faster, 0.5
        means twice NumPy's time."""
        return self.time("numpy") / self.time(lib)

    def failed(self, lib: str = "stridedarray") -> bool:
        """Did the library's result differ from NumPy's, or the library fail?"""
        return lib in self.mismatch or lib in self.errors


def run_all(
    items: Sequence[T],
    run_one: Callable[[T], R],
    label: Callable[[T], str],
    progress: bool,
    info: dict[str, Any],
) -> list[R]:
    """Run every case in order, a progress line on stderr after each (`progress`); the run's
    wall time and the load average at its end go into `info`."""
    t0 = time.perf_counter()
    out = []
    for i, item in enumerate(items, 1):
        out.append(run_one(item))
        if progress:
            print(f"[{i}/{len(items)}] {label(item)}", file=sys.stderr)
    info["wall_time"] = f"{time.perf_counter() - t0:.1f} s"
    info["load_average_at_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return out

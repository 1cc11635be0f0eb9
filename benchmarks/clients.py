"""`python -m benchmarks --suite clients`: array-API client code end to end.

Real array-API-agnostic code, run unchanged on NumPy arrays and on stridedarray arrays (and on
array-api-strict when installed): scikit-learn estimators with `array_api_dispatch=True` on a
2000x30 float64 problem, and SciPy's array-API functions (SCIPY_ARRAY_API=1, set here before
SciPy is imported). Each workload is timed end to end (fit, transform, the function call), the
libraries interleaved; each library's result is compared with NumPy's within a rounding
tolerance. Outputs: clients.md, clients.csv, clients.json and clients.png in --out. Needs the
`bench` extra (scikit-learn, SciPy).

Beside plain NumPy, NumPy runs a second time through the clients' generic (non-NumPy) path,
the one they take for stridedarray (the "numpy (generic path)" variant, generic_path.py): the
speed-up against it is what is ours, apart from what the client's generic code costs.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import sys
import time
import timeit
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

import stridedarray as sa
from stridedarray.bench import report
from stridedarray.bench.machine import (
    busy_warning,
    default_threads,
    header_lines,
    machine_info,
    set_threads,
)
from stridedarray.bench.options import Options, chosen
from stridedarray.bench.report import fmt_ratio, fmt_time
from stridedarray.bench.sampling import Budget, Timed, run_all, sample

from .generic_path import GenericPathTimer, generic_path

__all__ = ["Workload", "workloads", "run", "CSV_FIELDS"]

STEM = "clients"  # the outputs' file names
TITLE = "array-API clients beside NumPy"  # the plot's
CSV_FIELDS = ["workload", "library", "variant", "repeat", "inner", "seconds_per_call"]
ROWS, COLS = 2000, 30
# The target: a workload end to end within 1.15x of NumPy's time, as a least speed-up.
TARGET = 1 / 1.15
# NumPy arrays through the client's non-NumPy code path (generic_path.py), and the target
# against it: within 1.10x of the same-path NumPy.
GENERIC = "numpy (generic path)"
GENERIC_TARGET = 1 / 1.10
_BUDGET = Budget(target_s=5e-3, min_repeats=7, max_repeats=41, case_budget_s=2.0, case_cap_s=6.0)
_QUICK = Budget(target_s=1e-3, min_repeats=2, max_repeats=2, case_budget_s=0.05, case_cap_s=0.5)
# The plot's (plot.plot_costs): bars of the speed-up per workload, the target line.
PLOT: dict[str, object] = {
    "target": TARGET,
    "log": False,
    "width": 9,
    "row_height": 0.4,
    "fontsize": 8,
}
PLOT["xlabel"] = "speed-up: NumPy's wall time / the library's"


@dataclass(frozen=True)
class Workload:
    """A client computation: f(xp, data) -> array, on data converted to the namespace xp."""

    name: str
    library: str  # "scikit-learn" or "scipy"
    f: Callable[[object, dict], object]
    # Absolute tolerance of the comparison with NumPy's result. pairwise_distances takes the
    # square root of |x|^2 + |y|^2 - 2 x.y: a self-distance is the root of a rounding residue
    # (0 in one BLAS, 1.7e-7 in another), so it is compared at 1e-6.
    atol: float = 1e-9


def _sklearn(fn: Callable[[dict], object]) -> Callable[[object, dict], object]:
    def run(xp: object, d: dict) -> object:
        import sklearn

        with sklearn.config_context(array_api_dispatch=True):
            return fn(d)

    return run


def _lda(d: dict) -> object:
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    return LinearDiscriminantAnalysis().fit(d["X"], d["labels"]).transform(d["X"])


def _pca(d: dict) -> object:
    from sklearn.decomposition import PCA

    return PCA(n_components=5, svd_solver="full").fit_transform(d["X"])


def _ridge(d: dict) -> object:
    from sklearn.linear_model import Ridge

    return Ridge(alpha=1.0, solver="svd").fit(d["X"], d["target"]).coef_


def _standard(d: dict) -> object:
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(d["X"])


def _minmax(d: dict) -> object:
    from sklearn.preprocessing import MinMaxScaler

    return MinMaxScaler().fit_transform(d["X"])


def _pairwise(d: dict) -> object:
    from sklearn.metrics import pairwise_distances

    return pairwise_distances(d["Y"], d["X"], metric="euclidean")


def _logsumexp(xp: object, d: dict) -> object:
    from scipy.special import logsumexp

    return logsumexp(d["X"], axis=1)


def _softmax(xp: object, d: dict) -> object:
    from scipy.special import softmax

    return softmax(d["X"], axis=1)


def _zscore(xp: object, d: dict) -> object:
    from scipy.stats import zscore

    return zscore(d["X"], axis=0)


def _fftconvolve(xp: object, d: dict) -> object:
    from scipy.signal import fftconvolve

    return fftconvolve(d["signal"], d["kernel"])


def workloads() -> list[Workload]:
    """The scikit-learn estimators and SciPy functions of the suite."""
    return [
        Workload("LinearDiscriminantAnalysis fit+transform", "scikit-learn", _sklearn(_lda)),
        Workload("PCA(5, full) fit_transform", "scikit-learn", _sklearn(_pca)),
        Workload("Ridge(svd) fit", "scikit-learn", _sklearn(_ridge)),
        Workload("StandardScaler fit_transform", "scikit-learn", _sklearn(_standard)),
        Workload("MinMaxScaler fit_transform", "scikit-learn", _sklearn(_minmax)),
        Workload(
            "pairwise_distances (500x30, 2000x30)", "scikit-learn", _sklearn(_pairwise), atol=1e-6
        ),
        Workload("logsumexp(axis=1)", "scipy", _logsumexp),
        Workload("softmax(axis=1)", "scipy", _softmax),
        Workload("zscore(axis=0)", "scipy", _zscore),
        Workload("fftconvolve (20000,) * (257,)", "scipy", _fftconvolve),
    ]


def _data(rng: np.random.Generator) -> dict[str, np.ndarray]:
    X = rng.standard_normal((ROWS, COLS))
    labels = rng.integers(0, 3, ROWS)
    X[labels == 1] += 0.5  # separable enough for LDA to be well posed
    return {
        "X": X,
        "Y": X[:500].copy(),
        "labels": labels,
        "target": X @ rng.standard_normal(COLS),
        "signal": rng.standard_normal(20000),
        "kernel": rng.standard_normal(257),
    }


def _namespaces() -> dict[str, Any]:
    """The variants by name and their namespace (NumPy's for the generic-path variant too)."""
    libs: dict[str, Any] = {"numpy": np, GENERIC: np, "stridedarray": sa}
    try:
        import array_api_strict

        libs["array-api-strict"] = array_api_strict
    except ImportError:
        pass
    return libs


def _convert(xp: Any, data: dict[str, np.ndarray]) -> dict[str, Any]:
    return {k: v if xp is np else xp.asarray(v) for k, v in data.items()}


def _to_numpy(r: object) -> np.ndarray:
    if isinstance(r, tuple):
        r = r[0]
    try:
        return np.asarray(r)
    except Exception:  # e.g. array-api-strict refuses __array__ in some versions
        return np.asarray(r.tolist())  # type: ignore[attr-defined]


@dataclass
class Outcome(Timed):
    """One workload: samples per library, mismatches and errors."""

    workload: Workload

    @property
    def name(self) -> str:
        return self.workload.name

    def best(self, lib: str) -> float:
        """The library's fastest run (nan when it did not run)."""
        s = self.samples.get(lib)
        return min(s) if s else math.nan

    def cpu_speedup(self, lib: str = "stridedarray") -> float:
        """NumPy's CPU time over the library's (medians of the CPU-clock samples)."""
        return self.time("numpy cpu") / self.time(lib + " cpu")

    def best_speedup(self, lib: str = "stridedarray") -> float:
        """NumPy's fastest run over the library's: on a loaded machine, where runs of
        milliseconds are often cut by the scheduler, the least disturbed estimate."""
        return self.best("numpy") / self.best(lib)

    def generic_speedup(self, lib: str = "stridedarray") -> float:
        """The generic-path NumPy time over the library's (medians): the library against
        NumPy on the same client code path."""
        return self.time(GENERIC) / self.time(lib)


def run_workload(
    w: Workload, libs: dict[str, Any], data: dict[str, np.ndarray], budget: Budget
) -> Outcome:
    """Check every library's result against NumPy's, then time them interleaved."""
    out = Outcome(w)
    timers: dict[str, timeit.Timer] = {}
    expected = None
    for name, xp in libs.items():
        d = _convert(xp, data)
        generic = name == GENERIC
        Timer = GenericPathTimer if generic else timeit.Timer
        try:
            with generic_path() if generic else contextlib.nullcontext():
                r = _to_numpy(w.f(xp, d))
        except Exception as exc:  # a workload that does not run: reported, not fatal
            out.errors[name] = f"{type(exc).__name__}: {exc}".splitlines()[0]
            continue
        if name == "numpy":
            expected = r
        elif expected is not None and (
            r.shape != expected.shape or not np.allclose(r, expected, rtol=1e-9, atol=w.atol)
        ):
            out.mismatch.append(name)
        timers[name] = Timer(functools.partial(w.f, xp, d))
        # The same run timed by the process's CPU clock: with one BLAS thread it is the run
        # time on an idle machine, and it does not grow while the process waits for a core.
        timers[name + " cpu"] = Timer(functools.partial(w.f, xp, d), timer=time.process_time)
    if timers:
        out.inner, out.samples = sample(timers, budget)
    return out


def _target_row(outcomes: list[Outcome], text: str, bound: float, speedup: Callable) -> str:
    """One line of the targets table: the workloads whose `speedup(o)` is at least `bound`."""
    ran = [o for o in outcomes if math.isfinite(speedup(o))]
    met = [o for o in ran if speedup(o) >= bound]
    worst = min(ran, key=speedup, default=None)
    return (
        f"| {text} (speed-up >= {bound:.2f}) | {len(met)}/{len(outcomes)} | "
        f"{fmt_ratio(speedup(worst)) if worst else '-'} | "
        f"{worst.workload.name if worst else '-'} | "
        f"{'yes' if len(met) == len(outcomes) else 'NO'} |"
    )


def _targets() -> list[tuple[str, float, Callable[[Outcome], float]]]:
    """(description, least speed-up, the speed-up it judges) of each target."""
    return [
        ("end to end within 1.15x of NumPy's time", TARGET, lambda o: o.speedup()),
        (
            "end to end within 1.10x of the same-path NumPy (NumPy generic path)",
            GENERIC_TARGET,
            lambda o: o.generic_speedup(),
        ),
    ]


def markdown(outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1) -> str:
    """Header, one row per workload, and the targets (speed-up >= 1/1.15 against NumPy,
    >= 1/1.10 against NumPy through the same generic path)."""
    strict = "array-api-strict" in libs
    lines = ["# Array-API clients end to end: stridedarray beside NumPy", ""]
    lines += header_lines(info, threads)
    head = (
        "| workload | library | NumPy | NumPy generic path | stridedarray | speed-up | "
        "speed-up vs generic path | speed-up (best) | speed-up (CPU) |"
    )
    rule = "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    if strict:
        head += " array-api-strict | strict speed-up |"
        rule += "---:|---:|"
    lines += [
        "",
        f"Median wall time per run on a {ROWS}x{COLS} float64 problem, {threads} BLAS "
        "thread(s); speed-up = NumPy time / stridedarray time (above 1: stridedarray "
        "faster; medians of wall time; best: the fastest runs; CPU: medians of the "
        "process's CPU time). NumPy generic path: NumPy arrays taking the client's non-NumPy "
        "code path, the one it takes for stridedarray (docs/benchmark-method.md); speed-up "
        "vs generic path = its time / stridedarray time.",
        "",
        head + " note |",
        rule + "---|",
    ]
    for o in outcomes:
        row = (
            f"| {o.workload.name} | {o.workload.library} | {fmt_time(o.time('numpy'))} | "
            f"{fmt_time(o.time(GENERIC))} | {fmt_time(o.time('stridedarray'))} | "
            f"{fmt_ratio(o.speedup())} | {fmt_ratio(o.generic_speedup())} | "
            f"{fmt_ratio(o.best_speedup())} | {fmt_ratio(o.cpu_speedup())} |"
        )
        if strict:
            row += (
                f" {fmt_time(o.time('array-api-strict'))} | "
                f"{fmt_ratio(o.speedup('array-api-strict'))} |"
            )
        notes = [f"{k} differs from NumPy" for k in o.mismatch]
        notes += [f"{k}: {v[:90]}" for k, v in o.errors.items()]
        lines.append(row + f" {'; '.join(notes) or 'same as NumPy'} |")
    lines += [
        "",
        "## Targets",
        "",
        "| target | workloads meeting it | worst speed-up | worst workload | met |",
        "|---|---:|---:|---|---|",
    ]
    lines += [_target_row(outcomes, *t) for t in _targets()]
    warning = busy_warning(info, threads)
    if warning:  # in the summary too, beside the target it may have decided
        lines += ["", f"**{warning}**"]
    return "\n".join(lines) + "\n"


def csv_rows(outcomes: list[Outcome]) -> Iterator[list[object]]:
    """Every raw sample (CSV_FIELDS): one row per (workload, library, repeat)."""
    for o in outcomes:
        for variant, samples in o.samples.items():
            for i, t in enumerate(samples):
                yield [o.workload.name, o.workload.library, variant, i, o.inner, f"{t:.6e}"]


def summary(
    outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1
) -> dict[str, Any]:
    """Medians and speed-ups per workload (speedup_generic: against NumPy through the same
    generic path), the targets, the machine header and the busy-machine warning (null on a
    quiet machine)."""
    rows = [
        {
            "workload": o.workload.name,
            "library": o.workload.library,
            **{lib: o.time(lib) for lib in libs},
            "speedup": o.speedup(),
            "speedup_generic": o.generic_speedup(),
            "speedup_best": o.best_speedup(),
            "speedup_cpu": o.cpu_speedup(),
            "strict_speedup": o.speedup("array-api-strict"),
            "mismatch": o.mismatch,
            "errors": o.errors,
            "inner": o.inner,
        }
        for o in outcomes
    ]
    targets = []
    for text, bound, speedup in _targets():
        ran = [speedup(o) for o in outcomes if math.isfinite(speedup(o))]
        targets.append(
            {
                "target": text,
                "bound": bound,
                "workloads": len(outcomes),
                "met_workloads": sum(v >= bound for v in ran),
                "worst": min(ran, default=math.nan),
            }
        )
    return {
        "machine": info,
        "warning": busy_warning(info, threads),
        "libraries": libs,
        "workloads": rows,
        "targets": targets,
    }


def _prepare_scipy() -> None:
    """SciPy reads SCIPY_ARRAY_API once, at import: it must be set before the first import."""
    if "scipy" in sys.modules and os.environ.get("SCIPY_ARRAY_API") != "1":
        raise SystemExit(
            "--suite clients: SciPy was imported before SCIPY_ARRAY_API=1 could be "
            "set; run the suite in a fresh process"
        )
    os.environ["SCIPY_ARRAY_API"] = "1"
    try:
        import scipy  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError:
        raise SystemExit(
            "--suite clients needs scikit-learn and SciPy: pip install -e '.[lab]'"
        ) from None


def run(opts: Options) -> int:
    """Run the workloads and write clients.md/.csv/.json/.png into opts.out."""
    selected = chosen(workloads(), opts, "workload", "name", "library")
    if selected is None:
        return 0
    _prepare_scipy()
    set_threads(opts.threads)
    threads = opts.threads or default_threads()
    info = machine_info()
    import scipy
    import sklearn

    info["scikit-learn"], info["scipy"] = sklearn.__version__, scipy.__version__
    libs = _namespaces()
    if "array-api-strict" in libs:
        info["array_api_strict"] = libs["array-api-strict"].__version__
    data = _data(np.random.default_rng(opts.seed))
    budget = _QUICK if opts.quick else _BUDGET
    outcomes = run_all(
        selected,
        lambda w: run_workload(w, libs, data, budget),
        lambda w: w.name,
        opts.progress,
        info,
    )
    return report.write_suite(sys.modules[__name__], outcomes, info, list(libs), threads, opts.out)

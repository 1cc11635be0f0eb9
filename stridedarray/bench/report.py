"""Outputs of a run: the Markdown table, the raw-sample CSV, a JSON summary, the targets."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path

from .machine import busy_warning, header_lines
from .runner import Result

__all__ = [
    "fmt_time",
    "markdown",
    "write_csv",
    "write_json",
    "targets",
    "targets_markdown",
    "CSV_FIELDS",
]

CSV_FIELDS = [
    "case",
    "group",
    "config",
    "dtype",
    "size",
    "variant",
    "repeat",
    "inner",
    "seconds_per_call",
    "route",
]


def fmt_time(t: float) -> str:
    """Seconds as a short human string in ns, us, ms or s."""
    if not math.isfinite(t):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if t >= scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t / 1e-9:.3g} ns"


def _fmt_ratio(r: float) -> str:
    return f"{r:.2f}x" if math.isfinite(r) else "-"


def markdown(results: Iterable[Result], info: dict, threads: int) -> str:
    """The run's header (machine, versions, threads, environment) and one table row per case."""
    lines = [f"# stridedarray vs NumPy matmul, {threads} BLAS thread(s)", ""]
    lines += header_lines(info, threads)
    lines += [
        "",
        "Speed-up = NumPy median / stridedarray median (above 1: stridedarray is "
        "faster). Limit = NumPy on contiguous copies of the same values (the BLAS bound); "
        "speed-up vs limit = limit median / stridedarray median (1.00: at the bound).",
        "",
        "| case | NumPy | stridedarray | speed-up | limit | speed-up vs limit | route |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        route = r.route
        if r.error:
            route += f" — ERROR {r.error}"
        elif not r.correct:
            route += " — MISMATCH vs NumPy"
        lines.append(
            f"| {r.case.name} | {fmt_time(r.median('numpy'))} | "
            f"{fmt_time(r.median('stridedarray'))} | {_fmt_ratio(r.ratio)} | "
            f"{fmt_time(r.median('limit'))} | {_fmt_ratio(r.limit_speedup)} | {route} |"
        )
    return "\n".join(lines) + "\n"


def write_csv(results: Iterable[Result], path: Path) -> None:
    """Every raw sample: one row per (case, variant, repeat), seconds per call."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_FIELDS)
        for r in results:
            c = r.case
            for variant, samples in r.samples.items():
                for i, t in enumerate(samples):
                    w.writerow(
                        [
                            c.name,
                            c.group,
                            c.config,
                            c.dtype,
                            c.size,
                            variant,
                            i,
                            r.inner,
                            f"{t:.6e}",
                            r.route,
                        ]
                    )


def write_json(results: list[Result], info: dict, threads: int, path: Path) -> None:
    """Medians, speed-ups and routes per case, the targets, the machine info and the
    busy-machine warning (null on a quiet machine): what the plot is drawn from."""
    rows = [
        {
            "case": r.case.name,
            "group": r.case.group,
            "config": r.case.config,
            "dtype": r.case.dtype,
            "size": r.case.size,
            "work": r.case.work,
            "numpy": r.median("numpy"),
            "stridedarray": r.median("stridedarray"),
            "limit": r.median("limit"),
            "speedup": r.ratio,
            "limit_speedup": r.limit_speedup,
            "route": r.route,
            "correct": r.correct,
            "error": r.error,
            "inner": r.inner,
        }
        for r in results
    ]
    payload = {
        "threads": threads,
        "machine": info,
        "warning": busy_warning(info, threads),
        "cases": rows,
        "targets": targets(results, threads),
    }
    path.write_text(json.dumps(payload, indent=1, default=str, allow_nan=True))


# The targets, each a bound on a speed-up (NumPy time / stridedarray time, the limit's time /
# stridedarray time, or one thread's time / n threads' time): the cells of a group, the
# speed-up measured, the least value that meets it, and whether the bound itself falls short.
def _target_specs(
    results: list[Result], threads: int
) -> list[tuple[str, list[Result], Callable, float, bool]]:
    by = {
        g: [r for r in results if r.case.group == g]
        for g in ("reused", "grid", "blas", "vector", "int", "overhead")
    }
    specs = [
        (
            "grid: stridedarray faster in every cell (speed-up > 1)",
            by["grid"],
            lambda r: r.ratio,
            1.0,
            True,
        ),
        (
            "grid S>=32 and reused: within 10% of the BLAS limit (speed-up vs limit >= 0.91)",
            [r for r in by["grid"] if r.case.size >= 32] + by["reused"],
            lambda r: r.limit_speedup,
            1 / 1.10,
            False,
        ),
        (
            "BLAS-compatible S>=32: within 5% of NumPy (speed-up >= 0.95)",
            [r for r in by["blas"] if r.case.size >= 32],
            lambda r: r.ratio,
            1 / 1.05,
            False,
        ),
        (
            "BLAS-compatible S<32: speed-up >= 0.67 (at most 1.5x NumPy's time)",
            [r for r in by["blas"] if r.case.size < 32],
            lambda r: r.ratio,
            1 / 1.5,
            False,
        ),
        (
            "vector roles, work >= 4096: speed-up >= 3",
            [r for r in by["vector"] if r.case.work >= 4096],
            lambda r: r.ratio,
            3.0,
            False,
        ),
        (
            "int GEMM S>=64: speed-up >= 5",
            [r for r in by["int"] if r.case.size >= 64],
            lambda r: r.ratio,
            5.0,
            False,
        ),
        (
            "call overhead 2x2: speed-up >= 0.5 (at most twice NumPy's time)",
            [r for r in by["overhead"] if r.case.size == 2],
            lambda r: r.ratio,
            0.5,
            False,
        ),
    ]
    # The multi-thread targets of the threaded core (docs/benchmarks.md): judged only in a run
    # at more than one thread, where the int GEMM cells are also timed on one thread.
    if threads > 1:
        multi = [r for r in by["int"] if math.isfinite(r.scaling)]
        specs += [
            ("threads: every grid cell speed-up >= 1.0", by["grid"], lambda r: r.ratio, 1.0, False),
            (
                "threads: BLAS-compatible S>=32 speed-up >= 1.0",
                [r for r in by["blas"] if r.case.size >= 32],
                lambda r: r.ratio,
                1.0,
                False,
            ),
            ("threads: reused speed-up >= 1.0", by["reused"], lambda r: r.ratio, 1.0, False),
            (
                "threads: int GEMM S>=128 scales >= 1.7x from 1 thread",
                multi,
                lambda r: r.scaling,
                1.7,
                False,
            ),
        ]
    else:
        # one value, the median over every grid cell (shown against the first cell)
        grid = by["grid"]
        specs.append(
            (
                "1 thread: grid median speed-up >= 1.10",
                grid[:1],
                lambda r: _median_ratio(grid),
                1.10,
                False,
            )
        )
    return specs


def targets(results: list[Result], threads: int = 1) -> list[dict]:
    """The benchmark's targets, each with its worst (least) speed-up, the cell and whether
    every cell meets it; a run at more than one thread adds the multi-thread targets, a run at
    one the grid's median."""
    out = []
    for name, rs, key, bound, strict in _target_specs(results, threads):
        if not rs:
            continue
        vals = [(key(r), r) for r in rs if math.isfinite(key(r))]
        value, cell = min(vals, key=lambda v: v[0]) if vals else (math.nan, None)
        met = sum(1 for v, _ in vals if v > bound or (v == bound and not strict))
        out.append(
            {
                "target": name,
                "bound": bound,
                "cells": len(rs),
                "met_cells": met,
                "worst": value,
                "worst_cell": cell.case.name if cell else "-",
                "met": met == len(rs),
            }
        )
    return out


def _median_ratio(rs: list[Result]) -> float:
    vals = sorted(r.ratio for r in rs if math.isfinite(r.ratio))
    return (
        vals[len(vals) // 2]
        if len(vals) % 2
        else ((vals[len(vals) // 2 - 1] + vals[len(vals) // 2]) / 2 if vals else math.nan)
    )


def targets_markdown(rows: list[dict]) -> str:
    """The targets as a Markdown table."""
    lines = [
        "| target | cells meeting it | worst speed-up | worst cell | met |",
        "|---|---:|---:|---|---|",
    ]
    for t in rows:
        lines.append(
            f"| {t['target']} | {t['met_cells']}/{t['cells']} | {t['worst']:.2f} | "
            f"{t['worst_cell']} | {'yes' if t['met'] else 'NO'} |"
        )
    return "\n".join(lines) + "\n"

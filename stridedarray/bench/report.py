"""Outputs of a run: the Markdown table, the raw-sample CSV, a JSON summary, the targets."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path

from .runner import Result

__all__ = ["fmt_time", "markdown", "write_csv", "write_json", "targets", "targets_markdown",
           "CSV_FIELDS"]

CSV_FIELDS = ["case", "group", "config", "dtype", "size", "variant", "repeat", "inner",
              "seconds_per_call", "route"]


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
    for key, value in info.items():
        if key == "env":
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        lines.append(f"- {key}: {value}")
    lines += ["", "Ratio = NumPy median / stridedarray median (above 1: stridedarray faster). "
              "Limit = NumPy on contiguous copies of the same values (the BLAS bound).", "",
              "| case | NumPy | stridedarray | ratio | limit | sa/limit | route |",
              "|---|---:|---:|---:|---:|---:|---|"]
    for r in results:
        route = r.route
        if r.error:
            route += f" — ERROR {r.error}"
        elif not r.correct:
            route += " — MISMATCH vs NumPy"
        lines.append(
            f"| {r.case.name} | {fmt_time(r.median('numpy'))} | "
            f"{fmt_time(r.median('stridedarray'))} | {_fmt_ratio(r.ratio)} | "
            f"{fmt_time(r.median('limit'))} | {_fmt_ratio(r.limit_ratio)} | {route} |")
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
                    w.writerow([c.name, c.group, c.config, c.dtype, c.size, variant, i, r.inner,
                                f"{t:.6e}", r.route])


def write_json(results: Iterable[Result], info: dict, threads: int, path: Path) -> None:
    """Medians, ratios and routes per case plus the machine info: what the plot is drawn from."""
    rows = [{"case": r.case.name, "group": r.case.group, "config": r.case.config,
             "dtype": r.case.dtype, "size": r.case.size, "work": r.case.work,
             "numpy": r.median("numpy"), "stridedarray": r.median("stridedarray"),
             "limit": r.median("limit"), "ratio": r.ratio, "limit_ratio": r.limit_ratio,
             "route": r.route, "correct": r.correct, "error": r.error, "inner": r.inner}
            for r in results]
    payload = {"threads": threads, "machine": info, "cases": rows}
    path.write_text(json.dumps(payload, indent=1, default=str, allow_nan=True))


def _worst(rs: list[Result], key: Callable[[Result], float],
           high_is_bad: bool) -> tuple[float, Result | None]:
    vals = [(key(r), r) for r in rs if math.isfinite(key(r))]
    if not vals:
        return math.nan, None
    return (max if high_is_bad else min)(vals, key=lambda v: v[0])


def targets(results: list[Result], threads: int = 1) -> list[dict]:
    """The targets, each with its worst measured value, the cell and whether it is met; a run
    at more than one thread adds the multi-thread targets, a run at one the grid's median."""
    by = {g: [r for r in results if r.case.group == g]
          for g in ("seed002", "grid", "blas", "vector", "int", "overhead")}
    specs = [
        ("grid: stridedarray faster in every cell", by["grid"],
         lambda r: r.ratio, False, lambda v: v > 1.0),
        ("grid S>=32 and seed002: sa/limit <= 1.10",
         [r for r in by["grid"] if r.case.size >= 32] + by["seed002"],
         lambda r: r.limit_ratio, True, lambda v: v <= 1.10),
        ("blas-compatible S>=32: sa/NumPy <= 1.05", [r for r in by["blas"] if r.case.size >= 32],
         lambda r: 1 / r.ratio, True, lambda v: v <= 1.05),
        ("blas-compatible S<32: sa/NumPy <= 1.5", [r for r in by["blas"] if r.case.size < 32],
         lambda r: 1 / r.ratio, True, lambda v: v <= 1.5),
        ("vector roles, work >= 4096: ratio >= 3", [r for r in by["vector"] if r.case.work >= 4096],
         lambda r: r.ratio, False, lambda v: v >= 3.0),
        ("int GEMM S>=64: ratio >= 5", [r for r in by["int"] if r.case.size >= 64],
         lambda r: r.ratio, False, lambda v: v >= 5.0),
        ("overhead 2x2: sa/NumPy <= 2", [r for r in by["overhead"] if r.case.size == 2],
         lambda r: 1 / r.ratio, True, lambda v: v <= 2.0),
    ]
    # The multi-thread targets of the threaded core (docs/benchmarks.md): judged only in a run
    # at more than one thread, where the int GEMM cells are also timed on one thread.
    if threads > 1:
        multi = [r for r in by["int"] if math.isfinite(r.scaling)]
        specs += [
            ("threads: every grid cell >= 1.0x NumPy", by["grid"],
             lambda r: r.ratio, False, lambda v: v >= 1.0),
            ("threads: blas-compatible S>=32 >= 1.0x NumPy",
             [r for r in by["blas"] if r.case.size >= 32],
             lambda r: r.ratio, False, lambda v: v >= 1.0),
            ("threads: seed002 >= 1.0x NumPy", by["seed002"],
             lambda r: r.ratio, False, lambda v: v >= 1.0),
            ("threads: int GEMM S>=128 scales >= 1.7x from 1 thread", multi,
             lambda r: r.scaling, False, lambda v: v >= 1.7),
        ]
    else:
        # one value, the median over every grid cell (shown against the first cell)
        specs.append(("1 thread: grid median ratio >= 1.10", by["grid"][:1],
                      lambda r: _median_ratio(by["grid"]), False, lambda v: v >= 1.10))
    out = []
    for name, rs, key, high_is_bad, ok in specs:
        if not rs:
            continue
        value, cell = _worst(rs, key, high_is_bad)
        met = sum(1 for r in rs if math.isfinite(key(r)) and ok(key(r)))
        out.append({"target": name, "cells": len(rs), "met_cells": met,
                    "worst": value, "worst_cell": cell.case.name if cell else "-",
                    "met": met == len(rs)})
    return out


def _median_ratio(rs: list[Result]) -> float:
    vals = sorted(r.ratio for r in rs if math.isfinite(r.ratio))
    return vals[len(vals) // 2] if len(vals) % 2 else (
        (vals[len(vals) // 2 - 1] + vals[len(vals) // 2]) / 2 if vals else math.nan)


def targets_markdown(rows: list[dict]) -> str:
    """The targets as a Markdown table."""
    lines = ["| target | cells meeting it | worst value | worst cell | met |",
             "|---|---:|---:|---|---|"]
    for t in rows:
        lines.append(f"| {t['target']} | {t['met_cells']}/{t['cells']} | {t['worst']:.2f} | "
                     f"{t['worst_cell']} | {'yes' if t['met'] else 'NO'} |")
    return "\n".join(lines) + "\n"

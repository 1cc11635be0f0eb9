"""Outputs of a run, for every mode of the benchmark: one writer of the Markdown table, the
raw-sample CSV, the JSON summary, the plot and the docs' table fragments (`write_outputs`),
fed by each suite with its own rows; and the matmul workload's tables and targets.

A docs fragment is the bare table a page of the manual includes (MyST `{include}`), without
the run's header: `--docs DIR` writes it there, so refreshing the page's figures is a rerun.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from .machine import busy_warning, header_lines, thread_label
from .runner import Result
from .sampling import percentile

__all__ = [
    "fmt_ratio",
    "fmt_time",
    "markdown",
    "markdown_table",
    "matmul_csv_rows",
    "matmul_json",
    "exit_status",
    "publish",
    "write_suite",
    "run_line",
    "matmul_fragments",
    "pause_table",
    "run_tag",
    "write_outputs",
    "targets",
    "targets_markdown",
    "CSV_FIELDS",
]


def markdown_table(head: Sequence[str], align: str, rows: Iterable[Sequence[object]]) -> list[str]:
    """A Markdown table's lines: `align` has one letter per column, "l" or "r"."""
    if len(align) != len(head):
        raise ValueError(f"align has {len(align)} letters for {len(head)} columns")
    rule = ["---:" if a == "r" else "---" for a in align]
    return [
        "| " + " | ".join(head) + " |",
        "|" + "|".join(rule) + "|",
        *("| " + " | ".join(str(c) for c in row) + " |" for row in rows),
    ]


def run_line(info: dict) -> str:
    """The run a docs table comes from, in one sentence: the command's wall time and the load
    average at its start and end (a table measured on a loaded machine says so)."""
    load = str(info.get("load_average", "?")).split()[0]
    end = info.get("load_average_at_end")
    return (
        f"Measured on {info.get('cpu', 'an unknown CPU')} ({info.get('cores', '?')} cores), "
        f"load average {load} at the start"
        + (f" and {str(end).split()[0]} at the end" if end else "")
        + (f", {info['wall_time']}" if info.get("wall_time") else "")
        + "."
    )


def write_outputs(
    out_dir: Path,
    names: dict[str, str],
    text: str,
    csv_fields: Sequence[str],
    csv_rows: Iterable[Sequence[object]],
    payload: dict[str, Any],
    plot: Callable[[Path], bool] | None = None,
    fragments: dict[str, str] | None = None,
    docs_dir: Path | None = None,
) -> list[str]:
    """Write one run's outputs into out_dir: names["md"] (the whole text), names["csv"] (a
    header row, then one row per raw sample), names["json"] (the payload; nan kept as NaN,
    other objects as strings), names["png"] (`plot(path)`, which says whether it drew: False
    without matplotlib), and each docs fragment (file name -> Markdown) into `docs_dir` when
    given. Returns the files written, for the closing line."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    (out_dir / names["md"]).write_text(text)
    written.append(str(out_dir / names["md"]))
    with open(out_dir / names["csv"], "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(csv_fields)
        w.writerows(csv_rows)
    written.append(names["csv"])
    (out_dir / names["json"]).write_text(json.dumps(payload, indent=1, allow_nan=True, default=str))
    written.append(names["json"])
    if plot is not None:
        written.append(
            names["png"] if plot(out_dir / names["png"]) else "(no plot: matplotlib not installed)"
        )
    if docs_dir is not None and fragments:
        docs_dir.mkdir(parents=True, exist_ok=True)
        for name, fragment in fragments.items():
            (docs_dir / name).write_text(fragment)
            written.append(str(docs_dir / name))
    return written


def write_suite(
    suite: ModuleType,
    outcomes: list[Any],
    info: dict,
    libs: list[str],
    threads: int,
    out_dir: Path,
    docs_dir: Path | None = None,
) -> int:
    """Write and print a per-call suite's run (`suite` is overhead or clients: its STEM,
    TITLE, CSV_FIELDS, PLOT, markdown, csv_rows, summary and, if it has one, fragments);
    the exit status."""
    text = suite.markdown(outcomes, info, libs, threads)
    title = f"{suite.TITLE}, {threads} BLAS thread(s), {info['cpu']}"
    warning = busy_warning(info, threads)
    fragments = getattr(suite, "fragments", None)
    written = write_outputs(
        out_dir,
        {k: f"{suite.STEM}.{k}" for k in ("md", "csv", "json", "png")},
        text,
        suite.CSV_FIELDS,
        suite.csv_rows(outcomes),
        suite.summary(outcomes, info, libs, threads),
        lambda path: _plot_costs(outcomes, path, title, warning, suite.PLOT),
        fragments(outcomes, info, libs, threads) if fragments else None,
        docs_dir,
    )
    return publish(text, written, [o.name for o in outcomes if o.failed()])


def _plot_costs(
    outcomes: list[Any], path: Path, title: str, warning: str | None, style: dict[str, Any]
) -> bool:
    try:
        from .plot import plot_costs
    except ImportError:  # matplotlib
        return False
    return plot_costs(outcomes, [o.name for o in outcomes], path, title, warning=warning, **style)


def publish(text: str, written: list[str], bad: list[str]) -> int:
    """Print the run's tables and the files written; the exit status (`exit_status`)."""
    print(text)
    print("wrote " + ", ".join(written))
    return exit_status(bad)


def exit_status(bad: list[str]) -> int:
    """The benchmark's exit status: 1 (saying which) when a case differed from NumPy or
    failed, else 0."""
    if not bad:
        return 0
    print(
        f"error: {len(bad)} case(s) differ from NumPy or failed: {', '.join(bad[:5])}"
        + (", ..." if len(bad) > 5 else ""),
        file=sys.stderr,
    )
    return 1


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


def fmt_ratio(r: float) -> str:
    """A ratio as "1.25x", "-" when there is none."""
    return f"{r:.2f}x" if math.isfinite(r) else "-"


def targets_table(rows: Iterable[dict], worst: str = "worst") -> list[str]:
    """The Markdown table of a suite's targets (`rows`: dicts with target, met_cases, cases,
    worst, worst_case, met). The worst value is a time for an absolute bound (`absolute`),
    else a ratio; `worst` heads its column."""
    return markdown_table(
        ["target", "cases meeting it", worst, "worst case", "met"],
        "lrrll",
        (
            [
                t["target"],
                f"{t['met_cases']}/{t['cases']}",
                fmt_time(t["worst"]) if t.get("absolute") else fmt_ratio(t["worst"]),
                f"`{t['worst_case']}`",
                "yes" if t["met"] else "NO",
            ]
            for t in rows
        ),
    )


def run_tag(info: dict) -> str:
    """What sets a run's docs tables apart from the quiet default run's, as a file-name part:
    "-haswell" for kernels forced by OPENBLAS_CORETYPE=Haswell, "-load2" for --load 2,
    "-pause50ms" for --pause 50; "" for a plain run with the native kernels."""
    env = info.get("env") or {}
    core = str(env.get("OPENBLAS_CORETYPE", "(unset)"))
    tag = "" if core == "(unset)" else f"-{core.lower()}"
    if info.get("load_processes"):
        tag += f"-load{info['load_processes']}"
    if info.get("pause_ms"):
        tag += f"-pause{info['pause_ms']:g}ms"
    return tag


def markdown(results: Iterable[Result], info: dict, threads: int) -> str:
    """The run's header (machine, versions, threads, environment) and one table row per case."""
    results = list(results)
    lines = [f"# stridedarray vs NumPy matmul, {threads} BLAS thread(s)", ""]
    lines += header_lines(info, threads)
    lines += [
        "",
        "Speed-up = NumPy median / stridedarray median (above 1: stridedarray is "
        "faster). Limit = NumPy on contiguous copies of the same values (the BLAS bound); "
        "speed-up vs limit = limit median / stridedarray median (1.00: at the bound).",
        "",
    ]
    lines += _case_table(results)
    pause = pause_table(results, info)
    if pause:
        lines += ["", f"## After a pause of {info.get('pause_ms', '?')} ms", "", *pause]
    return "\n".join(lines) + "\n"


def pause_table(results: Iterable[Result], info: dict) -> list[str]:
    """With --pause: per case, each library's back-to-back median beside its single calls
    after the pause (median and 90th percentile), and ours after a pause over back to back.
    Empty without pause samples."""
    rows = [
        [
            r.case.name,
            fmt_time(r.median("numpy")),
            fmt_time(percentile(r.samples.get("numpy_pause"), 50)),
            fmt_time(r.median("stridedarray")),
            fmt_time(percentile(r.samples.get("stridedarray_pause"), 50)),
            fmt_time(percentile(r.samples.get("stridedarray_pause"), 90)),
            fmt_ratio(r.pause_ratio()),
            fmt_ratio(r.pause_ratio(q=90)),
        ]
        for r in results
        if "stridedarray_pause" in r.samples
    ]
    if not rows:
        return []
    head = [
        "case",
        "NumPy back to back",
        "NumPy after pause",
        "stridedarray back to back",
        "stridedarray after pause",
        "stridedarray p90 after pause",
        "after pause / back to back",
        "p90 / back to back",
    ]
    return markdown_table(head, "lrrrrrrr", rows)


def _case_table(results: Iterable[Result]) -> list[str]:
    """One row per case: medians, speed-ups and the route (or the error)."""
    rows = []
    for r in results:
        route = r.route
        if r.error:
            route += f" — ERROR {r.error}"
        elif not r.correct:
            route += " — MISMATCH vs NumPy"
        rows.append(
            [
                r.case.name,
                fmt_time(r.median("numpy")),
                fmt_time(r.median("stridedarray")),
                fmt_ratio(r.ratio),
                fmt_time(r.median("limit")),
                fmt_ratio(r.limit_speedup),
                route,
            ]
        )
    head = ["case", "NumPy", "stridedarray", "speed-up", "limit", "speed-up vs limit", "route"]
    return markdown_table(head, "lrrrrrl", rows)


def matmul_csv_rows(results: Iterable[Result]) -> Iterable[list[object]]:
    """Every raw sample (CSV_FIELDS): one row per (case, variant, repeat), seconds per call."""
    for r in results:
        c = r.case
        for variant, samples in r.samples.items():
            inner = 1 if variant.endswith("_pause") else r.inner  # a pause sample is one call
            for i, t in enumerate(samples):
                yield [
                    c.name,
                    c.group,
                    c.config,
                    c.dtype,
                    c.size,
                    variant,
                    i,
                    inner,
                    f"{t:.6e}",
                    r.route,
                ]


def matmul_json(results: list[Result], info: dict, threads: int) -> dict[str, Any]:
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
            **(
                {
                    "numpy_pause": percentile(r.samples.get("numpy_pause"), 50),
                    "stridedarray_pause": percentile(r.samples.get("stridedarray_pause"), 50),
                    "stridedarray_pause_p90": percentile(r.samples.get("stridedarray_pause"), 90),
                    "pause_ratio": r.pause_ratio(),
                }
                if "stridedarray_pause" in r.samples
                else {}
            ),
        }
        for r in results
    ]
    return {
        "threads": threads,
        "machine": info,
        "warning": busy_warning(info, threads),
        "cases": rows,
        "targets": targets(results, threads),
    }


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
    # --pause: a product after an idle spell against the same product back to back: the
    # median within 1.5x plus 0.1 ms, the 90th percentile within 3x plus the same 0.1 ms (any
    # call after a sleep, NumPy's too, pays tens of microseconds to wake the CPU, which 3x of
    # a microsecond product cannot hold). Each is given as headroom, the bound over the
    # measured time (1.00: exactly at the bound).
    paused = [r for r in results if "stridedarray_pause" in r.samples]
    if paused:
        specs += [
            (
                "after a pause: median <= 1.5x back to back + 0.1 ms (headroom >= 1.0)",
                paused,
                lambda r: (
                    (1.5 * r.median("stridedarray") + 1e-4)
                    / percentile(r.samples["stridedarray_pause"], 50)
                ),
                1.0,
                False,
            ),
            (
                "after a pause: p90 <= 3x back to back + 0.1 ms (headroom >= 1.0)",
                paused,
                lambda r: (
                    (3 * r.median("stridedarray") + 1e-4)
                    / percentile(r.samples["stridedarray_pause"], 90)
                ),
                1.0,
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


def matmul_fragments(results: list[Result], info: dict, threads: int) -> dict[str, str]:
    """The tables of docs/benchmarks.md for a run at `threads` thread(s), by file name:
    matmul-<N>thread[s]-<table>.md for the targets, the grid's speed-ups and its speed-ups
    against the BLAS limit, the BLAS-compatible layouts (each a config by size pivot) and
    the remaining cases (one row each)."""
    stem = f"matmul-{thread_label(threads)}{run_tag(info)}"
    warning = busy_warning(info, threads)
    note = run_line(info) + (f"\n\n**{warning}**" if warning else "")
    out = {f"{stem}-targets.md": note + "\n\n" + targets_markdown(targets(results, threads))}
    for name, group, key in (
        ("grid", "grid", lambda r: r.ratio),
        ("grid-limit", "grid", lambda r: r.limit_speedup),
        ("blas", "blas", lambda r: r.ratio),
    ):
        rs = [r for r in results if r.case.group == group]
        if rs:
            out[f"{stem}-{name}.md"] = _pivot(rs, key)
    rest = [r for r in results if r.case.group not in ("grid", "blas")]
    if rest:
        out[f"{stem}-others.md"] = "\n".join(_case_table(rest)) + "\n"
    pause = pause_table(results, info)
    if pause:
        out[f"{stem}-pause.md"] = "\n".join(pause) + "\n"
    return out


def _pivot(results: list[Result], key: Callable[[Result], float]) -> str:
    """A config by size table of `key` (a speed-up), two decimals."""
    sizes = sorted({r.case.size for r in results})
    configs = sorted({r.case.config for r in results})
    cell = {(r.case.config, r.case.size): key(r) for r in results}
    rows = (
        [c] + [f"{v:.2f}" if math.isfinite(v := cell.get((c, s), math.nan)) else "-" for s in sizes]
        for c in configs
    )
    return (
        "\n".join(
            markdown_table(["config", *(f"S={s}" for s in sizes)], "l" + "r" * len(sizes), rows)
        )
        + "\n"
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


def check_notes(outcome: Any) -> str:
    """A per-call suite's check column: who differed from NumPy, who failed, or agreement."""
    notes = [f"{k} differs from NumPy" for k in outcome.mismatch]
    notes += [f"{k}: {v[:60]}" for k, v in outcome.errors.items()]
    return "; ".join(notes) or "same as NumPy"


def target_row(target: str, values: list[tuple[float, Any]], bound: float) -> dict:
    """One row of a per-call suite's targets: `values` pairs a case's figure (a ratio; lower
    is better) with its outcome; the target is met when every figure is at most `bound`."""
    worst_v, worst = max(values, key=lambda t: t[0])
    met = sum(1 for v, _ in values if v <= bound)
    return {
        "target": target,
        "cases": len(values),
        "met_cases": met,
        "worst": worst_v,
        "worst_case": worst.name,
        "met": met == len(values),
    }


def suite_tables(
    intro: str,
    head: list[str],
    align: str,
    rows: Sequence[Sequence[object]],
    targets: list[dict],
    worst: str,
    info: dict,
    threads: int,
) -> str:
    """A per-call suite's table, its targets and the busy-machine warning, as the docs include
    them."""
    lines = [
        intro + " " + run_line(info),
        "",
        *markdown_table(head, align, rows),
        "",
        "## Targets",
        "",
        *targets_table(targets, worst),
    ]
    warning = busy_warning(info, threads)
    if warning:
        lines += ["", f"**{warning}**"]
    return "\n".join(lines) + "\n"


def suite_fragments(
    stem: str, tables: str, targets: list[dict], worst: str, info: dict, threads: int
) -> dict[str, str]:
    """The docs' files of a per-call suite (`--docs`): STEM.md (every case and the targets)
    and STEM-targets.md (the targets alone, with the run's load), named with the run's tag."""
    tag = run_tag(info)
    goals = [run_line(info), "", *targets_table(targets, worst)]
    warning = busy_warning(info, threads)
    if warning:
        goals += ["", f"**{warning}**"]
    return {f"{stem}{tag}.md": tables, f"{stem}{tag}-targets.md": "\n".join(goals) + "\n"}


def run_per_call(
    suite: ModuleType,
    opts: Any,
    cases: list[Any],
    budget: Any,
    run_case: Callable[[Any, Any, Any], Any],
    finish: Callable[[list[Any]], None] | None = None,
) -> int:
    """Run a per-call suite's selected `cases` (`run_case(case, budget, rng)` each) at the
    options' threads, then `finish(outcomes)`, and write its outputs; the exit status."""
    import numpy as np

    from .machine import default_threads, machine_info, set_threads
    from .options import chosen
    from .sampling import Budget, run_all

    selected = chosen(cases, opts, "case", "name")
    if selected is None:
        return 0
    set_threads(opts.threads)
    threads = opts.threads or default_threads()
    info = machine_info()
    if opts.quick:
        budget = Budget.quick()
    if threads > 1 and getattr(suite, "SETTLE", False):
        # two libraries' thread pools: one library's calls together, the other's asleep
        budget = Budget(**{**budget.__dict__, "settle_s": 0.15, "warm_s": 0.02, "blocks": True})
    rng = np.random.default_rng(opts.seed)
    outcomes = run_all(
        selected, lambda c: run_case(c, budget, rng), lambda c: c.name, opts.progress, info
    )
    if finish is not None:
        finish(outcomes)
    return write_suite(suite, outcomes, info, list(suite.VARIANTS), threads, opts.out, opts.docs)

"""The per-call suites behind `--suite overhead` and `--suite clients` (see overhead.py and
clients.py); kept apart from the matmul workload's command line. `select`, the `--filter` rule,
serves the matmul workload too."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["plot_costs", "run_suite", "select", "write_results"]


def select(items: list, pattern: str | None, *fields: str) -> list:
    """The items with a `fields` attribute matching the `--filter` regex (case-insensitive),
    all of them without one; SystemExit naming `--filter` for an invalid expression."""
    if not pattern:
        return items
    try:
        rx = re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise SystemExit(f"--filter: not a valid regular expression: {exc}") from None
    return [it for it in items if any(rx.search(getattr(it, f)) for f in fields)]


def write_results(
    stem: str,
    outcomes: Sequence[Any],
    info: dict,
    names: list[str],
    out_dir: Path,
    title: str,
    markdown: Callable,
    write_csv: Callable,
    write_json: Callable,
    plot: Callable,
    bad: list[str],
    threads: int,
) -> int:
    """Write a suite's <stem>.md/.csv/.json/.png into out_dir and print the table; the exit
    status, as for the matmul benchmark: 1 when a case (`bad`) differed from NumPy or failed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    text = markdown(outcomes, info, names, threads)
    (out_dir / f"{stem}.md").write_text(text)
    write_csv(outcomes, out_dir / f"{stem}.csv")
    write_json(outcomes, info, names, out_dir / f"{stem}.json", threads)
    plotted = plot(outcomes, out_dir / f"{stem}.png", title)
    print(text)
    print(
        f"wrote {out_dir / (stem + '.md')}, {stem}.csv, {stem}.json"
        + (f", {stem}.png" if plotted else " (no plot: matplotlib not installed)")
    )
    if bad:
        print(
            f"error: {len(bad)} case(s) differ from NumPy or failed: {', '.join(bad[:5])}"
            + (", ..." if len(bad) > 5 else ""),
            file=sys.stderr,
        )
        return 1
    return 0


def plot_costs(
    outcomes: Sequence[Any],
    names: list[str],
    path: Path,
    title: str,
    *,
    target: float,
    xlabel: str,
    log: bool,
    width: float,
    row_height: float,
    fontsize: int,
) -> bool:
    """Horizontal bars of stridedarray's and array-api-strict's speed-up (NumPy's time over
    theirs) per case, with the 1x line and the suite's `target` line (the least speed-up
    wanted); the legend above the bars. False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    y = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(width, row_height * len(names) + 1.8), layout="constrained")
    for k, (lib, color) in enumerate(
        (("stridedarray", "tab:blue"), ("array-api-strict", "tab:gray"))
    ):
        vals = [o.speedup(lib) for o in outcomes]
        if not any(math.isfinite(v) for v in vals):
            continue
        ax.barh(
            y + 0.2 - 0.4 * k,
            [v if math.isfinite(v) else 0 for v in vals],
            height=0.38,
            color=color,
            label=lib,
        )
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.axvline(
        target,
        color="tab:red",
        linewidth=0.8,
        linestyle="--",
        label=f"target: speed-up {target:.2g}",
    )
    if log:
        from matplotlib.ticker import FuncFormatter

        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.set_yticks(y, names, fontsize=fontsize)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(True, axis="x", which="both" if log else "major", alpha=0.3)
    ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3, frameon=False)
    fig.suptitle(title + " (above 1: faster than NumPy)", fontsize=10)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def run_suite(args: argparse.Namespace) -> int:
    """Run the suite named by args.suite with the shared options (--quick, --out, --filter,
    --list, --threads, --seed, --no-progress; --callgrind for the overhead suite)."""
    from . import clients, overhead

    if args.suite != "overhead":
        return clients.run(
            args.out,
            args.quick,
            args.filter,
            args.threads,
            args.seed,
            list_only=args.list,
            progress=not args.no_progress,
        )
    return overhead.run(
        args.out,
        args.quick,
        args.filter,
        args.threads,
        args.seed,
        list_only=args.list,
        progress=not args.no_progress,
        count_instructions=getattr(args, "callgrind", False),
    )

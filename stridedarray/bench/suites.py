"""The per-call suites behind `--suite overhead` and `--suite clients` (see overhead.py and
clients.py); kept apart from the matmul workload's command line. `select`, the `--filter` rule,
serves the matmul workload too."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["run_suite", "select", "write_results"]


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


def write_results(stem: str, outcomes: Sequence[Any], info: dict, names: list[str],
                  out_dir: Path, title: str, markdown: Callable, write_csv: Callable,
                  write_json: Callable, plot: Callable, bad: list[str]) -> int:
    """Write a suite's <stem>.md/.csv/.json/.png into out_dir and print the table; the exit
    status, as for the matmul benchmark: 1 when a case (`bad`) differed from NumPy or failed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    text = markdown(outcomes, info, names)
    (out_dir / f"{stem}.md").write_text(text)
    write_csv(outcomes, out_dir / f"{stem}.csv")
    write_json(outcomes, info, names, out_dir / f"{stem}.json")
    plotted = plot(outcomes, out_dir / f"{stem}.png", title)
    print(text)
    print(f"wrote {out_dir / (stem + '.md')}, {stem}.csv, {stem}.json"
          + (f", {stem}.png" if plotted else " (no plot: matplotlib not installed)"))
    if bad:
        print(f"error: {len(bad)} case(s) differ from NumPy or failed: {', '.join(bad[:5])}"
              + (", ..." if len(bad) > 5 else ""), file=sys.stderr)
        return 1
    return 0


def run_suite(args: argparse.Namespace) -> int:
    """Run the suite named by args.suite with the shared options (--quick, --out, --filter,
    --list, --threads, --seed, --no-progress)."""
    from . import clients, overhead

    suite = overhead if args.suite == "overhead" else clients
    return suite.run(args.out, args.quick, args.filter, args.threads, args.seed,
                     list_only=args.list, progress=not args.no_progress)

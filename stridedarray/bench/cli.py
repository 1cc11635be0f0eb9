"""`python -m stridedarray.bench` / `stridedarray-bench`: the whole benchmark from one command.

The exit status is 0 when every case's result matched NumPy's, 1 when one differed or failed
(the outputs are written either way), 2 for a bad command line."""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
import time
from contextlib import AbstractContextManager
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import numpy as np

from .._cli import add_version, emit, exits_cleanly_on_closed_pipe, prog_name
from . import machine, report
from .load import busy_processes
from .machine import (
    busy_warning,
    default_threads,
    machine_info,
    numpy_idle_spin,
    set_threads,
    thread_label,
)
from .options import Options, select
from .runner import BUDGET, BUDGET_THREADS, QUICK, QUICK_THREADS, Result, run_case
from .workloads import Case, all_cases

__all__ = [
    "add_run_options",
    "beside_load",
    "main",
    "make_out_dir",
    "per_call_options",
    "select_cases",
    "start_run",
    "thread_counts",
]

O = TypeVar("O", bound=Options)


def select_cases(quick: bool, pattern: str | None) -> list[Case]:
    """The workload, keeping only cases whose name matches `pattern` (regex, case-insensitive)."""
    return select(all_cases(quick), pattern, "name")


class _Progress:
    """tqdm when installed, else a plain counter on stderr."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = None
        self.total, self.done, self.enabled = total, 0, enabled
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="case", file=sys.stderr, dynamic_ncols=True)
            except ImportError:
                pass

    def step(self, name: str) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix_str(name[:40], refresh=False)
            self.bar.update(1)
        elif self.enabled:
            print(f"[{self.done}/{self.total}] {name}", file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _parser(prog: str = "python -m stridedarray.bench") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Time stridedarray's matmul against NumPy's in the same process, on the "
        "benchmark workloads; write a Markdown table, raw CSV, JSON and a PNG plot. "
        "Exit status 1 when a result differs from NumPy's.",
    )
    add_version(p)
    add_run_options(
        p,
        docs="matmul-<N>thread[s]-*.md (matmul, with the plot as DIR/../benchmarks-"
        "<N>thread[s].png), expressions.md and expressions-targets.md (--suite expressions), "
        "contractions.md and contractions-targets.md (--suite contractions); "
        "a run with OPENBLAS_CORETYPE set, --load or --pause adds that to the names "
        "(matmul-2threads-haswell-*.md)",
    )
    p.add_argument(
        "--pause",
        type=float,
        default=0.0,
        metavar="MS",
        help="matmul: also time single products each after MS milliseconds of sleep (a "
        "product between other work, when the threads have gone idle), beside the "
        "back-to-back times",
    )
    p.add_argument(
        "--suite",
        choices=("matmul", "expressions", "contractions"),
        default="matmul",
        help="matmul (default): the planned matmul workload; expressions: chained "
        "element-wise expressions (x * 2 + 1, ...) in operator and function form, 10^2 to "
        "10^7 elements; contractions: einsum beside NumPy and opt_einsum (published cliffs, "
        "tensor networks, one contraction in every axis order)",
    )
    return p


def add_run_options(p: argparse.ArgumentParser, docs: str) -> None:
    """The options every suite takes (this command's and the research suites' of the
    repository's benchmarks/ folder); `docs` names the tables --docs writes."""
    p.add_argument("--quick", action="store_true", help="CI-sized workload and sampling (seconds)")
    p.add_argument(
        "--threads",
        type=_thread_count,
        action="append",
        metavar="N",
        help="threads for both libraries, a number or 'default' (each library's own default: "
        "what a program gets); repeat for several runs. Default: the default threads, then 1 "
        "thread (a per-call suite, such as --suite expressions: the first count only)",
    )
    p.add_argument(
        "--load",
        type=int,
        default=0,
        metavar="K",
        help="run K busy processes beside the measurement (started before, stopped after); "
        "the report records K",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("bench-out"),
        metavar="DIR",
        help="output directory (default ./bench-out)",
    )
    p.add_argument("--filter", metavar="PATTERN", help="only cases whose name matches (regex)")
    p.add_argument("--list", action="store_true", help="list the selected cases and exit")
    p.add_argument("--seed", type=int, default=0, help="random seed of the operand values")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--docs",
        type=Path,
        metavar="DIR",
        help=f"also write the tables the manual includes into DIR (docs/generated): {docs}",
    )


def _thread_count(text: str) -> int | None:
    """--threads: a count >= 1, or "default" (None: each library's own)."""
    if text == "default":
        return None
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a number of threads or 'default', got {text!r}"
        ) from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1 (or 'default'), got {n}")
    return n


def thread_counts(requested: list[int | None] | None) -> list[int | None]:
    """The runs' thread counts: as requested, else the libraries' default and then 1 (just
    the default where that is 1 thread), each count once."""
    counts = requested or [None, 1]
    out: list[int | None] = []
    seen: set[int] = set()
    for n in counts:
        resolved = default_threads() if n is None else n
        if resolved not in seen:
            seen.add(resolved)
            out.append(n)
    return out


def make_out_dir(out: Path) -> None:
    """Create the output directory now, not after the run (which may take minutes)."""
    if out.exists() and not out.is_dir():
        raise SystemExit(
            f"--out: {out} is a file; the benchmark writes its outputs into a directory"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SystemExit(
            f"--out: cannot create the output directory {out}: {exc.strerror or exc}"
        ) from None


def start_run(args: argparse.Namespace) -> None:
    """Check --load and record it for the reports (machine.RUN), before any suite runs."""
    if args.load < 0:
        raise SystemExit(f"--load must be >= 0 busy processes, got {args.load}")
    machine.RUN.clear()
    if args.load:
        machine.RUN["load_processes"] = args.load


def beside_load(args: argparse.Namespace) -> AbstractContextManager[Any]:
    """--load's busy processes around a run (none when it only lists the cases)."""
    return busy_processes(0 if args.list else args.load)


def per_call_options(args: argparse.Namespace, kind: type[O], **extra: Any) -> O:
    """The options a per-call suite's run() reads, from the shared ones (`add_run_options`)
    and a suite's `extra` fields (`kind` a subclass of Options that has them)."""
    return kind(
        out=args.out,
        quick=args.quick,
        pattern=args.filter,
        threads=thread_counts(args.threads)[0],
        seed=args.seed,
        list_only=args.list,
        progress=not args.no_progress,
        docs=args.docs,
        **extra,
    )


def _run_suite(args: argparse.Namespace, suite: ModuleType) -> int:
    """Run the per-call suite `suite` (its run(opts)) with the shared options."""
    with beside_load(args):
        return int(suite.run(per_call_options(args, Options)))


@exits_cleanly_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    """Run the selected suite and write its outputs (for matmul, per thread count:
    results-<N>thread[s].md, samples-<N>thread[s].csv, results-<N>thread[s].json,
    ratios-<N>thread[s].png, and results.md with every run's tables).

    Returns the exit status: 0 when every result matched NumPy's, 1 when one differed or
    failed."""
    args = _parser(prog_name("stridedarray.bench")).parse_args(argv)
    start_run(args)
    if not (args.pause >= 0 and math.isfinite(args.pause)):
        raise SystemExit(f"--pause must be a number of milliseconds >= 0, got {args.pause}")
    if args.pause and args.suite != "matmul":
        raise SystemExit("--pause times the products of the matmul suite only")
    if args.pause:
        machine.RUN["pause_ms"] = args.pause
    if args.suite == "expressions":
        from . import expressions

        return _run_suite(args, expressions)
    if args.suite == "contractions":
        from . import contractions

        return _run_suite(args, contractions)
    cases = select_cases(args.quick, args.filter)
    if args.list:
        emit("\n".join(c.name for c in cases))
        return 0
    if not cases:
        raise SystemExit(f"--filter {args.filter!r} matches no case (see --list)")
    make_out_dir(args.out)
    texts, written, bad = [], [], []
    with busy_processes(args.load):
        for n in thread_counts(args.threads):
            text, files, failed = _matmul_run(args, cases, n)
            texts.append(text)
            written += files
            bad += [name for name in failed if name not in bad]
    (args.out / "results.md").write_text("\n".join(texts))
    emit("wrote " + ", ".join([str(args.out / "results.md"), *written]))
    return report.exit_status(bad)


def _matmul_run(
    args: argparse.Namespace, cases: list[Case], requested: int | None
) -> tuple[str, list[str], list[str]]:
    """One run of the matmul workload at `requested` threads (None: the libraries'
    defaults): its outputs written, its tables printed. Returns the Markdown, the files
    written and the cases that differed from NumPy or failed."""
    set_threads(requested)
    threads = requested or default_threads()
    label = thread_label(threads)
    info = machine_info()
    how = "each library's default" if requested is None else "both libraries set to it"
    info["threads"] = f"{threads} ({how})"
    if args.quick:
        budget = QUICK if threads == 1 else QUICK_THREADS
    else:
        budget = BUDGET if threads == 1 else BUDGET_THREADS
    if args.pause:
        budget = dataclasses.replace(
            budget,
            pause_s=args.pause / 1e3,
            pause_repeats=3 if args.quick else budget.pause_repeats,
            settle_s=budget.settle_s if threads == 1 else max(budget.settle_s, 0.15),
        )
    if budget.settle_s and threads > 1:
        info["numpy_idle_spin"] = numpy_idle_spin(budget.settle_s)
    rng = np.random.default_rng(args.seed)
    progress = _Progress(len(cases), enabled=not args.no_progress)
    t0 = time.perf_counter()
    results = []
    try:
        for case in cases:
            results.append(run_case(case, budget, rng))
            progress.step(case.name)
    finally:
        progress.close()
    info["wall_time"] = f"{time.perf_counter() - t0:.1f} s"
    info["load_average_at_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    table = report.markdown(results, info, threads)
    goals = report.targets_markdown(report.targets(results, threads))
    warning = busy_warning(info, threads)
    if warning:  # in the summary too, beside the targets it may have decided
        goals += f"\n**{warning}**\n"
    written = report.write_outputs(
        args.out,
        {
            "md": f"results-{label}.md",
            "csv": f"samples-{label}.csv",
            "json": f"results-{label}.json",
            "png": f"ratios-{label}.png",
        },
        table + "\n## Targets\n\n" + goals,
        report.CSV_FIELDS,
        report.matmul_csv_rows(results),
        report.matmul_json(results, info, threads),
        lambda path: _plot(results, info, threads, path),
        report.matmul_fragments(results, info, threads),
        args.docs,
    )
    if args.docs is not None:
        png = args.docs.parent / f"benchmarks-{label}{report.run_tag(info)}.png"
        if _plot(results, info, threads, png):
            written.append(str(png))
    emit(table)
    emit(goals)
    bad = [r.case.name for r in results if not r.correct]
    return table + "\n## Targets\n\n" + goals, written, bad


def _plot(results: list[Result], info: dict, threads: int, path: Path) -> bool:
    try:
        from .plot import plot_ratios
    except ImportError:
        return False
    rows = [
        {
            "group": r.case.group,
            "config": r.case.config,
            "size": r.case.size,
            "work": r.case.work,
            "ratio": r.ratio,
        }
        for r in results
    ]
    try:
        plot_ratios(
            rows,
            path,
            f"stridedarray vs NumPy matmul, {threads} BLAS thread(s), {info['cpu']}",
            warning=busy_warning(info, threads),
        )
    except ImportError:
        return False
    return True

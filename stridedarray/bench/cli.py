"""`python -m stridedarray.bench` / `stridedarray-bench`: the whole benchmark from one command.

The exit status is 0 when every case's result matched NumPy's, 1 when one differed or failed
(the outputs are written either way), 2 for a bad command line."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from .._cli import add_version, emit, exits_cleanly_on_closed_pipe, prog_name
from . import report
from .cases import select
from .machine import busy_warning, machine_info, numpy_idle_spin, set_threads
from .runner import BUDGET, BUDGET_THREADS, QUICK, Result, run_case
from .workloads import Case, all_cases

__all__ = ["main", "select_cases"]


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
    p.add_argument("--quick", action="store_true", help="CI-sized workload and sampling (seconds)")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        metavar="N",
        help="BLAS threads for both NumPy's and stridedarray's OpenBLAS (default 1)",
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
        "--suite",
        choices=("matmul", "overhead", "clients"),
        default="matmul",
        help="matmul (default): the planned matmul workload; overhead: the per-call "
        "cost of every function family on small arrays; clients: scikit-learn "
        "and SciPy array-API workloads end to end",
    )
    p.add_argument(
        "--callgrind",
        action="store_true",
        help="--suite overhead: also count instructions per call under valgrind's callgrind "
        "(valgrind on PATH; a few minutes more), beside the times",
    )
    d = p.add_argument_group("Dask scale-out (--dask)")
    d.add_argument(
        "--dask",
        action="store_true",
        help="instead: the reused-operand workload on a dask.distributed cluster of "
        "1 and 2 worker processes, stridedarray chunks beside NumPy chunks",
    )
    d.add_argument(
        "--dask-batch",
        type=int,
        default=1024,
        metavar="B",
        help="batch size B of (1,S,S)[..., ::-1] @ (B,S,S) (default 1024; --quick: 128)",
    )
    d.add_argument(
        "--dask-chunk",
        type=int,
        default=32,
        metavar="C",
        help="matrices per chunk along the batch axis (default 32)",
    )
    d.add_argument("--dask-size", type=int, default=256, metavar="S", help="S (default 256)")
    d.add_argument(
        "--no-cubed",
        action="store_true",
        help="--dask: leave out the Cubed variant (which runs when cubed is importable)",
    )
    p.add_argument(
        "--docs",
        type=Path,
        metavar="DIR",
        help="also write the tables the manual includes into DIR (docs/generated): "
        "overhead.md and overhead-targets.md (--suite overhead), "
        "matmul-<N>thread[s]-*.md (matmul, with the plot as DIR/../benchmarks-"
        "<N>thread[s].png), dask.md and cubed.md (--dask)",
    )
    return p


def _make_out_dir(out: Path) -> None:
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


def _dask_main(args: argparse.Namespace) -> int:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise SystemExit(
            "--dask needs dask.distributed: pip install 'stridedarray[dask]'"
        ) from None
    from . import cubed_scaling
    from .dask_scaling import ResultMismatch, run
    from .scale_out import Params

    batch = 128 if args.quick and args.dask_batch == 1024 else args.dask_batch
    for name, v in (
        ("--dask-batch", batch),
        ("--dask-chunk", args.dask_chunk),
        ("--dask-size", args.dask_size),
    ):
        if v < 1:
            raise SystemExit(f"{name} must be >= 1, got {v}")
    _make_out_dir(args.out)
    params = Params(batch, min(args.dask_chunk, batch), args.dask_size, 2 if args.quick else 5)
    try:
        run(args.out, params, workers=(1, 2), docs_dir=args.docs)
        if not args.no_cubed:
            cubed_scaling.run(args.out, params, workers=(1, 2), docs_dir=args.docs)
    except ResultMismatch as exc:
        emit(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def run_suite(args: argparse.Namespace) -> int:
    """Run the per-call suite named by args.suite with the shared options (--quick, --out,
    --filter, --list, --threads, --seed, --no-progress, --docs; --callgrind for overhead)."""
    from . import clients, overhead
    from .cases import Options

    opts = Options(
        out=args.out,
        quick=args.quick,
        pattern=args.filter,
        threads=args.threads,
        seed=args.seed,
        list_only=args.list,
        progress=not args.no_progress,
        callgrind=args.callgrind,
        docs=args.docs,
    )
    return overhead.run(opts) if args.suite == "overhead" else clients.run(opts)


@exits_cleanly_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    """Run the selected cases and write results.md, samples.csv, results.json, ratios.png.

    Returns the exit status: 0 when every result matched NumPy's, 1 when one differed or
    failed."""
    args = _parser(prog_name("stridedarray.bench")).parse_args(argv)
    if args.threads < 1:
        raise SystemExit(f"--threads must be >= 1, got {args.threads}")
    if args.callgrind and (args.dask or args.suite != "overhead"):
        raise SystemExit("--callgrind counts the cases of --suite overhead only")
    if args.dask:
        return _dask_main(args)
    if args.suite != "matmul":
        return run_suite(args)
    cases = select_cases(args.quick, args.filter)
    if args.list:
        emit("\n".join(c.name for c in cases))
        return 0
    if not cases:
        raise SystemExit(f"--filter {args.filter!r} matches no case (see --list)")
    _make_out_dir(args.out)
    set_threads(args.threads)
    info = machine_info()
    budget = QUICK if args.quick else BUDGET if args.threads == 1 else BUDGET_THREADS
    if budget.settle_s:
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
    table = report.markdown(results, info, args.threads)
    goals = report.targets_markdown(report.targets(results, args.threads))
    warning = busy_warning(info, args.threads)
    if warning:  # in the summary too, beside the targets it may have decided
        goals += f"\n**{warning}**\n"
    plural = "thread" if args.threads == 1 else "threads"
    written = report.write_outputs(
        args.out,
        {"md": "results.md", "csv": "samples.csv", "json": "results.json", "png": "ratios.png"},
        table + "\n## Targets\n\n" + goals,
        report.CSV_FIELDS,
        report.matmul_csv_rows(results),
        report.matmul_json(results, info, args.threads),
        lambda path: _plot(results, info, args.threads, path),
        report.matmul_fragments(results, info, args.threads),
        args.docs,
    )
    if args.docs is not None and _plot(
        results, info, args.threads, args.docs.parent / f"benchmarks-{args.threads}{plural}.png"
    ):
        written.append(str(args.docs.parent / f"benchmarks-{args.threads}{plural}.png"))
    emit(table)
    emit(goals)
    emit("wrote " + ", ".join(written))
    return report.exit_status([r.case.name for r in results if not r.correct])


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

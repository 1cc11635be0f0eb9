"""`python -m benchmarks`: the research suites from one command, run from the repository's
root (README.md says what each measures).

The per-call suites (overhead, clients) and the scale-out (--dask) take the options of
`python -m stridedarray.bench` (`add_run_options`) and write their outputs the same way; the
exit status is 0 when every result matched NumPy's, 1 when one differed or failed, 2 for a bad
command line. The single-purpose suites (twothreads, int-kernels, ndarray-temporaries, views)
print one table each and take their own options, after the suite's name
(`python -m benchmarks --suite views --help`)."""

from __future__ import annotations

import argparse
import importlib
import sys

from stridedarray._cli import emit, exits_cleanly_on_closed_pipe
from stridedarray.bench.cli import (
    add_run_options,
    beside_load,
    make_out_dir,
    per_call_options,
    start_run,
)

__all__ = ["main", "PER_CALL", "SINGLE"]

PROG = "python -m benchmarks"
# --suite NAME -> the module of benchmarks/ that runs it.
PER_CALL = {"overhead": "overhead", "clients": "clients"}
SINGLE = {
    "twothreads": "twothreads",
    "int-kernels": "int_kernels",
    "ndarray-temporaries": "ndarray_temporaries",
    "views": "views",
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="The research suites of the repository's benchmarks/ folder, beside "
        "NumPy (run from the repository's root). Exit status 1 when a result differs from "
        "NumPy's.",
    )
    p.add_argument(
        "--suite",
        choices=(*PER_CALL, *SINGLE),
        help="overhead: the per-call cost of every function family on small arrays; "
        "clients: scikit-learn and SciPy array-API workloads end to end; twothreads: NumPy's "
        "and our OpenBLAS pools in one process; int-kernels: the generic integer matmul "
        "kernels; ndarray-temporaries: the view that owns a caller's ndarray operand; views: "
        "the cost of making a view. The last four take their own options after the name "
        f"({PROG} --suite views --help)",
    )
    add_run_options(
        p,
        docs="overhead.md and overhead-targets.md (--suite overhead), dask.md and cubed.md "
        "(--dask)",
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
    return p


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
    make_out_dir(args.out)
    params = Params(batch, min(args.dask_chunk, batch), args.dask_size, 2 if args.quick else 5)
    try:
        run(args.out, params, workers=(1, 2), docs_dir=args.docs)
        if not args.no_cubed:
            cubed_scaling.run(args.out, params, workers=(1, 2), docs_dir=args.docs)
    except ResultMismatch as exc:
        emit(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


@exits_cleanly_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    """Run the selected suite and write its outputs; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--suite")
    known, rest = first.parse_known_args(argv)
    if known.suite in SINGLE:  # its own command line: everything but --suite NAME
        module = importlib.import_module(f"{__package__}.{SINGLE[known.suite]}")
        return int(module.main(rest, prog=f"{PROG} --suite {known.suite}") or 0)
    parser = _parser()
    args = parser.parse_args(argv)
    start_run(args)
    if args.callgrind and (args.dask or args.suite != "overhead"):
        raise SystemExit("--callgrind counts the cases of --suite overhead only")
    if args.suite is None and not args.dask:
        parser.error("name a suite: --suite NAME, or --dask")
    with beside_load(args):
        if args.dask:
            return _dask_main(args)
        from .cases import LabOptions

        suite = importlib.import_module(f"{__package__}.{PER_CALL[args.suite]}")
        return int(suite.run(per_call_options(args, LabOptions, callgrind=args.callgrind)))

"""The per-call suites behind `--suite overhead` and `--suite clients` (see overhead.py and
clients.py); kept apart from the matmul workload's command line."""

from __future__ import annotations

import argparse

__all__ = ["run_suite"]


def run_suite(args: argparse.Namespace) -> int:
    """Run the suite named by args.suite with the shared options (--quick, --out, --filter,
    --list, --threads, --seed, --no-progress)."""
    from . import clients, overhead

    suite = overhead if args.suite == "overhead" else clients
    return suite.run(args.out, args.quick, args.filter, args.threads, args.seed,
                     list_only=args.list, progress=not args.no_progress)

"""Benchmarks of stridedarray's matmul against NumPy's (docs/benchmark-method.md).

Modules: `workloads` (the cases), `runner` (interleaved timing), `sampling` (the sampler every
suite shares), `machine` (versions, BLAS thread pools, the BLAS kernels), `report` (Markdown,
CSV, JSON, targets), `plot` (PNG, matplotlib imported lazily), `load` (--load's busy
processes), `expressions` (--suite expressions), `options` (a per-call suite's options and
--filter), `cli` (the command line). Run `python -m stridedarray.bench --help`.

The project's research suites (per-call overhead, clients, scale-out, two pools) are in the
repository's `benchmarks/` folder, not installed; they import these modules.
"""

from .cli import main

__all__ = ["main"]

"""Benchmarks of stridedarray's matmul against NumPy's (docs/benchmark-method.md).

Modules: `workloads` (the cases), `runner` (interleaved timing), `machine` (versions, BLAS
thread pools, the BLAS kernels), `report` (Markdown, CSV, JSON, targets), `plot` (PNG,
matplotlib imported lazily), `load` (--load's busy processes), `expressions` (--suite
expressions), `cli` (the command line). Run `python -m stridedarray.bench --help`.
"""

from .cli import main

__all__ = ["main"]

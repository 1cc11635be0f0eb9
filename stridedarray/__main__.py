"""`python -m stridedarray`: what this build runs on, and a short checked demo."""

from __future__ import annotations

import argparse

import numpy as np

import stridedarray as sa
from stridedarray._cli import add_version, emit, exits_cleanly_on_closed_pipe

from ._matmul.threads import openmp_library


def threads_line(core: int, blas: int, runtime: str) -> str:
    """The one line on threads: how many the C core uses and how BLAS calls relate to them
    (docs/matmul.md, "Threads")."""
    change = "sa.set_num_threads, threadpoolctl or OMP_NUM_THREADS change it"
    if blas == 1:  # the default: the core splits the work, each BLAS call on one of its threads
        how = "the C core splits products over them, one BLAS call per thread"
    else:  # OPENBLAS_NUM_THREADS (or threadpoolctl) gave OpenBLAS its own threads back
        how = f"BLAS calls run on OpenBLAS's own {blas} instead, unsplit"
    return f"threads: {core} ({how}; {change}; OpenMP runtime {runtime})"


@exits_cleanly_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    """Print version, BLAS and threads, then multiply a reversed view by a batch."""
    parser = argparse.ArgumentParser(
        prog="python -m stridedarray",
        description="Print the stridedarray version, the bundled BLAS with its core type and "
        "thread count, and a demo product checked against NumPy with the route "
        "matmul_explain reports. Exit status 0 when the demo matches NumPy, 1 "
        "otherwise.",
    )
    add_version(parser)
    parser.parse_args(argv)
    info = sa.blas_info()
    emit(f"stridedarray {sa.__version__} (Array API {sa.__array_api_version__})")
    emit(f"BLAS: {info['library']} {info['version']}, core type {info['corename']}")
    emit(threads_line(sa.get_num_threads(), info["threads"], openmp_library()))
    rng = np.random.default_rng(0)
    base = sa.asarray(rng.standard_normal((1, 64, 64)))
    lhs = base[:, :, ::-1]  # a reversed view: strides (4096, 64, -1), no copy
    rhs = sa.asarray(rng.standard_normal((16, 64, 64)))
    out = lhs @ rhs
    expected = np.asarray(lhs) @ np.asarray(rhs)
    err = float(np.max(np.abs(np.asarray(out) - expected)))
    emit(f"demo: lhs shape {lhs.shape} strides {lhs.strides} @ rhs shape {rhs.shape}")
    emit(f"      -> {out.shape}; max |stridedarray - numpy| = {err:.3g}")
    emit(str(sa.matmul_explain(lhs, rhs)))
    ok = err <= 1e-12 * 64
    emit("demo result matches NumPy" if ok else "demo result DIFFERS from NumPy")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

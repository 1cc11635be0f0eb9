"""`python -m benchmarks --dask`, Cubed variant: the same workloads on Cubed's
processes executor, stridedarray as Cubed's backend beside NumPy.

Cubed reads its backend namespace (`CUBED_BACKEND_ARRAY_API_MODULE`) once, when it is
imported, so each backend runs in a child process of its own (`child`), with every BLAS and
OpenMP pool pinned to one thread in the environment the executor's worker processes inherit.
Per backend and number of workers (`max_workers` of the processes executor), three workloads:

- matmul: the design notes' `(1,S,S)[..., ::-1] @ (B,S,S)`, the batch in chunks of C (Cubed's
  slices take no negative step: the reversal is `flip(..., axis=-1)`), written to Zarr;
- reduction: the mean over the batch axis of the (B,S,S) operand, computed;
- elementwise: `exp(-b) * 2.0 + sqrt(abs(b))` on the operand, written to Zarr.

The (B,S,S) operand is made chunk by chunk inside the tasks from a fixed seed (the same
values for both backends, nothing large in the plan). Each timed run is a whole Cubed
computation, including its worker processes' start (Cubed's processes executor starts a
pool per computation). After the runs, each backend's results are reduced to per-matrix
sums and a mean, compared across backends (`ResultMismatch` when they differ).

Cubed needs Python >= 3.12; where it is not importable the variant is skipped with a message.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from .dask_scaling import ResultMismatch
from .scale_out import PINNED_ENV, Params, summarise, write

__all__ = ["WORKLOADS", "available", "child", "run"]

LIBRARIES = ("numpy", "stridedarray")
WORKLOADS = ("matmul", "reduction", "elementwise")


def available() -> bool:
    """Can this interpreter import cubed?"""
    return importlib.util.find_spec("cubed") is not None


def _rhs_chunk(x: Any, seed: int = 0, block_id: tuple = (0,)) -> Any:
    """One chunk of the (B,S,S) operand, made in the task from (seed, chunk index)."""
    from cubed.backend_array_api import numpy_array_to_backend_array

    data = np.random.default_rng((seed, block_id[0])).standard_normal(x.shape)
    return numpy_array_to_backend_array(data)


def _graphs(spec: Any, batch: int, chunk: int, size: int) -> dict[str, Any]:
    """The three workloads' Cubed arrays (lazy), on operands made in the tasks."""
    import cubed
    import cubed.array_api as cxp
    from cubed.core.ops import map_blocks

    rhs = map_blocks(
        _rhs_chunk,
        dtype=np.float64,
        chunks=((chunk,) * (-(-batch // chunk)), (size,), (size,)),
        spec=spec,
        seed=1,
    )
    rhs = rhs[:batch] if batch % chunk else rhs
    lhs = np.random.default_rng(0).standard_normal((1, size, size))
    shared = cxp.flip(cubed.from_array(lhs, chunks=(1, size, size), spec=spec), axis=-1)
    return {
        "matmul": shared @ rhs,
        "reduction": cxp.mean(rhs, axis=0),
        "elementwise": cxp.exp(-rhs) * 2.0 + cxp.sqrt(cxp.abs(rhs)),
    }


def _worker_threads_in_pool() -> list[dict]:
    """The thread counts of a worker process started as Cubed's executor starts them (spawn,
    this process's environment)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from .scale_out import worker_threads

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return [pool.submit(worker_threads).result()]


def child(argv: list[str]) -> None:
    """In the child (backend chosen by the environment): argv = [params as JSON]. Prints a
    JSON object: the samples, per-workload checks and the workers' thread counts."""
    import cubed
    import cubed.array_api as cxp

    p = json.loads(argv[0])
    batch, chunk, size, repeats = p["batch"], p["chunk"], p["size"], p["repeats"]
    library = os.environ["CUBED_BACKEND_ARRAY_API_MODULE"]
    samples: list[dict] = []
    checks: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="stridedarray-cubed-") as tmp:
        for n in p["workers"]:
            spec = cubed.Spec(
                work_dir=tmp,
                allowed_mem=p["allowed_mem"],
                executor_name="processes",
                executor_options={"max_workers": n},
            )
            for name in WORKLOADS:
                for rep in range(-1, repeats):  # -1: the warm-up, untimed
                    graph = _graphs(spec, batch, chunk, size)[name]
                    t0 = time.perf_counter()
                    if name == "reduction":
                        graph.compute()
                    else:
                        cubed.to_zarr(graph, f"{tmp}/out-{name}-{n}-{rep}.zarr")
                    seconds = time.perf_counter() - t0
                    if rep >= 0:
                        samples.append(
                            {
                                "workload": name,
                                "library": library,
                                "workers": n,
                                "repeat": rep,
                                "seconds": seconds,
                            }
                        )
                if n == p["workers"][0]:
                    g = _graphs(spec, batch, chunk, size)[name]
                    summed = g if name == "reduction" else cxp.sum(g, axis=(1, 2))
                    checks[name] = np.asarray(summed.compute()).ravel().tolist()
    print(json.dumps({"samples": samples, "checks": checks, "threads": _worker_threads_in_pool()}))


def _run_backend(library: str, params: dict) -> dict:
    env = dict(os.environ, CUBED_BACKEND_ARRAY_API_MODULE=library, **PINNED_ENV)
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from benchmarks.cubed_scaling import child; child(sys.argv[1:])",
            json.dumps(params),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the Cubed run on the {library} backend failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run(
    out: Path,
    params: Params,
    workers: tuple[int, ...],
    docs_dir: Path | None = None,
    allowed_mem: str = "1GB",
) -> list[dict]:
    """Time every (workload, library, workers) triple on Cubed's processes executor; write
    cubed.md/.csv/.json/.png (and the table into docs_dir); return the rows. Without cubed,
    print why and return no rows."""
    if not available():
        print(
            "Cubed variant skipped: cubed is not importable by this Python "
            f"({sys.version.split()[0]}; Cubed needs Python >= 3.12: pip install cubed)"
        )
        return []
    batch, chunk, size = params.batch, params.chunk, params.size
    to_child = {**dataclasses.asdict(params), "workers": list(workers), "allowed_mem": allowed_mem}
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    results = {lib: _run_backend(lib, to_child) for lib in LIBRARIES}
    for name in WORKLOADS:
        ref, got = (np.asarray(results[lib]["checks"][name]) for lib in LIBRARIES)
        if ref.shape != got.shape or not np.allclose(got, ref, rtol=1e-10, atol=1e-9 * size):
            worst = int(np.argmax(np.abs(got - ref))) if ref.shape == got.shape else -1
            raise ResultMismatch(
                f"Cubed {name}: stridedarray's result differs from NumPy's (sum {worst}: "
                f"{got.ravel()[worst]!r} against {ref.ravel()[worst]!r})"
            )
    samples = [s for lib in LIBRARIES for s in results[lib]["samples"]]
    keys = ("workload", "library", "workers")
    rows = summarise(samples, keys, LIBRARIES)
    s = size
    write(
        out,
        "cubed",
        f"Cubed scale-out: (1,{s},{s})[..., ::-1] @ ({batch},{s},{s}) in chunks of {chunk}, "
        "a reduction, an element-wise chain",
        f"{params.repeats} timed runs per row after a warm-up, each a whole computation on Cubed's "
        "processes executor with max_workers worker processes (started per computation), "
        "every BLAS and OpenMP pool in them pinned to one thread. matmul: the product "
        "written to Zarr; reduction: mean over the batch axis, computed; elementwise: "
        "exp(-b) * 2.0 + sqrt(abs(b)) written to Zarr. Median and the fastest and slowest "
        "run; spread = (slowest - fastest) / median. Speedup over one worker; vs NumPy = the "
        "NumPy backend's median / this row's.",
        keys,
        rows,
        samples,
        dataclasses.asdict(params),
        {f"{lib} backend": results[lib]["threads"] for lib in LIBRARIES},
        load,
        docs_dir,
    )
    return rows

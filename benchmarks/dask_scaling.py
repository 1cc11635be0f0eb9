"""`python -m benchmarks --dask`: the design notes' workload scaled out on Dask.

`(1, S, S)[..., ::-1] @ (B, S, S)` with the batch axis chunked, on a `dask.distributed`
LocalCluster of 1 and then 2 worker processes (one thread each; every BLAS and OpenMP pool in
them pinned to one thread, and each worker's thread counts recorded:
scale_out.py), once with stridedarray chunks and once
with NumPy chunks of the same values. The batch operand is generated and persisted on the
workers before the clock starts (nothing large crosses the wire), and the product is persisted
there too, so the wall time is the products' compute and Dask's scheduling of them. The
per-matrix sums of both libraries' products are then compared (`ResultMismatch` when they
differ). Each sample records the share of CPU time the hypervisor took from this machine
meanwhile ("steal", from /proc/stat): on a shared virtual machine it is what makes runs differ.
Writes dask.md (table: median, fastest and slowest run, spread), dask.csv (every run),
dask.json and dask.png (wall time and scaling), and with `--docs` the table fragment.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

import stridedarray as sa

from .scale_out import PINNED_ENV, Params, pin_threads, summarise, worker_threads, write

__all__ = ["ResultMismatch", "run", "workload"]

LIBRARIES = ("numpy", "stridedarray")


def _rhs_block(block_id: tuple, chunk: int, size: int, seed: int, library: str) -> Any:
    """One chunk of the batch operand, made on the worker that computes it."""
    rng = np.random.default_rng((seed, block_id[0]))
    data = rng.standard_normal((chunk, size, size))
    return sa.asarray(data) if library == "stridedarray" else data


def batch_operand(library: str, batch: int, chunk: int, size: int, seed: int = 1) -> Any:
    """The (B, S, S) operand as a Dask array whose chunks are made on the workers."""
    import dask.array as da

    meta = sa.empty((0, 0, 0)) if library == "stridedarray" else np.empty((0, 0, 0))
    nchunks = -(-batch // chunk)
    return da.map_blocks(
        lambda block_id=None: _rhs_block(block_id, chunk, size, seed, library),
        chunks=((chunk,) * nchunks, (size,), (size,)),
        dtype=np.float64,
        meta=meta,
    )


def workload(library: str, rhs: Any, size: int, seed: int = 0) -> Any:
    """The Dask graph of `(1, S, S)[..., ::-1] @ rhs` on `library`'s chunks."""
    import dask.array as da

    shared = np.random.default_rng(seed).standard_normal((1, size, size))
    lhs = sa.asarray(shared) if library == "stridedarray" else shared
    lhs = da.from_array(lhs, chunks=(1, size, size), asarray=False)[..., ::-1]
    return lhs @ rhs


class ResultMismatch(AssertionError):
    """stridedarray chunks gave a different product from NumPy chunks of the same values."""


def _cpu_ticks() -> tuple[int, int] | None:
    """(steal, total) CPU ticks of the whole machine so far, or None off Linux."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def _steal_fraction(
    before: tuple[int, int] | None,
    after: tuple[int, int] | None,
) -> float | None:
    if before is None or after is None or after[1] == before[1]:
        return None
    return (after[0] - before[0]) / (after[1] - before[1])


def _matrix_sums(client: Any, graph: Any) -> np.ndarray:
    """Per-matrix sums of a product graph, computed on the workers, as a NumPy vector."""
    return np.asarray(client.compute(graph.sum(axis=(-2, -1))).result())


def _time_once(client: Any, graph: Any) -> tuple[float, float | None]:
    """Wall time of computing and keeping `graph` on the workers, and the steal meanwhile."""
    from distributed import wait

    ticks = _cpu_ticks()
    t0 = time.perf_counter()
    done = client.persist(graph)
    wait(done)
    elapsed = time.perf_counter() - t0
    del done  # the workers release the product before the next run
    return elapsed, _steal_fraction(ticks, _cpu_ticks())


@contextmanager
def _environ_kept() -> Iterator[None]:
    """distributed's Nanny writes a cluster's `env` into this process's own os.environ (and
    leaves it there), where every process started later would read OMP_NUM_THREADS=1: the
    variables are put back as they were."""
    before = {k: os.environ.get(k) for k in PINNED_ENV}
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run(
    out: Path, params: Params, workers: tuple[int, ...], docs_dir: Path | None = None
) -> list[dict]:
    """Time every (library, workers) pair; write the table, CSV, JSON and plot (and the
    table into docs_dir); return the rows."""
    from distributed import Client, LocalCluster, wait

    batch, chunk, size, repeats = params.batch, params.chunk, params.size, params.repeats
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    samples: list[dict] = []
    sums: dict[str, np.ndarray] = {}
    threads: dict[str, list[dict]] = {}
    for n in workers:
        with (
            _environ_kept(),
            LocalCluster(
                n_workers=n,
                processes=True,
                threads_per_worker=1,
                dashboard_address=None,
                worker_dashboard_address=None,
                env=PINNED_ENV,  # read by the pools as the worker process starts
            ) as cluster,
            Client(cluster) as client,
        ):
            client.run(pin_threads)
            for library in LIBRARIES:
                # The batch operand is made and kept on the workers first: the timed part is
                # the product alone.
                rhs = client.persist(batch_operand(library, batch, chunk, size))
                wait(rhs)
                _time_once(client, workload(library, rhs, size, seed=99))  # warm up
                for rep in range(repeats):
                    # A fresh graph (new keys) per repeat: nothing is reused from the last one.
                    graph = workload(library, rhs, size, seed=rep)
                    seconds, steal = _time_once(client, graph)
                    samples.append(
                        {
                            "library": library,
                            "workers": n,
                            "repeat": rep,
                            "seconds": seconds,
                            "steal": steal,
                        }
                    )
                if n == workers[0]:
                    sums[library] = _matrix_sums(client, workload(library, rhs, size, seed=0))
                del rhs
            # after the runs: what each worker's pools report
            threads[f"{n} worker(s)"] = list(client.run(worker_threads).values())
    ref, got = sums["numpy"], sums["stridedarray"]
    if not np.allclose(got, ref, rtol=1e-10, atol=1e-9 * size):
        worst = int(np.argmax(np.abs(got - ref)))
        raise ResultMismatch(
            f"matrix {worst} of the product: stridedarray chunks sum to "
            f"{got[worst]!r}, NumPy chunks to {ref[worst]!r}"
        )
    rows = summarise(samples, ("library", "workers"), LIBRARIES)
    s = size
    write(
        out,
        "dask",
        f"Dask scale-out: (1,{s},{s})[..., ::-1] @ ({batch},{s},{s}), chunks of {chunk}",
        f"{repeats} timed runs per row after a warm-up, on a dask.distributed LocalCluster "
        "of worker processes with one thread each, every BLAS and OpenMP pool in them "
        "pinned to one thread (dask.md lists what each worker reported). Median and the "
        "fastest and slowest run; spread = (slowest - fastest) / median. Speedup over one "
        "worker; efficiency = speedup / workers; vs NumPy = NumPy chunks' median / this "
        "row's. Steal = share of the machine's CPU time the hypervisor took during the "
        "row's runs (/proc/stat).",
        ("library", "workers"),
        rows,
        samples,
        dataclasses.asdict(params),
        threads,
        load,
        docs_dir,
    )
    return rows

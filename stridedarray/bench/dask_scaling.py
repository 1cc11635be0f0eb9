"""`python -m stridedarray.bench --dask`: the design notes' workload scaled out on Dask.

`(1, S, S)[..., ::-1] @ (B, S, S)` with the batch axis chunked, on a `dask.distributed`
LocalCluster of 1 and then 2 worker processes (one thread each, so each worker's two OpenBLAS
pools run one thread: the nanny's default environment), once with stridedarray chunks and once
with NumPy chunks of the same values. The batch operand is generated and persisted on the
workers before the clock starts (nothing large crosses the wire), and the product is persisted
there too, so the wall time is the products' compute and Dask's scheduling of them. The
per-matrix sums of both libraries' products are then compared (`ResultMismatch` when they
differ). Each sample records the share of CPU time the hypervisor took from this machine
meanwhile ("steal", from /proc/stat): on a shared virtual machine it is what makes runs differ.
Writes dask.md (table), dask.csv (every sample), dask.json and dask.png (wall time and scaling).
"""

from __future__ import annotations

import csv
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

import stridedarray as sa

from .machine import machine_info
from .report import fmt_time

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


def run(
    out: Path,
    batch: int,
    chunk: int,
    size: int,
    repeats: int,
    workers: tuple[int, ...],
) -> list[dict]:
    """Time every (library, workers) pair; write the table, CSV, JSON and plot; return rows."""
    from distributed import Client, LocalCluster, wait

    samples: list[dict] = []
    sums: dict[str, np.ndarray] = {}
    for n in workers:
        with (
            LocalCluster(
                n_workers=n,
                processes=True,
                threads_per_worker=1,
                dashboard_address=None,
                worker_dashboard_address=None,
            ) as cluster,
            Client(cluster) as client,
        ):
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
    ref, got = sums["numpy"], sums["stridedarray"]
    if not np.allclose(got, ref, rtol=1e-10, atol=1e-9 * size):
        worst = int(np.argmax(np.abs(got - ref)))
        raise ResultMismatch(
            f"matrix {worst} of the product: stridedarray chunks sum to "
            f"{got[worst]!r}, NumPy chunks to {ref[worst]!r}"
        )
    rows = _summarise(samples, workers)
    _write(out, rows, samples, dict(batch=batch, chunk=chunk, size=size, repeats=repeats))
    return rows


def _summarise(samples: list[dict], workers: tuple[int, ...]) -> list[dict]:
    rows = []
    for library in LIBRARIES:
        base = None
        for n in workers:
            mine = [s for s in samples if s["library"] == library and s["workers"] == n]
            t = statistics.median(s["seconds"] for s in mine)
            steals = [s["steal"] for s in mine if s["steal"] is not None]
            base = t if base is None else base
            rows.append(
                {
                    "library": library,
                    "workers": n,
                    "median_s": t,
                    "speedup": base / t,
                    "efficiency": base / t / (n / workers[0]),
                    "steal": statistics.mean(steals) if steals else None,
                }
            )
    for r in rows:
        np_t = next(
            q["median_s"] for q in rows if q["library"] == "numpy" and q["workers"] == r["workers"]
        )
        r["vs_numpy"] = np_t / r["median_s"]
    return rows


def _write(out: Path, rows: list[dict], samples: list[dict], params: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    info = machine_info()
    b, c, s = params["batch"], params["chunk"], params["size"]
    lines = [f"# Dask scale-out: (1,{s},{s})[..., ::-1] @ ({b},{s},{s}), chunks of {c}", ""]
    lines += [f"- {k}: {v}" for k, v in info.items() if k != "env"]
    lines += [
        "",
        "Median of {repeats} runs per row; worker processes with one thread each "
        "(each worker's OpenBLAS pools at one thread). Efficiency = speedup over one "
        "worker / number of workers. vs NumPy = NumPy chunks' time / this row's time. "
        "Steal = share of the machine's CPU time the hypervisor took during the row's "
        "runs (/proc/stat): rows with much steal measure the host, not the product.".format(
            **params
        ),
        "",
        "| chunks | workers | wall time | speedup | efficiency | vs NumPy | steal |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        steal = "-" if r["steal"] is None else f"{r['steal']:.0%}"
        lines.append(
            f"| {r['library']} | {r['workers']} | {fmt_time(r['median_s'])} | "
            f"{r['speedup']:.2f}x | {r['efficiency']:.0%} | {r['vs_numpy']:.2f}x | "
            f"{steal} |"
        )
    table = "\n".join(lines) + "\n"
    (out / "dask.md").write_text(table)
    with open(out / "dask.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["library", "workers", "repeat", "seconds", "steal"])
        w.writeheader()
        w.writerows(samples)
    (out / "dask.json").write_text(
        json.dumps({"params": params, "machine": info, "rows": rows}, indent=2, default=str)
    )
    _plot(rows, out / "dask.png", params)
    print(table)


def _plot(rows: list[dict], path: Path, params: dict) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for library, color in (("numpy", "tab:orange"), ("stridedarray", "tab:blue")):
        pts = [(r["workers"], r["median_s"]) for r in rows if r["library"] == library]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=color, label=library)
        for x, y in pts:
            ax.annotate(fmt_time(y), (x, y), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xticks(sorted({r["workers"] for r in rows}))
    ax.set_xlabel("worker processes (1 thread each)")
    ax.set_ylabel("wall time (s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_title(
        f"(1,{params['size']},{params['size']})[..., ::-1] @ "
        f"({params['batch']},{params['size']},{params['size']}) on Dask",
        fontsize=10,
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)

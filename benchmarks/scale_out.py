"""What the Dask and Cubed scale-out benchmarks share: the thread counts inside a worker
process, the per-row summary of the timed runs (median and spread), and the writer of
<stem>.md/.csv/.json/.png and of the docs' table fragment.

A worker's thread counts are what decide whether stridedarray chunks and NumPy chunks are
compared fairly: NumPy's OpenBLAS, stridedarray's OpenBLAS and its core's pool (capped by
the OpenMP limit) each have a thread count, read from the environment when the worker process
starts. The benchmarks pin all of them to one thread per worker (`PINNED_ENV`, and
`pin_threads` inside the worker) and record what a worker reports (`worker_threads`).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stridedarray.bench import report
from stridedarray.bench.machine import busy_warning, machine_info

__all__ = ["PINNED_ENV", "Params", "pin_threads", "summarise", "worker_threads", "write"]


@dataclass(frozen=True)
class Params:
    """The workload's size: `(1,S,S)[..., ::-1] @ (B,S,S)`, the batch in chunks of C, and
    the timed runs per row."""

    batch: int
    chunk: int
    size: int
    repeats: int


# One thread for every pool a chunk's product may use, set before a worker process starts
# (the pools read it once, at load).
PINNED_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def pin_threads() -> dict[str, Any]:
    """In a worker: both libraries' BLAS and stridedarray's core on one thread (as the
    environment asked, made sure of after the libraries loaded); what the worker has then."""
    from stridedarray.bench.machine import set_threads

    set_threads(1)
    return worker_threads()


def worker_threads() -> dict[str, Any]:
    """In a worker: the thread-count environment, each BLAS library's threads as
    threadpoolctl sees them, stridedarray's core setting and its OpenBLAS threads per call."""
    import stridedarray as sa
    from stridedarray._matmul.ffi import blas_info

    out: dict[str, Any] = {
        "pid": os.getpid(),
        "env": {k: os.environ.get(k, "(unset)") for k in PINNED_ENV},
        "stridedarray_threads": sa.get_num_threads(),
        "stridedarray_blas_threads_per_call": blas_info()["threads"],
    }
    try:
        from threadpoolctl import threadpool_info

        out["blas_pools"] = [
            f"{Path(d['filepath']).name}: {d['num_threads']}"
            for d in threadpool_info()
            if d.get("user_api") in ("blas", "openmp")
        ]
    except ImportError:
        out["blas_pools"] = "threadpoolctl not installed"
    return out


def summarise(samples: list[dict], keys: Sequence[str], libraries: Sequence[str]) -> list[dict]:
    """One row per (keys..., library) in the samples' order of first appearance, with the
    median, the fastest and slowest run and the spread ((slowest - fastest) / median), the
    speedup over the row with the fewest workers and, vs NumPy, NumPy's median over this
    row's."""
    groups: dict[tuple, list[dict]] = {}
    for s in samples:
        groups.setdefault(tuple(s[k] for k in keys), []).append(s)
    rows = []
    for key, mine in groups.items():
        secs = [s["seconds"] for s in mine]
        steals = [s["steal"] for s in mine if s.get("steal") is not None]
        t = statistics.median(secs)
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "runs": len(secs),
                "median_s": t,
                "min_s": min(secs),
                "max_s": max(secs),
                "spread": (max(secs) - min(secs)) / t,
                "steal": statistics.mean(steals) if steals else None,
            }
        )
    by = {tuple(r[k] for k in keys): r for r in rows}
    for r in rows:
        others = [q for q in rows if all(q[k] == r[k] for k in keys if k != "workers")]
        base = min(others, key=lambda q: q["workers"])
        r["speedup"] = base["median_s"] / r["median_s"]
        r["efficiency"] = r["speedup"] / (r["workers"] / base["workers"])
        np_key = tuple("numpy" if k == "library" else r[k] for k in keys)
        r["vs_numpy"] = by[np_key]["median_s"] / r["median_s"] if np_key in by else float("nan")
    order = {lib: i for i, lib in enumerate(libraries)}
    return sorted(
        rows, key=lambda r: [order.get(r[k], r[k]) if k == "library" else r[k] for k in keys]
    )


def _table(rows: list[dict], keys: Sequence[str]) -> list[str]:
    head = [*keys, "runs", "median", "fastest - slowest", "spread", "speedup", "efficiency"]
    head += ["vs NumPy", "steal"]
    body = [
        [
            *(str(r[k]) for k in keys),
            r["runs"],
            report.fmt_time(r["median_s"]),
            f"{report.fmt_time(r['min_s'])} - {report.fmt_time(r['max_s'])}",
            f"{r['spread']:.0%}",
            report.fmt_ratio(r["speedup"]),
            f"{r['efficiency']:.0%}",
            report.fmt_ratio(r["vs_numpy"]),
            "-" if r["steal"] is None else f"{r['steal']:.0%}",
        ]
        for r in rows
    ]
    return report.markdown_table(head, "l" * len(keys) + "r" * (len(head) - len(keys)), body)


def _threads_lines(workers: dict[str, list[dict]]) -> list[str]:
    """The worker thread counts, one line per (cluster, worker)."""
    lines = []
    for where, ws in workers.items():
        for w in ws:
            pools = (
                w["blas_pools"] if isinstance(w["blas_pools"], str) else "; ".join(w["blas_pools"])
            )
            env = ", ".join(f"{k}={v}" for k, v in w["env"].items())
            lines.append(
                f"- {where}, worker {w['pid']}: {env}; stridedarray core "
                f"{w['stridedarray_threads']} thread(s), its OpenBLAS "
                f"{w['stridedarray_blas_threads_per_call']} per call; pools: {pools}"
            )
    return lines


def write(
    out: Path,
    stem: str,
    title: str,
    method: str,
    keys: Sequence[str],
    rows: list[dict],
    samples: list[dict],
    params: dict,
    workers: dict[str, list[dict]],
    load_at_start: str,
    docs_dir: Path | None = None,
) -> None:
    """Write <stem>.md (machine, method, table, worker threads), <stem>.csv (every run),
    <stem>.json, <stem>.png and, with docs_dir, the table fragment <stem>.md there; print
    the table. `load_at_start`: the load average when the runs began."""
    info = machine_info()
    info["load_average"] = load_at_start  # machine_info's is the load now, at the end
    info["load_average_at_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    warning = busy_warning(info, max(r["workers"] for r in rows))
    table = _table(rows, keys)
    threads = ["", "Threads inside the worker processes, as each reported:", ""]
    threads += _threads_lines(workers)
    lines = [f"# {title}", ""]
    lines += [f"- {k}: {v}" for k, v in info.items() if k != "env"]
    lines += ["", method, "", *table, *threads]
    if warning:
        lines += ["", f"**{warning}**"]
    text = "\n".join(lines) + "\n"
    fragment = [f"{title}. {report.run_line(info)} {method}", "", *table]
    if warning:
        fragment += ["", f"**{warning}**"]
    fields = list(samples[0]) if samples else ["seconds"]
    written = report.write_outputs(
        out,
        {k: f"{stem}.{k}" for k in ("md", "csv", "json", "png")},
        text,
        fields,
        ([s.get(f) for f in fields] for s in samples),
        {"params": params, "machine": info, "warning": warning, "rows": rows, "workers": workers},
        lambda path: _plot(rows, keys, path, title, warning),
        {f"{stem}.md": "\n".join(fragment) + "\n"},
        docs_dir,
    )
    print(text)
    print("wrote " + ", ".join(written))


def _plot(
    rows: list[dict], keys: Sequence[str], path: Path, title: str, warning: str | None
) -> bool:
    """Median wall time against workers, a line per (workload, library), the fastest and
    slowest run as an error bar."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from stridedarray.bench.plot import mark_busy
    except ImportError:
        return False
    series: dict[tuple, list[dict]] = {}
    for r in rows:
        series.setdefault(tuple(r[k] for k in keys if k != "workers"), []).append(r)
    fig, ax = plt.subplots(figsize=(7.3, 4.6), layout="constrained")
    for label, rs in series.items():
        rs = sorted(rs, key=lambda r: r["workers"])
        x = [r["workers"] for r in rs]
        y = [r["median_s"] for r in rs]
        err = [[r["median_s"] - r["min_s"] for r in rs], [r["max_s"] - r["median_s"] for r in rs]]
        dashed = "numpy" in label
        ax.errorbar(
            x,
            y,
            yerr=err,
            marker="o",
            capsize=4,
            linestyle="--" if dashed else "-",
            label=" ".join(map(str, label)),
        )
    ax.set_xticks(sorted({r["workers"] for r in rows}))
    ax.set_xlabel("worker processes (1 thread each)", fontsize=11)
    ax.set_ylabel("wall time (s), median; bars: fastest to slowest", fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.tick_params(labelsize=10)
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    ax.set_title(title, fontsize=11)
    mark_busy(fig, warning)
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return True

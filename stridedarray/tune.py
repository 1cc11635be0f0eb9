"""`stridedarray-tune` (`python -m stridedarray.tune`): measure the selector's crossovers here.

For each crossover constant of the policy table (`_matmul.policy.DEFAULT_POLICY`), a sweep times
 the same product with the two competing routes forced through `matmul_policy(force=...)`
(forcing switches the thresholds off), over increasing sizes, interleaved sample by sample
(`gil_release_min_work`: the product in two threads at once, the GIL released around each
product or held).
The crossover is the threshold with the least summed regret (log-time lost against always
taking the faster route) over every round and workload of a key (see `joint_threshold`), ties
within 3% going to BLAS (for `gil_release_min_work`, to releasing the GIL). `gemm_blas_min` is
measured on single products and `gemm_batch_blas_min` on batches (C >= 2), the two the selector
tells apart; the latter's value holds for the OpenBLAS kernel set loaded while measuring.
The result is printed next to the table in force and written as the JSON policy file the
library loads at import: $STRIDEDARRAY_POLICY if set, else $XDG_CONFIG_HOME/stridedarray/policy.json
(XDG_CONFIG_HOME defaults to ~/.config), or --out PATH. Output paths are checked before
measuring; a file that still cannot be written afterwards is saved in the temporary directory
instead (the exit status is then 1 and the message says where).

A policy measured beside other work would move crossovers by how the routes suffer from the
load. Before measuring and again after, the tool samples the system's runnable threads (less
its own) against the CPUs it may use; when others keep half of them busy (at least one) it
does not write the policy, and says what it saw, unless --allow-busy is given.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import threading
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import stridedarray as sa
from stridedarray._cli import (
    add_version,
    check_output_file,
    emit,
    exits_cleanly_on_closed_pipe,
    prog_name,
)

from ._matmul.policy import user_policy_path

__all__ = ["Load", "Sweep", "SWEEPS", "measure_sweep", "policy_path", "probe_load", "main"]

_rng = np.random.default_rng(0)
TIE = 0.03  # relative difference below which two medians count as equal


@dataclass(frozen=True)
class Load:
    """What the busy-machine probe saw: other runnable tasks (median over the samples), the
    CPUs this process may use and the 1-minute load average (for the message)."""

    others: float  # runnable threads of other processes, median of the samples; nan: unknown
    cpus: int
    load_average: float = math.nan
    source: str = "/proc/loadavg"

    @property
    def busy(self) -> bool:
        """Other work keeps half the usable CPUs (at least one) running: a policy measured
        now would weigh the routes by how they suffer from the load, not by what they cost.
        Unknown (no probe on this system) counts as quiet."""
        return math.isfinite(self.others) and self.others >= max(1.0, self.cpus / 2)

    def describe(self) -> str:
        if not math.isfinite(self.others):
            return f"the machine's load could not be read ({self.source})"
        load = f", load average {self.load_average:.2f}" if math.isfinite(self.load_average) else ""
        return (
            f"{self.others:g} runnable thread(s) of other processes (median of the samples of "
            f"{self.source}) on the {self.cpus} CPU(s) this process may use{load}"
        )


def usable_cpus(cgroup_root: str = "/sys/fs/cgroup") -> int:
    """The CPUs this process may run on: its affinity mask where the system has one, capped by
    a cgroup v2 CPU quota (`cpu.max` of its cgroup: quota over period, rounded up)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    try:
        with open("/proc/self/cgroup") as f:
            unified = [ln.split(":", 2)[2].strip() for ln in f if ln.startswith("0::")]
    except OSError:
        unified = []
    for path in (
        *(f"{cgroup_root}{u.rstrip('/')}/cpu.max" for u in unified),
        f"{cgroup_root}/cpu.max",
    ):
        try:
            with open(path) as f:
                quota, period = f.read().split()[:2]
        except (OSError, ValueError):
            continue
        if quota != "max" and int(period) > 0:
            n = min(n, max(1, math.ceil(int(quota) / int(period))))
        break
    return n


def _own_running() -> int:
    """This process's threads that are running or runnable now (state R in /proc)."""
    n = 0
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return 1
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        n += state == "R"
    return max(n, 1)  # the thread reading is running


def probe_load(samples: int = 21, interval_s: float = 0.025) -> Load:
    """Sample the runnable threads of the whole system (the 4th field of /proc/loadavg) less
    this process's own, `samples` times over `samples * interval_s` seconds, and keep the
    median: a process that runs for a moment (a shell, a compiler starting) does not count, one
    that keeps a CPU busy does. Without /proc (not Linux), the 1-minute load average less one
    for this process stands in."""
    cpus = usable_cpus()
    try:
        load1 = os.getloadavg()[0]
    except (AttributeError, OSError):
        load1 = math.nan
    seen = []
    for i in range(samples):
        try:
            with open("/proc/loadavg") as f:
                running = int(f.read().split()[3].split("/")[0])
        except (OSError, ValueError, IndexError):
            others = max(load1 - 1.0, 0.0) if math.isfinite(load1) else math.nan
            return Load(others, cpus, load1, source="the 1-minute load average")
        seen.append(max(running - _own_running(), 0))
        if i + 1 < samples:
            time.sleep(interval_s)
    return Load(float(np.median(seen)), cpus, load1)


def _busy_message(load: Load, when: str) -> str:
    return (
        f"the machine is busy {when}: {load.describe()}. Timings taken beside other work "
        "measure the load as much as the routes, and the policy would move crossovers by "
        "it. Run again on a quiet machine, or pass --allow-busy to write the policy anyway "
        "(--dry-run measures and prints without writing)."
    )


def _m(*shape: int, dtype: str = "float64") -> np.ndarray:
    return _rng.standard_normal(shape).astype(dtype)


@dataclass(frozen=True)
class Sweep:
    """One crossover: the policy key, the product at size s, the two routes, the key's value."""

    key: str
    what: str
    sizes: tuple[int, ...]
    build: Callable[[int], tuple[np.ndarray, np.ndarray]]
    fast: str  # the route that should win at large sizes (BLAS or pack-once BLAS)
    slow: str  # the route below the crossover (generic)
    value: Callable[[int], int]  # the threshold value that corresponds to size s
    # When the two sides are not routes: samplers(a, b) gives the sampler of `inner` units of
    # work for each side, by name (by default each route is forced, `_forced_sample`), and a
    # sample lasts at least min_sample_s.
    samplers: Callable[[sa.Array, sa.Array], dict[str, Callable[[int], float]]] | None = None
    min_sample_s: float = 0.0


_SQ = lambda s: s * s  # noqa: E731  (threshold measured in matrix elements)
_ID = lambda s: s  # noqa: E731
_CUBE = lambda s: s * s * s  # noqa: E731  (threshold measured in multiply-adds)

# gil_release_min_work: the two sides, as that key's value in force while sampling.
_GIL = {"release": 0, "hold": 2**63 - 1}


def _gil_samplers(a: sa.Array, b: sa.Array) -> dict[str, Callable[[int], float]]:
    """Samplers of `a @ b` run in each of two Python threads at once, with the GIL released
    around every product (side "release") or held ("hold"). Releasing it lets the other
    thread compute meanwhile but costs a hand-over of the GIL per product, which products of
    a few multiply-adds do not repay. One unit of `inner` is as many products as take about
    a millisecond alone (the same count for both sides), so that starting the thread is a
    small part of a sample, and the clock starts once both threads are running."""
    t = timeit.Timer("a @ b", globals={"a": a, "b": b})
    per = max(1, math.ceil(1e-3 / max(min(t.repeat(5, 1)), 1e-9)))

    def products(side: str, count: int, start: threading.Barrier) -> None:
        with sa.matmul_policy(gil_release_min_work=_GIL[side]):
            start.wait()
            for _ in range(count):
                a @ b

    def sampler(side: str) -> Callable[[int], float]:
        def sample(inner: int) -> float:
            start = threading.Barrier(2)
            other = threading.Thread(target=products, args=(side, inner * per, start))
            other.start()
            with sa.matmul_policy(gil_release_min_work=_GIL[side]):
                start.wait()
                t0 = time.perf_counter()
                for _ in range(inner * per):
                    a @ b
            other.join()
            return time.perf_counter() - t0

        return sample

    return {side: sampler(side) for side in _GIL}


def _batch(s: int) -> int:
    """The batch of the `gemm_batch_blas_min` sweep at size S: 1000 products up to S = 16,
    then as many as hold 1000 16 x 16 matrices (62 at S = 64), so that a sample stays short.
    A batch pays BLAS's fixed cost once per product and the generic kernel's once per call:
    the sweep compares what each route costs per product of a large batch."""
    return max(2, min(1000, 1000 * 16 * 16 // (s * s)))


def _sweeps() -> list[Sweep]:
    small = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)
    batch = (4, 6, 8, 12, 16, 24, 32, 40, 48, 64)
    vec = (4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
    return [
        Sweep(
            "dot_blas_min_k",
            "DOT (K,)@(K,) contiguous, float64",
            (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384),
            lambda k: (_m(k), _m(k)),
            "blas",
            "generic",
            _ID,
        ),
        Sweep(
            "gemm_blas_min",
            "GEMM (S,S)@(S,S) C-contiguous, single product, float64",
            small,
            lambda s: (_m(s, s), _m(s, s)),
            "blas",
            "generic",
            _ID,
        ),
        Sweep(
            "gemm_blas_min",
            "GEMM (S,S)@(S,S) C-contiguous, single product, float32",
            small,
            lambda s: (_m(s, s, dtype="float32"), _m(s, s, dtype="float32")),
            "blas",
            "generic",
            _ID,
        ),
        Sweep(
            "gemm_batch_blas_min",
            "GEMM (C,S,S)@(C,S,S) C-contiguous, C = 1000 up to S = 16, float64",
            batch,
            lambda s: (_m(_batch(s), s, s), _m(_batch(s), s, s)),
            "blas",
            "generic",
            _ID,
        ),
        Sweep(
            "gemm_batch_blas_min",
            "GEMM (C,S,S)@(C,S,S) C-contiguous, C = 1000 up to S = 16, float32",
            batch,
            lambda s: (
                _m(_batch(s), s, s, dtype="float32"),
                _m(_batch(s), s, s, dtype="float32"),
            ),
            "blas",
            "generic",
            _ID,
        ),
        Sweep(
            "gemm_pack_min",
            "GEMM (1,S,S)[...,::-1]@(10,S,S), float64",
            small,
            lambda s: (_m(1, s, s)[..., ::-1], _m(10, s, s)),
            "pack_blas",
            "generic",
            _ID,
        ),
        Sweep(
            "gemm_pack_min",
            "GEMM (1,S,S)[...,::-1]@(10,S,S), float32",
            small,
            lambda s: (_m(1, s, s, dtype="float32")[..., ::-1], _m(10, s, s, dtype="float32")),
            "pack_blas",
            "generic",
            _ID,
        ),
        Sweep(
            "gemm_pack_min",
            "GEMM (2,1,S,S)[...,::-1]@(1,5,S,S)[...,::-1], float64",
            small,
            lambda s: (_m(2, 1, s, s)[..., ::-1], _m(1, 5, s, s)[..., ::-1]),
            "pack_blas",
            "generic",
            _ID,
        ),
        Sweep(
            "gemv_blas_min",
            "GEMV (S,S)@(S,) contiguous, unbatched, float64",
            vec,
            lambda s: (_m(s, s), _m(s)),
            "blas",
            "generic",
            _ID,
        ),
        Sweep(
            "gevm_compact_min_kn",
            "GEVM (S,)@(S,S) dense, unbatched, float64 (K*N)",
            vec,
            lambda s: (_m(s), _m(s, s)),
            "blas",
            "generic",
            _SQ,
        ),
        Sweep(
            "gevm_blas_min",
            "GEVM (S,)@(S,S+3)[:, :S] padded, unbatched, float64",
            vec,
            lambda s: (_m(s), _m(s, s + 3)[:, :s]),
            "blas",
            "generic",
            _ID,
        ),
        Sweep(
            "batched_vec_blas_min_elems",
            "GEMV (10,S,S)@(S,) contiguous, float64 (M*K)",
            vec,
            lambda s: (_m(10, s, s), _m(s)),
            "blas",
            "generic",
            _SQ,
        ),
        Sweep(
            "vec_pack_always_min_elems",
            "GEMV (2,S,S)@(S,)[::-1], reused vector (M*K)",
            vec,
            lambda s: (_m(2, s, s), _m(s)[::-1]),
            "pack_blas",
            "generic",
            _SQ,
        ),
        Sweep(
            "vec_pack_cond_min_elems",
            "GEMV (16,S,S)@(S,)[::-1], reused vector (M*K)",
            vec,
            lambda s: (_m(16, s, s), _m(s)[::-1]),
            "pack_blas",
            "generic",
            _SQ,
        ),
        Sweep(
            "gil_release_min_work",
            "GIL (S,S)@(S,S) C-contiguous, float64, two threads (M*N*K)",
            small,
            lambda s: (_m(s, s), _m(s, s)),
            "release",
            "hold",
            _CUBE,
            samplers=_gil_samplers,
            min_sample_s=0.01,
        ),
    ]


SWEEPS = _sweeps()


def policy_path() -> Path:
    """Where the library loads its policy from: $STRIDEDARRAY_POLICY, else the user's file
    (`stridedarray._matmul.policy.user_policy_path`, which honours XDG_CONFIG_HOME)."""
    env = os.environ.get("STRIDEDARRAY_POLICY")
    return Path(env) if env else user_policy_path()


def _route(a: sa.Array, b: sa.Array) -> str:
    return str(sa.matmul_explain(a, b).to_dict()["route"])


def _forced_sample(route: str, timer: timeit.Timer) -> Callable[[int], float]:
    """A sampler that runs `inner` products with `route` forced (the context entered once)."""

    def sample(inner: int) -> float:
        with sa.matmul_policy(force=route):
            return timer.timeit(inner)

    return sample


def _time(
    samplers: dict[str, Callable[[int], float]], target_s: float, repeats: int
) -> dict[str, float]:
    """Interleaved best-of-repeats (seconds per call) of the samplers, one inner count for all.

    The minimum, not the median: a route's intrinsic cost is what the selector needs, and the
    minimum is the estimate least moved by other load on the machine."""
    fastest = min(max(f(1), 1e-9) for f in samplers.values())
    inner = max(1, min(100_000, math.ceil(target_s / fastest)))
    for f in samplers.values():
        f(inner)
    samples: dict[str, list[float]] = {k: [] for k in samplers}
    names = list(samplers)
    for rep in range(repeats):
        for k in names[rep % 2 :] + names[: rep % 2]:
            samples[k].append(samplers[k](inner) / inner)
    return {k: float(np.min(v)) for k, v in samples.items()}


def crossover(values: list[int], ratios: list[float]) -> int:
    """The threshold that loses least, over the sweep, against always picking the faster route.

    `ratios` are slow/fast times per size. Thresholding at point i runs the slow route below
    it and the fast one from it on; its regret is the summed log-time lost at the points where
    that choice is the slower one. A loss of the fast route within TIE is forgiven (a tie goes
    to BLAS, which also threads at scale). The smallest threshold with the least regret wins;
    if "never" is best, twice the largest value measured (the fast route stays off here).
    Summing log-ratios weighs each point by how much it matters, so one noisy point cannot
    move the threshold far."""
    logs = [math.log(max(r, 1e-12)) for r in ratios]
    tie = -math.log(1.0 - TIE)
    best, best_i = math.inf, len(values)
    for i in range(len(values) + 1):
        regret = sum(max(0.0, x) for x in logs[:i]) + sum(max(0.0, -x - tie) for x in logs[i:])
        if regret < best - 1e-12:
            best, best_i = regret, i
    return values[best_i] if best_i < len(values) else values[-1] * 2


def _regret(points: list[dict], threshold: int) -> float:
    """Summed log-time lost by running the slow route below `threshold`, the fast one from it."""
    tie = -math.log(1.0 - TIE)
    total = 0.0
    for p in points:
        x = math.log(max(p["ratio"], 1e-12))
        total += max(0.0, x) if p["value"] < threshold else max(0.0, -x - tie)
    return total


def joint_threshold(point_sets: list[list[dict]]) -> int:
    """One threshold for a key swept on several workloads (and rounds): the least total regret
    over all of them, the smallest such value on a tie (the BLAS route on ties)."""
    values = sorted({p["value"] for ps in point_sets for p in ps})
    candidates = values + [values[-1] * 2]
    return min(candidates, key=lambda v: (sum(_regret(ps, v) for ps in point_sets), v))


def measure_sweep(sw: Sweep, target_s: float = 2.5e-4, repeats: int = 25) -> dict:
    """Time both forced routes (or the sweep's own two sides) at every size; return the
    points and the crossover value."""
    points: list[dict[str, Any]] = []
    for s in sw.sizes:
        x, y = sw.build(s)
        a, b = sa.asarray(x), sa.asarray(y)
        samplers: dict[str, Callable[[int], float]] = {}
        if sw.samplers is not None:
            samplers = sw.samplers(a, b)
        else:
            for route in (sw.fast, sw.slow):
                with sa.matmul_policy(force=route):
                    got = _route(a, b)
                if got != route:  # e.g. an extent-1 "reversed" matrix is BLAS-viewable
                    break
                timer = timeit.Timer("a @ b", globals={"a": a, "b": b})
                samplers[route] = _forced_sample(route, timer)
        if len(samplers) < 2:
            continue
        t = _time(samplers, max(target_s, sw.min_sample_s), repeats)
        points.append(
            {
                "size": s,
                "value": sw.value(s),
                sw.fast: t[sw.fast],
                sw.slow: t[sw.slow],
                "ratio": t[sw.slow] / t[sw.fast],
            }
        )
    if not points:
        raise RuntimeError(f"{sw.key}: no size of the sweep could force {sw.fast!r}")
    value = crossover([p["value"] for p in points], [p["ratio"] for p in points])
    return {
        "key": sw.key,
        "what": sw.what,
        "fast": sw.fast,
        "slow": sw.slow,
        "points": points,
        "crossover": value,
    }


def _policies() -> tuple[dict, dict]:
    """(the shipped DEFAULT_POLICY, the table in force now, which a policy file may override)."""
    from ._matmul import policy as _policy

    default = dict(_policy.DEFAULT_POLICY)
    for name in ("current_policy", "active_policy", "get_policy"):
        fn = getattr(_policy, name, None)
        if callable(fn):
            return default, dict(fn())
    for name in ("POLICY", "ACTIVE_POLICY", "LOADED_POLICY"):
        table = getattr(_policy, name, None)
        if isinstance(table, dict):
            return default, dict(table)
    return default, default


def combine(results: list[dict]) -> dict[str, int]:
    """One value per key from the per-sweep crossovers (the largest when a key was swept on
    several workloads; `main` then refines it by joint regret over all of them), plus the batch
    the conditional vector-pack rule was measured at, and the floor rule folded into it."""
    measured: dict[str, int] = {}
    for r in results:
        measured[r["key"]] = max(measured.get(r["key"], 0), int(r["crossover"]))
    if "vec_pack_cond_min_elems" in measured:
        measured["vec_pack_cond_min_batch"] = 16  # the batch of that sweep
        # The floor rule (small matrices, enough output) is not measured on its own; folding it
        # into the conditional rule keeps it from packing where packing was measured to lose.
        measured["vec_pack_floor_min_elems"] = measured["vec_pack_cond_min_elems"]
    return measured


def _table(default: dict, current: dict, measured: dict[str, int]) -> str:
    lines = [f"{'key':30s} {'shipped':>10s} {'in force':>10s} {'measured':>10s}"]
    for key in default:
        m = measured.get(key)
        lines.append(
            f"{key:30s} {default[key]!s:>10s} {current.get(key, '-')!s:>10s} "
            f"{'-' if m is None else m!s:>10s}"
        )
    return "\n".join(lines)


def _save(path: Path, text: str, option: str) -> bool:
    """Write `text` to `path`, making missing parent directories. When that fails the
    measurement is not lost: it goes to a new file in the temporary directory (or, failing
    that too, to stderr), and the message names the option and where the data went."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return True
    except OSError as exc:
        reason = f"{option}: could not write {path}: {exc.strerror or exc}"
    try:
        fd, name = tempfile.mkstemp(
            prefix=f"stridedarray-tune-{option.lstrip('-')}-", suffix=".json"
        )
        with os.fdopen(fd, "w") as f:
            f.write(text)
    except OSError:
        emit(f"{reason}; the data follows:\n{text}", file=sys.stderr)
    else:
        emit(f"{reason}; saved it to {name} instead", file=sys.stderr)
    return False


def _how_to_load(out: Path) -> str:
    """What makes the library use the file written to `out`: nothing when it is the file
    loaded at import, else the environment variable or the copy that would."""
    if out.resolve() == policy_path().resolve():
        where = (
            "$STRIDEDARRAY_POLICY"
            if os.environ.get("STRIDEDARRAY_POLICY")
            else "the user's policy file"
        )
        return f"stridedarray loads it at import ({where})"
    return (
        f"this is not the file stridedarray loads at import ({policy_path()}); to use it, "
        f"set STRIDEDARRAY_POLICY={out.resolve()} before Python starts, or copy it to "
        f"{user_policy_path()}"
    )


@exits_cleanly_on_closed_pipe
def main(argv: list[str] | None = None, probe: Callable[[], Load] | None = None) -> int:
    """Sweep every crossover, print the table, write the policy file (and raw data on request).

    Before measuring and again after, `probe` (default `probe_load`) tells whether other work
    keeps the machine busy; if so the policy is not written unless --allow-busy is given.

    Returns the exit status: 0, or 1 when a file could not be written where asked (the data
    was then saved elsewhere, as the message on stderr says) or the machine was busy."""
    p = argparse.ArgumentParser(
        prog=prog_name("stridedarray.tune"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_version(p)
    p.add_argument(
        "--out", type=Path, default=None, help=f"policy file to write (default {policy_path()})"
    )
    p.add_argument("--dry-run", action="store_true", help="measure and print, write nothing")
    p.add_argument("--raw", type=Path, help="also write every timed point as JSON here")
    p.add_argument("--quick", action="store_true", help="fewer repeats, shorter samples")
    p.add_argument("--threads", type=int, default=1, help="BLAS threads while measuring (1)")
    p.add_argument("--only", metavar="KEY", help="measure only this policy key")
    p.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="sweep each key this many times, keep the median threshold (3)",
    )
    p.add_argument(
        "--allow-busy",
        action="store_true",
        help="write the policy even when other work keeps the machine busy (by default the "
        "tool refuses: it checks the runnable tasks before and after measuring)",
    )
    args = p.parse_args(argv)
    if args.threads < 1:
        raise SystemExit(f"--threads must be >= 1, got {args.threads}")
    if args.rounds < 1:
        raise SystemExit(f"--rounds must be >= 1, got {args.rounds}")
    out = None if args.dry_run else (args.out or policy_path())
    for option, path in (("--out", out), ("--raw", args.raw)):
        if path is not None:  # before minutes of measuring, not after
            check_output_file(path, option)
    from stridedarray.bench.machine import machine_info, set_threads

    probe = probe or probe_load
    before = probe()
    if before.busy:
        if out is not None and not args.allow_busy:
            raise SystemExit(f"{p.prog}: not measuring: {_busy_message(before, 'now')}")
        emit(f"warning: {before.describe()}: the machine is busy", file=sys.stderr)
    set_threads(args.threads)
    default, current = _policies()
    sweeps = [s for s in SWEEPS if args.only in (None, s.key)]
    if not sweeps:
        raise SystemExit(
            f"--only: no sweep measures {args.only!r}; keys: "
            f"{', '.join(sorted({s.key for s in SWEEPS}))}"
        )
    results = []
    for sw in sweeps:
        # Several rounds, the median threshold: near a tie one round's noise decides alone.
        rounds = [
            measure_sweep(sw, target_s=2.5e-4, repeats=5 if args.quick else 25)
            for _ in range(args.rounds)
        ]
        r = dict(rounds[0])
        r["rounds"] = [q["crossover"] for q in rounds]
        r["points"] = [q["points"] for q in rounds]
        r["crossover"] = sorted(r["rounds"])[(len(rounds) - 1) // 2]
        results.append(r)
        pts = "  ".join(f"{q['size']}:{q['ratio']:.2f}" for q in rounds[-1]["points"])
        emit(
            f"{sw.key} <- {sw.what}: {sw.slow}/{sw.fast} time by size  {pts}"
            f"  => {r['rounds']} -> {r['crossover']}",
            file=sys.stderr,
        )
    measured = combine(results)
    for key in measured:  # a key swept on several workloads: the least total regret
        sets = [ps for r in results if r["key"] == key for ps in r["points"]]
        if sets:
            measured[key] = joint_threshold(sets)
    if "vec_pack_cond_min_elems" in measured:
        measured["vec_pack_floor_min_elems"] = measured["vec_pack_cond_min_elems"]
    emit(_table(default, current, measured))
    new = {k: measured.get(k, current.get(k, v)) for k, v in default.items()}
    status = 0
    after = probe()
    if after.busy and out is not None and not args.allow_busy:
        emit(
            f"{p.prog}: not writing {out}: {_busy_message(after, 'after measuring')}",
            file=sys.stderr,
        )
        out, status = None, 1
    elif after.busy:
        emit(f"warning: {after.describe()} after measuring: the machine is busy", file=sys.stderr)
    if args.raw:
        raw = json.dumps(
            {
                "machine": machine_info(),
                "threads": args.threads,
                "load": {"before": before.describe(), "after": after.describe()},
                "sweeps": results,
                "measured": measured,
                "policy": new,
            },
            indent=1,
        )
        if _save(args.raw, raw, "--raw"):
            emit(f"wrote {args.raw}")
        else:
            status = 1
    if out is not None:
        if _save(out, json.dumps(new, indent=1) + "\n", "--out"):
            emit(f"wrote {out}; {_how_to_load(out)}")
        else:
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())

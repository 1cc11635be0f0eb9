"""`python -m stridedarray.bench --suite contractions`: einsum beside NumPy and opt_einsum.

Three groups of cases, each an einsum on operands that are views of one buffer, the same
views handed to every library:

- **cliff**: contractions whose time, in NumPy, torch or opt_einsum, was published as falling
  off a cliff for their axis order or path (the issue each comes from is in its name);
- **network**: tensor-network contractions of 3 to 6 operands as quimb and cotengra make them
  (matrix-product states, loops, trees), some on permuted or reversed views;
- **order**: one contraction with its operands stored in every axis order, reversed or every
  second element: a family whose fastest contiguous member is its reference.

Each case is timed three ways: NumPy's ``einsum(optimize=True)``, opt_einsum's ``contract`` on
the NumPy arrays (when opt_einsum is installed), and ``stridedarray.einsum``. The targets:

- every cliff and network case at least as fast as the faster of NumPy and opt_einsum
  (time ratio <= 1.00);
- every member of an order family within 1.15x of the family's fastest contiguous time (ours);
- peak memory of one call no higher than NumPy's: the bytes NumPy's allocator reports to
  tracemalloc during the call (outputs, temporaries, copies), plus, for stridedarray, the
  matmul core's own packs and scratch (its allocation counters).

Before timing, every result is compared with NumPy's (bit for bit for integers, within
rounding for floating types); a mismatch is flagged and makes the exit status 1. Outputs:
contractions.md, .csv, .json, .png in --out; with --docs, contractions.md and
contractions-targets.md there.
"""

from __future__ import annotations

import functools
import math
import sys
import timeit
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import stridedarray as sa

from . import report
from .machine import busy_warning, header_lines
from .options import Options
from .report import fmt_ratio, fmt_time
from .sampling import Budget, Timed, sample

__all__ = ["CASES", "Case", "Operand", "cases", "run", "targets"]

STEM = "contractions"
TITLE = "einsum beside NumPy and opt_einsum"
PLOT: dict[str, object] = {
    "target": 1.0,
    "log": True,
    "width": 10,
    "row_height": 0.26,
    "fontsize": 7,
    "xlabel": "speed-up: NumPy einsum(optimize=True)'s time / stridedarray's",
}
ORDER_TARGET = 1.15
VARIANTS = ("numpy", "opt_einsum", "stridedarray")
SETTLE = True  # at several threads, one library's calls together (two BLAS pools)
CSV_FIELDS = ["case", "group", "subscripts", "variant", "repeat", "inner", "seconds"]


@dataclass(frozen=True)
class Operand:
    """One operand: its logical shape, and how its buffer holds it. `store`: the axis order
    in memory (a permutation; the identity is C order); `flip`: axes walked backwards;
    `step2`: axes that take every second element of a buffer twice as long."""

    shape: tuple[int, ...]
    store: tuple[int, ...] | None = None
    flip: tuple[int, ...] = ()
    step2: tuple[int, ...] = ()
    same_as: int | None = None  # the same array as an earlier operand (x with itself)

    def describe(self) -> str:
        parts = []
        if self.store and list(self.store) != sorted(self.store):
            parts.append("stored " + "".join("abcdefgh"[k] for k in self.store))
        if self.flip:
            parts.append("reversed " + ",".join(map(str, self.flip)))
        if self.step2:
            parts.append("step 2 on " + ",".join(map(str, self.step2)))
        return "; ".join(parts) or "C order"


@dataclass(frozen=True)
class Case:
    name: str
    group: str
    subscripts: str
    operands: tuple[Operand, ...]
    family: str = ""  # order group: the contraction this case is one layout of
    dtype: str = "float64"

    @property
    def layout(self) -> str:
        return " / ".join(o.describe() for o in self.operands)

    @property
    def contiguous(self) -> bool:
        return all(not o.flip and not o.step2 for o in self.operands)


def _perms(n: int) -> list[tuple[int, ...]]:
    import itertools

    return list(itertools.permutations(range(n)))


def _order_family() -> list[Case]:
    """'abc,cbd->ad' with A (96, 48, 48) and B (48, 48, 96): A in its six storage orders,
    then reversed and step-two contracted axes; B in two."""
    sub = "abc,cbd->ad"
    out = []
    a_shape, b_shape = (96, 48, 48), (48, 48, 96)
    for store in _perms(3):
        for b_store in ((0, 1, 2), (2, 1, 0)):
            ops = (Operand(a_shape, store), Operand(b_shape, b_store))
            out.append(Case(f"{sub} {Case('', '', '', ops).layout}", "order", sub, ops, "abc"))
    for flip, step2 in (((1,), ()), ((1, 2), ()), ((), (2,)), ((), (1, 2)), ((0,), (2,))):
        ops = (Operand(a_shape, flip=flip, step2=step2), Operand(b_shape))
        out.append(Case(f"{sub} {Case('', '', '', ops).layout}", "order", sub, ops, "abc"))
    return out


CASES: list[Case] = [
    Case(
        "numpy#11940: x with itself over axes ((1,2,0),(1,2,0)), 100^3",
        "cliff",
        "ijk,ijk->",
        (Operand((100, 100, 100)), Operand((100, 100, 100), same_as=0)),
    ),
    Case(
        "numpy#11940: the same, x stored kij",
        "cliff",
        "ijk,ijk->",
        (Operand((100, 100, 100), (2, 0, 1)), Operand((100, 100, 100), (2, 0, 1), same_as=0)),
    ),
    Case(
        "opt_einsum#143: ikj,kjl->il",
        "cliff",
        "ikj,kjl->il",
        (Operand((128, 64, 64)), Operand((64, 64, 128))),
        "oe143",
    ),
    Case(
        "opt_einsum#143: ijk,jkl->il",
        "cliff",
        "ijk,jkl->il",
        (Operand((128, 64, 64)), Operand((64, 64, 128))),
        "oe143",
    ),
    *(
        Case(
            f"pytorch#57121: ijkl,{b}->im",
            "cliff",
            f"ijkl,{b}->im",
            (
                Operand((16, 24, 24, 16)),
                Operand(tuple({"j": 24, "k": 24, "l": 16, "m": 64}[c] for c in b)),
            ),
            "pt57121",
        )
        for b in ("jklm", "mlkj", "kmjl", "ljmk")
    ),
    Case(
        "numpy#32111: chain ab,bc,cd,de->ae, thin ends",
        "cliff",
        "ab,bc,cd,de->ae",
        (Operand((4, 600)), Operand((600, 600)), Operand((600, 600)), Operand((600, 4))),
    ),
    Case(
        "MPS overlap, 3 sites, bond 64",
        "network",
        "ab,bcd,de,af,fcg,ge->",
        (
            Operand((8, 64)),
            Operand((64, 8, 64)),
            Operand((64, 8)),
            Operand((8, 64)),
            Operand((64, 8, 64)),
            Operand((64, 8)),
        ),
    ),
    Case(
        "MPS overlap, conjugate side reversed and transposed",
        "network",
        "ab,bcd,de,af,fcg,ge->",
        (
            Operand((8, 64)),
            Operand((64, 8, 64)),
            Operand((64, 8)),
            Operand((8, 64), flip=(1,)),
            Operand((64, 8, 64), (2, 1, 0)),
            Operand((64, 8), flip=(0,)),
        ),
    ),
    Case(
        "triangle ijk,jlm,kmn->iln, 20",
        "network",
        "ijk,jlm,kmn->iln",
        (Operand((20, 20, 20)), Operand((20, 20, 20)), Operand((20, 20, 20))),
    ),
    Case(
        "loop of four, bond 12, open 6",
        "network",
        "iab,jbc,kcd,lda->ijkl",
        (Operand((6, 12, 12)), Operand((6, 12, 12)), Operand((6, 12, 12)), Operand((6, 12, 12))),
    ),
    Case(
        "loop of four, two stored transposed",
        "network",
        "iab,jbc,kcd,lda->ijkl",
        (
            Operand((6, 12, 12), (2, 1, 0)),
            Operand((6, 12, 12)),
            Operand((6, 12, 12), (1, 2, 0)),
            Operand((6, 12, 12), flip=(2,)),
        ),
    ),
    Case(
        "matrix chain of five",
        "network",
        "ab,bc,cd,de,ef->af",
        (
            Operand((50, 400)),
            Operand((400, 20)),
            Operand((20, 400)),
            Operand((400, 50)),
            Operand((50, 10)),
        ),
    ),
    Case(
        "tree ij,jkl,lm,kn->imn, int64",
        "network",
        "ij,jkl,lm,kn->imn",
        (Operand((64, 48)), Operand((48, 32, 48)), Operand((48, 64)), Operand((32, 16))),
        dtype="int64",
    ),
    Case(
        "batched bij,bjk->bik on reversed, step-two views",
        "network",
        "bij,bjk->bik",
        (Operand((64, 32, 32), flip=(1,)), Operand((64, 32, 32), step2=(2,))),
    ),
    *_order_family(),
]
QUICK = {CASES[0].name, CASES[2].name, CASES[9].name}


def cases(quick: bool = False) -> list[Case]:
    """Every case; --quick: three of them."""
    return [
        c
        for c in CASES
        if not quick
        or c.name in QUICK
        or (c.family == "abc" and c.contiguous and c.operands[0].store == (0, 1, 2))
    ]


def build(case: Case, rng: np.random.Generator) -> list[np.ndarray]:
    """The case's operands as NumPy views (the buffers: C order, `store`'s axis order)."""
    out: list[np.ndarray] = []
    for op in case.operands:
        if op.same_as is not None:
            out.append(out[op.same_as])
            continue
        nd = len(op.shape)
        store = op.store or tuple(range(nd))
        full = [op.shape[k] * (2 if k in op.step2 else 1) for k in range(nd)]
        if case.dtype.startswith("int"):
            buf = rng.integers(-8, 8, size=[full[k] for k in store]).astype(case.dtype)
        else:
            buf = rng.standard_normal([full[k] for k in store]).astype(case.dtype)
        x = np.transpose(buf, tuple(store.index(k) for k in range(nd)))
        x = x[tuple(slice(None, None, 2) if k in op.step2 else slice(None) for k in range(nd))]
        for k in op.flip:
            x = np.flip(x, axis=k)
        assert x.shape == op.shape, (case.name, x.shape, op.shape)
        out.append(x)
    return out


def check(got: Any, expected: np.ndarray, operands: list[np.ndarray], case: Case) -> bool:
    """Same shape; integers bit for bit, floating types within the rounding of the sums
    (bounded by the same contraction of the absolute values)."""
    g = np.asarray(got)
    if g.shape != expected.shape:
        return False
    if expected.dtype.kind in "iub":
        return bool(np.array_equal(g, expected))
    scale = np.einsum(case.subscripts, *[np.abs(o) for o in operands], optimize=True)
    n = max(o.size for o in operands)
    return bool(np.all(np.abs(g - expected) <= 64 * n * np.finfo(expected.dtype).eps * (scale + 1)))


def peak_bytes(call: Callable[[], Any]) -> int:
    """Peak bytes allocated during one call: NumPy's allocations as tracemalloc sees them,
    plus the matmul core's packs and scratch (its own counters)."""
    from .._matmul.diagnostics import c_alloc_stats, reset_c_alloc_peak

    reset_c_alloc_peak()
    c0 = c_alloc_stats()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        r = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    c1 = c_alloc_stats()
    core = sum(c1[k]["peak"] - c0[k]["current"] for k in c1)
    del r
    return peak - base + max(core, 0)


@dataclass
class Outcome(Timed):
    case: Case = field(default_factory=lambda: CASES[0])
    peak: dict[str, int] = field(default_factory=dict)
    family_best: float = math.nan  # the family's fastest contiguous time (ours)

    @property
    def name(self) -> str:
        return self.case.name

    def failed(self, lib: str | None = None) -> bool:
        if lib is None:
            return bool(self.mismatch or self.errors)
        return super().failed(lib)

    def best_other(self) -> float:
        times = [self.time(v) for v in ("numpy", "opt_einsum")]
        times = [t for t in times if math.isfinite(t)]
        return min(times) if times else math.nan

    def ratio(self, variant: str = "stridedarray") -> float:
        """stridedarray's time over the faster of NumPy's and opt_einsum's."""
        return self.time(variant) / self.best_other()

    def order_ratio(self) -> float:
        return self.time("stridedarray") / self.family_best


def _libraries() -> dict[str, Callable[..., Any]]:
    libs: dict[str, Callable[..., Any]] = {
        "numpy": lambda s, *ops: np.einsum(s, *ops, optimize=True),
    }
    try:
        import opt_einsum  # type: ignore[import-untyped]

        libs["opt_einsum"] = lambda s, *ops: opt_einsum.contract(s, *ops)
    except ImportError:
        pass
    libs["stridedarray"] = lambda s, *ops: sa.einsum(s, *ops)
    return libs


def run_case(case: Case, budget: Budget, rng: np.random.Generator) -> Outcome:
    """Check each library's result against NumPy's, measure its peak, then time them."""
    out = Outcome(case=case)
    nps = build(case, rng)
    ours: list[Any] = []
    for k, x in enumerate(nps):
        same = case.operands[k].same_as
        ours.append(ours[same] if same is not None else sa.asarray(x))
    timers: dict[str, timeit.Timer] = {}
    expected = None
    for variant, f in _libraries().items():
        ops = ours if variant == "stridedarray" else nps
        try:
            r = f(case.subscripts, *ops)
        except Exception as exc:  # reported in the table, not fatal to the run
            out.errors[variant] = f"{type(exc).__name__}: {exc}"
            continue
        if variant == "numpy":
            expected = np.asarray(r)
        elif expected is not None and not check(r, expected, nps, case):
            out.mismatch.append(variant)
        del r
        call = functools.partial(f, case.subscripts, *ops)
        out.peak[variant] = peak_bytes(call)
        timers[variant] = timeit.Timer(call)
    out.inner, out.samples = sample(timers, budget)
    return out


def _family_best(outcomes: list[Outcome]) -> None:
    best: dict[str, float] = {}
    for o in outcomes:
        if o.case.family and o.case.contiguous:
            best[o.case.family] = min(best.get(o.case.family, math.inf), o.time("stridedarray"))
    for o in outcomes:
        if o.case.family in best:
            o.family_best = best[o.case.family]


def targets(outcomes: list[Outcome]) -> list[dict]:
    """The three targets: speed beside the faster library, order invariance, memory."""
    rows = []
    speed = [(o.ratio(), o) for o in outcomes if o.case.group != "order"]
    speed = [(v, o) for v, o in speed if math.isfinite(v)]
    if speed:
        rows.append(
            report.target_row(
                "cliff and network cases: time <= the faster of NumPy einsum(optimize=True) "
                "and opt_einsum",
                speed,
                1.0,
            )
        )
    order = [(o.order_ratio(), o) for o in outcomes if o.case.family]
    order = [(v, o) for v, o in order if math.isfinite(v)]
    if order:
        rows.append(
            report.target_row(
                f"any axis order or view: time <= {ORDER_TARGET}x the family's fastest "
                "contiguous time",
                order,
                ORDER_TARGET,
            )
        )
    mem = [
        (o.peak["stridedarray"] / max(o.peak["numpy"], 1), o)
        for o in outcomes
        if "stridedarray" in o.peak and "numpy" in o.peak
    ]
    if mem:
        rows.append(report.target_row("peak memory of a call <= NumPy's", mem, 1.0))
    return rows


def _mib(n: int | None) -> str:
    return "-" if n is None else f"{n / 2**20:.2f}"


def tables(outcomes: list[Outcome], info: dict, threads: int) -> str:
    head = [
        "case",
        "group",
        "NumPy",
        "opt_einsum",
        "stridedarray",
        "ours / faster other",
        "ours / family best",
        "peak NumPy",
        "peak opt_einsum",
        "peak ours",
        "check",
    ]
    rows = [
        [
            o.case.name,
            o.case.group,
            *(fmt_time(o.time(v)) for v in VARIANTS),
            fmt_ratio(o.ratio()),
            fmt_ratio(o.order_ratio()),
            *(_mib(o.peak.get(v)) for v in VARIANTS),
            report.check_notes(o),
        ]
        for o in outcomes
    ]
    intro = (
        f"Median time per call, {threads} thread(s); the ratios are times (below 1: ours is "
        "faster); peak memory in MiB."
    )
    return report.suite_tables(
        intro, head, "ll" + "r" * 8 + "l", rows, targets(outcomes), "worst ratio", info, threads
    )


def markdown(outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1) -> str:
    head = ["# Contractions: stridedarray.einsum beside NumPy and opt_einsum", ""]
    return "\n".join([*head, *header_lines(info, threads), ""]) + tables(outcomes, info, threads)


def fragments(
    outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1
) -> dict[str, str]:
    """The docs' tables (`--docs`): contractions.md and contractions-targets.md (with
    -<N>threads in the names at more than one thread)."""
    stem = STEM if threads == 1 else f"{STEM}-{threads}threads"
    return report.suite_fragments(
        stem, tables(outcomes, info, threads), targets(outcomes), "worst ratio", info, threads
    )


def csv_rows(outcomes: list[Outcome]) -> Iterator[list[object]]:
    for o in outcomes:
        for variant, samples in o.samples.items():
            for i, t in enumerate(samples):
                yield [o.name, o.case.group, o.case.subscripts, variant, i, o.inner, t]


def summary(
    outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1
) -> dict[str, Any]:
    return {
        "machine": info,
        "threads": threads,
        "warning": busy_warning(info, threads),
        "cases": [
            {
                "case": o.name,
                "group": o.case.group,
                "subscripts": o.case.subscripts,
                "layout": o.case.layout,
                **{v: o.time(v) for v in VARIANTS},
                "ratio": o.ratio(),
                "order_ratio": o.order_ratio(),
                "peak_bytes": o.peak,
                "mismatch": o.mismatch,
                "errors": o.errors,
                "inner": o.inner,
            }
            for o in outcomes
        ],
        "targets": targets(outcomes),
    }


BUDGET = Budget(target_s=5e-3, min_repeats=7, max_repeats=31, case_budget_s=1.0, case_cap_s=4.0)


def run(opts: Options) -> int:
    """Run the suite, write contractions.md/.csv/.json/.png into opts.out (and the tables into
    opts.docs); print the tables. Exit status 1 when a result differed from NumPy's."""
    return report.run_per_call(
        sys.modules[__name__], opts, cases(opts.quick), BUDGET, run_case, _family_best
    )

"""`python -m benchmarks --suite overhead`: the fixed cost of one call, per function family.

Every case is one statement written against an array namespace `xp` (`xp.exp(x)`, `x + y`,
`xp.sum(x, axis=0)`, `a @ b`, ...), run as it is with NumPy, stridedarray and, when it is
installed, array-api-strict, on the same values. The arrays are small (4x4 and 1,000 elements),
so what is timed is the per-call cost of the library, not the arithmetic. Before timing, each
library's result is compared with NumPy's (bit for bit; within a rounding tolerance for matmul,
where two BLAS builds may differ in the last bit). Outputs: overhead.md, overhead.csv,
overhead.json and overhead.png in --out.

With `--callgrind` (valgrind on PATH), each case is also counted in instructions per call
under callgrind, beside the times (see callgrind.py): counts do not move with the load of the
machine. It runs after the timing, one valgrind child per library, and adds a few minutes.
"""

from __future__ import annotations

import math
import sys
import time
import timeit
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stridedarray.bench import report
from stridedarray.bench.machine import (
    busy_warning,
    default_threads,
    header_lines,
    machine_info,
    set_threads,
)
from stridedarray.bench.options import chosen
from stridedarray.bench.report import fmt_ratio, fmt_time
from stridedarray.bench.sampling import Budget, Timed, run_all, sample

from . import callgrind
from .cases import (
    Call,
    LabOptions,
    calls,
    namespace_globals,
    namespaces,
    operands,
    operands_size,
    torch_namespace,
)

__all__ = ["Call", "calls", "run", "TARGETS", "INSTRUCTION_TARGETS", "CSV_FIELDS"]

# The plot's (plot.plot_costs): horizontal bars of the speed-up per case, log scale, the 0.5
# target line.
PLOT: dict[str, object] = {
    "target": 0.5,
    "log": True,
    "width": 10,
    "row_height": 0.22,
    "fontsize": 8,
}
PLOT["xlabel"] = "speed-up: NumPy's time per call / the library's"
STEM = "overhead"  # the outputs' file names
TITLE = "per-call cost beside NumPy"  # the plot's
CSV_FIELDS = [
    "case",
    "family",
    "size",
    "variant",
    "repeat",
    "inner",
    "seconds_per_call",
    "instructions_per_call",  # empty without --callgrind
]


def _agrees(call: Call, got: object, expected: np.ndarray) -> bool:
    try:
        g = np.asarray(got)
    except Exception:
        g = np.asarray(got.__array__())  # type: ignore[attr-defined]
    if g.shape != expected.shape or g.dtype != expected.dtype:
        return False
    if call.check == "shape":
        return True
    if call.check == "close":
        return bool(np.allclose(g, expected, rtol=1e-12, atol=1e-12))
    return bool(np.array_equal(g, expected, equal_nan=True))


@dataclass
class Outcome(Timed):
    """One case: samples per library, whether each library's result matched NumPy's, and
    instructions per call per library (with --callgrind)."""

    call: Call

    @property
    def name(self) -> str:
        return self.call.name

    instructions: dict[str, float] = field(default_factory=dict)

    def instruction_ratio(self, lib: str = "stridedarray") -> float:
        """The library's instructions per call over NumPy's (2.0: twice NumPy's); nan when
        either was not counted."""
        mine, numpy = self.instructions.get(lib), self.instructions.get("numpy")
        return mine / numpy if mine is not None and numpy else math.nan


def run_call(call: Call, libs: dict[str, Any], base: dict[str, Any], budget: Budget) -> Outcome:
    """Check the statement against NumPy in every library, then time them interleaved."""
    out = Outcome(call)
    code = compile(call.stmt, call.name, "eval")
    timers: dict[str, timeit.Timer] = {}
    expected = None
    for name, xp in libs.items():
        g = namespace_globals(xp, base)
        try:
            r = eval(code, g)  # noqa: S307 - our own statements
        except Exception as exc:  # a library without the call: reported, not fatal
            out.errors[name] = f"{type(exc).__name__}: {exc}"
            continue
        if name == "numpy":
            expected = np.asarray(r)
        elif expected is not None and not _agrees(call, r, expected):
            out.mismatch.append(name)
        timers[name] = timeit.Timer(call.stmt, globals=g)
    out.inner, out.samples = sample(timers, budget)
    return out


# Targets: (label, the families or case names it judges, least speed-up (NumPy's time /
# stridedarray's), absolute bound on stridedarray's time in s).
TARGETS = [
    (
        "element-wise (unary, binary, array-scalar): speed-up >= 0.5 (at most 2x NumPy's time)",
        ("elementwise unary", "elementwise binary", "elementwise scalar"),
        0.5,
        None,
    ),
    ("reductions: speed-up >= 0.5", ("reduction",), 0.5, None),
    ("where: speed-up >= 0.5", ("where",), 0.5, None),
    ("indexing and view functions: speed-up >= 0.5", ("indexing and views",), 0.5, None),
    ("creation: speed-up >= 0.5", ("creation",), 0.5, None),
    ("asarray(ndarray) < 1 us", ("asarray",), None, 1e-6),
    ("matmul 2x2, 8x8: speed-up >= 0.8", ("matmul small",), 0.8, None),
    ("matmul (10,S,S)@(10,S,S), S < 32: speed-up >= 0.9", ("matmul batched",), 0.9, None),
    (
        "conversions, flip, arange, permute_dims at 4x4: speed-up >= 0.67 (at most 1.5x "
        "NumPy's time)",
        (
            "conversions",
            "xp.flip(x, axis=0) [4x4]",
            "xp.permute_dims(x, (1, 0)) [4x4]",
            "xp.arange(nf) [4x4]",
        ),
        1 / 1.5,
        None,
    ),
]

# Targets on the instruction counts (--callgrind): (label, families, most instructions per
# call as a multiple of NumPy's).
INSTRUCTION_TARGETS = [
    (
        "element-wise and comparisons: at most 2x NumPy's instructions",
        ("elementwise unary", "elementwise binary", "elementwise scalar"),
        2.0,
    ),
    ("views: at most 2x", ("indexing and views",), 2.0),
    ("view then op: at most 2x", ("view then op",), 2.0),
    ("creation: at most 2x", ("creation",), 2.0),
    ("asarray(ndarray): at most 2x", ("asarray",), 2.0),
    ("small conversions: at most 1.5x", ("conversions",), 1.5),
    ("reductions: at most 2x", ("reduction",), 2.0),
]


def targets(outcomes: list[Outcome]) -> list[dict]:
    """Each target with its worst case (the least speed-up, or the longest time for an
    absolute bound), how many cases meet it, and whether all do."""
    rows = []
    for label, fams, least, absolute in TARGETS:
        cases = [o for o in outcomes if o.call.family in fams or o.call.name in fams]
        if not cases:
            continue
        if absolute is not None:
            vals = [(o.time("stridedarray"), o) for o in cases]
            met = sum(1 for v, _ in vals if math.isfinite(v) and v <= absolute)
            worst_v, worst = max(vals, key=lambda t: t[0] if math.isfinite(t[0]) else math.inf)
        else:
            vals = [(o.speedup(), o) for o in cases]
            met = sum(1 for v, _ in vals if math.isfinite(v) and v >= float(least or 0))
            worst_v, worst = min(vals, key=lambda t: t[0] if math.isfinite(t[0]) else -math.inf)
        rows.append(
            {
                "target": label,
                "cases": len(cases),
                "met_cases": met,
                "worst": worst_v,
                "worst_case": worst.call.name,
                "absolute": bool(absolute),
                "met": met == len(cases),
            }
        )
    return rows


def instruction_targets(outcomes: list[Outcome]) -> list[dict]:
    """Each instruction target with its worst case (the highest ratio to NumPy's count) and
    how many of the counted cases meet it; empty without counts."""
    rows = []
    for label, fams, most in INSTRUCTION_TARGETS:
        vals = [
            (o.instruction_ratio(), o)
            for o in outcomes
            if o.call.family in fams and math.isfinite(o.instruction_ratio())
        ]
        if not vals:
            continue
        worst_v, worst = max(vals, key=lambda t: t[0])
        met = sum(1 for v, _ in vals if v <= most)
        rows.append(
            {
                "target": label,
                "cases": len(vals),
                "met_cases": met,
                "worst": worst_v,
                "worst_case": worst.call.name,
                "met": met == len(vals),
            }
        )
    return rows


def tables(outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1) -> str:
    """The per-call table and the targets, with the run's load: what the docs include."""
    strict = "array-api-strict" in libs
    counted = _counted(outcomes)
    head = ["call", "family", "NumPy", "stridedarray", "speed-up"]
    if strict:
        head += ["array-api-strict", "strict speed-up"]
    head += [f"{_LABEL.get(lib, lib)} instr" for lib in counted]
    if counted:
        head.append("instr / NumPy's")
    head.append("check")
    lines = [
        f"Median time per call, {threads} BLAS thread(s); speed-up = NumPy time / "
        "stridedarray time (1.00x: NumPy's cost; 0.50x: twice NumPy's time; above 1: "
        "cheaper than NumPy). " + report.run_line(info),
    ]
    if counted:
        lines += [
            "",
            "instr: instructions per call under callgrind (--callgrind; "
            f"{info.get('callgrind', '')}); instr / NumPy's = stridedarray's count over "
            "NumPy's (2.00x: twice NumPy's instructions).",
        ]
    rows = []
    for o in outcomes:
        row = [
            f"`{o.call.name}`",
            o.call.family,
            fmt_time(o.time("numpy")),
            fmt_time(o.time("stridedarray")),
            fmt_ratio(o.speedup()),
        ]
        if strict:
            row += [fmt_time(o.time("array-api-strict")), fmt_ratio(o.speedup("array-api-strict"))]
        row += [_count(o.instructions.get(lib)) for lib in counted]
        if counted:
            row.append(fmt_ratio(o.instruction_ratio()))
        notes = [f"{k} differs from NumPy" for k in o.mismatch]
        notes += [f"{k}: {v[:60]}" for k, v in o.errors.items()]
        rows.append([*row, "; ".join(notes) or "same as NumPy"])
    lines += ["", *report.markdown_table(head, "llrrr" + "r" * (len(head) - 6) + "l", rows)]
    lines += ["", "## Targets", "", *report.targets_table(targets(outcomes))]
    itargets = instruction_targets(outcomes)
    if itargets:
        lines += ["", "## Instruction targets (callgrind)", "", *report.targets_table(itargets)]
    warning = busy_warning(info, threads)
    if warning:  # in the summary too, beside the targets it may have decided
        lines += ["", f"**{warning}**"]
    return "\n".join(lines) + "\n"


def fragments(
    outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1
) -> dict[str, str]:
    """The docs' tables (`--docs`): overhead.md, the per-call table with the targets;
    overhead-targets.md, the targets alone, with the run's load."""
    warning = busy_warning(info, threads)
    goals = [report.run_line(info), "", *report.targets_table(targets(outcomes))]
    if warning:
        goals += ["", f"**{warning}**"]
    return {
        "overhead.md": tables(outcomes, info, libs, threads),
        "overhead-targets.md": "\n".join(goals) + "\n",
    }


def markdown(outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1) -> str:
    """Title, the machine header, the per-call table and the targets."""
    lines = [
        "# Per-call cost: stridedarray beside NumPy"
        + (" and array-api-strict" if "array-api-strict" in libs else ""),
        "",
        *header_lines(info, threads),
        "",
    ]
    return "\n".join(lines) + tables(outcomes, info, libs, threads)


_LABEL = {"numpy": "NumPy"}


def _count(v: float | None) -> str:
    return f"{v:,.0f}" if v is not None and math.isfinite(v) else "-"


def _counted(outcomes: list[Outcome]) -> list[str]:
    """The libraries with an instruction count in some case, in the order first met."""
    seen: dict[str, None] = {}
    for o in outcomes:
        seen.update(dict.fromkeys(o.instructions))
    return list(seen)


def csv_rows(outcomes: list[Outcome]) -> Iterator[list[object]]:
    """Every raw sample (CSV_FIELDS): one row per (case, library, repeat)."""
    for o in outcomes:
        for variant, samples in o.samples.items():
            instr = o.instructions.get(variant)
            for i, t in enumerate(samples):
                yield [
                    o.call.name,
                    o.call.family,
                    o.call.size,
                    variant,
                    i,
                    o.inner,
                    f"{t:.6e}",
                    "" if instr is None else f"{instr:.1f}",
                ]


def summary(
    outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1
) -> dict[str, Any]:
    """The JSON summary: medians and speed-ups per case, the targets, the machine header and
    the busy-machine warning (null on a quiet machine)."""
    rows = [
        {
            "case": o.call.name,
            "family": o.call.family,
            "size": o.call.size,
            "statement": o.call.stmt,
            **{lib: o.time(lib) for lib in libs},
            "speedup": o.speedup(),
            "strict_speedup": o.speedup("array-api-strict"),
            "mismatch": o.mismatch,
            "errors": o.errors,
            "inner": o.inner,
            "instructions": o.instructions or None,
            "instruction_ratio": o.instruction_ratio() if o.instructions else None,
        }
        for o in outcomes
    ]
    return {
        "machine": info,
        "warning": busy_warning(info, threads),
        "libraries": libs,
        "cases": rows,
        "targets": targets(outcomes),
        "instruction_targets": instruction_targets(outcomes),
    }


def run(opts: LabOptions) -> int:
    """Run the suite and write overhead.md/.csv/.json/.png into opts.out (and the tables,
    overhead.md, into opts.docs); print the tables. opts.callgrind: also count instructions
    per call under callgrind."""
    selected = chosen(calls(opts.quick), opts, "case", "name", "family")
    if selected is None:
        return 0
    if opts.callgrind and not callgrind.available():
        raise SystemExit("--callgrind: valgrind is not on PATH")
    set_threads(opts.threads)
    threads = opts.threads or default_threads()
    info = machine_info()
    libs = namespaces()
    if "array-api-strict" in libs:
        info["array_api_strict"] = libs["array-api-strict"].__version__
    budget = Budget.quick() if opts.quick else Budget()
    rng = np.random.default_rng(opts.seed)
    bases = {n: operands(n, rng) for n in sorted({operands_size(c) for c in selected})}
    outcomes = run_all(
        selected,
        lambda c: run_call(c, libs, bases[operands_size(c)], budget),
        lambda c: c.name,
        opts.progress,
        info,
    )
    if opts.callgrind:
        _count_instructions(outcomes, libs, opts.seed, opts.progress, info)
    return report.write_suite(
        sys.modules[__name__], outcomes, info, list(libs), threads, opts.out, opts.docs
    )


def _count_instructions(
    outcomes: list[Outcome], libs: dict[str, Any], seed: int, progress: bool, info: dict
) -> None:
    """Instructions per call of every case and library (PyTorch too when installed), into
    each outcome; the method and the time it took into `info`."""
    names = list(libs) + (["torch"] if torch_namespace() is not None else [])
    cases = [(o.call.stmt, operands_size(o.call)) for o in outcomes]
    if progress:
        print(
            f"callgrind: {len(cases)} case(s) x {len(names)} libraries "
            f"({', '.join(names)}), about 1 s per case...",
            file=sys.stderr,
        )
    t0 = time.perf_counter()
    counts = callgrind.measure(names, cases, seed, n=callgrind.CALLS)
    for lib, row in counts.items():
        for o, v in zip(outcomes, row, strict=True):
            if isinstance(v, str):
                o.errors.setdefault(f"callgrind {lib}", v)
            else:
                o.instructions[lib] = v
    info["callgrind"] = (
        f"{callgrind.CALLS} calls per case in itertools.starmap, minus an empty function's; "
        f"{time.perf_counter() - t0:.1f} s"
    )

"""`python -m stridedarray.bench --suite overhead`: the fixed cost of one call, per function family.

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

import csv
import json
import math
import os
import sys
import time
import timeit
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import stridedarray as sa

from . import callgrind
from .machine import busy_warning, header_lines, machine_info, set_threads
from .report import fmt_time
from .sampling import Budget, Timed, sample
from .suites import plot_costs, select, write_results

__all__ = ["Call", "calls", "run", "TARGETS", "INSTRUCTION_TARGETS", "CSV_FIELDS"]

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
SHAPES = {16: (4, 4), 1000: (25, 40)}  # element count -> shape of x and y
BATCH_SIZES = (8, 12, 16, 24)


@dataclass(frozen=True)
class Call:
    """One timed statement: its family, the element count of its operands, how to check it."""

    name: str
    family: str
    size: int
    stmt: str
    check: str = "exact"  # "exact" (bit-identical to NumPy), "close" (matmul) or "shape"


# family, statement, check: each row is run at every size in SHAPES.
_SIZED = [
    ("elementwise unary", "xp.exp(x)", "exact"),
    ("elementwise unary", "xp.sqrt(p)", "exact"),
    ("elementwise unary", "xp.abs(x)", "exact"),
    ("elementwise unary", "-x", "exact"),
    ("elementwise unary", "xp.isnan(x)", "exact"),
    ("elementwise binary", "x + y", "exact"),
    ("elementwise binary", "xp.multiply(x, y)", "exact"),
    ("elementwise binary", "x / y", "exact"),
    ("elementwise binary", "x < y", "exact"),
    ("elementwise binary", "xp.maximum(x, y)", "exact"),
    ("elementwise scalar", "x * 2.0", "exact"),
    ("elementwise scalar", "x + 1", "exact"),
    ("elementwise scalar", "2.0 - x", "exact"),
    ("elementwise scalar", "x > 0.5", "exact"),
    ("reduction", "xp.sum(x)", "exact"),
    ("reduction", "xp.sum(x, axis=0)", "exact"),
    ("reduction", "xp.mean(x)", "exact"),
    ("reduction", "xp.mean(x, axis=0)", "exact"),
    ("reduction", "xp.max(x)", "exact"),
    ("reduction", "xp.max(x, axis=0)", "exact"),
    ("reduction", "xp.argmax(x)", "exact"),
    ("reduction", "xp.argmax(x, axis=0)", "exact"),
    ("where", "xp.where(c, x, y)", "exact"),
    ("where", "xp.where(x > 0.5, x, y)", "exact"),
    ("indexing and views", "x[1:3, ::-1]", "exact"),
    ("indexing and views", "x[0]", "exact"),
    ("indexing and views", "x[..., None]", "exact"),
    ("indexing and views", "x.mT", "exact"),
    ("indexing and views", "xp.permute_dims(x, (1, 0))", "exact"),
    ("indexing and views", "xp.flip(x, axis=0)", "exact"),
    ("indexing and views", "xp.reshape(xt, split)", "exact"),
    ("indexing and views", "xp.expand_dims(x, axis=0)", "exact"),
    ("indexing and views", "x[1:3]", "exact"),
    ("view then op", "x[1:3] + y[1:3]", "exact"),
    ("view then op", "x.mT * y.mT", "exact"),
    ("creation", "xp.zeros(shape)", "exact"),
    ("creation", "xp.ones(shape)", "exact"),
    ("creation", "xp.empty(shape)", "shape"),
    ("creation", "xp.full(shape, 1.5)", "exact"),
    ("creation", "xp.arange(nf)", "exact"),
    ("creation", "xp.zeros_like(x)", "exact"),
    ("asarray", "xp.asarray(src)", "exact"),
    ("conversions", "xp.asarray([1.0, 2.0, 3.0])", "exact"),
    ("conversions", "float(x[0, 0])", "exact"),
    ("conversions", "x[0, 0].item()", "exact"),
]


def calls(quick: bool = False) -> list[Call]:
    """Every case: the sized families at each size, then matmul (2x2, 8x8, batched S < 32)."""
    sizes = (16,) if quick else tuple(SHAPES)
    out = [
        Call(f"{stmt} [{'x'.join(map(str, SHAPES[n]))}]", fam, n, stmt, chk)
        for n in sizes
        for fam, stmt, chk in _SIZED
    ]
    out.append(Call("a2 @ b2 [2x2]", "matmul small", 4, "a2 @ b2", "close"))
    out.append(Call("a8 @ b8 [8x8]", "matmul small", 64, "a8 @ b8", "close"))
    for s in BATCH_SIZES[:1] if quick else BATCH_SIZES:
        out.append(
            Call(
                f"A{s} @ B{s} [(10,{s},{s})]", "matmul batched", 10 * s * s, f"A{s} @ B{s}", "close"
            )
        )
    return out


def _operands(size: int, rng: np.random.Generator) -> dict[str, Any]:
    """The NumPy operands every statement of one size may use (same values for every library)."""
    shape = SHAPES.get(size, (4, 4))
    x = rng.standard_normal(shape)
    y = rng.standard_normal(shape) + 2.0  # away from 0: x / y is finite
    ops: dict[str, Any] = {
        "x": x,
        "y": y,
        "p": np.abs(x),
        "c": x > 0,
        "xt": x.T,
        "a2": rng.standard_normal((2, 2)),
        "b2": rng.standard_normal((2, 2)),
        "a8": rng.standard_normal((8, 8)),
        "b8": rng.standard_normal((8, 8)),
    }
    for s in BATCH_SIZES:
        ops[f"A{s}"] = rng.standard_normal((10, s, s))
        ops[f"B{s}"] = rng.standard_normal((10, s, s))
    # Constants (not arrays): a shape, a reshape of the transposed view that splits its first
    # axis (always a view), a float count for arange, and an ndarray for asarray.
    n0, n1 = shape[1], shape[0]
    split = (2, n0 // 2, n1) if n0 % 2 == 0 else (1, n0, n1)
    return {"ops": ops, "shape": shape, "split": split, "nf": float(size), "src": x.copy()}


def _namespaces() -> dict[str, Any]:
    libs: dict[str, Any] = {"numpy": np, "stridedarray": sa}
    try:
        import array_api_strict

        libs["array-api-strict"] = array_api_strict
    except ImportError:
        pass
    return libs


def _torch() -> Any:
    """PyTorch's Array API namespace (array_api_compat's wrapper when installed), or None:
    counted under callgrind only (--callgrind), when it is installed."""
    try:
        import torch  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    try:
        from array_api_compat import torch as compat  # type: ignore[import-not-found, unused-ignore]

        return compat
    except ImportError:
        return torch


def _globals(xp: Any, base: dict[str, Any]) -> dict[str, Any]:
    g = {
        "xp": xp,
        "shape": base["shape"],
        "split": base["split"],
        "nf": base["nf"],
        "src": base["src"],
    }
    for k, v in base["ops"].items():
        g[k] = v if xp is np else xp.asarray(v)
    return g


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
        g = _globals(xp, base)
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


# Targets: (label, families, least speed-up (NumPy's time / stridedarray's), absolute bound
# on stridedarray's time in s).
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
    (
        "small conversions (a short list, float(), item()): speed-up >= 0.67",
        ("conversions",),
        1 / 1.5,
        None,
    ),
    ("matmul 2x2, 8x8: speed-up >= 0.8", ("matmul small",), 0.8, None),
    ("matmul (10,S,S)@(10,S,S), S < 32: speed-up >= 0.9", ("matmul batched",), 0.9, None),
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
        cases = [o for o in outcomes if o.call.family in fams]
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


def _ratio(v: float) -> str:
    return f"{v:.2f}x" if math.isfinite(v) else "-"


def _count(v: float | None) -> str:
    return f"{v:,.0f}" if v is not None and math.isfinite(v) else "-"


def markdown(outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1) -> str:
    """Header, the per-call table and the targets table."""
    lines = [
        "# Per-call cost: stridedarray beside NumPy"
        + (" and array-api-strict" if "array-api-strict" in libs else ""),
        "",
    ]
    lines += header_lines(info, threads)
    strict = "array-api-strict" in libs
    counted = _counted(outcomes)
    head = "| call | family | NumPy | stridedarray | speed-up |"
    rule = "|---|---|---:|---:|---:|"
    if strict:
        head += " array-api-strict | strict speed-up |"
        rule += "---:|---:|"
    for lib in counted:
        head += f" {_LABEL.get(lib, lib)} instr |"
        rule += "---:|"
    if counted:
        head += " instr / NumPy's |"
        rule += "---:|"
    lines += [
        "",
        f"Median time per call, {threads} BLAS thread(s); speed-up = NumPy time / "
        "stridedarray time (1.00x: NumPy's cost; 0.50x: twice NumPy's time; above 1: "
        "cheaper than NumPy).",
    ]
    if counted:
        lines += [
            "",
            "instr: instructions per call under callgrind (--callgrind; "
            f"{info.get('callgrind', '')}); instr / NumPy's = stridedarray's count over "
            "NumPy's (2.00x: twice NumPy's instructions).",
        ]
    lines += ["", head + " check |", rule + "---|"]
    for o in outcomes:
        row = (
            f"| `{o.call.name}` | {o.call.family} | {fmt_time(o.time('numpy'))} | "
            f"{fmt_time(o.time('stridedarray'))} | {_ratio(o.speedup())} |"
        )
        if strict:
            row += (
                f" {fmt_time(o.time('array-api-strict'))} | "
                f"{_ratio(o.speedup('array-api-strict'))} |"
            )
        for lib in counted:
            row += f" {_count(o.instructions.get(lib))} |"
        if counted:
            row += f" {_ratio(o.instruction_ratio())} |"
        notes = [f"{k} differs from NumPy" for k in o.mismatch]
        notes += [f"{k}: {v[:60]}" for k, v in o.errors.items()]
        lines.append(row + f" {'; '.join(notes) or 'same as NumPy'} |")
    lines += [
        "",
        "## Targets",
        "",
        "| target | cases meeting it | worst | worst case | met |",
        "|---|---:|---:|---|---|",
    ]
    for t in targets(outcomes):
        worst = fmt_time(t["worst"]) if t["absolute"] else _ratio(t["worst"])
        lines.append(
            f"| {t['target']} | {t['met_cases']}/{t['cases']} | {worst} | "
            f"`{t['worst_case']}` | {'yes' if t['met'] else 'NO'} |"
        )
    itargets = instruction_targets(outcomes)
    if itargets:
        lines += [
            "",
            "## Instruction targets (callgrind)",
            "",
            "| target | cases meeting it | worst | worst case | met |",
            "|---|---:|---:|---|---|",
        ]
        for t in itargets:
            lines.append(
                f"| {t['target']} | {t['met_cases']}/{t['cases']} | {_ratio(t['worst'])} | "
                f"`{t['worst_case']}` | {'yes' if t['met'] else 'NO'} |"
            )
    warning = busy_warning(info, threads)
    if warning:  # in the summary too, beside the targets it may have decided
        lines += ["", f"**{warning}**"]
    return "\n".join(lines) + "\n"


_LABEL = {"numpy": "NumPy"}


def _counted(outcomes: list[Outcome]) -> list[str]:
    """The libraries with an instruction count in some case, in the order first met."""
    seen: dict[str, None] = {}
    for o in outcomes:
        seen.update(dict.fromkeys(o.instructions))
    return list(seen)


def write_csv(outcomes: list[Outcome], path: Path) -> None:
    """Every raw sample: one row per (case, library, repeat)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_FIELDS)
        for o in outcomes:
            for variant, samples in o.samples.items():
                instr = o.instructions.get(variant)
                for i, t in enumerate(samples):
                    w.writerow(
                        [
                            o.call.name,
                            o.call.family,
                            o.call.size,
                            variant,
                            i,
                            o.inner,
                            f"{t:.6e}",
                            "" if instr is None else f"{instr:.1f}",
                        ]
                    )


def write_json(
    outcomes: list[Outcome], info: dict, libs: list[str], path: Path, threads: int = 1
) -> None:
    """Medians and speed-ups per case, the targets, the machine header and the busy-machine
    warning (null on a quiet machine)."""
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
    path.write_text(
        json.dumps(
            {
                "machine": info,
                "warning": busy_warning(info, threads),
                "libraries": libs,
                "cases": rows,
                "targets": targets(outcomes),
                "instruction_targets": instruction_targets(outcomes),
            },
            indent=1,
            allow_nan=True,
            default=str,
        )
    )


def plot(outcomes: list[Outcome], path: Path, title: str) -> bool:
    """Horizontal bars of the speed-up per case (log scale), the 0.5 target line."""
    return plot_costs(
        outcomes,
        [o.call.name for o in outcomes],
        path,
        title,
        target=0.5,
        xlabel="speed-up: NumPy's time per call / the library's",
        log=True,
        width=10,
        row_height=0.22,
        fontsize=8,
    )


def run(
    out_dir: Path,
    quick: bool,
    pattern: str | None,
    threads: int,
    seed: int,
    list_only: bool = False,
    progress: bool = True,
    count_instructions: bool = False,
) -> int:
    """Run the suite and write overhead.md/.csv/.json/.png into out_dir; print the tables.
    `count_instructions` (--callgrind): also count instructions per call under callgrind."""
    selected = select(calls(quick), pattern, "name", "family")
    if list_only:
        print("\n".join(c.name for c in selected))
        return 0
    if not selected:
        raise SystemExit(f"--filter {pattern!r} matches no case (see --list)")
    if count_instructions and not callgrind.available():
        raise SystemExit("--callgrind: valgrind is not on PATH")
    set_threads(threads)
    info = machine_info()
    libs = _namespaces()
    if "array-api-strict" in libs:
        info["array_api_strict"] = libs["array-api-strict"].__version__
    budget = Budget.quick() if quick else Budget()
    rng = np.random.default_rng(seed)
    bases = {n: _operands(n, rng) for n in {c.size if c.size in SHAPES else 16 for c in selected}}
    t0 = time.perf_counter()
    outcomes = []
    for i, c in enumerate(selected, 1):
        outcomes.append(run_call(c, libs, bases[c.size if c.size in SHAPES else 16], budget))
        if progress:
            print(f"[{i}/{len(selected)}] {c.name}", file=sys.stderr)
    info["wall_time"] = f"{time.perf_counter() - t0:.1f} s"
    info["load_average_at_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    if count_instructions:
        _count_instructions(outcomes, libs, seed, progress, info)
    bad = [
        o.call.name for o in outcomes if "stridedarray" in o.mismatch or "stridedarray" in o.errors
    ]

    return write_results(
        "overhead",
        outcomes,
        info,
        list(libs),
        out_dir,
        f"per-call cost beside NumPy, {threads} BLAS thread(s), {info['cpu']}",
        markdown,
        write_csv,
        write_json,
        plot,
        bad,
        threads,
    )


def _count_instructions(
    outcomes: list[Outcome], libs: dict[str, Any], seed: int, progress: bool, info: dict
) -> None:
    """Instructions per call of every case and library (PyTorch too when installed), into
    each outcome; the method and the time it took into `info`."""
    names = list(libs) + (["torch"] if _torch() is not None else [])
    cases = [(o.call.stmt, o.call.size if o.call.size in SHAPES else 16) for o in outcomes]
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

"""`python -m stridedarray.bench --suite expressions`: chained element-wise expressions.

Users write `x * 2 + 1`, not one operation at a time, and array-API code writes the same chain
as functions, `xp.add(xp.multiply(x, 2), 1)`. Each case is one expression at one shape and
dtype, timed four ways on the same values: NumPy in operator form, NumPy in function form,
stridedarray in operator form and stridedarray in function form. NumPy's operator form is the
reference: its temporaries are elided (the `+ 1` is written into the temporary from `x * 2`),
which its function form does not get. The table's ratio is a *time ratio*, the form's time
over NumPy's operator form's (1.00: the same time; 1.20: a fifth slower), the way the target
is stated: within 1.2 times NumPy's operator form.

Before timing, the three other forms' results are compared with NumPy's operator form (bit
for bit for int64, within a few units of rounding for floating types); a mismatch is flagged
in the table and makes the exit status 1. Outputs: expressions.md, .csv, .json, .png in --out.
"""

from __future__ import annotations

import math
import sys
import timeit
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

import stridedarray as sa

from . import report
from .machine import busy_warning, header_lines
from .options import Options
from .report import fmt_ratio, fmt_time
from .sampling import Budget, Timed, sample

__all__ = ["EXPRESSIONS", "SHAPES", "Expr", "Case", "cases", "check", "run", "TARGET"]

STEM = "expressions"
TITLE = "chained element-wise expressions beside NumPy"
# The plot's (plot.plot_costs): it draws NumPy's time over each form's (a speed-up), with the
# target line at 1/1.2.
PLOT: dict[str, object] = {
    "target": 1 / 1.2,
    "log": True,
    "width": 10,
    "row_height": 0.22,
    "fontsize": 7,
    "xlabel": "speed-up: NumPy operator form's time / stridedarray operator form's",
}
TARGET = 1.2  # the most time of NumPy's operator form a form of ours may take
VARIANTS = ("numpy", "numpy_func", "stridedarray", "stridedarray_func")
CSV_FIELDS = ["case", "expression", "shape", "dtype", "variant", "repeat", "inner", "seconds"]

FLOAT = ("float32", "float64", "complex128")
ALL = ("float32", "float64", "int64", "complex128")


@dataclass(frozen=True)
class Expr:
    """One chain: its name, operator form, function form (both against namespace `xp`) and the
    dtypes where the standard defines it (no exp of integers, no true division of them)."""

    name: str
    operator: str
    function: str
    dtypes: tuple[str, ...]


EXPRESSIONS = [
    Expr("x * 2 + 1", "x * 2 + 1", "xp.add(xp.multiply(x, 2), 1)", ALL),
    Expr(
        "exp(x) * x - 1",
        "xp.exp(x) * x - 1",
        "xp.subtract(xp.multiply(xp.exp(x), x), 1)",
        FLOAT,
    ),
    Expr(
        "sum((x - m) ** 2, axis=0)",
        "xp.sum((x - m) ** 2, axis=0)",
        "xp.sum(xp.pow(xp.subtract(x, m), 2), axis=0)",
        ALL,
    ),
    Expr("x[::-1] * 2 + 1", "x[::-1] * 2 + 1", "xp.add(xp.multiply(x[::-1], 2), 1)", ALL),
    Expr("(x - m) / s", "(x - m) / s", "xp.divide(xp.subtract(x, m), s)", FLOAT),
    Expr(
        "x * y + x * x - y",
        "x * y + x * x - y",
        "xp.subtract(xp.add(xp.multiply(x, y), xp.multiply(x, x)), y)",
        ALL,
    ),
]

# 10^2 to 10^7 elements: the sizes where a temporary's allocation costs most (the middle) and
# where memory bandwidth rules (the largest). --quick keeps the first and the 300x300.
SHAPES = [(10, 10), (100, 100), (300, 300), (1000, 1000), (2000, 1500), (4000, 2500)]
QUICK_SHAPES = [(10, 10), (300, 300)]


@dataclass(frozen=True)
class Case:
    """One expression at one shape and dtype."""

    expr: Expr
    shape: tuple[int, int]
    dtype: str

    @property
    def name(self) -> str:
        return f"{self.expr.name} [{self.shape[0]}x{self.shape[1]} {self.dtype}]"


def cases(quick: bool = False) -> list[Case]:
    """Every expression at every shape, in each dtype where it is defined."""
    return [
        Case(e, shape, dt)
        for e in EXPRESSIONS
        for shape in (QUICK_SHAPES if quick else SHAPES)
        for dt in e.dtypes
    ]


def operands(shape: tuple[int, int], dtype: str, rng: np.random.Generator) -> dict[str, Any]:
    """x and y of `shape`, m (a row to subtract) and s (a positive row to divide by), NumPy
    arrays of `dtype`; integers small enough that x * x and the sums cannot overflow."""
    n = shape[1]
    if dtype == "int64":
        return {
            "x": rng.integers(-100, 100, size=shape, dtype=np.int64),
            "y": rng.integers(-100, 100, size=shape, dtype=np.int64),
            "m": rng.integers(-10, 10, size=n, dtype=np.int64),
        }

    def real(*size: int) -> np.ndarray:
        return rng.standard_normal(size)

    if dtype == "complex128":
        x, y = real(*shape) + 1j * real(*shape), real(*shape) + 1j * real(*shape)
        m, s = real(n) + 1j * real(n), np.abs(real(n)) + 0.5 + 0j
    else:
        x, y, m, s = real(*shape), real(*shape), real(n), np.abs(real(n)) + 0.5
    return {k: v.astype(dtype) for k, v in {"x": x, "y": y, "m": m, "s": s}.items()}


def check(got: Any, expected: np.ndarray) -> bool:
    """Does a result agree with NumPy's operator form? Same shape and dtype; int64 bit for
    bit, floating types within a few units of rounding (a reduction may add in another
    order)."""
    try:
        g = np.asarray(got)
    except Exception:
        return False
    if g.shape != expected.shape or g.dtype != expected.dtype:
        return False
    if expected.dtype.kind in "iub":
        return bool(np.array_equal(g, expected))
    eps = float(np.finfo(expected.dtype).eps)
    scale = float(np.max(np.abs(expected), initial=1.0))
    return bool(np.allclose(g, expected, rtol=64 * eps, atol=64 * eps * scale, equal_nan=True))


@dataclass
class Outcome(Timed):
    """One case's samples per form, and which forms differed from NumPy's operator form."""

    case: Case

    @property
    def name(self) -> str:
        return self.case.name

    def failed(self, lib: str | None = None) -> bool:
        """Did a form (`lib`: that one) differ from NumPy's operator form, or fail?"""
        if lib is None:
            return bool(self.mismatch or self.errors)
        return super().failed(lib)

    def ratio(self, variant: str = "stridedarray") -> float:
        """The form's median time over NumPy's operator form's (1.20: a fifth slower)."""
        return self.time(variant) / self.time("numpy")


def run_case(case: Case, budget: Budget, rng: np.random.Generator) -> Outcome:
    """Check the three other forms against NumPy's operator form, then time all four."""
    out = Outcome(case=case)
    base = operands(case.shape, case.dtype, rng)
    spaces = {
        "numpy": (np, base),
        "stridedarray": (sa, {k: sa.asarray(v) for k, v in base.items()}),
    }
    timers: dict[str, timeit.Timer] = {}
    expected = None
    for variant in VARIANTS:
        lib, form = variant.split("_")[0], variant.partition("_")[2] or "operator"
        xp, values = spaces[lib]
        stmt = case.expr.function if form == "func" else case.expr.operator
        g = {"xp": xp, **values}
        try:
            r = eval(compile(stmt, case.name, "eval"), g)  # noqa: S307 - our own statements
        except Exception as exc:  # reported in the table, not fatal to the run
            out.errors[variant] = f"{type(exc).__name__}: {exc}"
            continue
        if variant == "numpy":
            expected = np.asarray(r)
        elif expected is not None and not check(r, expected):
            out.mismatch.append(variant)
        del r  # not kept alive while timing: the forms run with the same free memory
        timers[variant] = timeit.Timer(stmt, globals=g)
    out.inner, out.samples = sample(timers, budget)
    return out


def targets(outcomes: list[Outcome]) -> list[dict]:
    """Each form of ours against NumPy's operator form: the worst case, how many meet 1.2x."""
    rows = []
    for variant, form in (("stridedarray", "operator"), ("stridedarray_func", "function")):
        vals = [(o.ratio(variant), o) for o in outcomes if math.isfinite(o.ratio(variant))]
        if vals:
            rows.append(
                report.target_row(
                    f"{form} form: time <= {TARGET}x NumPy's operator form", vals, TARGET
                )
            )
    return rows


def tables(outcomes: list[Outcome], info: dict, threads: int) -> str:
    """The per-case table and the targets, with the run's load: what the docs include."""
    head = [
        "expression",
        "shape",
        "dtype",
        "NumPy operator",
        "NumPy function",
        "stridedarray operator",
        "stridedarray function",
        "operator / NumPy operator",
        "function / NumPy operator",
        "NumPy function / NumPy operator",
        "check",
    ]
    rows = [
        [
            f"`{o.case.expr.name}`",
            "x".join(map(str, o.case.shape)),
            o.case.dtype,
            *(fmt_time(o.time(v)) for v in VARIANTS),
            fmt_ratio(o.ratio("stridedarray")),
            fmt_ratio(o.ratio("stridedarray_func")),
            fmt_ratio(o.ratio("numpy_func")),
            report.check_notes(o),
        ]
        for o in outcomes
    ]
    intro = (
        f"Median time per evaluation, {threads} thread(s); the ratios are times over NumPy's "
        "operator form's (1.00x: the same time; above 1: slower)."
    )
    return report.suite_tables(
        intro,
        head,
        "lll" + "r" * 7 + "l",
        rows,
        targets(outcomes),
        "worst time ratio",
        info,
        threads,
    )


def markdown(outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1) -> str:
    """Title, the machine header, the table and the targets."""
    head = ["# Chained element-wise expressions: stridedarray beside NumPy", ""]
    return "\n".join([*head, *header_lines(info, threads), ""]) + tables(outcomes, info, threads)


def fragments(
    outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1
) -> dict[str, str]:
    """The docs' tables (`--docs`): expressions.md (every case and the targets) and
    expressions-targets.md (the targets alone, with the run's load)."""
    return report.suite_fragments(
        "expressions",
        tables(outcomes, info, threads),
        targets(outcomes),
        "worst time ratio",
        info,
        threads,
    )


def csv_rows(outcomes: list[Outcome]) -> Iterator[list[object]]:
    """Every raw sample (CSV_FIELDS): one row per (case, form, repeat)."""
    for o in outcomes:
        for variant, samples in o.samples.items():
            for i, t in enumerate(samples):
                shape = "x".join(map(str, o.case.shape))
                yield [o.name, o.case.expr.name, shape, o.case.dtype, variant, i, o.inner, t]


def summary(
    outcomes: list[Outcome], info: dict, libs: list[str], threads: int = 1
) -> dict[str, Any]:
    """The JSON summary: medians and time ratios per case, the targets, the machine header."""
    return {
        "machine": info,
        "threads": threads,
        "warning": busy_warning(info, threads),
        "ratio": "time of the form / time of NumPy's operator form",
        "cases": [
            {
                "case": o.name,
                "expression": o.case.expr.name,
                "operator": o.case.expr.operator,
                "function": o.case.expr.function,
                "shape": list(o.case.shape),
                "dtype": o.case.dtype,
                **{v: o.time(v) for v in VARIANTS},
                "ratio_operator": o.ratio("stridedarray"),
                "ratio_function": o.ratio("stridedarray_func"),
                "ratio_numpy_function": o.ratio("numpy_func"),
                "mismatch": o.mismatch,
                "errors": o.errors,
                "inner": o.inner,
            }
            for o in outcomes
        ],
        "targets": targets(outcomes),
    }


# Per-case sampling: a 2 ms sample (the 10^7-element cases take longer per evaluation and get
# one evaluation per sample), the forms interleaved.
BUDGET = Budget(target_s=2e-3, min_repeats=9, max_repeats=41, case_budget_s=1.0, case_cap_s=4.0)


def run(opts: Options) -> int:
    """Run the suite and write expressions.md/.csv/.json/.png into opts.out (and the tables
    into opts.docs); print the tables. Exit status 1 when a form differed from NumPy's."""
    return report.run_per_call(sys.modules[__name__], opts, cases(opts.quick), BUDGET, run_case)

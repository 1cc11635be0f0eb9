"""The figure: the speed-up (NumPy time / stridedarray time) against size, a panel per group
of cases and a line per config.

matplotlib is imported here only, lazily, with the non-interactive Agg backend, so the
benchmark's other outputs need nothing beyond NumPy.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

__all__ = ["plot_ratios", "ratio_figure", "ratio_ticks"]

_COLORS = {
    "lhs": "tab:blue",
    "rhs": "tab:orange",
    "cross": "tab:green",
    "C": "tab:blue",
    "F": "tab:orange",
    "padded": "tab:green",
}

# Ratio gridlines, coarsest first: powers of two; with 1.5x steps; with quarter steps.
_MANTISSAS = ((1.0,), (1.0, 1.5), (1.0, 1.25, 1.5, 1.75))


def ratio_ticks(lo: float, hi: float) -> list[float]:
    """Gridline values for ratios in [lo, hi] (1.0 always among them): the coarsest ladder
    that puts at least four lines in the range (else the finest), plus the next line beyond
    an end that the data passes by more than 5% (or both neighbours when fewer than three
    lines fall inside), so every value can be read between two labelled lines. Wide ranges
    keep every 2nd, 4th, ... power of two: at most about a dozen lines."""
    lo, hi = min(lo, 1.0), max(hi, 1.0)
    e_lo, e_hi = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    every = max(1, math.ceil((e_hi - e_lo) / 12))
    e_lo, e_hi = e_lo - every, e_hi + every  # room for a line beyond each end
    for mantissas in _MANTISSAS:
        ladder = sorted(
            m * 2.0**e for m in mantissas for e in range(e_lo, e_hi + 1) if e % every == 0
        )
        ticks = [t for t in ladder if lo <= t <= hi]
        if len(ticks) >= 4 or every > 1:
            break
    few = len(ticks) < 3
    if few or lo < ticks[0] / 1.05:
        ticks.insert(0, max(t for t in ladder if t < lo))
    if few or hi > ticks[-1] * 1.05:
        ticks.append(min(t for t in ladder if t > hi))
    return ticks


def _tick_label(v: float) -> str:
    return f"{v:g}"


# The panels, in order: group, heading, x axis label, the x value of a row.
_PANELS = (
    ("grid", "non-BLAS layouts reused by a batch of 10", "S", "size"),
    ("blas", "BLAS-compatible layouts (10,S,S) @ (10,S,S)", "S", "size"),
    (
        "vector",
        "strided vectors: batched GEMV, GEVM, DOT",
        "S\u00b2 (GEMV, GEVM) or K (DOT)",
        "work",
    ),
    ("int", "integer products (S,S) @ (S,S)", "S", "size"),
)
_COLORS.update(
    {
        "gemv": "tab:blue",
        "gevm": "tab:orange",
        "dot": "tab:green",
        "int32": "tab:blue",
        "int64": "tab:orange",
    }
)


def plot_ratios(rows: list[dict], path: Path, title: str, columns: int = 2) -> None:
    """Draw the speed-up against size, one panel per group in `columns` columns, into a PNG
    at `path` (one column suits a narrow page, such as the docs' text column)."""
    fig = ratio_figure(rows, title, columns)  # selects the Agg backend before pyplot
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=100)
    plt.close(fig)


def _style(group: str, config: str) -> dict[str, Any]:
    """Colour by operand or role, dashes for float32, marker by layout."""
    parts = config.split()
    if group in ("vector", "int"):
        return {"color": _COLORS.get(parts[0]), "linestyle": "-", "marker": "o"}
    return {
        "color": _COLORS.get(parts[1]),
        "linestyle": "--" if parts[0] == "f32" else "-",
        "marker": "o" if parts[-1] in ("rev", "C") else "s" if parts[-1] in ("step2", "F") else "^",
    }


def ratio_figure(rows: list[dict], title: str, columns: int = 2) -> Any:
    """The figure of `plot_ratios`: a panel per group that has rows (the grid, BLAS-compatible
    layouts, strided vectors, integers), a line per config, the legend beside each panel
    (matplotlib's Figure; the caller saves and closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [p for p in _PANELS if any(r["group"] == p[0] for r in rows)] or list(_PANELS[:1])
    ncols = max(1, min(columns, len(panels)))
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(7.2 * ncols, 4.2 * nrows + 0.4), layout="constrained", squeeze=False
    )
    for ax in axes.flat[len(panels) :]:
        ax.remove()
    for ax, (group, heading, xlabel, xkey) in zip(axes.flat, panels, strict=False):
        mine = [dict(r, x=r.get(xkey, r["size"])) for r in rows if r["group"] == group]
        for config in sorted({r["config"] for r in mine}):
            pts = sorted(
                (r["x"], r["ratio"])
                for r in mine
                if r["config"] == config and math.isfinite(r["ratio"]) and r["ratio"] > 0
            )
            if pts:
                ax.plot(
                    [p[0] for p in pts],
                    [p[1] for p in pts],
                    markersize=4,
                    linewidth=1.2,
                    label=config,
                    **_style(group, config),
                )
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_title(heading, fontsize=10)
        ax.set_xlabel(xlabel, fontsize=9)
        ax.set_ylabel("speed-up: NumPy time / stridedarray time", fontsize=9)
        if not ax.lines[:-1]:  # nothing measured (e.g. stridedarray failed): no log axes
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
            continue
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        _label_axes(ax, [dict(r, size=r["x"]) for r in mine])
        ax.tick_params(labelsize=8)
        ax.grid(True, which="major", alpha=0.3)
        # Beside the panel, never over the lines.
        ax.legend(
            fontsize=8,
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            frameon=False,
            ncol=1,
            handlelength=2.5,
        )
    fig.suptitle(title + " (above 1: stridedarray faster)", fontsize=11)
    return fig


def _label_axes(ax: Any, rows: list[dict]) -> None:
    """A labelled tick at every measured S, and at ratio gridlines spanning the data (log
    axes otherwise label powers of two only: one tick, or none, across a narrow range)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    measured = [r for r in rows if math.isfinite(r["ratio"]) and r["ratio"] > 0]
    sizes = sorted({r["size"] for r in measured})
    ratios = [r["ratio"] for r in measured]
    yticks = ratio_ticks(min(ratios), max(ratios))
    label = FuncFormatter(lambda v, _pos: _tick_label(v))
    ax.xaxis.set_major_locator(FixedLocator(sizes))
    ax.xaxis.set_major_formatter(label)
    ax.yaxis.set_major_locator(FixedLocator(yticks))
    ax.yaxis.set_major_formatter(label)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_locator(NullLocator())
    lo, hi = min(yticks + ratios), max(yticks + ratios)
    ax.set_ylim(lo / 1.08, hi * 1.08)

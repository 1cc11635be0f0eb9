"""The figure: the speed-up (NumPy time / stridedarray time) against size, a panel per group
of cases and a line per config.

matplotlib is imported here only, lazily, with the non-interactive Agg backend, so the
benchmark's other outputs need nothing beyond NumPy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["mark_busy", "plot_costs", "plot_ratios", "ratio_figure", "ratio_ticks"]

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


# The panels, in order: group, the configs' dtype prefix (None: every config), heading, x axis
# label, the x value of a row. The grid and the BLAS layouts get a panel per dtype: at most six
# lines a panel, each told apart by colour and marker at the page's width.
_PANELS = (
    ("grid", "f64", "float64, non-BLAS layouts reused by a batch of 10", "S", "size"),
    ("grid", "f32", "float32, non-BLAS layouts reused by a batch of 10", "S", "size"),
    ("blas", "f64", "float64, BLAS layouts (10,S,S) @ (10,S,S)", "S", "size"),
    ("blas", "f32", "float32, BLAS layouts (10,S,S) @ (10,S,S)", "S", "size"),
    (
        "vector",
        None,
        "strided vectors: batched GEMV, GEVM, DOT",
        "S\u00b2 (GEMV, GEVM) or K (DOT)",
        "work",
    ),
    ("int", None, "integer products (S,S) @ (S,S)", "S", "size"),
)
_FONT = {"title": 12, "label": 11, "tick": 10, "legend": 10, "suptitle": 13}


def _in_panel(row: dict, group: str, dtype: str | None) -> bool:
    return row["group"] == group and (dtype is None or row["config"].split()[0] == dtype)


_COLORS.update(
    {
        "gemv": "tab:blue",
        "gevm": "tab:orange",
        "dot": "tab:green",
        "int32": "tab:blue",
        "int64": "tab:orange",
    }
)


def plot_ratios(
    rows: list[dict], path: Path, title: str, columns: int = 2, warning: str | None = None
) -> None:
    """Draw the speed-up against size, one panel per group in `columns` columns, into a PNG
    at `path`, with `warning` (the machine was busy) written on it. The figure is 11 inches
    wide at 100 dpi (1100 px): shown at a page's width (about 730 px) its labels stay near
    9 px, as at any resolution, and the file itself is the full-size image a page links to.

    The PNG is written with a palette of 32 colours (the lines, markers and text use a dozen;
    anti-aliasing the rest): 75 KB where full colour at 150 dpi took 430-500 KB, which keeps
    the two figures the docs ship, and so the sdist, small (tools/release/check-dist's 1.2 MB)."""
    fig = ratio_figure(rows, title, columns, warning)  # selects the Agg backend before pyplot
    import io

    import matplotlib.pyplot as plt
    from PIL import Image  # a dependency of matplotlib

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    buf.seek(0)
    with Image.open(buf) as image:
        palette = image.convert("RGB").quantize(
            colors=32, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
    palette.save(path, format="PNG", optimize=True)


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


def ratio_figure(rows: list[dict], title: str, columns: int = 2, warning: str | None = None) -> Any:
    """The figure of `plot_ratios`: a panel per group (and dtype, for the grid and the BLAS
    layouts) that has rows, a line per config, the legend under each panel, `warning` across
    the bottom (matplotlib's Figure; the caller saves and closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [p for p in _PANELS if any(_in_panel(r, p[0], p[1]) for r in rows)]
    panels = panels or list(_PANELS[:1])
    ncols = max(1, min(columns, len(panels)))
    nrows = -(-len(panels) // ncols)
    width = 11.0 if ncols > 1 else 7.3
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(width, 4.6 * nrows + 0.6), layout="constrained", squeeze=False
    )
    for ax in axes.flat[len(panels) :]:
        ax.remove()
    for ax, (group, dtype, heading, xlabel, xkey) in zip(axes.flat, panels, strict=False):
        mine = [dict(r, x=r.get(xkey, r["size"])) for r in rows if _in_panel(r, group, dtype)]
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
                    markersize=6,
                    linewidth=1.6,
                    # the dtype is in the panel's heading
                    label=config.split(maxsplit=1)[1] if dtype else config,
                    **_style(group, config),
                )
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_title(heading, fontsize=_FONT["title"])
        ax.set_xlabel(xlabel, fontsize=_FONT["label"])
        ax.set_ylabel("speed-up over NumPy", fontsize=_FONT["label"])
        if not ax.lines[:-1]:  # nothing measured (e.g. stridedarray failed): no log axes
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
            continue
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        _label_axes(ax, [dict(r, size=r["x"]) for r in mine])
        ax.tick_params(labelsize=_FONT["tick"])
        ax.grid(True, which="major", alpha=0.3)
        # Under the panel, never over the lines.
        ax.legend(
            fontsize=_FONT["legend"],
            loc="upper center",
            bbox_to_anchor=(0.5, -0.16),
            frameon=False,
            ncol=3,
            handlelength=2.5,
        )
    fig.suptitle(title + " (above 1: stridedarray faster)", fontsize=_FONT["suptitle"])
    mark_busy(fig, warning)
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


def mark_busy(fig: Any, warning: str | None) -> None:
    """Write the busy-machine warning across the bottom of the figure, in red on a light box
    (as the figure's x label, for which a constrained layout makes room), so the PNG says its
    numbers are noisy wherever it is shown without its tables."""
    if not warning:
        return
    import textwrap

    text = "MEASURED ON A BUSY MACHINE: " + warning.removeprefix("WARNING: the machine was busy: ")
    fig.supxlabel(
        textwrap.fill(text, width=max(60, int(fig.get_size_inches()[0] * 10))),
        fontsize=10,
        color="darkred",
        bbox={"facecolor": "#fff0f0", "edgecolor": "darkred", "boxstyle": "round,pad=0.4"},
    )


def plot_costs(
    outcomes: Sequence[Any],
    names: list[str],
    path: Path,
    title: str,
    *,
    target: float,
    xlabel: str,
    log: bool,
    width: float,
    row_height: float,
    fontsize: int,
    warning: str | None = None,
) -> bool:
    """Horizontal bars of stridedarray's and array-api-strict's speed-up (NumPy's time over
    theirs) per case, with the 1x line and the suite's `target` line (the least speed-up
    wanted); the legend above the bars; `warning` (the machine was busy) written on the
    figure. False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    import numpy as np

    y = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(width, row_height * len(names) + 1.8), layout="constrained")
    for k, (lib, color) in enumerate(
        (("stridedarray", "tab:blue"), ("array-api-strict", "tab:gray"))
    ):
        vals = [o.speedup(lib) for o in outcomes]
        if not any(math.isfinite(v) for v in vals):
            continue
        ax.barh(
            y + 0.2 - 0.4 * k,
            [v if math.isfinite(v) else 0 for v in vals],
            height=0.38,
            color=color,
            label=lib,
        )
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.axvline(
        target,
        color="tab:red",
        linewidth=0.8,
        linestyle="--",
        label=f"target: speed-up {target:.2g}",
    )
    if log:
        from matplotlib.ticker import FuncFormatter

        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.set_yticks(y, names, fontsize=fontsize)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(True, axis="x", which="both" if log else "major", alpha=0.3)
    ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3, frameon=False)
    fig.suptitle(title + " (above 1: faster than NumPy)", fontsize=10)
    mark_busy(fig, warning)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True

"""The figure: speed ratio (NumPy time / stridedarray time) against S, one line per config.

matplotlib is imported here only, lazily, with the non-interactive Agg backend, so the
benchmark's other outputs need nothing beyond NumPy.
"""

from __future__ import annotations

import math
from pathlib import Path

__all__ = ["plot_ratios"]

_COLORS = {"lhs": "tab:blue", "rhs": "tab:orange", "cross": "tab:green",
           "C": "tab:blue", "F": "tab:orange", "padded": "tab:green"}


def plot_ratios(rows: list[dict], path: Path, title: str) -> None:
    """Draw the grid and BLAS-compatible ratios against S into a small PNG at `path`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=False)
    for ax, group, heading in ((axes[0], "grid", "non-BLAS layouts, batch of 10 (seed grid)"),
                               (axes[1], "blas", "BLAS-compatible layouts (10,S,S)@(10,S,S)")):
        configs = sorted({r["config"] for r in rows if r["group"] == group})
        for config in configs:
            pts = sorted((r["size"], r["ratio"]) for r in rows
                         if r["group"] == group and r["config"] == config
                         and math.isfinite(r["ratio"]) and r["ratio"] > 0)
            if not pts:
                continue
            parts = config.split()
            ax.plot([p[0] for p in pts], [p[1] for p in pts],
                    color=_COLORS.get(parts[1], None),
                    linestyle="--" if parts[0] == "f32" else "-",
                    marker="o" if parts[-1] in ("neg", "C") else "s" if parts[-1] in (
                        "step2", "F") else "^",
                    markersize=4, linewidth=1.2, label=config)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_title(heading, fontsize=10)
        ax.set_xlabel("S")
        if not ax.lines[:-1]:  # nothing measured (e.g. stridedarray failed): no log axes
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
            continue
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    axes[0].set_ylabel("NumPy time / stridedarray time")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)

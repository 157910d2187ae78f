"""The tournament's pictures, drawn with matplotlib's Agg backend (no display needed), saved as PNG.

* ``final_bankroll.png``: the distribution of the final bankroll, one small panel per system, with
  the starting bankroll marked: flat betting is a narrow bell a little left of the start; a
  martingale is a tall spike just above it and a long thin tail of ruin.
* ``trajectories.png``: the bankroll coup after coup, median with 50% and 90% bands, per system.
* ``ahead_vs_return.png``: P(session ends ahead) against the return per unit staked with its 95%
  interval, beside the exact edge and zero: systems spread up and down (risk) but not sideways
  (price). A martingale wins most sessions and still loses the same fraction of its stakes.

Every file is written atomically (:func:`experiments.files.save_figure`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib.ticker
import numpy as np

from experiments.files import pyplot, save_figure

plt = pyplot()

PLOT_FILES = ("final_bankroll.png", "trajectories.png", "ahead_vs_return.png")


def draw_all(
    out: Path,
    document: Mapping[str, Any],
    sessions: Mapping[str, Mapping[str, np.ndarray]],
    bands: Mapping[str, Mapping[str, np.ndarray]],
) -> list[str]:
    """Draw the three plots into ``out``; returns their file names."""
    order = list(document["order"])
    save_figure(final_bankroll_figure(document, sessions, order), Path(out) / PLOT_FILES[0])
    save_figure(trajectories_figure(document, bands, order), Path(out) / PLOT_FILES[1])
    save_figure(ahead_vs_return_figure(document, order), Path(out) / PLOT_FILES[2])
    return list(PLOT_FILES)


def _grid(n: int, columns: int = 4) -> tuple[int, int]:
    columns = max(1, min(columns, n))
    return math.ceil(n / columns), columns


def _title(document: Mapping[str, Any]) -> str:
    return (
        f"{document['sessions']:,} sessions x up to {document['coups']:,} coups, "
        f"{document['rules']} rules, seed {document['seed']}"
    )


def final_bankroll_figure(
    document: Mapping[str, Any], sessions: Mapping[str, Mapping[str, np.ndarray]], order: list[str]
) -> plt.Figure:
    """Histograms of the final bankroll, one panel per system, on a shared horizontal axis."""
    rows, cols = _grid(len(order))
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.2 * rows + 0.8), sharex=True, squeeze=False)
    finals = [sessions[k]["final_bankroll"] for k in order]
    lo = min(float(f.min()) for f in finals)
    hi = max(float(f.max()) for f in finals)
    start = document["bankroll"]
    if hi <= lo:
        lo, hi = lo - 1, hi + 1
    bins = np.linspace(lo, hi, 61)
    table = document["strategies"]
    for ax, label, final in zip(axes.flat, order, finals):
        ax.hist(final, bins=bins, color="#4c72b0", alpha=0.85, log=True)
        ax.axvline(start, color="black", lw=0.8, ls="--")
        ax.axvline(float(np.median(final)), color="#c44e52", lw=1.0)
        row = table[label]
        ax.set_title(f"{label}\nP(ahead) {row['p_ahead']:.0%}, P(ruin) {row['p_ruin']:.0%}", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(order) :]:
        ax.axis("off")
    fig.suptitle(
        f"Final bankroll per session: number of sessions, log scale (dashed: start, red: median)\n{_title(document)}",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def trajectories_figure(
    document: Mapping[str, Any], bands: Mapping[str, Mapping[str, np.ndarray]], order: list[str]
) -> plt.Figure:
    """Median bankroll after each coup with 50% and 90% bands, one panel per system."""
    order = [k for k in order if k in bands]
    rows, cols = _grid(max(1, len(order)))
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.2 * rows + 0.8), sharex=True, squeeze=False)
    for ax, label in zip(axes.flat, order):
        b = bands[label]
        x = np.arange(b["median"].size)
        ax.fill_between(x, b["q05"], b["q95"], color="#4c72b0", alpha=0.18, lw=0, label="5-95%")
        ax.fill_between(x, b["q25"], b["q75"], color="#4c72b0", alpha=0.35, lw=0, label="25-75%")
        ax.plot(x, b["median"], color="#1f3b6f", lw=1.2, label="median")
        ax.plot(x, b["mean"], color="#c44e52", lw=0.9, ls=":", label="mean")
        ax.axhline(document["bankroll"], color="black", lw=0.6, ls="--")
        ax.set_title(label, fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(order) :]:
        ax.axis("off")
    if order:
        axes.flat[0].legend(fontsize=6, loc="lower left")
    fig.supxlabel("coup", fontsize=8)
    fig.supylabel("bankroll (units)", fontsize=8)
    fig.suptitle(
        f"Bankroll coup by coup: median, 50% and 90% of sessions (each panel its own scale)\n{_title(document)}",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def ahead_vs_return_figure(document: Mapping[str, Any], order: list[str]) -> plt.Figure:
    """P(session ahead) against return per unit staked (95% interval), with -edge and 0 marked."""
    table = document["strategies"]
    fig, ax = plt.subplots(figsize=(11, 6.5))
    edge = document["house_edge"]
    ax.axvline(-edge, color="#c44e52", lw=1.2, label=f"exact house edge: {-edge:+.2%}")
    ax.axvline(0.0, color="black", lw=0.8, ls="--", label="break even")
    points = []
    for label in order:
        r = table[label]
        if r["return_per_unit"] is None:
            continue
        x, y = r["return_per_unit"], r["p_ahead"]
        if r["ci_low"] is not None:
            ax.errorbar(x, y, xerr=[[x - r["ci_low"]], [r["ci_high"] - x]], fmt="o", ms=4, color="#4c72b0", capsize=2)
            right = r["ci_high"]
        else:
            ax.plot(x, y, "o", ms=4, color="#4c72b0")
            right = x
        points.append((y, right, x, label))
    # labels in a column right of the plot, in the order of P(ahead), nudged apart, each with a
    # thin leader line to its point: close systems stay readable
    gap = 0.032
    placed: list[float] = []
    for y, _, x, label in sorted(points):
        at = max([y] + [p + gap for p in placed])
        placed.append(at)
        ax.annotate(
            label,
            (x, y),
            xytext=(1.02, at),
            textcoords=ax.get_yaxis_transform(),
            fontsize=7,
            va="center",
            annotation_clip=False,
            arrowprops={"arrowstyle": "-", "color": "0.65", "lw": 0.5, "shrinkA": 0, "shrinkB": 3},
        )
    ax.set_xlabel("return per unit staked (95% interval over sessions)")
    ax.set_ylabel("P(session ends ahead)")
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=1))
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    ax.set_ylim(-0.02, max([1.02] + [p + 0.02 for p in placed]))
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(
        "Systems change how often a session ends ahead, not what a unit staked costs\n" + _title(document), fontsize=10
    )
    fig.tight_layout(rect=(0, 0, 0.8, 1))
    return fig


__all__ = ["PLOT_FILES", "ahead_vs_return_figure", "draw_all", "final_bankroll_figure", "trajectories_figure"]

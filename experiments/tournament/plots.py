"""The tournament's pictures, drawn with matplotlib's Agg backend (no display needed), saved as PNG.

* ``final_bankroll.png``: the distribution of the final bankroll, one panel per system on its own
  range, with the starting bankroll and the median marked: flat betting is a narrow bell a little
  left of the start; a martingale is a tall spike just above it and a long thin tail of ruin.
* ``trajectories.png``: the bankroll coup after coup, median with 50% and 90% bands, per system.
* ``ahead_vs_return.png``: a labelled dot plot, one row per system sorted by return: the return per
  unit staked with its 95% interval beside the exact expected return (-edge) and zero, and, on the
  same row, P(session ends ahead) and P(ruin). Systems spread in risk, not in price: a martingale
  wins most sessions and still loses the same fraction of its stakes.

Every file is written atomically (:func:`experiments.files.save_figure`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import matplotlib.ticker
import numpy as np

from experiments.files import pyplot, save_figure
from experiments.plotting import edge_label, percent_axis
from experiments.tournament.drawing import PLOT_FILES
from experiments.tournament.output import played_rules

plt = pyplot()

#: Resolution of the tournament's PNGs, dots per inch.
DPI = 80
#: Inches of a small panel (width, height) and of the margins around a grid of them.
PANEL = (3.2, 2.0)
BLUE, DARK, RED = "#4c72b0", "#1f3b6f", "#c44e52"


def draw_all(
    out: Path,
    document: Mapping[str, Any],
    sessions: Mapping[str, Mapping[str, np.ndarray]],
    bands: Mapping[str, Mapping[str, np.ndarray]],
    written: list[str] | None = None,
    doing: Callable[[str], None] | None = None,
) -> list[str]:
    """Draw the three plots into ``out``; returns their file names, and adds each to ``written``
    once it is whole. ``doing`` is told which plot is being drawn."""
    written = [] if written is None else written
    for name in PLOT_FILES:
        if doing:
            doing(f"drawing {name}")
        draw_one(out, name, document, sessions, bands)
        written.append(name)
    return list(PLOT_FILES)


def draw_one(
    out: Path,
    name: str,
    document: Mapping[str, Any],
    sessions: Mapping[str, Mapping[str, np.ndarray]],
    bands: Mapping[str, Mapping[str, np.ndarray]],
) -> str:
    """Draw the plot ``name`` (one of :data:`PLOT_FILES`) into ``out``, atomically; returns its name.
    ``final_bankroll.png`` reads only the ``final_bankroll`` of each system in ``sessions``,
    ``trajectories.png`` only ``bands``, ``ahead_vs_return.png`` only ``document``."""
    order = list(document["order"])
    if name == "final_bankroll.png":
        figure = final_bankroll_figure(document, sessions, order)
    elif name == "trajectories.png":
        figure = trajectories_figure(document, bands, order)
    elif name == "ahead_vs_return.png":
        figure = ahead_vs_return_figure(document, order)
    else:
        raise ValueError(f"no plot called {name!r}: the plots are {', '.join(PLOT_FILES)}")
    save_figure(figure, Path(out) / name, dpi=DPI)
    return name


def _title(document: Mapping[str, Any]) -> str:
    return (
        f"{document['sessions']:,} sessions x up to {document['coups']:,} coups, bankroll {document['bankroll']:g}, "
        f"{played_rules(document)} rules, seed {document['seed']}"
    )


def _panels(n: int, title_lines: int, columns: int = 4, sharex: bool = False) -> tuple[Any, np.ndarray]:
    """A figure of ``n`` small panels in rows of ``columns``, spaced by fixed margins (no layout
    engine: with 19 panels it costs more than the drawing), the unused ones hidden; ``sharex``:
    one horizontal axis, labelled under the last panel of each column only."""
    cols = max(1, min(columns, n))
    rows = math.ceil(n / cols)
    width, height = PANEL[0] * cols + 1.1, PANEL[1] * rows + 0.35 * title_lines + 0.5
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), squeeze=False, sharex=sharex)
    if sharex:
        for i, ax in enumerate(axes.flat[:n]):
            ax.xaxis.set_tick_params(labelbottom=i + cols >= n)  # the lowest panel of its column
    fig.subplots_adjust(
        left=0.95 / width,
        right=1 - 0.15 / width,
        bottom=0.5 / height,
        top=1 - 0.35 * title_lines / height,
        wspace=0.35,
        hspace=0.75,
    )
    for ax in axes.flat[n:]:
        ax.axis("off")
    for ax in axes.flat[:n]:  # few ticks: each one is a costly object to draw
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(4))
        ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(4))
        ax.tick_params(labelsize=7)
    return fig, axes


def final_bankroll_figure(
    document: Mapping[str, Any], sessions: Mapping[str, Mapping[str, np.ndarray]], order: list[str]
) -> plt.Figure:
    """Histograms of the final bankroll, one panel per system, each on its own range (the start
    included), the number of sessions on a log scale."""
    fig, axes = _panels(len(order), 3)
    start = document["bankroll"]
    table = document["strategies"]
    for ax, label in zip(axes.flat, order):
        final = sessions[label]["final_bankroll"]
        lo, hi = min(float(final.min()), start), max(float(final.max()), start)
        if hi - lo < 2:
            lo, hi = lo - 1, hi + 1
        counts, edges = np.histogram(final, bins=40, range=(lo, hi))
        ax.stairs(counts, edges, fill=True, color=BLUE, alpha=0.85)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(numticks=4))
        ax.yaxis.set_major_formatter("{x:,.0f}")  # 1, 10, 100, 1,000: plain text, not typeset powers of ten
        ax.yaxis.set_minor_locator(matplotlib.ticker.NullLocator())  # 9 minor ticks a decade cost more than the bars
        ax.set_ylim(0.7, max(2.0, counts.max() * 1.6))
        ax.axvline(start, color="black", lw=0.8, ls="--")
        ax.axvline(float(np.median(final)), color=RED, lw=1.0)
        ax.set_xlim(lo, hi)
        row = table[label]
        ax.set_title(f"{label}\nP(ahead) {row['p_ahead']:.1%}, P(ruin) {row['p_ruin']:.1%}", fontsize=8, y=1.0)
    fig.supxlabel("final bankroll (units); each panel on its own range", fontsize=8)
    fig.supylabel("sessions (log scale)", fontsize=8)
    fig.suptitle(f"Final bankroll per session (dashed: the start, red: the median)\n{_title(document)}", fontsize=10)
    return fig


def trajectories_figure(
    document: Mapping[str, Any], bands: Mapping[str, Mapping[str, np.ndarray]], order: list[str]
) -> plt.Figure:
    """Median bankroll after each coup with 50% and 90% bands, one panel per system."""
    order = [k for k in order if k in bands]
    fig, axes = _panels(max(1, len(order)), 3, sharex=True)
    for ax, label in zip(axes.flat, order):
        b = bands[label]
        x = np.arange(b["median"].size)
        ax.fill_between(x, b["q05"], b["q95"], color=BLUE, alpha=0.18, lw=0, label="5-95%")
        ax.fill_between(x, b["q25"], b["q75"], color=BLUE, alpha=0.35, lw=0, label="25-75%")
        ax.plot(x, b["median"], color=DARK, lw=1.2, label="median")
        ax.plot(x, b["mean"], color=RED, lw=0.9, ls=":", label="mean")
        ax.axhline(document["bankroll"], color="black", lw=0.6, ls="--")
        ax.set_xlim(0, max(1, x[-1]))
        ax.set_title(label, fontsize=8, y=1.0)  # a fixed place: no search for room above the panel
    if order:
        axes.flat[0].legend(fontsize=6, loc="lower left")
    fig.supxlabel("coup", fontsize=8)
    fig.supylabel("bankroll (units)", fontsize=8)
    fig.suptitle(
        f"Bankroll coup by coup: median, 50% and 90% of sessions (each panel its own scale)\n{_title(document)}",
        fontsize=10,
    )
    return fig


def ahead_vs_return_figure(document: Mapping[str, Any], order: list[str]) -> plt.Figure:
    """One row per system that staked, sorted by return per unit staked: the return with its 95%
    interval beside the exact expected return and zero (left), P(session ends ahead) and P(ruin)
    (right). Each label sits on its own row, so every point is matched to its system."""
    table = document["strategies"]
    rows = sorted(
        (k for k in order if table[k]["return_per_unit"] is not None), key=lambda k: table[k]["return_per_unit"]
    )
    idle = [k for k in order if table[k]["return_per_unit"] is None]
    height = 0.28 * max(1, len(rows)) + 1.9
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(10, height), sharey=True, gridspec_kw={"width_ratios": (3, 2), "wspace": 0.06}
    )
    fig.subplots_adjust(left=0.2, right=0.98, bottom=1.15 / height, top=1 - 0.75 / height)
    y = np.arange(len(rows))
    ret = np.array([table[k]["return_per_unit"] for k in rows], dtype=float)
    low = np.array([table[k]["ci_low"] if table[k]["ci_low"] is not None else np.nan for k in rows], dtype=float)
    high = np.array([table[k]["ci_high"] if table[k]["ci_high"] is not None else np.nan for k in rows], dtype=float)
    edge = document["house_edge"]
    left.axvline(-edge, color=RED, lw=1.2, label=edge_label(edge) + " of a Noir stake")
    left.axvline(0.0, color="black", lw=0.8, ls="--", label="break even")
    left.errorbar(
        ret, y, xerr=np.nan_to_num([ret - low, high - ret]), fmt="o", ms=4, color=BLUE, capsize=2, label="95% interval"
    )
    left.set_yticks(y, rows, fontsize=8)
    left.set_ylim(-0.7, len(rows) - 0.3)
    left.grid(axis="y", color="0.92", lw=0.6)
    left.set_axisbelow(True)
    left.set_xlabel("return per unit staked, 95% interval over sessions", fontsize=8)
    percent_axis(left.xaxis)
    ahead = [table[k]["p_ahead"] for k in rows]
    ruin = [table[k]["p_ruin"] for k in rows]
    right.hlines(y, 0, ahead, color=BLUE, lw=2.5, alpha=0.6)
    right.plot(ahead, y, "o", ms=4, color=BLUE, label="P(session ends ahead)")
    right.plot(ruin, y, "x", ms=5, color=RED, label="P(ruin)")
    right.set_xlim(0, 1)
    right.grid(axis="y", color="0.92", lw=0.6)
    right.set_axisbelow(True)
    right.set_xlabel("share of sessions", fontsize=8)
    percent_axis(right.xaxis)
    for ax in (left, right):
        ax.tick_params(axis="x", labelsize=7)
    handles = [h for ax in (left, right) for h in ax.get_legend_handles_labels()[0]]
    fig.legend(handles=handles, fontsize=7, loc="lower center", ncols=3, frameon=False)
    note = f" ({', '.join(idle)}: no stakes, not shown)" if idle else ""
    fig.suptitle(
        "Systems change how often a session ends ahead, not what a unit staked costs\n" + _title(document) + note,
        fontsize=10,
    )
    return fig


__all__ = [
    "DPI",
    "PLOT_FILES",
    "ahead_vs_return_figure",
    "draw_all",
    "draw_one",
    "final_bankroll_figure",
    "trajectories_figure",
]

"""What every plot of trente-lab shares: percent tick labels that show the true value of each tick,
and the words for the house edge's line. matplotlib is imported only when an axis is labelled
(importing it costs more than most commands take to run)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

#: Decimals a percent tick label may need at most.
MAX_DECIMALS = 6


def decimals_needed(values: Sequence[float], most: int = MAX_DECIMALS) -> int:
    """The fewest decimals (up to ``most``) that write every value in ``values`` exactly."""
    for decimals in range(most + 1):
        if all(abs(round(v, decimals) - v) <= 1e-9 * max(1.0, abs(v)) for v in values):
            return decimals
    return most


def percent_text(fraction: float, decimals: int) -> str:
    """``fraction`` of 1 in percent with ``decimals`` decimals and a true minus sign (never "-0%")."""
    value = round(100 * fraction, decimals) or 0.0
    return f"{value:.{decimals}f}%".replace("-", "\N{MINUS SIGN}")


@functools.cache
def _percent_ticks() -> type:
    import matplotlib.ticker

    class PercentTicks(matplotlib.ticker.Formatter):
        """Tick labels in percent of 1.0, with as many decimals as the ticks need and no more: ticks
        every 0.25% read -1.75%, -1.50% (never -1.8%, -1.5%), ticks every 10% read 40%, 50%."""

        decimals = 0

        def set_locs(self, locs: Sequence[float]) -> None:
            self.decimals = decimals_needed([100 * x for x in locs])

        def __call__(self, x: float, pos: int | None = None) -> str:
            return percent_text(x, self.decimals)

    return PercentTicks


def percent_axis(axis: Any) -> None:
    """Label a matplotlib axis (``ax.xaxis``, ``ax.yaxis``) holding fractions of 1 in percent, each
    tick with the decimals the ticks need (every label is the tick's true value)."""
    axis.set_major_formatter(_percent_ticks()())


def edge_label(edge: float) -> str:
    """The legend of the line drawn at the expected return of a unit staked, ``-edge``: the edge
    and the expected return, each with its own sign (never a minus house edge beside a negative number)."""
    return f"exact expected return {-edge:+.2%} (house edge {edge:.2%})".replace("-", "\N{MINUS SIGN}")


__all__ = ["decimals_needed", "edge_label", "percent_axis", "percent_text"]

"""THE estimators every package shares, below all of them: the normal quantile behind every
interval trente-lab prints, the mean of independent units with its interval, and a ratio of totals
with its delta-method interval.

:mod:`experiments.stats` builds the tournament's statistics on them (and describes the ratio
estimator over sessions); the card-counting study (:mod:`trente_env.counting.counters`) uses them
over shoes. The engine may not import ``experiments`` (docs/architecture.md), so they live here.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np

NORMAL = NormalDist()  #: the standard normal distribution


@dataclass(frozen=True)
class RatioEstimate:
    """A ratio of totals over independent units (sessions, shoes) with its delta-method standard error
    and interval."""

    ratio: float  #: sum(y) / sum(x); NaN when nothing was staked
    se: float  #: standard error (delta method over the units)
    ci_low: float
    ci_high: float
    n: int  #: units (sessions)
    level: float  #: confidence level of the interval

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def z_quantile(level: float) -> float:
    """The two-sided normal quantile of a ``level`` interval (1.959964 for 0.95)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"a confidence level is in (0, 1), got {level}")
    return NORMAL.inv_cdf(0.5 + level / 2)


def normal_quantile(p: float) -> float:
    """The one-sided standard normal quantile: ``P(Z < q) = p`` (1.644854 for 0.95, 0 for 0.5)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a probability is in (0, 1), got {p}")
    return NORMAL.inv_cdf(p)


#: The standard normal quantile of a two-sided 95% interval (1.959964).
Z95 = z_quantile(0.95)


def ratio_estimate(y: np.ndarray, x: np.ndarray, level: float = 0.95) -> RatioEstimate:
    """``sum(y) / sum(x)`` with a delta-method interval over the sessions (the estimator of the return
    per unit staked: :mod:`experiments.stats` says why and how).

    :param y: per-session net result (units).
    :param x: per-session total staked (units, >= 0).
    :param level: confidence level of the interval.
    """
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    if y.shape != x.shape or y.ndim != 1:
        raise ValueError("y and x must be 1-d arrays of the same length (one entry per session)")
    n = y.size
    total = x.sum()
    if n == 0 or total <= 0:
        nan = float("nan")
        return RatioEstimate(nan, nan, nan, nan, n, level)
    ratio = float(y.sum() / total)
    if n < 2:
        return RatioEstimate(ratio, float("nan"), float("nan"), float("nan"), n, level)
    d = y - ratio * x
    se = float(math.sqrt((d @ d) / (n - 1) / n) / (total / n))
    z = z_quantile(level)
    return RatioEstimate(ratio, se, ratio - z * se, ratio + z * se, n, level)


@dataclass(frozen=True)
class Interval:
    """A mean with its confidence interval (normal approximation over independent units)."""

    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, x: np.ndarray, level: float = 0.95) -> Interval:
        """The mean of ``x`` (one value per independent unit: a shoe, a session) and its interval,
        ``mean +- z sd / sqrt(n)``; an infinite interval for fewer than two units."""
        x = np.asarray(x, dtype=float)
        half = z_quantile(level) * x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else np.inf
        return cls(float(x.mean()), float(x.mean() - half), float(x.mean() + half))

    @classmethod
    def of_ratio(cls, estimate: RatioEstimate) -> Interval:
        """A ratio of totals (:func:`ratio_estimate`) as a mean with its interval."""
        return cls(estimate.ratio, estimate.ci_low, estimate.ci_high)

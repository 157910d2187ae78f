"""THE estimators every package shares, below all of them: the normal quantile behind every
interval trente-lab prints, the mean of independent units with its interval, a ratio of totals
with its delta-method interval, and the one interval of a return per unit staked (never narrower
than the noise its stakes imply: :func:`honest_return`).

:mod:`experiments.stats` builds the tournament's statistics on them (and describes the ratio
estimator over sessions); the card-counting study (:mod:`trente_env.counting.counters`) uses them
over shoes. The engine may not import ``experiments`` (docs/architecture.md), so they live here.
"""

from __future__ import annotations

import dataclasses
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
    #: why there is no interval, in words (:data:`NO_UNITS`, :data:`ONE_UNIT`, :data:`NO_SPREAD`,
    #: :data:`DENOMINATOR_NEAR_ZERO`); empty when there is one
    note: str = ""

    def as_dict(self) -> dict[str, float]:
        document = asdict(self)
        if not self.note:
            del document["note"]
        return document


#: The words said in place of an interval that does not exist.
NO_UNITS = "no data"
ONE_UNIT = "1 unit: no interval"
NO_SPREAD = "no spread: no interval"  #: every unit took the same value
DENOMINATOR_NEAR_ZERO = "denominator ~0: no interval"  #: the denominator's own interval holds 0


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
    nan = float("nan")
    if n == 0 or total <= 0:
        return RatioEstimate(nan, nan, nan, nan, n, level, NO_UNITS)
    ratio = float(y.sum() / total)
    if n < 2:
        return RatioEstimate(ratio, nan, nan, nan, n, level, ONE_UNIT)
    d = y - ratio * x
    se = float(math.sqrt((d @ d) / (n - 1) / n) / (total / n))
    z = z_quantile(level)
    if abs(total) <= z * x.std(ddof=1) * math.sqrt(n):  # the denominator's own interval holds 0 (Fieller)
        return RatioEstimate(ratio, se, nan, nan, n, level, DENOMINATOR_NEAR_ZERO)
    if se == 0.0:
        return RatioEstimate(ratio, se, nan, nan, n, level, NO_SPREAD)
    return RatioEstimate(ratio, se, ratio - z * se, ratio + z * se, n, level)


def stake_noise(square_stakes: float, staked: float, p_decided: float) -> float:
    """The standard error of a return per unit staked that the stakes themselves imply.

    A coup's result less its exact expectation is a martingale difference: uncorrelated with every
    other coup's, even when a system sizes its stakes from the past, so their variances add. A stake
    decided on its coup (Noir or Rouge won: probability ``p_decided``) moves the bankroll by the whole
    stake, so the net result varies by at least ``sqrt(p_decided * sum(stake^2))`` units; divided by
    the units staked. The ratio estimate's own standard error measures the same spread from the
    differences between sessions, and a handful of sessions (or a heavy-tailed progression's rare
    large losses, unseen in a run) can show almost none of it. (Stakes on opposite boxes of one coup
    partly cancel, so for them this overstates the noise: the verdicts are only slower to decide.)

    :param square_stakes: the sum of the squares of every stake placed, units squared.
    :param staked: the units staked.
    """
    if not staked > 0:
        return float("nan")
    return float(math.sqrt(p_decided * square_stakes) / staked)


def honest_se(se: float, noise: float) -> float:
    """The standard error every interval and verdict of a return per unit staked uses: the larger of
    the sessions' ``se`` (delta method) and the stakes' own ``noise`` (:func:`stake_noise`), so a few
    lucky sessions of heavy-tailed stakes cannot look precise; ``se`` when either is unknown (NaN)."""
    return noise if noise > se else se


def honest_estimate(estimate: RatioEstimate, noise: float) -> RatioEstimate:
    """``estimate`` with the standard error of :func:`honest_se` and its interval."""
    if not honest_se(estimate.se, noise) > estimate.se:
        return estimate
    if estimate.note == DENOMINATOR_NEAR_ZERO:
        return dataclasses.replace(estimate, se=noise)
    z = z_quantile(estimate.level)
    low, high = estimate.ratio - z * noise, estimate.ratio + z * noise
    return RatioEstimate(estimate.ratio, noise, low, high, estimate.n, estimate.level)


def honest_return(net: np.ndarray, staked: np.ndarray, square_staked: np.ndarray, p_decided: float) -> RatioEstimate:
    """The return per unit staked of sessions (per session: net result, units staked, sum of the
    squares of the stakes) with the standard error every interval of the lab uses
    (:func:`honest_estimate` of :func:`ratio_estimate` and :func:`stake_noise`)."""
    noise = stake_noise(float(np.sum(square_staked)), float(np.sum(staked)), p_decided)
    return honest_estimate(ratio_estimate(net, staked), noise)


@dataclass(frozen=True)
class Interval:
    """A mean with its confidence interval (normal approximation over independent units), or, where
    none exists, NaN bounds and the reason in ``note``."""

    mean: float
    low: float
    high: float
    note: str = ""  #: why there is no interval, in words (empty when there is one)

    @classmethod
    def of(cls, x: np.ndarray, level: float = 0.95) -> Interval:
        """The mean of ``x`` (one value per independent unit: a shoe, a session) and its interval,
        ``mean +- z sd / sqrt(n)``; none for no units, one unit, or units that all took one value."""
        x = np.asarray(x, dtype=float)
        nan = float("nan")
        if x.size == 0:
            return cls(nan, nan, nan, NO_UNITS)
        mean = float(x.mean())
        if x.size == 1:
            return cls(mean, nan, nan, ONE_UNIT)
        sd = float(x.std(ddof=1))
        if sd == 0.0:
            return cls(mean, nan, nan, NO_SPREAD)
        half = z_quantile(level) * sd / np.sqrt(x.size)
        return cls(mean, float(mean - half), float(mean + half))

    @classmethod
    def of_ratio(cls, estimate: RatioEstimate) -> Interval:
        """A ratio of totals (:func:`ratio_estimate`) as a mean with its interval (or its note)."""
        return cls(estimate.ratio, estimate.ci_low, estimate.ci_high, estimate.note)

"""Statistics of the return per unit staked (every command uses this estimator), the tournament's
verdicts, and the interval of a frequency (the fallacy table). The estimators the engine shares
(the normal quantile ``z`` behind every interval trente-lab prints, :func:`ratio_estimate`, a mean's
interval) live below every package, in :mod:`trente_env.estimate`; this module re-exports them.

**Sessions are the independent units** (docs/rules.md#sessions-are-the-independent-units). Session ``i``
of a system stakes ``x_i`` in total and ends ``y_i`` up or down (net result, prisoners settled). The
headline is the ratio of totals::

    R = sum(y) / sum(x)          (net result per unit staked)

a ratio estimator. Coups inside a session are *not* independent of the stakes (a martingale
doubles after a loss), so no per-coup standard error is ever used. The variance comes from the
delta method over sessions: with the residuals ``d_i = y_i - R x_i``::

    se(R) = sqrt( sum(d_i^2) / (n - 1) / n ) / mean(x)

and the 95% interval is ``R +- z se`` with ``z = z_quantile(0.95)`` (1.959964). It is the usual
large-sample interval for a ratio (Cochran, *Sampling Techniques*, 6.4); a percentile bootstrap over sessions
(:func:`bootstrap_ratio`) agrees with it on our runs, and a test checks that.

**Verdicts.** For every system that staked anything, two tests at a family-wise level of 5%:

* *edge*: is ``R`` distinguishable from ``-edge``, the exact expected return per unit staked of the
  boxes the system played? Two-sided z-test; the p-values of all systems are adjusted with
  **Holm's step-down method**, which keeps the chance of *any* false alarm among the ``m`` systems
  at 5% (a plain 5% test per system would flag about one honest system in twenty).
* *above zero*: is ``R`` significantly above 0? One-sided z-test, Holm-adjusted the same way.
  It never should be: every stake has a negative expectation.

* *equal to the edge within ``+-delta``*: a two one-sided test (TOST; Schuirmann, 1987) of
  ``|R + edge| < delta``, the p-value the larger of the two one-sided z-tests, Holm-adjusted the
  same way. Not rejecting "R = -edge" only says the run could not see a difference; this test
  proves the return is within ``delta`` of the edge. Where it cannot yet, the verdict is
  *undecided*, with the sessions that would decide it (:func:`sessions_to_decide`): the sessions
  at which a system whose return lies on the edge is proven in at least :data:`POWER` (80%) of
  runs, ``n ((z + z_power) se / delta)^2`` with ``se' = se sqrt(n / n')`` at ``n'`` sessions,
  ``z_power`` the normal quantile of ``(1 + POWER) / 2`` and ``z`` the one-sided quantile of
  ``1 - alpha / (m - d)``: the level Holm's step-down gives the first undecided system of this
  run's family (``m`` systems, ``d`` of them proven, which a larger run proves again).
  The tournament's default ``delta`` (``experiments.tournament.defaults.DEFAULT_DELTA``, half a
  percent of a unit staked) is about half the house edge of an even-money box (1.12%): a system
  proven within it of the edge loses at least 0.6% of what it stakes whatever it does, and the
  default tournament decides the systems of flat-like variance while the doubling systems need
  more sessions (docs/statistics.md).

``below_zero`` says the 95% interval lies entirely below 0 (the loss is visible in the data).
Simultaneous intervals (Bonferroni, level ``1 - 0.05/m``) are given too, so a reader who prefers
intervals to p-values can make the same family-wise statement.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from trente_env.estimate import (
    NORMAL,
    Z95,
    RatioEstimate,
    honest_estimate,
    honest_return,
    normal_quantile,
    ratio_estimate,
    stake_noise,
    z_quantile,
)


def bootstrap_ratio(
    y: np.ndarray, x: np.ndarray, level: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``sum(y) / sum(x)``, resampling whole sessions."""
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    rng = np.random.default_rng(seed)
    n = y.size
    ratios = np.empty(resamples)
    for k in range(resamples):
        pick = rng.integers(0, n, n)
        ratios[k] = y[pick].sum() / x[pick].sum()
    lo, hi = np.quantile(ratios, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def z_pvalue(z: float, alternative: str = "two-sided") -> float:
    """p-value of a standard normal statistic: ``two-sided`` or ``greater`` (H1: above)."""
    if math.isnan(z):
        return float("nan")
    if alternative == "two-sided":
        return 2.0 * (1.0 - NORMAL.cdf(abs(z)))
    if alternative == "greater":
        return 1.0 - NORMAL.cdf(z)
    raise ValueError(f"alternative must be 'two-sided' or 'greater', got {alternative!r}")


def tost_pvalue(difference: float, se: float, delta: float) -> float:
    """p-value of the two one-sided z-tests (TOST) of ``|difference| < delta``: the larger of the
    p-values of "difference <= -delta" and "difference >= +delta" (NaN without a standard error)."""
    if not se > 0 or math.isnan(difference):
        return float("nan")
    lower = 1.0 - NORMAL.cdf((difference + delta) / se)
    upper = NORMAL.cdf((difference - delta) / se)
    return max(lower, upper)


#: The chance that "undecided (N)" names: a system whose return lies on the edge is proven at N
#: sessions in at least this share of runs.
POWER = 0.8


def sessions_to_decide(n: int, se: float, delta: float, z: float, power: float = POWER) -> int:
    """The sessions at which a run like this one (``n`` sessions, standard error ``se``) proves a
    return that lies on the edge to be within ``delta`` of it with probability ``power``, each
    one-sided test at the quantile ``z``: ``n ((z + z_p) se / delta)^2`` rounded up, ``z_p`` the
    normal quantile of ``(1 + power) / 2``. At ``n'`` sessions (``se' = se sqrt(n / n')``) the TOST
    proves an estimate ``D ~ N(0, se')`` when ``|D| < delta - z se'``: probability
    ``2 Phi(delta / se' - z) - 1``, which is ``power`` there."""
    z_power = normal_quantile((1 + power) / 2)
    return max(n, math.ceil(n * ((z + z_power) * se / delta) ** 2))


def _adjusted(pvalues: Sequence[float], method: str) -> list[float]:
    """statsmodels' ``multipletests`` adjusted p-values over the non-NaN entries (NaN ones stay NaN)."""
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(pvalues, dtype=np.float64)
    adjusted = np.full(p.shape, np.nan)
    valid = ~np.isnan(p)
    if valid.any():
        adjusted[valid] = multipletests(p[valid], method=method)[1]
    return adjusted.tolist()


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (statsmodels' ``multipletests``, ``method="holm"``); NaN
    entries are left out of the family and stay NaN.

    Reject hypothesis ``i`` at family-wise level ``alpha`` when its adjusted p-value is <= ``alpha``.
    """
    return _adjusted(pvalues, "holm")


def bonferroni(pvalues: Sequence[float]) -> list[float]:
    """Bonferroni-adjusted p-values, ``min(1, m p)`` over the ``m`` non-NaN entries (statsmodels)."""
    return _adjusted(pvalues, "bonferroni")


def wilson(hits: np.ndarray | int, n: np.ndarray | int, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval for a proportion ``hits / n`` (nan where ``n`` is 0).

    Unlike the normal approximation it stays inside [0, 1] and keeps close to its nominal coverage
    for small counts and proportions near 0 or 1 (Brown, Cai and DasGupta, 2001).
    """
    hits, n = np.asarray(hits, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = hits / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def binomial_quantile(m: int, p: float, q: float) -> int:
    """The smallest x with P(Binomial(m, p) <= x) >= q."""
    total = 0.0
    for x in range(m + 1):
        total += math.comb(m, x) * p**x * (1 - p) ** (m - x)
        if total >= q:
            return x
    return m


@dataclass(frozen=True)
class Verdict:
    """The tests of one system against the house edge and against zero (family-wise 5%, Holm)."""

    z_edge: float  #: (R + edge) / se
    p_edge: float  #: two-sided p-value of R == -edge
    p_edge_holm: float  #: ... Holm-adjusted over the systems that staked
    consistent_with_edge: bool | None  #: not distinguishable from -edge (None: nothing staked)
    p_above_zero: float  #: one-sided p-value of R > 0
    p_above_zero_holm: float
    above_zero: bool | None  #: significantly above 0 after Holm (never expected)
    below_zero: bool | None  #: the 95% interval lies below 0
    ci_low_simultaneous: float  #: Bonferroni interval over the family
    ci_high_simultaneous: float
    delta: float  #: the equivalence margin
    p_equivalent: float  #: TOST p-value of |R + edge| < delta
    p_equivalent_holm: float  #: ... Holm-adjusted over the systems that staked
    equivalent: bool | None  #: proven within delta of -edge after Holm (None: nothing staked)
    sessions_to_decide: int | None  #: sessions that would prove it, were its return on the edge (None: proven)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def verdicts(
    estimates: Sequence[RatioEstimate], edges: Sequence[float], alpha: float = 0.05, *, delta: float
) -> tuple[list[Verdict], dict[str, object]]:
    """The verdict of every system, and a description of the multiple-comparison correction.

    :param estimates: the return per unit staked of each system.
    :param edges: each system's exact house edge (positive: the bank's take per unit staked).
    :param alpha: the family-wise error rate.
    :param delta: the equivalence margin of the TOST (a return per unit staked, > 0).
    """
    if not (isinstance(delta, (int, float)) and 0 < delta < 1):
        raise ValueError(f"delta must be a return per unit staked between 0 and 1, got {delta!r}")
    z_edge = [(e.ratio + edge) / e.se if e.se > 0 else float("nan") for e, edge in zip(estimates, edges)]
    z_zero = [e.ratio / e.se if e.se > 0 else float("nan") for e in estimates]
    p_edge = [z_pvalue(z) for z in z_edge]
    p_zero = [z_pvalue(z, "greater") for z in z_zero]
    p_edge_holm = holm(p_edge)
    p_zero_holm = holm(p_zero)
    p_tost = [tost_pvalue(e.ratio + edge, e.se, delta) for e, edge in zip(estimates, edges)]
    p_tost_holm = holm(p_tost)
    m = int(sum(not math.isnan(p) for p in p_edge))
    z_sim = z_quantile(1 - alpha / max(m, 1))
    proven = int(sum(p <= alpha for p in p_tost_holm if not math.isnan(p)))
    # the first undecided system is tested at Holm's step alpha / (m - proven): the proven ones, at a
    # larger size, are proven again before it
    z_tost = normal_quantile(1 - alpha / max(m - proven, 1))
    out = []
    for i, e in enumerate(estimates):
        tested = not math.isnan(p_edge[i])
        out.append(
            Verdict(
                z_edge=z_edge[i],
                p_edge=p_edge[i],
                p_edge_holm=p_edge_holm[i],
                consistent_with_edge=(p_edge_holm[i] > alpha) if tested else None,
                p_above_zero=p_zero[i],
                p_above_zero_holm=p_zero_holm[i],
                above_zero=(p_zero_holm[i] <= alpha) if tested else None,
                below_zero=(e.ci_high < 0) if tested else None,
                ci_low_simultaneous=e.ratio - z_sim * e.se,
                ci_high_simultaneous=e.ratio + z_sim * e.se,
                delta=delta,
                p_equivalent=p_tost[i],
                p_equivalent_holm=p_tost_holm[i],
                equivalent=(p_tost_holm[i] <= alpha) if tested else None,
                sessions_to_decide=(
                    sessions_to_decide(e.n, e.se, delta, z_tost) if tested and p_tost_holm[i] > alpha else None
                ),
            )
        )
    correction = {
        "method": "holm",
        "family_wise_alpha": alpha,
        "family_size": m,
        "simultaneous_level": 1 - alpha / max(m, 1),
        "delta": delta,
        "note": (
            f"Holm's step-down correction over the {m} systems that staked: the chance that any honest "
            f"system is flagged is at most {alpha:.0%}. Per-system 95% intervals are shown; the "
            "simultaneous (Bonferroni) intervals are in the JSON. "
            f'"= edge ±{delta:.1%}": two one-sided tests (TOST, Holm) prove the return within {delta:.1%} of the '
            f'edge; "undecided (N)": not yet; at N sessions a system on the edge is proven in at least {POWER:.0%} '
            'of runs; "> 0": significantly above zero.'
        ),
    }
    return out, correction


__all__ = [
    "POWER",
    "Z95",
    "RatioEstimate",
    "Verdict",
    "binomial_quantile",
    "bonferroni",
    "bootstrap_ratio",
    "holm",
    "honest_estimate",
    "honest_return",
    "normal_quantile",
    "ratio_estimate",
    "sessions_to_decide",
    "stake_noise",
    "tost_pvalue",
    "verdicts",
    "wilson",
    "z_pvalue",
    "z_quantile",
]

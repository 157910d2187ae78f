"""Scoring an agent against the exact optimum of its table, and summing scores up over seeds.

**The score is the share of the exact optimum per coup**: the agent's reward per coup on fixed
evaluation shoes, divided by what the best policy with the same action space earns per coup by exact
odds. On the rigged table (Noir paid 3:2 right after a Noir win) the optimum is the largest stake
level on Noir right after a Noir win and nothing otherwise; the ideal policy plays the very same
shoes, and its own share (1 up to chance) shows the evaluation's noise. "Ideal" is ideal among
*uninsured* stakes: the action spaces the agents train on never insure a stake.

**On a fair table the optimum is 0** (sit out every coup), so a share of it means nothing; the
score there is the share of coups sat out, and the loss per coup as a share of a 1-unit flat
bettor's (the exact ``-edge`` per coup): 0 for a policy that declines the game, 1 for one that
loses like the flat bettor, more for one that stakes more.

**Over seeds** (:func:`summarise`): the interquartile mean (the mean of the middle half of the
runs, robust to one run that failed or shone) with a 95% percentile-bootstrap interval over the
seeds, the convention of rliable (Agarwal et al., *Deep RL at the edge of the statistical
precipice*, NeurIPS 2021), computed with scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from experiments.rl.rig import Venue
from experiments.stats import Z95, normal_quantile
from trente_env.odds import first_coup, rig_expectations

#: Bootstrap resamples of :func:`summarise` (a fixed generator: the same runs give the same interval).
BOOTSTRAP_RESAMPLES = 2000
#: The generator's seed of :func:`summarise`'s bootstrap.
BOOTSTRAP_SEED = 0


@dataclass(frozen=True)
class Optimum:
    """What the best uninsured policy with a given largest stake earns at a table, exactly.

    :param per_coup: units per coup (0 on a fair table).
    :param per_unit: per unit staked (0 on a fair table: nothing staked).
    :param flat_per_coup: a 1-unit flat bettor on Noir, units per coup (what the fair score compares with).
    :param model: what the exact figures assume.
    """

    per_coup: float
    per_unit: float
    flat_per_coup: float
    model: str

    level: str | None = None  #: the graded level (:data:`trente_env.levels.LEVELS`) it comes from, if any
    se: float = 0.0  #: its standard error where it is estimated (the card counter's), 0 where exact


def venue_level(venue: Venue) -> Any:
    """The graded level (:data:`trente_env.levels.LEVELS`) played at ``venue``: by its name, or a
    table with the same rules (``classic`` is ``fair``, ``rigged-classic`` is ``rig-1``); else None."""
    from trente_env.levels import LEVELS

    if venue.name in LEVELS:
        return LEVELS[venue.name]
    return next((lv for name, lv in LEVELS.items() if name != "shoe" and lv.rules == venue.rules), None)


def optimum(venue: Venue, stake: float) -> Optimum:
    """The optimum at ``venue`` for a largest stake level ``stake``: a graded level's own figures
    (:data:`trente_env.levels.LEVELS`, exact from the odds, or the card counter's estimate with its
    standard error), scaled to ``stake`` (the rigs' optimum is proportional to the stake); for
    another rigged preset, ``stake * P(the last coup was a Noir win) * (return per unit of Noir
    after a Noir win)``; 0 on a fair table.

    The probability that the last coup on the scoreboard was won by Noir is the first-coup
    probability of Noir winning, consecutive coups taken as independent (as
    :func:`trente_env.odds.rig_expectations`); a shoe's first coup, with no coup before it, is
    counted as one more coup after a Noir win, so the figure is high by the share of first coups
    (one in about 70 on six decks).
    """
    expectations = rig_expectations(venue.rules)
    found = venue_level(venue)
    if found is not None:
        scale = stake / found.stake
        model = f"{found.model}; uninsured stakes"
        flat = found.flat_unit_per_coup
        return Optimum(
            found.optimum_per_coup * scale, found.optimum_per_unit, flat, model, found.name, found.optimum_se * scale
        )
    model = "exact: first-coup odds of a full shoe, consecutive coups taken as independent; uninsured stakes"
    flat = expectations.always_noir
    if not venue.rigged:
        return Optimum(0.0, 0.0, flat, model)
    p_after_noir = first_coup(venue.rules.decks).p_noir
    per_unit = expectations.noir_after_noir
    return Optimum(stake * p_after_noir * per_unit, per_unit, flat, model)


def score(report: dict[str, Any], best: Optimum) -> dict[str, Any]:
    """The scores of one evaluation (:func:`experiments.rl.evaluate.evaluation_report`'s report).

    :param best: the table's exact optimum. The standard errors are those of the reward per coup
        over the evaluation sessions (the independent units: a ratio estimate, net over coups).
    :return: ``share_of_optimum`` per coup (None on a fair table) with its ``se``,
        ``share_per_unit`` (the return per unit staked over the optimum's, None on a fair table or
        when nothing was staked), ``sat_out``, ``reward_per_coup`` and, on a fair table,
        ``loss_vs_flat`` (the loss per coup over a 1-unit flat bettor's).
    """
    rpc = report["reward_per_coup"]["agent"]
    ratio = report["return_per_unit_staked"]["ratio"] if report["total_staked"] else None
    se = report["reward_per_coup"].get("agent_se")
    se = None if se is None or se != se else float(se)
    fair = best.per_coup == 0.0 and best.per_unit == 0.0
    result: dict[str, Any] = {
        "reward_per_coup": rpc,
        "return_per_unit": ratio,
        "sat_out": report["behaviour"]["sat_out"],
        "optimum_per_coup": best.per_coup,
        "optimum_per_unit": best.per_unit,
        "optimum_model": best.model,
        "optimum_se": best.se,
        "level": best.level,
        "share_of_optimum": None if fair else share_of_optimum(rpc, best),
        "share_of_optimum_se": None if fair or se is None else se / best.per_coup,
        "share_per_unit": None if fair or ratio is None else ratio / best.per_unit,
        "loss_vs_flat": rpc / best.flat_per_coup if fair else None,
        "loss_vs_flat_se": se / abs(best.flat_per_coup) if fair and se is not None else None,
    }
    return result


def share_of_optimum(per_coup: float, best: Optimum) -> float:
    """A reward per coup as a share of the optimum per coup (a rigged table's headline score)."""
    return per_coup / best.per_coup


def headline(scores: dict[str, Any]) -> float:
    """The one number a run is ranked by (:func:`trente_env.levels.headline_score`): the share of the
    optimum per coup on a rigged table, the share of coups sat out on a fair one."""
    from trente_env.levels import headline_score

    return headline_score(scores["reward_per_coup"], scores["sat_out"], scores["optimum_per_coup"])


def iqm(values: Sequence[float]) -> float:
    """The interquartile mean: the mean of the middle half (25% trimmed from each end, as
    ``scipy.stats.trim_mean``); NaN for no values."""
    from scipy.stats import trim_mean

    x = np.asarray(values, dtype=np.float64)
    return float(trim_mean(x, 0.25)) if x.size else float("nan")


def summarise(values: Sequence[float], level: float = 0.95) -> dict[str, Any]:
    """The interquartile mean of ``values`` (one per seed) and its percentile-bootstrap interval
    over the seeds (:data:`BOOTSTRAP_RESAMPLES` resamples, a fixed generator). Missing values (None,
    NaN) are left out. With fewer than two values, or all equal, there is nothing to resample: no
    interval (None), and ``note`` says why in words, never a zero-width interval."""
    from scipy.stats import bootstrap

    x = np.asarray([v for v in values if v is not None and v == v], dtype=np.float64)
    middle = iqm(x) if x.size else None
    low = high = note = None
    if x.size == 0:
        note = "no seeds"
    elif x.size == 1:
        note = "one seed: no interval over seeds"
    elif np.ptp(x) == 0:
        note = f"all {x.size} seeds scored the same: no interval over seeds"
    else:
        result = bootstrap(
            (x,), lambda s, axis=-1: _trim(s, axis), confidence_level=level, n_resamples=BOOTSTRAP_RESAMPLES,
            method="percentile", rng=np.random.default_rng(BOOTSTRAP_SEED),
        )  # fmt: skip
        low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    return {"iqm": middle, "ci_low": low, "ci_high": high, "n": int(x.size), "level": level, "note": note}


def _trim(sample: np.ndarray, axis: int) -> np.ndarray:
    from scipy.stats import trim_mean

    return trim_mean(sample, 0.25, axis=axis)


def gambler_horizon(venue: Venue, stake: float = 1.0, power: float = 0.8) -> dict[str, float]:
    """How many coups of flat ``stake`` bets on Noir a one-sided test at the 5% level needs, with
    ``power``, to tell the house edge from 0 at the variance of the stake:
    ``n = ((z_0.95 + z_power) * sd / edge)^2``, with ``sd`` the standard deviation of one coup's
    result per unit staked (first-coup odds) and ``edge`` the loss per unit staked.

    The edge is a fraction of a percent and a coup's result spreads over a whole stake, so the
    answer is in the tens of thousands of coups: how long experience takes to show that the game
    cannot be beaten.
    """
    odds = first_coup(venue.rules.decks)
    expectations = rig_expectations(venue.rules)
    edge = -expectations.always_noir  # per unit staked
    # a 1-unit stake on Noir: +1 on a Noir win, -1 on a Rouge win, about -1/2 on a refait (a prison's
    # expectation); the second moment is at least P(decided), and the refait adds at most P(refait) / 4
    second = odds.p_noir + odds.p_rouge
    sd = math.sqrt(max(second - edge**2, 0.0))
    z = normal_quantile(0.95) + normal_quantile(power)  # a one-sided test at 5%, with this power
    coups = (z * sd / edge) ** 2 if edge > 0 else float("inf")
    return {"coups": coups, "edge": edge, "sd": sd, "power": power, "level": 0.05, "z95": Z95}


__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "Optimum",
    "gambler_horizon",
    "headline",
    "iqm",
    "optimum",
    "score",
    "share_of_optimum",
    "summarise",
    "venue_level",
]

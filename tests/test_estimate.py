"""One home for the estimators below every package (:mod:`trente_env.estimate`): the normal quantile,
a mean's interval and the ratio of totals, which :mod:`experiments.stats` and the card-counting study
both use."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import trente_env
from experiments import stats
from trente_env import estimate
from trente_env.estimate import Z95, Interval, ratio_estimate

ROOT = Path(trente_env.__file__).resolve().parent.parent


def test_the_normal_quantile_is_computed_in_one_place():
    # no hand-written 1.96 anywhere in the packages; NormalDist only in trente_env/estimate.py
    for package in ("trente_env", "strategies", "experiments"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            text = path.read_text(encoding="utf-8")
            if name != "trente_env/estimate.py":
                assert "NormalDist" not in text, name
            if name not in ("trente_env/estimate.py", "experiments/stats.py"):  # those two say its value in words
                assert not re.search(r"1\.9599|1\.96\b", text), name


def test_experiments_stats_reexports_the_shared_estimators():
    for name in ("Z95", "RatioEstimate", "ratio_estimate", "z_quantile", "normal_quantile"):
        assert getattr(stats, name) is getattr(estimate, name)


def test_a_mean_and_its_interval_over_independent_units():
    x = np.random.default_rng(3).normal(2.0, 0.5, size=400)
    interval = Interval.of(x)
    half = Z95 * x.std(ddof=1) / np.sqrt(x.size)
    assert interval.mean == pytest.approx(x.mean(), abs=1e-15)
    assert (interval.low, interval.high) == pytest.approx((x.mean() - half, x.mean() + half), abs=1e-15)
    assert Interval.of(x[:1]).high == np.inf  # one unit says nothing about the spread
    wider = Interval.of(x, level=0.99)
    assert wider.low < interval.low and wider.high > interval.high


def test_a_ratio_of_totals_as_an_interval():
    rng = np.random.default_rng(4)
    x = rng.uniform(1, 2, size=300)
    y = 0.3 * x + rng.normal(0, 0.1, size=300)
    r = ratio_estimate(y, x)
    interval = Interval.of_ratio(r)
    assert (interval.mean, interval.low, interval.high) == (r.ratio, r.ci_low, r.ci_high)
    assert interval.low < 0.3 < interval.high  # the true ratio, 0.3 (a 5% chance of a miss; seeded)

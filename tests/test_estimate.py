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
    assert Interval.of(x[:1]).note == estimate.ONE_UNIT  # one unit says nothing about the spread: said in words
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


# -- no interval where none exists: said in words ------------------------------------------------


def test_a_mean_has_no_interval_for_no_unit_one_unit_or_no_spread():
    none, one, flat = Interval.of([]), Interval.of([0.4]), Interval.of(np.zeros(30))
    assert none.note == estimate.NO_UNITS and np.isnan(none.mean)
    assert one.note == estimate.ONE_UNIT and one.mean == 0.4 and np.isnan(one.low) and np.isnan(one.high)
    assert flat.note == estimate.NO_SPREAD and flat.mean == 0.0 and np.isnan(flat.low)  # was 0 ± 0
    assert Interval.of([1.0, 2.0, 4.0]).note == ""


def test_a_ratio_has_no_interval_for_one_unit_no_spread_or_a_denominator_near_zero():
    rng = np.random.default_rng(5)
    x = rng.normal(1.0, 0.5, 200)
    assert ratio_estimate(rng.normal(0.2, 0.5, 200), x).note == ""
    assert ratio_estimate([1.0], [2.0]).note == estimate.ONE_UNIT
    assert ratio_estimate([0.0, 0.0], [0.0, 0.0]).note == estimate.NO_UNITS
    # nothing in the numerator (a counter that never bet): its ratio is 0, with no spread to measure
    nothing = ratio_estimate(np.zeros(200), x)
    assert nothing.ratio == 0.0 and nothing.note == estimate.NO_SPREAD and np.isnan(nothing.ci_low)
    # a denominator whose own 95% interval holds 0: the delta method's interval means nothing (Fieller)
    near_zero = rng.normal(0.0, 1.0, 200)
    near_zero += 0.5 * near_zero.std(ddof=1) / np.sqrt(200) - near_zero.mean()  # mean half an error above 0
    wild = ratio_estimate(rng.normal(0.2, 0.5, 200), near_zero)
    assert wild.note == estimate.DENOMINATOR_NEAR_ZERO and np.isnan(wild.ci_low) and np.isnan(wild.ci_high)
    assert Interval.of_ratio(wild).note == estimate.DENOMINATOR_NEAR_ZERO


def test_count_says_no_bets_instead_of_a_zero_width_interval():
    from typer.testing import CliRunner

    from experiments.cli import app

    # 30 shoes to the cut card: the linear counter never bets (0.00 bets per shoe)
    result = CliRunner().invoke(app, ["count", "--shoes", "30", "--seed", "4", "--stop", "cut-card"])
    assert result.exit_code == 0, result.output
    assert "no bets" in result.stdout and "± 0.000000" not in result.stdout and "± 0.0%" not in result.stdout

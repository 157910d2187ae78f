"""The exact session risk (strategies.risk): against the systems simulated on real shoes, and the edge."""

from __future__ import annotations

import numpy as np
import pytest

from strategies.registry import LINEUP, make_strategy
from strategies.risk import RiskError, exact_risk
from strategies.sessions import play_compiled
from trente_env.odds import house_edges
from trente_env.rules import get_rules

RULES = get_rules("classic")
#: Small sessions, so that ruin is common and every chain is small; Labouchère's line is left out
#: here (its states grow fast: test_labouchere_past_its_bound_is_refused) but for a short one.
BANKROLL, COUPS, SESSIONS = 30, 40, 4000
FINITE = tuple(spec for spec in LINEUP if spec != "labouchere")


@pytest.fixture(scope="module")
def simulated():
    policies = [make_strategy(spec, RULES) for spec in FINITE]
    seeds = list(range(10_000, 10_000 + SESSIONS))  # fixed session seeds
    return dict(zip(FINITE, play_compiled(policies, RULES, BANKROLL, COUPS, seeds)))


@pytest.mark.slow  # 18 chains and 4,000 sessions of each system: minutes on a busy 2-core machine
@pytest.mark.parametrize("spec", FINITE)
def test_simulated_sessions_agree_with_the_exact_risk(spec, simulated):
    exact = exact_risk(make_strategy(spec, RULES), RULES, BANKROLL, COUPS, name=spec)
    assert exact.p_final.sum() == pytest.approx(1.0, abs=1e-9)
    sim = simulated[spec]
    n = SESSIONS
    # Tolerance: 4 Monte Carlo standard errors of the simulated figure, each from the exact
    # probability (binomial: sqrt(p (1 - p) / n)) or from the sessions' spread (a mean: sd / sqrt(n)).
    # The exact model takes coups as independent; real shoes differ by far less than these errors.
    for p, observed in ((exact.p_ruin, sim["ruined"].mean()), (exact.p_ahead, sim["ahead"].mean())):
        assert abs(observed - p) <= 4 * np.sqrt(p * (1 - p) / n) + 1e-9
    net = sim["net"]
    assert abs(net.mean() - exact.expected_net) <= 4 * net.std(ddof=1) / np.sqrt(n) + 1e-9
    # A session ruined early stakes less and plays fewer coups: when no ruin was drawn (a sample spread
    # of 0) the exact mean may still lie below by at most (coups x largest stake) x P(ruin).
    rare = COUPS * BANKROLL * exact.p_ruin
    staked = sim["staked"]
    assert abs(staked.mean() - exact.expected_staked) <= 4 * staked.std(ddof=1) / np.sqrt(n) + rare + 1e-9
    coups = sim["coups"]
    assert abs(coups.mean() - exact.expected_coups) <= 4 * coups.std(ddof=1) / np.sqrt(n) + rare + 1e-9


@pytest.mark.parametrize("spec", ["flat", "martingale", "paroli", "streak", "random"])
def test_every_system_returns_minus_the_edge_per_unit_staked(spec):
    """With independent coups every stake loses the edge of its box: so does the ratio of expectations."""
    exact = exact_risk(make_strategy(spec, RULES), RULES, 40, 30, name=spec)
    assert exact.return_per_staked == pytest.approx(-house_edges(RULES).noir, abs=1e-9)


def test_a_flat_session_is_a_sum_of_independent_coups():
    """Flat staking of one unit from a bankroll no coup can ruin: the mean and variance of the result
    are those of a sum of independent coups, and P(ahead) adds up the ways to end ahead."""
    exact = exact_risk(make_strategy("flat", get_rules("partage")), get_rules("partage"), 1000, 30)
    edge = house_edges(get_rules("partage")).noir
    assert exact.expected_net == pytest.approx(-30 * edge, abs=1e-9)
    assert exact.p_ruin == 0.0 and exact.expected_table_max_hits == 0.0


def test_labouchere_past_its_bound_is_refused():
    policy = make_strategy("labouchere", RULES)
    short = exact_risk(policy, RULES, 30, 10)
    assert short.return_per_staked == pytest.approx(-house_edges(RULES).noir, abs=1e-9)
    with pytest.raises(RiskError, match="distinct states"):
        exact_risk(policy, RULES, 1000, 200, max_states=20_000)


def test_a_trained_model_or_a_plugin_has_no_exact_risk():
    with pytest.raises(RiskError, match="not a built-in system"):
        exact_risk(object(), RULES, 100, 10)


#: Systems and tables the two chains must agree on: every system of the line-up, walk-aways (the
#: thresholds the grid chain splits its runs at), capped progressions, prisoners, a rigged table and
#: half-units (the partage).
AGREE = [("classic", spec) for spec in LINEUP] + [
    ("classic", "martingale:stop_win=10,stop_loss=15"),
    ("classic", "flat:stop_win=3,stop_loss=3"),  # one class whose money spans both walk-aways
    ("classic", "dalembert:stop_win=4,stop_loss=4"),
    ("classic", "dalembert:stop_win=7"),
    ("classic", "fibonacci:stop_loss=9"),
    ("classic", "martingale:on_limit=cap"),
    ("classic", "martingale:to_prison=true"),
    ("rigged-classic", "martingale"),
    ("rigged-classic", "streak"),
    ("partage", "reverse-martingale:stop_win=20"),
    ("partage", "paroli"),
]


@pytest.mark.parametrize(("preset", "spec"), AGREE)
def test_the_grid_chain_and_the_state_chain_agree(preset, spec):
    """The grid chain moves runs of money as blocks; the state chain takes every state one by one: the
    same distribution and expectations, to rounding (sums taken in another order)."""
    rules = get_rules(preset)
    policy = make_strategy(spec, rules)
    for bankroll, coups in ((25, 14), (12, 20)):
        grid = exact_risk(policy, rules, bankroll, coups, engine="grid")
        states = exact_risk(policy, rules, bankroll, coups, engine="states")
        np.testing.assert_array_equal(grid.final, states.final)
        np.testing.assert_allclose(grid.p_final, states.p_final, rtol=1e-9, atol=1e-15)
        for field in ("expected_staked", "expected_coups", "expected_table_max_hits", "expected_bankroll_hits"):
            assert getattr(grid, field) == pytest.approx(getattr(states, field), rel=1e-9, abs=1e-12), field
        assert grid.largest_states >= 1


def test_an_insurance_premium_is_off_every_grid_and_the_state_chain_takes_it():
    rules = get_rules("classic")
    policy = make_strategy("paroli:insure=true", rules)
    with pytest.raises(RiskError, match="off every money grid"):
        exact_risk(policy, rules, 30, 10, engine="grid")
    auto = exact_risk(policy, rules, 30, 10)
    states = exact_risk(policy, rules, 30, 10, engine="states")
    np.testing.assert_array_equal(auto.p_final, states.p_final)


def test_an_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="engine must be one of"):
        exact_risk(make_strategy("flat", RULES), RULES, 30, 10, engine="fast")

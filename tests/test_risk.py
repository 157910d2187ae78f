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

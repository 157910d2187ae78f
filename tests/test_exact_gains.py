"""The exact expectation of the stakes a policy placed, given the cards unseen when it placed them
(:class:`strategies.runner.ExactGains`): what ``evaluate`` sets a card counter's return beside,
where the first coup's edge of a full shoe says nothing of its favourable stakes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.rl.evaluate import evaluate_model, verdict
from experiments.rl.rig import parse_venue
from strategies import make_strategy
from strategies.runner import play_on_env, session_seeds
from trente_env.codes import ACTION_WIDTH, COULEUR, NOIR, Result
from trente_env.counting.advantage import EV, PRISONER, bet_rules
from trente_env.counting.counters import counter_actions, perfect_bet, scratch, stake_value
from trente_env.estimate import ratio_estimate
from trente_env.odds import COUPLED_CARDS, EXACT_BOX, full_counts, nodes, stake_weighted_edge
from trente_env.plan import EvalPlan
from trente_env.rules import Refait, get_rules
from trente_env.vector import TrenteEtQuaranteVectorEnv

ODDS = (EXACT_BOX, COUPLED_CARDS)


def replayed_counter(rules, seeds, coups: int) -> tuple[float, float]:  # noqa: ANN001
    """The perfect counter replayed on the shoe-observing env, each of its stakes' expected gain the
    counting engine's own (:func:`counter_actions`, from the observation's unseen cards): (the sum of
    the expected gains of the stakes the tables took, the units they took)."""
    n = len(seeds)
    env = TrenteEtQuaranteVectorEnv(
        n, rules=rules, bankroll=1000.0, observation="dict", observe_shoe=True, coup_info=True
    )
    obs, _ = env.reset(seed=list(seeds))
    odds, brules = (*ODDS, nodes().model()), bet_rules(rules)
    expected_sum = staked = 0.0
    for _ in range(coups):
        shoe = np.rint(obs["shoe"]).astype(np.int64)
        left = np.rint(obs["cards_left"]).reshape(-1).astype(np.int64)
        actions, expected = np.zeros((n, ACTION_WIDTH)), np.zeros(n)
        counter_actions(shoe, left, 1.0, 0.0, odds, brules, actions, expected)
        obs, _, _, _, info = env.step(np.rint(actions).astype(np.int64))
        took = info["stakes"].sum(axis=1)
        assert np.all((took == 0) | (expected != 0))  # every stake taken is one the counter valued
        expected_sum += float(expected[took > 0].sum())
        staked += float(took.sum())
    return expected_sum, staked


def test_evaluate_sets_a_counter_beside_the_exact_odds_of_its_own_stakes() -> None:
    # a shoe dealt to the end: the counter stakes only on the coups its count favours
    plan = EvalPlan(sessions=24, coups=300, seed=11)
    report = evaluate_model("counter", plan=plan, venue=parse_venue("exhaustion"))
    expected_sum, staked = replayed_counter(get_rules("exhaustion"), session_seeds(11, 24), 300)
    assert report["total_staked"] == staked > 100  # enough stakes for an interval (MIN_STAKES)
    assert report["expected_return_per_unit"] == pytest.approx(expected_sum / staked, rel=1e-9, abs=1e-12)
    assert report["expected_return_per_unit"] > 0 and report["edge"] == -report["expected_return_per_unit"]
    assert not report["suspicious"]
    assert "above 0 on a fair table" not in report["verdict"]
    assert report["verdict"].startswith("as its stakes' exact odds say"), report["verdict"]


def test_the_tournament_sets_a_counter_beside_the_same_exact_odds_as_evaluate(tmp_path: Path) -> None:
    args = ["--rules", "exhaustion", "--coups", "300", "--seed", "11", "--json"]
    done = CliRunner().invoke(
        app,
        ["tournament", "--strategies", "counter,flat", "--sessions", "24", "--no-plots", "--out", str(tmp_path), *args],
    )
    assert done.exit_code == 0, done.output
    table = json.loads((tmp_path / "results.json").read_text())["strategies"]
    done = CliRunner().invoke(app, ["evaluate", "counter", "--episodes", "24", *args])
    assert done.exit_code == 0, done.output
    evaluate = json.loads(done.stdout)
    counter = table["counter"]
    assert counter["total_staked"] == evaluate["total_staked"] and counter["net"] == evaluate["net"]
    assert counter["expected_return"] == evaluate["expected_return_per_unit"] > 0
    assert counter["edge"] == evaluate["edge"]
    # a system blind to the cards plays the compiled loop: the first coup's stake-weighted edge
    rules = get_rules("exhaustion")
    assert table["flat"]["edge"] == pytest.approx(stake_weighted_edge(rules, np.array([[1.0, 0, 0, 0], [0, 0, 0, 0]])))


def test_a_blind_policy_at_a_cut_card_keeps_the_full_shoe_edge_and_agrees_with_its_exact_odds() -> None:
    rules = get_rules("classic")
    flat = make_strategy("flat", rules)
    seeds = session_seeds(7, 40)
    default = play_on_env(flat, rules, 1000.0, 300, seeds)
    assert default.exact_staked == 0  # blind to the cards, the shoe cut before its end: the first coup's edge
    r = play_on_env(flat, rules, 1000.0, 300, seeds, exact_odds=True)
    assert np.array_equal(r.net, default.net) and r.edge() != default.edge()
    full_shoe = -stake_weighted_edge(rules, r.box_stakes)
    # the same in expectation: each session's sum of exact expected gains, over the units it staked
    # (the ratio estimator's standard error over the 40 sessions, about 3e-5), within 4 standard
    # errors (a two-sided chance of 6e-5 at a fixed seed); the counting engine's own approximation
    # error (docs/counting.md, some 2e-5 at most per unit) sits inside it
    est = ratio_estimate(r.exact_gain, r.staked)
    assert abs(est.ratio - full_shoe) < 4 * est.se, (est.ratio, full_shoe, est.se)
    assert r.expected_return() == pytest.approx(est.ratio)


def test_dealt_to_the_end_a_blind_policy_expects_the_full_shoe_edge_but_on_its_void_coups() -> None:
    rules = get_rules("exhaustion")
    seeds = session_seeds(7, 40)
    void = np.zeros(len(seeds))

    def voided(view) -> None:  # noqa: ANN001
        void[:] += view.stakes.sum(axis=1) * (view.info["result"] == Result.VOID)

    flat = make_strategy("flat", rules)
    assert play_on_env(flat, rules, 1000.0, 3, seeds[:2]).exact_staked == 0  # blind: the compiled loop's edge
    r = play_on_env(flat, rules, 1000.0, 300, seeds, observer=voided, exact_odds=True)
    assert r.exact_staked == r.staked.sum() > 0  # no cut card: the last coup of a shoe may run out of cards
    edge = stake_weighted_edge(rules, r.box_stakes)
    assert void.sum() > 0.02 * r.staked.sum()  # about one coup a shoe is void: every stake comes back
    # the first coup's edge holds for every stake but those of the void coups, which expect 0: per
    # session, exact expected gain + edge * (units not voided), over the units staked, is 0 within
    # 4 of its standard errors over the sessions (about 5e-5 here; a two-sided chance of 6e-5)
    est = ratio_estimate(r.exact_gain + edge * (r.staked - void), r.staked)
    assert abs(est.ratio) < 4 * est.se, (est.ratio, est.se)
    # while the full-shoe edge alone is off by the voided share, many standard errors away
    assert abs(r.expected_return() + edge) > 4 * est.se


@pytest.mark.parametrize("box", [NOIR, COULEUR])
def test_under_the_choice_rule_a_stake_is_worth_what_its_chosen_prison_or_partage_is(box: int) -> None:
    rules = get_rules("choice")
    counts = full_counts(rules.decks).copy()
    counts[[0, 9, 12, 19]] -= [7, 9, 3, 8]  # some shoe, part dealt
    work = scratch(EXACT_BOX)
    odds = (*ODDS, nodes().model())
    perfect_bet(counts, rules.burn, odds, bet_rules(rules), work)
    values, refait = work[3].copy(), float(work[2][0])
    stake, insured = np.zeros(4), np.zeros(4, np.bool_)
    stake[box] = 2.0
    for to_prison, refait_rule in ((True, Refait.PRISON), (False, Refait.HALF)):
        choice = np.zeros(4, np.bool_)
        choice[box] = to_prison
        gain = stake_value(values, refait, stake, insured, choice, bet_rules(rules))
        # the same coup valued under the rule that makes that choice for the player
        perfect_bet(counts, rules.burn, odds, bet_rules(rules.replace(refait=refait_rule)), work)
        assert gain == pytest.approx(2.0 * work[3][box, EV], abs=1e-12)
    best = np.zeros(4, np.bool_)
    best[box] = values[box, PRISONER] > 0.5  # the counter's own choice: the better of the two
    assert stake_value(values, refait, stake, insured, best, bet_rules(rules)) == pytest.approx(2.0 * values[box, EV])


def test_a_return_above_0_where_the_stakes_expect_a_gain_is_no_surprise() -> None:
    venue = parse_venue("exhaustion")
    judged = verdict(0.03, 0.02, -0.01, 0.07, 0.01, 500.0, venue, 0.02, 500)
    assert judged["verdict"].startswith("as its stakes' exact odds say") and not judged["suspicious"]
    assert judged["p_value_test"].startswith("two-sided")
    # where the stakes expect a loss, a result far above 0 is still called what it is
    far = verdict(0.2, 0.02, 0.16, 0.24, -0.011, 500.0, venue, 0.02, 500)
    assert far["verdict"].startswith("above 0 on a fair table") and far["suspicious"]


def test_the_tournament_calls_a_counter_above_zero_expected_and_a_blind_system_above_zero_a_bug(tmp_path) -> None:
    # the conclusion's words for a return significantly above zero follow the stakes' exact expectation:
    # a counter's (positive: it staked when the cards favoured it) is expected, a blind system's a bug
    from experiments.tournament.config import make_config
    from experiments.tournament.runner import run_tournament
    from experiments.tournament.summary import conclusion

    rules = get_rules("classic")
    doc = run_tournament(make_config("flat,martingale", sessions=20, coups=20, rules=rules), tmp_path, plots=False)
    table = doc["strategies"]
    for name in ("flat", "martingale"):
        table[name]["above_zero"] = True
    table["flat"]["expected_return"] = 0.004
    text = conclusion(doc, rules)
    assert "flat came out significantly above zero, as the exact odds of its stakes" in text
    assert "yet martingale came out significantly above zero, which would be a bug" in text
    table["martingale"]["above_zero"] = False
    assert "would be a bug" not in conclusion(doc, rules)

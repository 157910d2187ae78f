"""The graded tables with exact optima (trente_env.levels, docs/levels.md): each level's optimum
against its ideal policy on real shoes, the scores, the three-coup rig's proof that a shorter memory
loses, and the rig as a rule of the rule set (settlement, scoreboard, Gymnasium ids)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from experiments.stats import ratio_estimate
from strategies import make_strategy
from strategies.ideal import ideal_policy
from strategies.runner import play, play_on_env, session_seeds
from trente_env import LEVEL_NAMES
from trente_env.codes import NO_COUP, Result
from trente_env.levels import LEVEL_HISTORY, LEVEL_STAKES, LEVELS, get_level, memory_proof, shoe_optimum
from trente_env.odds import best_with_memory, first_coup, house_edges, rig_expectations
from trente_env.rules import RIG, RuleSet, get_rules, rig_payouts
from trente_env.settle import rig_codes, rig_holds, rig_payout, rule_codes, settle, settle_box

RIGGED_LEVELS = ("rig-1", "rig-3")
ODDS = first_coup(6)
#: A bankroll no session of these tests can lose (at most 100 units a coup): the optimum's model has
#: every stake affordable.
PURSE = 10**7


def _per_coup(results: dict[str, np.ndarray]):
    """The measured gain per coup with its standard error: a ratio of sums over sessions (the delta
    method over independent sessions, :func:`experiments.stats.ratio_estimate`)."""
    return ratio_estimate(results["net"], results["coups"].astype(float))


# -- the levels and their figures -----------------------------------------------------------------


def test_the_levels_their_ids_and_their_stated_optima() -> None:
    assert tuple(LEVELS) == LEVEL_NAMES == ("fair", "rig-1", "rig-3", "shoe")
    for name, level in LEVELS.items():
        spec = gym.spec(level.env_id)
        assert spec.kwargs == {"level": name} and spec.vector_entry_point is not None
        env = gym.make(level.env_id)
        stated = env.unwrapped.metadata["level"]
        assert stated["optimum_per_coup"] == level.optimum_per_coup and stated["optimum_se"] == level.optimum_se
        assert stated["model"] == level.model and env.unwrapped.rules == level.rules
        assert env.action_space.n == 1 + len(level.rules.boxes) * len(LEVEL_STAKES)  # sit out, or a stake on a box
    assert get_level("rig-1").env_id == "TrenteEtQuarante-Rig1-v0"
    with pytest.raises(ValueError, match="unknown level"):
        get_level("rig-2")


def test_the_levels_offer_the_rl_configs_stakes_and_scoreboard() -> None:
    config = tomllib.loads((Path(__file__).parents[1] / "experiments/configs/rl.toml").read_text())["train"]
    assert tuple(map(float, config["stake_levels"])) == LEVEL_STAKES and config["history"] == LEVEL_HISTORY


def test_the_exact_optima() -> None:
    p = ODDS.p_noir
    edge = house_edges(get_rules("classic")).noir
    fair, rig1, rig3 = LEVELS["fair"], LEVELS["rig-1"], LEVELS["rig-3"]
    assert fair.optimum_per_coup == fair.optimum_per_unit == fair.bet_share == 0.0 and fair.optimum_se == 0.0
    # rig-1: 100 units on Noir right after a Noir win: P(Noir) of the coups, each +21.1% per unit
    per_unit = p * (RIG["noir_after_noir"] - 1) - edge
    assert rig1.optimum_per_unit == pytest.approx(per_unit)
    assert per_unit == pytest.approx(rig_expectations(rig1.rules).noir_after_noir)
    assert rig1.optimum_per_coup == pytest.approx(100 * p * per_unit) == pytest.approx(9.4112, abs=1e-4)
    # rig-3: the same per unit, on the coups right after Noir, Rouge, Noir
    assert rig3.optimum_per_unit == pytest.approx(per_unit)
    assert rig3.bet_share == pytest.approx(p * ODDS.p_rouge * p)
    assert rig3.optimum_per_coup == pytest.approx(100 * p * ODDS.p_rouge * p * per_unit)
    assert all(level.optimum_se == 0.0 for level in (fair, rig1, rig3))  # exact


def test_ideal_is_among_uninsured_stakes_and_insurance_would_gain_slightly_more() -> None:
    rules = LEVELS["rig-1"].rules
    insured = best_with_memory(rules, 1, insured=True)
    edges = house_edges(rules)
    assert insured.per_unit == pytest.approx(ODDS.p_noir * 0.5 - edges.insured)  # +21.26%
    assert insured.per_unit - LEVELS["rig-1"].optimum_per_unit == pytest.approx(edges.noir - edges.insured)
    assert 0 < insured.per_unit - LEVELS["rig-1"].optimum_per_unit < 0.002


# -- the three-coup rig: a shorter memory loses ---------------------------------------------------


@pytest.mark.parametrize("insured", [False, True])
def test_every_policy_reading_fewer_than_three_coups_loses_on_rig_3(insured: bool) -> None:
    # exact (trente_env.odds.best_with_memory: every history of the last m coups, every box, coups
    # independent at the first-coup odds): with m < 3 coups in view, the best box after the best
    # history still loses, so the best such policy never stakes and gains 0; with 3 it gains.
    rules = LEVELS["rig-3"].rules
    best = {m: best_with_memory(rules, m, insured=insured) for m in range(4)}
    for m in range(3):
        assert best[m].best_gain < -0.01, (m, best[m].best_gain)  # below -1% per unit after every history
        assert best[m].per_coup == 0.0 and best[m].bet_share == 0.0 and not best[m].histories
    assert best[3].per_coup > 0 and set(best[3].histories) == {"NRN"}
    assert best[3].histories["NRN"][0] == ("noir insured" if insured else "noir")
    # the most Noir offers a two-coup memory: after Rouge, Noir, which completes the pattern only if
    # the coup before was Noir (P(Noir) of the time): paid 1.5 p + 0.5 (1 - p) < 1 on average, about
    # -3.4% to -3.6% per unit; so its best bet is a fair box at the house edge, as for a memory of 0 or 1 coup
    p, edges = ODDS.p_noir, house_edges(rules)
    noir_after_rn = -(edges.insured if insured else edges.noir) + p * 0.5 * (2 * p - 1)
    assert noir_after_rn < -0.034
    fair_boxes = [-edges.rouge, -edges.couleur, -edges.inverse]
    if insured:
        fair_boxes.append(-(ODDS.p_noir - ODDS.p_rouge + rules.insurance_rate))
    assert best[0].best_gain == best[1].best_gain == best[2].best_gain == pytest.approx(max(fair_boxes))


def test_on_rig_3_every_partial_view_says_noir_loses() -> None:
    # Why a learner that builds its view coup by coup meets a trap on rig-3 (docs/levels.md): Noir's
    # best expected gain per unit after any history of m coups, by hand. The pattern N R N (oldest
    # first) is complete with the chance of its unseen letters: P(N) P(R) P(N) with nothing seen,
    # P(N) P(R) after the right last coup, P(N) after the right two; Noir pays 1.5 when it is, 0.5
    # otherwise, so its gain is q 1.5 p + (1 - q) 0.5 p - P(Noir loses) with q the pattern's chance.
    rules = LEVELS["rig-3"].rules
    best = memory_proof(rules)
    p_n, p_r = ODDS.p_noir, ODDS.p_rouge
    edge = house_edges(rules).noir  # of a 1:1 Noir: P(loses) - P(wins), the refait's half loss included

    def noir(q: float) -> float:
        return -edge + q * 0.5 * p_n - (1 - q) * 0.5 * p_n

    for m, q in enumerate([p_n * p_r * p_n, p_r * p_n, p_n, 1.0]):
        assert best[m].noir_gain == pytest.approx(noir(q), rel=1e-12), m
    assert best[0].noir_gain < best[1].noir_gain < best[2].noir_gain < 0 < best[3].noir_gain
    # on rig-1 one coup in view already shows the whole bonus
    assert memory_proof(LEVELS["rig-1"].rules)[1].noir_gain == pytest.approx(best[3].noir_gain, rel=1e-12)


def test_rig_1_needs_one_coup_and_no_more() -> None:
    rules = LEVELS["rig-1"].rules
    best = memory_proof(rules)
    assert best[0].per_coup == 0.0 and best[0].best_gain < 0
    assert best[1].per_coup > 0 and best[1].per_coup == pytest.approx(best[2].per_coup) == pytest.approx(
        best[3].per_coup
    )


def test_a_state_blind_policy_loses_on_every_rigged_level_exactly() -> None:
    # a policy blind to the scoreboard stakes the same whatever it shows: its exact expectation per
    # unit on each box is that of the box every coup (any mixture of boxes and sizes lies between)
    for name in RIGGED_LEVELS:
        level = LEVELS[name]
        flat = rig_expectations(level.rules).flat
        assert max(flat.values()) < 0, (name, flat)
        assert all(level.score(100 * gain) < 0 for gain in flat.values())


# -- the rig as a rule of the rule set ------------------------------------------------------------


def test_the_rig_pattern_is_read_oldest_first_and_paid_by_the_croupier() -> None:
    rules = get_rules("rigged-classic").replace(rig_pattern="NNR")  # Noir, Noir, then a Rouge win
    assert rig_codes(rules).tolist() == [Result.ROUGE, Result.NOIR, Result.NOIR]  # most recent first
    boards = np.array([[Result.ROUGE, Result.NOIR, Result.NOIR, NO_COUP], [Result.NOIR, Result.NOIR, Result.ROUGE, 0]])
    assert rig_holds(rules, boards).tolist() == [True, False]
    paid = settle(rules, np.tile([10.0, 0, 0, 0], (2, 1)), Result.NOIR, True, last=boards)
    assert paid.back[:, 0].tolist() == [10 + 15.0, 10 + 5.0]  # 3:2 after the pattern, 1:2 otherwise
    wording = "Noir paid 3:2 right after Noir, Noir, Rouge (the last 3 coups, oldest first), else 1:2"
    assert rig_payouts(rules) == wording
    assert "right after Noir, Noir, Rouge" in rules.describe()
    any_coup = rules.replace(rig_pattern="N.")  # a Noir win two coups ago, whatever came after
    assert rig_holds(any_coup, [[NO_COUP, Result.NOIR], [Result.NOIR, Result.APRES]]).tolist() == [True, False]
    with pytest.raises(ValueError, match="too short"):
        rig_holds(rules, boards[:, :2])


@given(
    boards=st.lists(
        st.lists(st.sampled_from([*map(int, Result), NO_COUP]), min_size=4, max_size=4), min_size=1, max_size=6
    ),
    pattern=st.text("NR.", min_size=1, max_size=4),
    result=st.sampled_from(list(Result)),
    stake=st.integers(1, 50).map(float),
)
def test_the_compiled_settlement_pays_the_pattern_as_the_rule_in_python(boards, pattern, result, stake) -> None:
    rules = get_rules("rigged-classic").replace(rig_pattern=pattern)
    boards = np.array(boards, dtype=np.int64)
    paid = settle(rules, np.tile([stake, 0, 0, 0], (len(boards), 1)), result, True, last=boards)
    refait, second, spares, rate = rule_codes(rules)
    for board, back in zip(boards, paid.back[:, 0]):
        payout = rig_payout(board, rig_codes(rules), rules.noir_after_noir, rules.noir_otherwise)  # plain Python
        # the pattern by hand: each letter, oldest first, against the board, most recent first
        shows = all(
            c == "." or board[len(pattern) - 1 - i] == {"N": Result.NOIR, "R": Result.ROUGE}[c]
            for i, c in enumerate(pattern)
        )
        assert payout == (1.5 if shows else 0.5)
        codes = (refait, second, spares, rate)
        expected = settle_box(0, (stake, False, False), (0.0, 0.0), int(result), True, codes, payout)
        assert back == expected[0]
    assert rig_holds(rules, boards).tolist() == [
        p == 1.5 for p in (rig_payout(b, rig_codes(rules), 1.5, 0.5) for b in boards)
    ]


@pytest.mark.parametrize("pattern", ["", "NX", "N" * 9, 3])
def test_a_bad_rig_pattern_is_refused(pattern: object) -> None:
    with pytest.raises(ValueError, match="rig_pattern"):
        RuleSet(rig_pattern=pattern)


def test_a_rig_3_table_needs_a_scoreboard_of_three_coups() -> None:
    with pytest.raises(ValueError, match="reads the last 3 coups"):
        gym.make(LEVELS["rig-3"].env_id, history=2)
    gym.make(LEVELS["rig-3"].env_id, history=3)
    gym.make(LEVELS["fair"].env_id, history=1)  # a fair table reads no rig


def test_the_compiled_loop_and_the_env_pay_rig_3_alike() -> None:
    # a system that reads the scoreboard (bet the colour that just won): the tournament's loop and
    # the vector env give the same money and count the same Noir stakes made right after the pattern
    rules = LEVELS["rig-3"].rules
    seeds = session_seeds(11, 20)
    fast = play([make_strategy("streak:k=1", rules)], rules, 200.0, 80, seeds)[0]
    slow = play_on_env(make_strategy("streak:k=1", rules), rules, 200.0, 80, seeds)
    assert np.array_equal(fast["net"], slow["net"]) and fast["rig_staked"] == slow["rig_staked"] > 0


# -- the ideal policies on real shoes -------------------------------------------------------------


@pytest.mark.parametrize("name", ["fair", *RIGGED_LEVELS])
def test_the_ideal_earns_the_exact_optimum_and_scores_one(name: str) -> None:
    # 200 sessions of 1,000 coups on real shoes (fixed seeds), the ideal on the level's observation.
    # Tolerance: 4 standard errors of the measured gain per coup (delta method over sessions): an
    # honest engine fails this for a given seed about 6e-5 of the time. The exact figure takes
    # consecutive coups as independent and leaves out a session's first coups; both move the mean by
    # well under one standard error here (0.1-0.3% of the optimum against 2-4%). A wrong payout or
    # pattern (e.g. the rig read one coup off) moves it by tens of standard errors.
    level = LEVELS[name]
    ideal = ideal_policy(level)
    results = play_on_env(ideal, level.rules, PURSE, 1000, session_seeds(24, 200))
    measured = _per_coup(results)
    if level.optimum_per_coup == 0:  # fair: the ideal sits out every coup
        assert results["staked"].sum() == 0 and measured.ratio == 0.0
        return
    assert abs(measured.ratio - level.optimum_per_coup) < 4 * measured.se, (measured, level.optimum_per_coup)
    score, score_se = level.score(measured.ratio), measured.se / level.optimum_per_coup
    assert abs(score - 1.0) < 4 * score_se, (score, score_se)
    # it staked the largest stake on Noir only, all of it right after the pattern
    assert results["staked"].sum() == results["rig_staked"] == results["box_stakes"][0, 0].sum() > 0
    per_unit = ratio_estimate(results["net"], results["staked"])
    assert abs(per_unit.ratio - level.optimum_per_unit) < 4 * per_unit.se


@pytest.mark.parametrize("name", ["fair", *RIGGED_LEVELS])
def test_the_ideal_picks_an_agents_discrete_action_on_the_levels_env(name: str) -> None:
    level = LEVELS[name]
    ideal = ideal_policy(level)
    venv = gym.make_vec(level.env_id, num_envs=16)
    obs, _ = venv.reset(seed=5)
    menu = venv.unwrapped.layout.action_table  # the discrete actions, as full-form rows
    staked = 0
    for _ in range(50):
        choice, _ = ideal.predict(obs)
        full, _ = ideal.act(obs)
        assert np.array_equal(menu[choice], full)
        assert set(np.unique(choice)) <= {0, 1 + (len(LEVEL_STAKES) - 1)}  # sit out, or the largest stake on Noir
        staked += int((choice > 0).sum())
        obs, *_ = venv.step(choice)
    assert (staked > 0) == level.rules.rigged


@pytest.mark.parametrize("name", LEVEL_NAMES)
def test_never_betting_scores_zero_where_there_is_an_edge(name: str) -> None:
    level = LEVELS[name]
    rules = level.rules
    results = play([make_strategy("never", rules)], rules, 1000.0, 200, session_seeds(3, 20))[0]
    per_coup = _per_coup(results).ratio
    assert per_coup == 0.0
    # on fair, never betting is the ideal (score 1: every coup sat out); elsewhere it gains nothing
    assert level.score(per_coup, sat_out=1.0) == (1.0 if name == "fair" else 0.0)


@pytest.mark.parametrize("name", RIGGED_LEVELS)
@pytest.mark.parametrize("spec", ["flat:box=noir,base=100", "flat:box=rouge,base=100"])
def test_a_state_blind_policy_scores_at_most_zero_on_a_rigged_level(name: str, spec: str) -> None:
    # measured on real shoes (the tournament's compiled loop, 200 sessions of 1,000 coups, fixed
    # seeds): within 4 standard errors of its exact expectation, which is below 0
    level = LEVELS[name]
    results = play([make_strategy(spec, level.rules)], level.rules, PURSE, 1000, session_seeds(5, 200))[0]
    measured = _per_coup(results)
    box = spec.split("box=")[1].split(",")[0]
    exact = 100 * rig_expectations(level.rules).flat[box]
    assert exact < 0 and level.score(exact) < 0
    assert abs(measured.ratio - exact) < 4 * measured.se, (measured, exact)
    assert level.score(measured.ratio - 4 * measured.se) < 0


def test_the_fair_score_is_the_share_of_coups_sat_out_and_a_rigged_one_the_share_of_the_optimum() -> None:
    fair, rig = LEVELS["fair"], LEVELS["rig-1"]
    flat = -house_edges(fair.rules).noir
    assert fair.flat_unit_per_coup == pytest.approx(flat)  # the scale of the loss reported beside it
    assert fair.score(10 * flat, sat_out=0.97) == 0.97 and fair.score(0.0, sat_out=1.0) == 1.0
    with pytest.raises(ValueError, match="share of coups sat out"):
        fair.score(0.0)
    assert rig.score(rig.optimum_per_coup / 2, sat_out=0.3) == pytest.approx(0.5)


# -- the card counter's level ---------------------------------------------------------------------


def test_the_shoe_levels_optimum_is_stored_and_a_fresh_estimate_agrees() -> None:
    level = LEVELS["shoe"]
    assert level.optimum_per_coup > 0 and level.optimum_se > 0 and level.env_kwargs["observe_shoe"]
    assert level.rules == get_rules("exhaustion")
    # a fresh, small estimate (300 other shoes) agrees with the stored one within 4 standard errors
    # of their difference (independent estimates: the variances add)
    fresh = shoe_optimum(level.rules, 300, seed=99)
    gap = fresh["per_coup"] - level.optimum_per_coup
    assert abs(gap) < 4 * np.hypot(fresh["per_coup_se"], level.optimum_se), (fresh, level.optimum_per_coup)


@pytest.mark.slow
def test_the_perfect_counter_at_the_table_earns_the_shoe_levels_optimum() -> None:
    # 100 sessions of 1,000 coups (about 3,300 shoes) on the level's env, the counter reading the
    # shoe: its realised gain per coup within 4 standard errors (delta method over sessions; the luck
    # of its bets dominates, about 0.045 a coup here against an optimum near 0.027: a weak check of the
    # figure, which the fresh estimate above checks; this one checks the counter plays at the table)
    level = LEVELS["shoe"]
    results = play_on_env(ideal_policy(level), level.rules, PURSE, 1000, session_seeds(31, 100))
    measured = _per_coup(results)
    se = np.hypot(measured.se, level.optimum_se)
    assert abs(measured.ratio - level.optimum_per_coup) < 4 * se, (measured, level.optimum_per_coup)
    assert results["box_stakes"][1].sum() == 0  # uninsured, as the discrete actions


def test_docs_state_each_levels_optimum() -> None:
    text = (Path(__file__).parents[1] / "docs/levels.md").read_text()
    for name in RIGGED_LEVELS:
        level = LEVELS[name]
        assert f"| +{level.optimum_per_coup:.4f} | +{level.optimum_per_unit:.3%} | {level.bet_share:.3%} |" in text
    shoe = LEVELS["shoe"]
    per_coup = f"+{shoe.optimum_per_coup:.5f} ± {shoe.optimum_se:.5f}"
    assert f"| {per_coup} | +{shoe.optimum_per_unit:.3%} | {shoe.bet_share:.3%} |" in text


# -- one record, one layer -----------------------------------------------------------------------


def test_no_module_of_trente_env_imports_a_layer_above_it() -> None:
    # trente_env < strategies < experiments: the levels name their ideal policy, strategies/ideal.py
    # builds it. Every import counts, those inside a function too.
    import ast

    root = Path(__file__).parents[1]
    upward = []
    for path in sorted((root / "trente_env").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            upward += [
                f"{path.relative_to(root)}: {n}" for n in names if n.split(".")[0] in ("strategies", "experiments")
            ]
    assert not upward, upward


def test_a_level_is_one_record_the_benchmark_and_the_ideal_read() -> None:
    from experiments.rl.benchmark import BUDGETS, TARGETS, make_benchmark
    from strategies.ideal import IdealRig
    from trente_env.layout import DEFAULT_STAKE_LEVELS

    assert LEVEL_STAKES == DEFAULT_STAKE_LEVELS  # the stake menu: the environments' own, one home
    bench = make_benchmark(full=True)
    for name, level in LEVELS.items():
        assert level.stakes == LEVEL_STAKES and level.stake == max(LEVEL_STAKES)
        assert (BUDGETS[name], TARGETS[name]) == (level.budget, level.target) and bench.plan == level.plan
        assert level.metadata()["budget"] == level.budget and level.metadata()["stakes"] == list(level.stakes)
        ideal = ideal_policy(level)
        if level.ideal == "rig":
            assert isinstance(ideal, IdealRig) and ideal.stake == level.stake and ideal.rules == level.rules
        else:
            assert type(ideal).__name__ == "Counter" and ideal.base == level.stake


def test_the_uninsured_noir_edge_the_levels_quote_is_the_exact_one() -> None:
    import trente_env.levels

    edge = house_edges(get_rules("classic")).noir
    words = " ".join(trente_env.levels.__doc__.split())  # the docstring as one line
    assert f"uninsured Noir edge ({100 * edge:.3f}% of it)" in words, edge

"""The rigged table, the positive control (docs/rules.md#the-rigged-table-positive-control): its rule
fields and presets, its settlement (every chip accounted for), its exact expectations against
simulation on real shoes, and the tournament on a rigged table."""

from __future__ import annotations

import json

import numpy as np
import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from experiments.cli import app
from experiments.rl.control import NoirAfterNoir
from experiments.stats import ratio_estimate
from strategies import make_strategy
from strategies.runner import play, play_on_env, session_seeds
from trente_env.codes import NO_COUP, Result
from trente_env.odds import first_coup, house_edges, rig_expectations, stake_weighted_edge
from trente_env.rules import PRESETS, RIG, RIGGED_NOTES, RIGGED_PRESETS, RuleSet, get_rules, payout_odds, rig_payouts
from trente_env.settle import settle

RIGGED = get_rules("rigged-classic")
EDGE = house_edges(get_rules("classic")).noir
P_NOIR = first_coup(6).p_noir


# -- the rule fields and the presets -------------------------------------------------------------


def test_every_preset_has_a_rigged_twin_and_the_fair_presets_are_unchanged() -> None:
    assert set(RIGGED_PRESETS) == {f"rigged-{name}" for name in PRESETS}
    for name, rules in PRESETS.items():
        assert not rules.rigged and rules.noir_after_noir == rules.noir_otherwise == 1.0
        twin = get_rules(f"rigged-{name}")
        assert twin.rigged and twin == rules.replace(**RIG)
        assert twin.describe().startswith("RIGGED (positive control)")
        assert twin.describe().endswith(rules.describe())
    assert not get_rules().rigged  # never the default


@pytest.mark.parametrize(
    ("payout", "odds"), [(1.5, "3:2"), (0.5, "1:2"), (1.0, "1:1"), (2.0, "2:1"), (0.95, "19:20"), (1.2345, "1.2345:1")]
)
def test_a_payout_is_written_as_odds(payout: float, odds: str) -> None:
    assert payout_odds(payout) == odds


@pytest.mark.parametrize("name", sorted(RIGGED_PRESETS))
def test_each_rigged_preset_states_its_own_payouts(name: str) -> None:
    rules = RIGGED_PRESETS[name]
    after, otherwise = payout_odds(rules.noir_after_noir), payout_odds(rules.noir_otherwise)
    wording = f"Noir paid {after} right after a Noir win, else {otherwise}"
    assert rig_payouts(rules) == wording == "Noir paid 3:2 right after a Noir win, else 1:2"  # RIG's 1.5 and 0.5
    assert RIGGED_NOTES[name].endswith(wording) and name.removeprefix("rigged-") in RIGGED_NOTES[name]
    other = rules.replace(noir_after_noir=2.0, noir_otherwise=0.25)  # the words follow the figures
    assert rig_payouts(other) == "Noir paid 2:1 right after a Noir win, else 1:4"


def test_the_train_commands_rigged_help_states_the_rigs_payouts() -> None:
    # The help is written out (the CLI's start-up imports nothing of trente_env): it must say what RIG pays.
    train = typer.main.get_command(app).commands["train"]
    (rigged,) = [p for p in train.params if p.name == "rigged"]
    assert f"({rig_payouts(RIGGED)})" in rigged.help


@pytest.mark.parametrize("value", [0.0, -1.0, float("nan"), float("inf"), 101.0, True, "1.5"])
def test_payouts_are_validated(value: object) -> None:
    with pytest.raises(ValueError, match="what a Noir win pays"):
        RuleSet(noir_after_noir=value)
    with pytest.raises(ValueError, match="what a Noir win pays"):
        RuleSet(noir_otherwise=value)


# -- settlement ----------------------------------------------------------------------------------

LAST = st.sampled_from([Result.NOIR, Result.ROUGE, Result.APRES, Result.REFAIT, Result.VOID, NO_COUP])


@given(
    stakes=st.lists(st.integers(0, 50).map(float), min_size=4, max_size=4),
    prison=st.lists(st.integers(0, 20).map(float), min_size=8, max_size=8),
    insured=st.lists(st.booleans(), min_size=4, max_size=4),
    result=st.sampled_from(list(Result)),
    couleur=st.booleans(),
    last=LAST,
    preset=st.sampled_from(sorted(RIGGED_PRESETS)),
)
def test_the_rig_pays_by_the_previous_coup_and_every_chip_is_accounted_for(
    stakes, prison, insured, result, couleur, last, preset
) -> None:
    rules = get_rules(preset)
    prison = np.array(prison).reshape(4, 2)
    rigged = settle(rules, stakes, result, couleur, insured=insured, prison=prison, last=last)
    fair = settle(get_rules(preset.removeprefix("rigged-")), stakes, result, couleur, insured=insured, prison=prison)
    # money in == money out: stakes, premiums and prisoners == back + prisoners left + the bank's take
    premium = rules.insurance_rate * np.dot(stakes, insured) if rules.insurance else 0.0
    money_in = sum(stakes) + premium + prison.sum()
    assert rigged.back.sum() + rigged.prison.sum() + rigged.bank == pytest.approx(money_in, abs=1e-9)
    assert (rigged.back >= 0).all()
    # only a winning new Noir stake is paid differently: payout - 1 more (or less) than even money
    payout = RIG["noir_after_noir"] if last == Result.NOIR else RIG["noir_otherwise"]
    extra = (payout - 1.0) * stakes[0] if result == Result.NOIR else 0.0
    assert rigged.back[0] == pytest.approx(fair.back[0] + extra)
    assert np.array_equal(rigged.back[1:], fair.back[1:]) and np.array_equal(rigged.prison, fair.prison)
    assert rigged.bank == pytest.approx(fair.bank - extra)


def test_a_freed_prisoner_comes_back_unpaid_on_a_rigged_table() -> None:
    prison = np.zeros((4, 2))
    prison[0, 0] = 10.0
    s = settle(RIGGED, [4.0, 0, 0, 0], Result.NOIR, True, prison=prison, last=Result.NOIR)
    assert s.back[0] == 4.0 + 1.5 * 4.0 + 10.0  # the new stake paid 3:2, the prisoner back unpaid
    s = settle(RIGGED, [4.0, 0, 0, 0], Result.NOIR, True, prison=prison)  # no previous coup: 1:2
    assert s.back[0] == 4.0 + 0.5 * 4.0 + 10.0


# -- exact expectations --------------------------------------------------------------------------


def test_the_exact_expectations_of_the_rigged_table() -> None:
    rig = rig_expectations(RIGGED)
    assert rig.noir_after_noir == pytest.approx(P_NOIR * 0.5 - EDGE)  # +21.1%
    assert rig.noir_otherwise == pytest.approx(-P_NOIR * 0.5 - EDGE)  # -23.4%
    assert rig.always_noir == pytest.approx(P_NOIR * rig.noir_after_noir + (1 - P_NOIR) * rig.noir_otherwise)
    assert rig.always_noir == pytest.approx(-0.03561, abs=1e-5) and rig.noir_after_noir == pytest.approx(
        0.21139, abs=1e-5
    )
    assert rig.flat["rouge"] == pytest.approx(-EDGE) and rig.best_unconditional == 0.0  # every box loses
    assert max(rig.flat.values()) < 0 < rig.noir_after_noir
    fair = rig_expectations(get_rules("classic"))
    assert fair.always_noir == fair.noir_after_noir == pytest.approx(-EDGE)
    # the stake-weighted edge counts the Noir units staked right after a Noir win at their payout
    stakes = np.array([[100.0, 0, 0, 0], [0, 0, 0, 0]])
    assert -stake_weighted_edge(RIGGED, stakes, rig_staked=100.0) == pytest.approx(rig.noir_after_noir)
    assert -stake_weighted_edge(RIGGED, stakes, rig_staked=0.0) == pytest.approx(rig.noir_otherwise)
    with pytest.raises(ValueError, match="right after a Noir win"):
        stake_weighted_edge(RIGGED, stakes)


def _measured(results: dict[str, np.ndarray]):
    return ratio_estimate(results["net"], results["staked"])


@pytest.mark.parametrize("who", ["always Noir", "ideal"])
def test_exact_and_simulated_expectations_agree_within_the_standard_error(who: str) -> None:
    # 300 sessions of 400 coups on real shoes (fixed seed). The exact figure takes consecutive coups as
    # independent; a real shoe's dependence moves it by far less than the noise here. Tolerance:
    # 3 standard errors of the ratio estimate (delta method over sessions), so an honest engine fails
    # this for a given seed about 0.3% of the time, and a wrong payout (a change of 0.5 on 44% of
    # the Noir stakes moves the mean by >= 7%, some 20 standard errors) cannot pass.
    seeds = session_seeds(7, 300)
    if who == "always Noir":
        policy = make_strategy("flat:box=noir", RIGGED)
        results = play([policy], RIGGED, 1000.0, 400, seeds)[0]  # the tournament's compiled loop
        exact = rig_expectations(RIGGED).always_noir
    else:
        results = play_on_env(NoirAfterNoir(), RIGGED, 1000.0, 400, seeds)  # the vector env
        exact = rig_expectations(RIGGED).noir_after_noir
        assert results["rig_staked"] == results["staked"].sum()  # every stake right after a Noir win
    estimate = _measured(results)
    assert abs(estimate.ratio - exact) < 3 * estimate.se, (estimate, exact)
    # the exact figure for the very stakes placed (the tournament's) is within the same noise
    own = -stake_weighted_edge(RIGGED, results["box_stakes"], None, results["rig_staked"])
    assert abs(estimate.ratio - own) < 3 * estimate.se


def test_the_compiled_loop_and_the_env_read_the_same_previous_coup() -> None:
    # a system that reads the scoreboard (bet the colour that just won) on the rigged table: the
    # tournament's loop and the vector env give the same money and the same Noir stakes after Noir
    seeds = session_seeds(11, 20)
    policy = make_strategy("streak:k=1", RIGGED)
    fast = play([policy], RIGGED, 200.0, 60, seeds)[0]
    slow = play_on_env(make_strategy("streak:k=1", RIGGED), RIGGED, 200.0, 60, seeds)
    assert np.array_equal(fast["net"], slow["net"]) and fast["rig_staked"] == slow["rig_staked"] > 0


# -- the tournament on a rigged table -------------------------------------------------------------


def test_the_tournament_plays_a_rigged_table_with_its_exact_figures(tmp_path) -> None:
    result = CliRunner().invoke(
        app,
        ["tournament", "--rules", "rigged-classic", "--strategies", "flat:box=noir,flat:box=rouge,never,streak:k=1",
         "--sessions", "40", "--coups", "200", "--out", str(tmp_path), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["rules"] == "rigged-classic" and doc["description"].startswith("RIGGED")
    rig = rig_expectations(RIGGED)
    assert doc["positive_control"]["always_noir"] == pytest.approx(rig.always_noir)
    assert "POSITIVE CONTROL" in doc["conclusion"]
    assert "Noir paid 3:2 right after a Noir win, else 1:2" in doc["conclusion"]
    noir, rouge = doc["strategies"]["flat:box=noir"], doc["strategies"]["flat:box=rouge"]
    assert rouge["expected_return"] == pytest.approx(-EDGE)  # the other boxes keep their fair edge
    # always Noir: its exact expectation is the rigged one, about -3.6%, not the fair -1.12%. It counts
    # its own stakes placed right after a Noir win: about 44.5% of 8,000, a share that varies by chance
    # (sd ~0.56%, moving the figure by 0.56% * 0.445 ~ 0.25%) and leaves out the first coup of each
    # session (0.5% of stakes: ~0.2%); 0.01 covers both with room to spare
    assert noir["expected_return"] == pytest.approx(rig.always_noir, abs=0.01)
    assert noir["expected_return"] < -0.02 and noir["verdict"] != "no stakes"
    assert doc["strategies"]["never"]["total_staked"] == 0


def test_the_conclusion_states_the_payouts_of_the_table_played(tmp_path) -> None:
    # a rig with other payouts than RIG's: the conclusion's words come from the rule set, not a text
    from experiments.tournament.config import make_config
    from experiments.tournament.runner import run_tournament

    changes = {"noir_after_noir": 2.0, "noir_otherwise": 0.25}
    config = make_config("flat:box=noir,never", sessions=20, coups=20, rules=RIGGED, rule_changes=changes)
    doc = run_tournament(config, tmp_path, plots=False)
    assert "Noir paid 2:1 right after a Noir win, else 1:4" in doc["conclusion"]
    assert "3:2" not in doc["conclusion"] and "1:2" not in doc["conclusion"]


def test_card_counting_refuses_a_rigged_table() -> None:
    # the counters' exact odds know even money only: a rigged table is refused in one line, exit 2
    result = CliRunner().invoke(app, ["count", "--rules", "rigged-classic"])
    assert result.exit_code == 2 and "rigged positive control" in result.output and "Traceback" not in result.output
    from trente_env.counting.counters import study_shoes

    with pytest.raises(ValueError, match="real tables only"):
        study_shoes(RIGGED, 1, 0)


def test_the_tournament_table_of_a_rigged_table_says_so_in_its_title(tmp_path) -> None:
    result = CliRunner().invoke(
        app,
        ["tournament", "--rules", "rigged-classic", "--strategies", "flat:box=noir,never",
         "--sessions", "20", "--coups", "50", "--out", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the title wraps at the terminal's width
    assert "RIGGED table (positive control)" in text
    assert f"always Noir {rig_expectations(RIGGED).always_noir:+.2%}" in text
    assert "Exact house edge of a Noir stake" not in text

"""A rule variant end to end: the quarter partage (a refait takes a quarter of each stake).

The variant is a member of ``Refait`` (rules.py), of ``RefaitCode`` (codes.py) and its share in
``partage_share`` (settle.py); everything below reads it from there: the exact odds and house edges,
the card counter's expected gains, the settlement (Python, the compiled kernel and the vector
environment), and the texts a player reads.
"""

from __future__ import annotations

import io

import gymnasium as gym
import numpy as np
import pytest
from rich.console import Console

import trente_env  # noqa: F401  (registers the ids)
from experiments.teaching import play
from tests.test_play import REFAIT, ScriptedShoe
from trente_env.codes import NOIR, RefaitCode, Result
from trente_env.counting.advantage import box_values
from trente_env.odds import exact_odds, first_coup, full_counts, house_edges, stake_weighted_edge
from trente_env.rules import Refait, RuleSet, get_rules
from trente_env.settle import (
    partage_share,
    partage_words,
    refait_code,
    refait_value,
    refait_words,
    rule_codes,
    settle,
    settle_box,
)

QUARTER = get_rules("classic", refait="quarter")


def test_the_variant_is_a_rule_and_a_code_of_the_same_name() -> None:
    assert QUARTER.refait is Refait.QUARTER and RuleSet(refait=Refait.QUARTER) == QUARTER
    assert refait_code(QUARTER) is RefaitCode.QUARTER and rule_codes(QUARTER)[0] == RefaitCode.QUARTER
    assert partage_share(RefaitCode.QUARTER) == 0.25
    assert refait_value(RefaitCode.QUARTER, 0.49) == 0.75  # a partage: the prisoner's value plays no part
    # every rule has a code of the same name, and every code a rule
    assert [r.name for r in Refait] == [c.name for c in RefaitCode]


def test_exact_house_edge_is_a_quarter_of_the_refait() -> None:
    # By hand, from the first-coup probabilities of a full 6-deck shoe: an even-money box wins with
    # P(win), loses with P(lose) = P(win) (Noir and Rouge by symmetry, Couleur and Inverse likewise),
    # and a refait, with P(refait) = 0.02189137 (docs/rules.md#reference-numbers), takes a quarter of
    # the stake; après and void coups cost nothing. So the edge of every box is
    #     P(lose) - P(win) + P(refait) * 1/4 = P(refait) / 4 = 0.0054728...,
    # half the edge of the classic partage (P(refait) / 2). P(Noir) and P(Rouge) agree to ~1e-14
    # (the exact calculator's rounding), hence the tolerance.
    odds = first_coup(6)
    assert odds.p_refait == pytest.approx(0.02189137, abs=5e-9)
    edges = house_edges(QUARTER)
    for edge in (edges.noir, edges.rouge, edges.couleur, edges.inverse):
        assert edge == pytest.approx(odds.p_refait / 4, abs=1e-13)
    assert edges.noir == pytest.approx(0.0054728, abs=1e-7)
    assert edges.noir == pytest.approx(house_edges(get_rules("partage")).noir / 2, abs=1e-13)
    assert edges.insured == house_edges(get_rules("classic")).insured  # insurance does not read the refait rule
    # the edge of what a player staked reads the same numbers
    stakes = np.array([[3.0, 1.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    assert stake_weighted_edge(QUARTER, stakes) == pytest.approx(odds.p_refait / 4, abs=1e-13)


def test_the_counters_expected_gains_read_the_same_rule() -> None:
    values = box_values(exact_odds(full_counts(6), method="rows"), QUARTER)
    edges = house_edges(QUARTER)
    assert values.ev == pytest.approx(-np.array([edges.noir, edges.rouge, edges.couleur, edges.inverse]), abs=1e-12)


def test_a_refaited_stake_loses_a_quarter() -> None:
    # 8 on Noir (uninsured), 4 on Rouge (insured, premium 0.04), 12 on Couleur, a Noir prisoner of 10
    stakes = np.array([8.0, 4.0, 12.0, 0.0])
    insured = np.array([False, True, False, False])
    prison = np.zeros((4, 2))
    prison[NOIR, 0] = 10.0
    out = settle(QUARTER, stakes, Result.REFAIT, True, insured=insured, prison=prison)
    assert out.back.tolist() == [6.0, 4.0, 9.0, 0.0]  # the insured stake comes back whole
    assert not out.prison.any()  # nothing goes to prison, and a second refait loses the prisoner
    assert out.bank == pytest.approx(2.0 + 0.04 + 3.0 + 10.0, abs=1e-12)
    # the plain-Python rule says the same
    refait, second, spares, rate = rule_codes(QUARTER)
    assert settle_box(0, (8.0, False, True), (0.0, 0.0), Result.REFAIT, True, (refait, second, spares, rate), 1.0) == (
        6.0, 0.0, 0.0, 2.0,
    )  # fmt: skip
    # the player's prison flag does not matter: there is no choice under this rule
    assert settle(QUARTER, stakes, Result.REFAIT, True, to_prison=np.ones(4, bool)).back.tolist() == [6.0, 3.0, 9.0, 0]


def test_the_vector_environment_settles_every_refait_at_three_quarters() -> None:
    envs = gym.make_vec("TrenteEtQuarante-v0", num_envs=64, rules=QUARTER, coup_info=True, bankroll=100_000)
    envs.reset(seed=7)
    action = np.zeros((64, 12), dtype=np.int64)
    action[:, 0], action[:, 2] = 8, 4  # 8 on Noir, 4 on Couleur, uninsured
    refaits = 0
    for _ in range(200):
        _, _, _, _, info = envs.step(action)
        caught = info["_result"] & (info["result"] == Result.REFAIT)
        refaits += int(caught.sum())
        np.testing.assert_array_equal(info["back"][caught], 0.75 * info["stakes"][caught])
        np.testing.assert_array_equal(info["stakes"][caught][:, [0, 2]], np.tile([8.0, 4.0], (int(caught.sum()), 1)))
    assert refaits > 100  # 12,800 coups at P(refait) = 2.2%: about 280 refaits (SD 17)


def test_the_texts_say_a_quarter_and_never_prison() -> None:
    assert refait_words(QUARTER) == "a refait takes a quarter of each stake (partage)"
    assert partage_words(QUARTER) == "a quarter of each stake"
    assert "a quarter of the stake lost (partage)" in QUARTER.describe()
    assert "prison" not in refait_words(QUARTER) and "prison" not in QUARTER.describe()
    # every rule has its words
    for rule in Refait:
        assert refait_words(get_rules("classic", refait=rule))


def test_the_teaching_table_tells_the_quarter_partage(monkeypatch) -> None:
    monkeypatch.setattr(play, "load_rules", lambda preset: QUARTER)
    screen = io.StringIO()
    console = Console(file=screen, width=100, color_system=None)
    lines = ["r 12", "deal", "choose prison", "help", "quit"]
    summary = play.play_session("quarter", 1000, None, io.StringIO("\n".join(lines) + "\n"), console,
                                shoe=ScriptedShoe([REFAIT]))  # fmt: skip
    text = screen.getvalue()
    assert "the bank takes 3 (partage: a quarter of each stake)" in text
    assert "Nothing to choose at this table: a refait takes a quarter of each stake (partage)" in text
    assert "en prison" not in text and "goes to prison" not in text
    assert summary.bankroll == 997 and summary.prisoners == 0

"""Each box's payout is a rule (``RuleSet.payouts``): the settlement, the croupier, the house edges
and the card counter's expected gains all read it; even money everywhere by default."""

from __future__ import annotations

import dataclasses
import json

import gymnasium as gym
import numpy as np
import pytest

import trente_env  # noqa: F401  (registers the ids)
from trente_env.codes import COULEUR, Result
from trente_env.counting.advantage import box_values
from trente_env.odds import exact_odds, first_coup, full_counts, house_edges, insured_edges, stake_weighted_edge
from trente_env.rules import RIG, RuleSet, get_rules
from trente_env.settle import settle

#: Couleur paid 2:1, the other boxes even money (not a real game: a rule set to test the payouts with).
RICH_COULEUR = get_rules("classic", payouts=(1, 1, 2, 1))


def test_payouts_default_to_even_money_and_are_checked() -> None:
    assert get_rules().payouts == (1.0, 1.0, 1.0, 1.0)
    assert RICH_COULEUR.payouts == (1.0, 1.0, 2.0, 1.0)
    assert "paid Noir 1:1, Rouge 1:1, Couleur 2:1, Inverse 1:1" in RICH_COULEUR.describe()
    assert "paid" not in get_rules().describe()
    for bad in [(1, 1, 1), (1, 1, 0, 1), (1, 1, -2, 1), (1, 1, 1, 101), "1111", (True, 1, 1, 1), 2.0]:
        with pytest.raises(ValueError, match="payouts"):
            get_rules(payouts=bad)
    with pytest.raises(ValueError, match="rigged table"):
        get_rules(payouts=(2, 1, 1, 1), **RIG)
    # a rule set's values survive JSON (a tournament's manifest), lists for tuples
    values = json.loads(json.dumps({k: getattr(RICH_COULEUR, k) for k in ("payouts", "decks")}))
    assert get_rules(**values) == RICH_COULEUR


def test_house_edges_and_the_counters_gains_read_the_payouts() -> None:
    odds = first_coup(6)
    classic, rich = house_edges(get_rules()), house_edges(RICH_COULEUR)
    # one more unit paid on each Couleur win: the edge falls by P(Couleur wins); the other boxes unchanged
    assert rich.couleur == pytest.approx(classic.couleur - odds.p_couleur, abs=1e-15)
    assert (rich.noir, rich.rouge, rich.inverse) == (classic.noir, classic.rouge, classic.inverse)
    assert insured_edges(RICH_COULEUR)[COULEUR] == pytest.approx(
        odds.p_inverse - 2 * odds.p_couleur + RICH_COULEUR.insurance_rate, abs=1e-15
    )
    stakes = np.array([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    expected = (rich.couleur + insured_edges(RICH_COULEUR)[COULEUR]) / 2
    assert stake_weighted_edge(RICH_COULEUR, stakes) == pytest.approx(expected, abs=1e-15)
    values = box_values(exact_odds(full_counts(6), method="rows"), RICH_COULEUR)
    assert values.ev == pytest.approx(-np.array([rich.noir, rich.rouge, rich.couleur, rich.inverse]), abs=1e-12)
    assert values.ev_insured[COULEUR] == pytest.approx(-insured_edges(RICH_COULEUR)[COULEUR], abs=1e-12)


def test_settlement_pays_each_box_its_payout() -> None:
    out = settle(RICH_COULEUR, np.array([5.0, 0.0, 4.0, 3.0]), Result.NOIR, True)
    assert out.back.tolist() == [10.0, 0.0, 12.0, 0.0]  # Noir 1:1, Couleur 2:1, Inverse lost
    assert out.bank == pytest.approx(-5.0 - 8.0 + 3.0)


def test_the_vector_environment_pays_couleur_two_to_one() -> None:
    envs = gym.make_vec("TrenteEtQuarante-v0", num_envs=32, rules=RICH_COULEUR, coup_info=True, bankroll=100_000)
    envs.reset(seed=11)
    action = np.zeros((32, 12), dtype=np.int64)
    action[:, COULEUR] = 5
    wins = 0
    for _ in range(50):
        _, _, _, _, info = envs.step(action)
        won = info["_result"] & (info["result"] <= Result.ROUGE) & (info["couleur"] == 0)
        wins += int(won.sum())
        # the stake and twice it, plus a prisoner of 5 freed unpaid where an earlier refait jailed one
        assert set(np.unique(info["back"][won, COULEUR] - 3 * info["stakes"][won, COULEUR])) <= {0.0, 5.0}
        assert (info["stakes"][won, COULEUR] == 5).all()
    assert wins > 400  # 1,600 coups, Couleur wins 44.5% of them: about 712 (SD 20)


def test_a_payout_is_a_field_like_the_others() -> None:
    assert "payouts" in {f.name for f in dataclasses.fields(RuleSet)}

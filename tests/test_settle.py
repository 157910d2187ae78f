"""Settlement: every path of docs/rules.md#ties and docs/rules.md#insurance, the chips conserved, and one
source for both speeds."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trente_env.codes import COULEUR, INVERSE, NOIR, ROUGE
from trente_env.coup import Result
from trente_env.rules import get_rules
from trente_env.settle import rule_codes, settle, settle_box

CLASSIC = get_rules()
PARTAGE = get_rules("partage")


def one(rules, box, stake, result, couleur=True, *, insured=False, prison=(0.0, 0.0), to_prison=False):
    """Settle a single box through the public batch function; returns (back, prison, bank)."""
    stakes = np.zeros(4)
    stakes[box] = stake
    jail = np.zeros((4, 2))
    jail[box] = prison
    flags = np.zeros(4, bool)
    flags[box] = True
    s = settle(rules, stakes, result, couleur, insured=flags & insured, prison=jail, to_prison=flags & to_prison)
    return float(s.back[box]), tuple(s.prison[box]), float(s.bank)


def test_a_winning_box_is_paid_even_money():
    assert one(CLASSIC, NOIR, 10, Result.NOIR) == (20, (0, 0), -10)
    assert one(CLASSIC, ROUGE, 10, Result.ROUGE) == (20, (0, 0), -10)


def test_a_losing_box_loses_the_stake():
    assert one(CLASSIC, NOIR, 10, Result.ROUGE) == (0, (0, 0), 10)


def test_couleur_and_inverse_follow_the_first_card():
    assert one(CLASSIC, COULEUR, 4, Result.ROUGE, couleur=True)[0] == 8
    assert one(CLASSIC, INVERSE, 4, Result.ROUGE, couleur=True)[0] == 0
    assert one(CLASSIC, INVERSE, 4, Result.NOIR, couleur=False)[0] == 8


def test_apres_returns_the_stake_and_keeps_prisoners_waiting():
    assert one(CLASSIC, NOIR, 10, Result.APRES, prison=(6, 0)) == (10, (6, 0), 0)


def test_void_coup_returns_every_bet_and_the_premium():
    assert one(CLASSIC, NOIR, 10, Result.VOID, insured=True, prison=(6, 0)) == (10.1, (6, 0), 0)


def test_refait_half_takes_half_at_once():
    assert one(PARTAGE, NOIR, 10, Result.REFAIT) == (5, (0, 0), 5)
    assert one(PARTAGE, COULEUR, 3, Result.REFAIT) == (1.5, (0, 0), 1.5)


def test_refait_prison_then_the_box_wins_frees_the_stake_unpaid():
    back, prison, bank = one(CLASSIC, NOIR, 10, Result.REFAIT)
    assert (back, prison, bank) == (0, (10, 0), 0)
    assert one(CLASSIC, NOIR, 0, Result.NOIR, prison=prison) == (10, (0, 0), 0)


def test_refait_prison_then_the_box_loses_loses_the_stake():
    assert one(CLASSIC, NOIR, 0, Result.ROUGE, prison=(10, 0)) == (0, (0, 0), 10)


def test_a_new_stake_beside_a_prisoner_settles_on_its_own():
    assert one(CLASSIC, NOIR, 5, Result.NOIR, prison=(10, 0)) == (20, (0, 0), -5)


@pytest.mark.parametrize(
    ("second", "expected"),
    [
        ("lost", (0, (5, 0), 10)),  # the prisoner is lost, the new stake goes to prison
        ("second_prison", (0, (5, 10), 0)),  # the prisoner moves to the second prison
        ("stays", (0, (15, 0), 0)),  # the prisoner stays, joined by the new stake
    ],
)
def test_second_refait_variants(second, expected):
    rules = CLASSIC.replace(second_refait=second)
    assert one(rules, NOIR, 5, Result.REFAIT, prison=(10, 0)) == expected


def test_second_prison_needs_two_wins_in_a_row_and_a_third_refait_loses_it():
    rules = CLASSIC.replace(second_refait="second_prison")
    assert one(rules, NOIR, 0, Result.NOIR, prison=(0, 10)) == (0, (10, 0), 0)  # first win: back to prison 1
    assert one(rules, NOIR, 0, Result.NOIR, prison=(10, 0)) == (10, (0, 0), 0)  # second win: freed
    assert one(rules, NOIR, 0, Result.ROUGE, prison=(0, 10)) == (0, (0, 0), 10)
    assert one(rules, NOIR, 0, Result.REFAIT, prison=(0, 10)) == (0, (0, 0), 10)
    assert one(rules, NOIR, 0, Result.APRES, prison=(0, 10)) == (0, (0, 10), 0)


def test_choice_rule_follows_the_players_pick():
    rules = get_rules("choice")
    assert one(rules, ROUGE, 10, Result.REFAIT, to_prison=False) == (5, (0, 0), 5)
    assert one(rules, ROUGE, 10, Result.REFAIT, to_prison=True) == (0, (10, 0), 0)
    assert one(CLASSIC, ROUGE, 10, Result.REFAIT, to_prison=False) == (0, (10, 0), 0)  # ignored elsewhere


def test_insurance_returns_the_stake_on_a_refait_and_the_premium_is_always_kept():
    assert one(CLASSIC, NOIR, 100, Result.REFAIT, insured=True) == (100, (0, 0), 1)
    assert one(PARTAGE, NOIR, 100, Result.REFAIT, insured=True) == (100, (0, 0), 1)
    assert one(CLASSIC, NOIR, 100, Result.NOIR, insured=True) == (200, (0, 0), -99)
    assert one(CLASSIC, NOIR, 100, Result.APRES, insured=True) == (100, (0, 0), 1)


def test_insurance_is_ignored_where_the_table_offers_none():
    assert one(get_rules("family"), NOIR, 100, Result.REFAIT, insured=True) == (50, (0, 0), 50)


def test_lenient_couleur_returns_couleur_and_inverse_stakes_on_a_refait():
    rules = get_rules("lenient-couleur")
    assert one(rules, COULEUR, 10, Result.REFAIT) == (10, (0, 0), 0)
    assert one(rules, INVERSE, 10, Result.REFAIT) == (10, (0, 0), 0)
    assert one(rules, NOIR, 10, Result.REFAIT) == (0, (10, 0), 0)


def test_one_insured_stake_is_one_chip_of_premium_among_many_boxes():
    s = settle(CLASSIC, [10, 0, 20, 0], Result.NOIR, True, insured=[True, False, True, False])
    assert list(s.back) == [20, 0, 40, 0] and s.bank == pytest.approx(-30 + 0.3)


amounts = st.integers(0, 1000).map(float)
results = st.sampled_from(list(Result))
rule_sets = st.builds(
    lambda refait, second, spares, insurance, rate: CLASSIC.replace(
        refait=refait, second_refait=second, refait_spares_couleur=spares, insurance=insurance, insurance_rate=rate
    ),
    st.sampled_from(["half", "prison", "choice"]),
    st.sampled_from(["lost", "second_prison", "stays"]),
    st.booleans(),
    st.booleans(),
    st.sampled_from([0.0, 0.01, 0.05]),
)


@given(
    rules=rule_sets,
    stakes=st.lists(amounts, min_size=4, max_size=4),
    prison=st.lists(amounts, min_size=8, max_size=8),
    insured=st.lists(st.booleans(), min_size=4, max_size=4),
    to_prison=st.lists(st.booleans(), min_size=4, max_size=4),
    result=results,
    couleur=st.booleans(),
)
def test_every_chip_is_accounted_for_and_nothing_goes_negative(
    rules, stakes, prison, insured, to_prison, result, couleur
):
    prison = np.array(prison).reshape(4, 2)
    s = settle(rules, stakes, result, couleur, insured=insured, prison=prison, to_prison=to_prison)
    premium = rules.insurance_rate * np.dot(stakes, insured) if rules.insurance else 0.0
    money_in = sum(stakes) + premium + prison.sum()
    assert s.back.sum() + s.prison.sum() + s.bank == pytest.approx(money_in, abs=1e-9)
    assert (s.back >= 0).all() and (s.prison >= 0).all()
    assert s.back.sum() <= 2 * sum(stakes) + prison.sum() + premium + 1e-9  # no more than even money
    # the plain-Python rules and the compiled batch kernel are the same source: same numbers
    codes = rule_codes(rules)
    for box in range(4):
        plain = settle_box(
            box, (stakes[box], insured[box] and rules.insurance, to_prison[box]), (prison[box, 0], prison[box, 1]),
            int(result), couleur, codes, 1.0,
        )  # fmt: skip
        assert plain[:3] == (s.back[box], *s.prison[box])


def test_batch_settlement_matches_table_by_table():
    rng = np.random.default_rng(0)
    n = 500
    stakes = rng.integers(0, 50, (n, 4)).astype(float)
    prison = rng.integers(0, 20, (n, 4, 2)).astype(float)
    insured = rng.random((n, 4)) < 0.3
    result = rng.integers(0, 5, n)
    couleur = rng.random(n) < 0.5
    batch = settle(CLASSIC, stakes, result, couleur, insured=insured, prison=prison)
    for t in range(n):
        single = settle(CLASSIC, stakes[t], result[t], couleur[t], insured=insured[t], prison=prison[t])
        assert np.array_equal(single.back, batch.back[t]) and single.bank == batch.bank[t]

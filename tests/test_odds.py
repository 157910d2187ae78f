"""Exact odds: the reference numbers of docs/rules.md#reference-numbers, an independent brute-force enumeration
on small shoes, the prison recursions, and the simulator against the calculator."""

from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trente_env.cards import composition
from trente_env.coup import Result
from trente_env.dealer import deal_coups
from trente_env.odds import (
    CACHE,
    CoupOdds,
    coup_odds,
    first_coup,
    house_edges,
    infinite_odds,
)
from trente_env.rules import PRESETS, get_rules
from trente_env.settle import prisoner_value, second_refait_code

REFERENCE_TOTALS_6 = [
    .14805778, .13782622, .12757665, .11686505, .10615167, .09499245, .08385900, .07230246, .06080086, .05156787,
]  # fmt: skip
REFERENCE_TOTALS_INFINITE = [0.14806, 0.13791, 0.12751, 0.11689, 0.10605, 0.09500, 0.08375, 0.07232, 0.06072, 0.05180]


def check_spec_six_decks(odds: CoupOdds) -> None:
    assert np.abs(odds.p_total - REFERENCE_TOTALS_6).max() < 1e-7
    assert abs(odds.p_refait - 0.02189137) < 1e-7
    assert abs(odds.p_apres - 0.08770754) < 1e-7
    assert abs(odds.p_noir - 0.44520054) < 1e-7
    assert abs(odds.p_rouge - 0.44520054) < 1e-7
    assert abs(odds.cards_per_coup - 10.577) < 5e-4
    assert odds.p_void < 1e-12


def test_six_deck_first_coup_matches_spec_from_the_cache():
    check_spec_six_decks(first_coup(6))


def test_six_deck_first_coup_matches_spec_computed_afresh():
    odds = coup_odds(composition(6))
    check_spec_six_decks(odds)
    cached = first_coup(6)
    assert np.abs(odds.pair - cached.pair).max() < 1e-15


@pytest.mark.slow
def test_cache_is_what_the_code_computes_for_every_deck_count():
    import json

    cached = json.loads(CACHE.read_text())
    assert sorted(cached, key=int) == [str(d) for d in range(1, 9)]
    for decks in range(1, 9):
        fresh = coup_odds(composition(decks))
        assert np.abs(np.array(cached[str(decks)]["pair"]) - fresh.pair).max() < 1e-15, decks


def test_infinite_deck_matches_spec():
    odds = infinite_odds()
    assert np.abs(odds.p_total - REFERENCE_TOTALS_INFINITE).max() < 5e-6  # the reference gives five decimals
    assert abs(odds.p_refait - 0.0219220) < 5e-8
    assert abs(odds.p_apres - 0.0878254) < 5e-8
    assert abs(odds.p_noir - 0.4451263) < 5e-8
    assert odds.pair.sum() == pytest.approx(1.0, abs=1e-14)


def test_more_decks_move_towards_the_infinite_deck():
    gaps = [abs(first_coup(d).p_refait - infinite_odds().p_refait) for d in range(1, 9)]
    assert all(a > b for a, b in zip(gaps, gaps[1:]))
    for d in range(1, 9):
        odds = first_coup(d)
        assert odds.pair.sum() + odds.p_void == pytest.approx(1.0, abs=1e-12)
        assert odds.p_noir == pytest.approx(odds.p_rouge, abs=1e-12)


# -- an independent calculator: every ordered draw, exact fractions ------------------------------


def brute_force(shoe: tuple[int, ...]) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
    """P(Noir total, Rouge total) and P(void), drawing card after card without replacement."""

    @cache
    def draw(left: tuple[int, ...], noir: int, running: int) -> dict:
        # noir == 0 while the Noir row is being dealt; afterwards it holds the Noir total
        n = sum(left)
        if n == 0:
            return {"void": Fraction(1)}
        outcome: dict = {}
        for v, count in enumerate(left, start=1):
            if not count:
                continue
            p = Fraction(count, n)
            rest = left[: v - 1] + (count - 1,) + left[v:]
            total = running + v
            if total <= 30:
                sub = draw(rest, noir, total)
            elif noir == 0:
                sub = draw(rest, total, 0)
            else:
                sub = {(noir, total): Fraction(1)}
            for key, q in sub.items():
                outcome[key] = outcome.get(key, 0) + p * q
        return outcome

    result = draw(tuple(shoe), 0, 0)
    return {k: v for k, v in result.items() if k != "void"}, result.get("void", Fraction(0))


# shoes of 10 to 17 cards: small enough for exact fractions, and many of them run out mid-coup
small_shoes = st.tuples(*[st.integers(0, 1)] * 7, st.integers(0, 2), st.integers(0, 2), st.integers(2, 6))


@settings(max_examples=25)
@given(small_shoes)
def test_coup_odds_equal_brute_force_enumeration_on_small_shoes(shoe):
    pairs, void = brute_force(shoe)
    odds = coup_odds(np.array(shoe))
    expected = np.zeros((10, 10))
    for (a, b), p in pairs.items():
        expected[a - 31, b - 31] = float(p)
    assert np.abs(odds.pair - expected).max() < 1e-12
    assert odds.p_void == pytest.approx(float(void), abs=1e-12)


def test_brute_force_agrees_on_a_shoe_where_every_row_is_short():
    shoe = (0, 0, 0, 0, 0, 0, 0, 0, 2, 8)  # nines and tens only
    pairs, void = brute_force(shoe)
    odds = coup_odds(np.array(shoe))
    assert void == 0 and odds.p_void == pytest.approx(0, abs=1e-15)
    assert odds.pair[9, 9] == pytest.approx(float(pairs[(40, 40)]))


def test_shoe_composition_is_validated():
    with pytest.raises(ValueError, match="ten non-negative counts"):
        coup_odds(np.array([1, 2, 3]))


# -- house edges ---------------------------------------------------------------------------------

REFERENCE_EDGES = {  # docs/rules.md#house-edges, 6 decks, first-coup probabilities, given to 1e-6
    "partage": 0.010946,
    "classic": 0.011208,
    "second-prison": 0.011082,
}


@pytest.mark.parametrize(("preset", "edge"), REFERENCE_EDGES.items())
def test_house_edges_match_spec(preset, edge):
    edges = house_edges(get_rules(preset))
    for box in ("noir", "rouge", "couleur", "inverse"):
        assert abs(getattr(edges, box) - edge) < 5e-7, box


def test_prison_that_stays_is_worth_half_and_matches_partage():
    stays = house_edges(get_rules("classic", second_refait="stays"))
    assert stays.prisoner_value == pytest.approx(0.5, abs=1e-12)
    assert stays.noir == pytest.approx(house_edges(get_rules("partage")).noir, abs=1e-12)


def test_insured_stake_loses_the_premium_and_insurance_itself_is_favourable():
    edges = house_edges(get_rules("partage"))
    assert abs(edges.insured - 0.0100) < 1e-9
    # the premium buys back half the stake on a refait: about +9.5% of the premium (docs/rules.md#insurance)
    gain = first_coup(6).p_refait * 0.5 / 0.01 - 1
    assert abs(gain - 0.0946) < 5e-4
    assert house_edges(get_rules("family")).insured is None


def test_choice_takes_the_better_of_half_and_prison():
    for second in ("lost", "second_prison", "stays"):
        choice = house_edges(get_rules("choice", second_refait=second)).noir
        half = house_edges(get_rules("partage")).noir
        prison = house_edges(get_rules("classic", second_refait=second)).noir
        assert choice == pytest.approx(min(half, prison), abs=1e-15)


def test_lenient_couleur_has_no_edge_on_couleur_and_inverse():
    edges = house_edges(get_rules("lenient-couleur"))
    assert abs(edges.couleur) < 1e-12 and abs(edges.inverse) < 1e-12
    assert edges.noir == pytest.approx(house_edges(get_rules()).noir)


@pytest.mark.parametrize("second", ["lost", "second_prison", "stays"])
def test_prisoner_value_solves_its_recursion(second):
    """Iterate the prison's Markov chain coup by coup and compare with the closed form."""
    odds = first_coup(6)
    w, lose, r = odds.p_noir, odds.p_rouge, odds.p_refait
    t = 1 - w - lose - r
    level = {1: 1.0, 2: 0.0}  # probability mass in each prison
    freed = 0.0
    for _ in range(2_000):
        l1, l2 = level[1], level[2]
        freed += w * l1
        again = {"lost": (0.0, 0.0), "second_prison": (0.0, r * l1), "stays": (r * l1, r * l2)}[second]
        level = {1: t * l1 + w * l2 + again[0], 2: t * l2 + again[1]}
    rules = get_rules("classic", second_refait=second)
    assert prisoner_value(w, t, r, second_refait_code(rules)) == pytest.approx(freed, abs=1e-12)


# -- the simulator against the calculator --------------------------------------------------------
# Tolerances: each frequency f of n independent coups has standard error sqrt(p (1 - p) / n); we
# allow 4 standard errors (two-sided 6e-5 per check, under 1e-3 for all of them together), and the
# ten totals are tested jointly with a chi-square at the 0.1% level. Seeds are fixed.

CHI2_9DF_999 = 27.877  # the 99.9% quantile of the chi-square distribution with 9 degrees of freedom


@pytest.mark.parametrize("preset", ["classic", "family"])
def test_first_coups_dealt_match_the_exact_distribution(preset):
    rules = get_rules(preset)
    one_coup_per_shoe = rules.replace(cut_card=rules.n_cards - 1)  # the cut card comes out at once
    n = 200_000
    coups = deal_coups(one_coup_per_shoe, n, 11)
    assert (coups.start == 0).all()
    odds = first_coup(rules.decks)
    observed = np.bincount(coups.noir, minlength=41)[31:]
    chi2 = (((observed - n * odds.p_total) ** 2) / (n * odds.p_total)).sum()
    assert chi2 < CHI2_9DF_999
    result = coups.result
    for code, p in ((Result.REFAIT, odds.p_refait), (Result.APRES, odds.p_apres), (Result.NOIR, odds.p_noir)):
        f = (result == code).mean()
        assert abs(f - p) < 4 * np.sqrt(p * (1 - p) / n), code


def test_whole_shoes_keep_the_refait_rate():
    # docs/rules.md#reference-numbers: over whole shoes to a cut card 52 from the end the refait rate stays about 2.19%.
    # Coups of one shoe are weakly dependent; 4 standard errors of independent coups leave room.
    n = 2_000_000
    coups = deal_coups(get_rules(), n, 5)
    f = (coups.result == Result.REFAIT).mean()
    p = first_coup(6).p_refait
    assert abs(f - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_every_preset_has_an_edge_between_zero_and_two_percent():
    for name, rules in PRESETS.items():
        edges = house_edges(rules)
        assert 0.0099 < edges.noir < 0.0115, name

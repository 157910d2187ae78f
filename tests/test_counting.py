"""The odds of the next coup from the unseen cards: an independent brute-force enumeration in exact
fractions, the reference numbers (docs/rules.md#reference-numbers) and today's first-coup odds, the
symmetry of the rows, the nodes and the stated error of the fast paths, and bad input."""

from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trente_env.cards import CARD_BLACK, CARD_VALUE, new_shoe
from trente_env.counting.advantage import box_values, fresh_prisoner
from trente_env.dealer import shuffle, shuffle_seeds
from trente_env.odds import (
    COUPLED,
    EXACT,
    NODE_QUARTERS,
    QUARTER,
    REPLACEMENT,
    approximate_odds,
    box_size,
    check_composition,
    evaluate_into,
    exact_odds,
    exact_values,
    first_coup,
    full_counts,
    house_edges,
    node_odds,
    nodes,
    shoe_odds,
)
from trente_env.rules import PRESETS, get_rules
from trente_env.settle import prisoner_value, rule_codes

SPEC_TOTALS_6 = [
    .14805778, .13782622, .12757665, .11686505, .10615167, .09499245, .08385900, .07230246, .06080086, .05156787,
]  # fmt: skip


# -- an independent calculator: every ordered draw of value and colour, exact fractions ----------


def brute_force(counts: tuple[int, ...], dead: int = 0) -> dict[str, object]:
    """P(Noir total, Rouge total), P(void), P(Couleur), P(Inverse), drawing card after card (20 kinds:
    black 1..10 then red 1..10) without replacement; the coup is void when it needs more than the
    ``sum(counts) - dead`` cards that can be dealt."""
    deal = sum(counts) - dead

    @cache
    def draw(left: tuple[int, ...], noir: int, running: int, first_black: int) -> tuple:
        # noir == 0 while the Noir row is dealt; first_black is -1 before the first card
        n = sum(left)
        if len(counts) and sum(counts) - n >= deal:
            return (("void", Fraction(1)),)
        outcome: dict = {}
        for kind, count in enumerate(left):
            if not count:
                continue
            p = Fraction(count, n)
            rest = left[:kind] + (count - 1,) + left[kind + 1 :]
            black = first_black if first_black >= 0 else int(kind < 10)
            total = running + kind % 10 + 1
            if total <= 30:
                sub = draw(rest, noir, total, black)
            elif noir == 0:
                sub = draw(rest, total, 0, black)
            else:
                sub = (((noir, total, black), Fraction(1)),)
            for key, q in sub:
                outcome[key] = outcome.get(key, 0) + p * q
        return tuple(outcome.items())

    pair: dict[tuple[int, int], Fraction] = {}
    void = couleur = inverse = Fraction(0)
    for key, p in draw(tuple(counts), 0, 0, -1):
        if key == "void":
            void += p
            continue
        a, b, black = key
        pair[(a, b)] = pair.get((a, b), 0) + p
        if a != b:
            if (a < b) == bool(black):
                couleur += p
            else:
                inverse += p
    return {"pair": pair, "void": void, "couleur": couleur, "inverse": inverse}


# shoes of up to 11 cards: small enough for exact fractions, many of their coups run out of cards
small_shoes = st.tuples(
    st.lists(st.integers(0, 1), min_size=18, max_size=18), st.integers(1, 3), st.integers(0, 3), st.integers(0, 2)
)


def as_counts(drawn) -> tuple[tuple[int, ...], int]:
    low, black_tens, red_tens, dead = drawn
    counts = tuple(low[:9]) + (black_tens,) + tuple(low[9:]) + (red_tens,)
    if sum(counts) > 11:  # keep the enumeration small
        counts = tuple(c if i % 10 == 9 else 0 for i, c in enumerate(counts))
    return counts, min(dead, sum(counts))


@settings(max_examples=10)
@given(small_shoes)
def test_exact_odds_equal_brute_force_enumeration_colour_and_void_included(drawn):
    counts, dead = as_counts(drawn)
    expected = brute_force(counts, dead)
    pair = np.zeros((10, 10))
    for (a, b), p in expected["pair"].items():
        pair[a - 31, b - 31] = float(p)
    for method in ("joint", "rows"):
        odds = exact_odds(np.array(counts), dead, method=method)
        assert np.abs(odds.pair - pair).max() < 1e-12, method
        assert odds.p_void == pytest.approx(float(expected["void"]), abs=1e-12), method
        assert odds.p_couleur == pytest.approx(float(expected["couleur"]), abs=1e-12), method
        assert odds.p_inverse == pytest.approx(float(expected["inverse"]), abs=1e-12), method


def test_brute_force_on_a_lopsided_shoe_where_couleur_differs_from_inverse():
    # only black aces and twos beside red tens: the first card's colour tells a lot
    counts = (2, 1, 0, 0, 0, 0, 0, 0, 0, 2) + (0, 0, 0, 0, 0, 0, 0, 0, 0, 6)
    expected = brute_force(counts)
    odds = exact_odds(np.array(counts))
    assert expected["couleur"] != expected["inverse"]
    assert odds.couleur_edge == pytest.approx(float(expected["couleur"] - expected["inverse"]), abs=1e-13)
    assert odds.p_void == pytest.approx(float(expected["void"]), abs=1e-13)


# -- the reference numbers (docs/rules.md#reference-numbers) and today's odds -------------------


@pytest.fixture(scope="module")
def full_six():
    return exact_odds(full_counts(6), method="rows")


def test_a_full_shoe_reproduces_spec_section_3_and_first_coup(full_six):
    assert np.abs(full_six.p_total - SPEC_TOTALS_6).max() < 1e-7
    assert abs(full_six.p_refait - 0.02189137) < 1e-7
    assert abs(full_six.p_apres - 0.08770754) < 1e-7
    assert abs(full_six.p_noir - 0.44520054) < 1e-7
    assert abs(full_six.cards_per_coup - 10.577) < 5e-4
    cached = first_coup(6)
    assert np.abs(full_six.pair - cached.pair).max() < 1e-13
    assert full_six.cards_per_coup == pytest.approx(cached.cards_per_coup, abs=1e-10)
    assert full_six.p_void < 1e-12


def test_on_a_full_shoe_the_colour_aware_couleur_ev_equals_the_current_one(full_six):
    assert abs(full_six.couleur_edge) < 1e-15  # as many black as red cards of every value
    for name, rules in PRESETS.items():
        if rules.decks != 6:
            continue
        values = box_values(full_six, rules)
        edges = house_edges(rules)
        expected = [edges.noir, edges.rouge, edges.couleur, edges.inverse]
        for box in range(len(rules.boxes)):
            assert values.ev[box] == pytest.approx(-expected[box], abs=1e-12), (name, box)
        if rules.insurance:
            assert values.ev_insured[0] == pytest.approx(-edges.insured, abs=1e-12), name


def test_the_first_card_edge_adds_up_to_no_edge_at_all(full_six):
    # P(Noir wins) - P(Rouge wins) = 0, split by the value of the coup's first card
    assert abs(full_six.first_edge.sum()) < 1e-14
    assert full_six.first_edge[0] > 0 > full_six.first_edge[9]  # an ace first helps Noir, a ten hurts


def test_the_stored_full_shoe_node_is_what_the_code_computes(full_six):
    table = nodes()
    i = int(np.flatnonzero(table.cards == 312)[0])
    assert np.abs(table.exact[i][:100] - full_six.pair.ravel()).max() < 1e-14
    assert np.abs(table.exact[i][100:110] - full_six.first_edge).max() < 1e-14


# -- symmetry ------------------------------------------------------------------------------------

compositions = st.tuples(
    st.lists(st.integers(0, 3), min_size=18, max_size=18), st.integers(0, 8), st.integers(0, 8), st.integers(0, 6)
)


@settings(max_examples=40)
@given(compositions)
def test_noir_and_rouge_are_equally_likely_for_every_composition(drawn):
    low, black_tens, red_tens, dead = drawn
    counts = np.array(low[:9] + [black_tens] + low[9:] + [red_tens])
    dead = min(dead, int(counts.sum()))
    methods = {"fast": shoe_odds(counts, dead), "coupled": approximate_odds(counts, dead)}
    if box_size(counts[:10] + counts[10:]) <= 200_000:
        methods["exact"] = exact_odds(counts, dead)
    for name, odds in methods.items():
        assert np.abs(odds.pair - odds.pair.T).max() < 1e-12, name
        assert odds.p_noir == pytest.approx(odds.p_rouge, abs=1e-12), name
        assert odds.pair.sum() + odds.p_void == pytest.approx(1.0, abs=1e-9), name


def test_swapping_the_colours_swaps_couleur_and_inverse():
    counts = np.array([3, 0, 2, 1, 4, 0, 1, 2, 0, 5] + [0, 2, 1, 3, 0, 2, 1, 0, 2, 3])
    odds = exact_odds(counts)
    swapped = exact_odds(np.concatenate([counts[10:], counts[:10]]))
    assert odds.couleur_edge == pytest.approx(-swapped.couleur_edge, abs=1e-14)
    assert np.abs(odds.pair - swapped.pair).max() < 1e-15


# -- the fast paths ------------------------------------------------------------------------------


def dealt_counts(cards_left: int, seed: int, decks: int = 6) -> np.ndarray:
    """The unseen cards of a shoe shuffled by the dealer, cut ``cards_left`` cards before its end."""
    cards = new_shoe(decks)
    shuffle(cards, shuffle_seeds(np.random.default_rng(seed), 1)[0])
    rest = cards[cards.size - cards_left :]
    kinds = np.where(CARD_BLACK[rest], 0, 10) + CARD_VALUE[rest] - 1
    return np.bincount(kinds, minlength=20)


def test_shoe_odds_are_exact_for_a_short_shoe_and_say_so():
    counts = dealt_counts(14, 1)
    fast = shoe_odds(counts)
    assert fast.exact and fast.method == "exact"
    exact = exact_odds(counts, method="rows")
    assert np.abs(fast.pair - exact.pair).max() < 1e-13
    assert fast.couleur_edge == pytest.approx(exact.couleur_edge, abs=1e-13)
    assert shoe_odds(dealt_counts(40, 1)).method == "coupled rows"
    assert shoe_odds(dealt_counts(200, 1)).method == "with replacement"


@pytest.mark.parametrize(("cards_left", "bound"), [(24, 1.5e-3), (30, 1e-3), (34, 5e-4)])
def test_the_coupled_rows_stay_within_their_stated_error(cards_left, bound):
    # the module's table: the best expected gain errs by at most a few 1e-4 at 24..34 cards left
    # (largest of 20 dealt shoes: 3e-4 at 26, 3.8e-4 at 30); bounds leave a factor of about three
    rules = get_rules()
    for seed in range(4):
        counts = dealt_counts(cards_left, 100 + seed)
        exact, fast = exact_odds(counts), approximate_odds(counts)
        assert fast.method == "coupled rows"
        error = box_values(fast, rules).best[2] - box_values(exact, rules).best[2]
        assert abs(error) < bound, (seed, error)
        assert abs(fast.couleur_edge - exact.couleur_edge) < bound


def test_the_compiled_evaluator_reports_its_method():
    model = nodes().model()
    out = np.empty(112)
    pn, joint = np.empty(50_000), np.empty(500_000)
    assert evaluate_into(dealt_counts(12, 3), 0, 50_000, 64, model, pn, joint, out) == EXACT
    assert evaluate_into(dealt_counts(50, 3), 0, 50_000, 64, model, pn, joint, out) == COUPLED
    assert evaluate_into(dealt_counts(100, 3), 0, 50_000, 64, model, pn, joint, out) == REPLACEMENT
    assert evaluate_into(dealt_counts(12, 3), 0, 0, 0, model, pn, joint, out) == REPLACEMENT


def test_dead_cards_make_the_last_coups_void():
    counts = dealt_counts(20, 4)
    live, dead = exact_odds(counts), exact_odds(counts, 9)  # 11 cards can be dealt
    assert dead.p_void > 0.01 and live.p_void == 0.0
    assert dead.p_void == pytest.approx(1.0 - dead.pair.sum(), abs=1e-13)
    assert exact_odds(counts, 20).p_void == pytest.approx(1.0)  # nothing can be dealt
    assert shoe_odds(counts, 9).p_void == pytest.approx(dead.p_void, abs=1e-13)


# -- the nodes -----------------------------------------------------------------------------------


def test_the_nodes_cover_every_full_shoe():
    table = nodes()
    assert [int(c) for c in table.cards] == [13 * k for k in NODE_QUARTERS]
    for decks in range(1, 9):
        assert 52 * decks in table.cards


@pytest.mark.parametrize("quarters", [1, 2])
def test_small_stored_nodes_are_what_the_code_computes(quarters):
    table = nodes()
    i = NODE_QUARTERS.index(quarters)
    fresh = node_odds(quarters)
    assert np.abs(np.array(fresh["odds"]) - table.exact[i]).max() < 1e-13
    assert np.abs(np.array(fresh["removed"]) - table.exact_removed[i]).max() < 1e-13


@pytest.mark.slow
def test_every_stored_node_is_what_the_code_computes():
    table = nodes()
    for i, k in enumerate(NODE_QUARTERS):
        ref = QUARTER * k
        assert np.abs(exact_values(ref) - table.exact[i]).max() < 1e-12, k


def test_a_damaged_nodes_file_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "nodes.json"
    bad.write_text('{"layout": "something else", "nodes": {}}')
    with pytest.raises(ValueError, match="rebuild") as info:
        nodes.__wrapped__(bad)
    assert "\n" not in str(info.value)
    bad.write_text("not json")
    with pytest.raises(ValueError, match="cannot read"):
        nodes.__wrapped__(bad)


# -- the prisoner --------------------------------------------------------------------------------


@pytest.mark.parametrize("second", ["lost", "second_prison", "stays"])
def test_the_prisoner_without_void_coups_is_the_full_shoes_prisoner_value(second):
    rules = get_rules("classic", second_refait=second)
    odds = first_coup(6)
    f1, f2 = fresh_prisoner(rules)
    code = rule_codes(rules)[1]
    value = prisoner_value(odds.p_noir, odds.p_apres, odds.p_refait, code, 0.0, f1, f2)
    assert value == pytest.approx(house_edges(rules).prisoner_value, abs=1e-14)
    assert value == pytest.approx(f1, abs=1e-14)
    # a void coup sends the prisoner to a fresh shoe: worth exactly the fresh value if void is certain
    assert prisoner_value(0.0, 0.0, 0.0, code, 1.0, f1, f2) == pytest.approx(f1)


# -- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "dead", "message"),
    [
        ([1, 2, 3], 0, "20 counts"),
        ([1] * 19 + [-1], 0, "negative"),
        ([1] * 20, 21, "dead cards cannot be among 20"),
        ([1] * 20, -1, "dead cards cannot be among"),
        ([1.5] + [1] * 19, 0, "whole numbers"),
        ([1] * 20, 2.5, "whole number"),
        (["a"] * 20, 0, "20 counts"),
    ],
)
def test_bad_shoes_are_refused_in_one_line(counts, dead, message):
    for fn in (check_composition, exact_odds, shoe_odds):
        with pytest.raises(ValueError, match=message) as info:
            fn(counts, dead)
        assert "\n" not in str(info.value)


def test_an_unknown_exact_method_is_refused():
    with pytest.raises(ValueError, match="unknown exact method"):
        exact_odds(full_counts(1), method="guess")

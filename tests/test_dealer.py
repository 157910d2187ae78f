"""Dealing: worked coups from the seeds, the cut card, void coups, and the one-coup dealer against
the bulk dealer."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trente_env.cards import CARD_VALUE, card_code, new_shoe
from trente_env.coup import Coup, Result, classify, couleur_wins
from trente_env.croupier import next_coup, table_rules
from trente_env.dealer import (
    COUP_CARDS,
    SHUFFLE_AHEAD,
    TALLY_GROUP,
    TALLY_NOIR,
    TALLY_RESULTS,
    TALLY_ROUGE,
    TALLY_SIZE,
    Shoe,
    _shuffle_from,
    _tally_shoes,
    deal_coup,
    deal_coups,
    deal_row,
    shuffle,
    shuffle_seeds,
    tally_coups,
    tally_first_coups,
)
from trente_env.rules import RuleSet, get_rules


def cards(*names: str) -> np.ndarray:
    return np.array([card_code(n) for n in names], dtype=np.uint8)


def test_card_values_and_colours():
    assert [int(CARD_VALUE[card_code(n)]) for n in ("AS", "9H", "10D", "JC", "QS", "KH")] == [1, 9, 10, 10, 10, 10]
    assert Coup((card_code("8D"),), (), 33, 37).first_black is False
    assert Coup((card_code("2C"),), (), 33, 37).first_black is True


def test_a_row_stops_on_the_first_card_above_30():
    shoe = cards("KS", "QH", "9D", "AC", "5S", "2H")  # 10 + 10 + 9 + 1 = 30: one more card is dealt
    assert deal_row(shoe, 0) == (35, 5)
    assert deal_row(cards("KS", "QH", "JD", "AC"), 0) == (31, 4)


def test_dutch_example_noir_33_against_rouge_37_noir_and_inverse_win():
    # The Dutch seed: Noir opened by the 8 of diamonds and totalling 33, Rouge on 37.
    shoe = cards("8D", "KS", "5C", "10H", "JS", "QD", "7C", "KH")
    noir, rouge, middle, end = deal_coup(shoe, 0)
    assert (noir, rouge, middle, end) == (33, 37, 4, 8)
    coup = Coup(tuple(shoe[:4]), tuple(shoe[4:8]), noir, rouge)
    assert coup.result is Result.NOIR
    assert coup.couleur is False  # a red first card under a winning Noir row: Inverse wins
    assert coup.announcement() == "Rouge perd et couleur perd"


def test_rouge_wins_and_couleur_loses_announcement():
    coup = Coup((card_code("KS"), card_code("QS"), card_code("JS"), card_code("9S")), (card_code("KD"),), 39, 31)
    assert coup.result is Result.ROUGE and coup.couleur is False
    assert coup.announcement() == "Rouge gagne et couleur perd"


def test_ties_refait_and_apres():
    assert classify(31, 31) == Result.REFAIT
    assert classify(35, 35) == Result.APRES
    assert classify(0, 0) == Result.VOID
    assert list(classify(np.array([31, 40, 33]), np.array([32, 31, 33]))) == [Result.NOIR, Result.ROUGE, Result.APRES]
    assert Coup((card_code("KS"),), (), 31, 31).announcement() == "Refait trente et un"
    assert Coup((card_code("KS"),), (), 34, 34).couleur is None


def test_couleur_follows_the_first_card_of_the_coup_not_of_the_winning_row():
    # Rouge wins; the first card dealt (Noir's) is red: Couleur wins.
    assert couleur_wins(Result.ROUGE, False)
    assert not couleur_wins(Result.ROUGE, True)
    assert couleur_wins(Result.NOIR, True)


def test_a_coup_that_runs_out_of_cards_is_void():
    shoe = cards("KS", "QH", "JD", "AC", "5S", "2H")  # Noir 31, then Rouge runs dry at 7
    assert deal_coup(shoe, 0) == (0, 0, 4, 6)


def test_shuffle_is_a_permutation_fixed_by_its_seed():
    shoe = new_shoe(6)
    shuffle(shoe, np.uint64(3))
    assert sorted(shoe) == sorted(new_shoe(6))
    again = new_shoe(6)
    shuffle(again, np.uint64(3))
    assert np.array_equal(shoe, again)
    other = new_shoe(6)
    shuffle(other, np.uint64(4))
    assert not np.array_equal(shoe, new_shoe(6)) and not np.array_equal(shoe, other)


def test_shuffle_puts_every_card_everywhere_equally_often():
    # 3 cards, 6 orders: over 60,000 shuffles each order has expected count 10,000 and standard
    # deviation sqrt(60000 * 1/6 * 5/6) = 91; a chi-square with 5 degrees of freedom below 20.5
    # (its 99.9% quantile) is what an unbiased shuffle gives 999 times in 1000.
    counts: dict[tuple[int, ...], int] = {}
    for seed in range(60_000):
        cards = np.arange(3, dtype=np.uint8)
        shuffle(cards, np.uint64(seed * 0x9E3779B97F4A7C15 % 2**64))
        counts[tuple(cards)] = counts.get(tuple(cards), 0) + 1
    assert len(counts) == 6
    chi2 = sum((c - 10_000) ** 2 / 10_000 for c in counts.values())
    assert chi2 < 20.52


def test_cut_card_ends_the_shoe_after_the_coup_that_brings_it_out():
    rules = get_rules()  # 312 cards, cut card 52 from the end: the last coup deals card 260 or beyond
    coups = deal_coups(rules, 20_000, 7)
    end = coups.start.astype(int) + coups.n_noir + coups.n_rouge
    last = coups.reshuffle
    assert (end[last] > 260).all()
    assert (end[~last] <= 260).all()
    new_shoe_starts = np.flatnonzero(np.diff(coups.shoe)) + 1
    assert (coups.start[new_shoe_starts] == 0).all()
    assert last[new_shoe_starts - 1].all()
    per_shoe = np.bincount(coups.shoe)[:-1]  # the last shoe is cut short by the coup count
    assert 24 <= per_shoe.mean() <= 26  # docs/rules.md#reference-numbers: about 25 coups a shoe


def test_burn_cards_are_skipped_after_every_shuffle():
    coups = deal_coups(RuleSet(burn=10), 2_000, 1)
    first = np.r_[True, np.diff(coups.shoe) > 0]
    assert (coups.start[first] == 10).all()


def test_dealt_to_exhaustion_a_shoe_ends_on_a_void_coup_or_on_its_last_card():
    coups = deal_coups(get_rules("exhaustion"), 5_000, 2, whole_shoes=True)
    result = coups.result
    end = coups.start.astype(int) + coups.n_noir + coups.n_rouge
    last = coups.reshuffle
    assert ((result[last] == Result.VOID) | (end[last] == 312)).all()
    assert (result[~last] != Result.VOID).all() and (end[~last] < 312).all()
    assert (result[last] == Result.VOID).mean() > 0.9  # a coup rarely ends exactly on the last card
    complete = np.bincount(coups.shoe[result != Result.VOID])
    assert 28.5 <= complete.mean() <= 30  # docs/rules.md#reference-numbers: about 29 coups dealt to exhaustion


def test_negative_coup_count_is_refused():
    with pytest.raises(ValueError, match="cannot be negative"):
        deal_coups(get_rules(), -5)


@given(
    decks=st.integers(1, 8),
    cut=st.integers(0, 60),
    burn=st.integers(0, 12),
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 120),
)
def test_one_coup_dealer_and_bulk_dealer_agree_and_deal_each_card_once(decks, cut, burn, seed, n):
    rules = RuleSet(decks=decks, cut_card=min(cut, 52 * decks - burn - 1), burn=burn)
    bulk = deal_coups(rules, n, seed, keep_cards=True)
    table = Shoe(rules, np.random.default_rng(seed))
    assert [table.deal() for _ in range(n)] == [bulk.coup(i) for i in range(n)]
    for s, shoe in enumerate(bulk.shoes):
        assert np.array_equal(np.sort(shoe), np.sort(new_shoe(decks)))  # a permutation of the packs
        mine = np.flatnonzero(bulk.shoe == s)
        starts = bulk.start[mine].astype(int)
        ends = starts + bulk.n_noir[mine] + bulk.n_rouge[mine]
        assert starts[0] == burn
        assert np.array_equal(starts[1:], ends[:-1])  # rows follow each other: no card dealt twice
        assert ends[-1] <= rules.n_cards


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3_000), batch=st.integers(1, 50))
def test_bulk_dealing_does_not_depend_on_the_batch_size(seed, n, batch):
    rules = get_rules("family")
    a = deal_coups(rules, n, seed)
    b = deal_coups(rules, n, seed, batch_shoes=batch)
    for field in ("noir", "rouge", "first_black", "shoe", "start", "reshuffle"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field


def counted(coups) -> np.ndarray:
    """The tally of ``coups`` (:func:`deal_coups`' columns), counted in numpy."""
    expected = np.zeros(TALLY_SIZE, dtype=np.int64)
    dealt = coups.noir > 0
    np.add.at(expected, TALLY_NOIR + coups.noir[dealt].astype(int) - 31, 1)
    np.add.at(expected, TALLY_ROUGE + coups.rouge[dealt].astype(int) - 31, 1)
    decided = coups.result <= Result.ROUGE
    couleur = (couleur_wins(coups.result, coups.first_black) & decided).astype(int)
    np.add.at(expected, TALLY_RESULTS + 2 * coups.result.astype(int) + couleur, 1)
    return expected


@pytest.mark.parametrize("preset", ["classic", "exhaustion", "dead-cards"])
@pytest.mark.parametrize("n", [0, 1, 29, 4_321])
def test_the_tally_counts_the_very_coups_deal_coups_deals(preset: str, n: int) -> None:
    # tally_coups never writes a coup out: each count must be the one read off deal_coups' coups,
    # the last shoe cut at the n-th coup (29: inside the first shoe; 4,321: a few hundred shoes)
    rules = get_rules(preset)
    expected = counted(deal_coups(rules, n, 11))
    assert expected[TALLY_RESULTS:].sum() == n
    assert np.array_equal(tally_coups(rules, n, 11), expected)


@given(seed=st.integers(0, 2**64 - 1), size=st.integers(1, 320), cuts=st.lists(st.integers(0, 170), max_size=4))
def test_a_shuffle_in_pieces_is_the_whole_shuffle(seed, size, cuts):
    # the tally shuffles a shoe only as far as it deals it, the rest when a coup reads further: each
    # piece settles its positions as the whole shuffle does, wherever the pieces end (even sizes and
    # odd, a piece of nothing, a piece past the end)
    whole = np.arange(size, dtype=np.int16)
    shuffle(whole, np.uint64(seed))
    pieces = np.arange(size, dtype=np.int16)
    state, settled = np.uint64(seed), 0
    for stop in [*sorted(2 * c for c in cuts), size]:
        state, settled = _shuffle_from(pieces, np.uint64(state), settled, stop)
        assert settled == size or settled >= stop and settled % 2 == 0
        assert np.array_equal(pieces[:settled], whole[:settled])
    assert settled == size
    assert np.array_equal(pieces, whole)


@pytest.mark.parametrize("rules", [get_rules("classic"), RuleSet(decks=2, cut_card=20, burn=3, dead_cards=4)])
def test_the_tally_deals_again_a_coup_that_reads_past_the_shuffled_cards(rules: RuleSet) -> None:
    # a shoe is shuffled to SHUFFLE_AHEAD cards past its cut card; the coups that end further are
    # dealt again once the rest is shuffled, and every count is still deal_coups' (whole shuffles)
    coups = deal_coups(rules, 60_000, 5)
    ends = coups.start.astype(int) + coups.n_noir + coups.n_rouge
    assert np.sum(ends > rules.n_cards - max(rules.cut_card, rules.dead_cards) + SHUFFLE_AHEAD) >= 5
    assert np.array_equal(tally_coups(rules, 60_000, 5), counted(coups))


@pytest.mark.parametrize("rules", [get_rules("classic"), RuleSet(decks=2, cut_card=20, burn=3, dead_cards=4)])
def test_the_first_coups_tallied_are_the_coups_a_table_deals_first(rules: RuleSet) -> None:
    # tally_first_coups shuffles a shoe only to COUP_CARDS + SHUFFLE_AHEAD cards past the burn: its
    # counts must be those of the coup a table deals first from the whole shuffle (the croupier's
    # next_coup, as the environment deals it). No first coup here reads that far (the longest takes
    # 21 cards); a coup that does is dealt again, as the tally's test above shows.
    seeds = shuffle_seeds(np.random.default_rng(3), 20_000)
    table, cards = table_rules(rules), np.empty(rules.n_cards, np.uint8)
    expected = np.zeros(TALLY_SIZE, np.int64)
    for seed in seeds:
        noir, rouge, result, couleur, start, _, end, _ = next_coup(cards, 0, True, seed, table)
        assert start == rules.burn and end <= rules.burn + COUP_CARDS + SHUFFLE_AHEAD
        if noir > 0:
            expected[TALLY_NOIR + noir - 31] += 1
            expected[TALLY_ROUGE + rouge - 31] += 1
        expected[TALLY_RESULTS + 2 * result + couleur] += 1
    assert np.array_equal(tally_first_coups(rules, seeds), expected)
    assert np.array_equal(tally_first_coups(rules, seeds[:0]), np.zeros(TALLY_SIZE, np.int64))


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 6_000), batch=st.integers(1, 100))
def test_the_tally_does_not_depend_on_the_batch_size(seed, n, batch):
    # a batch that runs past the n-th coup is cut inside a group of shoes dealt by one thread, at
    # its first shoe, its last or between: small batches put that cut everywhere
    rules = get_rules("family")
    assert np.array_equal(tally_coups(rules, n, seed, batch_shoes=batch), tally_coups(rules, n, seed))


def test_the_tally_kernel_refuses_arrays_too_short_for_its_shoes():
    rules = get_rules("classic")
    seeds = np.arange(TALLY_GROUP + 1, dtype=np.uint64)  # two groups of shoes
    base = new_shoe(rules.decks)
    one = (np.empty((1, rules.n_cards), np.uint8), np.empty((1, TALLY_SIZE), np.int64))
    two = (np.empty((2, rules.n_cards), np.uint8), np.empty((2, TALLY_SIZE), np.int64))
    dealt = np.empty(seeds.size, np.int64)
    for cards, tallies, counts in ((one[0], two[1], dealt), (two[0], one[1], dealt), (*two, dealt[:-1])):
        with pytest.raises(ValueError, match="fewer tallies, shoes or counts"):
            _tally_shoes(cards, base, seeds, (0, 52, 0), tallies, counts, base.size)
    with pytest.raises(ValueError, match="another size"):
        _tally_shoes(two[0][:, :-1], base, seeds, (0, 52, 0), two[1], dealt, base.size)
    _tally_shoes(two[0], base, seeds, (0, 52, 0), two[1], dealt, base.size)
    assert two[1][:, TALLY_RESULTS:].sum() == dealt.sum() > 0


def test_a_tally_batch_holds_at_least_one_shoe():
    with pytest.raises(ValueError, match="at least one shoe"):
        tally_coups(get_rules("classic"), 10, 0, batch_shoes=0)

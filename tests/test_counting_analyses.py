"""Card counting's analyses: the effects of removal, a published figure, the linear count, and the
perfect counter over shoes dealt by the project's dealer (its realised gain against its expectation)."""

import numpy as np
import pytest

from trente_env.cards import CARD_BLACK, CARD_VALUE, new_shoe
from trente_env.counting.advantage import box_values, fresh_prisoner, prisoner_exact
from trente_env.counting.counters import best_ev_by_depth, study_shoes
from trente_env.counting.removal import KINDS, effects_of_removal, linear_count
from trente_env.dealer import deal_coups, shuffle, shuffle_seeds
from trente_env.odds import exact_odds, full_counts
from trente_env.rules import get_rules


def dealt_counts(cards_left: int, seed: int) -> np.ndarray:
    """The unseen cards of a six-pack shoe shuffled by the dealer, cut ``cards_left`` before its end."""
    cards = new_shoe(6)
    shuffle(cards, shuffle_seeds(np.random.default_rng(seed), 1)[0])
    rest = cards[cards.size - cards_left :]
    return np.bincount(np.where(CARD_BLACK[rest], 0, 10) + CARD_VALUE[rest] - 1, minlength=20)


# -- effects of removal --------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "linear"), [("partage", 4), ("family", 4), ("lenient-couleur", 2)])
def test_effects_of_removal_weighted_by_the_full_shoe_sum_to_zero(preset, linear):
    # taking out a card nobody sees does not change the next coup: exact for the chances and for the
    # expected gains linear in them (half, insured and spared stakes: the first ``linear`` boxes are
    # reckoned from the end for lenient-couleur, whose Noir and Rouge stakes go to prison)
    rules = get_rules(preset)
    effects = effects_of_removal(rules)
    refait, ev = effects.weighted_sums()
    assert abs(refait) < 1e-13
    assert np.abs(ev[4 - linear :, 0]).max() < 1e-13
    if rules.insurance:
        assert np.abs(ev[:, 1]).max() < 1e-13
    assert np.abs(effects.d_refait).max() > 1e-5  # and the effects themselves are not zero


def test_under_prison_the_weighted_effects_nearly_cancel():
    # the prisoner's value is not linear in the chances: the effects cancel only to second order
    effects = effects_of_removal(get_rules("classic"))
    refait, ev = effects.weighted_sums()
    spread = np.einsum("k,kbi->bi", effects.cards.astype(float), np.abs(effects.d_ev))
    assert abs(refait) < 1e-13
    assert (np.abs(ev[:, 0]) < 0.01 * spread[:, 0]).all()


def test_colour_enters_only_couleur_and_inverse():
    effects = effects_of_removal(get_rules("classic"))
    black, red = effects.d_ev[:10], effects.d_ev[10:]
    assert np.allclose(effects.d_refait[:10], effects.d_refait[10:], atol=1e-15)
    assert np.allclose(black[:, :2], red[:, :2], atol=1e-15)  # Noir and Rouge do not see colours
    # a black card out favours Inverse exactly as much as a red one favours Couleur (up to the
    # prisoner's value, which follows the box's own chances)
    assert np.allclose(black[:, 2, 1], red[:, 3, 1], atol=1e-15)
    assert np.allclose(black[:, 2, 1] - black[:, 3, 1], -(red[:, 2, 1] - red[:, 3, 1]), atol=1e-15)
    assert KINDS[0] == "black 1" and KINDS[19] == "red 10"


def test_stored_effects_of_removal_are_what_the_code_computes():
    rules = get_rules("partage", decks=1, cut_card=13)
    stored, fresh = effects_of_removal(rules), effects_of_removal(rules, recompute=True)
    assert np.nanmax(np.abs(stored.d_ev - fresh.d_ev)) < 1e-13
    assert np.abs(stored.d_refait - fresh.d_refait).max() < 1e-13


def test_the_published_one_deck_figures_hold_under_partage():
    # beatablegames.com (trente-et-quarante, "Il 31 après"): on a balanced remainder of 52 cards the
    # bank's edge on an even stake is 1.087%, and 1.033% once an ace is gone. Those are P(refait)/2:
    # the edge when a refait takes half of the stake (partage). The figures are printed to three
    # decimals of a percent, so they are within 0.0005% (5e-6) of the true values; the prison rule
    # would give 1.113% and 1.056%, far outside that.
    rules = get_rules("partage")
    one_deck = full_counts(1)
    no_ace = one_deck.copy()
    no_ace[0] -= 1
    edges = [-box_values(exact_odds(c), rules).ev[0] for c in (one_deck, no_ace)]
    assert abs(edges[0] - 0.01087) < 5e-6
    assert abs(edges[1] - 0.01033) < 5e-6
    prison = -box_values(exact_odds(one_deck), get_rules("classic")).ev[0]
    assert abs(prison - 0.01087) > 2e-4


def test_the_linear_count_is_exact_after_one_card():
    effects = effects_of_removal(get_rules("classic"))
    count = linear_count(effects)
    n = int(effects.cards.sum())
    for kind in (0, 9, 14):
        seen = np.zeros(20)
        seen[kind] = 1
        estimate = count.estimate(seen, n - 1)
        assert np.allclose(estimate, effects.ev + effects.d_ev[kind], atol=1e-15)


# -- the counters over dealt shoes ---------------------------------------------------------------


def test_the_study_deals_the_dealers_shoes():
    rules = get_rules("classic")
    study = study_shoes(rules, 40, 21)
    coups = deal_coups(rules, 40 * 30, 21, whole_shoes=True)
    for s in range(40):
        starts = coups.start[coups.shoe == s]
        assert list(rules.n_cards - starts) == list(study.left[s, : study.coups[s]]), s
    assert (study.left[study.left > 0] >= rules.cut_card).all()


def test_dead_cards_are_never_dealt():
    rules = get_rules("dead-cards")
    study = study_shoes(rules, 30, 2)
    left, _, _ = study.coup_table()
    assert left.min() >= 0 and left.max() == rules.n_cards - 5


def test_noir_and_rouge_never_tempt_the_perfect_counter():
    # P(Noir) = P(Rouge) in every shoe: their expected gain is never positive, so every stake made
    # goes on Couleur or Inverse; the best gain on offer is never below the insured stake's -1%
    study = study_shoes(get_rules("exhaustion"), 60, 8)
    _, best, _ = study.coup_table()
    assert best.min() >= -0.0101
    assert (best > 0).any()


def test_the_best_gain_on_offer_spreads_as_the_shoe_runs_down():
    study = study_shoes(get_rules("exhaustion"), 400, 9)
    table = best_ev_by_depth(study)
    assert table.coups.sum() == study.coups.sum()
    spread = table.quantiles[:, -1] - table.quantiles[:, 1]  # 99% - 10% quantiles
    assert spread[1] > spread[5] > spread[-1]  # 13-19 cards, 52-77, 260-312
    assert table.favourable[-1] == 0.0 < table.favourable[1]
    assert table.exact_share[0] == 1.0 and table.exact_share[-1] == 0.0
    summary = study.summary()
    assert summary["perfect"]["bets_per_shoe"] == pytest.approx(study.bets.mean())
    assert summary["linear"]["capture"]["mean"] == pytest.approx(study.capture().mean)


def test_bad_dead_card_counts_are_refused_in_one_line():
    rules = get_rules("exhaustion")
    for dead in (-1, 312, 2.5, "five"):
        with pytest.raises(ValueError, match="dead_cards|dead cards") as info:
            rules.replace(dead_cards=dead)
        assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="at least 1"):
        study_shoes(rules, 0, 1)


def test_the_perfect_counters_realised_gain_agrees_with_its_expectation():
    # partage, dealt to exhaustion: every expected gain is exact (no prisoner) given the odds.
    # Per shoe, realised - expected has mean 0; its standard error comes from the shoes themselves
    # (seeded), and we allow 4 of them (a false alarm in about 1 run in 16,000).
    study = study_shoes(get_rules("partage", cut_card=0), 1500, 4)
    diff = study.realised - study.expected
    se = diff.std(ddof=1) / np.sqrt(diff.size)
    assert study.bets.sum() > 500
    assert abs(diff.mean()) < 4 * se
    assert study.gain().mean > 0  # the perfect counter does find favourable coups at the end


@pytest.mark.slow
def test_the_perfect_counters_realised_gain_agrees_with_its_expectation_under_prison():
    # classic rules: the prisoner's value is the stated approximation; 20,000 shoes, 4 standard errors
    study = study_shoes(get_rules("exhaustion"), 20_000, 5)
    diff = study.realised - study.expected
    assert abs(diff.mean()) < 4 * diff.std(ddof=1) / np.sqrt(diff.size)
    diff = study.linear_realised - study.linear_expected
    assert abs(diff.mean()) < 4 * diff.std(ddof=1) / np.sqrt(diff.size)


# -- the prisoner's value: the stated approximation against the exact recursion ------------------


def test_a_prisoner_whose_shoe_runs_out_is_worth_its_fresh_shoe_value():
    # 12 cards: after a refait (at least 8 cards) the next coup can only be void
    rules = get_rules("exhaustion")
    counts = np.zeros(20, np.int64)
    counts[[0, 9, 10, 19]] = [1, 5, 1, 5]
    assert exact_odds(counts).p_refait > 0.1  # ten-ten-ten-ace twice
    assert prisoner_exact(counts, 0, rules) == pytest.approx(fresh_prisoner(rules)[0], abs=1e-15)


@pytest.mark.parametrize("second", ["lost", "stays"])
def test_the_approximate_prisoner_is_close_to_the_exact_one(second):
    # measured on ten dealt shoes (module notes): the approximation errs on the prisoner's value by
    # 4.6e-3 (rms) and 1.1e-2 at most at 20 cards left, 1.5e-3 and 4.2e-3 at 24; 1.5e-2 bounds both
    rules = get_rules("exhaustion", second_refait=second)
    for seed in (1, 2):
        counts = dealt_counts(22, seed)
        exact = prisoner_exact(counts, 0, rules)
        odds = exact_odds(counts)
        approx = box_values(odds, rules).prisoner[0]
        assert 0.3 < exact < 0.7
        assert abs(approx - exact) < 1.5e-2, (seed, approx, exact)


def test_prisoner_exact_refuses_the_second_prison():
    with pytest.raises(ValueError, match="second_prison"):
        prisoner_exact(full_counts(1), 0, get_rules("second-prison"))

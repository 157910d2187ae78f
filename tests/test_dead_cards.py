"""The dead-card rule: the last ``dead_cards`` cards of the shoe are never dealt.

One dealing path (:func:`trente_env.dealer.deal_next`) carries the rule to the bulk dealer, the
single environment, the vector environment, the tournament's compiled loop and the counters; these
tests check that they all deal the same coups under the ``dead-cards`` preset, that the coups keep
out of the dead cards, and that the exact odds of :mod:`trente_env.counting` (which count the dead
cards among the unseen ones) agree with the dealt frequencies.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from strategies import LINEUP, make_strategy
from strategies.runner import play_on_env, session_seed
from strategies.sessions import play_compiled
from trente_env.codes import Result
from trente_env.dealer import deal_coups, deal_next
from trente_env.env import TrenteEtQuaranteEnv
from trente_env.odds import exact_odds, full_counts
from trente_env.rules import PRESETS, RuleSet, get_rules


def test_the_preset_is_classic_dealt_to_the_end_but_for_five_dead_cards():
    rules = PRESETS["dead-cards"]
    assert rules == PRESETS["classic"].replace(cut_card=0, dead_cards=5)
    assert "the last 5 cards dead" in rules.describe()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dead_cards": -1}, "cannot be negative"),
        ({"dead_cards": 312}, "leave no cards"),
        ({"dead_cards": 300, "burn": 12}, "leave no cards"),
        ({"dead_cards": 2.5}, "whole number"),
    ],
)
def test_impossible_dead_card_counts_are_refused_in_one_line(options, message):
    with pytest.raises(ValueError, match=message) as info:
        RuleSet(**options)
    assert "\n" not in str(info.value)
    RuleSet(cut_card=0, dead_cards=311)  # one card to deal is enough


def test_a_coup_that_would_need_a_dead_card_is_void():
    # ten-valued cards (code 9 is a ten of spades): a row takes 4 of them (40), a coup 8
    tens = np.full(20, 9, dtype=np.uint8)
    noir, rouge, _, end, reshuffle = deal_next(tens, 0, 0, 12)  # 8 cards can be dealt: a whole coup
    assert (noir, rouge, end, reshuffle) == (40, 40, 8, True)  # it took the last live card
    noir, rouge, _, end, reshuffle = deal_next(tens, 0, 0, 13)  # 7 cards: the Rouge row needs a dead one
    assert (noir, rouge, end, reshuffle) == (0, 0, 7, True)
    noir, rouge, _, end, reshuffle = deal_next(tens, 0, 0, 0)
    assert (noir, rouge, end, reshuffle) == (40, 40, 8, False)


def test_the_cut_card_keeps_its_place_counted_from_the_real_end():
    tens = np.full(40, 9, dtype=np.uint8)
    # cut card 20 from the end, 5 dead: it comes out with the card at position 20, as without dead cards
    assert [deal_next(tens, pos, 20, 5)[4] for pos in (0, 8, 16)] == [False, False, True]
    assert [deal_next(tens, pos, 20, 0)[4] for pos in (0, 8, 16)] == [False, False, True]
    # 5 dead cards behind a cut card 3 from the end: the shoe ends with the 35 dealable cards
    assert [deal_next(tens, pos, 3, 5)[4] for pos in (0, 8, 16, 24, 27)] == [False, False, False, False, True]
    assert deal_next(tens, 27, 3, 5)[3] == 35


def test_dealt_shoes_never_reach_the_dead_cards():
    rules = get_rules("dead-cards")
    coups = deal_coups(rules, 6_000, 3, whole_shoes=True)
    live = rules.n_cards - rules.dead_cards
    end = coups.start.astype(int) + coups.n_noir + coups.n_rouge
    result, last = coups.result, coups.reshuffle
    void = result == Result.VOID
    assert (end[~void] <= live).all()
    assert ((void[last]) | (end[last] == live)).all()  # each shoe ends on a void coup or its last live card
    assert not void[~last].any()
    assert void[last].any() and not void[last].all()  # both endings happen (the void one about 9 times in 10)


def test_the_single_env_deals_the_bulk_dealers_coups():
    rules = get_rules("dead-cards")
    env = TrenteEtQuaranteEnv(rules, action_form="discrete", observe_shoe=True, coup_info=True)
    env.reset(seed=5)
    infos, lefts = [], []
    for _ in range(150):  # five shoes and more
        obs, _, _, _, info = env.step(0)
        infos.append(info)
        lefts.append((float(obs["cards_left"][0]), float(obs["shoe"].sum())))
    coups = deal_coups(rules, 150, 5, keep_cards=True)
    assert [i["noir"] for i in infos] == coups.noir.tolist()
    assert [i["rouge"] for i in infos] == coups.rouge.tolist()
    assert (coups.result == Result.VOID).sum() >= 3
    # what the player sees: the cards left to deal exclude the dead ones, the unseen cards include them
    live = rules.n_cards - rules.dead_cards
    for k, (left, unseen) in enumerate(lefts):
        if coups.reshuffle[k]:
            assert (left, unseen) == (live, rules.n_cards)
        else:
            end = int(coups.start[k]) + int(coups.n_noir[k]) + int(coups.n_rouge[k])
            assert (left, unseen) == (live - end, rules.n_cards - end)


def test_the_compiled_sessions_equal_the_vector_env_and_the_vector_env_the_single_env():
    rules = get_rules("dead-cards", table_max=40)
    policies = [make_strategy(spec, rules) for spec in LINEUP]
    seeds = [session_seed(4, i) for i in range(24)]
    fast = play_compiled(policies, rules, 70.0, 90, seeds, keep=10, threads=2)
    for spec, policy, got in zip(LINEUP, policies, fast):
        want = play_on_env(policy, rules, 70.0, 90, seeds, keep=10)
        for key in want:
            assert np.array_equal(got[key], want[key]), (spec, key)
    # one table of the vector env is the single env with the same seed (coup after coup, 3 shoes)
    rules = get_rules("dead-cards")
    venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=1, rules=rules, action_form="discrete", bankroll=10_000)
    env = TrenteEtQuaranteEnv(rules, action_form="discrete", bankroll=10_000)
    venv.reset(seed=8)
    env.reset(seed=8)
    rng = np.random.default_rng(1)
    for _ in range(100):
        action = int(rng.integers(env.action_space.n))
        _, reward, _, _, info = env.step(action)
        _, vreward, _, _, _ = venv.step(np.array([action]))
        assert reward == vreward[0]


def test_the_exact_odds_with_dead_cards_agree_with_the_dealt_first_coups():
    # One pack, 35 cards burnt and 5 dead: the first coup of every shoe is dealt from 12 cards, and to
    # a player who saw none of them its odds are the exact odds of the full pack with 40 of its 52
    # cards never dealt. Each frequency over n independent shoes is within 4.5 binomial standard
    # errors sqrt(p (1 - p) / n) of its exact probability (seeded: the check is deterministic).
    rules = RuleSet(decks=1, cut_card=0, burn=35, dead_cards=5)
    n = 60_000
    coups = deal_coups(rules, n * 3, 17, whole_shoes=True)
    first = np.r_[True, np.diff(coups.shoe) > 0]
    result = coups.result[first][:n]
    couleur = coups.couleur[first][:n]
    assert result.size == n
    odds = exact_odds(full_counts(1), dead=40)
    decided = (result == Result.NOIR) | (result == Result.ROUGE)
    checks = {
        "void": (result == Result.VOID, odds.p_void),
        "refait": (result == Result.REFAIT, odds.p_refait),
        "apres": (result == Result.APRES, odds.p_apres),
        "noir": (result == Result.NOIR, odds.p_noir),
        "couleur": (decided & couleur, odds.p_couleur),
    }
    assert odds.p_void > 0.05  # the rule matters here: about one first coup in eleven is void
    for name, (hits, p) in checks.items():
        se = np.sqrt(p * (1 - p) / n)
        assert abs(hits.mean() - p) < 4.5 * se, (name, hits.mean(), p)

"""The card counters as players (``counter``, ``linear-counter``): their decisions, their place in the
registry and the tournament, and their realised gain against the count analysis."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.errors import TournamentError
from experiments.tournament.config import make_config
from experiments.tournament.runner import run_task
from strategies import COUNTERS, LINEUP, STRATEGIES, StrategyError, make_strategy
from strategies.runner import play_on_env, session_seeds
from trente_env.cards import new_shoe
from trente_env.codes import INSURE, PRISON, STAKE
from trente_env.counting.advantage import box_values
from trente_env.counting.counters import _KIND, study_shoes
from trente_env.counting.removal import effects_of_removal, linear_count
from trente_env.dealer import shuffle
from trente_env.odds import full_counts, shoe_odds
from trente_env.rules import get_rules


def _remainders(rules, depths, per_depth: int, seed: int) -> list[tuple[np.ndarray, int]]:
    """(unseen counts, cards left to deal) of shoes shuffled by the dealer and dealt down to each
    depth; the burnt and dead cards stay unseen and are never dealt."""
    rng = np.random.default_rng(seed)
    out = []
    for left in depths:
        for _ in range(per_depth):
            cards = new_shoe(rules.decks)
            shuffle(cards, int(rng.integers(2**63)))
            unseen = cards[rules.n_cards - left - rules.dead_cards - rules.burn :]
            out.append((np.bincount(_KIND[unseen], minlength=20), left))
    return out


def _observe(remainders) -> dict[str, np.ndarray]:
    shoe = np.array([c for c, _ in remainders], dtype=np.float32)
    left = np.array([[n] for _, n in remainders], dtype=np.float32)
    return {"shoe": shoe, "cards_left": left}


@pytest.mark.parametrize("preset", ["exhaustion", "dead-cards"])
def test_the_perfect_counter_bets_exactly_when_the_best_bet_is_favourable(preset: str) -> None:
    """Its action, against the odds computed afresh for each remaining shoe (the odds of
    :func:`shoe_odds`, the best bet picked in Python by :class:`BoxValues`): a stake of ``base`` on a
    bet worth the best expected gain when that is positive, nothing otherwise."""
    rules = get_rules(preset)
    counter = make_strategy("counter:base=2", rules)
    remainders = _remainders(rules, (5, 12, 19, 26, 40, 64, 90, 200), 6, seed=3)
    actions, state = counter.act(_observe(remainders))
    assert state is None and actions.shape == (len(remainders), 12)
    favourable = 0
    for (counts, left), row in zip(remainders, actions):
        values = box_values(shoe_odds(counts, counts.sum() - left), rules)
        _, _, best = values.best
        stakes = row[STAKE : STAKE + 4]
        if best > 1e-12:
            favourable += 1
            (box,) = np.flatnonzero(stakes)
            assert stakes[box] == 2
            taken = values.ev_insured[box] if row[INSURE + box] else values.ev[box]
            assert taken == pytest.approx(best, abs=1e-12)
        elif best < -1e-12:
            assert not stakes.any(), (counts, left, best)
    assert 0 < favourable < len(remainders)  # the sample holds both kinds of shoe


def test_no_counter_bets_on_a_full_shoe_or_with_no_favourable_bet() -> None:
    rules = get_rules("exhaustion")
    full = np.tile(full_counts(rules.decks), (3, 1)).astype(np.float32)
    obs = {"shoe": full, "cards_left": np.full((3, 1), rules.n_cards, np.float32)}
    for name in COUNTERS:
        actions, _ = make_strategy(name, rules).act(obs)
        assert not actions[:, STAKE : STAKE + 4].any()
    # a threshold above every expected gain on offer: never a stake, whatever the shoe
    remainders = _remainders(rules, (4, 8, 13, 20), 10, seed=5)
    actions, _ = make_strategy("counter:threshold=0.9", rules).act(_observe(remainders))
    assert not actions[:, STAKE : STAKE + 4].any()


def test_the_linear_counter_follows_the_linear_count() -> None:
    """Its action against the count's estimate computed in Python (:meth:`LinearCount.estimate`)."""
    rules = get_rules("dead-cards")
    count = linear_count(effects_of_removal(rules))
    remainders = _remainders(rules, (6, 13, 20, 30, 52, 100), 8, seed=11)
    actions, _ = make_strategy("linear-counter", rules).act(_observe(remainders))
    bets = 0
    for (counts, _), row in zip(remainders, actions):
        estimate = count.estimate(full_counts(rules.decks) - counts, int(counts.sum()))
        best = estimate.max()
        stakes = row[STAKE : STAKE + 4]
        if best > 1e-12:
            bets += 1
            (box,) = np.flatnonzero(stakes)
            assert estimate[box, int(row[INSURE + box])] == pytest.approx(best, abs=1e-12)
        elif best < -1e-12:
            assert not stakes.any()
    assert bets > 0


def test_under_the_choice_rule_the_counters_ask_for_prison_by_the_prisoners_value() -> None:
    rules = get_rules("classic", refait="choice")
    remainders = _remainders(rules, (10, 60, 250), 2, seed=2)
    for (counts, left), row in zip(remainders, make_strategy("counter", rules).act(_observe(remainders))[0]):
        prisoner = box_values(shoe_odds(counts, counts.sum() - left), rules).prisoner
        assert (row[PRISON : PRISON + 4] == (prisoner > 0.5)).all()


def test_the_counters_are_made_from_specs_but_not_in_the_default_line_up() -> None:
    rules = get_rules("classic")
    assert set(COUNTERS) == {"counter", "linear-counter"} and not set(COUNTERS) & set(STRATEGIES)
    assert not set(COUNTERS) & {spec.split(":")[0] for spec in LINEUP}
    counter = make_strategy("counter:threshold=0.001,base=3", rules)
    assert counter.spec() == "counter:base=3,threshold=0.001"
    assert make_strategy(counter.spec(), rules) == counter
    assert make_strategy("linear-counter", rules).env_kwargs()["observe_shoe"]
    for bad in ("counter:base=0", "counter:threshold=x", "counter:exact_box=-1", "linear-counter:unit=2"):
        with pytest.raises(StrategyError):
            make_strategy(bad, rules)
    with pytest.raises(ValueError, match="observe_shoe"):
        counter.act({"bankroll": np.ones((1, 1))})
    assert make_config().specs == make_config("all").specs  # no counter unless named
    with pytest.raises(TournamentError, match="counter"):
        make_config("counter:base=-1")


def test_in_a_tournament_the_counters_play_the_sessions_of_the_env_path() -> None:
    """A tournament's block of counters (and a system beside them) equals those sessions played on the
    shoe-observing vector env, to the chip; the counters play alone, off the compiled loop."""
    config = make_config(
        "flat:box=couleur,counter,linear-counter", sessions=24, coups=60, rules=get_rules("exhaustion"), seed=4
    )
    assert config.groups() == [(0,), (1,), (2,)] and config.card_counters() == ["counter", "linear-counter"]
    rules = config.ruleset()
    seeds = session_seeds(4, 24)
    for s in (1, 2):
        block = run_task(config, 0, (s,))[s]
        alone = play_on_env(make_strategy(config.specs[s], rules), rules, 1000.0, 60, seeds)
        for key in ("net", "staked", "coups", "final_bankroll", "box_stakes"):
            np.testing.assert_array_equal(block[key], alone[key])
    assert block["staked"].sum() > 0


@pytest.mark.slow
def test_the_perfect_counters_realised_gain_agrees_with_the_count_analysis() -> None:
    """Sessions of the ``counter`` entrant on ``exhaustion`` against :func:`study_shoes` (the count
    analysis, other shoes): gain per coup. The tolerance is three standard errors of the difference
    (the sessions' by the delta method of a ratio of sums over independent sessions, the study's
    over independent shoes) plus a bound of the bias of cutting sessions mid-shoe: a session is
    about ``coups / 31`` shoes, and its last, cut one, misses at most one shoe's gain, so the rate
    per coup may be low by at most 1/(shoes per session) of itself. At these sizes the test flags
    errors of a few hundredths of a unit per shoe (a counter betting the wrong way, prisoners
    miscounted), not the +0.008 itself."""
    rules = get_rules("exhaustion")
    sessions, coups = 240, 310
    run = play_on_env(make_strategy("counter", rules), rules, 1000.0, coups, session_seeds(21, sessions))
    net, played = run["net"], run["coups"].astype(float)
    rate = net.sum() / played.sum()
    resid = net - rate * played
    se_rate = resid.std(ddof=1) * np.sqrt(sessions) / played.sum()
    study = study_shoes(rules, 4000, seed=21)
    per_coup = study.expected.sum() / study.coups.sum()
    e_resid = study.expected - per_coup * study.coups
    se_study = e_resid.std(ddof=1) * np.sqrt(study.shoes) / study.coups.sum()
    bias = abs(per_coup) * study.coups.mean() / coups
    assert per_coup > 0 and run["staked"].sum() > 0
    assert abs(rate - per_coup) <= 3 * np.hypot(se_rate, se_study) + bias, (rate, per_coup, se_rate, se_study)

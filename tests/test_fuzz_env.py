"""Property tests of the single environment: any rules, any action (legal, absurd or malformed), any
session length; every coup keeps the money and the cards honest (docs/rules.md#invariants-of-every-coup).

Each example builds an environment from a random preset (with a random low table maximum, tiny or
huge bankroll, target and time limit), observation form, action form and ``observe_shoe``, then
plays up to 40 steps of random actions: legal ones, stakes of NaN, +-inf, negative, above the
bankroll and the table maximum, and malformed actions (wrong shape or type), which must raise
ValueError and change nothing. Sessions that end are reset. 80 examples (a few seconds).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from _invariants import CardsSeen, check_coup, check_settle_box_in_python
from hypothesis import given, settings
from hypothesis import strategies as st

import trente_env  # noqa: F401  (registers the environments)
from trente_env.cards import CARD_BLACK, CARD_VALUE, composition
from trente_env.rules import MAX_MONEY, PRESETS, RIGGED_PRESETS, get_rules

WEIRD = (np.nan, np.inf, -np.inf, -1.0, -1e300, 0.5, 1e300, 2.0**63, 37.5)
FLAGS = (0.0, 1.0, 0.7, 0.2, np.nan, -1.0, 2.0)
MALFORMED = (np.zeros(11), np.zeros((2, 12)), np.zeros((3, 4)), np.array(["a"] * 12), [[1, 2], [3]], None, 2.5)


@st.composite
def setups(draw: st.DrawFn) -> dict:
    preset = draw(st.sampled_from([*PRESETS, *RIGGED_PRESETS]))
    table_max = draw(st.one_of(st.none(), st.integers(1, 60)))
    rules = get_rules(preset) if table_max is None else get_rules(preset, table_max=float(table_max))
    bankroll = draw(st.one_of(st.integers(1, 20_000).map(lambda c: c / 100), st.sampled_from([1e6, float(MAX_MONEY)])))
    target = draw(st.one_of(st.none(), st.floats(1.01, 3.0).map(lambda x: min(bankroll * x, float(MAX_MONEY)))))
    levels = tuple(sorted({1.0, min(5.0, rules.table_max), rules.table_max}))
    return {
        "rules": rules,
        "bankroll": bankroll,
        "target": target if target is not None and target > bankroll else None,
        "action_form": draw(st.sampled_from(["full", "discrete"])),
        "observation": draw(st.sampled_from(["dict", "flat"])),
        "observe_shoe": draw(st.booleans()),
        "history": draw(st.integers(1, 12)),
        "stake_levels": levels,
        "max_episode_steps": draw(st.integers(3, 30)),
    }


def _action(draw: st.DrawFn, env: gym.Env, setup: dict, rng: np.random.Generator):
    """A legal action, an absurd full one, or a malformed one (None: the caller expects ValueError)."""
    kind = draw(st.sampled_from(["sample", "sample", "weird", "malformed"]))
    if kind == "malformed":
        return draw(st.sampled_from(MALFORMED)), True
    if kind == "sample" or setup["action_form"] == "discrete":
        return env.action_space.sample(), False
    bankroll = env.unwrapped.bankroll
    stakes = [bankroll, 2 * bankroll, setup["rules"].table_max, setup["rules"].table_max + 1, 0.0, 1.0, *WEIRD]
    row = np.concatenate([rng.choice(stakes, 4), rng.choice(FLAGS, 8)])
    if rng.random() < 0.2:  # float32 actions too (1e300 becomes inf)
        with np.errstate(over="ignore"):
            row = row.astype(np.float32)
    return row, False


@settings(max_examples=80)
@given(setup=setups(), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 40), data=st.data())
def test_any_action_keeps_the_money_and_the_cards_honest(setup: dict, seed: int, steps: int, data: st.DataObject):
    rules = setup["rules"]
    env = gym.make("TrenteEtQuarante-v0", coup_info=True, **setup)
    env.action_space.seed(seed)
    rng = np.random.default_rng(seed)
    table = env.unwrapped
    obs, _ = env.reset(seed=seed)
    cards = CardsSeen(1, rules.decks)
    full = np.concatenate([composition(rules.decks) // 2] * 2)
    for _ in range(steps):
        action, malformed = _action(data.draw, env, setup, rng)
        before, prison_before, coups = table.bankroll, table.prison, int(table._tables.coups[0])
        last = table._tables.results[:, 0].copy()  # the previous coup: what a rigged table pays Noir by
        if malformed:
            with pytest.raises(ValueError):
                env.step(action)
            assert table.bankroll == before and int(table._tables.coups[0]) == coups  # nothing happened
            continue
        rows = table.layout.actions(action)
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        one = lambda x: np.asarray(x)[None]  # noqa: E731
        check_coup(
            rules, one(before), one(prison_before), rows, one(info["stakes"]), one(info["insured"]), one(info["back"]),
            one(table.prison), one(table.bankroll), one(info["result"]), one(info["couleur"]), last=last,
        )  # fmt: skip
        check_settle_box_in_python(
            rules, rows, one(info["stakes"]), one(info["insured"]), one(prison_before), one(info["back"]),
            one(info["result"]), one(info["couleur"]), last,
        )  # fmt: skip
        assert reward == table.bankroll - before
        # the cards: each dealt once per shuffle, rows adding up to their totals
        dealt = info["noir_cards"] + info["rouge_cards"]
        cards.deal(0, dealt)
        if info["noir"]:
            assert sum(int(CARD_VALUE[c]) for c in info["noir_cards"]) == info["noir"]
            assert sum(int(CARD_VALUE[c]) for c in info["rouge_cards"]) == info["rouge"]
        if setup["observe_shoe"]:
            seen = np.zeros(20, dtype=np.int64)
            if not info["reshuffle"]:
                for code in range(52):
                    seen[(0 if CARD_BLACK[code] else 10) + CARD_VALUE[code] - 1] += cards.counts[0, code]
            shoe = obs["shoe"] if setup["observation"] == "dict" else None
            if shoe is not None:
                assert np.array_equal(shoe, full - seen)
                # the dead cards are never dealt, so never left to deal (docs/rules.md#cards-and-the-shoe)
                dealable = rules.n_cards - rules.dead_cards - rules.burn
                left = dealable - (int(cards.counts[0].sum()) if not info["reshuffle"] else 0)
                assert obs["cards_left"][0] == left
        if info["reshuffle"]:
            cards.new_shoe(0)
        free = not table.prison.any()
        ends = table.bankroll < rules.table_min or (setup["target"] is not None and table.bankroll >= setup["target"])
        assert terminated == (free and ends)
        if terminated or truncated:
            obs, _ = env.reset()
            cards.new_shoe(0)
            assert table.bankroll == setup["bankroll"] and env.observation_space.contains(obs)

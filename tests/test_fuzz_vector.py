"""Property tests of the native vector environment: 1 to 100,000 tables, any rules, any actions, both
autoreset modes; every coup of every table keeps the money and the cards honest
(docs/rules.md#invariants-of-every-coup).

``test_any_actions_at_a_few_tables`` (60 examples, 1 to 300 tables, up to 25 steps) draws a preset
(with a random low table maximum), a tiny bankroll, a target and a time limit, the observation and
action forms, ``observe_shoe`` and the autoreset mode, then plays random actions with absurd stakes
mixed in (NaN, +-inf, negative, above the bankroll and the table maximum), and malformed ones (wrong
shape or type), which must raise ValueError and change nothing. ``test_many_tables`` (4 examples)
does the same at 4,096 to 100,000 tables, where the multi-threaded kernels play, for a few steps.
"""

from __future__ import annotations

import numpy as np
import pytest
from _invariants import CardsSeen, check_coup, check_rows, check_settle_box_in_python
from gymnasium.vector import AutoresetMode
from hypothesis import given, settings
from hypothesis import strategies as st

from trente_env.cards import new_shoe
from trente_env.rules import PRESETS, RIGGED_PRESETS, get_rules
from trente_env.vector import TrenteEtQuaranteVectorEnv

WEIRD = np.array([np.nan, np.inf, -np.inf, -1.0, -1e300, 0.5, 1e300, 37.5, 0.0, 1.0, 2.0, 5.0])
FLAGS = np.array([0.0, 1.0, 0.7, 0.2, np.nan, -1.0])


@st.composite
def setups(draw: st.DrawFn, sizes: st.SearchStrategy[int]) -> dict:
    preset = draw(st.sampled_from([*PRESETS, *RIGGED_PRESETS]))
    table_max = draw(st.one_of(st.none(), st.integers(1, 60)))
    rules = get_rules(preset) if table_max is None else get_rules(preset, table_max=float(table_max))
    bankroll = draw(st.integers(1, 10_000)) / 100
    return {
        "num_envs": draw(sizes),
        "rules": rules,
        "bankroll": bankroll,
        "target": draw(st.one_of(st.none(), st.just(bankroll * 1.5))),
        "action_form": draw(st.sampled_from(["full", "discrete"])),
        "observation": draw(st.sampled_from(["dict", "flat"])),
        "observe_shoe": draw(st.booleans()),
        "history": draw(st.integers(1, 6)),
        "stake_levels": tuple(sorted({1.0, min(5.0, rules.table_max), rules.table_max})),
        "max_episode_steps": draw(st.one_of(st.none(), st.integers(2, 12))),
        "autoreset_mode": draw(st.sampled_from([AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])),
    }


def _actions(venv: TrenteEtQuaranteVectorEnv, rng: np.random.Generator) -> np.ndarray:
    n = venv.num_envs
    if venv.layout.action_form == "discrete":
        return rng.integers(0, venv.single_action_space.n, n)
    actions = venv.action_space.sample().astype(np.float64)
    weird = rng.random((n, 4)) < 0.3
    actions[:, :4] = np.where(weird, rng.choice(WEIRD, (n, 4)), actions[:, :4])
    actions[:, :4] = np.where(
        rng.random((n, 4)) < 0.1, venv.bankroll[:, None] * rng.choice([1, 2], (n, 4)), actions[:, :4]
    )
    actions[:, 4:] = np.where(rng.random((n, 8)) < 0.3, rng.choice(FLAGS, (n, 8)), actions[:, 4:])
    return actions


MALFORMED = (
    lambda n: np.zeros((n + 1, 12)),
    lambda n: np.zeros((n, 11)),
    lambda n: np.zeros(n * 12),
    lambda n: np.full((n, 12), "1"),
    lambda n: np.zeros((n, 12), dtype=complex),
    lambda n: np.zeros(n + 1, dtype=np.int64),
    lambda n: np.zeros(n, dtype=np.float64),
)


def play(setup: dict, seed: int, steps: int, malformed_every: int) -> dict[str, int]:
    """Play ``steps`` steps, checking every invariant after each; returns counts of what happened."""
    rules = setup["rules"]
    venv = TrenteEtQuaranteVectorEnv(**setup, coup_info=True)
    n = venv.num_envs
    rng = np.random.default_rng(seed)
    venv.action_space.seed(seed)
    obs, _ = venv.reset(seed=seed)
    tables = venv.tables
    fresh = np.ones(n, dtype=np.bool_)  # the shoe is shuffled before the table's next coup
    last_end = np.zeros(n, dtype=np.int64)
    sample = rng.choice(n, min(n, 3), replace=False)  # tables whose cards are also followed one by one
    cards = CardsSeen(n, rules.decks)
    base = np.sort(new_shoe(rules.decks))
    seen = {"coups": 0, "ended": 0, "prisoners": 0, "clipped": 0, "malformed": 0}
    for step in range(steps):
        if malformed_every and step % malformed_every == malformed_every - 1:
            bad = MALFORMED[rng.integers(len(MALFORMED))](n)
            before = tables.bankroll.copy()
            with pytest.raises(ValueError):
                venv.step(bad)
            assert np.array_equal(tables.bankroll, before)
            seen["malformed"] += 1
            continue
        actions = _actions(venv, rng)
        rows = venv.layout.actions(actions, n)
        before, prison_before = tables.bankroll.copy(), tables.prison.copy()
        last_result = tables.results[:, 0].copy()  # the previous coup: what a rigged table pays Noir by
        restarting = venv._done.copy() if venv.autoreset_mode is AutoresetMode.NEXT_STEP else np.zeros(n, bool)
        fresh |= restarting
        obs, reward, terminated, truncated, info = venv.step(actions)
        assert venv.observation_space.contains(obs)
        played = info["_stakes"]
        assert np.array_equal(played, ~restarting)
        done = terminated | truncated
        # after the coup, from the tables or (SAME_STEP, a table that ended and restarted) its last observation
        final = info.get("_final_obs", np.zeros(n, dtype=np.bool_))
        after, prison_after = tables.bankroll.copy(), tables.prison.copy()
        if final.any():
            last = info["final_obs"]
            o = venv.layout.offsets
            flat = last if isinstance(last, np.ndarray) else None
            money = last["bankroll"][:, 0] if flat is None else flat[:, o["bankroll"]]
            jail = last["prison"] if flat is None else flat[:, o["prison"] : o["prison"] + 8]
            after[final] = money[final]
            prison_after[final] = np.stack([jail[:, :4], jail[:, 4:]], axis=2)[final]
        p = played
        check_coup(
            rules, before[p], prison_before[p], rows[p], info["stakes"][p], info["insured"][p], info["back"][p],
            prison_after[p], after[p], info["result"][p], info["couleur"][p], exact=~final[p], last=last_result[p],
        )  # fmt: skip
        check_settle_box_in_python(
            rules, rows[p], info["stakes"][p], info["insured"][p], prison_before[p], info["back"][p],
            info["result"][p], info["couleur"][p], last_result[p],
        )  # fmt: skip
        assert np.array_equal(reward[p & ~final], (after - before)[p & ~final])
        assert np.allclose(reward[final], (after - before)[final], rtol=1e-6, atol=1e-3)
        assert (reward[restarting] == 0).all() and (tables.bankroll >= 0).all()
        # a session ends at ruin or at the target, with nothing in prison
        free = ~prison_after.any(axis=(1, 2))
        target = np.inf if setup["target"] is None else setup["target"]
        ends = free & ((after < rules.table_min) | (after >= target))
        assert np.array_equal(terminated[p & ~final], ends[p & ~final])
        # the cards: each coup starts where the last ended, or at the burn on a freshly shuffled shoe,
        # which holds every card of the packs once; rows add up to their totals
        noir, rouge, _, _, start, middle, end, reshuffle = tables.coup[p].T
        assert np.array_equal(start[fresh[p]], np.full(fresh[p].sum(), rules.burn))
        assert np.array_equal(start[~fresh[p]], last_end[p][~fresh[p]])
        shuffled = p & fresh
        if shuffled.any():
            assert (np.sort(tables.shoes[shuffled], axis=1) == base).all()
        check_rows(tables.shoes[p], start, middle, end, noir, rouge)
        for i in sample:
            if fresh[i]:
                cards.new_shoe(i)
            if p[i]:
                noir_cards, rouge_cards = venv.cards(i)
                cards.deal(i, np.concatenate([noir_cards, rouge_cards]))
        last_end[p] = end
        fresh[p] = reshuffle.astype(np.bool_)
        fresh |= final  # restarted in the same step: a new shoe
        if setup["autoreset_mode"] is AutoresetMode.SAME_STEP:
            assert (tables.coups[final] == 0).all() and (tables.bankroll[final] == setup["bankroll"]).all()
        seen["coups"] += int(p.sum())
        seen["ended"] += int(done.sum())
        seen["prisoners"] += int(prison_after.any(axis=(1, 2)).sum())
        seen["clipped"] += int(info["clipped"][p].sum())
    return seen


@settings(max_examples=60)
@given(setup=setups(st.integers(1, 300)), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 25))
def test_any_actions_at_a_few_tables(setup: dict, seed: int, steps: int) -> None:
    play(setup, seed, steps, malformed_every=7)


@settings(max_examples=4)
@given(setup=setups(st.sampled_from([4096, 20_000, 50_000, 100_000])), seed=st.integers(0, 2**32 - 1))
def test_many_tables(setup: dict, seed: int) -> None:
    seen = play(setup, seed, 4, malformed_every=3)
    assert seen["coups"] >= setup["num_envs"]

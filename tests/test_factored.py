"""The factored action form (bet or not, box, stake level): the discrete form's bets, in three parts."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import trente_env  # noqa: F401  (registers the ids)
from trente_env.layout import Layout
from trente_env.rules import get_rules
from trente_env.vector import TrenteEtQuaranteVectorEnv


def _layout(form: str, preset: str = "classic", levels: tuple[float, ...] = (1.0, 5.0, 25.0, 100.0)) -> Layout:
    return Layout(get_rules(preset), form, "flat", 4, False, levels)


@pytest.mark.parametrize("preset", ["classic", "main-bets"])
def test_the_factored_form_offers_exactly_the_discrete_forms_bets(preset: str) -> None:
    """Every row of the discrete menu is one factored action and back (the exact optima, taken over
    the menu, are the same); every factored action that sits out is the menu's row 0 whatever its
    box and level say."""
    discrete, factored = _layout("discrete", preset), _layout("factored", preset)
    np.testing.assert_array_equal(discrete.action_table, factored.action_table)
    assert tuple(factored.nvec) == (2, discrete.n_boxes, 4)
    rows = np.arange(discrete.action_table.shape[0])
    np.testing.assert_array_equal(factored.menu_rows(factored.factored(rows)), rows)
    every = np.stack(np.meshgrid(*[np.arange(n) for n in factored.nvec], indexing="ij"), -1).reshape(-1, 3)
    menu = factored.menu_rows(every)
    assert set(menu.tolist()) == set(rows.tolist())
    assert (menu[every[:, 0] == 0] == 0).all()
    np.testing.assert_array_equal(factored.actions(every, len(every)), discrete.action_table[menu])


def test_factored_actions_play_as_their_discrete_numbers_in_the_vector_env() -> None:
    """The same shoes, the factored actions and their discrete numbers: the same coups and money."""
    n = 6
    factored = TrenteEtQuaranteVectorEnv(n, action_form="factored", observation="flat", bankroll=200)
    discrete = TrenteEtQuaranteVectorEnv(n, action_form="discrete", observation="flat", bankroll=200)
    a, b = factored.reset(seed=11)[0], discrete.reset(seed=11)[0]
    rng = np.random.default_rng(0)
    staked = 0.0
    for _ in range(400):
        parts = rng.integers(0, factored.layout.nvec, size=(n, 3))
        a, ra, ta, *_ = factored.step(parts)
        b, rb, tb, *_ = discrete.step(factored.layout.menu_rows(parts))
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ta, tb)
        staked += float(np.abs(ra).sum())
    assert staked > 0  # stakes were placed and settled


def test_factored_actions_of_the_wrong_shape_or_range_are_refused_in_words() -> None:
    venv = TrenteEtQuaranteVectorEnv(2, action_form="factored")
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        venv.step(np.array([[1, 0, 4], [0, 0, 0]]))
    with pytest.raises(ValueError, match="3 whole numbers per table"):
        venv.step(np.zeros(2, dtype=np.int64))
    env = gym.make("TrenteEtQuarante-v0", action_form="factored").unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([2, 0, 0]))
    with pytest.raises(ValueError, match="3 whole numbers"):
        env.step(3)


def test_the_single_env_plays_a_factored_action_as_its_menu_row() -> None:
    kwargs = {"observation": "flat", "bankroll": 300, "coup_info": True}
    a = gym.make("TrenteEtQuarante-v0", action_form="factored", **kwargs).unwrapped
    b = gym.make("TrenteEtQuarante-v0", action_form="discrete", **kwargs).unwrapped
    a.reset(seed=5)
    b.reset(seed=5)
    rng = np.random.default_rng(2)
    for _ in range(200):
        parts = rng.integers(0, a.layout.nvec)
        sa, sb = a.step(parts), b.step(int(a.layout.menu_rows(parts)))
        np.testing.assert_array_equal(sa[0], sb[0])
        assert sa[1:4] == sb[1:4]
        np.testing.assert_array_equal(sa[4]["stakes"], sb[4]["stakes"])
        if sa[2]:
            a.reset()
            b.reset()


def test_the_factored_masks_offer_a_bet_only_when_a_stake_level_fits() -> None:
    layout = _layout("factored")
    masks = layout.action_masks(np.array([0.5, 7.0, 1000.0]))
    sit, bet, boxes, levels = masks[:, :1], masks[:, 1:2], masks[:, 2:6], masks[:, 6:]
    assert sit.all() and boxes.all()
    assert bet[:, 0].tolist() == [False, True, True]
    assert levels.tolist()[1:] == [[True, True, False, False], [True, True, True, True]]
    assert levels[0].any()  # each part keeps a legal value (MaskablePPO needs one), though unused


@pytest.mark.needs_rl
@pytest.mark.parametrize("preset", ["classic", "main-bets"])
def test_sb3_check_env_passes_without_warnings_in_the_factored_form(preset: str) -> None:
    import warnings

    from stable_baselines3.common import env_checker as sb3_checker

    from trente_env import env_id

    env = gym.make(env_id(preset), action_form="factored", observation="flat")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_checker.check_env(env.unwrapped, warn=True)
    assert [str(w.message) for w in caught] == []


def test_the_config_chooses_the_form_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    from experiments.errors import RLError
    from experiments.rl.config import load_config

    good, bad = tmp_path / "good.toml", tmp_path / "bad.toml"
    good.write_text('[train]\naction_form = "factored"\n[ppo]\n')
    bad.write_text('[train]\naction_form = "flat"\n[ppo]\n')
    assert load_config("ppo", good).train.action_form == "factored"
    with pytest.raises(RLError, match="action_form must be one of"):
        load_config("ppo", bad)


@pytest.mark.slow
@pytest.mark.needs_rl
def test_a_factored_model_is_saved_with_its_form_and_plays_as_it_did_in_memory(tmp_path: Path) -> None:
    """train writes the form in model.json; the model loaded from its weights picks, on real
    observations, the bets the model in memory picked; DQN keeps the discrete form it needs."""
    import torch

    from experiments.rl.train import train_agent
    from strategies.model import ModelPolicy

    config = tmp_path / "factored.toml"
    config.write_text('[train]\naction_form = "factored"\n[ppo]\nn_steps = 64\nbatch_size = 64\n[dqn]\n')
    summary = train_agent("ppo", 512, seed=3, out_dir=tmp_path / "ppo", n_envs=4, eval_every=10**9, config_path=config)
    meta = json.loads(Path(summary["files"]["metadata"]).read_text())
    assert meta["env"]["action_form"] == "factored"
    loaded = ModelPolicy(summary["files"]["model"])
    assert loaded.env_kwargs()["action_form"] == "factored"
    # weights spread wide, so that the greedy bets differ from state to state
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for value in loaded.model.policy.state_dict().values():
            if value.is_floating_point():
                value.add_(torch.randn(value.shape, generator=generator))
    in_memory = ModelPolicy.of(loaded.model, "ppo", loaded.meta)
    venv = TrenteEtQuaranteVectorEnv(64, action_form="factored", observation="flat")
    venv.action_space.seed(0)
    obs, _ = venv.reset(seed=0)
    bets = []
    for _ in range(20):
        rows, _ = loaded.act(obs)
        parts, _ = loaded.model.predict(obs, deterministic=True)
        np.testing.assert_array_equal(rows, in_memory.act(obs)[0])
        np.testing.assert_array_equal(rows, loaded._layout.action_table[loaded._layout.menu_rows(parts)])
        bets.append(rows)
        obs, *_ = venv.step(venv.action_space.sample())
    assert len({tuple(r) for r in np.concatenate(bets)}) > 2  # more than one bet was read
    dqn = train_agent("dqn", 256, seed=0, out_dir=tmp_path / "dqn", n_envs=2, eval_every=10**9, config_path=config)
    assert json.loads(Path(dqn["files"]["metadata"]).read_text())["env"]["action_form"] == "discrete"


def test_a_betting_system_plays_a_factored_env_with_the_discrete_forms_bets() -> None:
    """:func:`strategies.policy.in_form` hands a factored env the parts of the bet it hands a discrete one."""
    from strategies import make_strategy
    from strategies.policy import in_form

    factored = TrenteEtQuaranteVectorEnv(8, action_form="factored", observation="flat")
    discrete = TrenteEtQuaranteVectorEnv(8, action_form="discrete", observation="flat")
    a, b = in_form(make_strategy("martingale"), factored), in_form(make_strategy("martingale"), discrete)
    oa, ob = factored.reset(seed=4)[0], discrete.reset(seed=4)[0]
    sa = sb = None
    for _ in range(100):
        parts, sa = a.act(oa, sa)
        numbers, sb = b.act(ob, sb)
        np.testing.assert_array_equal(factored.layout.menu_rows(parts), numbers)
        oa, *_ = factored.step(parts)
        ob, *_ = discrete.step(numbers)
        np.testing.assert_array_equal(oa, ob)

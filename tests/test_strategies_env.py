"""Every strategy plays in the env, the native vector env and under SB3's evaluate_policy; the
registry, config files, plugins and the model seam."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import trente_env  # noqa: F401  (registers the ids)
from strategies import LINEUP, STRATEGIES, StrategyError, make_strategy, strategies_from_config
from strategies.registry import parse_spec
from trente_env.odds import first_coup, house_edges
from trente_env.rules import get_rules


@pytest.mark.parametrize("name", list(STRATEGIES))
@pytest.mark.parametrize("observation", ["dict", "flat"])
def test_every_strategy_plays_a_single_env(name: str, observation: str) -> None:
    env = gym.make("TrenteEtQuarante-v0", observation=observation, bankroll=200, coup_info=True)
    policy = make_strategy(name)
    obs, _ = env.reset(seed=3)
    state = None
    for _ in range(60):
        action, state = policy.predict(obs, state)
        assert env.action_space.contains(action)
        obs, _, terminated, truncated, info = env.step(action)
        assert not info["clipped"]
        if terminated or truncated:
            obs, _ = env.reset()


@pytest.mark.parametrize("spec", LINEUP)
def test_every_strategy_plays_the_native_vector_env(spec: str) -> None:
    venv = gym.make_vec(
        "TrenteEtQuarante-v0", num_envs=64, vectorization_mode="vector_entry_point", bankroll=100, coup_info=True
    )
    policy = make_strategy(spec)
    obs, _ = venv.reset(seed=1)
    state = None
    staked = 0.0
    for _ in range(100):
        actions, state = policy.act(obs, state)
        assert venv.action_space.contains(actions)
        obs, _, _, _, info = venv.step(actions)
        played = info["_stakes"]  # rows starting a new session (autoreset) ignore their action
        assert np.array_equal(info["stakes"][played], actions[played, :4])  # nothing clipped or refused
        staked += info["stakes"].sum()
    assert (staked == 0) == (spec == "never")


def test_strategies_respect_closed_boxes_and_missing_insurance() -> None:
    venv = gym.make_vec("TrenteEtQuarante-MainBets-v0", num_envs=8)
    obs, _ = venv.reset(seed=0)
    policy = make_strategy("random:boxes=noir-rouge", "main-bets")
    for _ in range(20):
        actions, _ = policy.act(obs)
        assert venv.action_space.contains(actions)
        obs, *_ = venv.step(actions)


@pytest.mark.needs_rl
@pytest.mark.parametrize("name", list(STRATEGIES))
def test_evaluate_policy_scores_every_strategy(name: str) -> None:
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    env = Monitor(gym.make("TrenteEtQuarante-v0", max_episode_steps=40, bankroll=100))
    env.reset(seed=0)
    rewards, lengths = evaluate_policy(make_strategy(name), env, n_eval_episodes=2, return_episode_rewards=True)
    assert len(rewards) == 2 and all(0 < n <= 40 for n in lengths)
    if name == "never":
        assert rewards == [0.0, 0.0]


@pytest.mark.needs_rl
def test_evaluate_policy_over_the_sb3_vec_env() -> None:
    from stable_baselines3.common.evaluation import evaluate_policy

    from trente_env.wrappers import sb3_vec_env

    venv = sb3_vec_env(num_envs=4, seed=0, max_episode_steps=30, observation="flat")
    mean, _ = evaluate_policy(make_strategy("paroli:box=rouge"), venv, n_eval_episodes=8, warn=False)
    assert np.isfinite(mean)


def _return_per_unit_staked(spec: str, sessions: int, coups: int, seed: int) -> tuple[float, float]:
    """Net result / total staked over ``sessions`` independent sessions, and its standard error by
    the delta method over sessions (the sessions are independent; the coups inside are not)."""
    venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=sessions, bankroll=10**6, coup_info=True)
    policy = make_strategy(spec)
    obs, _ = venv.reset(seed=seed)
    state = None
    net, staked = np.zeros(sessions), np.zeros(sessions)
    for _ in range(coups):
        actions, state = policy.act(obs, state)
        obs, reward, _, _, info = venv.step(actions)
        net += reward
        staked += info["stakes"].sum(axis=1)
    ratio = net.sum() / staked.sum()
    residual = net - ratio * staked
    se = np.sqrt(residual.var(ddof=1) / sessions) / staked.mean()
    return ratio, se


def test_flat_betting_loses_the_house_edge_per_unit_staked() -> None:
    # 2,000 sessions of 200 flat coups: the standard error of the return per unit staked is about
    # 1/sqrt(400,000) = 0.0016. Within 4 standard errors of -edge (a fair test fails ~1 in 16,000);
    # prisoners still pending at the end are counted as lost, a bias of ~5e-5, far below that.
    edge = house_edges(get_rules(), first_coup(6)).noir
    ratio, se = _return_per_unit_staked("flat", 2000, 200, seed=11)
    assert se < 0.002
    assert abs(ratio + edge) < 4 * se


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["martingale", "labouchere", "anti-streak:k=2", "oscars-grind", "paroli"])
def test_no_system_beats_the_edge(spec: str) -> None:
    # Same estimator as above, with the standard error from per-session totals (a martingale's coups
    # are far from independent). 4 standard errors: with 5 systems, about 1 false alarm in 3,000 runs.
    edge = house_edges(get_rules(), first_coup(6)).noir
    ratio, se = _return_per_unit_staked(spec, 5000, 400, seed=5)
    assert abs(ratio + edge) < 4 * se


# -- registry -----------------------------------------------------------------------------------------


def test_spec_strings() -> None:
    assert parse_spec("martingale:base=2,box=rouge") == ("martingale", {"base": "2", "box": "rouge"})
    assert parse_spec("pkg.mod:Cls:base=2") == ("pkg.mod:Cls", {"base": "2"})
    assert parse_spec("runs/ppo.zip:algo=dqn") == ("runs/ppo.zip", {"algo": "dqn"})
    assert parse_spec("flat:stop-win=5") == ("flat", {"stop_win": "5"})
    for spec in LINEUP:
        strategy = make_strategy(spec)
        assert make_strategy(strategy.spec()) == strategy
    assert make_strategy("labouchere:line=1-2-3").line == (1, 2, 3)
    with pytest.raises(StrategyError, match="key=value"):
        make_strategy("martingale:base")
    with pytest.raises(StrategyError, match="did you mean 'paroli'"):
        make_strategy("parolli")
    with pytest.raises(StrategyError, match="whole number"):
        make_strategy("flat:base=1.5")


def test_config_files(tmp_path: Path) -> None:
    toml = tmp_path / "systems.toml"
    toml.write_text('[[strategy]]\nname = "labouchere"\nline = [1, 2, 3]\n\n[[strategy]]\nspec = "streak:k=4"\n')
    a, b = strategies_from_config(toml)
    assert a.line == (1, 2, 3) and b.k == 4
    js = tmp_path / "systems.json"
    js.write_text(json.dumps([{"name": "martingale", "box": "couleur", "base": 5}]))
    (m,) = strategies_from_config(js)
    assert m.spec() == "martingale:base=5,box=couleur"
    bad = tmp_path / "bad.toml"
    bad.write_text("[[strategy]\n")
    with pytest.raises(StrategyError, match="malformed"):
        strategies_from_config(bad)
    with pytest.raises(StrategyError, match="cannot read"):
        strategies_from_config(tmp_path / "missing.json")
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    with pytest.raises(StrategyError, match="no strategies"):
        strategies_from_config(empty)


def test_a_module_class_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_systems.py").write_text(
        textwrap.dedent(
            '''
            from dataclasses import dataclass
            from typing import ClassVar
            from strategies.progressions import Progression

            @dataclass(frozen=True)
            class Triple(Progression):
                """Triple after a loss."""
                name: ClassVar[str] = "triple"

                def _update(self, state, win, loss, amount):
                    state.memory["units"][win] = 1
                    state.memory["units"][loss] *= 3
            '''
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    policy = make_strategy("my_systems:Triple:base=2")
    assert policy.base == 2 and type(policy).__name__ == "Triple"
    sys.modules.pop("my_systems", None)
    with pytest.raises(StrategyError, match="not a Strategy"):
        make_strategy("json:dumps")


def test_the_model_seam_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(StrategyError, match="does not exist"):
        make_strategy(str(tmp_path / "none.zip"))
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    with pytest.raises(StrategyError, match="cannot read model file"):
        make_strategy(str(junk))
    with pytest.raises(StrategyError, match="unknown algo"):
        make_strategy(f"{junk}:algo=sac")


@pytest.mark.slow
@pytest.mark.needs_rl
def test_a_saved_model_plays_through_the_seam(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from stable_baselines3 import PPO

    from trente_env.wrappers import sb3_vec_env

    venv = sb3_vec_env(num_envs=2, seed=0, action_form="discrete", observation="flat")
    PPO("MlpPolicy", venv, n_steps=64, batch_size=64, seed=0).learn(128).save(tmp_path / "ppo.zip")
    # a bare SB3 file (no model.json of train's): loading it unpickles it, as --trust-model allows
    monkeypatch.setenv("TRENTE_LAB_TRUST_MODEL", "1")
    policy = make_strategy(str(tmp_path / "ppo.zip"))
    actions, _ = policy.act(venv.reset())
    assert actions.shape == (2, 12)  # the env's full action form, like every strategy
    same = make_strategy(f"model:{tmp_path / 'ppo.zip'}")
    assert np.array_equal(same.act(venv.reset())[0], actions)

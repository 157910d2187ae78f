"""PPO and A2C play many tables a rollout for fewer coups each (docs/rl.md#where-a-runs-time-goes):
an algorithm's own ``n_envs`` replaces ``[train]``'s, the transitions per update stay those the
witness was tuned on, and with ``gamma = 0`` a transition's advantage does not depend on the coups
around it at its table, so the order the rollout holds them in does not change what is learnt."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks.bench_train_time import BEFORE
from experiments.errors import RLError
from experiments.rl.config import RLConfig, load_config, own_tables


def test_an_algorithm_sets_its_own_tables(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[train]\nn_envs = 8\n[ppo]\nn_envs = 64\nn_steps = 32\n[dqn]\ntrain_freq = 4\n", encoding="utf-8")
    ppo = load_config("ppo", path)
    assert ppo.train.n_envs == 64 and ppo.hyper == {"n_steps": 32}  # SB3's class never sees n_envs
    assert load_config("dqn", path).train.n_envs == 8  # the others keep [train]'s
    path.write_text("[ppo]\nn_envs = 0\n", encoding="utf-8")
    with pytest.raises(RLError, match=r"\[ppo\] n_envs must be a whole number >= 1, got 0"):
        load_config("ppo", path)
    with pytest.raises(RLError, match="n_envs must be a whole number >= 1, got 2.5"):
        own_tables(RLConfig("ppo", {"n_envs": 2.5}, ppo.train))


def test_the_shipped_rollouts_keep_the_transitions_per_update() -> None:
    ppo, a2c, dqn = load_config("ppo"), load_config("a2c"), load_config("dqn")
    # PPO: 2,048 transitions an update in minibatches of 512, 10 epochs (what the witness was tuned on),
    # now from 64 tables; A2C: 512 a gradient step; DQN keeps the 8 tables its step counts were set on
    assert ppo.train.n_envs == 64 and ppo.train.n_envs * ppo.hyper["n_steps"] == 2048
    assert (ppo.hyper["batch_size"], ppo.hyper["n_epochs"]) == (512, 10)
    assert a2c.train.n_envs == 8 and a2c.train.n_envs * a2c.hyper["n_steps"] == 512  # 64 x 8 failed rig-1
    assert dqn.train.n_envs == 8 and "n_envs" not in dqn.hyper
    # the benchmark's "before" is the former rollout: 8 tables of 256 coups, the same 2,048 transitions
    before = own_tables(RLConfig("ppo", {**ppo.hyper, **BEFORE}, ppo.train))
    assert (before.train.n_envs, before.hyper["n_steps"]) == (8, 256)
    assert before.train.n_envs * before.hyper["n_steps"] == ppo.train.n_envs * ppo.hyper["n_steps"]


@pytest.mark.needs_rl
@pytest.mark.parametrize("algo", ["ppo", "a2c"])
def test_with_the_shipped_gamma_an_advantage_is_the_reward_less_the_value(algo: str) -> None:
    # SB3's own advantage computation (GAE) on a rollout of random rewards, values, session starts and
    # last values: with the shipped gamma (0) every advantage is its reward less its value and every
    # return its reward, exactly, whatever came before or after it at its table; a rollout of 64 tables
    # x 32 coups therefore gives each transition the same target as one of 8 x 256
    import gymnasium as gym
    import torch
    from stable_baselines3.common.buffers import RolloutBuffer

    hyper = load_config(algo).hyper
    rng = np.random.default_rng(0)
    steps, tables = 32, 64
    space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    buffer = RolloutBuffer(
        steps, space, gym.spaces.Discrete(17), "cpu", gae_lambda=hyper["gae_lambda"], gamma=hyper["gamma"],
        n_envs=tables,
    )  # fmt: skip
    rewards = rng.normal(0, 1, (steps, tables)).astype(np.float32)
    values = rng.normal(0, 1, (steps, tables)).astype(np.float32)
    for t in range(steps):
        buffer.add(
            np.zeros((tables, 3), np.float32), np.zeros((tables, 1)), rewards[t], rng.random(tables) < 0.1,
            torch.as_tensor(values[t]), torch.zeros(tables),
        )  # fmt: skip
    buffer.compute_returns_and_advantage(torch.as_tensor(rng.normal(0, 1, tables)), rng.random(tables) < 0.1)
    np.testing.assert_array_equal(buffer.advantages, rewards - values)
    # SB3 forms the return as the advantage plus the value: (r - v) + v, r up to float32's rounding
    np.testing.assert_allclose(
        buffer.returns, rewards, rtol=0, atol=4 * np.finfo(np.float32).eps * np.abs(values).max()
    )


@pytest.mark.needs_rl
def test_train_plays_the_tables_an_override_names_on_one_torch_thread(tmp_path: Path) -> None:
    import json

    import torch

    from experiments.rl.rig import parse_venue
    from experiments.rl.train import train_agent

    torch.set_num_threads(2)
    summary = train_agent(
        "ppo", 256, parse_venue("fair"), out_dir=tmp_path / "run", eval_every=10**9,
        hyper={"n_envs": 4, "n_steps": 64, "batch_size": 64, "n_epochs": 1},
    )  # fmt: skip
    assert summary["n_envs"] == 4 and summary["timesteps"] == 256
    meta = json.loads((tmp_path / "run" / "model.json").read_text(encoding="utf-8"))
    assert meta["n_envs"] == 4 and "n_envs" not in meta["hyper"]  # model.json's hyper builds the model again
    assert torch.get_num_threads() == 1  # train's updates run on one torch thread (docs/rl.md)


def test_the_train_time_row_pairs_each_run_with_one_of_the_settings_before(monkeypatch: pytest.MonkeyPatch) -> None:
    # run_seconds stands in for the training runs: "now" takes 40 s (30 of CPU), "before" 100 s (60 of CPU);
    # the row must give those medians and ratios, and time the two in alternation (BEFORE passed every other run)
    import benchmarks.bench_train_time as bench

    calls: list[object] = []

    def fake(timesteps: int, hyper: dict | None = None, seed: int = 0) -> tuple[float, float]:
        calls.append(hyper)
        return (100.0, 60.0) if hyper == BEFORE else (40.0, 30.0)

    monkeypatch.setattr(bench, "run_seconds", fake)
    wall, cpu = bench.rows(3, quick=True)
    assert "100,000 steps" in wall and "40.0 s" in wall and "100.0 s" in wall and "0.40x" in wall
    assert "30.0 s" in cpu and "60.0 s" in cpu and "0.50x" in cpu
    assert calls[2:] == [None, BEFORE, BEFORE, None, None, BEFORE]  # after the two warm-up runs

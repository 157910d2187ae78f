"""PPO's training speed on the native vector env against the same PPO on gymnasium's
``CartPoleVectorEnv``, both as stable-baselines3 ``VecEnv`` s of the same number of envs (issue 16).

Ours is :func:`trente_env.wrappers.sb3_vec_env` (discrete/flat, ``MlpPolicy``); the reference is
``CartPoleVectorEnv`` behind :class:`GymVectorToSB3`, a minimal adapter (it hands SB3 the vector
env's arrays and an empty info per env; CartPole's next-step autoreset costs one ignored step per
episode, which only flatters the reference). Same PPO settings, one torch thread, the two timed in
alternation. A ratio near 1 means the learner, not the env, sets the pace.

PPO's own cost depends on the spaces: ours has 100 numbers an observation and 17 actions, CartPole 4
and 2, so the policy's first layer and its action distribution do more work a step here. The second
reference, :class:`IdleVecEnv`, is an env that does nothing with our spaces (zero observations,
no reward, never done): PPO on it is PPO's pace on our spaces with an env that costs nothing, the
ceiling of what any env with these spaces can reach. The three are timed in alternation.

Run: ``python -m benchmarks.bench_ppo_vector [--tables 256,1024] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

#: PPO's settings at each width: a rollout of ``n_steps`` steps of every env, minibatches of ``batch_size``.
SETTINGS = {"n_steps": 16, "batch_size": 1024, "n_epochs": 2}


class GymVectorToSB3(VecEnv):
    """A gymnasium vector env as an SB3 ``VecEnv`` (no terminal observations: a speed reference only)."""

    def __init__(self, venv: gym.vector.VectorEnv) -> None:
        self.venv = venv
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions: Any = None

    def reset(self) -> np.ndarray:
        obs, _ = self.venv.reset(seed=0)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        obs, reward, terminated, truncated, _ = self.venv.step(self._actions)
        return obs, reward.astype(np.float32), terminated | truncated, [{} for _ in range(self.num_envs)]

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.venv, attr_name)] * self.num_envs

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        return [getattr(self.venv, method_name)(*args, **kwargs)] * self.num_envs

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * self.num_envs


class IdleVecEnv(GymVectorToSB3):
    """An SB3 ``VecEnv`` that does nothing, with the spaces of ``like``: zero observations, no reward,
    never done (the learner's own pace on those spaces); attributes and methods are asked of ``like``."""

    def __init__(self, like: VecEnv) -> None:
        self.venv = like
        VecEnv.__init__(self, like.num_envs, like.observation_space, like.action_space)
        self._obs = np.zeros((like.num_envs, *like.observation_space.shape), like.observation_space.dtype)
        self._reward = np.zeros(like.num_envs, np.float32)
        self._done = np.zeros(like.num_envs, np.bool_)

    def reset(self) -> np.ndarray:
        return self._obs.copy()

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        return self._obs.copy(), self._reward.copy(), self._done.copy(), [{} for _ in range(self.num_envs)]

    def close(self) -> None:
        self.venv.close()


def ppo_rate(env: str, n_envs: int, rollouts: int, threads: bool | None = None) -> float:
    """Env-steps/s of PPO training for ``rollouts`` rollouts (after one to warm up) on ``env``
    (``"trente"``, ``"cartpole"`` or ``"idle"``: :class:`IdleVecEnv` with our spaces) with ``n_envs`` envs;
    ``threads``: the tables' (:func:`trente_env.wrappers.sb3_vec_env`'s default when None)."""
    from stable_baselines3 import PPO

    from trente_env.wrappers import sb3_vec_env

    if env in ("trente", "idle"):
        chosen = {} if threads is None else {"threads": threads}
        venv: VecEnv = sb3_vec_env(n_envs, seed=0, action_form="discrete", observation="flat", **chosen)
        if env == "idle":
            venv = IdleVecEnv(venv)
    else:
        venv = GymVectorToSB3(gym.make_vec("CartPole-v1", num_envs=n_envs, vectorization_mode="vector_entry_point"))
    batch = min(SETTINGS["batch_size"], n_envs * SETTINGS["n_steps"])
    model = PPO("MlpPolicy", venv, seed=0, device="cpu", **{**SETTINGS, "batch_size": batch})
    rollout = n_envs * SETTINGS["n_steps"]
    model.learn(rollout)  # warm up: numba, torch
    start = time.perf_counter()
    model.learn(rollout * rollouts, reset_num_timesteps=False)
    return rollout * rollouts / (time.perf_counter() - start)


def rows(tables: list[int], repeats: int, rollouts: int = 4) -> list[str]:
    """Markdown rows of the performance table: PPO on ours, on CartPoleVectorEnv and on
    :class:`IdleVecEnv` with our spaces, at each width, the three timed in alternation (the order
    turning each repeat); medians of the rates and of the ratios of each repeat."""
    import torch

    from benchmarks.__main__ import _rate

    torch.set_num_threads(1)
    out = []
    envs = ("trente", "cartpole", "idle")
    for n in tables:
        rates: dict[str, list[float]] = {env: [] for env in envs}
        for r in range(repeats):
            for env in envs[r % 3 :] + envs[: r % 3]:
                rates[env].append(ppo_rate(env, n, rollouts))
        ours = rates["trente"]
        labels = {"cartpole": f"CartPoleVectorEnv, {n:,} envs", "idle": f"an idle env of our spaces, {n:,} envs"}
        for ref, label in labels.items():
            ratio = statistics.median([a / b for a, b in zip(ours, rates[ref], strict=True)])
            out.append(
                f"| PPO (SB3, MlpPolicy, 1 torch thread) on sb3_vec_env, {n:,} tables | "
                f"{_rate(statistics.median(ours))} env-steps/s | the same PPO on {label}: "
                f"{_rate(statistics.median(rates[ref]))} | {ratio:.2f}x |"
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="256,1024")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for line in rows([int(n) for n in args.tables.split(",")], args.repeats):
        print(line, flush=True)


if __name__ == "__main__":
    main()

"""PPO's training speed on the native vector env against the same PPO on gymnasium's
``CartPoleVectorEnv``, both as stable-baselines3 ``VecEnv`` s of the same number of envs.

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

``--split`` prints where PPO's time goes instead (:func:`split`): the three models built once, their
rollouts interleaved (one rollout and its training of each in turn, so a change of the host's load
falls on all three alike), each rollout's CPU time of the main thread cut into the env's steps, the
policy's forward passes while collecting, the rest of the collection (SB3's buffers and info
handling) and the training; medians a rollout. CPU time of the one thread that does all the work
(one torch thread, the tables on one thread) leaves out the time the host gives to other processes.

Run: ``python -m benchmarks.bench_ppo_vector [--tables 256,1024] [--repeats 3] [--split]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
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


def make_venv(env: str, n_envs: int, threads: bool | None = None) -> VecEnv:
    """The SB3 ``VecEnv`` ``env`` (``"trente"``, ``"cartpole"`` or ``"idle"``: :class:`IdleVecEnv` with our
    spaces) of ``n_envs`` envs; ``threads``: the tables' (:func:`trente_env.wrappers.sb3_vec_env`'s default
    when None)."""
    from trente_env.wrappers import sb3_vec_env

    if env in ("trente", "idle"):
        chosen = {} if threads is None else {"threads": threads}
        venv: VecEnv = sb3_vec_env(n_envs, seed=0, action_form="discrete", observation="flat", **chosen)
        return IdleVecEnv(venv) if env == "idle" else venv
    return GymVectorToSB3(gym.make_vec("CartPole-v1", num_envs=n_envs, vectorization_mode="vector_entry_point"))


def make_ppo(venv: VecEnv) -> Any:
    """PPO with the benchmark's :data:`SETTINGS` on ``venv`` (minibatches no larger than a rollout)."""
    from stable_baselines3 import PPO

    batch = min(SETTINGS["batch_size"], venv.num_envs * SETTINGS["n_steps"])
    return PPO("MlpPolicy", venv, seed=0, device="cpu", **{**SETTINGS, "batch_size": batch})


def ppo_rate(env: str, n_envs: int, rollouts: int, threads: bool | None = None) -> float:
    """Env-steps/s of PPO training for ``rollouts`` rollouts (after one to warm up) on ``env``
    (see :func:`make_venv`) with ``n_envs`` envs."""
    model = make_ppo(make_venv(env, n_envs, threads))
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

    from benchmarks.__main__ import rate_text

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
                f"{rate_text(statistics.median(ours))} env-steps/s | the same PPO on {label}: "
                f"{rate_text(statistics.median(rates[ref]))} | {ratio:.2f}x |"
            )
    return out


#: The parts of a rollout and its training that :func:`split` times, in the order printed.
PARTS = ("env's steps", "policy's forward passes", "rest of the collection", "training")


def _charge(obj: Any, method: str, spent: list[float]) -> None:
    """Wrap ``obj.method`` (on this instance only) to add the CPU time of each call to ``spent[0]``."""
    inner = getattr(obj, method)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[0] += time.thread_time() - start

    setattr(obj, method, timed)


def split(venvs: dict[str, Callable[[], VecEnv]], rollouts: int) -> dict[str, dict[str, float]]:
    """Where PPO's time goes on each env of ``venvs`` (a name and a maker each): milliseconds of CPU
    time of this thread a rollout for each of :data:`PARTS` and their ``"total"``, medians over
    ``rollouts`` rollouts. The models are built (and warmed up by one rollout) first, then their
    rollouts interleaved, each followed by its training (``model.learn`` of one rollout)."""
    models, spent = {}, {}
    for name, make in venvs.items():
        model = make_ppo(make())
        clocks = {part: [0.0] for part in PARTS}
        clocks["collection"] = [0.0]
        _charge(model.env, "step", clocks[PARTS[0]])
        _charge(model.policy, "forward", clocks[PARTS[1]])  # PPO's training calls evaluate_actions instead
        _charge(model, "collect_rollouts", clocks["collection"])
        _charge(model, "train", clocks[PARTS[3]])
        model.learn(model.n_steps * model.n_envs)  # warm up: numba, torch
        models[name], spent[name] = model, (clocks, {part: [] for part in (*PARTS, "total")})
    for _ in range(rollouts):
        for name, model in models.items():
            clocks, kept = spent[name]
            for clock in clocks.values():
                clock[0] = 0.0
            model.learn(model.n_steps * model.n_envs, reset_num_timesteps=False)
            parts = {part: clocks[part][0] for part in (PARTS[0], PARTS[1], PARTS[3])}
            parts[PARTS[2]] = clocks["collection"][0] - parts[PARTS[0]] - parts[PARTS[1]]
            parts["total"] = clocks["collection"][0] + parts[PARTS[3]]
            for part, seconds in parts.items():
                kept[part].append(seconds)
    return {
        name: {part: 1e3 * statistics.median(seconds) for part, seconds in kept.items()}
        for name, (_, kept) in spent.items()
    }


def split_rows(tables: list[int], rollouts: int) -> list[str]:
    """Markdown rows of :func:`split` for ours, CartPoleVectorEnv and the idle env of our spaces at
    each width (one torch thread)."""
    import torch

    torch.set_num_threads(1)
    out = [f"| envs | env | {' | '.join(PARTS)} | total (ms of CPU a rollout) |", "|---" * (len(PARTS) + 3) + "|"]
    for n in tables:
        makers = {env: (lambda env=env, n=n: make_venv(env, n)) for env in ("trente", "cartpole", "idle")}
        for env, ms in split(makers, rollouts).items():
            out.append(f"| {n:,} | {env} | " + " | ".join(f"{ms[part]:.1f}" for part in (*PARTS, "total")) + " |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="256,1024")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--split", action="store_true", help="where PPO's time goes, over 10 times --repeats rollouts")
    args = parser.parse_args()
    tables = [int(n) for n in args.tables.split(",")]
    for line in split_rows(tables, 10 * args.repeats) if args.split else rows(tables, args.repeats):
        print(line, flush=True)


if __name__ == "__main__":
    main()

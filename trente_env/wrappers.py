"""Adapters to other libraries: stable-baselines3's ``VecEnv`` backed by the native vector environment.

Needs stable-baselines3 (the ``rl`` extra: ``pip install trente-lab[rl]``)::

    from stable_baselines3 import PPO
    from trente_env.wrappers import sb3_vec_env

    venv = sb3_vec_env(num_envs=16, seed=0, action_form="discrete", observation="flat")
    model = PPO("MlpPolicy", venv).learn(10_000)

The tables run in one process, batched in numpy and numba, instead of one Python env per worker.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from trente_env.vector import TrenteEtQuaranteVectorEnv


class TrenteVecEnv(VecEnv):
    """stable-baselines3's ``VecEnv`` interface over a :class:`~trente_env.vector.TrenteEtQuaranteVectorEnv`.

    The vector environment must use ``AutoresetMode.SAME_STEP`` (as SB3 expects): when a session
    ends, ``infos[i]["terminal_observation"]`` holds its last observation and the returned one is
    the new session's first; ``infos[i]["TimeLimit.truncated"]`` marks sessions cut by the step
    limit. ``env_method("action_masks")`` serves sb3-contrib's MaskablePPO.

    :param venv: the native vector environment.
    """

    def __init__(self, venv: TrenteEtQuaranteVectorEnv) -> None:
        if venv.autoreset_mode is not AutoresetMode.SAME_STEP:
            raise ValueError("stable-baselines3 needs a vector environment with autoreset_mode=SAME_STEP")
        self.venv = venv
        self.render_mode = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> VecEnvObs:
        seeds = None if all(s is None for s in self._seeds) else [int(s) for s in self._seeds]
        obs, _ = self.venv.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        return _copy(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        done = terminated | truncated
        # SB3 wants one dict per table, and its wrappers (VecMonitor) write into them: fresh ones each step
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            rows = np.flatnonzero(done)
            cut = (truncated & ~terminated)[rows].tolist()
            # one copy of the ended sessions' last observations (the env rewrites its buffer next step);
            # each info holds a row of that copy
            final = _rows(info["final_obs"], rows)
            for k, i in enumerate(rows.tolist()):
                infos[i]["TimeLimit.truncated"] = cut[k]
                infos[i]["terminal_observation"] = (
                    {key: value[k] for key, value in final.items()} if isinstance(final, dict) else final[k]
                )
        # SB3 keeps the observation across the next step (its rollout buffer stores it after the step):
        # a copy of the env's buffer, which the next step overwrites
        return _copy(obs), reward.astype(np.float32), done, infos

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self.venv, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices


def _copy(obs: Any) -> Any:
    """A copy of an observation of the vector env (an array or a dict of arrays)."""
    if isinstance(obs, dict):
        return {key: value.copy() for key, value in obs.items()}
    return obs.copy()


def _rows(obs: Any, rows: np.ndarray) -> Any:
    """A copy of the rows ``rows`` of an observation of the vector env (an array or a dict of arrays)."""
    if isinstance(obs, dict):
        return {key: value[rows] for key, value in obs.items()}
    return obs[rows]


def sb3_vec_env(num_envs: int = 8, seed: int | None = None, **kwargs: Any) -> TrenteVecEnv:
    """A stable-baselines3 ``VecEnv`` of ``num_envs`` tables (kwargs as for ``TrenteEtQuarante-v0``).

    :param seed: table ``i`` shuffles with ``numpy.random.default_rng(seed + i)``.
    :param kwargs: ``rules``, ``bankroll``, ``action_form``, ``observation``, ...;
        ``max_episode_steps`` defaults to the registration's 1000 coups, ``threads`` to False: the
        tables play on one thread whatever their number: the tables' step is a small part of PPO's
        own work a step, so threads cannot buy much, and on a busy host they slowed PPO down
        (measured by ``benchmarks/bench_ppo_vector.py``, see docs/performance.md). Pass
        ``threads=None`` (from 1,000 tables) or True.
    """
    from trente_env import MAX_EPISODE_STEPS

    kwargs.setdefault("max_episode_steps", MAX_EPISODE_STEPS)
    kwargs.setdefault("threads", False)
    venv = TrenteVecEnv(TrenteEtQuaranteVectorEnv(num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs))
    if seed is not None:
        venv.seed(seed)
    return venv


__all__ = ["TrenteVecEnv", "sb3_vec_env"]

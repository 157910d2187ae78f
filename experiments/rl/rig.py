"""Where an agent plays: a :class:`Venue` (a rules preset, fair or rigged), its vector environments
(native, and wrapped for stable-baselines3), and what exact odds expect a policy to earn there.

**The rigged table is a positive control, never a real game.** On a fair table no policy beats the
refait: the best return is 0, by not betting. To show that an agent *could* find an edge if one
existed, the ``rigged-<preset>`` tables (``--rules rigged-classic``, or ``--rigged``) pay a Noir win
3:2 right after a coup won by Noir and 1:2 otherwise (:data:`trente_env.rules.RIG`; the rule lives in
the engine, :func:`trente_env.settle.noir_payout`, docs/rules.md#the-rigged-table-positive-control).
With the first-coup odds and coups taken as independent (:func:`trente_env.odds.rig_expectations`),
every policy blind to the scoreboard loses: always Noir about -3.6% per unit staked, any other box
its fair edge, -1.1%, never betting 0; only a policy that reads the last coup on the scoreboard
(``results[0]``) and bets Noir right after a Noir win gains, about +21.1% per unit staked.

The graded tables of :mod:`trente_env.levels` (``fair``, ``rig-1``, ``rig-3``, ``shoe``) are venues
too, by name: ``rig-3`` pays the same only right after Noir, Rouge, Noir, so that every policy
reading fewer than the last three coups loses (docs/levels.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from experiments.errors import RLError
from trente_env import MAX_EPISODE_STEPS
from trente_env.levels import LEVELS
from trente_env.rules import PRESETS, RIGGED_PREFIX, RuleSet, get_rules
from trente_env.vector import TrenteEtQuaranteVectorEnv


@dataclass(frozen=True)
class Venue:
    """Where an agent plays: a rules preset, by name.

    :param name: the preset's name, ``rigged-<preset>`` for the positive control, or a graded table's
        (:mod:`trente_env.levels`): what ``--rules`` and ``model.json`` say.
    """

    name: str
    rules: RuleSet

    @property
    def preset(self) -> str:
        return self.name.removeprefix(RIGGED_PREFIX)

    @property
    def rigged(self) -> bool:
        return self.rules.rigged


def parse_venue(name: str, rigged: bool = False) -> Venue:
    """The venue called ``name``: a rules preset, ``rigged-<preset>`` (or ``rigged=True``), or a graded
    table's name (``fair``, ``rig-1``, ``rig-3``, ``shoe``: :data:`trente_env.levels.LEVELS`, its table).

    :raises RLError: an unknown preset.
    """
    if name in LEVELS and not rigged:
        return Venue(name, LEVELS[name].rules)
    if rigged and not name.startswith(RIGGED_PREFIX):
        name = RIGGED_PREFIX + name
    try:
        return Venue(name, get_rules(name))
    except ValueError:
        choices = ", ".join([*PRESETS, *(RIGGED_PREFIX + p for p in PRESETS), *LEVELS])
        raise RLError(f"unknown table {name!r}; choose one of {choices}") from None


def vector_env(venue: Venue, num_envs: int, **kwargs: Any) -> TrenteEtQuaranteVectorEnv:
    """The native vector environment of ``venue`` (rigged or not: the engine's rules); kwargs as for the env."""
    return TrenteEtQuaranteVectorEnv(num_envs, rules=venue.rules, **kwargs)


def sb3_env(venue: Venue, num_envs: int, seed: int, reward_scale: float = 1.0, **kwargs: Any):
    """A stable-baselines3 ``VecEnv`` of ``num_envs`` tables, rewards multiplied by ``reward_scale``.

    Its sessions are recorded by SB3's ``VecMonitor`` (in units, before the scaling), so that SB3's
    ``evaluate_policy`` and its training logs read each session's return and length.
    """
    from stable_baselines3.common.vec_env import VecEnvWrapper, VecMonitor  # the rl extra: only to train

    from trente_env.wrappers import TrenteVecEnv  # built on stable-baselines3's VecEnv

    kwargs.setdefault("max_episode_steps", MAX_EPISODE_STEPS)
    venv = TrenteVecEnv(vector_env(venue, num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs))
    venv.seed(seed)
    venv = VecMonitor(venv)
    if reward_scale == 1.0:
        return venv

    class _ScaleReward(VecEnvWrapper):
        def reset(self):
            return self.venv.reset()

        def step_wait(self):
            obs, reward, done, infos = self.venv.step_wait()
            return obs, reward * np.float32(reward_scale), done, infos

        def action_masks(self) -> np.ndarray:  # MaskablePPO asks the outermost env
            return np.stack(self.venv.env_method("action_masks"))

    return _ScaleReward(venv)


__all__ = ["RIGGED_PREFIX", "Venue", "parse_venue", "sb3_env", "vector_env"]

"""Where an agent plays: a :class:`Venue` (a rules preset and, for the *positive control* only, a
:class:`Rig`), its vector environments (native, and wrapped for stable-baselines3), and what exact
odds expect a policy to earn there.

**The rigged table is a positive control, never a real game.** On a fair table no policy beats the
refait: the best return is 0, by not betting. To show that an agent *could* find an edge if one
existed, ``rigged-<preset>`` tables (``--rules rigged-classic`` or ``--rigged``) change one thing:
a Noir stake that wins on the coup right after a coup won by Noir is paid :attr:`Rig.payout` to 1
(3:2 by default) instead of 1:1. The situation is in the observation (``results[0] == 0``, the last
coup on the scoreboard), so an agent that reads the scoreboard can exploit it; the cards, the
refait and every other box are exactly those of the preset. With Noir winning 44.52% of coups, a
Noir stake placed in that situation returns ``0.4452 * (payout - 1) - 1.12% = +21.1%`` of itself at
3:2, against -1.12% anywhere else.

The rig lives in :class:`RiggedVectorEnv`, a subclass of the native vector environment that adds
the bonus to the reward and to the bankroll after each coup; the engine is untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from experiments.errors import RLError
from trente_env import MAX_EPISODE_STEPS
from trente_env.codes import NOIR, Result
from trente_env.odds import first_coup, stake_weighted_edge
from trente_env.rules import PRESETS, RuleSet, get_rules
from trente_env.vector import TrenteEtQuaranteVectorEnv

#: A venue called ``rigged-<preset>`` is the preset's table with a :class:`Rig`.
RIGGED_PREFIX = "rigged-"


# -- the rigged table ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rig:
    """The positive control: a Noir stake winning right after a Noir win is paid ``payout`` to 1.

    :param payout: what a rigged win pays per unit staked (1.5 is 3:2; 1.0 would be the fair table).
    """

    payout: float = 1.5

    def __post_init__(self) -> None:
        if not self.payout >= 1.0:
            raise ValueError(f"a rig pays at least even money, got {self.payout}")

    def describe(self) -> str:
        return (
            f"POSITIVE CONTROL: a Noir stake winning right after a Noir win is paid {self.payout:g}:1 "
            "(every other bet as the preset)"
        )


@dataclass(frozen=True)
class Venue:
    """Where an agent plays: a rule set and, for the positive control only, a rig.

    :param name: the preset's name, or ``rigged-<preset>`` (what ``--rules`` and ``model.json`` say).
    """

    name: str
    rules: RuleSet
    rig: Rig | None = None

    @property
    def preset(self) -> str:
        return self.name.removeprefix(RIGGED_PREFIX)


def parse_venue(name: str, rigged: bool = False, payout: float | None = None) -> Venue:
    """The venue called ``name``: a rules preset, or ``rigged-<preset>`` (or ``rigged=True``).

    :raises RLError: an unknown preset, or a payout below even money.
    """
    preset = name.removeprefix(RIGGED_PREFIX)
    rigged = rigged or name.startswith(RIGGED_PREFIX)
    try:
        rules = get_rules(preset)
    except ValueError:
        choices = ", ".join([*PRESETS, *(RIGGED_PREFIX + p for p in PRESETS)])
        raise RLError(f"unknown table {name!r}; choose one of {choices}") from None
    if not rigged:
        return Venue(preset, rules)
    try:
        rig = Rig() if payout is None else Rig(payout)
    except ValueError as exc:
        raise RLError(str(exc)) from None
    return Venue(RIGGED_PREFIX + preset, rules, rig)


class RiggedVectorEnv(TrenteEtQuaranteVectorEnv):
    """The native vector environment with a :class:`Rig` (the positive control; see the module docstring).

    After each coup, a table whose last coup *before* this one was won by Noir and whose Noir stake
    wins now gets ``(payout - 1) * stake`` more: in the reward, in the bankroll and in the
    observation's ``bankroll``. ``info["bonus"]`` holds it. Everything else is the parent's.

    :param rig: the rig; the other arguments are those of :class:`TrenteEtQuaranteVectorEnv`.
    """

    def __init__(self, *args: Any, rig: Rig = Rig(), **kwargs: Any) -> None:  # noqa: B008 (frozen)
        kwargs["coup_info"] = True  # the rig reads each coup's result and stakes
        super().__init__(*args, **kwargs)
        self.rig = rig

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        before = self.tables.results[:, 0].copy()  # the scoreboard the agent saw
        obs, reward, terminated, truncated, info = super().step(actions)
        played = info["_result"]
        rigged = played & (before == Result.NOIR) & (info["result"] == Result.NOIR)
        bonus = np.where(rigged, (self.rig.payout - 1.0) * info["stakes"][:, NOIR], 0.0)
        info["bonus"], info["_bonus"] = bonus, played
        if bonus.any():
            reward = reward + bonus
            # rows that already sat down again (same-step autoreset) keep their fresh bankroll
            keep = bonus > 0
            if "_final_obs" in info:
                keep &= ~info["_final_obs"]
            self.tables.bankroll[keep] += bonus[keep]
            at = self.layout.offsets["bankroll"]
            self.tables.flat[keep, at] = self.tables.bankroll[keep]
            if isinstance(obs, dict):
                obs["bankroll"][keep, 0] = self.tables.bankroll[keep]
            else:
                obs[keep, at] = self.tables.bankroll[keep]
        return obs, reward, terminated, truncated, info


def vector_env(venue: Venue, num_envs: int, **kwargs: Any) -> TrenteEtQuaranteVectorEnv:
    """The native vector environment of ``venue`` (rigged or not); kwargs as for the env."""
    if venue.rig is None:
        return TrenteEtQuaranteVectorEnv(num_envs, rules=venue.rules, **kwargs)
    return RiggedVectorEnv(num_envs, rules=venue.rules, rig=venue.rig, **kwargs)


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


# -- what exact odds expect --------------------------------------------------------------------


def expected_return(
    venue: Venue, box_stakes: np.ndarray, rigged_staked: float = 0.0, to_prison: bool | None = None
) -> float:
    """What exact odds expect per unit staked for these stakes at ``venue``: minus the stake-weighted
    edge (:func:`trente_env.odds.stake_weighted_edge`, the tournament's), plus, on the positive
    control, the rig's bonus on the ``rigged_staked`` Noir units placed right after a Noir win
    (``P(Noir) * (payout - 1)`` each, first-coup probabilities,
    docs/rules.md#reference-numbers). 0 when nothing was staked.

    :param box_stakes: (2, 4) uninsured and insured units staked per box.
    :param to_prison: under the choice rule, what the player does on a refait (None: the better choice).
    """
    total = float(np.sum(box_stakes))
    if total <= 0:
        return 0.0
    expected = -stake_weighted_edge(venue.rules, box_stakes, to_prison)
    if venue.rig is not None:
        expected += rigged_staked * first_coup(venue.rules.decks).p_noir * (venue.rig.payout - 1.0) / total
    return expected


__all__ = [
    "RIGGED_PREFIX",
    "Rig",
    "RiggedVectorEnv",
    "Venue",
    "expected_return",
    "parse_venue",
    "sb3_env",
    "vector_env",
]

"""What RL training and evaluation share: the algorithms, their hyper-parameters, the tables
(fair presets and the rigged *positive control*), the vector environments and the model files.

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

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from trente_env.coup import Result
from trente_env.env import DEFAULT_STAKE_LEVELS
from trente_env.rules import MAX_MONEY, PRESETS, RuleSet, get_rules
from trente_env.settle import NOIR
from trente_env.vector import TrenteEtQuaranteVectorEnv

#: The algorithms ``trente-lab train --algo`` knows: name -> (module, class).
ALGOS: dict[str, tuple[str, str]] = {
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
    "maskable-ppo": ("sb3_contrib", "MaskablePPO"),
}

#: The hyper-parameter file shipped with the project.
DEFAULT_CONFIG = Path(__file__).with_name("configs") / "rl.toml"

RIGGED_PREFIX = "rigged-"


class RLError(ValueError):
    """Bad input for training or evaluation (one line)."""


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

    def advantage(self, p_noir: float, noir_edge: float) -> float:
        """Expected return per unit of a Noir stake placed in the rigged situation."""
        return p_noir * (self.payout - 1.0) - noir_edge

    def describe(self) -> str:
        return (
            f"POSITIVE CONTROL: a Noir stake winning right after a Noir win is paid {self.payout:g}:1 "
            "(every other bet as the preset)"
        )


@dataclass(frozen=True)
class Table:
    """Where an agent plays: a rule set and, for the positive control only, a rig."""

    name: str
    rules: RuleSet
    rig: Rig | None = None

    @property
    def preset(self) -> str:
        return self.name.removeprefix(RIGGED_PREFIX)


def parse_table(name: str, rigged: bool = False, payout: float | None = None) -> Table:
    """The table called ``name``: a rules preset, or ``rigged-<preset>`` (or ``rigged=True``)."""
    preset = name.removeprefix(RIGGED_PREFIX)
    rigged = rigged or name.startswith(RIGGED_PREFIX)
    try:
        rules = get_rules(preset)
    except ValueError:
        choices = ", ".join([*PRESETS, *(RIGGED_PREFIX + p for p in PRESETS)])
        raise RLError(f"unknown table {name!r}; choose one of {choices}") from None
    if not rigged:
        return Table(preset, rules)
    try:
        rig = Rig() if payout is None else Rig(payout)
    except ValueError as exc:
        raise RLError(str(exc)) from None
    return Table(RIGGED_PREFIX + preset, rules, rig)


class RiggedVectorEnv(TrenteEtQuaranteVectorEnv):
    """The native vector environment with a :class:`Rig` (the positive control; see the module docstring).

    After each coup, a table whose last coup *before* this one was won by Noir and whose Noir stake
    wins now gets ``(payout - 1) * stake`` more: in the reward, in the bankroll and in the
    observation's ``bankroll``. ``info["bonus"]`` holds it. Everything else is the parent's.

    :param rig: the rig; the other arguments are those of :class:`TrenteEtQuaranteVectorEnv`.
    """

    def __init__(self, *args: Any, rig: Rig = Rig(), **kwargs: Any) -> None:  # noqa: B008 (frozen)
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


def vector_env(table: Table, num_envs: int, **kwargs: Any) -> TrenteEtQuaranteVectorEnv:
    """The native vector environment of ``table`` (rigged or not); kwargs as for the env."""
    if table.rig is None:
        return TrenteEtQuaranteVectorEnv(num_envs, rules=table.rules, **kwargs)
    return RiggedVectorEnv(num_envs, rules=table.rules, rig=table.rig, **kwargs)


def sb3_env(table: Table, num_envs: int, seed: int, reward_scale: float = 1.0, **kwargs: Any):
    """A stable-baselines3 ``VecEnv`` of ``num_envs`` tables, rewards multiplied by ``reward_scale``."""
    from gymnasium.vector import AutoresetMode
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from trente_env import MAX_EPISODE_STEPS
    from trente_env.wrappers import TrenteVecEnv

    kwargs.setdefault("max_episode_steps", MAX_EPISODE_STEPS)
    venv = TrenteVecEnv(vector_env(table, num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs))
    venv.seed(seed)
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


# -- hyper-parameters ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainSettings:
    """Settings of a training run that are not the algorithm's own (the ``[train]`` table)."""

    n_envs: int = 8
    reward_scale: float = 0.01
    eval_every: int = 10_000
    eval_sessions: int = 64
    eval_coups: int = 250
    net_arch: tuple[int, ...] = (64, 64)
    stake_levels: tuple[float, ...] = tuple(DEFAULT_STAKE_LEVELS)
    history: int = 10


@dataclass(frozen=True)
class RLConfig:
    """One algorithm's hyper-parameters (passed to its constructor) and the run settings."""

    algo: str
    hyper: dict[str, Any]
    train: TrainSettings


def check_algo(algo: str) -> str:
    if algo not in ALGOS:
        raise RLError(f"unknown algo {algo!r}; choose one of {', '.join(ALGOS)}")
    return algo


def load_config(algo: str, path: str | Path | None = None) -> RLConfig:
    """The hyper-parameters of ``algo`` from a TOML file (default :data:`DEFAULT_CONFIG`).

    The file has a ``[train]`` table (:class:`TrainSettings`) and one table per algorithm
    (``[ppo]``, ``[a2c]``, ``[dqn]``, ``[maskable-ppo]``) holding keyword arguments of its SB3 class.
    """
    import tomllib  # Python 3.11+

    check_algo(algo)
    path = Path(path) if path is not None else DEFAULT_CONFIG
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RLError(f"cannot read config {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RLError(f"config {str(path)!r} is not a text file (a TOML file is UTF-8 text)") from None
    except tomllib.TOMLDecodeError as exc:
        raise RLError(f"malformed config {str(path)!r}: {str(exc).splitlines()[0]}") from None
    train = document.get("train", {})
    hyper = document.get(algo, {})
    if not isinstance(train, Mapping) or not isinstance(hyper, Mapping):
        raise RLError(f"config {str(path)!r}: [train] and [{algo}] must be tables")
    fields = {f.name for f in dataclasses.fields(TrainSettings)}
    unknown = sorted(set(train) - fields)
    if unknown:
        raise RLError(f"config {str(path)!r}: unknown [train] key(s) {', '.join(unknown)}; known: {', '.join(fields)}")
    values: dict[str, Any] = {}
    for key, value in train.items():
        if isinstance(value, list):
            value = tuple(value)
        values[key] = value
    settings = TrainSettings(**values)
    for name in ("n_envs", "eval_every", "eval_sessions", "eval_coups", "history"):
        value = getattr(settings, name)
        if not _whole(value, 1):
            raise RLError(f"config {str(path)!r}: [train] {name} must be a whole number >= 1, got {value!r}")
    if not _number(settings.reward_scale) or not settings.reward_scale > 0:
        raise RLError(f"config {str(path)!r}: [train] reward_scale must be positive, got {settings.reward_scale!r}")
    if not isinstance(settings.net_arch, tuple) or not all(_whole(n, 1) for n in settings.net_arch):
        raise RLError(f"config {str(path)!r}: [train] net_arch must be a list of layer widths, got {settings.net_arch}")
    levels = settings.stake_levels
    if not isinstance(levels, tuple) or not levels or not all(_number(s) and 0 < s <= MAX_MONEY for s in levels):
        raise RLError(f"config {str(path)!r}: [train] stake_levels must be a list of positive stakes, got {levels!r}")
    return RLConfig(algo, dict(hyper), settings)


def _whole(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def algo_class(algo: str) -> type:
    """The SB3 class of ``algo`` (imports stable-baselines3 or sb3-contrib)."""
    module_name, class_name = ALGOS[check_algo(algo)]
    try:
        module = __import__(module_name, fromlist=[class_name])
    except ImportError:
        raise RLError(f"{algo} needs {module_name.replace('_', '-')}: pip install 'trente-lab[rl]'") from None
    return getattr(module, class_name)


# -- model files ---------------------------------------------------------------------------------


def metadata_path(model_path: str | Path) -> Path:
    """Where the description of a model file lives: ``model.zip`` -> ``model.json``."""
    return Path(model_path).with_suffix(".json")


def set_threads(n: int = 1) -> None:
    """Limit torch to ``n`` threads (the machines we train on are shared)."""
    import torch

    torch.set_num_threads(n)


# -- what exact odds expect --------------------------------------------------------------------


def expected_return(
    table: Table, box_stakes: np.ndarray, rigged_staked: float = 0.0, to_prison: bool | None = None
) -> float:
    """What exact odds expect per unit staked for these stakes at ``table``: minus the stake-weighted
    edge (:func:`trente_env.odds.stake_weighted_edge`, the tournament's), plus, on the positive
    control, the rig's bonus on the ``rigged_staked`` Noir units placed right after a Noir win
    (``P(Noir) * (payout - 1)`` each, first-coup probabilities, SPEC 3). 0 when nothing was staked.

    :param box_stakes: (2, 4) uninsured and insured units staked per box.
    :param to_prison: under the choice rule, what the player does on a refait (None: the better choice).
    """
    from trente_env.odds import first_coup, stake_weighted_edge

    total = float(np.sum(box_stakes))
    if total <= 0:
        return 0.0
    expected = -stake_weighted_edge(table.rules, box_stakes, to_prison)
    if table.rig is not None:
        expected += rigged_staked * first_coup(table.rules.decks).p_noir * (table.rig.payout - 1.0) / total
    return expected


__all__ = [
    "ALGOS",
    "DEFAULT_CONFIG",
    "RLConfig",
    "RLError",
    "Rig",
    "RiggedVectorEnv",
    "Table",
    "TrainSettings",
    "algo_class",
    "expected_return",
    "load_config",
    "metadata_path",
    "parse_table",
    "sb3_env",
    "set_threads",
    "vector_env",
]

"""An RL run's settings: the hyper-parameters of each algorithm and the ``[train]`` table, read from
a TOML file (``experiments/configs/rl.toml`` by default), and the algorithm's class."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.errors import RLError
from experiments.files import read_toml
from experiments.rl.algorithms import TRAINABLE
from strategies.model_file import ALGORITHMS
from trente_env.layout import DEFAULT_STAKE_LEVELS
from trente_env.rules import MAX_MONEY
from trente_env.whole import is_whole

#: The action forms an agent trains in (``trente_env.layout.ACTION_FORMS``).
RL_ACTION_FORMS: tuple[str, ...] = ("discrete", "factored", "full")

#: The hyper-parameter file shipped with the project.
DEFAULT_CONFIG = Path(__file__).parent.parent / "configs" / "rl.toml"


@dataclass(frozen=True)
class TrainSettings:
    """Settings of a training run that are not the algorithm's own (the ``[train]`` table). The
    defaults are the shipped file's, so a config file that leaves a key out gets the witness's value."""

    n_envs: int = 8
    reward_scale: float = 0.01
    eval_every: int = 10_000
    eval_sessions: int = 64
    eval_coups: int = 250
    net_arch: tuple[int, ...] = (64, 64)
    stake_levels: tuple[float, ...] = tuple(DEFAULT_STAKE_LEVELS)
    history: int = 10
    #: fraction of the run over which the entropy coefficient falls linearly from the algorithm's
    #: ``ent_coef`` to 0 (0: it stays as it is); see :func:`experiments.rl.train.entropy_schedule`
    ent_decay: float = 0.6
    #: how the agent bets (``train --action-form`` overrides it): ``discrete`` (one flat choice among
    #: sitting out and every box and stake level) or ``factored`` (the same bets in three parts: bet or
    #: not, box, stake level); see docs/rl.md, "The action's design, and why"
    action_form: str = "discrete"


@dataclass(frozen=True)
class RLConfig:
    """One algorithm's hyper-parameters (passed to its constructor) and the run settings."""

    algo: str
    hyper: dict[str, Any]
    train: TrainSettings


def check_algo(algo: str) -> str:
    """``algo`` if ``trente-lab train`` builds it (:data:`~experiments.rl.algorithms.TRAINABLE`)."""
    if algo not in TRAINABLE:
        raise RLError(f"unknown algo {algo!r}; choose one of {', '.join(TRAINABLE)}")
    return algo


def load_config(algo: str, path: str | Path | None = None) -> RLConfig:
    """The hyper-parameters of ``algo`` from a TOML file (default :data:`DEFAULT_CONFIG`).

    The file has a ``[train]`` table (:class:`TrainSettings`) and one table per algorithm
    (``[ppo]``, ``[a2c]``, ``[dqn]``, ``[maskable-ppo]``) holding keyword arguments of its SB3 class.
    """
    check_algo(algo)
    path = Path(path) if path is not None else DEFAULT_CONFIG
    document = read_toml(path, RLError)
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
        if not is_whole(value, 1, numpy=False):
            raise RLError(f"config {str(path)!r}: [train] {name} must be a whole number >= 1, got {value!r}")
    if not _number(settings.reward_scale) or not settings.reward_scale > 0:
        raise RLError(f"config {str(path)!r}: [train] reward_scale must be positive, got {settings.reward_scale!r}")
    if not _number(settings.ent_decay) or not 0 <= settings.ent_decay <= 1:
        raise RLError(f"config {str(path)!r}: [train] ent_decay must be from 0 to 1, got {settings.ent_decay!r}")
    if not isinstance(settings.net_arch, tuple) or not all(is_whole(n, 1, numpy=False) for n in settings.net_arch):
        raise RLError(f"config {str(path)!r}: [train] net_arch must be a list of layer widths, got {settings.net_arch}")
    if settings.action_form not in RL_ACTION_FORMS:
        raise RLError(
            f"config {str(path)!r}: [train] action_form must be one of {', '.join(RL_ACTION_FORMS)}, "
            f"got {settings.action_form!r}"
        )
    levels = settings.stake_levels
    if not isinstance(levels, tuple) or not levels or not all(_number(s) and 0 < s <= MAX_MONEY for s in levels):
        raise RLError(f"config {str(path)!r}: [train] stake_levels must be a list of positive stakes, got {levels!r}")
    return own_tables(RLConfig(algo, dict(hyper), settings), f"config {str(path)!r}: [{algo}] n_envs")


def own_tables(config: RLConfig, where: str = "n_envs") -> RLConfig:
    """``config`` with an algorithm's own number of tables (``n_envs`` among its hyper-parameters,
    which its SB3 class does not take) moved into its run settings, where it replaces ``[train]``'s:
    PPO plays 64 tables for 32 coups per rollout, DQN keeps the 8 tables its step counts were set on.

    :raises RLError: a number of tables that is not a whole number >= 1 (``where`` names it).
    """
    if "n_envs" not in config.hyper:
        return config
    hyper = dict(config.hyper)
    tables = hyper.pop("n_envs")
    if not is_whole(tables, 1, numpy=False):
        raise RLError(f"{where} must be a whole number >= 1, got {tables!r}")
    return RLConfig(config.algo, hyper, dataclasses.replace(config.train, n_envs=int(tables)))


#: Hyper-parameters whose range stable-baselines3 does not check, though a value outside it trains on
#: nonsense (a gamma of 2 makes the returns grow without bound, then NaN logits): name -> (lowest,
#: highest, whether the lowest itself is allowed, whether None is allowed).
HYPER_RANGES: dict[str, tuple[float, float, bool, bool]] = {
    "gamma": (0.0, 1.0, True, False),
    "gae_lambda": (0.0, 1.0, True, False),
    "learning_rate": (0.0, math.inf, False, False),
    "clip_range": (0.0, math.inf, False, False),
    "clip_range_vf": (0.0, math.inf, False, True),
    "ent_coef": (0.0, math.inf, True, False),
    "vf_coef": (0.0, math.inf, True, False),
    "max_grad_norm": (0.0, math.inf, False, False),
    "target_kl": (0.0, math.inf, False, True),
    "rms_prop_eps": (0.0, math.inf, False, False),
    "tau": (0.0, 1.0, False, False),
    "exploration_fraction": (0.0, 1.0, True, False),
    "exploration_initial_eps": (0.0, 1.0, True, False),
    "exploration_final_eps": (0.0, 1.0, True, False),
}
#: Whole-number hyper-parameters and their least value (``gradient_steps = -1``: as many as steps).
HYPER_COUNTS: dict[str, int] = {
    "n_steps": 1, "batch_size": 1, "n_epochs": 1, "buffer_size": 1, "learning_starts": 0,
    "target_update_interval": 1, "gradient_steps": -1, "stats_window_size": 1,
}  # fmt: skip


#: Hyper-parameters that may fall linearly to 0 over the run, written ``"lin_<start>"`` as in
#: rl-baselines3-zoo's files (``learning_rate = "lin_0.0003"``).
LINEAR_PREFIX = "lin_"
SCHEDULABLE = ("learning_rate", "clip_range")


def linear_start(value: Any) -> float | None:
    """The start of a ``"lin_<start>"`` schedule; None for anything else (a plain number is left as it is)."""
    if not (isinstance(value, str) and value.startswith(LINEAR_PREFIX)):
        return None
    try:
        return float(value[len(LINEAR_PREFIX) :])
    except ValueError:
        return math.nan


def check_hyper(algo: str, hyper: Mapping[str, Any]) -> None:
    """Refuse, in one line, a hyper-parameter out of the range it has a meaning in
    (:data:`HYPER_RANGES`, :data:`HYPER_COUNTS`: what the algorithm's constructor does not check) or a
    number that is not finite anywhere in ``hyper``. Names the constructor does not take, and values of
    the wrong kind it does check, are left to it (:func:`experiments.rl.train.build_model`)."""
    for key, value in hyper.items():
        start = linear_start(value) if key in SCHEDULABLE else None
        if start is not None:
            if not math.isfinite(start):
                raise RLError(f"bad hyper-parameters for {algo}: {key} {value!r} is not {LINEAR_PREFIX}<number>")
            value = start
        if isinstance(value, float) and not math.isfinite(value):
            raise RLError(f"bad hyper-parameters for {algo}: {key} must be a finite number, got {value!r}")
        if key in HYPER_COUNTS:
            low = HYPER_COUNTS[key]
            if not is_whole(value, low, numpy=False):
                raise RLError(f"bad hyper-parameters for {algo}: {key} must be a whole number >= {low}, got {value!r}")
        if key in HYPER_RANGES:
            low, high, closed, optional = HYPER_RANGES[key]
            if value is None and optional:
                continue
            inside = _number(value) and (low <= value if closed else low < value) and value <= high
            if not inside:
                lower = "[" if closed else "("
                upper = "]" if high < math.inf else ")"
                raise RLError(
                    f"bad hyper-parameters for {algo}: {key} must be a number in {lower}{low:g}, {high:g}{upper}"
                    f"{' or none' if optional else ''}, got {value!r}"
                )


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def algo_class(algo: str) -> type:
    """The SB3 class of ``algo`` (imports stable-baselines3 or sb3-contrib)."""
    module_name, class_name = ALGORITHMS[check_algo(algo)]
    try:
        module = __import__(module_name, fromlist=[class_name])
    except ImportError:
        raise RLError(f"{algo} needs {module_name.replace('_', '-')}: pip install 'trente-lab[rl]'") from None
    return getattr(module, class_name)


def set_threads(n: int = 1) -> None:
    """Limit torch to ``n`` threads (the machines we train on are shared)."""
    import torch

    torch.set_num_threads(n)


__all__ = [
    "DEFAULT_CONFIG",
    "HYPER_COUNTS",
    "HYPER_RANGES",
    "RL_ACTION_FORMS",
    "RLConfig",
    "TrainSettings",
    "algo_class",
    "check_algo",
    "check_hyper",
    "load_config",
    "own_tables",
    "set_threads",
]

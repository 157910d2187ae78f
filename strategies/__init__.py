"""Betting systems as vectorised policies: every classic system, playable wherever an RL agent is.

A strategy reads the environment's observation (dict or flat, batched over sessions) and returns
actions in the environment's ``"full"`` form, ``(n, 12)`` integers; it learns each coup's result
from the scoreboard in the next observation. It satisfies stable-baselines3's ``PolicyPredictor``,
so ``evaluate_policy(make_strategy("martingale"), env)`` scores it like a trained agent::

    import gymnasium as gym
    import trente_env
    from strategies import make_strategy

    venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=10_000)
    policy = make_strategy("martingale:base=5,box=rouge")
    obs, _ = venv.reset(seed=0)
    state = None
    for _ in range(100):
        actions, state = policy.act(obs, state)
        obs, reward, terminated, truncated, info = venv.step(actions)

Modules: :mod:`strategies.base` (the interface and the rules common to every system),
:mod:`strategies.kernel` (the compiled state machine behind every built-in system),
:mod:`strategies.progressions` (martingale, paroli, Labouchère...), :mod:`strategies.patterns`
(streaks, the gambler's fallacy, random, never), :mod:`strategies.registry` (names, spec strings,
config files, plugins), :mod:`strategies.model` (trained SB3 models), :mod:`strategies.runner`
(the session runner every command plays through, and its accounting convention).
"""

from strategies.base import Box, OnLimit, RefaitMode, SessionState, Strategy
from strategies.model import ModelPolicy
from strategies.patterns import AntiStreak, Column, NeverBet, RandomBettor, StreakChaser
from strategies.progressions import (
    ContraDAlembert,
    DAlembert,
    Fibonacci,
    Flat,
    GrandMartingale,
    Labouchere,
    Martingale,
    OneThreeTwoSix,
    OscarsGrind,
    Paroli,
    ReverseMartingale,
)
from strategies.registry import (
    ENTRY_POINT_GROUP,
    LINEUP,
    STRATEGIES,
    StrategyError,
    make_strategy,
    strategies_from_config,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "LINEUP",
    "STRATEGIES",
    "AntiStreak",
    "Box",
    "Column",
    "ContraDAlembert",
    "DAlembert",
    "Fibonacci",
    "Flat",
    "GrandMartingale",
    "Labouchere",
    "Martingale",
    "ModelPolicy",
    "NeverBet",
    "OnLimit",
    "OneThreeTwoSix",
    "OscarsGrind",
    "Paroli",
    "RandomBettor",
    "RefaitMode",
    "ReverseMartingale",
    "SessionState",
    "Strategy",
    "StrategyError",
    "StreakChaser",
    "make_strategy",
    "strategies_from_config",
]

"""Betting systems as vectorised policies: every classic system, playable wherever an RL agent is.

A strategy reads the environment's observation (dict or flat, batched over sessions) and returns
actions in the environment's ``"full"`` form, ``(n, 12)`` integers; it learns each coup's result
from the scoreboard in the next observation. It is a :class:`~strategies.policy.Policy`, as a trained
model is, and satisfies stable-baselines3's ``PolicyPredictor``, so
``evaluate_policy(make_strategy("martingale"), env)`` scores it like a trained agent::

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

Modules: :mod:`strategies.policy` (the :class:`Policy` protocol), :mod:`strategies.base` (the
strategy interface and the rules common to every system), :mod:`strategies.kernel` (the compiled
state machine behind every built-in system), :mod:`strategies.progressions` (martingale, paroli,
Labouchère...), :mod:`strategies.patterns` (streaks, the gambler's fallacy, random, never),
:mod:`strategies.registry` (names, spec strings, config files, plugins; where a new system goes),
:mod:`strategies.model` (trained SB3 models) with :mod:`strategies.features` (their input layer),
:mod:`strategies.counters` (the card counters, which read the shoe), :mod:`strategies.runner` (the
session runner every command plays through, and its accounting convention) and :mod:`strategies.sessions` (its compiled
session loop).
"""

# isort: off
# The built-in systems register (strategies.registry.register) as their modules are imported, in this
# order, which is the catalogue's.
from strategies import progressions, patterns  # noqa: F401
from strategies import counters  # noqa: F401  (the card counters register after the systems)

# isort: on
from strategies.base import OnLimit, RefaitMode, SessionState, Strategy
from strategies.model import ModelPolicy
from strategies.policy import Policy, in_form
from strategies.registry import (
    COUNTERS,
    ENTRY_POINT_GROUP,
    LINEUP,
    STRATEGIES,
    StrategyError,
    make_strategy,
    register,
    strategies_from_config,
)
from trente_env.codes import Box

__all__ = [
    "COUNTERS",
    "ENTRY_POINT_GROUP",
    "LINEUP",
    "STRATEGIES",
    "Box",
    "ModelPolicy",
    "OnLimit",
    "Policy",
    "RefaitMode",
    "SessionState",
    "Strategy",
    "StrategyError",
    "in_form",
    "make_strategy",
    "register",
    "strategies_from_config",
]

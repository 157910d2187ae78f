"""What every player of trente-lab is: a :class:`Policy`, from a martingale to a trained PPO agent.

A policy reads a batch of the environment's observations and answers with one action per session.
It has two faces:

* :meth:`Policy.act`: actions in the environment's ``"full"`` form, ``(n, 12)`` (the action row of
  :mod:`trente_env.codes`), whatever the policy is; what the session runner
  (:mod:`strategies.runner`) and every command use;
* :meth:`Policy.predict`: stable-baselines3's ``PolicyPredictor.predict``, so that SB3's
  ``evaluate_policy`` scores a betting system exactly like a trained agent.

:class:`~strategies.base.Strategy` (every betting system, built in or plugin) and
:class:`~strategies.model.ModelPolicy` (a trained SB3 model) satisfy it; ``isinstance(x, Policy)``
checks that an object has both methods.

**Another action form.** A betting system thinks in the full form. :func:`in_form` adapts any
policy to the action form of a given env, e.g. the discrete form (sit out, or one stake level on
one box) that ``trente-lab train`` uses by default, or its bets in the factored form's parts, so
that SB3's ``evaluate_policy`` scores a martingale on the very env an agent was trained on. The
conversion (:func:`discrete_actions`) keeps the box with the largest stake and the stake level
nearest to it (the lower one on a tie), and drops insurance and prison choices, which the discrete
form does not offer: exact for bets the discrete form can express, an approximation otherwise (a
martingale's doubled stakes are rounded to the levels), so the numbers of a system in the discrete
form are those of that approximation, not of the system.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

#: A batch of observations: the dict form (a dict of arrays with a leading session axis) or the flat form.
Observation = np.ndarray | dict[str, np.ndarray]


@runtime_checkable
class Policy(Protocol):
    """A player: observations in, bets out, with a memory (``state``) carried from call to call."""

    def act(
        self, observation: Observation, state: Any = None, episode_start: np.ndarray | None = None
    ) -> tuple[np.ndarray, Any]:
        """The bets for a batch of observations (or one unbatched observation).

        :param observation: the env's observations, dict or flat.
        :param state: what the previous call returned (None: start afresh).
        :param episode_start: per session, True where a new session begins.
        :return: actions in the env's full form, ``(n, 12)`` (``(12,)`` for one unbatched
            observation), and the state to pass to the next call.
        """
        ...

    def predict(
        self,
        observation: Observation,
        state: Any = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = False,
    ) -> tuple[np.ndarray, Any]:
        """stable-baselines3's ``PolicyPredictor.predict``: the policy's actions in the form of the
        env it plays (for a model, the env it was trained in) and the next state."""
        ...


class Acting:
    """What a policy built on its :meth:`~Policy.act` inherits: stable-baselines3's ``predict`` as a
    template over ``act`` (as SB3's ``BasePolicy.predict`` is over ``_predict``). A subclass writes
    ``act``, and :meth:`carried` only if it keeps a memory of its own kind."""

    def predict(
        self,
        observation: Observation,
        state: Any = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = False,
    ) -> tuple[np.ndarray, Any]:
        """SB3's ``PolicyPredictor.predict``: ``act`` under SB3's names. ``deterministic`` is ignored:
        a betting system is deterministic given its seed."""
        return self.act(observation, self.carried(state), episode_start)  # type: ignore[attr-defined]

    def carried(self, state: Any) -> Any:
        """The memory ``act`` is given, from the ``state`` SB3 passes back (by default, that state)."""
        return state


def discrete_actions(rows: np.ndarray, layout: Any) -> np.ndarray:
    """Full-form action rows ``(n, 12)`` as the discrete actions of ``layout`` (a
    :class:`trente_env.layout.Layout` of the discrete form): the largest stake's box at the nearest
    stake level, or 0 (sit out) when nothing is staked."""
    from trente_env.codes import STAKE

    rows = np.asarray(rows, dtype=np.float64).reshape(-1, np.shape(rows)[-1])
    levels = np.asarray(layout.stake_levels, dtype=np.float64)
    stakes = rows[:, STAKE : STAKE + layout.n_boxes]
    box = stakes.argmax(axis=1)
    stake = stakes[np.arange(len(rows)), box]
    level = np.abs(levels[None, :] - stake[:, None]).argmin(axis=1)  # the first of two equally near: the lower
    return np.where(stake > 0, 1 + box * levels.size + level, 0).astype(np.int64)


class InForm(Acting):
    """``policy`` playing an env of another action form (see the module's docstring).

    :param policy: any :class:`Policy` (its ``act`` answers in the full form).
    :param layout: the env's :class:`~trente_env.layout.Layout` (``env.unwrapped.layout``).
    """

    def __init__(self, policy: Policy, layout: Any) -> None:
        self.policy, self.layout = policy, layout

    def act(
        self, observation: Observation, state: Any = None, episode_start: np.ndarray | None = None
    ) -> tuple[np.ndarray, Any]:
        rows, state = self.policy.act(observation, state, episode_start)
        if self.layout.action_form == "full":
            return rows, state
        actions = discrete_actions(rows, self.layout)
        if self.layout.action_form == "factored":  # the same bet, in its three parts
            actions = self.layout.factored(actions)
        return (actions[0] if np.ndim(rows) == 1 else actions), state


def in_form(policy: Policy, env: Any) -> InForm:
    """``policy`` answering in the action form of ``env``: a single or vector env of trente-lab,
    wrapped or not, or a stable-baselines3 ``VecEnv`` over one (its wrappers' ``venv`` are followed)."""
    while env is not None:
        layout = getattr(getattr(env, "unwrapped", env), "layout", None)
        if layout is not None:
            return InForm(policy, layout)
        env = getattr(env, "venv", None)
    raise TypeError("not a trente-lab environment (no layout found)")


__all__ = ["Acting", "InForm", "Observation", "Policy", "discrete_actions", "in_form"]

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


__all__ = ["Observation", "Policy"]

"""THE ideal policies of the graded tables (:mod:`trente_env.levels`): what an agent is scored against.

A level names its best policy (:attr:`trente_env.levels.Level.ideal`); :func:`ideal_policy` builds
it here, a floor above the levels, so that ``trente_env`` imports nothing from ``strategies``:

* ``"rig"``: :class:`IdealRig`, the level's largest stake on Noir when the scoreboard shows the rig's
  pattern (:func:`~trente_env.settle.rig_holds`, the rule the croupier pays by), nothing otherwise;
  on a fair table, nothing ever;
* ``"counter"``: the perfect card counter (:class:`strategies.counters.Counter`), uninsured as the
  discrete actions are, staking the level's largest stake.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from trente_env.codes import ACTION_WIDTH, NOIR, unflatten
from trente_env.layout import DEFAULT_STAKE_LEVELS, Layout
from trente_env.levels import LEVEL_HISTORY, Level
from trente_env.rules import RuleSet
from trente_env.settle import rig_holds


class IdealRig:
    """The ideal policy of a table whose only edge is a rig: ``stake`` units on Noir when the
    scoreboard shows the pattern of ``rules`` (a rigged rule set), nothing otherwise; on a fair rule
    set, nothing ever. It reads only the scoreboard, so it plays the same on any table (on the fair
    twin of a rigged table, it is the control's "Noir after the pattern" rule at fair payouts).

    :param rules: the rule set whose rig pattern it follows.
    :param stake: the units it stakes when the pattern shows.
    :param history: the coups of the scoreboard it reads (its env's).
    :param stake_levels: the stake menu of the discrete actions (for :meth:`predict`).
    """

    def __init__(
        self,
        rules: RuleSet,
        stake: float,
        history: int = LEVEL_HISTORY,
        stake_levels: Sequence[float] = DEFAULT_STAKE_LEVELS,
    ) -> None:
        self.rules = rules
        self.stake = float(stake)
        self.history = int(history)
        self.stake_levels = tuple(float(s) for s in stake_levels)

    def spec(self) -> str:
        if not self.rules.rigged:
            return "ideal: sit out"
        return f"ideal: {self.stake:g} on Noir after {self.rules.rig_pattern}"

    def env_kwargs(self) -> dict[str, Any]:
        """The observation it reads (:func:`strategies.runner.observation_kwargs`)."""
        return {"observation": "dict", "history": self.history}

    def act(self, observation: Any, state: Any = None, episode_start: Any = None) -> tuple[np.ndarray, Any]:
        """A batch of observations (dict or flat; one unbatched too) -> ``(n, 12)`` actions in the full
        form (what :func:`strategies.runner.play_on_env` and ``evaluate`` play), and the state unchanged."""
        obs = observation if isinstance(observation, dict) else unflatten(np.atleast_2d(observation))
        results = np.asarray(obs["results"])
        boards = np.atleast_2d(results)
        actions = np.zeros((boards.shape[0], ACTION_WIDTH))
        if self.rules.rigged:
            actions[rig_holds(self.rules, boards), NOIR] = self.stake
        return (actions[0] if results.ndim == 1 else actions), state

    def predict(
        self, observation: Any, state: Any = None, episode_start: Any = None, deterministic: bool = False
    ) -> tuple[np.ndarray, Any]:
        """SB3's ``PolicyPredictor.predict`` on the level's env: the same choice as :meth:`act`, as the
        index of the discrete action an agent would pick (0: sit out)."""
        actions, state = self.act(observation, state)
        rows = np.atleast_2d(actions)
        layout = Layout(self.rules, "discrete", "dict", self.history, False, self.stake_levels)
        menu = layout.action_table
        index = np.array([int(np.flatnonzero((menu == row).all(axis=1))[0]) for row in rows])
        return (index[0] if rows is not actions else index), state


def ideal_policy(level: Level, stake: float | None = None) -> Any:
    """The optimal policy of ``level`` as a lab policy (``act(observation, state) -> (full-form
    actions, state)``, ``env_kwargs()``): it reads the same observation as an agent and stakes what
    the discrete actions offer (``stake``, default the level's largest), so ``evaluate`` and
    :func:`strategies.runner.play_on_env` play it.

    :raises ValueError: a level whose ideal policy is not known here.
    """
    stake = level.stake if stake is None else float(stake)
    if level.ideal == "rig":
        return IdealRig(level.rules, stake, level.history, level.stakes)
    if level.ideal == "counter":
        from strategies.counters import Counter

        # uninsured, as the discrete actions: the counter decides as on a table without insurance. It
        # reads the shoe and a scoreboard of the level's history, the level's observation.
        return Counter(base=int(stake), rules=level.rules.replace(insurance=False))
    raise ValueError(f"level {level.name!r} names an unknown ideal policy {level.ideal!r}")


__all__ = ["IdealRig", "ideal_policy"]

"""Graded tables with exact optima: where a learning agent is scored against the best policy there is.

A benchmark needs a yardstick. Each :class:`Level` is a table (a :class:`~trente_env.rules.RuleSet`,
fair or rigged), the environment an agent plays it through (the RL's discrete actions: sit out or
one of :data:`LEVEL_STAKES` on one box), the policy that is best there (:meth:`Level.ideal`), and
that policy's expected gain per coup and per unit staked, computed from the exact odds of
:mod:`trente_env.odds` (or, for the card counter, estimated over many shoes with its standard
error). An agent's score is its gain per coup as a share of the optimum (:meth:`Level.score`).

* ``fair``: the classic table. Every box loses the house edge: the best policy sits out every
  coup, and the optimum is 0.
* ``rig-1``: the rigged table, the positive control (:data:`~trente_env.rules.RIG`): a Noir win pays
  3:2 right after a Noir win, 1:2 otherwise. The best policy stakes the largest stake on Noir right
  after a Noir win and nothing otherwise.
* ``rig-3``: the same payouts, but only right after Noir, Rouge, Noir (:data:`~trente_env.rules.RIG3`):
  every policy that reads fewer than the last three coups loses (:func:`memory_proof`); the best
  one stakes the largest stake on Noir right after that pattern and nothing otherwise.
* ``shoe``: the classic table dealt to the end of the shoe, the unseen cards in the observation:
  the best policy is the perfect card counter (:class:`strategies.counters.Counter`), which stakes
  the largest stake on a box only when the odds of what is left of the shoe favour it.

"Best" is among the actions the level's environment offers: uninsured stakes (the discrete form has
no insurance). An insured stake on Noir costs 1% of the stake instead of the uninsured Noir edge
(1.06% of it), so with insurance the rigged tables' ideal would gain slightly more per unit staked
(:func:`~trente_env.odds.best_with_memory` with ``insured=True``).

Each level is registered with Gymnasium (``TrenteEtQuarante-Rig1-v0``, ...: :attr:`Level.env_id`);
the env made from it carries the level and its optimum in its ``metadata``. docs/levels.md tells the
story and lists the figures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from trente_env import LEVEL_NAMES, env_id
from trente_env.codes import ACTION_WIDTH, NOIR, unflatten
from trente_env.odds import best_with_memory, house_edges
from trente_env.rules import RIG, RIG3, RuleSet, get_rules
from trente_env.settle import rig_holds

#: The stakes the levels' environments offer (the discrete action form): those of the RL's config,
#: ``stake_levels`` of experiments/configs/rl.toml. The ideal policies stake the largest.
LEVEL_STAKES = (1.0, 5.0, 25.0, 100.0)
#: Coups kept on the scoreboard by the levels' environments (the RL config's ``history``).
LEVEL_HISTORY = 10
#: Where the card counter's estimated optimum is stored (:func:`shoe_optimum`; ``python -m trente_env.levels``).
SHOE_FILE = Path(__file__).with_name("data") / "levels.json"


@dataclass(frozen=True)
class Level:
    """One graded table: the rules, the environment an agent plays it through, and the optimum.

    :param name: ``"fair"``, ``"rig-1"``, ``"rig-3"`` or ``"shoe"``.
    :param rules: the table (a rig is a rule of the rule set like any other).
    :param env_kwargs: the environment's arguments for this level (:class:`~trente_env.env.TrenteEtQuaranteEnv`).
    :param optimum_per_coup: the ideal policy's expected gain per coup, in units, with this action space.
    :param optimum_per_unit: its expected gain per unit staked (0 where it never stakes).
    :param optimum_se: 0.0 where the optimum is exact; its standard error where it is estimated.
    :param model: the model the figure assumes, one line.
    :param bet_share: the share of coups the ideal policy stakes on.
    """

    name: str
    rules: RuleSet
    env_kwargs: dict[str, Any]
    optimum_per_coup: float
    optimum_per_unit: float
    optimum_se: float
    model: str
    bet_share: float
    #: on ``fair`` (optimum 0): the expected gain per coup of one unit on one box every coup (< 0), the
    #: scale of :meth:`score` there.
    flat_unit_per_coup: float = field(default=0.0)

    @property
    def env_id(self) -> str:
        """Its registered Gymnasium id: ``"rig-1"`` -> ``"TrenteEtQuarante-Rig1-v0"``."""
        return env_id(self.name)

    @property
    def stake(self) -> float:
        """What the ideal policy stakes when it stakes: the largest of the level's stakes."""
        return float(max(self.env_kwargs["stake_levels"]))

    def ideal(self) -> Any:
        """The optimal policy, as a lab policy (``act(observation, state) -> (full-form actions,
        state)``, ``env_kwargs()``): it reads the same observation as an agent and stakes what the
        discrete actions offer, so ``evaluate`` and :func:`strategies.runner.play_on_env` play it."""
        if self.name == "shoe":
            from strategies.counters import Counter  # strategies builds on trente_env: imported when asked

            # uninsured, as the discrete actions: the counter decides as on a table without insurance. It
            # reads the shoe and a scoreboard of 10 coups (LEVEL_HISTORY), the level's observation.
            return Counter(base=int(self.stake), rules=self.rules.replace(insurance=False))
        return IdealRig(self)

    def score(self, per_coup: float) -> float:
        """A gain per coup (units) as a score: the share of the optimum per coup (1: as good as the
        ideal policy, 0: no better than sitting out, below 0: worse).

        On ``fair`` the optimum is 0 (sitting out), so the scale is the loss of the simplest bettor
        instead: ``1 + per_coup / |flat|``, where ``flat`` is the expected gain per coup of one unit on
        one box every coup (:attr:`flat_unit_per_coup`, minus the Noir edge): sitting out scores 1,
        that flat bettor 0, a policy that loses ten times as much -9."""
        if self.optimum_per_coup > 0:
            return per_coup / self.optimum_per_coup
        return 1.0 + per_coup / abs(self.flat_unit_per_coup)

    def metadata(self) -> dict[str, Any]:
        """The level as plain data (what its environment's ``metadata["level"]`` holds)."""
        return {
            "name": self.name,
            "env_id": self.env_id,
            "rules": self.rules.describe(),
            "optimum_per_coup": self.optimum_per_coup,
            "optimum_per_unit": self.optimum_per_unit,
            "optimum_se": self.optimum_se,
            "bet_share": self.bet_share,
            "model": self.model,
        }


class IdealRig:
    """The ideal policy of a table whose only edge is a rig (``fair``, ``rig-1``, ``rig-3``): the
    level's largest stake on Noir when the scoreboard shows the rig's pattern
    (:func:`~trente_env.settle.rig_holds`, the rule the croupier pays by), nothing otherwise; on a
    fair table, nothing ever."""

    def __init__(self, level: Level) -> None:
        self.level = level
        self.rules = level.rules
        self.stake = level.stake

    def env_kwargs(self) -> dict[str, Any]:
        """The observation it reads (:func:`strategies.runner.observation_kwargs`)."""
        return {"observation": "dict", "history": self.level.env_kwargs["history"]}

    def act(self, observation: Any, state: Any = None) -> tuple[np.ndarray, Any]:
        obs = observation if isinstance(observation, dict) else unflatten(np.atleast_2d(observation))
        boards = np.atleast_2d(obs["results"])
        actions = np.zeros((boards.shape[0], ACTION_WIDTH))
        if self.rules.rigged:
            actions[rig_holds(self.rules, boards), NOIR] = self.stake
        return actions, state

    def predict(self, observation: Any, state: Any = None, episode_start: Any = None, deterministic: bool = False):
        """SB3's ``PolicyPredictor.predict``: :meth:`act` under SB3's names."""
        return self.act(observation, state)


def _env_kwargs(rules: RuleSet, observe_shoe: bool = False) -> dict[str, Any]:
    return {
        "rules": rules,
        "action_form": "discrete",
        "stake_levels": LEVEL_STAKES,
        "history": LEVEL_HISTORY,
        "observe_shoe": observe_shoe,
    }


_RIG_MODEL = (
    "consecutive coups independent at the first-coup odds of a full {decks}-deck shoe, stakes always "
    "affordable, a session's first {k} coup(s) left out"
)


def rig_level(name: str, rules: RuleSet) -> Level:
    """A level whose only edge is a rig (or none): its optimum from the exact odds
    (:func:`~trente_env.odds.best_with_memory` with the whole pattern in view), the largest stake."""
    kwargs = _env_kwargs(rules)
    stake = max(LEVEL_STAKES)
    best = best_with_memory(rules, len(rules.rig_pattern))
    flat = -house_edges(rules).noir
    return Level(
        name=name,
        rules=rules,
        env_kwargs=kwargs,
        optimum_per_coup=stake * best.per_coup,
        optimum_per_unit=best.per_unit,
        optimum_se=0.0,
        model=_RIG_MODEL.format(decks=rules.decks, k=len(rules.rig_pattern)),
        bet_share=best.bet_share,
        flat_unit_per_coup=flat,
    )


def memory_proof(rules: RuleSet, memories: range = range(4)) -> dict[int, Any]:
    """The best policy that reads the last ``m`` coups, for each ``m`` of ``memories``
    (:func:`~trente_env.odds.best_with_memory`, one unit): on ``rig-3`` it gains nothing (it never
    stakes: every box loses after every history) for ``m`` < 3 and gains for ``m`` = 3."""
    return {m: best_with_memory(rules, m) for m in memories}


def _load_shoe() -> dict[str, Any] | None:
    if not SHOE_FILE.exists():
        return None
    return json.loads(SHOE_FILE.read_text()).get("shoe")


def shoe_level(rules: RuleSet) -> Level:
    """The card counter's level: its optimum as stored in :data:`SHOE_FILE` (estimated over shoes by
    :func:`shoe_optimum`), NaN until it is computed."""
    stored = _load_shoe() or {}
    nan = float("nan")
    return Level(
        name="shoe",
        rules=rules,
        env_kwargs=_env_kwargs(rules, observe_shoe=True),
        optimum_per_coup=float(stored.get("per_coup", nan)),
        optimum_per_unit=float(stored.get("per_unit", nan)),
        optimum_se=float(stored.get("per_coup_se", nan)),
        model=(
            f"the perfect counter's expected gain, uninsured, {stored.get('shoes', 0)} shoes dealt to the end "
            f"(seed {stored.get('seed', '-')}): exact odds of each coup for the last cards, the counting "
            "engine's approximation with its measured error before"
        ),
        bet_share=float(stored.get("bet_share", nan)),
        flat_unit_per_coup=-house_edges(rules).noir,
    )


def _levels() -> dict[str, Level]:
    classic = get_rules("classic")
    levels = {
        "fair": rig_level("fair", classic),
        "rig-1": rig_level("rig-1", classic.replace(**RIG)),
        "rig-3": rig_level("rig-3", classic.replace(**RIG3)),
        "shoe": shoe_level(get_rules("exhaustion")),
    }
    if tuple(levels) != LEVEL_NAMES:
        raise RuntimeError(f"trente_env.LEVEL_NAMES {LEVEL_NAMES} and the levels {tuple(levels)} differ")
    return levels


#: The graded tables, by name.
LEVELS: dict[str, Level] = _levels()


def get_level(name: str) -> Level:
    """The level called ``name``. :raises ValueError: an unknown name."""
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown level {name!r}; choose one of {', '.join(LEVELS)}") from None


# -- the registered environments -----------------------------------------------------------------


def make_env(level: str, **overrides: Any) -> Any:
    """The environment of ``level`` (the entry point of its Gymnasium id): the level's arguments,
    ``overrides`` over them, the level's figures in ``env.metadata["level"]``."""
    from trente_env.env import TrenteEtQuaranteEnv

    found = get_level(level)
    env = TrenteEtQuaranteEnv(**{**found.env_kwargs, **overrides})
    env.metadata = {**env.metadata, "level": found.metadata()}
    return env


def make_vector_env(num_envs: int, level: str, **overrides: Any) -> Any:
    """The native vector environment of ``level`` (the vector entry point of its Gymnasium id)."""
    from trente_env.vector import TrenteEtQuaranteVectorEnv

    found = get_level(level)
    venv = TrenteEtQuaranteVectorEnv(num_envs, **{**found.env_kwargs, **overrides})
    venv.metadata = {**venv.metadata, "level": found.metadata()}
    return venv


__all__ = [
    "LEVELS",
    "LEVEL_HISTORY",
    "LEVEL_STAKES",
    "IdealRig",
    "Level",
    "get_level",
    "make_env",
    "make_vector_env",
    "memory_proof",
    "rig_level",
    "shoe_level",
]

"""Graded tables with exact optima: where a learning agent is scored against the best policy there is.

A benchmark needs a yardstick. Each :class:`Level` is one record: a table (a
:class:`~trente_env.rules.RuleSet`, fair or rigged), the environment an agent plays it through (the
RL's discrete actions: sit out or one of :data:`LEVEL_STAKES` on one box), the policy that is best
there (named by :attr:`Level.ideal`, built by :func:`strategies.ideal.ideal_policy`), that policy's
expected gain per coup and per unit staked, computed from the exact odds of :mod:`trente_env.odds`
(or, for the card counter, estimated over many shoes with its standard error), and what the
benchmark does with it: the training budget, the target score and the evaluation plan. An agent's
score is its gain per coup as a share of the optimum, or on ``fair`` (optimum 0) the share of coups
it sat out (:meth:`Level.score`).

* ``fair``: the classic table. Every box loses the house edge: the best policy sits out every
  coup, and the optimum is 0.
* ``rig-1``: the rigged table, the positive control (:data:`~trente_env.rules.RIG`): a Noir win pays
  3:2 right after a Noir win, 1:2 otherwise. The best policy stakes the largest stake on Noir right
  after a Noir win and nothing otherwise.
* ``rig-3``: the same payouts, but only right after Noir, Rouge, Noir (:data:`~trente_env.rules.RIG3`):
  every policy that reads fewer than the last three coups loses (:func:`memory_proof`); the best
  one stakes the largest stake on Noir right after that pattern and nothing otherwise.
* ``shoe``: the classic table dealt to the end of the shoe, the unseen cards in the observation:
  the best policy is the perfect card counter (``strategies.counters.Counter``), which stakes
  the largest stake on a box only when the odds of what is left of the shoe favour it.

"Best" is among the actions the level's environment offers: uninsured stakes (the discrete form has
no insurance). An insured stake on Noir costs 1% of the stake instead of the uninsured Noir edge
(1.121% of it), so with insurance the rigged tables' ideal would gain slightly more per unit staked
(:func:`~trente_env.odds.best_with_memory` with ``insured=True``).

Each level is registered with Gymnasium (``TrenteEtQuarante-Rig1-v0``, ...: :attr:`Level.env_id`);
the env made from it carries the level and its optimum in its ``metadata``. docs/levels.md tells the
story and lists the figures.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from trente_env import LEVEL_NAMES, env_id
from trente_env.layout import DEFAULT_STAKE_LEVELS
from trente_env.odds import best_with_memory, house_edges
from trente_env.plan import EvalPlan
from trente_env.rules import RIG, RIG3, RuleSet, get_rules
from trente_env.seeding import block_seed

#: The stakes the levels' environments offer (the discrete action form): the environments' default
#: menu (:data:`~trente_env.layout.DEFAULT_STAKE_LEVELS`). The ideal policies stake the largest.
LEVEL_STAKES = tuple(DEFAULT_STAKE_LEVELS)
#: How the benchmark evaluates a level's agent: 100 sessions x 1,000 coups on the shoes of the
#: agent's own training seed (:meth:`~trente_env.plan.EvalPlan.seed_for`), the ideal policy on the same.
LEVEL_PLAN = EvalPlan(sessions=100, coups=1000, seed=None)
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
    :param ideal: which policy is best there: ``"rig"`` (the rig's pattern, or sit out on a fair
        table) or ``"counter"`` (the perfect card counter); :func:`strategies.ideal.ideal_policy` builds it.
    :param budget: the benchmark's training budget on this level, in timesteps (coups, all tables).
    :param target: the benchmark's target of the headline score (the share of coups sat out on
        ``fair``, the share of the optimum per coup elsewhere).
    :param plan: how the benchmark evaluates an agent here (:data:`LEVEL_PLAN`).
    """

    name: str
    rules: RuleSet
    env_kwargs: dict[str, Any]
    optimum_per_coup: float
    optimum_per_unit: float
    optimum_se: float
    model: str
    bet_share: float
    ideal: str
    budget: int
    target: float
    plan: EvalPlan = field(default=LEVEL_PLAN)
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

    @property
    def stakes(self) -> tuple[float, ...]:
        """The stake menu of its environment (the discrete actions: sit out, or one of these on a box)."""
        return tuple(self.env_kwargs["stake_levels"])

    @property
    def history(self) -> int:
        """The coups its environment's scoreboard keeps."""
        return int(self.env_kwargs["history"])

    def score(self, per_coup: float, sat_out: float | None = None) -> float:
        """A run's score here (:func:`headline_score`): its gain per coup (units) as a share of the
        optimum per coup, or on ``fair`` (optimum 0) the share of coups it sat out (``sat_out``)."""
        return headline_score(per_coup, sat_out, self.optimum_per_coup)

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
            "ideal": self.ideal,
            "stakes": list(self.stakes),
            "budget": self.budget,
            "target": self.target,
            "plan": {"sessions": self.plan.sessions, "coups": self.plan.coups, "seed": self.plan.seed},
        }


def headline_score(per_coup: float, sat_out: float | None, optimum_per_coup: float) -> float:
    """THE score of a run at a table whose optimum per coup is ``optimum_per_coup``: where the best
    policy gains (a rig, the counter's shoe), the gain per coup as a share of the optimum (1: as good
    as the ideal policy, 0: no better than sitting out, below 0: worse); where the optimum is 0 (a
    fair table: sitting out is best), the share of coups sat out (1: the ideal). How much a policy
    loses there is reported beside it, as a multiple of a 1-unit flat bettor's loss
    (:attr:`Level.flat_unit_per_coup`).

    :raises ValueError: a fair table's score without ``sat_out``.
    """
    if optimum_per_coup == 0:
        if sat_out is None:
            raise ValueError("the optimum is 0 (sit out every coup): the score is the share of coups sat out")
        return float(sat_out)
    return per_coup / optimum_per_coup


def _env_kwargs(rules: RuleSet, observe_shoe: bool = False) -> dict[str, Any]:
    return {
        "rules": rules,
        "action_form": "discrete",
        "stake_levels": LEVEL_STAKES,
        "history": LEVEL_HISTORY,
        "observe_shoe": observe_shoe,
    }


def _model(rules: RuleSet) -> str:
    """The model of a rig level's exact figure, one line."""
    odds = f"the first-coup odds of a full {rules.decks}-deck shoe"
    if not rules.rigged:
        return f"every box loses its house edge at {odds}: sitting out is best"
    k = len(rules.rig_pattern)
    first = "first coup" if k == 1 else f"first {k} coups"
    return f"consecutive coups independent at {odds}, every stake affordable, a session's {first} left out"


def rig_level(name: str, rules: RuleSet, budget: int, target: float) -> Level:
    """A level whose only edge is a rig (or none): its optimum from the exact odds
    (:func:`~trente_env.odds.best_with_memory` with the whole pattern in view), the largest stake;
    the benchmark's ``budget`` (timesteps) and ``target`` score there."""
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
        model=_model(rules),
        bet_share=best.bet_share,
        ideal="rig",
        budget=budget,
        target=target,
        flat_unit_per_coup=flat,
    )


def memory_proof(rules: RuleSet, memories: range = range(4)) -> dict[int, Any]:
    """The best policy that reads the last ``m`` coups, for each ``m`` of ``memories``
    (:func:`~trente_env.odds.best_with_memory`, one unit): on ``rig-3`` it gains nothing (it never
    stakes: every box loses after every history) for ``m`` < 3 and gains for ``m`` = 3."""
    return {m: best_with_memory(rules, m) for m in memories}


#: Shoes per block of :func:`shoe_optimum` (each block its own seed, from the run's seed and its index).
SHOE_BLOCK = 1000


def shoe_optimum(
    rules: RuleSet,
    shoes: int,
    seed: int = 0,
    stake: float = max(LEVEL_STAKES),
    done: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The perfect counter's optimum on ``rules`` (uninsured, ``stake`` units a bet), estimated over
    ``shoes`` dealt shoes (:func:`trente_env.counting.counters.study_shoes`, in blocks of
    :data:`SHOE_BLOCK` shoes seeded from ``seed`` and the block's index): per shoe, the sum of the
    expected gains of its bets by the odds of each coup, so the estimate's noise is only the spread
    between shoes, not the luck of the cards. Per coup: a ratio of means over shoes, its standard error
    by the delta method.

    :param done: told the number of shoes of each block as soon as it is played (a progress bar).
    """
    from trente_env.counting.counters import study_shoes  # the counting engine: only to compute the figure

    counter_rules = rules.replace(insurance=False)
    parts: dict[str, list[np.ndarray]] = {"expected": [], "coups": [], "bets": [], "realised": []}
    seconds = 0.0
    for block, start in enumerate(range(0, shoes, SHOE_BLOCK)):
        n = min(SHOE_BLOCK, shoes - start)
        study = study_shoes(counter_rules, n, block_seed(seed, block))
        for key, values in parts.items():
            values.append(getattr(study, key).astype(float))
        seconds += study.seconds
        if done is not None:
            done(n)
    expected, coups, bets, realised = (np.concatenate(parts[key]) for key in ("expected", "coups", "bets", "realised"))
    gain = expected * stake
    per_coup = gain.mean() / coups.mean()
    resid = gain - per_coup * coups
    n = gain.size
    return {
        "rules": rules.describe(),
        "shoes": n,
        "seed": seed,
        "stake": stake,
        "per_shoe": float(gain.mean()),
        "per_shoe_se": float(gain.std(ddof=1) / np.sqrt(n)),
        "per_coup": float(per_coup),
        "per_coup_se": float(resid.std(ddof=1) / np.sqrt(n) / coups.mean()),
        "per_unit": float(expected.sum() / bets.sum()) if bets.sum() else 0.0,
        "bet_share": float(bets.sum() / coups.sum()),
        "coups_per_shoe": float(coups.mean()),
        "realised_per_shoe": float(realised.mean() * stake),
        "seconds": seconds,
    }


def write_shoe_optimum(shoes: int = 40_000, seed: int = 0) -> dict[str, Any]:
    """Estimate the ``shoe`` level's optimum (:func:`shoe_optimum`) and store it in :data:`SHOE_FILE`,
    a progress bar on stderr (``python -m trente_env.levels [shoes]``: about a quarter of an hour of one
    core for the default 40,000 shoes)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("the perfect counter, shoes dealt to the end", total=shoes)
        figure = shoe_optimum(get_rules("exhaustion"), shoes, seed, done=lambda n: bar.advance(task, n))
    SHOE_FILE.write_text(json.dumps({"shoe": figure}, indent=1) + "\n")
    return figure


def _load_shoe() -> dict[str, Any] | None:
    if not SHOE_FILE.exists():
        return None
    return json.loads(SHOE_FILE.read_text()).get("shoe")


def shoe_level(rules: RuleSet, budget: int, target: float) -> Level:
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
        ideal="counter",
        budget=budget,
        target=target,
        flat_unit_per_coup=-house_edges(rules).noir,
    )


def _levels() -> dict[str, Level]:
    classic = get_rules("classic")
    # budgets: rig-3's pattern follows 8.8% of coups and takes longer to find (docs/rl.md); targets:
    # the share of coups sat out on fair, the share of the optimum per coup elsewhere
    levels = {
        "fair": rig_level("fair", classic, budget=1_000_000, target=0.99),
        "rig-1": rig_level("rig-1", classic.replace(**RIG), budget=1_000_000, target=0.95),
        "rig-3": rig_level("rig-3", classic.replace(**RIG3), budget=8_000_000, target=0.90),
        "shoe": shoe_level(get_rules("exhaustion"), budget=3_000_000, target=0.50),
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


if __name__ == "__main__":  # python -m trente_env.levels [shoes]: estimate and store the shoe level's optimum
    import sys

    print(json.dumps(write_shoe_optimum(int(sys.argv[1]) if len(sys.argv) > 1 else 40_000), indent=1))


__all__ = [
    "LEVELS",
    "LEVEL_HISTORY",
    "LEVEL_PLAN",
    "LEVEL_STAKES",
    "Level",
    "get_level",
    "headline_score",
    "make_env",
    "make_vector_env",
    "memory_proof",
    "rig_level",
    "shoe_level",
]

"""Card counters as players: the perfect and the linear counter of ``trente-lab count`` at the table.

Unlike the betting systems, a counter reads the cards: it plays on the environment that observes
the shoe (``observe_shoe``: the unseen cards by value and colour, and the cards left to deal), and
before each coup it makes the count analysis' decision (:mod:`trente_env.counting.counters`, the
same compiled code):

* ``counter``, the **perfect counter**: the odds of the next coup from the unseen cards
  (:func:`trente_env.odds.shoe_odds`: exact for a short shoe, else the fast approximation whose
  error is measured in :mod:`trente_env.odds`), and ``base`` units on the best box, insured if
  that is better, only when its expected gain per unit is above ``threshold`` (0: positive);
* ``linear-counter``: the same with the expected gains estimated by the linear count (one tag per
  value and colour: the effects of removal, :func:`trente_env.counting.removal.linear_count`).

Under the ``choice`` rule both ask for prison on a refait when a prisoner is worth more than half a
stake (the perfect counter by the odds of the coup, the linear one by a fresh shoe's).

**Where they play.** A counter is not a state machine of :mod:`strategies.kernel`: the tournament
plays it alone on the vector env (:func:`strategies.runner.play_on_env`), on the same shoes as every
system, with the same statistics. That path is slower than the compiled session loop: a Python
step per coup for all the sessions of a block, and the perfect counter computes the odds of every
coup (microseconds in a deep shoe, milliseconds in the last few dozen cards).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from strategies.base import plain
from strategies.policy import Acting, Observation
from strategies.registry import register_counter
from trente_env.codes import ACTION_WIDTH, SHOE_SIZE, unflatten
from trente_env.counting.counters import bet_rules, counter_actions, linear_actions
from trente_env.counting.removal import effects_of_removal, linear_count
from trente_env.odds import COUPLED_CARDS, EXACT_BOX, check_tiers, full_counts, nodes
from trente_env.rules import RuleSet
from trente_env.whole import checked_whole


@dataclass(frozen=True)
class CardCounter(Acting):
    """What the counters share: a :class:`~strategies.policy.Policy` that reads the shoe-observing
    env's observation and stakes ``base`` units on one box when its (estimated) expected gain per
    unit is above ``threshold``. A counter has no memory: everything it needs is in the observation."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""

    base: int = field(default=1, metadata={"help": "units staked on a favourable coup"})
    threshold: float = field(default=0.0, metadata={"help": "bet only above this expected gain per unit"})
    rules: RuleSet = field(default_factory=RuleSet, metadata={"table": True})

    def __post_init__(self) -> None:
        rules, base = self.rules, self.base
        checked_whole(base, f"base must be a whole number of units >= 1, got {base!r}", 1)
        if not rules.table_min <= base <= rules.table_max:
            raise ValueError(f"base {base} is outside the table limits {rules.table_min:g}-{rules.table_max:g}")
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, (int, float)):
            raise ValueError(f"threshold must be a number, got {self.threshold!r}")
        if not np.isfinite(self.threshold):
            raise ValueError(f"threshold must be a finite number, got {self.threshold!r}")

    def env_kwargs(self) -> dict[str, Any]:
        """The env a counter plays on (:func:`strategies.runner.observation_kwargs`): the shoe observed."""
        return {"observation": "dict", "observe_shoe": True}

    def act(
        self, observation: Observation, state: Any = None, episode_start: np.ndarray | None = None
    ) -> tuple[np.ndarray, None]:
        """A batch of observations of the shoe-observing env (dict or flat; one unbatched too) ->
        ``(n, 12)`` actions in the full form, and no state."""
        obs = observation if isinstance(observation, dict) else unflatten(np.atleast_2d(observation))
        if "shoe" not in obs:
            raise ValueError(f"{self.name} reads the shoe: play it on an env made with observe_shoe=True")
        shoe = np.asarray(obs["shoe"])
        single = shoe.ndim == 1
        shoe = np.ascontiguousarray(np.rint(np.atleast_2d(shoe)), dtype=np.int64)
        cards_left = np.ascontiguousarray(np.rint(np.asarray(obs["cards_left"])).reshape(-1), dtype=np.int64)
        if shoe.shape != (cards_left.size, SHOE_SIZE):
            raise ValueError(f"a shoe observation is {SHOE_SIZE} counts per table, got shape {shoe.shape}")
        actions = np.zeros((shoe.shape[0], ACTION_WIDTH))
        self._decide(shoe, cards_left, actions)
        actions = np.rint(actions).astype(np.int64)
        return (actions[0] if single else actions), None

    def params(self) -> dict[str, Any]:
        """The parameters as plain values (no rules)."""
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self) if not f.metadata.get("table")}

    def spec(self) -> str:
        """The spec string that makes this counter again (:func:`~strategies.registry.make_strategy`)."""
        defaults = type(self)(rules=self.rules).params()
        changed = {k: v for k, v in self.params().items() if v != defaults[k]}
        return self.name + (":" + ",".join(f"{k}={v}" for k, v in changed.items()) if changed else "")

    def _decide(self, shoe: np.ndarray, cards_left: np.ndarray, actions: np.ndarray) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Counter(CardCounter):
    """Bet only when the cards left make a box favourable: the perfect counter.

    Before each coup it computes the odds of the coup from the unseen cards (exact for about the last
    20 cards, else a fast approximation with a measured error) and stakes ``base`` units on the box
    with the best expected gain, insured if that is better, when that gain is above ``threshold``
    units per unit staked; otherwise it stakes nothing. Thorp and Walden (1973) showed such a player
    gains almost nothing in Trente et Quarante: see ``trente-lab count``.
    """

    name: ClassVar[str] = "counter"
    summary: ClassVar[str] = "perfect card counter: one bet on the best box when the shoe makes it favourable"

    exact_box: int = field(default=EXACT_BOX, metadata={"help": "exact odds up to this many joint states"})
    coupled_cards: int = field(default=COUPLED_CARDS, metadata={"help": "coupled rows up to this many cards"})

    def __post_init__(self) -> None:
        super().__post_init__()
        check_tiers(self.exact_box, self.coupled_cards)

    @functools.cached_property
    def _bet_rules(self) -> tuple:
        return bet_rules(self.rules)

    def _decide(self, shoe: np.ndarray, cards_left: np.ndarray, actions: np.ndarray) -> None:
        expected = np.zeros(shoe.shape[0])
        odds = (max(self.exact_box, 1), self.coupled_cards, nodes().model())
        unit, threshold = float(self.base), float(self.threshold)
        counter_actions(shoe, cards_left, unit, threshold, odds, self._bet_rules, actions, expected)


@dataclass(frozen=True)
class LinearCounter(CardCounter):
    """Bet when a linear count of the cards dealt says a box is favourable.

    One tag per value and colour of card and per bet (the effects of removing that card from a full
    shoe, ``trente-lab count``): the estimate of each box's expected gain is its full-shoe value plus
    the tags of the cards dealt, scaled by the cards left. It stakes ``base`` units on the best
    estimate when that is above ``threshold`` units per unit staked, insured if that is better.
    Cheap, and it captures only part of the perfect counter's small gain.
    """

    name: ClassVar[str] = "linear-counter"
    summary: ClassVar[str] = "linear card count: one bet on the best box when the count says it is favourable"

    @functools.cached_property
    def _count(self) -> tuple:
        count = linear_count(effects_of_removal(self.rules))
        return full_counts(self.rules.decks), count.base, count.tags, bet_rules(self.rules)

    def _decide(self, shoe: np.ndarray, cards_left: np.ndarray, actions: np.ndarray) -> None:
        full, base, tags, rules = self._count
        linear_actions(shoe, full, float(self.base), float(self.threshold), base, tags, rules, actions)


register_counter(Counter)
register_counter(LinearCounter)

__all__ = ["CardCounter", "Counter", "LinearCounter"]

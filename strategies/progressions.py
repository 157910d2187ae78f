"""Staking progressions: systems that play one box and change the stake after each win or loss.

Every system here stakes ``base`` times a count of units on its ``box``, and follows the common
rules of :mod:`strategies.base`: table limits and bankroll (``on_limit``), the refait
(``refait="loss"`` books it as a lost coup, ``refait="wait"`` waits for the prisoner: freed is no
change, lost is a loss), the après (no change: the same stake again), and stop-win/stop-loss.
None of them changes the expected loss: each unit staked loses the house edge on average.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from strategies import kernel
from strategies.base import SessionState, Strategy
from strategies.kernel import FIBONACCI, Kind
from strategies.registry import register
from trente_env.codes import Box
from trente_env.whole import checked_whole, is_whole


@dataclass(frozen=True)
class Progression(Strategy):
    """A system that plays one box; its stake is ``base`` times a count of units.

    :param box: the box played (Couleur/Inverse versions: ``box=couleur`` or ``box=inverse``).
    """

    box: Box = field(default=Box.NOIR, metadata={"help": "the box played: noir|rouge|couleur|inverse"})

    kind: ClassVar[int] = Kind.FLAT

    def boxes_played(self) -> tuple[Box, ...]:
        return (self.box,)

    def _kernel_values(self) -> tuple[dict[int, int], tuple[int, ...]]:
        return {kernel.K_BOX: self.box.index}, ()

    # Python hooks for systems built on this class outside the kernel (plugins): a count of units,
    # 1 at the start, staked on the box. The built-in systems below run on the kernel.
    def _init_memory(self, n: int) -> dict[str, np.ndarray]:
        return {"units": np.ones(n, dtype=np.int64)}

    def _restart(self, state: SessionState, rows: np.ndarray) -> None:
        state.memory["units"][rows] = 1

    def _bet(self, state: SessionState) -> tuple[int, np.ndarray]:
        return self.box.index, self.base * state.memory["units"]


@register
@dataclass(frozen=True)
class Flat(Progression):
    """Flat betting: the same stake on the same box every coup.

    Rule: stake ``base`` on ``box``, win or lose. The benchmark every progression is measured
    against: its loss per unit staked is the house edge, with the smallest spread of results.
    Origin: the plain bet, as old as the game. Refait and après change nothing (there is nothing to
    progress); under ``refait="wait"`` it sits out while its stake is in prison.
    """

    name: ClassVar[str] = "flat"
    summary: ClassVar[str] = "the same stake on the same box every coup"


@register
@dataclass(frozen=True)
class Martingale(Progression):
    """The martingale: double the stake after a loss, back to the base unit after a win.

    Rule: after each loss the stake doubles (1, 2, 4, 8...); the first win recovers every loss of
    the run plus one base unit, and the stake returns to ``base``. Origin: 18th-century France, the
    best known "sure thing", and the reason tables have a maximum: ten losses in a row ask for 1024
    units, above the classic 1-1000 table. A refait counts as a loss (``refait="loss"``) or is
    waited out (``refait="wait"``: a freed prisoner repeats the stake, a lost one doubles it);
    an après repeats the stake. At the table maximum or the end of the bankroll the run is
    abandoned and the stake returns to ``base`` (``on_limit="reset"``), or capped (``"cap"``).
    """

    name: ClassVar[str] = "martingale"
    summary: ClassVar[str] = "double after a loss, back to the base after a win"
    kind: ClassVar[int] = Kind.MARTINGALE


@register
@dataclass(frozen=True)
class GrandMartingale(Progression):
    """The grand martingale: after a loss, double the stake and add one base unit.

    Rule: stakes 1, 3, 7, 15... after successive losses (``2s + 1``); a win wins back every loss plus
    one unit per coup of the run, and returns to ``base``. Origin: the gamblers' "improvement" on the
    martingale; it hits the table maximum even sooner. Refait, après and limits as the martingale.
    """

    name: ClassVar[str] = "grand-martingale"
    summary: ClassVar[str] = "double plus one unit after a loss, back to the base after a win"
    kind: ClassVar[int] = Kind.GRAND


@register
@dataclass(frozen=True)
class ReverseMartingale(Progression):
    """The reverse martingale (anti-martingale): double after a win, back to the base after a loss.

    Rule: let winnings ride (1, 2, 4, 8...) until a loss takes the whole run and the stake returns to
    ``base``. Origin: the "press your luck" mirror of the martingale; many small losses, rare big
    wins. There is no planned stop (see paroli for that): the run ends at a loss or when the stake
    reaches the table maximum or the bankroll (``on_limit="reset"``: take the profit and restart).
    A refait counts as a loss (``loss``) or is waited out (``wait``); an après repeats the stake.
    """

    name: ClassVar[str] = "reverse-martingale"
    summary: ClassVar[str] = "double after a win, back to the base after a loss"
    kind: ClassVar[int] = Kind.REVERSE


@dataclass(frozen=True)
class _Sequence(Progression):
    """A positive progression through a fixed sequence of units: advance on a win, restart on a loss
    or after the last step has won (a completed cycle)."""

    kind: ClassVar[int] = Kind.SEQUENCE

    def units_sequence(self) -> tuple[int, ...]:
        """The units of each step."""
        raise NotImplementedError

    def _kernel_values(self) -> tuple[dict[int, int], tuple[int, ...]]:
        return {kernel.K_BOX: self.box.index}, self.units_sequence()


@register
@dataclass(frozen=True)
class Paroli(_Sequence):
    """The paroli: let a winning stake ride for a fixed number of wins, then pocket the run.

    Rule: stake 1, after a win 2, after another 4 (the stake and its winnings stay on the box); after
    ``steps`` wins in a row (3 by default: 1-2-4) the player takes the 8 units off the table and starts
    again at ``base``. A loss at any point restarts at ``base``, having lost only the first unit.
    Origin: the Italian-French "paroli" (to "parlay"), as old as basset and faro in the 17th century.
    A refait counts as a loss (``loss``) or is waited out (``wait``); an après repeats the stake.

    :param steps: the number of wins in a row after which the run is banked.
    """

    name: ClassVar[str] = "paroli"
    summary: ClassVar[str] = "let it ride for 3 wins (1-2-4), then bank the run"

    steps: int = field(default=3, metadata={"help": "wins in a row before the run is banked"})

    def __post_init__(self) -> None:
        super().__post_init__()
        checked_whole(self.steps, f"steps must be a whole number from 1 to 40, got {self.steps!r}", 1, 40, numpy=False)

    def units_sequence(self) -> tuple[int, ...]:
        return tuple(2**i for i in range(self.steps))


@register
@dataclass(frozen=True)
class DAlembert(Progression):
    """The d'Alembert: one unit more after a loss, one unit less after a win.

    Rule: the stake goes up by ``step`` units after a loss and down by ``step`` after a win, never
    below one unit. It rests on the fallacy that wins and losses must "even out". Origin: named after
    Jean le Rond d'Alembert (1717-1783), who believed a coup became likelier after its opposite.
    A refait counts as a loss (``loss``) or is waited out (``wait``); an après changes nothing.

    :param step: units added after a loss and taken off after a win.
    """

    name: ClassVar[str] = "dalembert"
    summary: ClassVar[str] = "one unit more after a loss, one less after a win"

    step: int = field(default=1, metadata={"help": "units added after a loss, removed after a win"})

    kind: ClassVar[int] = Kind.DALEMBERT

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_units("step", (self.step,))

    def _kernel_values(self) -> tuple[dict[int, int], tuple[int, ...]]:
        return {kernel.K_BOX: self.box.index, kernel.K_STEP: self.step}, ()


@register
@dataclass(frozen=True)
class ContraDAlembert(DAlembert):
    """The contra-d'Alembert: one unit more after a win, one unit less after a loss.

    Rule: the mirror of the d'Alembert; the stake climbs during winning runs and falls back, never
    below one unit, after losses. Origin: the "positive" variant of d'Alembert's system. A refait counts
    as a loss (``loss``) or is waited out (``wait``); an après changes nothing.

    :param step: units added after a win and taken off after a loss.
    """

    name: ClassVar[str] = "contra-dalembert"
    summary: ClassVar[str] = "one unit more after a win, one less after a loss"
    kind: ClassVar[int] = Kind.CONTRA


@register
@dataclass(frozen=True)
class Fibonacci(Progression):
    """The Fibonacci system: walk the sequence 1, 1, 2, 3, 5, 8... up after a loss, back after a win.

    Rule: after a loss move one step up the Fibonacci sequence; after a win move ``back`` steps down
    (two by default, so one win recovers the last two losses), never below the first step. Origin: a
    gentler martingale from 20th-century system books, after Leonardo of Pisa's sequence (1202).
    A refait counts as a loss (``loss``) or is waited out (``wait``); an après changes nothing. The
    sequence stops growing at its 60th number; the table maximum comes long before.

    :param back: steps down the sequence after a win.
    """

    name: ClassVar[str] = "fibonacci"
    summary: ClassVar[str] = "one step up 1-1-2-3-5-8... after a loss, two steps down after a win"

    back: int = field(default=2, metadata={"help": "steps down the sequence after a win"})

    kind: ClassVar[int] = Kind.FIB

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_units("back", (self.back,))

    def _kernel_values(self) -> tuple[dict[int, int], tuple[int, ...]]:
        return {kernel.K_BOX: self.box.index, kernel.K_BACK: self.back}, ()


@register
@dataclass(frozen=True)
class Labouchere(Progression):
    """The Labouchère (cancellation): stake the sum of the ends of a line of numbers.

    Rule: write a line (``1-2-3-4`` by default, a target of 10 units). Stake the first plus the last
    number (the only one when one is left). After a win cross both off; after a loss write the lost
    stake at the end. When the line is empty the target is won: a cycle is complete and the line is
    written again. Origin: Henry Labouchère (1831-1912), British MP and journalist, after Condorcet.
    A refait counts as a loss (``loss``; the stake is written down) or is waited out (``wait``); an
    après changes nothing. At the table maximum or the bankroll the line is abandoned and written
    afresh (``on_limit="reset"``), or the stake capped (``"cap"``).

    :param line: the starting line, in units, e.g. ``1-2-3-4``.
    """

    name: ClassVar[str] = "labouchere"
    summary: ClassVar[str] = "stake first + last of a line; cross off on a win, append on a loss"

    line: tuple[int, ...] = field(default=(1, 2, 3, 4), metadata={"help": "the starting line, in units"})

    kind: ClassVar[int] = Kind.LABOUCHERE

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_units("line", self.line)

    def _kernel_values(self) -> tuple[dict[int, int], tuple[int, ...]]:
        return {kernel.K_BOX: self.box.index}, self.line


@register
@dataclass(frozen=True)
class OscarsGrind(Progression):
    """Oscar's grind: win one unit per cycle, raising the stake only after wins.

    Rule: a cycle aims at a profit of ``goal`` base units. Start with one unit. After a loss, stake
    the same again. After a win, stake one unit more, but never more than what would bring the cycle
    to exactly its goal. When the goal is reached the cycle is complete and the next starts at one
    unit. Origin: described by Allan Wilson (1965) after a craps player named Oscar. The cycle's
    profit counts the stakes actually placed (after any cap). A refait counts as a loss (``loss``)
    or is waited out (``wait``: a freed prisoner changes nothing); an après changes nothing. At a
    limit the cycle is abandoned (``reset``) or the stake capped (``cap``).

    :param goal: the profit of a cycle, in base units.
    """

    name: ClassVar[str] = "oscars-grind"
    summary: ClassVar[str] = "one unit more after a win, same after a loss, until the cycle is +1"

    goal: int = field(default=1, metadata={"help": "profit of a cycle, in base units"})

    kind: ClassVar[int] = Kind.OSCAR

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_units("goal", (self.goal,))

    def _kernel_values(self) -> tuple[dict[int, int], tuple[int, ...]]:
        return {kernel.K_BOX: self.box.index, kernel.K_GOAL: self.goal}, ()


@register
@dataclass(frozen=True)
class OneThreeTwoSix(_Sequence):
    """The 1-3-2-6 system: four stakes in a row of 1, 3, 2 and 6 units while winning.

    Rule: stake 1; after a win 3 (the 2 won plus one more), then 2 (banking 4), then 6; after the
    fourth win (a profit of 12 units) or any loss, start again at 1. Origin: popularised in 20th-century
    baccarat and roulette books as a "limited paroli". Refait counts as a loss (``loss``) or is waited
    out (``wait``); an après repeats the stake.

    :param sequence: the units of each step, e.g. ``1-3-2-6`` (the default) or ``1-3-2-4``.
    """

    name: ClassVar[str] = "1-3-2-6"
    summary: ClassVar[str] = "stakes of 1, 3, 2, 6 units while winning, restart after a loss"

    sequence: tuple[int, ...] = field(default=(1, 3, 2, 6), metadata={"help": "the units of each step"})

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_units("sequence", self.sequence)

    def units_sequence(self) -> tuple[int, ...]:
        return self.sequence


def _check_units(name: str, values: tuple[int, ...]) -> None:
    """Whole numbers from 1 to :data:`strategies.kernel.MAX_UNITS` (2**40), which keeps the kernel's
    arithmetic inside int64 (see the note in :mod:`strategies.kernel`)."""
    if not values or not all(is_whole(v, 1, kernel.MAX_UNITS) for v in values):
        raise ValueError(f"{name} must be whole numbers from 1 to 2**40, got {values!r}")


__all__ = [
    "FIBONACCI",
    "ContraDAlembert",
    "DAlembert",
    "Fibonacci",
    "Flat",
    "GrandMartingale",
    "Labouchere",
    "Martingale",
    "OneThreeTwoSix",
    "OscarsGrind",
    "Paroli",
    "Progression",
    "ReverseMartingale",
]

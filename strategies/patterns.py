"""Systems that choose *where* to bet from the scoreboard, and the two reference lines.

Streak chasing and its mirror, the gambler's fallacy, read the same run of results and bet
opposite ways; both lose the same fraction of what they stake, which is the teacher's point. The
random bettor and "never bet" are the control group and the zero line. All stake ``base`` flat and
follow the common rules of :mod:`strategies.base` (limits, refait booking, stop-win/stop-loss).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar

from strategies import kernel
from strategies.base import Strategy
from strategies.kernel import Kind
from strategies.registry import register
from trente_env.codes import Box
from trente_env.whole import checked_whole


class Column(str, Enum):
    """Which pair of boxes a scoreboard reader follows. Written ``colour`` (the colours of the rows:
    Noir or Rouge) or ``couleur`` (Couleur or Inverse) in a spec."""

    NOIR_ROUGE = "colour"  #: Noir against Rouge (the scoreboard's results column)
    COULEUR_INVERSE = "couleur"  #: Couleur against Inverse (the scoreboard's couleur column)

    @property
    def boxes(self) -> tuple[Box, Box]:
        return (Box.NOIR, Box.ROUGE) if self is Column.NOIR_ROUGE else (Box.COULEUR, Box.INVERSE)


@dataclass(frozen=True)
class _RunReader(Strategy):
    """Follows the current run of one column: which side won the last decided coups, and how many
    in a row. Après, refait and void coups are not decided (no colour or couleur won): they leave the
    run as it was, as on the punters' scoring cards."""

    k: int = field(default=3, metadata={"help": "length of the run that triggers a bet"})
    column: Column = field(
        default=Column.NOIR_ROUGE, metadata={"help": "colour (noir/rouge) or couleur (couleur/inverse)"}
    )

    #: True: bet the side of the run; False: bet against it.
    follow: ClassVar[bool] = True
    kind: ClassVar[int] = Kind.RUNS

    def __post_init__(self) -> None:
        super().__post_init__()
        message = f"k must be a whole number from 1 to 2**40, got {self.k!r}"
        checked_whole(self.k, message, 1, kernel.MAX_UNITS, numpy=False)

    def boxes_played(self) -> tuple[Box, ...]:
        return self.column.boxes

    def _kernel_values(self) -> tuple[dict[int, int], tuple[int, ...]]:
        first = self.column.boxes[0].index
        return {kernel.K_BOX: first, kernel.K_RUN: self.k, kernel.K_FOLLOW: self.follow}, ()


@register
@dataclass(frozen=True)
class StreakChaser(_RunReader):
    """Streak chasing: bet the side that has won the last ``k`` decided coups, "while it is hot".

    Rule: after ``k`` wins in a row of Noir (or Rouge; with ``column=couleur``, Couleur or Inverse),
    stake ``base`` on it, and keep doing so while the run lasts; otherwise sit out. Après and refaits
    do not break a run (no side won them). Origin: the "suivre la série" of the scoring-card
    players; streaks carry no information, so it loses the house edge like everything else. The
    stake is flat, so a refait changes nothing to it (``refait="wait"``: it sits out while its
    stake is in prison); an après changes nothing.

    :param k: the length of run that triggers a bet.
    :param column: ``colour`` (Noir/Rouge) or ``couleur`` (Couleur/Inverse).
    """

    name: ClassVar[str] = "streak"
    summary: ClassVar[str] = "bet the side that won the last k coups (follow the streak)"
    follow: ClassVar[bool] = True


@register
@dataclass(frozen=True)
class AntiStreak(_RunReader):
    """The gambler's fallacy: after ``k`` wins in a row of one side, bet the other, "it is due".

    Rule: after ``k`` decided coups in a row won by Noir, stake ``base`` on Rouge (and the other way
    round; with ``column=couleur``, Couleur/Inverse), and keep betting against the run while it
    lasts. Après and refaits do not break a run. Origin: the maturity of chances, the fallacy of the
    Monte Carlo casino's 1913 evening when black came up 26 times. Coups have no memory: it loses the
    house edge like everything else. Flat stake: a refait changes nothing (``wait`` sits out while
    the stake is in prison); an après changes nothing.

    :param k: the length of run after which the other side is "due".
    :param column: ``colour`` (Noir/Rouge) or ``couleur`` (Couleur/Inverse).
    """

    name: ClassVar[str] = "anti-streak"
    summary: ClassVar[str] = "bet against a side after it won k coups in a row (gambler's fallacy)"
    follow: ClassVar[bool] = False


@register
@dataclass(frozen=True)
class RandomBettor(Strategy):
    """The random bettor: each coup, with probability ``p_bet``, stake ``base`` on a box drawn at random.

    Rule: a coin decides whether to bet, a die which of ``boxes``; flat stakes. The control group:
    no information in, the house edge out. Seeded and reproducible per session: a session's draws
    depend only on (``seed``, the session, the coup number), never on the batch, the block or the
    row it is played in: the session runner and the tournament key them by the session's seed
    (:func:`trente_env.seeding.session_keys`; played directly, row ``i`` with its session count
    stands for the session, see :func:`strategies.kernel.uniform`). Flat stake: a refait changes
    nothing (``wait`` sits out while the stake is in prison); an après changes nothing.

    :param seed: the seed of the draws.
    :param p_bet: the probability of betting on a coup.
    :param boxes: the boxes drawn from, e.g. ``noir-rouge`` or ``noir-rouge-couleur-inverse``.
    """

    name: ClassVar[str] = "random"
    summary: ClassVar[str] = "flat stake on a random box (seeded): the control group"
    kind: ClassVar[int] = Kind.RANDOM

    seed: int = field(default=0, metadata={"help": "seed of the draws"})
    p_bet: float = field(default=1.0, metadata={"help": "probability of betting on a coup"})
    boxes: tuple[Box, ...] = field(default=(Box.NOIR, Box.ROUGE), metadata={"help": "the boxes drawn from"})

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.boxes:
            raise ValueError("boxes must name at least one box")
        checked_whole(self.seed, f"seed must be a whole number from 0 to 2**63 - 1, got {self.seed!r}", 0, 2**63 - 1)
        if not 0.0 <= self.p_bet <= 1.0:
            raise ValueError(f"p_bet must be a probability in [0, 1], got {self.p_bet}")

    def boxes_played(self) -> tuple[Box, ...]:
        return self.boxes

    def _kernel_values(self) -> tuple[dict[int, int], tuple[int, ...]]:
        return {kernel.K_SEED: self.seed}, tuple(b.index for b in self.boxes)


@register
@dataclass(frozen=True)
class NeverBet(Strategy):
    """Never bet: the zero line. Sits at the table and stakes nothing, every coup.

    Rule: no stake, ever; the bankroll never moves. Every other system is measured against it: it is
    the only one whose expected result is not negative. Refait and après: nothing to book.
    """

    name: ClassVar[str] = "never"
    summary: ClassVar[str] = "stake nothing, ever: the zero line"
    kind: ClassVar[int] = Kind.NEVER


__all__ = ["AntiStreak", "Column", "NeverBet", "RandomBettor", "StreakChaser"]

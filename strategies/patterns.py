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

import numpy as np

from strategies.base import Box, Seen, SessionState, Strategy
from trente_env.coup import Result
from trente_env.tables import COULEUR_WINS, INVERSE_WINS


class Column(str, Enum):
    """Which pair of boxes a scoreboard reader follows."""

    COLOUR = "colour"  #: Noir against Rouge (the results column)
    COULEUR = "couleur"  #: Couleur against Inverse (the couleur column)

    @property
    def boxes(self) -> tuple[Box, Box]:
        return (Box.NOIR, Box.ROUGE) if self is Column.COLOUR else (Box.COULEUR, Box.INVERSE)


@dataclass(frozen=True)
class _RunReader(Strategy):
    """Follows the current run of one column: which side won the last decided coups, and how many
    in a row. Après, refait and void coups are not decided (no colour or couleur won): they leave the
    run as it was, as on the punters' scoring cards."""

    k: int = field(default=3, metadata={"help": "length of the run that triggers a bet"})
    column: Column = field(default=Column.COLOUR, metadata={"help": "colour (noir/rouge) or couleur (couleur/inverse)"})

    #: True: bet the side of the run; False: bet against it.
    follow: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ValueError(f"k must be a whole number >= 1, got {self.k!r}")

    def boxes_played(self) -> tuple[Box, ...]:
        return self.column.boxes

    def _init_memory(self, n: int) -> dict[str, np.ndarray]:
        return {"side": np.full(n, -1, dtype=np.int64), "run": np.zeros(n, dtype=np.int64)}

    def _new_session(self, state: SessionState, rows: np.ndarray) -> None:
        state.memory["side"][rows] = -1
        state.memory["run"][rows] = 0

    def _see(self, state: SessionState, seen: Seen, live: np.ndarray) -> None:
        if self.column is Column.COLOUR:
            side = np.where(seen.result == Result.NOIR, 0, np.where(seen.result == Result.ROUGE, 1, -1))
        else:
            side = np.where(seen.couleur == COULEUR_WINS, 0, np.where(seen.couleur == INVERSE_WINS, 1, -1))
        decided = live & (side >= 0)
        mem = state.memory
        same = decided & (side == mem["side"])
        other = decided & ~same
        mem["run"][same] += 1
        mem["run"][other] = 1
        mem["side"][other] = side[other]

    def _bet(self, state: SessionState) -> tuple[np.ndarray, int]:
        mem = state.memory
        side = mem["side"] if self.follow else 1 - mem["side"]
        first = self.column.boxes[0].index
        return np.where(mem["run"] >= self.k, first + side, -1), self.base


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


_GOLDEN_INT = 0x9E3779B97F4A7C15
_GOLDEN = np.uint64(_GOLDEN_INT)


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: a well-mixed 64-bit number from each 64-bit input."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def session_uniforms(seed: int, row: np.ndarray, episode: np.ndarray, coup: np.ndarray, stream: int) -> np.ndarray:
    """Uniforms in [0, 1), one per row, fixed by (seed, row, session on that row, coup, stream).

    Counter-based, so a row draws the same numbers whatever the batch size or the other rows do:
    the first 100 rows of a 10,000-row batch bet exactly as a batch of 100.
    """
    x = np.full(np.shape(row), (seed * _GOLDEN_INT) % 2**64, dtype=np.uint64)
    for part in (row, episode, coup, np.full(row.shape, stream)):
        x = _mix(x ^ (np.asarray(part).astype(np.uint64) + _GOLDEN))
    return (x >> np.uint64(11)).astype(np.float64) * 2.0**-53


@dataclass(frozen=True)
class RandomBettor(Strategy):
    """The random bettor: each coup, with probability ``p_bet``, stake ``base`` on a box drawn at random.

    Rule: a coin decides whether to bet, a die which of ``boxes``; flat stakes. The control group:
    no information in, the house edge out. Seeded and reproducible per session: the draws of row
    ``i`` depend only on (``seed``, ``i``, its session count, the coup number), never on the batch
    size (see :func:`session_uniforms`). Flat stake: a refait changes nothing (``wait`` sits out
    while the stake is in prison); an après changes nothing.

    :param seed: the seed of the draws.
    :param p_bet: the probability of betting on a coup.
    :param boxes: the boxes drawn from, e.g. ``noir-rouge`` or ``noir-rouge-couleur-inverse``.
    """

    name: ClassVar[str] = "random"
    summary: ClassVar[str] = "flat stake on a random box (seeded): the control group"

    seed: int = field(default=0, metadata={"help": "seed of the draws"})
    p_bet: float = field(default=1.0, metadata={"help": "probability of betting on a coup"})
    boxes: tuple[Box, ...] = field(default=(Box.NOIR, Box.ROUGE), metadata={"help": "the boxes drawn from"})

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.boxes:
            raise ValueError("boxes must name at least one box")
        if not 0.0 <= self.p_bet <= 1.0:
            raise ValueError(f"p_bet must be a probability in [0, 1], got {self.p_bet}")

    def boxes_played(self) -> tuple[Box, ...]:
        return self.boxes

    def _init_memory(self, n: int) -> dict[str, np.ndarray]:
        return {"coup": np.zeros(n, dtype=np.int64)}

    def _see(self, state: SessionState, seen: Seen, live: np.ndarray) -> None:
        state.memory["coup"][:] = seen.coups

    def _bet(self, state: SessionState) -> tuple[np.ndarray, int]:
        rows = np.arange(state.n)
        coup = state.memory["coup"]
        pick = session_uniforms(self.seed, rows, state.episodes, coup, 0)
        go = session_uniforms(self.seed, rows, state.episodes, coup, 1) < self.p_bet
        choices = np.array([b.index for b in self.boxes], dtype=np.int64)
        box = choices[np.minimum((pick * choices.size).astype(np.int64), choices.size - 1)]
        return np.where(go, box, -1), self.base


@dataclass(frozen=True)
class NeverBet(Strategy):
    """Never bet: the zero line. Sits at the table and stakes nothing, every coup.

    Rule: no stake, ever; the bankroll never moves. Every other system is measured against it: it is
    the only one whose expected result is not negative. Refait and après: nothing to book.
    """

    name: ClassVar[str] = "never"
    summary: ClassVar[str] = "stake nothing, ever: the zero line"


__all__ = ["AntiStreak", "Column", "NeverBet", "RandomBettor", "StreakChaser", "session_uniforms"]

"""The outcome of a coup: who wins, Couleur or Inverse, après, refait (docs/rules.md#a-coup, docs/rules.md#ties).

A row is dealt card by card while its total is at most :data:`ROW_LIMIT`, so it ends on 31..40; the
lower row wins, equal rows are an après, or the refait on :data:`REFAIT_TOTAL`. The result codes are
:class:`trente_env.codes.Result`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trente_env.cards import card_name, is_black
from trente_env.codes import Result

#: A row is dealt while its total is at most this.
ROW_LIMIT = 30
#: Both rows on this total: the refait.
REFAIT_TOTAL = 31
#: The totals a row can end on: above :data:`ROW_LIMIT` by one card of at most 10.
ROW_TOTALS = range(ROW_LIMIT + 1, ROW_LIMIT + 11)
NUMBERS = ("un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix")


def classify(noir: np.ndarray | int, rouge: np.ndarray | int) -> np.ndarray:
    """:class:`Result` codes from the row totals (a total of 0 marks a void coup)."""
    noir, rouge = np.asarray(noir), np.asarray(rouge)
    return np.select(
        [noir == 0, (noir == rouge) & (noir == REFAIT_TOTAL), noir == rouge, noir < rouge],
        # plain ints: numpy would look special attributes up on the enum class in Python code, and
        # a Ctrl-C raised there is swallowed by numpy's C lookup (a `deal` that ignored Ctrl-C)
        [Result.VOID.value, Result.REFAIT.value, Result.APRES.value, Result.NOIR.value],
        Result.ROUGE.value,
    ).astype(np.int8)


def couleur_wins(result: np.ndarray | int, first_black: np.ndarray | bool) -> np.ndarray:
    """Whether Couleur wins: the first card of the coup has the colour of the winning row.

    Only meaningful where the result is NOIR or ROUGE; Inverse wins where this is False.
    """
    return (np.asarray(result) == Result.NOIR.value) == np.asarray(first_black)


def decide(noir: int, rouge: int, first_black: bool) -> tuple[int, bool]:
    """The :class:`Result` code of one coup (a plain int) and whether Couleur (rather than Inverse) wins.

    The scalar twin of :func:`classify` and :func:`couleur_wins`, in plain Python so that numba can
    compile it into the environment's kernels. The Couleur flag is False on ties and void coups.
    """
    if noir == 0:
        return Result.VOID.value, False
    if noir == rouge:
        return (Result.REFAIT.value if noir == REFAIT_TOTAL else Result.APRES.value), False
    result = Result.NOIR.value if noir < rouge else Result.ROUGE.value
    return result, (result == Result.NOIR) == first_black


@dataclass(frozen=True)
class Coup:
    """One coup as the croupier laid it out."""

    noir_cards: tuple[int, ...]
    rouge_cards: tuple[int, ...]
    noir: int  #: total of the Noir row (31..40), 0 if void
    rouge: int  #: total of the Rouge row (31..40), 0 if void
    start: int = 0  #: position in the shoe of the coup's first card
    reshuffle: bool = False  #: the cut card came out (or the shoe ran out): reshuffle before the next coup

    @property
    def result(self) -> Result:
        return Result(decide(self.noir, self.rouge, False)[0])

    @property
    def first_black(self) -> bool:
        return bool(self.noir_cards) and is_black(self.noir_cards[0])

    @property
    def couleur(self) -> bool | None:
        """True if Couleur wins, False if Inverse wins, None on a tie or a void coup."""
        if self.result not in (Result.NOIR, Result.ROUGE):
            return None
        return decide(self.noir, self.rouge, self.first_black)[1]

    def announcement(self) -> str:
        """What the croupier says, e.g. ``"Rouge gagne et couleur perd"``."""
        result = self.result
        if result is Result.VOID:
            return "Coup nul : le sabot est épuisé"
        if result is Result.REFAIT:
            return "Refait trente et un"
        if result is Result.APRES:
            return f"Après ({NUMBERS[self.noir - REFAIT_TOTAL]} et {NUMBERS[self.rouge - REFAIT_TOTAL]})"
        rouge = "Rouge gagne" if result is Result.ROUGE else "Rouge perd"
        return f"{rouge} et couleur {'gagne' if self.couleur else 'perd'}"

    def layout(self) -> str:
        """Both rows as text: ``Noir  8♦ K♠ 5♣ 10♥ (33)``."""
        return "\n".join(
            f"{name:<6}{' '.join(card_name(c) for c in cards):<40} {total or '-'}"
            for name, cards, total in (("Noir", self.noir_cards, self.noir), ("Rouge", self.rouge_cards, self.rouge))
        )

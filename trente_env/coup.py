"""The outcome of a coup: who wins, Couleur or Inverse, après, refait (SPEC 2.2-2.3)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from trente_env.cards import card_name, is_black

REFAIT_TOTAL = 31
NUMBERS = ("un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix")


class Result(IntEnum):
    """How a coup ends. Couleur/Inverse is decided separately by the first card's colour."""

    NOIR = 0  #: the Noir row is lower
    ROUGE = 1  #: the Rouge row is lower
    APRES = 2  #: equal rows on 32..40: void for every box, stakes stay
    REFAIT = 3  #: both rows on 31
    VOID = 4  #: the shoe ran out before the coup was complete: every bet is returned


def classify(noir: np.ndarray | int, rouge: np.ndarray | int) -> np.ndarray:
    """:class:`Result` codes from the row totals (a total of 0 marks a void coup)."""
    noir, rouge = np.asarray(noir), np.asarray(rouge)
    return np.select(
        [noir == 0, (noir == rouge) & (noir == REFAIT_TOTAL), noir == rouge, noir < rouge],
        [Result.VOID, Result.REFAIT, Result.APRES, Result.NOIR],
        Result.ROUGE,
    ).astype(np.int8)


def couleur_wins(result: np.ndarray | int, first_black: np.ndarray | bool) -> np.ndarray:
    """Whether Couleur wins: the first card of the coup has the colour of the winning row.

    Only meaningful where the result is NOIR or ROUGE; Inverse wins where this is False.
    """
    return (np.asarray(result) == Result.NOIR) == np.asarray(first_black)


_NOIR, _ROUGE, _APRES, _REFAIT, _VOID = (int(r) for r in Result)


def decide(noir: int, rouge: int, first_black: bool) -> tuple[int, bool]:
    """The :class:`Result` code of one coup and whether Couleur (rather than Inverse) wins.

    The scalar twin of :func:`classify` and :func:`couleur_wins`, in plain Python so that numba can
    compile it into the environment's kernels. The Couleur flag is False on ties and void coups.
    """
    if noir == 0:
        return _VOID, False
    if noir == rouge:
        return (_REFAIT if noir == REFAIT_TOTAL else _APRES), False
    result = _NOIR if noir < rouge else _ROUGE
    return result, (result == _NOIR) == first_black


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
        return Result(int(classify(self.noir, self.rouge)))

    @property
    def first_black(self) -> bool:
        return bool(self.noir_cards) and is_black(self.noir_cards[0])

    @property
    def couleur(self) -> bool | None:
        """True if Couleur wins, False if Inverse wins, None on a tie or a void coup."""
        if self.result not in (Result.NOIR, Result.ROUGE):
            return None
        return bool(couleur_wins(self.result, self.first_black))

    def announcement(self) -> str:
        """What the croupier says, e.g. ``"Rouge gagne et couleur perd"``."""
        result = self.result
        if result is Result.VOID:
            return "Coup nul : le sabot est épuisé"
        if result is Result.REFAIT:
            return "Refait trente et un"
        if result is Result.APRES:
            return f"Après ({NUMBERS[self.noir - 31]} et {NUMBERS[self.rouge - 31]})"
        rouge = "Rouge gagne" if result is Result.ROUGE else "Rouge perd"
        return f"{rouge} et couleur {'gagne' if self.couleur else 'perd'}"

    def layout(self) -> str:
        """Both rows as text: ``Noir  8♦ K♠ 5♣ 10♥ (33)``."""
        return "\n".join(
            f"{name:<6}{' '.join(card_name(c) for c in cards):<40} {total or '-'}"
            for name, cards, total in (("Noir", self.noir_cards, self.noir), ("Rouge", self.rouge_cards, self.rouge))
        )

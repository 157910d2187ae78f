"""The unseen cards of a shoe and the odds of the next coup drawn from them, as data.

The state is what a player who watches every card knows: the unseen cards, as 20 counts (black
cards of value 1..10, then red ones: the order of the environment's ``observe_shoe``), and how many
of them will never be dealt (``dead``: burnt cards, the dead cards at the end of the shoe). The
evaluators (:mod:`.joint`, :mod:`.rows`, :mod:`.approximate`) write the odds of the next coup as one
vector of :data:`N_OUT` numbers; :class:`ShoeOdds` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trente_env.cards import CARD_VALUE
from trente_env.coup import ROW_LIMIT
from trente_env.odds.first import RowOdds
from trente_env.odds.prefixes import N_VALUES

#: The largest total of the cards of a coup before its last card: a Noir row (at most 40) and 30.
JOINT_LIMIT = ROW_LIMIT + N_VALUES + ROW_LIMIT
#: Cards of each value 1..10 in one pack (four of each, sixteen tens), counted from the pack itself.
PACK = np.bincount(CARD_VALUE, minlength=N_VALUES + 1)[1:].astype(np.int64)


def check_composition(counts: np.ndarray | list[int], dead: int = 0) -> tuple[np.ndarray, int]:
    """Validate the unseen cards (20 counts: black 1..10 then red 1..10) and the dead count.

    Returns the counts as int64 and ``dead``; raises :class:`ValueError` with one line otherwise.
    """
    what = "a shoe is 20 counts (black cards of value 1..10, then red ones)"
    try:
        values = np.asarray(counts, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{what}, got {type(counts).__name__} of non-numbers") from None
    if values.shape != (2 * N_VALUES,):
        raise ValueError(f"{what}, got shape {values.shape}")
    if not np.isfinite(values).all() or (values != np.round(values)).any():
        raise ValueError(f"a shoe's counts must be whole numbers, got {values.tolist()}")
    arr = values.astype(np.int64)
    if (arr < 0).any():
        raise ValueError(f"a shoe cannot hold a negative number of cards, got {arr.tolist()}")
    try:
        whole = int(dead)
    except (TypeError, ValueError):
        whole = None
    if isinstance(dead, bool) or whole is None or whole != dead:
        raise ValueError(f"the number of dead cards must be a whole number, got {dead!r}")
    dead = whole
    n = int(arr.sum())
    if not 0 <= dead <= n:
        raise ValueError(f"{dead} dead cards cannot be among {n} unseen cards")
    return arr, dead


def full_counts(decks: int) -> np.ndarray:
    """The 20 counts of a full shoe of ``decks`` packs: half of each value black, half red."""
    half = PACK * decks // 2
    return np.concatenate([half, half])


# -- the odds as data ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ShoeOdds(RowOdds):
    """The odds of the next coup from a remaining shoe.

    ``pair[i, j]`` is P(Noir ends on 31+i and Rouge on 31+j); ``first_edge[v-1]`` is P(the coup's
    first card has value v and Noir wins) - P(it has value v and Rouge wins); ``black[v-1]`` is the
    chance that a card of value v is black (b_v / n_v, 1/2 when none is left).
    """

    pair: np.ndarray
    p_void: float
    first_edge: np.ndarray
    black: np.ndarray
    cards_per_coup: float  #: expected cards dealt in a complete coup
    method: str = "exact"  #: how they were computed: "exact", "coupled rows" or "with replacement"

    @property
    def exact(self) -> bool:
        return self.method == "exact"

    @property
    def p_total(self) -> np.ndarray:
        """P(the coup is complete and the Noir row ends on 31..40); the Rouge row's is the same."""
        return self.pair.sum(1)

    @property
    def couleur_edge(self) -> float:
        """P(Couleur) - P(Inverse) = sum over values of the first-card edge times (2 b_v/n_v - 1)."""
        return float(self.first_edge @ (2 * self.black - 1))

    @property
    def p_couleur(self) -> float:
        return (self.p_noir + self.p_rouge + self.couleur_edge) / 2

    @property
    def p_inverse(self) -> float:
        return (self.p_noir + self.p_rouge - self.couleur_edge) / 2

    def to_dict(self) -> dict[str, object]:
        return {
            "method": self.method,
            "p_noir": self.p_noir,
            "p_rouge": self.p_rouge,
            "p_couleur": self.p_couleur,
            "p_inverse": self.p_inverse,
            "p_refait": self.p_refait,
            "p_apres": self.p_apres,
            "p_void": self.p_void,
            "cards_per_coup": self.cards_per_coup,
            "p_total": self.p_total.tolist(),
            "pair": self.pair.tolist(),
            "first_edge": self.first_edge.tolist(),
        }


def black_share(counts: np.ndarray) -> np.ndarray:
    """The chance that a card of each value is black, from the 20 counts (1/2 when none is left)."""
    values = value_counts(counts)
    return np.where(values > 0, counts[:N_VALUES] / np.maximum(values, 1), 0.5)


def value_counts(counts: np.ndarray) -> np.ndarray:
    """The unseen cards of each value 1..10, whatever their colour."""
    return counts[:N_VALUES] + counts[N_VALUES:]


N_OUT = 112  #: the odds as a vector: pair (100), first-card edge (10), void, cards per coup
EXACT_BOX = 50_000  #: joint states up to which :func:`shoe_odds` is exact (about the last 20 cards)
COUPLED_CARDS = 64  #: cards up to which :func:`shoe_odds` uses the coupled rows (when not exact)
COUPLED_MAX = 104  #: the most cards the coupled rows are corrected for (their nodes stop at 104)
EXACT, COUPLED, REPLACEMENT = range(3)  #: how :func:`shoe_odds` computed the odds
METHODS = ("exact", "coupled rows", "with replacement")


def odds_from(out: np.ndarray, counts: np.ndarray, method: int) -> ShoeOdds:
    """:class:`ShoeOdds` from an odds vector ``out`` computed by ``method`` for the 20 ``counts``."""
    return ShoeOdds(
        out[:100].reshape(10, 10).copy(), float(out[110]), out[100:110].copy(), black_share(counts),
        float(out[111]), METHODS[method],
    )  # fmt: skip


def odds_vector(odds: ShoeOdds) -> np.ndarray:
    """The :data:`N_OUT` numbers of ``odds`` (the layout the evaluators write)."""
    return np.concatenate([odds.pair.ravel(), odds.first_edge, [odds.p_void, odds.cards_per_coup]])

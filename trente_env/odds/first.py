"""The odds of a coup from the values of the cards alone: the first coup of a full shoe, any other
composition dealt to its last card, and the infinite deck; the types every odds calculator returns.

The finite shoe is exact (up to floating-point rounding, ~1e-15) for any composition, by the walk
over the prefix states (:mod:`.prefixes`): one pass from the full shoe gives the probability of each
of the 63,231 possible Noir rows, as multisets of values; for each Noir row, one more pass from the
shoe depleted by it gives the Rouge total. The results for full shoes of 1..8 decks are cached in
``data/first_coup.json`` (``python -m trente_env.odds`` rebuilds it) and a test regenerates them from
this code. The infinite deck is a small Markov chain.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from trente_env import jit
from trente_env.cards import composition
from trente_env.coup import REFAIT_TOTAL, ROW_LIMIT
from trente_env.odds.prefixes import N_VALUES, end_rows, prefix_states

INFINITE_P = np.array([1] * 9 + [4]) / 13  #: probability of each value 1..10 from an infinite deck
CACHE = Path(__file__).resolve().parent.parent / "data" / "first_coup.json"


class RowOdds:
    """What the joint distribution of the two rows' totals says: ``pair[i, j]`` is P(Noir ends on
    31+i and Rouge on 31+j). The base of every odds class (:class:`CoupOdds`, the card counter's
    ``ShoeOdds``), so each reads the boxes off ``pair`` the same way."""

    pair: np.ndarray

    @property
    def p_refait(self) -> float:
        return float(self.pair[0, 0])

    @property
    def p_apres(self) -> float:
        return float(np.trace(self.pair) - self.pair[0, 0])

    @property
    def p_noir(self) -> float:
        """P(Noir wins): the Noir total is lower."""
        return float(np.triu(self.pair, 1).sum())

    @property
    def p_rouge(self) -> float:
        return float(np.tril(self.pair, -1).sum())


@dataclass(frozen=True)
class CoupOdds(RowOdds):
    """The distribution of a coup's outcome.

    ``pair[i, j]`` is P(Noir ends on 31+i and Rouge on 31+j); ``p_void`` is the chance the shoe runs
    out before the coup is complete (0 for a full shoe).
    """

    p_total: np.ndarray  #: distribution of the Noir row's final total, 31..40
    pair: np.ndarray  #: joint distribution of (Noir total, Rouge total), 10 x 10
    p_void: float
    cards_per_coup: float  #: expected cards dealt in a complete coup

    @property
    def p_couleur(self) -> float:
        """P(Couleur wins). The first card is black with probability 1/2 whatever its value when
        each value has as many black as red cards (any full shoe), so this is half the decided coups."""
        return (self.p_noir + self.p_rouge) / 2

    p_inverse = p_couleur

    def to_dict(self) -> dict[str, object]:
        return {
            "p_total": self.p_total.tolist(),
            "pair": self.pair.tolist(),
            "p_void": self.p_void,
            "cards_per_coup": self.cards_per_coup,
        }

    @classmethod
    def from_dict(cls, data: dict) -> CoupOdds:
        return cls(
            np.array(data["p_total"]), np.array(data["pair"]), float(data["p_void"]), float(data["cards_per_coup"])
        )


# -- the infinite deck ---------------------------------------------------------------------------


def row_infinite() -> tuple[np.ndarray, float]:
    """Distribution of a row's final total (31..40) and its expected number of cards, infinite deck."""
    p = np.zeros(ROW_LIMIT + 1)  # probability of passing through each running total 0..30
    p[0] = 1.0
    final = np.zeros(10)
    for total in range(ROW_LIMIT + 1):
        for value, q in enumerate(INFINITE_P, start=1):
            if total + value <= ROW_LIMIT:
                p[total + value] += p[total] * q
            else:
                final[total + value - REFAIT_TOTAL] += p[total] * q
    return final, float(p.sum())  # each visit of a running total <= 30 draws one card


def infinite_odds() -> CoupOdds:
    """The coup from an infinite deck: both rows independent."""
    row, cards = row_infinite()
    return CoupOdds(row, np.outer(row, row), 0.0, 2 * cards)


# -- the finite shoe -----------------------------------------------------------------------------


@jit.parallel
def rouge_given_noir(shoe, rows, row_p, prefixes, row_total, out):
    """For every Noir row with positive probability, the Rouge row's distribution from what is left."""
    no_rows, no_first = np.zeros(0), np.zeros((0, N_VALUES))
    for r in numba.prange(rows.shape[0]):
        if row_p[r] > 0.0:
            left = shoe - rows[r]
            out[r, 11] += end_rows(left, left.sum(), prefixes, row_total, no_rows, no_first, out[r])


def coup_odds(shoe: np.ndarray) -> CoupOdds:
    """Exact odds of the next coup from a shoe holding ``shoe[v-1]`` cards of each value v = 1..10,
    every card dealt (colours aside: the first coup of a full shoe, or any composition).

    One pass over the prefix states gives the Noir row's distribution over its 63,231 possible rows;
    for each of them, one more pass from the shoe depleted by it gives the Rouge row's (these passes
    run in parallel). Exact up to rounding (~1e-15); seconds for a full shoe.
    """
    shoe = np.asarray(shoe, dtype=np.int64)
    if shoe.shape != (10,) or (shoe < 0).any():
        raise ValueError("a shoe composition is ten non-negative counts, for the values 1..10")
    pre = prefix_states()
    row_p = np.zeros(len(pre.rows))
    noir = np.zeros(12)
    noir[11] = end_rows(shoe, shoe.sum(), pre.walked(), pre.row_total, row_p, np.zeros((0, N_VALUES)), noir)
    rouge = np.zeros((len(pre.rows), 12))
    rouge_given_noir(shoe, pre.rows, row_p, pre.walked(), pre.row_total, rouge)
    pair = np.zeros((10, 10))
    np.add.at(pair, pre.row_total - REFAIT_TOTAL, row_p[:, None] * rouge[:, :10])
    complete = pair.sum()
    rows_cards = pre.rows.sum(1)
    cards = (row_p * (rouge[:, :10].sum(1) * rows_cards + rouge[:, 10])).sum() / complete if complete else 0.0
    return CoupOdds(noir[:10], pair, float(1.0 - complete), float(cards))


def first_coup(decks: int, *, use_cache: bool = True) -> CoupOdds:
    """Exact odds of the first coup of a full shoe of ``decks`` packs (from the cache if there)."""
    if use_cache and CACHE.exists():
        table = json.loads(CACHE.read_text())
        if str(decks) in table:
            return CoupOdds.from_dict(table[str(decks)])
    return coup_odds(composition(decks))


def write_cache(decks: range = range(1, 9), done: Callable[[int], None] | None = None) -> dict[str, dict]:
    """Recompute the first-coup odds of full shoes and store them in :data:`CACHE` (tens of seconds
    per deck count; ``python -m trente_env.odds`` shows a progress bar).

    :param done: told each deck count as soon as its odds are computed.
    """
    table = {}
    for d in decks:
        table[str(d)] = coup_odds(composition(d)).to_dict()
        if done is not None:
            done(d)
    CACHE.parent.mkdir(exist_ok=True)
    CACHE.write_text(json.dumps(table, indent=1) + "\n")
    return table

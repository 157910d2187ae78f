"""Dealing coups from a shuffled shoe: one at a time for a table, or millions at once in bulk.

Both dealers run the same compiled kernels (:func:`shuffle`, :func:`deal_row`, :func:`deal_coup`),
and both draw the same random numbers: each shuffle takes ``n_cards - 1`` uniform doubles from the
table's :class:`numpy.random.Generator` and runs a Fisher-Yates shuffle of a fresh shoe with them.
So a :class:`Shoe` and :func:`deal_coups` given the same seed deal the same coups, card for card.

The shoe (SPEC 2.1): after the shuffle ``burn`` cards are discarded; a cut card lies ``cut_card``
cards from the end. The coup during which the cut card comes out (the coup that deals the card at
position ``n_cards - cut_card`` or beyond) is completed, then the shoe is reshuffled. A coup that
cannot be completed because the shoe is empty is void, and the shoe is reshuffled after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from trente_env.cards import CARD_BLACK, CARD_VALUE, new_shoe
from trente_env.coup import Coup, classify, couleur_wins
from trente_env.rules import RuleSet

ROW_LIMIT = 30  # a row is dealt while its total is <= 30

_COLUMN_TYPES = (np.int8, np.int8, np.bool_, np.int16, np.int8, np.int8, np.bool_)
_VALUE = CARD_VALUE.copy()
_BLACK = CARD_BLACK.copy()


@numba.njit(cache=True)
def shuffle(cards: np.ndarray, uniforms: np.ndarray) -> None:
    """Fisher-Yates in place: position ``i`` takes a card drawn uniformly from positions ``i..n-1``.

    ``uniforms`` holds ``n - 1`` doubles in [0, 1); ``int(u * k)`` picks one of ``k`` cards with a
    bias below ``k / 2**53`` (at most 4e-14 for 416 cards).
    """
    n = cards.size
    for i in range(n - 1):
        j = i + int(uniforms[i] * (n - i))
        cards[i], cards[j] = cards[j], cards[i]


@numba.njit(cache=True)
def deal_row(cards: np.ndarray, pos: int) -> tuple[int, int]:
    """Deal one row from ``pos``: cards while the total is <= 30. Returns (total, next position);
    the total is 0 if the shoe runs out first."""
    total = 0
    while total <= ROW_LIMIT:
        if pos >= cards.size:
            return 0, cards.size
        total += _VALUE[cards[pos]]
        pos += 1
    return total, pos


@numba.njit(cache=True)
def deal_coup(cards: np.ndarray, pos: int) -> tuple[int, int, int, int]:
    """Deal the Noir row then the Rouge row from ``pos``.

    Returns (noir total, rouge total, first Rouge position, next position); totals are 0 and the
    shoe is used up when the coup is void.
    """
    noir, middle = deal_row(cards, pos)
    rouge, end = deal_row(cards, middle)
    if noir == 0 or rouge == 0:
        return 0, 0, middle, cards.size
    return noir, rouge, middle, end


@numba.njit(cache=True)
def deal_next(cards: np.ndarray, pos: int, cut_card: int) -> tuple[int, int, int, int, bool]:
    """Deal one coup from ``pos`` as a table does (see :meth:`Shoe.deal`).

    Returns (noir total, rouge total, first Rouge position, next position, reshuffle): reshuffle is
    True when the coup brought out the cut card or was void, so the shoe must be shuffled next.
    """
    noir, rouge, middle, end = deal_coup(cards, pos)
    return noir, rouge, middle, end, noir == 0 or end > cards.size - cut_card


@numba.njit(cache=True, parallel=True)
def _deal_shoes(shoes, uniforms, burn, cut_card, noir, rouge, first_black, start, n_noir, n_rouge, reshuffle, counts):
    """Shuffle and deal every shoe (one per row of ``shoes``) until its cut card or its end."""
    n_shoes, n_cards = shoes.shape
    limit = n_cards - cut_card
    for s in numba.prange(n_shoes):
        cards = shoes[s]
        shuffle(cards, uniforms[s])
        pos = burn
        c = 0
        while True:
            t_noir, t_rouge, middle, end = deal_coup(cards, pos)
            noir[s, c] = t_noir
            rouge[s, c] = t_rouge
            first_black[s, c] = t_noir > 0 and _BLACK[cards[pos]]
            start[s, c] = pos
            n_noir[s, c] = middle - pos
            n_rouge[s, c] = end - middle
            pos = end
            reshuffle[s, c] = t_noir == 0 or pos > limit
            c += 1
            if reshuffle[s, c - 1]:
                break
        counts[s] = c


@dataclass(frozen=True)
class Coups:
    """Many coups as arrays, in dealing order. A void coup has both totals 0.

    ``shoes`` (the shuffled card codes, one row per shoe) is kept only when asked for.
    """

    noir: np.ndarray  #: int8 totals of the Noir rows
    rouge: np.ndarray  #: int8 totals of the Rouge rows
    first_black: np.ndarray  #: bool, the coup's first card is black
    shoe: np.ndarray  #: int64 index of the shoe each coup came from
    start: np.ndarray  #: int16 position of the coup's first card in its shoe
    n_noir: np.ndarray  #: int8 cards in the Noir row
    n_rouge: np.ndarray  #: int8 cards in the Rouge row
    reshuffle: np.ndarray  #: bool, the shoe is reshuffled after this coup
    shoes: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return self.noir.size

    @property
    def result(self) -> np.ndarray:
        """:class:`~trente_env.coup.Result` code of every coup."""
        return classify(self.noir, self.rouge)

    @property
    def couleur(self) -> np.ndarray:
        """Whether Couleur (rather than Inverse) wins; only meaningful on decided coups."""
        return couleur_wins(self.result, self.first_black)

    def coup(self, i: int) -> Coup:
        """Coup ``i`` with its cards (needs ``keep_cards=True``)."""
        if self.shoes is None:
            raise ValueError("the cards were not kept: deal with keep_cards=True")
        cards = self.shoes[self.shoe[i]]
        a, b = int(self.start[i]), int(self.start[i]) + int(self.n_noir[i])
        c = b + int(self.n_rouge[i])
        noir, rouge, reshuffle = int(self.noir[i]), int(self.rouge[i]), bool(self.reshuffle[i])
        return Coup(tuple(map(int, cards[a:b])), tuple(map(int, cards[b:c])), noir, rouge, a, reshuffle)


def expected_coups_per_shoe(rules: RuleSet) -> float:
    """A rough count of coups per shoe (10.58 cards a coup), for sizing batches."""
    return (rules.n_cards - rules.cut_card - rules.burn) / 10.58 + 1


def deal_coups(
    rules: RuleSet,
    n_coups: int,
    rng: np.random.Generator | int | None = None,
    *,
    keep_cards: bool = False,
    whole_shoes: bool = False,
    batch_shoes: int = 8192,
) -> Coups:
    """Deal ``n_coups`` coups shoe after shoe, exactly as a :class:`Shoe` fed by ``rng`` would.

    :param rng: a generator, or a seed for a new one.
    :param keep_cards: also return the shuffled shoes, so every coup's cards can be read.
    :param whole_shoes: finish the last shoe instead of stopping at ``n_coups``.
    :param batch_shoes: shoes shuffled per call of the kernel (memory: about 3 KB each).
    """
    if n_coups < 0:
        raise ValueError(f"the number of coups cannot be negative, got {n_coups}")
    rng = np.random.default_rng(rng)
    n_cards = rules.n_cards
    max_per_shoe = (n_cards - rules.burn) // 8 + 2
    base = new_shoe(rules.decks)
    parts: list[tuple[np.ndarray, ...]] = []
    dealt = 0
    shoes_done = 0
    while dealt < n_coups or (dealt == 0 and whole_shoes and n_coups > 0):
        k = int(min(batch_shoes, np.ceil((n_coups - dealt) / expected_coups_per_shoe(rules) * 1.02) + 1))
        uniforms = rng.random((k, n_cards - 1))
        shoes = np.tile(base, (k, 1))
        out = [np.zeros((k, max_per_shoe), dtype=t) for t in _COLUMN_TYPES]
        counts = np.zeros(k, dtype=np.int64)
        _deal_shoes(shoes, uniforms, rules.burn, rules.cut_card, *out, counts)
        mask = np.arange(max_per_shoe) < counts[:, None]
        shoe_index = np.broadcast_to(np.arange(shoes_done, shoes_done + k)[:, None], mask.shape)
        parts.append((*(a[mask] for a in out), shoe_index[mask], shoes if keep_cards else None))
        dealt += int(counts.sum())
        shoes_done += k
    if not parts:
        parts.append((*(np.zeros(0, t) for t in _COLUMN_TYPES), np.zeros(0, np.int64), np.zeros((0, n_cards), np.uint8)))
    noir, rouge, black, start, n_noir, n_rouge, reshuffle, shoe = (np.concatenate([p[i] for p in parts]) for i in range(8))
    n = n_coups
    if whole_shoes and n_coups > 0:
        n = int(np.searchsorted(shoe, shoe[n_coups - 1], side="right"))
    last_shoe = int(shoe[n - 1]) + 1 if n else 0
    shoes = np.concatenate([p[8] for p in parts])[:last_shoe] if keep_cards else None
    return Coups(noir[:n], rouge[:n], black[:n], shoe[:n], start[:n], n_noir[:n], n_rouge[:n], reshuffle[:n], shoes)


class Shoe:
    """The shoe of one table, dealt one coup at a time (the dealer of the environment).

    :param rules: the table's rules (decks, cut card, burn).
    :param rng: the table's generator; each shuffle draws ``n_cards - 1`` doubles from it.
    """

    def __init__(self, rules: RuleSet, rng: np.random.Generator) -> None:
        self.rules = rules
        self.rng = rng
        self.cards = new_shoe(rules.decks)
        self.pos = self.cards.size  # nothing to deal until the first shuffle
        self.needs_shuffle = True
        self.shuffles = 0

    def shuffle(self) -> None:
        self.cards = new_shoe(self.rules.decks)
        shuffle(self.cards, self.rng.random(self.cards.size - 1))
        self.pos = self.rules.burn
        self.needs_shuffle = False
        self.shuffles += 1

    def deal(self) -> Coup:
        """Deal the next coup, shuffling first if the last coup brought out the cut card."""
        if self.needs_shuffle:
            self.shuffle()
        start = self.pos
        noir, rouge, middle, end = deal_coup(self.cards, start)
        self.pos = end
        self.needs_shuffle = noir == 0 or end > self.cards.size - self.rules.cut_card
        cards = self.cards
        return Coup(
            tuple(int(c) for c in cards[start:middle]),
            tuple(int(c) for c in cards[middle:end]),
            int(noir),
            int(rouge),
            start,
            self.needs_shuffle,
        )

    @property
    def remaining(self) -> np.ndarray:
        """The card codes not yet dealt from this shuffle, in order (the future, for tests only)."""
        return self.cards[self.pos :]

"""Dealing coups from a shuffled shoe: one at a time for a table, or millions at once in bulk.

Both dealers run the same compiled kernels (:func:`shuffle`, :func:`deal_row`, :func:`deal_coup`),
and both draw the same random numbers: each shuffle takes one 64-bit seed from the table's
:class:`numpy.random.Generator` (:func:`shuffle_seeds`) and runs a Fisher-Yates shuffle of a fresh
shoe driven by a SplitMix64 stream started from that seed, with Lemire's unbiased bounded draws.
Drawing the card choices inside the compiled kernel lets the bulk dealer shuffle shoes on every
core at once. So a :class:`Shoe` and :func:`deal_coups` given the same seed deal the same coups,
card for card.

The shoe (docs/rules.md#cards-and-the-shoe).

After the shuffle ``burn`` cards are discarded; a cut card lies ``cut_card``
cards from the end. The coup during which the cut card comes out (the coup that deals the card at
position ``n_cards - cut_card`` or beyond) is completed, then the shoe is reshuffled. A coup that
cannot be completed because the shoe runs out is void, and the shoe is reshuffled after it (as it
is after a coup that took the very last card). With ``dead_cards`` the last cards of the shoe are
never dealt: the shoe ends for the dealer ``dead_cards`` cards before its end, and the cut card stays
where it lies (:func:`deal_next`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numba
import numpy as np

from trente_env import jit
from trente_env.cards import CARD_BLACK, CARD_VALUE, new_shoe
from trente_env.codes import GOLDEN, MIX1, MIX2, Result
from trente_env.coup import REFAIT_TOTAL, ROW_LIMIT, Coup, classify, couleur_wins, decide
from trente_env.rules import RuleSet

#: noir, rouge, first_black, start, n_noir, n_rouge, reshuffle, shoe
_COLUMN_TYPES = (np.int8, np.int8, np.bool_, np.int16, np.int8, np.int8, np.bool_, np.int32)
_LOW32 = np.uint64(0xFFFFFFFF)
_decide = jit.inline(decide)  # the one rule that reads a coup, compiled into the tally
_TWO32 = np.uint64(1 << 32)


def shuffle_seeds(rng: np.random.Generator, n: int) -> np.ndarray:
    """The seeds of the next ``n`` shuffles of a table, drawn from its generator (uint64).

    The raw 64-bit outputs of the generator's bit generator: the same numbers as
    ``rng.integers(0, 2**64, size=n, dtype=np.uint64)``, ten times cheaper to ask for one at a time.
    """
    return rng.bit_generator.random_raw(n)


@jit.inline
def _splitmix64(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    """One step of SplitMix64 (Steele, Lea and Flood, 2014): (next state, 64 random bits)."""
    state = state + GOLDEN
    z = (state ^ (state >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return state, z ^ (z >> np.uint64(31))


@jit.inline
def _below(state: np.uint64, bits: np.uint64, k: np.uint64) -> tuple[np.uint64, int]:
    """A uniform integer in [0, k) from 32 random ``bits``, by Lemire's multiply-and-reject method
    (2019): the few values that would favour some results are rejected and drawn again, so the
    result is exactly uniform. Returns (stream state, the integer)."""
    m = bits * k
    if (m & _LOW32) < k:
        floor = (_TWO32 - k) % k
        while (m & _LOW32) < floor:
            state, fresh = _splitmix64(state)
            m = (fresh >> np.uint64(32)) * k
    return state, np.int64(m >> np.uint64(32))


@jit.kernel
def shuffle(cards: np.ndarray, seed: np.uint64) -> None:
    """Fisher-Yates in place: position ``i`` takes a card drawn uniformly from positions ``i..n-1``.

    The draws come from a SplitMix64 stream started at ``seed``, two 32-bit draws from each 64-bit
    output, each exactly uniform (:func:`_below`): every order of the shoe is equally likely.
    """
    _shuffle_from(cards, np.uint64(seed), 0, cards.size)


@jit.inline
def _shuffle_from(cards: np.ndarray, state: np.uint64, i: int, stop: int) -> tuple[np.uint64, int]:
    """:func:`shuffle`'s steps from position ``i`` (even: a whole shuffle goes by pairs) with the
    stream at ``state``, until position ``stop`` or the end of the shoe: each position from ``i`` on
    gets the card it gets in the whole shuffle, since Fisher-Yates settles the positions in order.
    Returns (stream state, first position not yet settled: ``cards.size`` once the shoe is done)."""
    n = cards.size
    state = np.uint64(state)  # the same 64 bits if a caller's integer type is signed
    while i + 2 < n and i < stop:  # two positions per 64 random bits
        state, bits = _splitmix64(state)
        state, r = _below(state, bits >> np.uint64(32), np.uint64(n - i))
        j = i + r
        cards[i], cards[j] = cards[j], cards[i]
        state, r = _below(state, bits & _LOW32, np.uint64(n - i - 1))
        j = i + 1 + r
        cards[i + 1], cards[j] = cards[j], cards[i + 1]
        i += 2
    if i + 2 >= n:  # the last one or two positions
        if i + 1 < n:  # two left: one more draw settles both
            state, bits = _splitmix64(state)
            state, r = _below(state, bits >> np.uint64(32), np.uint64(n - i))
            j = i + r
            cards[i], cards[j] = cards[j], cards[i]
        i = n
    return state, i


@jit.inline
def _deal_row(cards: np.ndarray, pos: int, live: int) -> tuple[int, int]:
    """:func:`deal_row` from the first ``live`` cards of ``cards`` only (``live`` <= ``cards.size``):
    the shoe runs out at ``live``. Bounded by ``live`` rather than given a slice of the shoe, which
    numba builds at a cost on every coup."""
    if pos < 0:
        raise ValueError("deal_row: a position before the start of the shoe")
    total = 0
    while total <= ROW_LIMIT:
        if pos >= live:
            return 0, live
        code = cards[pos]
        if (code < 0) | (code >= CARD_VALUE.size):
            raise ValueError("deal_row: not a card code (0..51)")
        total += CARD_VALUE[code]
        pos += 1
    return total, pos


@jit.inline
def _deal_coup(cards: np.ndarray, pos: int, live: int) -> tuple[int, int, int, int]:
    """:func:`deal_coup` from the first ``live`` cards of ``cards`` only (:func:`_deal_row`)."""
    noir, middle = _deal_row(cards, pos, live)
    rouge, end = _deal_row(cards, middle, live)
    if noir == 0 or rouge == 0:
        return 0, 0, middle, live
    return noir, rouge, middle, end


@jit.kernel
def deal_row(cards: np.ndarray, pos: int) -> tuple[int, int]:
    """Deal one row from ``pos``: cards while the total is <= 30. Returns (total, next position);
    the total is 0 if the shoe runs out first. ``cards`` holds card codes 0..51 (anything else, or a
    position before the shoe, raises ValueError)."""
    return _deal_row(cards, pos, cards.size)


@jit.kernel
def deal_coup(cards: np.ndarray, pos: int) -> tuple[int, int, int, int]:
    """Deal the Noir row then the Rouge row from ``pos``.

    Returns (noir total, rouge total, first Rouge position, next position); totals are 0 and the
    shoe is used up when the coup is void.
    """
    return _deal_coup(cards, pos, cards.size)


@jit.kernel
def deal_next(cards: np.ndarray, pos: int, cut_card: int, dead_cards: int) -> tuple[int, int, int, int, bool]:
    """Deal one coup from ``pos`` as a table does: :func:`deal_coup` from all but the last
    ``dead_cards`` cards, then the cut-card rule.

    Returns (noir total, rouge total, first Rouge position, next position, reshuffle): reshuffle is
    True when the coup brought out the cut card (which lies ``cut_card`` cards from the real end of
    the shoe, dead cards included), was void (it would have needed a dead card, or there are no more
    cards) or took the last card that can be dealt, so the shoe must be shuffled before the next coup.
    A void coup's next position is the end of the dealable cards.
    """
    if (dead_cards < 0) | (dead_cards > cards.size):  # the bound of every read below
        raise ValueError("deal_next: dead cards outside 0..the size of the shoe")
    live = cards.size - dead_cards
    noir, rouge, middle, end = _deal_coup(cards, pos, live)
    return noir, rouge, middle, end, (noir == 0) | (end > cards.size - max(cut_card, dead_cards)) | (end == live)


@jit.inline
def _fresh_shoe(cards, base):
    """Put the cards of a fresh shoe (``base``) back in ``cards``, card by card: numba's copy of a
    slice costs about ten times more for a shoe of 312 cards."""
    if cards.size != base.size:
        raise ValueError("a shoe of another size than the fresh shoe")
    for i in range(base.size):
        cards[i] = base[i]


def dealing(rules: RuleSet) -> tuple[int, int, int]:
    """(burn, cut card, dead cards): how the dealer's kernels deal a shoe of ``rules``."""
    return int(rules.burn), int(rules.cut_card), int(rules.dead_cards)


@jit.hot
def _deal_shoe(cards, base, seed, deal, shoe, row, stage):
    """Shuffle one shoe (``seed``, numbered ``shoe``) and deal it to its cut card or its end under
    ``deal`` (burn, cut card, dead cards), writing its coups one after another into the columns of
    ``stage`` (those of :class:`Coups`, in :data:`_COLUMN_TYPES`'s order) from ``row`` on. Returns
    the row after its last coup. Compiled without reference counting (:func:`~trente_env.jit.hot`),
    like :func:`_tally_shoe`."""
    burn, cut_card, dead_cards = deal
    noir, rouge, black, start, n_noir, n_rouge, reshuffles, shoes = stage
    _fresh_shoe(cards, base)
    shuffle(cards, seed)
    pos = burn
    while True:
        a, b, middle, end, reshuffle = deal_next(cards, pos, cut_card, dead_cards)
        noir[row] = a
        rouge[row] = b
        black[row] = a > 0 and CARD_BLACK[cards[pos]]
        start[row] = pos
        n_noir[row] = middle - pos
        n_rouge[row] = end - middle
        reshuffles[row] = reshuffle
        shoes[row] = shoe
        row += 1
        pos = end
        if reshuffle:
            return row


@jit.parallel
def _deal_shoes(shoes, base, seeds, deal, chunks, first_shoe, counts, stage):
    """Shuffle and deal every shoe (one per row of ``shoes``) until its cut card or its end, under
    ``deal`` (burn, cut card, dead cards).

    Shoes ``chunks[c]..chunks[c+1]-1`` are dealt in order by one thread (:func:`_deal_shoe`), which
    writes their coups one after another into ``stage`` from row ``chunks[c] * max_per_shoe``;
    ``counts[c]`` is how many it wrote. Each column of ``stage`` is one field of :class:`Coups`.
    """
    room = stage[0].size // shoes.shape[0]
    if shoes.shape[1] != base.size:  # checked here: an exception raised on numba's threads is lost
        raise ValueError("a shoe of another size than the fresh shoe")
    for c in numba.prange(chunks.size - 1):
        row = chunks[c] * room
        for s in range(chunks[c], chunks[c + 1]):
            row = _deal_shoe(shoes[s], base, seeds[s], deal, first_shoe + s, row, stage)
        counts[c] = row - chunks[c] * room


@jit.kernel
def _gather(chunks, counts, room, offset, stage, column, width):
    """Copy each chunk's coups from ``stage`` to their place in ``column``, from ``offset`` on: both
    as bytes (``width`` bytes a coup), so that one compiled copy serves every column's type.

    Element by element: a slice assignment compiles numba's shape check and the formatting of its
    error message, which took 1.4 of the 1.6 seconds this kernel cost to compile on first use."""
    offset *= width
    for c in range(counts.size):
        src = chunks[c] * room * width
        size = counts[c] * width
        for i in range(size):
            column[offset + i] = stage[src + i]
        offset += size


#: The columns of a tally (:func:`tally_coups`): how many Noir rows ended on 31..40, how many Rouge
#: rows, then how many coups of each (:class:`~trente_env.codes.Result`, Couleur won) pair, at
#: ``TALLY_RESULTS + 2 * result + couleur`` (Couleur is False on ties and void coups).
TALLY_NOIR, TALLY_ROUGE, TALLY_RESULTS = 0, 10, 20
TALLY_SIZE = TALLY_RESULTS + 2 * len(Result)


#: Shoes in a group (:func:`_tally_shoes`): dealt one after another by one thread, into one tally.
TALLY_GROUP = 32
#: Positions of a shoe shuffled past its cut card before the tally deals it (:func:`_tally_shoe`):
#: the coup that brings the cut card out seldom reaches further (about one shoe in 65).
SHUFFLE_AHEAD = 12
#: Positions shuffled per coup asked for, when a tally asks for fewer coups than a shoe deals
#: (:func:`tally_first_coups`): a coup takes about 10.7 cards.
COUP_CARDS = 12


@jit.hot
def _tally_shoe(cards, base, seed, deal, limit, row):
    """Shuffle one shoe (``seed``) and deal it as :func:`_deal_shoes` does under ``deal`` (burn, cut
    card, dead cards), its first ``limit`` coups at most, adding each coup to the tally ``row``
    (:data:`TALLY_SIZE` counts) instead of writing it out. Returns the coups dealt. Compiled without
    reference counting (:func:`~trente_env.jit.hot`): with it, each coup's call of
    :func:`deal_next` cost a quarter of the tally's time more.

    The shoe is shuffled only as far as it is dealt (:func:`_shuffle_from`): to
    :data:`SHUFFLE_AHEAD` positions past its cut card, or past :data:`COUP_CARDS` cards a coup when
    ``limit`` coups take fewer, and to its end when a coup reads a card beyond (that coup is then
    dealt again). The cards dealt are those of the whole shuffle, and the positions never dealt are
    never shuffled."""
    burn, cut_card, dead_cards = deal
    _fresh_shoe(cards, base)
    dealt_to = min(cards.size - max(cut_card, dead_cards), burn + COUP_CARDS * min(limit, cards.size))
    state, shuffled = _shuffle_from(cards, np.uint64(seed), 0, dealt_to + SHUFFLE_AHEAD)
    pos = burn
    dealt = 0
    while dealt < limit:
        noir, rouge, middle, end, reshuffle = deal_next(cards, pos, cut_card, dead_cards)
        if end > shuffled:  # it read positions not shuffled yet
            state, shuffled = _shuffle_from(cards, state, shuffled, cards.size)
            noir, rouge, middle, end, reshuffle = deal_next(cards, pos, cut_card, dead_cards)
        result, couleur = _decide(noir, rouge, noir > 0 and CARD_BLACK[cards[pos]])
        if noir > 0:
            row[TALLY_NOIR + noir - REFAIT_TOTAL] += 1
            row[TALLY_ROUGE + rouge - REFAIT_TOTAL] += 1
        row[TALLY_RESULTS + 2 * result + couleur] += 1
        dealt += 1
        pos = end
        if reshuffle:
            break
    return dealt


@jit.parallel
def _tally_shoes(cards, base, seeds, deal, tallies, dealt, limit):
    """:func:`_tally_shoe` for every shoe (``seeds``), its first ``limit`` coups at most (a shoe's
    size in cards: to its end), the shoes taken in groups of :data:`TALLY_GROUP` spread over numba's
    threads: group ``g`` (shoes ``g * TALLY_GROUP`` on) is shuffled in ``cards[g]`` one shoe after
    another and counted into ``tallies[g]`` (zeroed first); ``dealt[s]`` is how many coups shoe
    ``s`` dealt."""
    groups = (seeds.size + TALLY_GROUP - 1) // TALLY_GROUP
    if groups > tallies.shape[0] or groups > cards.shape[0] or seeds.size > dealt.size:
        raise ValueError("_tally_shoes: fewer tallies, shoes or counts than the seeds need")
    if cards.shape[1] != base.size:  # checked here: an exception raised on numba's threads is lost
        raise ValueError("a shoe of another size than the fresh shoe")
    for g in numba.prange(groups):
        shoe = cards[g]
        row = tallies[g]
        for t in range(row.size):
            row[t] = 0
        for s in range(g * TALLY_GROUP, min(seeds.size, (g + 1) * TALLY_GROUP)):
            dealt[s] = _tally_shoe(shoe, base, seeds[s], deal, limit, row)


def tally_coups(
    rules: RuleSet, n_coups: int, rng: np.random.Generator | int | None = None, *, batch_shoes: int = 8192
) -> np.ndarray:
    """How the first ``n_coups`` coups of ``deal_coups(rules, n_coups, rng)`` ended, counted as they
    are dealt (nothing is written out, so it is several times faster): the row totals and the
    (result, Couleur) pairs, as :data:`TALLY_SIZE` int64 counts laid out as :data:`TALLY_NOIR`,
    :data:`TALLY_ROUGE` and :data:`TALLY_RESULTS` say. ``rng`` is used up by the call.

    :param batch_shoes: shoes shuffled per call of the kernel (the counts do not depend on it).
    """
    if n_coups < 0:
        raise ValueError(f"the number of coups cannot be negative, got {n_coups}")
    if batch_shoes < 1:
        raise ValueError(f"a batch holds at least one shoe, got {batch_shoes}")
    rng = np.random.default_rng(rng)
    base = new_shoe(rules.decks)
    per_shoe = expected_coups_per_shoe(rules)
    k_max = int(min(batch_shoes, np.ceil(n_coups / per_shoe * 1.02) + 1))
    groups = -(-k_max // TALLY_GROUP)
    cards = np.empty((groups, rules.n_cards), dtype=np.uint8)
    tallies = np.empty((groups, TALLY_SIZE), dtype=np.int64)
    dealt = np.empty(k_max, dtype=np.int64)
    total = np.zeros(TALLY_SIZE, dtype=np.int64)
    deal = dealing(rules)
    left = n_coups
    while left > 0:
        k = int(min(k_max, np.ceil(left / per_shoe * 1.02) + 1))
        seeds = shuffle_seeds(rng, k)
        _tally_shoes(cards, base, seeds, deal, tallies, dealt, rules.n_cards)
        if (batch := int(dealt[:k].sum())) <= left:
            total += tallies[: -(-k // TALLY_GROUP)].sum(axis=0)
            left -= batch
            continue
        # the batch ran past the last coup asked for: the groups before the shoe that deals it count
        # whole; that shoe's group is dealt again up to it (its shoes before it whole, none if it is
        # the first), and that shoe to the last coup asked for
        last = int(np.searchsorted(np.cumsum(dealt[:k]), left))
        group = last // TALLY_GROUP
        total += tallies[:group].sum(axis=0)
        before = int(dealt[:last].sum())
        tallies[0] = 0
        _tally_shoes(cards, base, seeds[group * TALLY_GROUP : last], deal, tallies, dealt, rules.n_cards)
        _tally_shoe(cards[0], base, seeds[last], deal, left - before, tallies[0])
        total += tallies[0]
        left = 0
    return total


def tally_first_coups(rules: RuleSet, seeds: np.ndarray) -> np.ndarray:
    """The first coup of each shoe shuffled with one of ``seeds`` (:func:`shuffle_seeds`), counted
    as :func:`tally_coups` counts: the coup a table deals first from such a shoe
    (:func:`~trente_env.croupier.next_coup`), each shoe shuffled only as far as its first coup reads."""
    base = new_shoe(rules.decks)
    groups = -(-seeds.size // TALLY_GROUP)
    cards = np.empty((groups, rules.n_cards), dtype=np.uint8)
    tallies = np.empty((groups, TALLY_SIZE), dtype=np.int64)
    dealt = np.empty(seeds.size, dtype=np.int64)
    _tally_shoes(cards, base, seeds, dealing(rules), tallies, dealt, 1)
    return tallies.sum(axis=0)


@dataclass(frozen=True)
class Coups:
    """Many coups as arrays, in dealing order. A void coup has both totals 0.

    ``shoes`` (the shuffled card codes, one row per shoe) is kept only when asked for.
    """

    noir: np.ndarray  #: int8 totals of the Noir rows
    rouge: np.ndarray  #: int8 totals of the Rouge rows
    first_black: np.ndarray  #: bool, the coup's first card is black
    shoe: np.ndarray  #: int32 index of the shoe each coup came from
    start: np.ndarray  #: int16 position of the coup's first card in its shoe
    n_noir: np.ndarray  #: int8 cards in the Noir row
    n_rouge: np.ndarray  #: int8 cards in the Rouge row
    reshuffle: np.ndarray  #: bool, the shoe is reshuffled after this coup
    shoes: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return self.noir.size

    @cached_property
    def result(self) -> np.ndarray:
        """:class:`~trente_env.codes.Result` code of every coup."""
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
    return (rules.n_cards - max(rules.cut_card, rules.dead_cards) - rules.burn) / 10.58 + 1


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
    :param batch_shoes: shoes shuffled per call of the kernel (memory: under 1 KB each).
    """
    if n_coups < 0:
        raise ValueError(f"the number of coups cannot be negative, got {n_coups}")
    rng = np.random.default_rng(rng)
    n_cards = rules.n_cards
    max_per_shoe = (n_cards - rules.burn) // 8 + 2  # a complete coup takes at least 8 cards
    base = new_shoe(rules.decks)
    deal = dealing(rules)
    capacity = int(n_coups * 1.05) + 64 * max_per_shoe  # the last batch of shoes may run past n_coups
    columns = [np.empty(capacity, dtype=t) for t in _COLUMN_TYPES]
    k_max = int(min(batch_shoes, np.ceil(n_coups / expected_coups_per_shoe(rules) * 1.02) + 1))
    stage = [np.empty(k_max * max_per_shoe, dtype=t) for t in _COLUMN_TYPES]  # reused by every batch
    shoes_max = np.empty((k_max, n_cards), dtype=np.uint8)
    counts = np.zeros(numba.get_num_threads(), dtype=np.int64)
    kept: list[np.ndarray] = []
    dealt = shoes_done = 0
    while dealt < n_coups or (whole_shoes and dealt == 0 < n_coups):
        k = int(min(batch_shoes, np.ceil((n_coups - dealt) / expected_coups_per_shoe(rules) * 1.02) + 1))
        shoes = np.empty((k, n_cards), dtype=np.uint8) if keep_cards else shoes_max[:k]
        chunks = np.linspace(0, k, counts.size + 1).astype(np.int64)
        room = [a[: k * max_per_shoe] for a in stage]
        _deal_shoes(shoes, base, shuffle_seeds(rng, k), deal, chunks, shoes_done, counts, tuple(room))
        batch = int(counts.sum())
        if dealt + batch > columns[0].size:
            columns = [np.concatenate([c, np.empty(dealt + batch - c.size, c.dtype)]) for c in columns]
        for src, dst in zip(room, columns):
            _gather(chunks, counts, max_per_shoe, dealt, src.view(np.uint8), dst.view(np.uint8), dst.itemsize)
        dealt += batch
        if keep_cards:
            kept.append(shoes)
        shoes_done += k
    n = n_coups
    if whole_shoes and n_coups > 0:
        n = int(np.searchsorted(columns[7][:dealt], columns[7][n_coups - 1], side="right"))
    noir, rouge, black, start, n_noir, n_rouge, reshuffle, shoe = (c[:n] for c in columns)
    shoes = np.concatenate(kept or [np.zeros((0, n_cards), np.uint8)])[: int(shoe[-1]) + 1 if n else 0]
    return Coups(noir, rouge, black, shoe, start, n_noir, n_rouge, reshuffle, shoes if keep_cards else None)


class Shoe:
    """The shoe of one table, dealt one coup at a time in Python: the croupier of ``trente-lab deal`` and
    ``play``. The environments and the tournament deal the same cards for the same seed in compiled
    code (:mod:`trente_env.croupier`), and tests compare them.

    :param rules: the table's rules (decks, cut card, burn).
    :param rng: the table's generator; each shuffle draws one seed from it (:func:`shuffle_seeds`).
    """

    def __init__(self, rules: RuleSet, rng: np.random.Generator) -> None:
        self.rules = rules
        self.rng = rng
        self.cards = new_shoe(rules.decks)
        self.pos = self.cards.size  # nothing to deal until the first shuffle
        self.needs_shuffle = True
        self.shuffles = 0

    def shuffle(self) -> None:
        """A fresh shoe, shuffled with one seed from the generator; the burn cards go."""
        self.cards = new_shoe(self.rules.decks)
        shuffle(self.cards, shuffle_seeds(self.rng, 1)[0])
        self.pos = self.rules.burn
        self.needs_shuffle = False
        self.shuffles += 1

    def deal(self) -> Coup:
        """Deal the next coup, shuffling first if the last coup brought out the cut card."""
        if self.needs_shuffle:
            self.shuffle()
        start = self.pos
        noir, rouge, middle, end, reshuffle = deal_next(self.cards, start, self.rules.cut_card, self.rules.dead_cards)
        self.pos, self.needs_shuffle = end, bool(reshuffle)
        cards = self.cards
        return Coup(
            tuple(int(c) for c in cards[start:middle]),
            tuple(int(c) for c in cards[middle:end]),
            int(noir),
            int(rouge),
            start,
            self.needs_shuffle,
        )

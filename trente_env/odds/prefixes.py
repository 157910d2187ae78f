"""The prefix states of a row and the one walk over them, which every calculator of a coup's odds uses.

A row is dealt while its total is at most 30, so it is an ordered run of cards whose *prefix* (all
but the last card) sums to at most 30, and whose last card takes it to 31..40. The probability of an
ordered run drawn without replacement depends only on how many cards of each value it holds, and
any order of a prefix is a valid order. So instead of enumerating every ordered row we walk the
20,545 multisets of values that sum to at most 30 (each one a *prefix state*) in order of size:
:func:`walk` gives the chance of reaching each of them, and so of each of the 63,231 complete rows
(as multisets of values) that end there. The first coup's calculator (:mod:`.first`), the rows
method of the exact odds (:mod:`.rows`) and the coupled rows of the approximate odds
(:mod:`.approximate`) take this one walk; the first two then read the rows that end from
:func:`end_rows`, each what it needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from trente_env import jit
from trente_env.coup import REFAIT_TOTAL, ROW_LIMIT

N_VALUES = 10  #: card values 1..10 (court cards count 10)


@dataclass(frozen=True)
class Prefixes:
    """The prefix states, ordered by size (so a state's children come after it), and the rows."""

    counts: np.ndarray  #: (S, 10) cards of each value in the prefix state
    size: np.ndarray  #: (S,) cards in it
    total: np.ndarray  #: (S,) their total
    child: np.ndarray  #: (S, 10) the state after one more card of each value, or -(index of the row + 1)
    rows: np.ndarray  #: (R, 10) the complete rows (prefix + last card) as value counts
    row_total: np.ndarray  #: (R,) their totals

    def walked(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What :func:`walk` reads: (counts, size, total, child)."""
        return self.counts, self.size, self.total, self.child


@cache
def prefix_states() -> Prefixes:
    """Every multiset of values summing to at most 30, ordered by size, with its transitions."""
    states: list[tuple[int, ...]] = [(0,) * N_VALUES]
    index = {states[0]: 0}
    rows: dict[tuple[int, ...], int] = {}
    child = []
    for state in states:  # grows while we walk it: breadth first, so by size
        total = sum(v * c for v, c in enumerate(state, start=1))
        links = []
        for v in range(1, N_VALUES + 1):
            nxt = state[: v - 1] + (state[v - 1] + 1,) + state[v:]
            if total + v <= ROW_LIMIT:
                links.append(index.setdefault(nxt, len(states)))
                if links[-1] == len(states):
                    states.append(nxt)
            else:
                links.append(-1 - rows.setdefault(nxt, len(rows)))
        child.append(links)
    counts = np.array(states, dtype=np.int64)
    row_counts = np.array(list(rows), dtype=np.int64)
    values = np.arange(1, N_VALUES + 1)
    return Prefixes(
        counts, counts.sum(1), counts @ values, np.array(child, dtype=np.int64), row_counts, row_counts @ values
    )


@cache
def compact_prefixes() -> tuple[np.ndarray, ...]:
    """The prefix states in small integers, with the values each holds, for compiled code that keeps
    them in its cache: (counts, size, total, child, number of values present, those values)."""
    pre = prefix_states()
    present = pre.counts > 0
    values = np.full(pre.counts.shape, -1, dtype=np.int8)
    for s, row in enumerate(present):
        idx = np.flatnonzero(row)
        values[s, : idx.size] = idx
    return (
        pre.counts.astype(np.int8), pre.size.astype(np.int16), pre.total.astype(np.int16), pre.child.astype(np.int32),
        present.sum(1).astype(np.int8), values,
    )  # fmt: skip


@jit.inline
def first_ending(total):
    """The least card (its value - 1) that ends a row whose prefix adds up to ``total``: the row ends
    with a card of value 31 - total or more."""
    return min(max(ROW_LIMIT - total, 0), N_VALUES)


@jit.kernel
def walk(shoe, deal, prefixes, chance):
    """The one walk: a row dealt from ``shoe`` (``shoe[v-1]`` cards of value v, of which the first
    ``deal`` can be dealt), over the prefix states in order of size. ``prefixes`` starts with the
    arrays ``counts``, ``size``, ``total``, ``child`` of :class:`Prefixes` (:meth:`Prefixes.walked`,
    or :func:`compact_prefixes`).

    On return ``chance[s]`` is the chance of reaching the prefix state ``s`` divided by the cards
    left there, so the chance that the row goes on, or ends, with a given one of them: a row ends
    at ``s`` with each card of value from ``first_ending(total[s]) + 1`` to 10 (:func:`first_ending`)
    still in the shoe, the complete row ``-1 - child[s, v]``. ``chance[s]`` is 0 where the state is
    never reached, and where the shoe runs out (only ``deal`` cards can be dealt); returns the
    chance of that (a void coup).
    """
    counts, size, total, child = prefixes[0], prefixes[1], prefixes[2], prefixes[3]
    n = shoe.sum()
    chance[:] = 0.0
    chance[0] = 1.0
    void = 0.0
    for s in range(counts.shape[0]):
        ps = chance[s]
        if ps == 0.0:
            continue
        if size[s] >= deal:
            void += ps
            chance[s] = 0.0
            continue
        scale = ps / (n - size[s])
        chance[s] = scale  # the walk is past s: from here on, the chance of each next card
        for v in range(first_ending(total[s])):  # the cards that keep the total at most 30
            c = shoe[v] - counts[s, v]
            if c > 0:
                chance[child[s, v]] += scale * c
    return void


@jit.kernel
def end_rows(shoe, deal, prefixes, row_total, row_p, row_first, out):
    """The walk (:func:`walk`) of a row dealt from ``shoe``, then the rows that end, added to each
    output that is not empty:

    - ``row_p[r]``: the chance of the complete row ``r`` (totals in ``row_total``);
    - ``row_first[r, u]``: the chance of the row ``r`` with its first card of value u+1 (every order
      of a prefix is equally likely, so its first card is one of its cards, each with the same chance);
    - ``out[0:10]``: the chance of each total 31..40; ``out[10]``: the expected number of cards.

    Returns the chance that the shoe runs out first (a void coup).
    """
    counts, size, total, child = prefixes
    chance = np.empty(counts.shape[0])
    void = walk(shoe, deal, prefixes, chance)
    for s in range(counts.shape[0]):
        if chance[s] == 0.0:
            continue
        for v in range(first_ending(total[s]), N_VALUES):
            c = shoe[v] - counts[s, v]
            if c <= 0:
                continue
            q = chance[s] * c
            r = -1 - child[s, v]
            if row_p.size:
                row_p[r] += q
            if row_first.size:
                for u in range(N_VALUES):
                    row_first[r, u] += q * counts[s, u] / size[s]
            if out.size:
                out[row_total[r] - REFAIT_TOTAL] += q
                out[10] += q * (size[s] + 1)
    return void

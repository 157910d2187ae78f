"""Exact odds of the next coup from what is left of the shoe, colour included: card counting's engine.

The state is what a player who watches every card knows: the unseen cards, as 20 counts (black
cards of value 1..10, then red ones: the order of the environment's ``observe_shoe``), and how many
of them will never be dealt (``dead``: burnt cards, dead cards at the end of the shoe). The unseen
cards lie in a uniformly random order, so the dead ones are a random part of them: the next cards
are drawn without replacement from all the unseen ones, and a coup that needs more than the
``cards left - dead`` cards that can still be dealt is void.

**Colour for free.** Given the sequence of *values* dealt, the colours of the value-v cards are a
uniformly random assignment of the shoe's ``b_v`` black and ``r_v`` red cards of value v, so the
coup's first card is black with probability ``b_v / n_v`` once its value is v, whatever else
happens. And given the Noir row as a multiset, every order of its prefix (all its cards but the
last) is equally likely, so its first card has value v with probability ``prefix_v / |prefix|``.
So with ``D_v = P(first value v, Noir wins) - P(first value v, Rouge wins)`` (the *first-card edge*)
and ``d_v = (b_v - r_v) / n_v``::

    P(Couleur) - P(Inverse) = sum_v D_v d_v,        P(Couleur) + P(Inverse) = P(Noir) + P(Rouge),

and the colour-aware odds cost no more than the value-only ones. P(Noir) = P(Rouge) for every
composition (the two rows' blocks of cards can be swapped), so Noir and Rouge are never
favourable: only Couleur and Inverse can be, through the colours left in the shoe.

**Exact**: :func:`exact_odds`, two ways to the same numbers.

* *joint*: one pass over the joint states of the coup (every multiset of values the coup may have
  taken so far, inside the shoe, with the Noir total once that row is complete), forward for the
  two rows' distribution, backward for the first-card edge. Its cost grows with ``prod(n_v + 1)``
  (:func:`box_size`): a fraction of a millisecond for the last 13 cards, a few for the last 20.
* *rows*: the Noir row by a walk over the 20,545 prefix states of :mod:`trente_env.odds`; then for
  each Noir row the Rouge row from the table P(the first L cards add up to s), updated card by card
  as the Noir row's cards leave the shoe (by exchangeability the Rouge row ends on u with a last
  card l when the shoe without that l has a first run of cards adding up to u - l <= 30). Any
  shoe; about five seconds for a full six-pack shoe.

**Fast**: :func:`shoe_odds`, exact for a short shoe (at most ``exact_box`` joint states; by default
50,000: every shoe of at most 20 cards and some up to 26), else one of two approximations:

* *coupled rows* (up to ``coupled_cards`` cards, 64 by default and 104 at most; about a
  millisecond): the Noir row
  exact and the Rouge row after it to first order in the Noir row's cards,
  ``R(shoe - A) ~ R(shoe) - sum_v A_v (R(shoe) - R(shoe less one card of value v))``, every ``R``
  exact (totals and lengths, so void coups are counted);
* *with replacement* (beyond; a few microseconds): both rows drawn with replacement at the shoe's
  proportions (the rows' lengths tracked when fewer than 40 cards can be dealt).

Both add a finite-shoe correction tabulated at 15 *nodes*, balanced shoes of 13 k cards (k
quarter-packs; every full shoe of 1..8 packs is one): the exact odds minus the approximation at the
node, linear in the cards removed from the node, interpolated between the two nodes that bracket
the shoe's size. The nodes' exact odds are stored in ``data/counting_nodes.json`` (rebuilt by
:func:`write_nodes`, checked when loaded; the corrections are recomputed from them by this code).
Last, the approximate odds are projected onto two exact symmetries (:func:`_symmetrise`).

Measured error of the approximations against the exact odds (classic rules, six packs, shoes dealt
by the project's dealer and cut that many cards before their end, 20 shoes per line for the coupled
rows, 12 with replacement; :func:`trente_env.counters.approximation_error`): root-mean-square and
largest error of the best expected gain on offer, per unit staked.

==========  ================  ================
cards left  coupled rows      with replacement
==========  ================  ================
20          3.8e-4 / 1.0e-3
24          1.4e-4 / 3.1e-4
26          8.7e-5 / 1.9e-4
30          9.6e-5 / 2.4e-4
35          6.9e-5 / 1.8e-4
40          1.9e-5 / 4.4e-5
52          8.4e-6 / 2.5e-5
64          6.9e-6 / 2.1e-5
65                            2.0e-4 / 6.0e-4
70          4.5e-6 / 9.7e-6   1.0e-4 / 2.8e-4
90          5.0e-7 / 1.1e-6   3.8e-5 / 7.3e-5
104         4.4e-7 / 1.3e-6   2.0e-5 / 4.6e-5
156                           4.6e-6 / 1.1e-5
208                           1.2e-6 / 2.1e-6
260                           3.0e-7 / 9.2e-7
==========  ================  ================

(At 20 cards and fewer the default is exact; at 70 to 104 cards the coupled rows were measured on 10
shoes with ``coupled_cards=104``.) The best expected gain on offer is about -0.01 in a deep shoe and
comes near zero only in the last few dozen cards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numba
import numpy as np

from trente_env.odds import _prefixes

ROW_LIMIT = 30  #: a row is dealt while its total is at most 30
JOINT_LIMIT = 70  #: the largest total of the cards of a coup before its last card (40 + 30)
N_VALUES = 10
#: Cards of each value 1..10 in one pack: four of each, sixteen tens.
PACK = np.array([4] * 9 + [16], dtype=np.int64)


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
class ShoeOdds:
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
    def p_refait(self) -> float:
        return float(self.pair[0, 0])

    @property
    def p_apres(self) -> float:
        return float(np.trace(self.pair) - self.pair[0, 0])

    @property
    def p_noir(self) -> float:
        return float(np.triu(self.pair, 1).sum())

    @property
    def p_rouge(self) -> float:
        return float(np.tril(self.pair, -1).sum())

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


def _black_share(counts: np.ndarray) -> np.ndarray:
    values = counts[:N_VALUES] + counts[N_VALUES:]
    return np.where(values > 0, counts[:N_VALUES] / np.maximum(values, 1), 0.5)


# -- exact by rows: the Noir row's walk, then the Rouge row after each Noir row --------------------


@numba.njit(cache=True)
def _noir_walk(shoe, n, deal, states, counts, size, child, row_p, row_first, p):
    """The Noir row from ``shoe`` (value counts, ``n`` cards of which ``deal`` can be dealt), over the
    prefix states ``states`` (those inside the shoe, in order of size).

    Adds to ``row_p[r]`` the chance of each complete row and to ``row_first[r, u]`` the chance of the
    row with its first card of value u+1. Returns the chance that the shoe runs out first.
    """
    for s in states:
        p[s] = 0.0
    p[0] = 1.0
    void = 0.0
    for s in states:
        ps = p[s]
        if ps == 0.0:
            continue
        if size[s] >= deal:
            void += ps
            continue
        scale = ps / (n - size[s])
        for v in range(N_VALUES):
            k = shoe[v] - counts[s, v]
            if k <= 0:
                continue
            q = scale * k
            nxt = child[s, v]
            if nxt >= 0:
                p[nxt] += q
            else:
                r = -1 - nxt
                row_p[r] += q
                for u in range(N_VALUES):
                    row_first[r, u] += q * counts[s, u] / size[s]
    return void


PREFIX_CARDS = 31  #: table rows: a prefix of total <= 30 holds at most 30 cards


@numba.njit(cache=True)
def _sums_table(shoe, g, lmax):
    """``g[L, s]`` = P(the first L cards of ``shoe`` (value counts) add up to s), for s <= 30 and L <=
    ``lmax`` (beyond :func:`_most_cards` the table is zero).

    Built by adding the shoe's cards one at a time: with ``n`` cards already in, a new card of value
    v takes the (L)-th place with probability L/(n+1), so
    ``g'[L, s] = ((n + 1 - L) g[L, s] + L g[L-1, s-v]) / (n + 1)`` (sums of positive terms).
    """
    g[:, :] = 0.0
    g[0, 0] = 1.0
    n = 0
    for v in range(N_VALUES):
        for _ in range(shoe[v]):
            top = min(n + 1, lmax)
            for L in range(top, 0, -1):
                for s in range(ROW_LIMIT, v, -1):
                    g[L, s] = ((n + 1 - L) * g[L, s] + L * g[L - 1, s - v - 1]) / (n + 1)
                for s in range(min(v, ROW_LIMIT) + 1):
                    g[L, s] = (n + 1 - L) * g[L, s] / (n + 1)
            n += 1


@numba.njit(cache=True)
def _remove_card(g, n, v, out, lmax):
    """The table of :func:`_sums_table` for the shoe ``g`` describes (``n`` cards) less one card of
    value v+1: ``out[L, s] = (n g[L, s] - L out[L-1, s-v-1]) / (n - L)``, zero for L >= n (rows up to
    ``lmax``)."""
    out[0, :] = g[0, :]
    for L in range(1, lmax + 1):
        if n <= L:
            out[L, :] = 0.0
            continue
        for s in range(ROW_LIMIT + 1):
            x = n * g[L, s]
            if s > v:
                x -= L * out[L - 1, s - v - 1]
            out[L, s] = x / (n - L)


@numba.njit(cache=True)
def _rouge_after(g_full, n_full, row, left, deal, a, b, out):
    """The Rouge row after a Noir row ``row`` (value counts), from the sums table of the full shoe
    ``g_full`` (``n_full`` cards); ``left`` are the value counts after the Noir row, of which ``deal``
    cards can be dealt.

    The Rouge row ends on u with last card l when its first cards add up to s = u - l <= 30 and the
    next card is an l: P = (d_l / n_d) * P(the first cards of the shoe without that l add up to s)
    (by exchangeability). ``out`` gets the chance of each total 31..40, the expected cards of a
    complete row times its chance, and the chance that the shoe runs out. ``a`` and ``b`` are
    (31, 31) work tables.
    """
    n = n_full
    a[:, :] = g_full
    for v in range(N_VALUES):
        for _ in range(row[v]):
            _remove_card(a, n, v, b, PREFIX_CARDS - 1)
            a[:, :] = b
            n -= 1
    # a is now the table of the shoe left after the Noir row (n cards)
    complete = 0.0
    for last in range(N_VALUES):
        d_l = left[last]
        if d_l <= 0:
            continue
        _remove_card(a, n, last, b, PREFIX_CARDS - 1)
        w = d_l / n
        for s in range(max(0, ROW_LIMIT - last), ROW_LIMIT + 1):
            u = s + last + 1
            for L in range(min(PREFIX_CARDS - 1, deal - 1) + 1):
                q = w * b[L, s]
                out[u - 31] += q
                out[10] += q * (L + 1)
                complete += q
    out[11] = 1.0 - complete


@numba.njit(cache=True, parallel=True)
def _rouge_rows(shoe, n, deal, live, rows, g_full, out, n_chunks):
    """The Rouge row after each Noir row ``live[i]``, in ``n_chunks`` parallel chunks: ``out[i]`` gets
    the chance of each total 31..40, the expected cards (weighted), the chance the shoe runs out."""
    bounds = np.linspace(0, live.size, n_chunks + 1).astype(np.int64)
    for c in numba.prange(n_chunks):
        a = np.empty((PREFIX_CARDS, ROW_LIMIT + 1))
        b = np.empty((PREFIX_CARDS, ROW_LIMIT + 1))
        left = np.empty(N_VALUES, np.int64)
        for i in range(bounds[c], bounds[c + 1]):
            r = live[i]
            row_cards = rows[r].sum()
            for v in range(N_VALUES):
                left[v] = shoe[v] - rows[r, v]
            _rouge_after(g_full, n, rows[r], left, deal - row_cards, a, b, out[i])


def _value_counts(counts: np.ndarray) -> np.ndarray:
    return counts[:N_VALUES] + counts[N_VALUES:]


def _rows_odds(shoe: np.ndarray, dead: int) -> np.ndarray:
    """The odds vector (see :data:`N_OUT`) from value counts, a Rouge row computed after each Noir row."""
    n = int(shoe.sum())
    pre = _prefixes()
    states = np.flatnonzero((pre.counts <= shoe).all(1))
    row_p = np.zeros(len(pre.rows))
    row_first = np.zeros((len(pre.rows), N_VALUES))
    p = np.zeros(len(pre.counts))
    void = _noir_walk(shoe, n, n - dead, states, pre.counts, pre.size, pre.child, row_p, row_first, p)
    live = np.flatnonzero(row_p > 0)
    rouge = np.zeros((live.size, 12))
    g_full = np.empty((PREFIX_CARDS, ROW_LIMIT + 1))
    _sums_table(shoe, g_full, PREFIX_CARDS - 1)
    _rouge_rows(shoe, n, n - dead, live, pre.rows, g_full, rouge, 4 * numba.get_num_threads())
    t = pre.row_total[live] - 31
    pair = np.zeros((10, 10))
    np.add.at(pair, t, row_p[live, None] * rouge[:, :10])
    # P(Noir wins) - P(Rouge wins) after each Noir row: the Rouge row ends above it, or below
    above = np.cumsum(rouge[:, 9::-1], axis=1)[:, ::-1]  # above[i, j] = P(Rouge total >= 31 + j)
    below = np.cumsum(rouge[:, :10], axis=1)  # below[i, j] = P(Rouge total <= 31 + j)
    idx = np.arange(live.size)
    h = np.where(t < 9, above[idx, np.minimum(t + 1, 9)], 0.0) - np.where(t > 0, below[idx, np.maximum(t - 1, 0)], 0.0)
    first_edge = row_first[live].T @ h
    complete = pair.sum()
    sizes = pre.rows[live].sum(1)
    cards = (row_p[live] * (rouge[:, :10].sum(1) * sizes + rouge[:, 10])).sum() / complete if complete > 0 else 0.0
    void += float((row_p[live] * rouge[:, 11]).sum())
    return np.concatenate([pair.ravel(), first_edge, [void, cards]])


# -- short shoes: one pass over the joint states of the coup -------------------------------------


def box_size(shoe: np.ndarray) -> int:
    """How many joint states the joint method holds for a shoe of these value counts (its cost)."""
    caps = np.minimum(shoe, JOINT_LIMIT // np.arange(1, N_VALUES + 1))
    return int(np.prod(caps + 1, dtype=np.float64))


@numba.njit(cache=True, inline="always")
def _next_state(m, caps, stride, bound, idx, total, size):
    """The joint state after (m, idx, total, size) in increasing index among those of total <= bound
    (an odometer, lowest value fastest). Returns (done, idx, total, size); ``m`` is updated."""
    for j in range(N_VALUES):
        if m[j] < caps[j] and total + j + 1 <= bound:
            m[j] += 1
            return False, idx + stride[j], total + j + 1, size + 1
        total -= m[j] * (j + 1)
        size -= m[j]
        idx -= m[j] * stride[j]
        m[j] = 0
    return True, idx, total, size


@numba.njit(cache=True, inline="always")
def _previous_state(m, caps, stride, bound, idx, total, size):
    """The joint state before (m, idx, total, size) in increasing index among those of total <=
    bound: lower the lowest non-zero count, then fill the lower values as high as the bound allows."""
    j = 0
    while j < N_VALUES and m[j] == 0:
        j += 1
    if j == N_VALUES:
        return True, idx, total, size
    m[j] -= 1
    idx -= stride[j]
    total -= j + 1
    size -= 1
    for i in range(j - 1, -1, -1):
        k = min(caps[i], (bound - total) // (i + 1))
        m[i] = k
        idx += k * stride[i]
        total += k * (i + 1)
        size += k
    return False, idx, total, size


@numba.njit(cache=True)
def _joint_layout(shoe):
    """The mixed radix of the joint states of a shoe: (caps, strides, number of states)."""
    caps = np.empty(N_VALUES, np.int64)
    stride = np.empty(N_VALUES, np.int64)
    size_box = 1
    for v in range(N_VALUES):
        caps[v] = min(shoe[v], JOINT_LIMIT // (v + 1))
        stride[v] = size_box
        size_box *= caps[v] + 1
    return caps, stride, size_box


@numba.njit(cache=True)
def _joint_forward(shoe, dead, caps, stride, size_box, pn, joint, out, tie_state, tie_total, tie_p):
    """The forward passes of :func:`_joint_odds`: the Noir row, then the Rouge row. Fills the pair
    distribution in ``out`` and returns (void, expected cards of complete coups times their chance,
    the last joint state reached, ties recorded). Every tie (après or refait) is also recorded, up to
    the length of ``tie_state``: ``10 * (joint state before its last card) + (that card's value - 1)``
    (the last card may overflow the radix), the Noir total and the chance.
    """
    n = shoe.sum()
    deal = n - dead
    pn[:size_box] = 0.0
    joint[: size_box * 10] = 0.0
    out[:] = 0.0
    pn[0] = 1.0
    m = np.zeros(N_VALUES, np.int64)
    void = 0.0
    cards = 0.0
    ties = 0
    # the Noir row: states of total <= 30, in increasing index
    done, idx, total, size = False, 0, 0, 0
    while not done:
        p = pn[idx]
        if p > 0.0:
            if size >= deal:
                void += p
            else:
                scale = p / (n - size)
                for v in range(N_VALUES):
                    k = shoe[v] - m[v]
                    if k > 0:
                        t = total + v + 1
                        if t <= ROW_LIMIT:
                            pn[idx + stride[v]] += scale * k
                        else:
                            joint[(idx + stride[v]) * 10 + t - 31] += scale * k
        done, idx, total, size = _next_state(m, caps, stride, ROW_LIMIT, idx, total, size)
    # the Rouge row: states (M, t) with t <= sum(M) <= t + 30, forward
    done, idx, total, size = False, 0, 0, 0
    last = 0
    while not done:
        if total >= 31:
            last = idx
            for t in range(max(31, total - ROW_LIMIT), min(40, total) + 1):
                p = joint[idx * 10 + t - 31]
                if p == 0.0:
                    continue
                if size >= deal:
                    void += p
                    continue
                scale = p / (n - size)
                s = total - t
                for v in range(N_VALUES):
                    k = shoe[v] - m[v]
                    if k > 0:
                        q = scale * k
                        u = s + v + 1
                        if u <= ROW_LIMIT:
                            joint[(idx + stride[v]) * 10 + t - 31] += q
                        else:
                            out[(t - 31) * 10 + u - 31] += q
                            cards += q * (size + 1)
                            if u == t and ties < tie_state.size:
                                tie_state[ties] = idx * N_VALUES + v  # the state before the last card, and it
                                tie_total[ties] = t
                                tie_p[ties] = q
                                ties += 1
        done, idx, total, size = _next_state(m, caps, stride, JOINT_LIMIT, idx, total, size)
    return void, cards, last, ties


@numba.njit(cache=True)
def _joint_odds(shoe, dead, pn, joint, out):
    """The coup from a short shoe by one pass over its joint states (the joint method of
    :func:`exact_odds`).

    A joint state is a multiset ``M`` of values inside the shoe (the cards dealt so far), indexed in
    mixed radix (``m_v`` cards of value v+1, at most ``caps[v]``). While the Noir row is dealt (total
    of ``M`` at most 30) its chance is in ``pn[index]``; once the Noir row ended on ``t`` the chance
    of (M, t) is in ``joint[index * 10 + t - 31]`` (the Rouge row's running total is ``sum(M) - t``).
    Adding a card of value v+1 moves the index up by ``stride[v]``, so increasing indices are a
    topological order. ``out`` receives the pair distribution (100), the first-card edge (10), the
    chance of a void coup and the expected cards of a complete coup.
    """
    caps, stride, size_box = _joint_layout(shoe)
    n = shoe.sum()
    deal = n - dead
    m = np.zeros(N_VALUES, np.int64)
    none = np.empty(0, np.int64)
    void, cards, last, _ = _joint_forward(shoe, dead, caps, stride, size_box, pn, joint, out, none, none, np.empty(0))
    # backward from the last state: replace each reached (M, t) by P(Noir wins) - P(Rouge wins)
    idx = last
    total = 0
    size = 0
    rest = idx
    for v in range(N_VALUES - 1, -1, -1):
        m[v] = rest // stride[v]
        rest -= m[v] * stride[v]
        total += m[v] * (v + 1)
        size += m[v]
    done = False
    while not done:
        for t in range(max(31, total - ROW_LIMIT), min(40, total) + 1):
            slot = idx * 10 + t - 31
            if joint[slot] == 0.0:
                continue
            h = 0.0
            if size < deal:
                scale = 1.0 / (n - size)
                s = total - t
                for v in range(N_VALUES):
                    k = shoe[v] - m[v]
                    if k > 0:
                        u = s + v + 1
                        if u <= ROW_LIMIT:
                            h += scale * k * joint[(idx + stride[v]) * 10 + t - 31]
                        elif u > t:
                            h += scale * k
                        elif u < t:
                            h -= scale * k
            joint[slot] = h
        done, idx, total, size = _previous_state(m, caps, stride, JOINT_LIMIT, idx, total, size)
    # the first-card edge: each way the Noir row ends, its prefix's values, times the edge after it
    m[:] = 0
    done, idx, total, size = False, 0, 0, 0
    while not done:
        p = pn[idx]
        if p > 0.0 and size < deal and total > ROW_LIMIT - N_VALUES:
            scale = p / (n - size)
            for v in range(N_VALUES):
                k = shoe[v] - m[v]
                t = total + v + 1
                if k > 0 and t > ROW_LIMIT:
                    g = scale * k * joint[(idx + stride[v]) * 10 + t - 31] / size
                    for u in range(N_VALUES):
                        out[100 + u] += g * m[u]
        done, idx, total, size = _next_state(m, caps, stride, ROW_LIMIT, idx, total, size)
    complete = 0.0
    for i in range(100):
        complete += out[i]
    out[110] = void
    out[111] = cards / complete if complete > 0.0 else 0.0


# -- the fast path: with-replacement odds plus a tabulated finite-shoe correction -----------------

VOID_FREE = 40  #: with this many cards left to deal, a coup practically never runs out (< 1e-12)


@numba.njit(cache=True)
def _with_replacement(shoe, deal, out):
    """The coup as if every card were drawn with replacement at the shoe's proportions, each row
    stopping at 31..40; the coup is void if it needs more than ``deal`` cards (tracked only when
    ``deal < VOID_FREE``). ``out`` as in :func:`_joint_odds`."""
    n = 0.0
    for v in range(N_VALUES):
        n += shoe[v]
    p = np.empty(N_VALUES)
    for v in range(N_VALUES):
        p[v] = shoe[v] / n
    out[:] = 0.0
    if deal >= VOID_FREE:
        f = np.zeros((ROW_LIMIT + 1, 10))  # f[s, t]: the row ends on 31+t from running total s
        length = np.zeros(ROW_LIMIT + 1)  # expected cards still to come from s
        for s in range(ROW_LIMIT, -1, -1):
            length[s] = 1.0
            for v in range(N_VALUES):
                if s + v + 1 <= ROW_LIMIT:
                    for t in range(10):
                        f[s, t] += p[v] * f[s + v + 1, t]
                    length[s] += p[v] * length[s + v + 1]
                else:
                    f[s, s + v + 1 - 31] += p[v]
        edge = np.empty(10)  # P(Rouge above t) - P(Rouge below t)
        for t in range(10):
            edge[t] = 0.0
            for u in range(10):
                if u > t:
                    edge[t] += f[0, u]
                elif u < t:
                    edge[t] -= f[0, u]
        for t in range(10):
            for u in range(10):
                out[t * 10 + u] = f[0, t] * f[0, u]
            for v in range(N_VALUES):
                out[100 + v] += p[v] * f[v + 1, t] * edge[t]
        out[111] = 2.0 * length[0]
        return
    # short shoe: track the number of cards of each row too
    top = min(deal, ROW_LIMIT + 1)
    g = np.zeros((ROW_LIMIT + 1, top + 1, 10))  # g[s, l, t]: ends on 31+t after l more cards
    for s in range(ROW_LIMIT, -1, -1):
        for v in range(N_VALUES):
            if s + v + 1 <= ROW_LIMIT:
                for cards in range(2, top + 1):
                    for t in range(10):
                        g[s, cards, t] += p[v] * g[s + v + 1, cards - 1, t]
            else:
                g[s, 1, s + v + 1 - 31] += p[v]
    cum = np.zeros((deal + 1, 10))  # cum[m, u]: the Rouge row ends on 31+u within m cards
    cum_cards = np.zeros(deal + 1)  # expected cards of the Rouge rows complete within m cards
    for m in range(1, deal + 1):
        for u in range(10):
            q = g[0, m, u] if m <= top else 0.0
            cum[m, u] = cum[m - 1, u] + q
            cum_cards[m] += q * m
        cum_cards[m] += cum_cards[m - 1]
    complete = 0.0
    cards = 0.0
    for l1 in range(2, top + 1):
        room = deal - l1
        if room <= 0:
            break
        for t in range(10):
            edge = 0.0
            done = 0.0
            for u in range(10):
                out[t * 10 + u] += g[0, l1, t] * cum[room, u]
                done += cum[room, u]
                if u > t:
                    edge += cum[room, u]
                elif u < t:
                    edge -= cum[room, u]
            complete += g[0, l1, t] * done
            cards += g[0, l1, t] * (l1 * done + cum_cards[room])
            for v in range(N_VALUES):
                out[100 + v] += p[v] * g[v + 1, l1 - 1, t] * edge
    out[110] = 1.0 - complete
    out[111] = cards / complete if complete > 0.0 else 0.0


NO_VOID = 62  #: a coup holds at most 62 cards: with this many left to deal it cannot be void


@numba.njit(cache=True)
def _most_cards(shoe):
    """The most cards of ``shoe`` (value counts) whose values add up to at most 30."""
    total = 0
    count = 0
    for v in range(N_VALUES):
        for _ in range(shoe[v]):
            if total + v + 1 > ROW_LIMIT:
                return count
            total += v + 1
            count += 1
    return count


@numba.njit(cache=True)
def _row_lengths(g, n, shoe, lmax, work, table):
    """``table[u, l]`` = P(a row dealt from ``shoe`` (value counts, ``n`` cards, sums table ``g``)
    ends on 31+u with l cards): its first l-1 cards add up to s <= 30 and the next is a card of value
    31+u-s; by exchangeability that is P(first card of that value) times P(the first l-1 cards of the
    shoe without it add up to s)."""
    table[:, :] = 0.0
    for last in range(N_VALUES):
        if shoe[last] <= 0:
            continue
        _remove_card(g, n, last, work, lmax)
        w = shoe[last] / n
        for s in range(max(0, ROW_LIMIT - last), ROW_LIMIT + 1):
            u = s + last + 1 - 31
            for cards in range(lmax + 1):
                table[u, cards + 1] += w * work[cards, s]


@numba.njit(cache=True)
def _coupled(shoe, deal, prefixes, out):
    """The coup with the Noir row exact and the Rouge row after it to first order in the Noir row's
    cards: ``R(shoe - A) ~ R(shoe) - sum_v A_v (R(shoe) - R(shoe less a v))``, where ``R`` is the
    Rouge row's distribution (totals and lengths, exact, :func:`_row_lengths`). ``prefixes`` are the
    prefix states of :func:`compact_prefixes`. ``out`` as in :func:`_joint_odds`; the expected cards
    per coup leave out the coupling."""
    pre_counts, pre_size, pre_total, pre_child, pre_n_values, pre_values = prefixes
    n = shoe.sum()
    lmax = _most_cards(shoe)
    g = np.empty((PREFIX_CARDS, ROW_LIMIT + 1))
    g_less = np.empty_like(g)
    work = np.empty_like(g)
    _sums_table(shoe, g, lmax)
    rows = np.empty((N_VALUES + 1, 10, PREFIX_CARDS + 1))  # [0] the shoe, [1 + v] less a card of value v+1
    _row_lengths(g, n, shoe, lmax, work, rows[0])
    less = shoe.copy()
    for v in range(N_VALUES):
        if shoe[v] > 0:
            _remove_card(g, n, v, g_less, lmax)
            less[v] -= 1
            _row_lengths(g_less, n - 1, less, lmax, work, rows[1 + v])
            less[v] += 1
        else:
            rows[1 + v] = rows[0]
    # cum[x, u, m]: the Rouge row ends on 31+u within m cards; edge[x, t, m]: P(above t) - P(below t),
    # then turned into the first-order change per card: edge[1+x] <- edge[0] - edge[1+x]
    cum = np.zeros((N_VALUES + 1, 10, PREFIX_CARDS + 1))
    edge = np.zeros((N_VALUES + 1, 10, PREFIX_CARDS + 1))
    length = np.zeros(PREFIX_CARDS + 1)  # expected cards of a Rouge row complete within m cards
    for x in range(N_VALUES + 1):
        for m in range(1, PREFIX_CARDS + 1):
            for u in range(10):
                cum[x, u, m] = cum[x, u, m - 1] + rows[x, u, m]
                if x == 0:
                    length[m] += rows[0, u, m] * m
            if x == 0:
                length[m] += length[m - 1]
            for t in range(10):
                for u in range(10):
                    if u > t:
                        edge[x, t, m] += cum[x, u, m]
                    elif u < t:
                        edge[x, t, m] -= cum[x, u, m]
    for x in range(1, N_VALUES + 1):
        for t in range(10):
            for m in range(PREFIX_CARDS + 1):
                edge[x, t, m] = edge[0, t, m] - edge[x, t, m]
    budgeted = deal < NO_VOID
    spans = PREFIX_CARDS + 1 if budgeted else 1
    mass = np.zeros((10, spans))  # P(Noir row ends on 31+t with a cards) (a = 0 when not budgeted)
    mass_cards = np.zeros((10, spans))
    mass_by = np.zeros((10, spans, N_VALUES))  # the same times the row's cards of each value
    p = np.zeros(pre_counts.shape[0])
    p[0] = 1.0
    out[:] = 0.0
    for s in range(pre_counts.shape[0]):
        ps = p[s]
        if ps == 0.0:
            continue
        size = pre_size[s]
        if size >= deal:
            continue  # the shoe runs out during the Noir row: void
        scale = ps / (n - size)
        first = 0.0  # the first-card edge of the rows ending here, before sharing among the prefix's cards
        for v in range(N_VALUES):
            k = shoe[v] - pre_counts[s, v]
            if k <= 0:
                continue
            q = scale * k
            nxt = pre_child[s, v]
            if nxt >= 0:
                p[nxt] += q
                continue
            t = pre_total[s] + v + 1 - 31
            a = size + 1
            m = min(deal - a, PREFIX_CARDS) if budgeted else PREFIX_CARDS
            span = a if budgeted else 0
            mass[t, span] += q
            mass_cards[t, span] += q * a
            e = edge[0, t, m] - edge[1 + v, t, m]
            mass_by[t, span, v] += q
            for i in range(pre_n_values[s]):
                x = pre_values[s, i]
                c_x = pre_counts[s, x]
                mass_by[t, span, x] += q * c_x
                e -= c_x * edge[1 + x, t, m]
            first += q * e
        if first != 0.0:
            first /= size  # the first card is one of the prefix's, each equally likely
            for i in range(pre_n_values[s]):
                x = pre_values[s, i]
                out[100 + x] += first * pre_counts[s, x]
    complete = 0.0
    cards = 0.0
    for t in range(10):
        for span in range(spans):
            if mass[t, span] == 0.0:
                continue
            m = min(deal - span, PREFIX_CARDS) if budgeted else PREFIX_CARDS
            done = 0.0
            for u in range(10):
                value = mass[t, span] * cum[0, u, m]
                for x in range(N_VALUES):
                    value -= mass_by[t, span, x] * (cum[0, u, m] - cum[1 + x, u, m])
                out[t * 10 + u] += value
                complete += value
                done += cum[0, u, m]
            cards += mass_cards[t, span] * done + mass[t, span] * length[m]
    out[110] = 1.0 - complete
    out[111] = cards / complete if complete > 0.0 else 0.0


@cache
def compact_prefixes() -> tuple[np.ndarray, ...]:
    """The prefix states of :mod:`trente_env.odds` in small integers, with the values each holds:
    (counts, size, total, child, number of values present, those values)."""
    pre = _prefixes()
    present = pre.counts > 0
    values = np.full(pre.counts.shape, -1, dtype=np.int8)
    for s, row in enumerate(present):
        idx = np.flatnonzero(row)
        values[s, : idx.size] = idx
    return (
        pre.counts.astype(np.int8), pre.size.astype(np.int16), pre.total.astype(np.int16), pre.child.astype(np.int32),
        present.sum(1).astype(np.int8), values,
    )  # fmt: skip


N_OUT = 112  #: the odds as a vector: pair (100), first-card edge (10), void, cards per coup
EXACT_BOX = 50_000  #: joint states up to which :func:`shoe_odds` is exact (about the last 20 cards)
COUPLED_CARDS = 64  #: cards up to which :func:`shoe_odds` uses the coupled rows (when not exact)
COUPLED_MAX = 104  #: the most cards the coupled rows are corrected for (their nodes stop at 104)
EXACT, COUPLED, REPLACEMENT = range(3)  #: how :func:`shoe_odds` computed the odds
METHODS = ("exact", "coupled rows", "with replacement")


@numba.njit(cache=True)
def _correct(shoe, node_n, node_ref, node_corr, node_removal, out):
    """Add the finite-shoe correction: that of the two nodes bracketing the shoe's size, weighted by
    distance, each linear in the cards removed from (or added to) its node's composition."""
    n = 0
    for v in range(N_VALUES):
        n += shoe[v]
    hi = node_n.size - 1
    for i in range(node_n.size):
        if node_n[i] >= n:
            hi = i
            break
    lo = max(hi - 1, 0)
    w_hi = 1.0
    if node_n[hi] > n and hi > 0:
        w_hi = (n - node_n[lo]) / (node_n[hi] - node_n[lo])
    for node, w in ((hi, w_hi), (lo, 1.0 - w_hi)):
        if w == 0.0:
            continue
        for j in range(N_OUT):
            x = node_corr[node, j]
            for v in range(N_VALUES):
                x += node_removal[node, v, j] * (node_ref[node, v] - shoe[v])
            out[j] += w * x


@numba.njit(cache=True)
def _symmetrise(shoe, out):
    """Project approximate odds onto two exact symmetries: the pair distribution is symmetric (the
    rows' blocks of cards can be swapped) and the first-card edges add up to P(Noir) - P(Rouge) = 0
    (the excess is taken from each value in proportion to its cards, as the first card's value is)."""
    for t in range(10):
        for u in range(t + 1, 10):
            mean = (out[t * 10 + u] + out[u * 10 + t]) / 2.0
            out[t * 10 + u] = mean
            out[u * 10 + t] = mean
    excess = 0.0
    n = 0.0
    for v in range(N_VALUES):
        excess += out[100 + v]
        n += shoe[v]
    for v in range(N_VALUES):
        out[100 + v] -= excess * shoe[v] / n


@numba.njit(cache=True)
def evaluate_into(counts, dead, exact_box, coupled_cards, model, pn, joint, out):
    """The odds of the next coup from 20 counts into ``out`` (see :func:`shoe_odds`); ``pn`` and
    ``joint`` must hold ``exact_box`` and ``10 * exact_box`` numbers. Returns the method used."""
    prefixes, wr_n, wr_ref, wr_corr, wr_removal, cp_corr, cp_removal = model
    shoe = np.empty(N_VALUES, np.int64)
    size = 1
    n = 0
    for v in range(N_VALUES):
        shoe[v] = counts[v] + counts[N_VALUES + v]
        n += shoe[v]
        size *= min(shoe[v], JOINT_LIMIT // (v + 1)) + 1
    if n - dead <= 0:  # nothing left to deal: the coup is void
        out[:] = 0.0
        out[110] = 1.0
        return EXACT
    if size <= exact_box:
        _joint_odds(shoe, dead, pn, joint, out)
        return EXACT
    if n <= coupled_cards:
        _coupled(shoe, n - dead, prefixes, out)
        _correct(shoe, wr_n, wr_ref, cp_corr, cp_removal, out)
        _symmetrise(shoe, out)
        return COUPLED
    _with_replacement(shoe, n - dead, out)
    _correct(shoe, wr_n, wr_ref, wr_corr, wr_removal, out)
    _symmetrise(shoe, out)
    return REPLACEMENT


def _odds_from(out: np.ndarray, counts: np.ndarray, method: int) -> ShoeOdds:
    return ShoeOdds(
        out[:100].reshape(10, 10).copy(), float(out[110]), out[100:110].copy(), _black_share(counts),
        float(out[111]), METHODS[method],
    )  # fmt: skip


def exact_odds(counts: np.ndarray | list[int], dead: int = 0, *, method: str | None = None) -> ShoeOdds:
    """Exact odds of the next coup from the unseen cards ``counts`` (black 1..10, red 1..10), of
    which ``dead`` will not be dealt. Any shoe.

    :param method: ``"joint"`` (one pass over the joint states: fast for short shoes, its memory
        grows with :func:`box_size`) or ``"rows"`` (a Rouge row after each Noir row: seconds for a
        full shoe). Default: joint up to :data:`JOINT_EXACT` joint states, else rows.
    """
    counts, dead = check_composition(counts, dead)
    shoe = _value_counts(counts)
    size = box_size(shoe)
    if method is None:
        method = "joint" if size <= JOINT_EXACT else "rows"
    if method == "joint":
        if size > MAX_BOX:
            raise ValueError(f"this shoe has {size:,} joint states, more than {MAX_BOX:,}: use the rows method")
        out = np.zeros(N_OUT)
        _joint_odds(shoe, dead, np.empty(size), np.empty(size * 10), out)
    elif method == "rows":
        out = _rows_odds(shoe, dead)
    else:
        raise ValueError(f"unknown exact method {method!r}; choose joint or rows")
    return _odds_from(out, counts, EXACT)


JOINT_EXACT = 1_000_000  #: :func:`exact_odds` uses the joint states up to this many
MAX_BOX = 8_000_000  #: the most joint states the joint method accepts (about 700 MB)


# -- the nodes of the correction ------------------------------------------------------------------

QUARTER = np.array([1] * 9 + [4], dtype=np.int64)  #: a quarter of a pack: one of each value, four tens
#: The nodes: 13 k cards, k quarter-packs; every full shoe of 1..8 packs is one (k = 4 d).
NODE_QUARTERS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 28, 32)
NODES_FILE = Path(__file__).with_name("data") / "counting_nodes.json"
LAYOUT = "pair[10x10], first_edge[10], void, cards_per_coup"


def node_odds(quarters: int) -> dict[str, object]:
    """The exact odds (:data:`N_OUT` numbers) of a node, ``quarters`` quarter-packs, and of the node
    less one card of each value: what the corrections of the fast paths are built from."""
    ref = QUARTER * quarters
    removed = [_exact_values(ref - np.eye(N_VALUES, dtype=np.int64)[v]).tolist() for v in range(N_VALUES)]
    return {
        "cards": int(ref.sum()), "composition": ref.tolist(), "odds": _exact_values(ref).tolist(), "removed": removed,
    }  # fmt: skip


def _exact_values(shoe: np.ndarray) -> np.ndarray:
    """The exact odds vector of a shoe given by its value counts (colours do not matter to it)."""
    return _vector(exact_odds(np.concatenate([shoe, np.zeros(N_VALUES, np.int64)])))


def _vector(odds: ShoeOdds) -> np.ndarray:
    return np.concatenate([odds.pair.ravel(), odds.first_edge, [odds.p_void, odds.cards_per_coup]])


def write_nodes(quarters: tuple[int, ...] = NODE_QUARTERS, path: Path = NODES_FILE) -> None:
    """Compute the nodes (about a minute each on two cores for the larger ones) and store them in
    ``path``, keeping the nodes already there; the file is rewritten after each node."""
    table = json.loads(path.read_text()) if path.exists() else {"layout": LAYOUT, "nodes": {}}
    for k in quarters:
        table["nodes"][str(k)] = node_odds(k)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(table, indent=0) + "\n")
        tmp.replace(path)


@dataclass(frozen=True)
class Nodes:
    """The nodes' exact odds and the corrections built from them, as arrays for compiled code."""

    cards: np.ndarray  #: (K,) cards of each node
    composition: np.ndarray  #: (K, 10) value counts of each node
    exact: np.ndarray  #: (K, N_OUT) the exact odds of each node
    exact_removed: np.ndarray  #: (K, 10, N_OUT) the exact odds of each node less one card of each value
    replacement_correction: np.ndarray  #: (K, N_OUT) exact minus with-replacement odds
    replacement_removal: np.ndarray  #: (K, 10, N_OUT) how that correction changes as one card goes
    coupled_correction: np.ndarray  #: (K, N_OUT) exact minus coupled-rows odds (0 at the 13-card node)
    coupled_removal: np.ndarray  #: (K, 10, N_OUT)

    def model(self) -> tuple:
        """Everything :func:`evaluate_into` needs besides the shoe (the prefix states and the nodes)."""
        return (
            compact_prefixes(), self.cards, self.composition, self.replacement_correction, self.replacement_removal,
            self.coupled_correction, self.coupled_removal,
        )  # fmt: skip


@cache
def nodes(path: Path = NODES_FILE) -> Nodes:
    """The stored nodes, checked: the layout of the numbers and each node's composition must be what
    this code computes, else a :class:`ValueError` (rebuild with :func:`write_nodes`). The corrections
    are recomputed here from the exact odds, so they always match the approximations of this code."""
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the counting nodes {path}: {exc}") from None
    if table.get("layout") != LAYOUT or sorted(map(int, table.get("nodes", {}))) != list(NODE_QUARTERS):
        raise ValueError(f"{path} does not hold the nodes this code expects; rebuild it with write_nodes()")
    pre = compact_prefixes()
    arrays: list[list[np.ndarray]] = [[] for _ in range(8)]
    eye = np.eye(N_VALUES, dtype=np.int64)
    for k in NODE_QUARTERS:
        node = table["nodes"][str(k)]
        ref = QUARTER * k
        if node["composition"] != ref.tolist() or node["cards"] != 13 * k:
            raise ValueError(f"{path}: node {k} is not {k} quarter-packs; rebuild it with write_nodes()")
        exact = np.array(node["odds"], dtype=float)
        removed = np.array(node["removed"], dtype=float)
        if exact.shape != (N_OUT,) or removed.shape != (N_VALUES, N_OUT):
            raise ValueError(f"{path}: node {k} does not have {N_OUT} numbers per shoe; rebuild it")
        wr = [_base(ref, REPLACEMENT, pre)] + [_base(ref - eye[v], REPLACEMENT, pre) for v in range(N_VALUES)]
        if k == NODE_QUARTERS[0]:  # too short for the coupled rows' correction: none
            cp = [exact] + list(removed)
        elif 13 * k <= COUPLED_MAX:
            cp = [_base(ref, COUPLED, pre)] + [_base(ref - eye[v], COUPLED, pre) for v in range(N_VALUES)]
        else:  # never bracketing a shoe the coupled rows may take: NaN makes any misuse visible
            cp = [exact + np.nan] + [r + np.nan for r in removed]
        for i, value in enumerate((13 * k, ref, exact, removed)):
            arrays[i].append(value)
        for i, base in ((4, wr), (6, cp)):
            corr = exact - base[0]
            arrays[i].append(corr)
            arrays[i + 1].append(np.array([removed[v] - base[1 + v] - corr for v in range(N_VALUES)]))
    return Nodes(*(np.array(a) for a in arrays))


def _base(shoe: np.ndarray, method: int, pre) -> np.ndarray:
    """The uncorrected fast-path odds of a shoe (value counts), every card dealable."""
    out = np.zeros(N_OUT)
    n = int(shoe.sum())
    if method == COUPLED:
        _coupled(shoe, n, pre, out)
    else:
        _with_replacement(shoe, n, out)
    return out


def check_tiers(exact_box: int, coupled_cards: int) -> None:
    """Validate the settings of :func:`shoe_odds`; one-line :class:`ValueError` otherwise."""
    if exact_box < 0 or not 0 <= coupled_cards <= COUPLED_MAX:
        raise ValueError(
            f"need exact_box >= 0 and 0 <= coupled_cards <= {COUPLED_MAX}, got {exact_box} and {coupled_cards}"
        )


def shoe_odds(
    counts: np.ndarray | list[int],
    dead: int = 0,
    *,
    exact_box: int = EXACT_BOX,
    coupled_cards: int = COUPLED_CARDS,
) -> ShoeOdds:
    """The odds of the next coup from the unseen cards ``counts`` (black 1..10, red 1..10), of which
    ``dead`` will not be dealt. Exact for a short shoe (at most ``exact_box`` joint states, see
    :func:`box_size`: about the last 20 cards by default); else, up to ``coupled_cards`` cards (at
    most :data:`COUPLED_MAX`), the coupled rows; else with replacement; both with the nodes'
    finite-shoe correction (see the module's notes for their measured errors).
    """
    counts, dead = check_composition(counts, dead)
    check_tiers(exact_box, coupled_cards)
    size = box_size(_value_counts(counts))
    room = size if size <= exact_box else 1
    out = np.zeros(N_OUT)
    model = nodes().model()
    method = evaluate_into(counts, dead, exact_box, coupled_cards, model, np.empty(room), np.empty(room * 10), out)
    return _odds_from(out, counts, int(method))


def approximate_odds(counts: np.ndarray | list[int], dead: int = 0, *, coupled_cards: int = COUPLED_CARDS) -> ShoeOdds:
    """The fast path's odds whatever the size of the shoe (never exact): for measuring its error."""
    return shoe_odds(counts, dead, exact_box=0, coupled_cards=coupled_cards)

"""Exact odds of the next coup for any shoe, by rows: the Noir row by the walk over the 20,545 prefix
states (:mod:`.prefixes`), then, for each Noir row, the Rouge row from the table P(the first L
cards add up to s), updated card by card as the Noir row's cards leave the shoe (by exchangeability
the Rouge row ends on u with a last card l when the shoe without that l has a first run of cards
adding up to u - l <= 30). About five seconds for a full six-pack shoe.
"""

from __future__ import annotations

import numba
import numpy as np

from trente_env import jit
from trente_env.coup import REFAIT_TOTAL
from trente_env.odds.prefixes import end_rows, prefix_states
from trente_env.odds.shoe import N_VALUES, ROW_LIMIT

PREFIX_CARDS = 31  #: table rows: a prefix of total <= 30 holds at most 30 cards


@jit.kernel
def sums_table(shoe, g, lmax):
    """``g[L, s]`` = P(the first L cards of ``shoe`` (value counts) add up to s), for s <= 30 and L <=
    ``lmax`` (beyond :func:`most_cards` the table is zero).

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


@jit.kernel
def remove_card(g, n, v, out, lmax):
    """The table of :func:`sums_table` for the shoe ``g`` describes (``n`` cards) less one card of
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


@jit.kernel
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
            remove_card(a, n, v, b, PREFIX_CARDS - 1)
            a[:, :] = b
            n -= 1
    # a is now the table of the shoe left after the Noir row (n cards)
    complete = 0.0
    for last in range(N_VALUES):
        d_l = left[last]
        if d_l <= 0:
            continue
        remove_card(a, n, last, b, PREFIX_CARDS - 1)
        w = d_l / n
        for s in range(max(0, ROW_LIMIT - last), ROW_LIMIT + 1):
            u = s + last + 1
            for L in range(min(PREFIX_CARDS - 1, deal - 1) + 1):
                q = w * b[L, s]
                out[u - REFAIT_TOTAL] += q
                out[10] += q * (L + 1)
                complete += q
    out[11] = 1.0 - complete


@jit.parallel
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


def rows_odds(shoe: np.ndarray, dead: int) -> np.ndarray:
    """The odds vector (see :data:`N_OUT`) from value counts, a Rouge row computed after each Noir row."""
    n = int(shoe.sum())
    pre = prefix_states()
    row_p = np.zeros(len(pre.rows))
    row_first = np.zeros((len(pre.rows), N_VALUES))
    void = end_rows(shoe, n - dead, pre.walked(), pre.row_total, row_p, row_first, np.zeros(0))
    live = np.flatnonzero(row_p > 0)
    rouge = np.zeros((live.size, 12))
    g_full = np.empty((PREFIX_CARDS, ROW_LIMIT + 1))
    sums_table(shoe, g_full, PREFIX_CARDS - 1)
    _rouge_rows(shoe, n, n - dead, live, pre.rows, g_full, rouge, 4 * numba.get_num_threads())
    t = pre.row_total[live] - REFAIT_TOTAL
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

"""The fast approximations of the next coup's odds, for shoes too long for the joint states.

* *coupled rows* (about a millisecond): the Noir row exact and the Rouge row after it to first order
  in the Noir row's cards, ``R(shoe - A) ~ R(shoe) - sum_v A_v (R(shoe) - R(shoe less one card of
  value v))``, every ``R`` exact (totals and lengths, so void coups are counted);
* *with replacement* (a few microseconds): both rows drawn with replacement at the shoe's proportions
  (the rows' lengths tracked when fewer than 40 cards can be dealt).

Both are corrected at the tabulated exact nodes (:mod:`.nodes`, by :func:`correct`) and projected onto
two exact symmetries (:func:`symmetrise`). Their measured errors are in the notes of :mod:`trente_env.odds`.
"""

from __future__ import annotations

import numpy as np

from trente_env import jit
from trente_env.coup import REFAIT_TOTAL
from trente_env.odds.prefixes import first_ending, walk
from trente_env.odds.rows import PREFIX_CARDS, remove_card, sums_table
from trente_env.odds.shoe import N_OUT, N_VALUES, ROW_LIMIT

VOID_FREE = 40  #: with this many cards left to deal, a coup practically never runs out (< 1e-12)


@jit.kernel
def with_replacement(shoe, deal, out):
    """The coup as if every card were drawn with replacement at the shoe's proportions, each row
    stopping at 31..40; the coup is void if it needs more than ``deal`` cards (tracked only when
    ``deal < VOID_FREE``). ``out`` as in :func:`~.joint.joint_odds`."""
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
                    f[s, s + v + 1 - REFAIT_TOTAL] += p[v]
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
                g[s, 1, s + v + 1 - REFAIT_TOTAL] += p[v]
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


@jit.kernel
def most_cards(shoe):
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


@jit.kernel
def row_lengths(g, n, shoe, lmax, work, table):
    """``table[u, l]`` = P(a row dealt from ``shoe`` (value counts, ``n`` cards, sums table ``g``)
    ends on 31+u with l cards): its first l-1 cards add up to s <= 30 and the next is a card of value
    31+u-s; by exchangeability that is P(first card of that value) times P(the first l-1 cards of the
    shoe without it add up to s)."""
    table[:, :] = 0.0
    for last in range(N_VALUES):
        if shoe[last] <= 0:
            continue
        remove_card(g, n, last, work, lmax)
        w = shoe[last] / n
        for s in range(max(0, ROW_LIMIT - last), ROW_LIMIT + 1):
            u = s + last + 1 - REFAIT_TOTAL
            for cards in range(lmax + 1):
                table[u, cards + 1] += w * work[cards, s]


@jit.kernel
def coupled(shoe, deal, prefixes, out):
    """The coup with the Noir row exact and the Rouge row after it to first order in the Noir row's
    cards: ``R(shoe - A) ~ R(shoe) - sum_v A_v (R(shoe) - R(shoe less a v))``, where ``R`` is the
    Rouge row's distribution (totals and lengths, exact, :func:`row_lengths`). ``prefixes`` are the
    prefix states of :func:`~.prefixes.compact_prefixes`. ``out`` as in :func:`~.joint.joint_odds`;
    the expected cards per coup leave out the coupling."""
    pre_counts, pre_size, pre_total, _, pre_n_values, pre_values = prefixes
    n = shoe.sum()
    lmax = most_cards(shoe)
    g = np.empty((PREFIX_CARDS, ROW_LIMIT + 1))
    g_less = np.empty_like(g)
    work = np.empty_like(g)
    sums_table(shoe, g, lmax)
    rows = np.empty((N_VALUES + 1, 10, PREFIX_CARDS + 1))  # [0] the shoe, [1 + v] less a card of value v+1
    row_lengths(g, n, shoe, lmax, work, rows[0])
    less = shoe.copy()
    for v in range(N_VALUES):
        if shoe[v] > 0:
            remove_card(g, n, v, g_less, lmax)
            less[v] -= 1
            row_lengths(g_less, n - 1, less, lmax, work, rows[1 + v])
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
    chance = np.empty(pre_counts.shape[0])
    walk(shoe, deal, prefixes, chance)  # the void coups are what the complete ones leave
    out[:] = 0.0
    for s in range(pre_counts.shape[0]):
        if chance[s] == 0.0:
            continue
        size = pre_size[s]
        first = 0.0  # the first-card edge of the rows ending here, before sharing among the prefix's cards
        for v in range(first_ending(pre_total[s]), N_VALUES):
            k = shoe[v] - pre_counts[s, v]
            if k <= 0:
                continue
            q = chance[s] * k
            t = pre_total[s] + v + 1 - REFAIT_TOTAL
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


@jit.kernel
def correct(shoe, node_n, node_ref, node_corr, node_removal, out):
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


@jit.kernel
def symmetrise(shoe, out):
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

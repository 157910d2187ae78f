"""Exact odds of the next coup from a short shoe, by one pass over the joint states of the coup:
every multiset of values the coup may have taken so far, inside the shoe, with the Noir total once
that row is complete; forward for the two rows' distribution, backward for the first-card edge. Its
cost grows with ``prod(n_v + 1)`` (:func:`box_size`): a fraction of a millisecond for the last 13
cards, a few for the last 20.
"""

from __future__ import annotations

import numpy as np

from trente_env import jit
from trente_env.coup import REFAIT_TOTAL
from trente_env.odds.shoe import JOINT_LIMIT, N_VALUES, ROW_LIMIT


def box_size(shoe: np.ndarray) -> int:
    """How many joint states the joint method holds for a shoe of these value counts (its cost)."""
    caps = np.minimum(shoe, JOINT_LIMIT // np.arange(1, N_VALUES + 1))
    return int(np.prod(caps + 1, dtype=np.float64))


@jit.inline
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


@jit.inline
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


@jit.kernel
def joint_layout(shoe):
    """The mixed radix of the joint states of a shoe: (caps, strides, number of states)."""
    caps = np.empty(N_VALUES, np.int64)
    stride = np.empty(N_VALUES, np.int64)
    size_box = 1
    for v in range(N_VALUES):
        caps[v] = min(shoe[v], JOINT_LIMIT // (v + 1))
        stride[v] = size_box
        size_box *= caps[v] + 1
    return caps, stride, size_box


@jit.kernel
def joint_forward(shoe, dead, layout, pn, joint, out, ties):
    """The forward passes of :func:`joint_odds` over the joint states of ``layout`` (:func:`joint_layout`):
    the Noir row, then the Rouge row. Fills the pair distribution in ``out`` and returns (void,
    expected cards of complete coups times their chance, the last joint state reached, ties recorded).
    Every tie (après or refait) is also recorded into ``ties`` = (state, total, chance), up to the
    length of its arrays: ``10 * (joint state before its last card) + (that card's value - 1)`` (the
    last card may overflow the radix), the Noir total and the chance.
    """
    caps, stride, size_box = layout
    tie_state, tie_total, tie_p = ties
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
                            joint[(idx + stride[v]) * 10 + t - REFAIT_TOTAL] += scale * k
        done, idx, total, size = _next_state(m, caps, stride, ROW_LIMIT, idx, total, size)
    # the Rouge row: states (M, t) with t <= sum(M) <= t + 30, forward
    done, idx, total, size = False, 0, 0, 0
    last = 0
    while not done:
        if total >= 31:
            last = idx
            for t in range(max(31, total - ROW_LIMIT), min(40, total) + 1):
                p = joint[idx * 10 + t - REFAIT_TOTAL]
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
                            joint[(idx + stride[v]) * 10 + t - REFAIT_TOTAL] += q
                        else:
                            out[(t - REFAIT_TOTAL) * 10 + u - REFAIT_TOTAL] += q
                            cards += q * (size + 1)
                            if u == t and ties < tie_state.size:
                                tie_state[ties] = idx * N_VALUES + v  # the state before the last card, and it
                                tie_total[ties] = t
                                tie_p[ties] = q
                                ties += 1
        done, idx, total, size = _next_state(m, caps, stride, JOINT_LIMIT, idx, total, size)
    return void, cards, last, ties


@jit.kernel
def joint_odds(shoe, dead, pn, joint, out):
    """The coup from a short shoe by one pass over its joint states (the joint method of
    :func:`exact_odds`).

    A joint state is a multiset ``M`` of values inside the shoe (the cards dealt so far), indexed in
    mixed radix (``m_v`` cards of value v+1, at most ``caps[v]``). While the Noir row is dealt (total
    of ``M`` at most 30) its chance is in ``pn[index]``; once the Noir row ended on ``t`` the chance
    of (M, t) is in ``joint[index * 10 + t - REFAIT_TOTAL]`` (the Rouge row's running total is ``sum(M) - t``).
    Adding a card of value v+1 moves the index up by ``stride[v]``, so increasing indices are a
    topological order. ``out`` receives the pair distribution (100), the first-card edge (10), the
    chance of a void coup and the expected cards of a complete coup.
    """
    layout = joint_layout(shoe)
    caps, stride, size_box = layout
    n = shoe.sum()
    deal = n - dead
    m = np.zeros(N_VALUES, np.int64)
    none = np.empty(0, np.int64)
    void, cards, last, _ = joint_forward(shoe, dead, layout, pn, joint, out, (none, none, np.empty(0)))
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
            slot = idx * 10 + t - REFAIT_TOTAL
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
                            h += scale * k * joint[(idx + stride[v]) * 10 + t - REFAIT_TOTAL]
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
                    g = scale * k * joint[(idx + stride[v]) * 10 + t - REFAIT_TOTAL] / size
                    for u in range(N_VALUES):
                        out[100 + u] += g * m[u]
        done, idx, total, size = _next_state(m, caps, stride, ROW_LIMIT, idx, total, size)
    complete = 0.0
    for i in range(100):
        complete += out[i]
    out[110] = void
    out[111] = cards / complete if complete > 0.0 else 0.0

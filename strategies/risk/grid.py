"""The exact risk chain over a dense money grid: the fast engine of :mod:`strategies.risk` (the grid chain).

A session's state splits in two parts. The **class** is everything but the money: the system's
state row (canonical, counters out), the prisoners, the decision taken for the next coup and, at a
rigged table, the last result. The **money** is a point of a grid of step ``g`` (a quarter of a unit
for the classic rules: every stake is whole and every payout a multiple of a quarter of it). Each
class holds a dense vector of probabilities over a window of the grid.

**Why it is exact and fast.** The table settles a decision the same way whatever the money in hand
(the stake was made legal for it when decided), so a coup's outcome moves a whole window by one
shift. The system's next decision reads the money only through a few thresholds, each crossed once
as the money grows (:func:`strategies.kernel.step`: the walk-away against the session's start, and
a stake against what the bankroll covers), so over each side of the starting bankroll the money
values that decide alike form runs: the chain finds each run's end by galloping and bisection over
the system's own decision (:func:`~strategies.risk.states.decide`, the same code as the state
chain), and moves the run as
a block. Below the stake the system wants every whole unit decides differently; those runs are one
point long, as in the sparse chain.

:func:`plan` walks every class and outcome and writes the moves; :func:`apply` carries them out.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from strategies.risk.states import STAKED, Decision, Shown, System, canonical, decide, find
from trente_env import jit
from trente_env.codes import ACTION_WIDTH, PRISON_SIZE, scoreboard_couleur
from trente_env.croupier import bet_and_settle, is_ruined

#: A class's floats: the prisoners (first and second prison of each box), then the decision's action row.
CLASS_FLOATS = PRISON_SIZE + ACTION_WIDTH
#: The columns of a move: its class, the first and the end (exclusive) of its money indices, the
#: shift of the money index, and the class it goes to (-1: the session ends there).
SRC, FIRST, END, SHIFT, DST = range(5)
#: What :func:`plan` returns beside its counts.
OK, NO_ROOM, OFF_GRID = range(3)

__all__ = ["CLASS_FLOATS", "NO_ROOM", "OFF_GRID", "OK", "Grid", "Held", "Next", "apply", "plan", "prefix", "trim"]


class Grid(NamedTuple):
    """The money grid a session's chain runs on."""

    step: float  #: the grid's step: money ``x`` is index ``x / step``
    start_at: int  #: the grid index of the start
    ruin_below: int  #: the first grid index at or above the table minimum


class Held(NamedTuple):
    """The classes held before a coup: class ``i`` is row ``i`` of ``keys`` (its state row and last
    result) and ``values`` (prisoners, decision), with its window of ``ln[i]`` grid points from index
    ``lo[i]``, whose probabilities start at ``off[i]`` of the pool and whose running sums start at
    ``off[i] + i`` of ``pref``."""

    keys: np.ndarray
    values: np.ndarray
    lo: np.ndarray
    ln: np.ndarray
    off: np.ndarray
    pref: np.ndarray


class Next(NamedTuple):
    """Where :func:`plan` writes: the classes after the coup (found through the hash table
    ``hashes``; windows from ``lo`` to ``hi``), the moves and their factors, the expectations."""

    hashes: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    moves: np.ndarray
    factors: np.ndarray
    acc: np.ndarray


@jit.kernel
def prefix(pool, off, ln, n, out):
    """Running sums of each class's window: ``out[off[i] + i + t]`` is the mass of its first ``t`` points."""
    for i in range(n):
        total = 0.0
        base = off[i] + i
        out[base] = 0.0
        for t in range(ln[i]):
            total += pool[off[i] + t]
            out[base + t + 1] = total


@jit.kernel
def _probe(keys, i, s, system, start, shown, branch, out):
    """The system's decision for what is ``shown`` from class ``i``'s row (:func:`~strategies.risk.states.decide`,
    weighing nothing): into ``s`` and ``out``'s action row."""
    for x in range(s.size):
        s[x] = keys[i, x]
    return decide(s, system, start, shown, branch, out, 0.0)


@jit.kernel
def _alike(over_a, s_a, action_a, over_b, s_b, action_b):
    if over_a != over_b:
        return False
    for x in range(s_a.size):
        if s_a[x] != s_b[x]:
            return False
    for x in range(action_a.size):  # noqa: SIM110
        if action_a[x] != action_b[x]:
            return False
    return True


@jit.kernel
def _move(moves, factors, r, move, factor):
    """Write a move, (src, first, end, shift, dst), as row ``r`` (``False``: no room left)."""
    if r >= moves.shape[0]:
        return False
    src, first, end, shift, dst = move
    moves[r, SRC] = src
    moves[r, FIRST] = first
    moves[r, END] = end
    moves[r, SHIFT] = shift
    moves[r, DST] = dst
    factors[r] = factor
    return True


@jit.kernel
def _shown_at(shown, money):
    """What is ``shown``, with ``money`` in hand."""
    return Shown(money, shown.coup, shown.coups, shown.last_result, shown.last_couleur, shown.prison)


@jit.kernel
def plan(game, grid, held, n, c, out):
    """Coup ``c`` for every class: settle its decision on each outcome (a shift of its window), end the
    sessions ruined, and split what is left into runs of money that decide the next coup alike, each
    a move to the class it leads to: from the ``n`` classes ``held`` (:class:`Held`) into ``out``
    (:class:`Next`), playing ``game`` (:class:`~strategies.risk.states.Game`) on ``grid``
    (:class:`Grid`). Returns (status, classes, moves, first and last money index where a session
    ends); status :data:`OK`, :data:`NO_ROOM` (more classes or moves than the arrays hold) or
    :data:`OFF_GRID` (a payout off the grid)."""
    step, start_at, ruin_below = grid.step, grid.start_at, grid.ruin_below
    keys, values, lo, ln, off, pref = held.keys, held.values, held.lo, held.ln, held.off, held.pref
    moves, factors, acc = out.moves, out.factors, out.acc
    width = keys.shape[1] - 1
    state = np.empty(width, np.int64)  # a state row, decided
    first_state = np.empty(width, np.int64)  # the state row decided at a run's first money
    row = np.empty(width + 1, np.int64)  # a class's key: its state row and the last result
    floats = np.empty(CLASS_FLOATS)  # a class's floats: prisoners, then its decision
    first_action = np.empty(ACTION_WIDTH)
    prison = np.zeros((4, 2))
    check = np.zeros((4, 2))
    seen = np.zeros(PRISON_SIZE)
    slips = (np.zeros(4), np.zeros(4, np.bool_), np.zeros(4))  # placed, insured, back
    placed = slips[0]
    probed = Decision(np.empty(ACTION_WIDTH), seen, np.zeros(acc.size))  # a probe adds up nothing
    first_probed = Decision(first_action, seen, probed.acc)
    decided = Decision(floats[PRISON_SIZE:], seen, acc)
    system = System(game.ints, game.ints.copy(), game.floats)
    board = np.empty(1, np.int64)
    out.hashes[:] = -1
    classes = 0
    written = 0
    end_lo, end_hi = np.int64(2**62), np.int64(-1)
    for i in range(n):
        base = off[i] + i
        mass = pref[base + ln[i]] - pref[base]
        top = lo[i] + ln[i] - 1
        decision = values[i, PRISON_SIZE:]  # the class's decision for this coup
        for o in range(game.outcomes.shape[0]):
            result = int(game.outcomes[o, 0])
            couleur = game.outcomes[o, 1] != 0.0
            p = game.outcomes[o, 2]
            # settle at both ends of the window: the same move for every money value in it
            for b in range(4):
                prison[b, 0] = values[i, 2 * b]
                prison[b, 1] = values[i, 2 * b + 1]
                check[b, 0] = prison[b, 0]
                check[b, 1] = prison[b, 1]
            board[0] = keys[i, width]
            after, _ = bet_and_settle(decision, lo[i] * step, prison, result, couleur, board, game.table, slips)
            moved = (after - lo[i] * step) / step
            shift = int(np.round(moved))
            if abs(moved - shift) > 1e-9:
                return OFF_GRID, classes, written, end_lo, end_hi
            high, _ = bet_and_settle(decision, top * step, check, result, couleur, board, game.table, slips)
            if high - top * step != after - lo[i] * step:
                raise ValueError("plan: a decision settles differently across its class's money")
            for b in range(4):
                if (check[b, 0] != prison[b, 0]) | (check[b, 1] != prison[b, 1]):
                    raise ValueError("plan: a decision's prisoners differ across its class's money")
            acc[STAKED] += p * mass * (placed[0] + placed[1] + placed[2] + placed[3])
            first, last = lo[i] + shift, top + shift  # the window after the coup (inclusive)
            if is_ruined(first * step, game.table.table_min, prison):  # the session is over
                ruined = min(last, ruin_below - 1)
                if not _move(moves, factors, written, (i, first - shift, ruined - shift + 1, shift, -1), p):
                    return NO_ROOM, classes, written, end_lo, end_hi
                written += 1
                end_lo, end_hi = min(end_lo, first), max(end_hi, ruined)
                first = ruined + 1
            shown = Shown(0.0, c + 1, game.coups, result, scoreboard_couleur(result, couleur), prison)
            for br in range(game.branches.shape[0]):
                q = p * game.branches[br, 1]
                if (q == 0.0) | (first > last):
                    continue
                branch = int(game.branches[br, 0])
                at = first
                while at <= last:
                    side = last if at >= start_at else min(last, start_at - 1)  # a run stays on one side
                    here = _shown_at(shown, at * step)
                    over = _probe(keys, i, first_state, system, game.start, here, branch, first_probed)
                    # the run's end: the far end first (alike at both ends: alike all through, the
                    # module's notes), then galloping from ``at``, then bisecting once a probe differs
                    good, bad, stride, probe, galloping = at, side + 1, 1, side, True  # alike to good, not at bad
                    while bad - good > 1:
                        there = _shown_at(shown, probe * step)
                        alike = _probe(keys, i, state, system, game.start, there, branch, probed)
                        if _alike(over, first_state, first_action, alike, state, probed.action):
                            good = probe
                            stride *= 2
                        else:
                            galloping = galloping & (probe == side) & (bad == side + 1)  # the far end's miss
                            bad = probe
                        probe = good + stride if galloping & (good + stride < bad) else (good + bad) // 2
                    end = good
                    weight = q * (pref[base + end - shift - lo[i] + 1] - pref[base + at - shift - lo[i]])
                    for x in range(width):  # the run's decision, its expected counts weighted by its mass
                        state[x] = keys[i, x]
                    if decide(state, system, game.start, here, branch, decided, weight):
                        if not _move(moves, factors, written, (i, at - shift, end - shift + 1, shift, -1), q):
                            return NO_ROOM, classes, written, end_lo, end_hi
                        end_lo, end_hi = min(end_lo, at), max(end_hi, end)
                    else:
                        canonical(state, game.line)
                        for x in range(width):
                            row[x] = state[x]
                        row[width] = result if game.rigged else 0  # only a rigged table reads the last result
                        for b in range(4):
                            floats[2 * b] = prison[b, 0]
                            floats[2 * b + 1] = prison[b, 1]
                        j = find(row, floats, out.hashes, out.keys, out.values, classes)
                        if j < 0:
                            return NO_ROOM, classes, written, end_lo, end_hi
                        if j == classes:
                            classes += 1
                            out.lo[j] = at
                            out.hi[j] = end
                        out.lo[j] = min(out.lo[j], at)
                        out.hi[j] = max(out.hi[j], end)
                        if not _move(moves, factors, written, (i, at - shift, end - shift + 1, shift, j), q):
                            return NO_ROOM, classes, written, end_lo, end_hi
                    written += 1
                    at = end + 1
    return OK, classes, written, end_lo, end_hi


@jit.kernel
def apply(old, plan, new, final, final_lo):
    """Carry out the ``r`` moves of :func:`plan` (``plan``: moves, factors, r) from the classes ``old``
    into the classes ``new`` (each: pool, lo, off), and into ``final`` (the probability of ending a
    session at each money index from ``final_lo`` on)."""
    pool, lo, off = old
    moves, factors, r = plan
    new_pool, new_lo, new_off = new
    for x in range(r):
        src, first, end, shift, dst = moves[x, SRC], moves[x, FIRST], moves[x, END], moves[x, SHIFT], moves[x, DST]
        factor = factors[x]
        at = off[src] - lo[src]
        if dst >= 0:
            to = new_off[dst] - new_lo[dst] + shift
            for j in range(first, end):
                new_pool[to + j] += pool[at + j] * factor
        else:
            to = shift - final_lo
            for j in range(first, end):
                final[to + j] += pool[at + j] * factor


@jit.kernel
def trim(pool, lo, ln, off, n, keep):
    """Narrow each class's window to its points of positive probability, moving the pool down to
    close the gaps (in place); ``keep[i]``: whether class ``i`` holds any. Returns the pool's new size."""
    size = 0
    for i in range(n):
        a, b = 0, ln[i]
        while (a < b) and (pool[off[i] + a] <= 0.0):
            a += 1
        while (b > a) and (pool[off[i] + b - 1] <= 0.0):
            b -= 1
        keep[i] = b > a
        start = off[i]
        lo[i] += a
        ln[i] = b - a
        off[i] = size
        for t in range(b - a):
            pool[size + t] = pool[start + a + t]
        size += b - a
    return size

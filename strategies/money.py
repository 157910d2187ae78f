"""The exact risk chain over a dense money grid: the fast engine of :mod:`strategies.risk`.

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
the system's own decision (:func:`decide`, the same code as the sparse chain), and moves the run as
a block. Below the stake the system wants every whole unit decides differently; those runs are one
point long, as in the sparse chain.

:func:`plan` walks every class and outcome and writes the moves; :func:`apply` carries them out.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from strategies.risk_states import STAKED, canonical, decide, hash_state
from trente_env import jit
from trente_env.codes import ACTION_WIDTH, PRISON_SIZE, scoreboard_couleur
from trente_env.croupier import bet_and_settle, is_free

#: A class's floats: the prisoners (first and second prison of each box), then the decision's action row.
CLASS_FLOATS = PRISON_SIZE + ACTION_WIDTH
#: The columns of a move: its class, the first and the end (exclusive) of its money indices, the
#: shift of the money index, and the class it goes to (-1: the session ends there).
SRC, FIRST, END, SHIFT, DST = range(5)
#: What :func:`plan` returns beside its counts.
OK, NO_ROOM, OFF_GRID = range(3)

__all__ = ["CLASS_FLOATS", "NO_ROOM", "OFF_GRID", "OK", "Game", "Held", "Next", "apply", "plan", "prefix", "trim"]


class Game(NamedTuple):
    """What every coup of a session's chain is played with."""

    k: np.ndarray  #: the system's int parameters (:meth:`~strategies.base.Strategy.kernel_params`)
    f: np.ndarray  #: its float parameters
    table: object  #: the table's :class:`~trente_env.croupier.TableRules`
    coups: int  #: the session's coups
    start: float  #: the session's starting bankroll, as the system sees it
    g: float  #: the money grid's step
    start_at: int  #: the grid index of the start
    ruin_below: int  #: the first grid index at or above the table minimum
    branches: np.ndarray  #: the system's choice as chance: (box, probability) rows
    outcomes: np.ndarray  #: a coup's (result, couleur, probability) rows
    line: bool  #: a Labouchère line in the state row
    rigged: bool  #: the table reads the last result


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
def _find(row, floats, table, keys, values, m):
    """The index of the class (``row``, ``floats``) among the ``m`` held (added if new; -1: no room)."""
    mask = np.uint64(table.size - 1)
    h = hash_state(row, floats) & mask
    while True:
        j = table[h]
        if j < 0:
            if m >= keys.shape[0]:
                return -1
            table[h] = m
            keys[m] = row
            values[m] = floats
            return m
        same = True
        for c in range(row.size):
            if keys[j, c] != row[c]:
                same = False
                break
        if same:
            for c in range(floats.size):
                if values[j, c] != floats[c]:
                    same = False
                    break
        if same:
            return j
        h = (h + np.uint64(1)) & mask


@jit.kernel
def _probe(keys, i, s, system, start, coup, branch, out):
    """The system's decision for ``coup`` from class ``i``'s row (:func:`~strategies.risk_states.decide`,
    weighing nothing): into ``s`` and ``out``'s action row."""
    for x in range(s.size):
        s[x] = keys[i, x]
    return decide(s, system, start, coup, branch, out, 0.0)


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
def plan(game, held, n, c, out):
    """Coup ``c`` for every class: settle its decision on each outcome (a shift of its window), end the
    sessions ruined, and split what is left into runs of money that decide the next coup alike, each
    a move to the class it leads to: from the ``n`` classes ``held`` (:class:`Held`) into ``out``
    (:class:`Next`), under ``game`` (:class:`Game`). Returns (status, classes, moves,
    first and last money index where a session ends); status :data:`OK`, :data:`NO_ROOM` (more
    classes or moves than the arrays hold) or :data:`OFF_GRID` (a payout off the grid)."""
    k, f, table, coups, start, g = game.k, game.f, game.table, game.coups, game.start, game.g
    start_at, ruin_below, branches, outcomes, line, rigged = (
        game.start_at, game.ruin_below, game.branches, game.outcomes, game.line, game.rigged
    )  # fmt: skip
    keys, values, lo, ln, off, pref = held.keys, held.values, held.lo, held.ln, held.off, held.pref
    hashes, new_keys, new_values, new_lo, new_hi = out.hashes, out.keys, out.values, out.lo, out.hi
    moves, factors, acc = out.moves, out.factors, out.acc
    width = keys.shape[1] - 1
    s = np.empty(width, np.int64)
    first_s = np.empty(width, np.int64)
    row = np.empty(width + 1, np.int64)
    floats = np.empty(CLASS_FLOATS)
    action = np.empty(ACTION_WIDTH)
    first_action = np.empty(ACTION_WIDTH)
    prison = np.zeros((4, 2))
    check = np.zeros((4, 2))
    seen = np.zeros(PRISON_SIZE)
    placed = np.zeros(4)
    insured = np.zeros(4, np.bool_)
    back = np.zeros(4)
    slips = (placed, insured, back)
    scratch = np.zeros(acc.size)
    own = k.copy()
    system = (k, own, f)
    board = np.empty(1, np.int64)
    hashes[:] = -1
    m = 0
    r = 0
    end_lo, end_hi = np.int64(2**62), np.int64(-1)
    for i in range(n):
        base = off[i] + i
        mass = pref[base + ln[i]] - pref[base]
        top = lo[i] + ln[i] - 1
        held = values[i, PRISON_SIZE:]
        for o in range(outcomes.shape[0]):
            result = int(outcomes[o, 0])
            couleur = outcomes[o, 1] != 0.0
            p = outcomes[o, 2]
            # settle at both ends of the window: the same move for every money value in it
            for b in range(4):
                prison[b, 0] = values[i, 2 * b]
                prison[b, 1] = values[i, 2 * b + 1]
                check[b, 0] = prison[b, 0]
                check[b, 1] = prison[b, 1]
            board[0] = keys[i, width]
            after, _ = bet_and_settle(held, lo[i] * g, prison, result, couleur, board, table, slips)
            x = (after - lo[i] * g) / g
            shift = int(np.round(x))
            if abs(x - shift) > 1e-9:
                return OFF_GRID, m, r, end_lo, end_hi
            high, _ = bet_and_settle(held, top * g, check, result, couleur, board, table, slips)
            if high - top * g != after - lo[i] * g:
                raise ValueError("plan: a decision settles differently across its class's money")
            for b in range(4):
                if (check[b, 0] != prison[b, 0]) | (check[b, 1] != prison[b, 1]):
                    raise ValueError("plan: a decision's prisoners differ across its class's money")
            acc[STAKED] += p * mass * (placed[0] + placed[1] + placed[2] + placed[3])
            a, z = lo[i] + shift, top + shift  # the window after the coup (inclusive)
            if is_free(prison) & (a < ruin_below):  # ruined: the session is over
                e = min(z, ruin_below - 1)
                if not _move(moves, factors, r, (i, a - shift, e - shift + 1, shift, -1), p):
                    return NO_ROOM, m, r, end_lo, end_hi
                r += 1
                end_lo, end_hi = min(end_lo, a), max(end_hi, e)
                a = e + 1
            shown = scoreboard_couleur(result, couleur)
            for br in range(branches.shape[0]):
                q = p * branches[br, 1]
                if (q == 0.0) | (a > z):
                    continue
                branch = int(branches[br, 0])
                cur = a
                while cur <= z:
                    side = z if cur >= start_at else min(z, start_at - 1)
                    coup = (cur * g, c + 1, coups, result, shown, prison)
                    over = _probe(keys, i, first_s, system, start, coup, branch, (first_action, seen, scratch))
                    # the run's end: the far end first (alike at both ends: alike all through, the
                    # module's notes), then galloping from cur, then bisecting once a probe differs
                    good, bad, stride, t, galloping = cur, side + 1, 1, side, True  # alike up to good, not at bad
                    while bad - good > 1:
                        coup = (t * g, c + 1, coups, result, shown, prison)
                        alike = _probe(keys, i, s, system, start, coup, branch, (action, seen, scratch))
                        if _alike(over, first_s, first_action, alike, s, action):
                            good = t
                            stride *= 2
                        else:
                            galloping = galloping & (t == side) & (bad == side + 1)  # the far end's miss: gallop on
                            bad = t
                        t = good + stride if galloping & (good + stride < bad) else (good + bad) // 2
                    e = good
                    w = q * (pref[base + e - shift - lo[i] + 1] - pref[base + cur - shift - lo[i]])
                    for x2 in range(width):  # the run's decision, its expected counts weighted by its mass
                        s[x2] = keys[i, x2]
                    coup = (cur * g, c + 1, coups, result, shown, prison)
                    over = decide(s, system, start, coup, branch, (floats[PRISON_SIZE:], seen, acc), w)
                    if over:
                        if not _move(moves, factors, r, (i, cur - shift, e - shift + 1, shift, -1), q):
                            return NO_ROOM, m, r, end_lo, end_hi
                        end_lo, end_hi = min(end_lo, cur), max(end_hi, e)
                    else:
                        canonical(s, line)
                        for x2 in range(width):
                            row[x2] = s[x2]
                        row[width] = result if rigged else 0  # only a rigged table reads the last result
                        for b in range(4):
                            floats[2 * b] = prison[b, 0]
                            floats[2 * b + 1] = prison[b, 1]
                        j = _find(row, floats, hashes, new_keys, new_values, m)
                        if j < 0:
                            return NO_ROOM, m, r, end_lo, end_hi
                        if j == m:
                            m += 1
                            new_lo[j] = cur
                            new_hi[j] = e
                        new_lo[j] = min(new_lo[j], cur)
                        new_hi[j] = max(new_hi[j], e)
                        if not _move(moves, factors, r, (i, cur - shift, e - shift + 1, shift, j), q):
                            return NO_ROOM, m, r, end_lo, end_hi
                    r += 1
                    cur = e + 1
    return OK, m, r, end_lo, end_hi


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

"""The exact risk chain's states, one by one: what both chains share, and the sparse chain.

A state is the system's state row (canonical, its counters out: :func:`canonical`), the money in
hand, the prisoners, the decision taken for the next coup and, at a rigged table, the last result.
Both chains play a :class:`Game`; :func:`decide` is the system's own compiled decision
(:func:`strategies.kernel.step`) from what the table shows (:class:`Shown`), into a
:class:`Decision`; :func:`find` is the one table of states (open addressing on :func:`hash_state`).
:func:`advance` takes every state through one coup, merging equal states. It is exact for any
rules; :mod:`strategies.risk.grid` is the fast chain for money on a grid.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from strategies import kernel
from strategies.kernel import Kind
from trente_env import jit
from trente_env.codes import ACTION_WIDTH, PRISON_SIZE, scoreboard_couleur
from trente_env.croupier import bet_and_settle, is_ruined

#: The counters of a state row that decide nothing: taken out after each coup (their expectations kept).
COUNTERS = (kernel.TABLE_MAX_HITS, kernel.BANKROLL_HITS, kernel.CYCLES, kernel.EPISODES, kernel.COUP)
#: Expectations added up coup by coup: stakes, coups played, table-maximum hits, bankroll hits.
STAKED, PLAYED, TABLE_HITS, BANK_HITS = range(4)


#: A state's floats: the money in hand, the prisoners (first and second prison of each box), the action row.
MONEY, PRISONERS, ACTION = 0, 1, 9
N_FLOATS = ACTION + ACTION_WIDTH


class Game(NamedTuple):
    """What every coup of a session's chain is played with (both chains)."""

    ints: np.ndarray  #: the system's int parameters (:meth:`~strategies.base.Strategy.kernel_params`)
    floats: np.ndarray  #: its float parameters
    table: object  #: the table's :class:`~trente_env.croupier.TableRules`
    coups: int  #: the session's coups
    start: float  #: the session's starting bankroll, as the system sees it
    branches: np.ndarray  #: the system's choice as chance: (box, probability) rows, box -2 for its own
    outcomes: np.ndarray  #: a coup's (result, couleur, probability) rows
    line: bool  #: a Labouchère line in the state row
    rigged: bool  #: the table reads the last result


class System(NamedTuple):
    """The system that decides: its parameters, and a copy of its int parameters that the random
    bettor's draw (a branch) turns into a flat stake on the drawn box."""

    ints: np.ndarray
    draw: np.ndarray
    floats: np.ndarray


class Shown(NamedTuple):
    """What the table shows the system before coup ``coup`` (counted from 0) of ``coups``."""

    money: float  #: the money in hand
    coup: int
    coups: int
    last_result: int  #: the last coup's result code
    last_couleur: int  #: the last coup's couleur on the scoreboard
    prison: np.ndarray  #: (4, 2) the prisoners


class Decision(NamedTuple):
    """Where :func:`decide` writes: the action row, the prisoners as the system reads them, and the
    expectations (:data:`STAKED` ...) it adds the coup to."""

    action: np.ndarray
    seen: np.ndarray
    acc: np.ndarray


class States(NamedTuple):
    """States held: each a row of ``keys`` (the state row and the last result) and of ``values``
    (:data:`MONEY`, :data:`PRISONERS`, :data:`ACTION`), with its probability."""

    keys: np.ndarray
    values: np.ndarray
    probs: np.ndarray


class Advanced(NamedTuple):
    """Where :func:`advance` writes: the states after the coup (found through the table ``hashes``),
    the sessions that ended (their money and probability), and the expectations."""

    hashes: np.ndarray
    states: States
    done_money: np.ndarray
    done_probs: np.ndarray
    acc: np.ndarray


@jit.kernel
def hash_state(row, floats):
    """A well-mixed 64-bit hash of a state: its int64 row and its floats (to a millionth of a unit:
    equal states hash alike; the rare others are told apart by comparing them whole). Each number is
    folded in through SplitMix64's finaliser (:func:`strategies.kernel.mix`)."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for x in row:
        h = kernel.mix(h ^ np.uint64(x)) + np.uint64(0x9E3779B97F4A7C15)
    for x in floats:
        h = kernel.mix(h ^ np.uint64(np.int64(x * 1048576.0))) + np.uint64(0x9E3779B97F4A7C15)
    return h


@jit.kernel
def find(row, floats, table, keys, values, m):
    """The index of the state (``row``, ``floats``) among the ``m`` held (``keys``, ``values``, found
    through the open-addressing ``table``): its equal's if held, else ``m``, where it is added (-1:
    no room left). The one table of states of both chains."""
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
def canonical(s, line):
    """Take the counters out of a state row, and shift a Labouchère line to the row's start with
    nothing left behind its end: rows that play alike become equal."""
    for c in COUNTERS:
        s[c] = 0
    if line:
        lo, hi = s[kernel.LO], s[kernel.HI]
        for i in range(s.size - kernel.LINE):
            src = lo + i
            s[kernel.LINE + i] = s[kernel.LINE + src] if src < hi else 0
        s[kernel.HI] = hi - lo
        s[kernel.LO] = 0


@jit.kernel
def decide(s, system, start, shown, branch, out, p):
    """The ``system``'s decision (:class:`System`) for the coup from the state row ``s`` (updated)
    and what the table shows (:class:`Shown`), by its own :func:`strategies.kernel.step`; ``branch``
    >= -1: the random bettor's draw, a box or none. Writes ``out`` (:class:`Decision`); returns
    whether the session is over (no more bets, and no prisoner left to settle). Adds the coup's
    expected counts, weighted by ``p``, to ``out.acc``."""
    action, seen, acc = out.action, out.seen, out.acc
    prison = shown.prison
    action[:] = 0.0
    free = True
    for b in range(4):
        seen[b] = prison[b, 0]
        seen[4 + b] = prison[b, 1]
        if (prison[b, 0] != 0.0) | (prison[b, 1] != 0.0):
            free = False
    if (shown.coup >= shown.coups) | (s[kernel.WALKED] != 0):
        return free
    params = system.ints
    if branch >= -1:
        system.draw[kernel.K_KIND] = Kind.FLAT
        system.draw[kernel.K_BOX] = branch
        params = system.draw
    table_hits = s[kernel.TABLE_MAX_HITS]
    bank_hits = s[kernel.BANKROLL_HITS]
    view = (shown.money, shown.coup, shown.last_result, shown.last_couleur, seen)
    kernel.step(s, params, system.floats, start, view, shown.coup == 0, 0, action)
    if s[kernel.WALKED] != 0:
        action[:] = 0.0
        return free
    acc[TABLE_HITS] += p * (s[kernel.TABLE_MAX_HITS] - table_hits)
    acc[BANK_HITS] += p * (s[kernel.BANKROLL_HITS] - bank_hits)
    acc[PLAYED] += p
    return False


@jit.kernel
def advance(held, n, game, c, out):
    """Coup ``c`` for every one of the first ``n`` states ``held`` (:class:`States`), each holding the
    decision for it: the table settles the action for each outcome of the ``game``'s coup, then the
    system decides the next coup. Into ``out`` (:class:`Advanced`): a session that ends goes to the
    ``done`` rows (its money and probability); the others are merged into ``out.states``.
    Returns (states, done)."""
    keys, values, probs = held.keys, held.values, held.probs
    new = out.states
    width = keys.shape[1] - 1
    s = np.empty(width, np.int64)
    row = np.empty(width + 1, np.int64)
    floats = np.empty(N_FLOATS)
    prison = np.zeros((4, 2))
    decision = Decision(floats[ACTION:], np.zeros(PRISON_SIZE), out.acc)
    slips = (np.zeros(4), np.zeros(4, np.bool_), np.zeros(4))  # placed, insured, back
    placed = slips[0]
    system = System(game.ints, game.ints.copy(), game.floats)
    board = np.empty(1, np.int64)  # the scoreboard the table reads: the last coup (a rigged table's pattern)
    out.hashes[:] = -1
    m = 0
    d = 0
    for i in range(n):
        last = keys[i, width]
        money = values[i, MONEY]
        action = values[i, ACTION:]
        for o in range(game.outcomes.shape[0]):
            result = int(game.outcomes[o, 0])
            couleur = game.outcomes[o, 1] != 0.0
            p = probs[i] * game.outcomes[o, 2]
            for b in range(4):
                prison[b, 0] = values[i, PRISONERS + 2 * b]
                prison[b, 1] = values[i, PRISONERS + 2 * b + 1]
            board[0] = last
            after, _ = bet_and_settle(action, money, prison, result, couleur, board, game.table, slips)
            out.acc[STAKED] += p * (placed[0] + placed[1] + placed[2] + placed[3])
            if is_ruined(after, game.table.table_min, prison):  # the session is over
                out.done_money[d] = after
                out.done_probs[d] = p
                d += 1
                continue
            shown = Shown(after, c + 1, game.coups, result, scoreboard_couleur(result, couleur), prison)
            for br in range(game.branches.shape[0]):
                q = p * game.branches[br, 1]
                if q == 0.0:
                    continue
                for x in range(width):
                    s[x] = keys[i, x]
                if decide(s, system, game.start, shown, int(game.branches[br, 0]), decision, q):
                    out.done_money[d] = after
                    out.done_probs[d] = q
                    d += 1
                    continue
                canonical(s, game.line)
                for x in range(width):
                    row[x] = s[x]
                row[width] = result if game.rigged else 0  # only a rigged table reads the last result
                floats[MONEY] = after
                for b in range(4):
                    floats[PRISONERS + 2 * b] = prison[b, 0]
                    floats[PRISONERS + 2 * b + 1] = prison[b, 1]
                j = find(row, floats, out.hashes, new.keys, new.values, m)
                if j < 0:
                    raise ValueError("advance: more states than the arrays hold")
                if j == m:
                    new.probs[j] = q
                    m += 1
                else:
                    new.probs[j] += q
    return m, d

"""The exact risk chain's states, one by one: the kernels both chains share, and the sparse chain.

A state is the system's state row (canonical, its counters out: :func:`canonical`), the money in
hand, the prisoners, the decision taken for the next coup and, at a rigged table, the last result.
:func:`decide` is the system's own compiled decision (:func:`strategies.kernel.step`);
:func:`advance` takes every state through one coup, merging equal states in a hash table. It is
exact for any rules; :mod:`strategies.money` is the fast chain for money on a grid.
"""

from __future__ import annotations

import numpy as np

from strategies import kernel
from strategies.kernel import Kind
from trente_env import jit
from trente_env.codes import ACTION_WIDTH, PRISON_SIZE, scoreboard_couleur
from trente_env.croupier import bet_and_settle, is_free

#: The counters of a state row that decide nothing: taken out after each coup (their expectations kept).
COUNTERS = (kernel.TABLE_MAX_HITS, kernel.BANKROLL_HITS, kernel.CYCLES, kernel.EPISODES, kernel.COUP)
#: Expectations added up coup by coup: stakes, coups played, table-maximum hits, bankroll hits.
STAKED, PLAYED, TABLE_HITS, BANK_HITS = range(4)


#: A state's floats: the money in hand, the prisoners (first and second prison of each box), the action row.
MONEY, PRISONERS, ACTION = 0, 1, 9
N_FLOATS = ACTION + ACTION_WIDTH


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
def insert(row, floats, p, table, keys, values, probs, m):
    """Add the state (``row``, ``floats``) with probability ``p`` to the ``m`` states held (``keys``,
    ``values``, ``probs``, found through the open-addressing ``table``): to its equal if held, else as a
    new one. Returns the number of states held."""
    mask = np.uint64(table.size - 1)
    h = hash_state(row, floats) & mask
    width, n_floats = row.size, floats.size
    while True:
        j = table[h]
        if j < 0:
            table[h] = m
            keys[m] = row
            values[m] = floats
            probs[m] = p
            return m + 1
        same = True
        for c in range(width):
            if keys[j, c] != row[c]:
                same = False
                break
        if same:
            for c in range(n_floats):
                if values[j, c] != floats[c]:
                    same = False
                    break
        if same:
            probs[j] += p
            return m
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
def decide(s, system, start, coup, branch, out, p):
    """The system's decision for coup ``c`` from the state row ``s`` (updated) and what the table shows
    (the system's own :func:`strategies.kernel.step`; ``branch`` >= -1: the random bettor's draw, a
    box or none). ``system``: (k, own, f), the system's parameters and a scratch copy of ``k``;
    ``coup``: (money, c, coups, last result, last couleur, prison); ``out``: (action, seen, acc).
    Writes the action row; returns whether the session is over (no more bets, and no prisoner left
    to settle). Adds the coup's expected counts, weighted by ``p``, to ``acc``."""
    k, own, f = system
    money, c, coups, last_result, last_couleur, prison = coup
    action, seen, acc = out
    action[:] = 0.0
    free = True
    for b in range(4):
        seen[b] = prison[b, 0]
        seen[4 + b] = prison[b, 1]
        if (prison[b, 0] != 0.0) | (prison[b, 1] != 0.0):
            free = False
    if (c >= coups) | (s[kernel.WALKED] != 0):
        return free
    rules = k
    if branch >= -1:
        own[kernel.K_KIND] = Kind.FLAT
        own[kernel.K_BOX] = branch
        rules = own
    hits0 = s[kernel.TABLE_MAX_HITS]
    bhits0 = s[kernel.BANKROLL_HITS]
    kernel.step(s, rules, f, start, (money, c, last_result, last_couleur, seen), c == 0, 0, action)
    if s[kernel.WALKED] != 0:
        action[:] = 0.0
        return free
    acc[TABLE_HITS] += p * (s[kernel.TABLE_MAX_HITS] - hits0)
    acc[BANK_HITS] += p * (s[kernel.BANKROLL_HITS] - bhits0)
    acc[PLAYED] += p
    return False


@jit.kernel
def advance(states, n, game, c, out):
    """Coup ``c`` for every one of the first ``n`` ``states`` (keys, values, probs), each holding the
    decision for it: the table settles the action for each outcome of the coup, then the system
    decides the next coup. ``game``: (k, f, table, coups, start, branches, outcomes, line, rigged),
    with ``outcomes`` the coup's (result, couleur, probability) rows and ``branches`` the system's
    (box, chance) rows, box -2 for its own choice. ``out``: (hashes, new keys, new values, new
    probs, done money, done probs, acc): a session that ends goes to the ``done`` rows (its money and
    probability); the others are merged into the ``new`` rows through the hash table ``hashes``.
    Returns (states, done)."""
    keys, values, probs = states
    k, f, table, coups, start, branches, outcomes, line, rigged = game
    hashes, new_keys, new_values, new_probs, done_money, done_probs, acc = out
    width = keys.shape[1] - 1
    s = np.empty(width, np.int64)
    row = np.empty(width + 1, np.int64)
    floats = np.empty(N_FLOATS)
    prison = np.zeros((4, 2))
    seen = np.zeros(PRISON_SIZE)
    placed = np.zeros(4)
    insured = np.zeros(4, np.bool_)
    back = np.zeros(4)
    own = k.copy()
    board = np.empty(1, np.int64)  # the scoreboard the table reads: the last coup (a rigged table's pattern)
    hashes[:] = -1
    m = 0
    d = 0
    for i in range(n):
        last = keys[i, width]
        money = values[i, MONEY]
        action = values[i, ACTION:]
        for o in range(outcomes.shape[0]):
            result = int(outcomes[o, 0])
            couleur = outcomes[o, 1] != 0.0
            p = probs[i] * outcomes[o, 2]
            for b in range(4):
                prison[b, 0] = values[i, PRISONERS + 2 * b]
                prison[b, 1] = values[i, PRISONERS + 2 * b + 1]
            board[0] = last
            after, _ = bet_and_settle(action, money, prison, result, couleur, board, table, (placed, insured, back))
            acc[STAKED] += p * (placed[0] + placed[1] + placed[2] + placed[3])
            if (after < table.table_min) & is_free(prison):  # ruined: the session is over
                done_money[d] = after
                done_probs[d] = p
                d += 1
                continue
            shown = scoreboard_couleur(result, couleur)
            for br in range(branches.shape[0]):
                q = p * branches[br, 1]
                if q == 0.0:
                    continue
                for x in range(width):
                    s[x] = keys[i, x]
                coup = (after, c + 1, coups, result, shown, prison)
                over = decide(s, (k, own, f), start, coup, int(branches[br, 0]), (floats[ACTION:], seen, acc), q)
                if over:
                    done_money[d] = after
                    done_probs[d] = q
                    d += 1
                    continue
                canonical(s, line)
                for x in range(width):
                    row[x] = s[x]
                row[width] = result if rigged else 0  # only a rigged table reads the last result
                floats[MONEY] = after
                for b in range(4):
                    floats[PRISONERS + 2 * b] = prison[b, 0]
                    floats[PRISONERS + 2 * b + 1] = prison[b, 1]
                m = insert(row, floats, q, hashes, new_keys, new_values, new_probs, m)
    return m, d

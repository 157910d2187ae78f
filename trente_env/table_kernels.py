"""The compiled kernels of :class:`~trente_env.tables.Tables`: one coup on each of N tables, in lockstep.

Every table's coup is played with the croupier's compiled steps (:func:`~trente_env.croupier.next_coup`
deals it with the dealer's own kernels, :func:`~trente_env.croupier.bet_and_settle` settles every box
with the settlement's own :func:`~trente_env.settle.settle_box`), so there is one copy of the rules.

**The kernels' arguments** travel in bundles (named tuples of arrays and numbers, which numba
compiles like separate arguments): :class:`~trente_env.croupier.TableRules` (the rules as numbers,
shared with the tournament's session loop), :class:`TableState` (every table's shoe, money and
scoreboard), :class:`CoupRecord` (what the last coup did at each table), :class:`ObservationRows`
(where each table's observation is written), and :class:`PlayArgs`, the tables' side of every
kernel's arguments (those bundles, the shuffle seeds, the target and the starting bankroll). A step's
own arguments (the actions, the menu's choices, the skip mask, the autoreset mode and the limit of
coups) come beside it; :class:`PlayCall` holds both as one object numba converts as one pointer.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba.experimental import structref

from trente_env import jit
from trente_env.cards import CARD_BLACK, CARD_VALUE
from trente_env.codes import (
    ACTION_WIDTH,
    COULEUR_CODES,
    NO_COUP,
    OBS_PARTS,
    RESULT_CODES,
    SHOE_SIZE,
    UNDECIDED,
    scoreboard_couleur,
)
from trente_env.croupier import TableRules, bet_and_settle, is_free, is_ruined, next_coup

#: Columns of :attr:`CoupRecord.coup`: what was dealt on each table in the last coup.
COUP_COLUMNS = ("noir", "rouge", "result", "couleur", "start", "middle", "end", "reshuffle")
#: Blocks of tables the multi-threaded kernel shares among numba's threads.
THREAD_BLOCKS = 64
#: How many tables ahead the kernel starts fetching a table's rows into cache (:func:`_prefetch_rows`).
PREFETCH_AHEAD = 4


class TableState(NamedTuple):
    """Every table's state, one row per table; the kernels update it in place."""

    shoes: np.ndarray  #: (n, n_cards) uint8, each table's shoe in dealing order
    pos: np.ndarray  #: (n,) int64, the next card to deal
    needs_shuffle: np.ndarray  #: (n,) bool, the shoe is shuffled before the next coup
    bankroll: np.ndarray  #: (n,) float64, money in hand, units
    prison: np.ndarray  #: (n, 4, 2) float64, stakes in first and second prison per box
    coups: np.ndarray  #: (n,) int64, coups played this session
    results: np.ndarray  #: (n, history) int64, the scoreboard's result codes, most recent first
    couleurs: np.ndarray  #: (n, history) int64, the scoreboard's Couleur codes
    seen: np.ndarray  #: (n, 20) int64, cards seen since the shuffle: black values 1..10, then red


class CoupRecord(NamedTuple):
    """What the last coup did at every table (rows of skipped tables keep their last values)."""

    reward: np.ndarray  #: (n,) the change of the bankroll, units
    placed: np.ndarray  #: (n, 4) the stakes taken per box, after making them legal
    insured: np.ndarray  #: (n, 4) bool, which of them are insured
    back: np.ndarray  #: (n, 4) what each box returned to the bankroll
    coup: np.ndarray  #: (n, 8) int64, the columns of :data:`COUP_COLUMNS`
    clipped: np.ndarray  #: (n,) bool, a wanted stake was changed
    terminated: np.ndarray  #: (n,) bool, the session is over (ruin or target, nothing in prison)
    truncated: np.ndarray  #: (n,) bool, the session reached its limit of coups
    pending: np.ndarray  #: (n,) bool, the session ended: the next step starts a new one (``NEXT_STEP``)
    played: np.ndarray  #: (n,) bool, the table played a coup in the last step (not skipped nor restarted)
    ended: np.ndarray  #: (n,) bool, the session ended and a new one started in the same step (``SAME_STEP``)


class FinalObservation(NamedTuple):
    """Where the kernel keeps the last observation of a session it restarts in the same step: the
    row of :attr:`ObservationRows.flat` and the scoreboard, in row ``t`` for table ``t``."""

    flat: np.ndarray  #: (n, width) float32
    results: np.ndarray  #: (n, history) int64
    couleurs: np.ndarray  #: (n, history) int64


#: Where each part of :data:`~trente_env.codes.OBS_PARTS` starts in a row of :attr:`ObservationRows.flat`
#: (-1: the part is left out), one field per part. (A kernel argument of its own: numba's parallel
#: loops take no named tuple nested in another.)
FlatOffsets = NamedTuple("FlatOffsets", [(part, int) for part in OBS_PARTS])  # noqa: UP014


class ObservationRows(NamedTuple):
    """How the kernels write each table's observation: row ``t`` of ``flat``, each part where a
    :class:`FlatOffsets` places it."""

    flat: np.ndarray  #: (n, width) float32
    one_hot: bool  #: write the scoreboard one-hot (else it is read from the state)
    full_shoe: np.ndarray  #: (20,) int64, a full shoe's cards: black values 1..10, then red
    track_shoe: bool  #: count the cards seen (for the ``shoe`` and ``cards_left`` parts)


#: What the kernel does after a table's session ends (:func:`_play`'s ``autoreset``): nothing (the caller
#: restarts it, :meth:`~trente_env.tables.Tables.play`), start the new session on the next call instead of playing
#: (Gymnasium's ``NEXT_STEP``), or start it in the same call, its last observation kept (``SAME_STEP``).
NO_AUTORESET, NEXT_STEP, SAME_STEP = 0, 1, 2


class PlayArgs(NamedTuple):
    """The tables' side of every kernel's arguments: the same objects for the life of the tables,
    updated in place (a kernel argument of its own, or a field of :class:`PlayCall`)."""

    seeds: np.ndarray  #: (n, batch) uint64, the seeds of each table's next shuffles, used in order
    used: np.ndarray  #: (n,) int64, how many seeds of its row each table has used
    rules: TableRules
    state: TableState
    record: CoupRecord
    rows: ObservationRows  #: (not ``view``: numba reads an attribute ``view`` as the arrays' method)
    final: FinalObservation
    at: FlatOffsets
    target: float  #: a session ends when the bankroll reaches this with nothing in prison
    bankroll0: float  #: the bankroll a session starts with


def _check_play(actions, choices, skip, autoreset, seeds, used, needs_shuffle, pending):  # fmt: skip
    """ValueError unless :func:`_play`'s arrays fit the tables (every index the loop takes is in range)."""
    n = needs_shuffle.shape[0]
    # the passes over every table count what is wrong and raise after the loop: loops without a branch,
    # which the compiler runs several tables at a time (a branch a table cost 1 to 4 ns a table, run
    # serially before the threads start)
    if choices.shape[0] > 0:
        if choices.shape[0] != n:
            raise ValueError("_play: choices need one entry per table")
        outside = 0
        for t in range(n):
            outside += (choices[t] < 0) | (choices[t] >= actions.shape[0])
        if outside:
            raise ValueError("_play: a choice outside the menu of actions")
    elif actions.shape[0] != n:
        raise ValueError("_play: actions need one row per table")
    if (actions.shape[1] != ACTION_WIDTH) | (skip.shape[0] != n) | (seeds.shape[0] != n) | (used.shape[0] != n):
        raise ValueError("_play: actions of 12 numbers, and skip, seeds and used with one row per table")
    n_seeds = seeds.shape[1]
    spent = 0
    for t in range(n):  # Tables draws the seeds before the call: a guard, never a rule
        spent += used[t] >= n_seeds
    if spent == 0:  # (the vector env's case: its tables draw as soon as one has spent its seeds)
        return
    for t in range(n):
        if needs_shuffle[t] & ~skip[t] & ~((autoreset == NEXT_STEP) & pending[t]) & (used[t] >= n_seeds):
            raise ValueError("_play: a table has no seed left for its shuffle")


def _spent(used, n_seeds):  # fmt: skip
    """How many tables have used every seed of their row."""
    spent = 0
    for t in range(used.shape[0]):
        spent += used[t] == n_seeds
    return spent


def _play_rows(lo, hi, actions, choices, skip, autoreset, limit, args):  # fmt: skip
    """:func:`_play` on the tables ``lo`` to ``hi - 1``, its arguments checked."""
    # The arrays are taken from their bundles once, before the loop over the tables. The loop's body
    # stays inline: a call per table, taking the bundles, costs some 15% of the coup.
    rules, state, record, view, final, at = args.rules, args.state, args.record, args.rows, args.final, args.at
    seeds = args.seeds
    used = args.used
    target = args.target
    bankroll0 = args.bankroll0
    burn = rules.burn
    dead_cards = rules.dead_cards
    shoes = state.shoes
    pos = state.pos
    needs_shuffle = state.needs_shuffle
    seen = state.seen
    bankroll = state.bankroll
    prison = state.prison
    coups = state.coups
    results = state.results
    couleurs = state.couleurs
    reward = record.reward
    placed = record.placed
    insured = record.insured
    back = record.back
    coup = record.coup
    clipped = record.clipped
    terminated = record.terminated
    truncated = record.truncated
    pending = record.pending
    played = record.played
    ended = record.ended
    flat = view.flat
    track_shoe = view.track_shoe
    one_hot = view.one_hot
    table_min = rules.table_min
    k = results.shape[1]
    by_choice = choices.shape[0] > 0
    for t in range(lo, hi):
        if t + PREFETCH_AHEAD < hi:  # beyond a few thousand tables their rows no longer stay in cache
            u = t + PREFETCH_AHEAD
            _prefetch_rows(u, flat, state, record)
            if not by_choice:
                jit.prefetch(actions, (u, 0))
                jit.prefetch(actions, (u, actions.shape[1] - 1))
        if skip[t]:
            played[t] = False
            ended[t] = False
            continue
        if (autoreset == NEXT_STEP) & pending[t]:  # the session ended last time: a new one instead of a coup
            _restart_row(t, state, bankroll0)
            terminated[t] = False
            _observe_row(t, state, view, at, burn, dead_cards)
            reward[t] = 0.0
            truncated[t] = False
            pending[t] = False
            played[t] = False
            ended[t] = False
            continue
        cards = shoes[t]
        seed = np.uint64(0)
        if needs_shuffle[t]:
            seed = seeds[t, used[t]]
            used[t] += 1
            if track_shoe:
                seen[t, :] = 0
        noir, rouge, result, couleur, start, middle, end, reshuffle = next_coup(
            cards, pos[t], needs_shuffle[t], seed, rules
        )
        row = actions[choices[t]] if by_choice else actions[t]
        before = bankroll[t]
        bankroll[t], clipped[t] = bet_and_settle(
            row, before, prison[t], result, couleur, results[t], rules, (placed[t], insured[t], back[t])
        )
        reward[t] = bankroll[t] - before
        coups[t] += 1
        board = results[t]  # rows as views: numba checks every index of a 2-D array for wraparound
        column = couleurs[t]
        for j in range(k - 1, 0, -1):
            board[j] = board[j - 1]
            column[j] = column[j - 1]
        board[0] = result
        column[0] = scoreboard_couleur(result, couleur)
        if one_hot:
            _write_one_hot(flat[t], at.results, RESULT_CODES, board)
            _write_one_hot(flat[t], at.couleur, COULEUR_CODES, column)
        if track_shoe:
            counts = seen[t]
            if reshuffle:
                counts[:] = 0
            else:
                for i in range(start, end):
                    c = cards[i]
                    counts[(0 if CARD_BLACK[c] else 10) + CARD_VALUE[c] - 1] += 1
        pos[t] = end
        needs_shuffle[t] = reshuffle
        dealt = coup[t]
        dealt[0] = noir
        dealt[1] = rouge
        dealt[2] = result
        dealt[3] = couleur
        dealt[4] = start
        dealt[5] = middle
        dealt[6] = end
        dealt[7] = reshuffle
        over = is_ruined(bankroll[t], table_min, prison[t]) | (is_free(prison[t]) & (bankroll[t] >= target))
        cut = coups[t] >= limit
        terminated[t] = over
        truncated[t] = cut
        played[t] = True
        _observe_numbers(t, state, view, at, burn, dead_cards)
        ended[t] = False
        if over | cut:
            if autoreset == NEXT_STEP:
                pending[t] = True
            elif autoreset == SAME_STEP:
                _keep_final(t, flat, results, couleurs, final)
                ended[t] = True
                _restart_row(t, state, bankroll0)
                _observe_row(t, state, view, at, burn, dead_cards)
                terminated[t] = over  # what the step reports: the session that ended


def _prefetch_rows(u, flat, state, record):  # fmt: skip
    """Start fetching the lines of table ``u``'s rows that its coup reads or writes (its observation,
    scoreboard, next cards, prisoners and record), so that they are in cache when the loop reaches it
    (:func:`~trente_env.jit.prefetch`: values are untouched)."""
    results, couleurs, shoes, prison = state.results, state.couleurs, state.shoes, state.prison
    coup, placed, back, insured = record.coup, record.placed, record.back, record.insured
    pos = state.pos[u]
    width = flat.shape[1]
    for i in range(0, width, 16):  # 16 float32 a line of 64 bytes
        jit.prefetch(flat, (u, i))
    jit.prefetch(flat, (u, width - 1))
    k = results.shape[1]
    jit.prefetch(results, (u, 0))
    jit.prefetch(results, (u, k - 1))
    jit.prefetch(couleurs, (u, 0))
    jit.prefetch(couleurs, (u, k - 1))
    n_cards = shoes.shape[1]
    if pos < n_cards:  # (after the shoe: it is shuffled first, from its first card)
        jit.prefetch(shoes, (u, pos))
        jit.prefetch(shoes, (u, min(pos + 15, n_cards - 1)))
    jit.prefetch(prison, (u, 0, 0))
    jit.prefetch(prison, (u, prison.shape[1] - 1, prison.shape[2] - 1))
    jit.prefetch(coup, (u, 0))
    jit.prefetch(coup, (u, coup.shape[1] - 1))
    jit.prefetch(placed, (u, 0))
    jit.prefetch(back, (u, 0))
    jit.prefetch(insured, (u, 0))


def _write_one_hot(row, at, codes, column):  # fmt: skip
    """Write a scoreboard ``column`` (its codes, the most recent first) one-hot into ``row`` from
    ``at`` on: each entry a block of ``codes`` zeros with a one at its code (none for a code out of range)."""
    row[at : at + codes * column.size] = 0.0
    for j in range(column.size):
        c = column[j]
        if (c >= 0) & (c < codes):
            row[at + codes * j + c] = 1.0


def _observe_numbers(t, state, view, at, burn, dead_cards):  # fmt: skip
    """Write the numbers of table ``t``'s observation (bankroll, coups, prisoners, and the shoe if
    ``at`` places it) into row ``t`` of ``view.flat``: every part but the scoreboard."""
    flat = view.flat
    row = flat[t]
    jail = state.prison[t]
    row[at.bankroll] = state.bankroll[t]
    row[at.coups] = state.coups[t]
    for b in range(4):
        row[at.prison + b] = jail[b, 0]
        row[at.prison + 4 + b] = jail[b, 1]
    if at.shoe >= 0:
        n_cards = state.shoes.shape[1] - dead_cards  # the dead cards are never dealt, so not left to deal
        row[at.cards_left] = n_cards - burn if state.needs_shuffle[t] else n_cards - state.pos[t]
        seen = state.seen[t]
        for i in range(SHOE_SIZE):
            row[at.shoe + i] = view.full_shoe[i] - seen[i]


def _observe_row(t, state, view, at, burn, dead_cards):  # fmt: skip
    """Write table ``t``'s whole observation into row ``t`` of ``view.flat``, each part where ``at``
    places it (the parts at -1 are left out): the numbers, and the scoreboard one-hot if asked."""
    _observe_numbers(t, state, view, at, burn, dead_cards)
    if view.one_hot:
        flat = view.flat
        _write_one_hot(flat[t], at.results, RESULT_CODES, state.results[t])
        _write_one_hot(flat[t], at.couleur, COULEUR_CODES, state.couleurs[t])


def _keep_final(t, flat, results, couleurs, final):  # fmt: skip
    """Copy table ``t``'s observation (its row of ``flat`` and its scoreboard) into row ``t`` of
    ``final``, before its new session overwrites it."""
    final_flat, final_results, final_couleurs = final.flat, final.results, final.couleurs
    for i in range(flat.shape[1]):
        final_flat[t, i] = flat[t, i]
    for j in range(results.shape[1]):
        final_results[t, j] = results[t, j]
        final_couleurs[t, j] = couleurs[t, j]


def _restart_row(t, state, bankroll0):  # fmt: skip
    """Start a new session on table ``t``: the bankroll back to ``bankroll0``, no prisoners, an empty
    scoreboard, no cards seen, a shoe to be shuffled before the next coup (the caller clears the
    record's ``terminated`` and ``pending``). Helpers that are called take few arrays: each array
    passed is a dozen numbers to every call, which the first compile pays for."""
    state.bankroll[t] = bankroll0
    state.prison[t, :, :] = 0.0
    state.coups[t] = 0
    state.results[t, :] = NO_COUP
    state.couleurs[t, :] = UNDECIDED
    state.seen[t, :] = 0
    state.needs_shuffle[t] = True
    state.pos[t] = state.shoes.shape[1]


def _observe_tables(state, view, at, burn, dead_cards):  # fmt: skip
    """Write every table's whole observation (:func:`_observe_row`): for tables whose coups were
    played outside the coup loop (the classroom's seats, :meth:`~trente_env.layout.Layout.observe_state`)."""
    for t in range(state.bankroll.shape[0]):
        _observe_row(t, state, view, at, burn, dead_cards)


# What every coup of every table runs stays inlined (called, they cost 10 to 25% of a vector step);
# what runs when a session ends is called.
_prefetch_rows = jit.inline(_prefetch_rows)
_write_one_hot = jit.inline(_write_one_hot)
_observe_numbers = jit.inline(_observe_numbers)
_observe_row = jit.inner(_observe_row)
_keep_final = jit.inner(_keep_final)
_restart_row = jit.inner(_restart_row)
_check_play = jit.inner(_check_play)  # (inlined, they made each caller's compile longer than their own)
_spent = jit.inner(_spent)
_play_rows = jit.inner(_play_rows)

#: The fields of :class:`PlayCall`: a step's own arguments, then the tables' (:class:`PlayArgs`).
PLAY_FIELDS: tuple[str, ...] = ("actions", "choices", "skip", "autoreset", "limit", "args")


@structref.register
class PlayCallType(numba.types.StructRef):
    """numba's type of a :class:`PlayCall`."""

    def preprocess_fields(self, fields: tuple) -> tuple:
        return tuple((name, numba.types.unliteral(typ)) for name, typ in fields)


class PlayCall(structref.StructRefProxy):
    """The arguments of the tables' kernels, held by numba as one object (a structref): a single
    table's step (:func:`play_held`: its actions, choices, skip mask, autoreset mode and limit) and the
    tables' :class:`PlayArgs`, which :func:`_play`, :func:`_play_threads` and :func:`_restart` read
    beside the step's own arguments.

    A call with its ~30 arrays (in their bundles) as arguments pays numba's conversion of each
    array, about 1 µs; this object is converted as one pointer, and the kernels read the arrays
    from it. A kernel of few arguments is also quicker to compile, numba's parallel loop most of
    all. It holds the very arrays of the tables (numba keeps them alive), which the tables update in
    place, never replace. Made by :func:`hold`; not picklable (made again)."""


structref.define_proxy(PlayCall, PlayCallType, PLAY_FIELDS)


def _hold(actions, choices, skip, autoreset, limit, args):  # fmt: skip
    """A :class:`PlayCall` of a step's arguments and the tables' (compiled and cached, unlike the
    proxy's own constructor)."""
    return PlayCall(actions, choices, skip, autoreset, limit, args)


def _play(actions, choices, skip, autoreset, limit, call):  # fmt: skip
    """Play one coup on every table not in ``skip``: deal (:func:`~trente_env.croupier.next_coup`),
    make the bets legal and settle them (:func:`~trente_env.croupier.bet_and_settle`), record, then
    write the table's observation into its row of ``rows.flat`` (parts placed by ``at``) and whether
    its session is over: ``record.terminated`` (ruin, or ``target`` reached, with nothing in prison)
    and ``record.truncated`` (``limit`` coups played).

    ``call.args`` holds the tables' arrays and rules (:class:`PlayArgs`; the call's own fields for the
    step are ignored: the step's arguments are given apart). Table ``t``'s action is ``actions[t]``, or
    ``actions[choices[t]]`` when ``choices`` holds one entry per table (the discrete form: ``actions``
    is then its menu of action rows). A table whose shoe needs a shuffle takes the next seed of its
    row of ``seeds`` (``used[t]`` of them are taken).

    ``autoreset`` (:data:`NEXT_STEP`, :data:`SAME_STEP` or :data:`NO_AUTORESET`) says what becomes of
    a table whose session ended: under ``NEXT_STEP`` it is flagged in ``record.pending`` and its
    next call starts its new session instead of playing (reward 0, neither terminated nor
    truncated); under ``SAME_STEP`` its observation is copied into row ``t`` of ``final`` (and
    ``record.ended[t]`` set) before the new session starts at once. ``record.played`` says which
    tables played a coup. Returns how many tables have used every seed of their row (all of them, not
    only those that just did).
    """
    args = call.args
    _check_play(actions, choices, skip, autoreset, args.seeds, args.used, args.state.needs_shuffle, args.record.pending)
    _play_rows(0, args.state.bankroll.shape[0], actions, choices, skip, autoreset, limit, args)
    return _spent(args.used, args.seeds.shape[1])


def _play_threads(actions, choices, skip, autoreset, limit, call):  # fmt: skip
    """:func:`_play` on numba's threads: the tables are cut into :data:`THREAD_BLOCKS` blocks, each
    played by one call of :func:`_play_rows` on some thread. The loop's body is that call, which
    writes the arrays in an ordinary function: see :func:`trente_env.jit.parallel` on numba's
    parallel loop and named tuples."""
    args = call.args
    _check_play(actions, choices, skip, autoreset, args.seeds, args.used, args.state.needs_shuffle, args.record.pending)
    n = args.state.bankroll.shape[0]
    blocks = min(THREAD_BLOCKS, n)
    for c in numba.prange(blocks):
        _play_rows(c * n // blocks, (c + 1) * n // blocks, actions, choices, skip, autoreset, limit, call.args)
    return _spent(args.used, args.seeds.shape[1])


def _play_held(call):  # fmt: skip
    """:func:`_play` on the arguments held by ``call``, those of the step included (the single
    table's: its action row, or its choice in the menu). It calls :func:`_play_rows` itself, one
    compiled layer fewer on the single table's path."""
    actions, choices, skip, autoreset, limit, args = call.actions, call.choices, call.skip, call.autoreset, \
        call.limit, call.args  # fmt: skip
    _check_play(actions, choices, skip, autoreset, args.seeds, args.used, args.state.needs_shuffle, args.record.pending)
    _play_rows(0, args.state.bankroll.shape[0], actions, choices, skip, autoreset, limit, args)
    return _spent(args.used, args.seeds.shape[1])


def _restart(rows, call):  # fmt: skip
    """Start a new session on every table in the ``rows`` mask (:func:`_restart_row`), then write
    its observation; the tables' arrays are read from ``call.args``."""
    args = call.args
    state, record = args.state, args.record
    if rows.shape[0] != state.bankroll.shape[0]:
        raise ValueError("_restart: rows need one flag per table")
    for t in range(rows.shape[0]):
        if rows[t]:
            _restart_row(t, state, args.bankroll0)
            record.terminated[t] = False
            record.pending[t] = False
            _observe_row(t, state, args.rows, args.at, args.rules.burn, args.rules.dead_cards)


# Reading a structref needs numba's reference counting: these are not hot (the coup loop they call is).
hold = jit.kernel(_hold)
play_held = jit.kernel(_play_held)
play_serial = jit.kernel(_play)
play_parallel = jit.parallel(_play_threads)
restart_serial = jit.kernel(_restart)
observe_tables = jit.kernel(_observe_tables)

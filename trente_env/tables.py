"""Tables played in lockstep: the state of N tables and the compiled kernel that plays one coup on each.

This is the engine room of the environments, and it imports no gymnasium. The single environment
is one :class:`Tables` of one table; the vector environment is one :class:`Tables` of N tables. Both
run the same kernel, which plays each table's coup with the croupier's compiled steps
(:func:`~trente_env.croupier.next_coup` deals it with the dealer's own kernels,
:func:`~trente_env.croupier.bet_and_settle` settles every box with the settlement's own
:func:`~trente_env.settle.settle_box`), so there is one copy of the rules.

Randomness: each table owns a :class:`numpy.random.Generator` (or only its bit generator, as the
vector env's reset gives: :func:`shuffling_generators`), used for nothing but shuffles. A
shuffle takes one seed from it (:func:`~trente_env.dealer.shuffle_seeds`), exactly as
:class:`~trente_env.dealer.Shoe` does,
so table ``i`` deals the same coups as a ``Shoe`` (or :func:`~trente_env.dealer.deal_coups`) fed
by the same generator. A table starts every session on a freshly shuffled shoe.

An action for one table is a row of :data:`~trente_env.codes.ACTION_WIDTH` numbers (the action row
of :mod:`trente_env.codes`: stakes from :data:`~trente_env.codes.STAKE`, insure flags from
:data:`~trente_env.codes.INSURE`, prison flags from :data:`~trente_env.codes.PRISON`). Before the
deal every row is made legal, box by box in layout order (:func:`~trente_env.croupier.make_legal`).

**The kernels' arguments** travel in bundles (named tuples of arrays and numbers, which numba
compiles like separate arguments): :class:`~trente_env.croupier.TableRules` (the rules as numbers,
shared with the tournament's session loop), :class:`TableState` (every table's shoe, money and scoreboard),
:class:`CoupRecord` (what the last coup did at each table) and :class:`ObservationRows` (where each
table's observation is written).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numba
import numpy as np
from numba.experimental import structref

from trente_env import jit
from trente_env.cards import CARD_BLACK, CARD_VALUE, composition
from trente_env.codes import (
    ACTION_WIDTH,
    COULEUR_CODES,
    NO_COUP,
    OBS_PARTS,
    RESULT_CODES,
    SCOREBOARD_PARTS,
    SHOE_PARTS,
    SHOE_SIZE,
    UNDECIDED,
    part_size,
    scoreboard_couleur,
)
from trente_env.croupier import bet_and_settle, is_free, next_coup, table_rules
from trente_env.rules import MAX_MONEY, RuleSet
from trente_env.seeding import REFILL_FROM, SEED_BATCH, shuffling_generators

#: Columns of :attr:`Tables.coup`: what was dealt on each table in the last coup.
COUP_COLUMNS = ("noir", "rouge", "result", "couleur", "start", "middle", "end", "reshuffle")
#: No limit of coups per session (the kernel's ``limit``).
NO_LIMIT = np.iinfo(np.int64).max
#: Blocks of tables the multi-threaded kernel shares among numba's threads.
THREAD_BLOCKS = 64
#: Tables at or above this count are played by the multi-threaded kernels (by default). numba's threads
#: run on TBB (:mod:`trente_env.jit`), which enters a parallel loop in a few microseconds: 1,000 tables,
#: about 280 us of one thread's work a step, gain from a second idle core; ``python -m
#: benchmarks.bench_kernel`` measures both.
PARALLEL_FROM = 1000
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


#: Where each part of :data:`~trente_env.codes.OBS_PARTS` starts in a row of :attr:`Tables.flat`
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
#: restarts it, :meth:`Tables.play`), start the new session on the next call instead of playing
#: (Gymnasium's ``NEXT_STEP``), or start it in the same call, its last observation kept (``SAME_STEP``).
NO_AUTORESET, NEXT_STEP, SAME_STEP = 0, 1, 2


def _check_play(actions, choices, skip, autoreset, seeds, used, state, record):  # fmt: skip
    """ValueError unless :func:`_play`'s arrays fit the tables (every index the loop takes is in range)."""
    n = state.bankroll.shape[0]
    needs_shuffle = state.needs_shuffle
    pending = record.pending
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


def _play_rows(
    lo, hi, actions, choices, skip, autoreset, seeds, used, rules, state, record, view, final, at, target, limit,
    bankroll0,
):  # fmt: skip
    """:func:`_play` on the tables ``lo`` to ``hi - 1``, its arguments checked."""
    # The arrays are taken from their bundles once, before the loop over the tables. The loop's body
    # stays inline: a call per table, taking the bundles, costs some 15% of the coup.
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
    final_flat = final.flat
    final_results = final.results
    final_couleurs = final.couleurs
    track_shoe = view.track_shoe
    one_hot = view.one_hot
    table_min = rules.table_min
    k = results.shape[1]
    n_cards = shoes.shape[1]
    by_choice = choices.shape[0] > 0
    for t in range(lo, hi):
        if t + PREFETCH_AHEAD < hi:  # beyond a few thousand tables their rows no longer stay in cache
            u = t + PREFETCH_AHEAD
            _prefetch_rows(u, flat, results, couleurs, shoes, pos[u], prison, coup, placed, back, insured)
            if not by_choice:
                jit.prefetch(actions, (u, 0))
                jit.prefetch(actions, (u, actions.shape[1] - 1))
        if skip[t]:
            played[t] = False
            ended[t] = False
            continue
        if (autoreset == NEXT_STEP) & pending[t]:  # the session ended last time: a new one instead of a coup
            _restart_row(
                t, bankroll, prison, coups, results, couleurs, seen, needs_shuffle, pos, terminated, pending, n_cards,
                bankroll0,
            )  # fmt: skip
            _observe_row(t, state, view, at, rules.burn, rules.dead_cards)
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
            row, before, prison[t], result, couleur, results[t], rules, placed[t], insured[t], back[t]
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
        over = is_free(prison[t]) & ((bankroll[t] < table_min) | (bankroll[t] >= target))
        cut = coups[t] >= limit
        terminated[t] = over
        truncated[t] = cut
        played[t] = True
        _observe_numbers(t, state, view, at, rules.burn, rules.dead_cards)
        ended[t] = False
        if over | cut:
            if autoreset == NEXT_STEP:
                pending[t] = True
            elif autoreset == SAME_STEP:
                _keep_final(t, flat, results, couleurs, final_flat, final_results, final_couleurs)
                ended[t] = True
                _restart_row(
                    t, bankroll, prison, coups, results, couleurs, seen, needs_shuffle, pos, terminated, pending,
                    n_cards, bankroll0,
                )  # fmt: skip
                _observe_row(t, state, view, at, rules.burn, rules.dead_cards)
                terminated[t] = over  # what the step reports: the session that ended


def _prefetch_rows(u, flat, results, couleurs, shoes, pos, prison, coup, placed, back, insured):  # fmt: skip
    """Start fetching the lines of table ``u``'s rows that its coup reads or writes (its observation,
    scoreboard, next cards from ``pos``, prisoners and record), so that they are in cache when the
    loop reaches it (:func:`~trente_env.jit.prefetch`: values are untouched)."""
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


def _keep_final(t, flat, results, couleurs, final_flat, final_results, final_couleurs):  # fmt: skip
    """Copy table ``t``'s observation (its row of ``flat`` and its scoreboard) into row ``t`` of the
    ``final_`` arrays, before its new session overwrites it."""
    for i in range(flat.shape[1]):
        final_flat[t, i] = flat[t, i]
    for j in range(results.shape[1]):
        final_results[t, j] = results[t, j]
        final_couleurs[t, j] = couleurs[t, j]


def _restart_row(
    t, bankroll, prison, coups, results, couleurs, seen, needs_shuffle, pos, terminated, pending, n_cards, bankroll0,
):  # fmt: skip
    """Start a new session on table ``t``: the bankroll back to ``bankroll0``, no prisoners, an empty
    scoreboard, no cards seen, a shoe of ``n_cards`` to be shuffled before the next coup, not
    terminated nor pending. (The arrays come one by one, taken from their bundles by the caller: see
    :func:`_play` on numba's parallel loop.)"""
    bankroll[t] = bankroll0
    prison[t, :, :] = 0.0
    coups[t] = 0
    results[t, :] = NO_COUP
    couleurs[t, :] = UNDECIDED
    seen[t, :] = 0
    needs_shuffle[t] = True
    pos[t] = n_cards
    terminated[t] = False
    pending[t] = False


# What every coup of every table runs stays inlined (called, they cost 10 to 25% of a vector step);
# what runs when a session ends is called.
_prefetch_rows = jit.inline(_prefetch_rows)
_write_one_hot = jit.inline(_write_one_hot)
_observe_numbers = jit.inline(_observe_numbers)
_observe_row = jit.inner(_observe_row)
_keep_final = jit.inner(_keep_final)
_restart_row = jit.inner(_restart_row)
_check_play = jit.inner(_check_play)
_spent = jit.inner(_spent)
_play_rows = jit.inner(_play_rows)

#: The arguments of :func:`_play_rows` but the first two, in order: the fields of :class:`PlayCall`.
#: (``rows`` is the ``view`` argument: numba reads an attribute ``view`` as the arrays' method.)
PLAY_ARGS: tuple[str, ...] = (
    "actions", "choices", "skip", "autoreset", "seeds", "used", "rules", "state", "record", "rows", "final", "at",
    "target", "limit", "bankroll0",
)  # fmt: skip


@structref.register
class PlayCallType(numba.types.StructRef):
    """numba's type of a :class:`PlayCall`."""

    def preprocess_fields(self, fields: tuple) -> tuple:
        return tuple((name, numba.types.unliteral(typ)) for name, typ in fields)


class PlayCall(structref.StructRefProxy):
    """The arguments of the tables' kernels, held by numba as one object (a structref): every argument
    of a single table's step (:func:`_play_held`), and the tables' arrays and rules that
    :func:`_play`, :func:`_play_threads` and :func:`_restart` read beside the step's own arguments.

    A call with its ~30 arrays (in their bundles) as arguments pays numba's conversion of each
    array, about 1 µs; this object is converted as one pointer, and the kernels read the arrays
    from it. A kernel of few arguments is also quicker to compile, numba's parallel loop most of
    all. It holds the very arrays of the :class:`Tables` (numba keeps them alive), which the tables
    update in place, never replace. Made by :func:`_hold`; not picklable (made again)."""


structref.define_proxy(PlayCall, PlayCallType, PLAY_ARGS)


def _hold(
    actions, choices, skip, autoreset, seeds, used, rules, state, record, view, final, at, target, limit, bankroll0,
):  # fmt: skip
    """A :class:`PlayCall` of :func:`_play`'s arguments (compiled and cached, unlike the proxy's own
    constructor)."""
    return PlayCall(
        actions, choices, skip, autoreset, seeds, used, rules, state, record, view, final, at, target, limit, bankroll0,
    )  # fmt: skip


def _play(actions, choices, skip, autoreset, limit, call):  # fmt: skip
    """Play one coup on every table not in ``skip``: deal (:func:`~trente_env.croupier.next_coup`),
    make the bets legal and settle them (:func:`~trente_env.croupier.bet_and_settle`), record, then
    write the table's observation into its row of ``view.flat`` (parts placed by ``at``) and whether
    its session is over: ``record.terminated`` (ruin, or ``target`` reached, with nothing in prison)
    and ``record.truncated`` (``limit`` coups played).

    ``call`` holds the tables' arrays and rules (:class:`PlayCall`, made by :func:`_hold`; its own
    fields for the step are ignored: the step's arguments are given apart). Table ``t``'s action is
    ``actions[t]``, or ``actions[choices[t]]`` when ``choices`` holds one entry per table (the
    discrete form: ``actions`` is then its menu of action rows). A table whose shoe needs a shuffle
    takes the next seed of its row of ``seeds`` (``used[t]`` of them are taken).

    ``autoreset`` (:data:`NEXT_STEP`, :data:`SAME_STEP` or :data:`NO_AUTORESET`) says what becomes of
    a table whose session ended: under ``NEXT_STEP`` it is flagged in ``record.pending`` and its
    next call starts its new session instead of playing (reward 0, neither terminated nor
    truncated); under ``SAME_STEP`` its observation is copied into row ``t`` of ``final`` (and
    ``record.ended[t]`` set) before the new session starts at once. ``record.played`` says which
    tables played a coup. Returns how many tables have used every seed of their row (all of them, not
    only those that just did).
    """
    seeds, used, state, record = call.seeds, call.used, call.state, call.record
    _check_play(actions, choices, skip, autoreset, seeds, used, state, record)
    _play_rows(
        0, state.bankroll.shape[0], actions, choices, skip, autoreset, seeds, used, call.rules, state, record,
        call.rows, call.final, call.at, call.target, limit, call.bankroll0,
    )  # fmt: skip
    return _spent(used, seeds.shape[1])


def _play_threads(actions, choices, skip, autoreset, limit, call):  # fmt: skip
    """:func:`_play` on numba's threads: the tables are cut into :data:`THREAD_BLOCKS` blocks, each
    played by one call of :func:`_play_rows` on some thread. The loop's body is that call, which
    reads the arrays from the held arguments (one object: a loop over few variables is quick to
    compile) and writes them in an ordinary function: see :func:`trente_env.jit.parallel` on numba's
    parallel loop and named tuples."""
    seeds, used, state, record = call.seeds, call.used, call.state, call.record
    _check_play(actions, choices, skip, autoreset, seeds, used, state, record)
    n = state.bankroll.shape[0]
    blocks = min(THREAD_BLOCKS, n)
    for c in numba.prange(blocks):
        _play_rows(
            c * n // blocks, (c + 1) * n // blocks, actions, choices, skip, autoreset, call.seeds, call.used,
            call.rules, call.state, call.record, call.rows, call.final, call.at, call.target, limit, call.bankroll0,
        )  # fmt: skip
    return _spent(used, seeds.shape[1])


def _play_held(call):  # fmt: skip
    """:func:`_play` on the arguments held by ``call``, those of the step included (the single
    table's: its action row, or its choice in the menu). It calls :func:`_play_rows` itself, one
    compiled layer fewer on the single table's path."""
    actions, choices, skip, autoreset = call.actions, call.choices, call.skip, call.autoreset
    seeds, used, state, record = call.seeds, call.used, call.state, call.record
    _check_play(actions, choices, skip, autoreset, seeds, used, state, record)
    _play_rows(
        0, state.bankroll.shape[0], actions, choices, skip, autoreset, seeds, used, call.rules, state, record,
        call.rows, call.final, call.at, call.target, call.limit, call.bankroll0,
    )  # fmt: skip
    return _spent(used, seeds.shape[1])


def _restart(rows, call):  # fmt: skip
    """Start a new session on every table in the ``rows`` mask (:func:`_restart_row`), then write
    its observation; the tables' arrays are read from ``call``."""
    state, record, view, at, rules = call.state, call.record, call.rows, call.at, call.rules
    bankroll = state.bankroll
    n_cards = state.shoes.shape[1]
    if rows.shape[0] != bankroll.shape[0]:
        raise ValueError("_restart: rows need one flag per table")
    for t in range(rows.shape[0]):
        if rows[t]:
            _restart_row(
                t, bankroll, state.prison, state.coups, state.results, state.couleurs, state.seen, state.needs_shuffle,
                state.pos, record.terminated, record.pending, n_cards, call.bankroll0,
            )  # fmt: skip
            _observe_row(t, state, view, at, rules.burn, rules.dead_cards)


# Reading a structref needs numba's reference counting: these are not hot (the coup loop they call is).
_hold = jit.kernel(_hold)
_play_held = jit.kernel(_play_held)
_play_serial = jit.kernel(_play)
_play_parallel = jit.parallel(_play_threads)
_restart_serial = jit.kernel(_restart)

#: What a table owns beyond its arrays, bytes: its shuffling generator (a numpy ``Generator``, some
#: 940 bytes) and its entries in the lists that hold the generators.
GENERATOR_BYTES = 1024


def table_bytes(rules: RuleSet, history: int, width: int) -> int:
    """The memory one table of :class:`Tables` takes, bytes: its arrays (the shoe, the state, the
    coup's record, two observation rows, the shuffle seeds drawn ahead) and its generator."""
    words = 3 + 8 + 2 * 2 * history + SHOE_SIZE + 1 + 3 * 4 + len(COUP_COLUMNS) + SEED_BATCH  # 8-byte numbers
    return rules.n_cards + 8 * words + 2 * 4 * width + 8 + GENERATOR_BYTES  # + uint8 cards, float32 rows, bools


def machine_memory() -> int | None:
    """The memory this process may use, bytes: the machine's physical memory, or its control
    group's limit when lower (None where neither can be read)."""
    try:
        have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        have = None
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as file:
                text = file.read().strip()
        except OSError:
            continue
        if text.isdigit():
            have = int(text) if have is None else min(have, int(text))
    return have


def _gigabytes(n: int) -> str:
    return f"{n / 1e9:,.1f} GB"


class Tables:
    """N tables with the same rules, each with its own shoe, generator, bankroll and prisoners.

    :param rules: the house rules of every table.
    :param n: the number of tables.
    :param bankroll: each player's starting bankroll, in units.
    :param history: how many past coups the scoreboard keeps.
    :param target: a session ends when the bankroll reaches this with nothing in prison (None: never).
    :param track_shoe: keep count of the cards seen since the last shuffle (for ``observe_shoe``).
    :param offsets: where each part of :data:`~trente_env.codes.OBS_PARTS` starts in a row of
        :attr:`flat` (absent parts may be left out); the kernels write every table's observation there.
    :param width: the length of a row of :attr:`flat`.
    :param one_hot: write the scoreboard one-hot into :attr:`flat` (otherwise read
        :attr:`results` and :attr:`couleurs`).
    :param threads: play the tables on numba's threads (True), on one (False), or on threads from
        :data:`PARALLEL_FROM` tables on (None). Threads pay on idle cores only: on a machine whose
        cores are busy with other work, the threaded loop waits for its slowest thread (10 to 25%
        slower than one thread at 1,000 tables on a 2-core host with both cores busy): pass False.

    The state of every table is :attr:`state` (its arrays are also attributes: :attr:`bankroll`,
    :attr:`prison`, :attr:`results`...), what the last coup did is :attr:`record` (:attr:`reward`,
    :attr:`placed`, :attr:`back`, :attr:`coup`...). They are updated in place, never replaced.

    Money is bounded: the bankroll and the target are at most :data:`~trente_env.rules.MAX_MONEY`
    units (the rules bound the table maximum the same way), so every amount stays exact in float64.
    """

    def __init__(
        self,
        rules: RuleSet,
        n: int,
        bankroll: float,
        history: int,
        *,
        target: float | None = None,
        track_shoe: bool = False,
        offsets: dict[str, int] | None = None,
        width: int = 10,
        one_hot: bool = False,
        threads: bool | None = None,
        menu: np.ndarray | None = None,
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"need a whole number of tables, at least one, got {n!r}")
        if isinstance(history, bool) or not isinstance(history, (int, np.integer)) or history < 1:
            raise ValueError(f"the scoreboard must keep a whole number of coups, at least one, got history={history!r}")
        if history < rules.rig_memory:  # the rigged table pays Noir by its last coups (rules.rig_pattern)
            raise ValueError(f"this rigged table reads the last {rules.rig_memory} coups: history must keep as many")
        need, have = int(n) * table_bytes(rules, int(history), int(width)), machine_memory()
        if have is not None and need > have:
            raise ValueError(
                f"{int(n):,} tables would need about {_gigabytes(need)} of memory; this machine has {_gigabytes(have)}"
            )
        if not 0 < bankroll <= MAX_MONEY:
            raise ValueError(f"the starting bankroll must be positive, at most {MAX_MONEY:.0e} units, got {bankroll!r}")
        if target is not None and not 0 < target <= MAX_MONEY:
            raise ValueError(f"the target must be positive and at most {MAX_MONEY:.0e} units, got {target}")
        self.rules = rules
        self.n = n = int(n)
        self.initial_bankroll = float(bankroll)
        self.history = history = int(history)
        self.target = np.inf if target is None else float(target)
        self.track_shoe = track_shoe
        if offsets is None:
            offsets = {"bankroll": 0, "coups": 1, "prison": 2}
        _check_layout(offsets, width, history, one_hot)
        self.one_hot = one_hot
        self.table_rules = table_rules(rules)
        full = composition(rules.decks) // 2  # half of each value is black, half red
        self.state = TableState(
            shoes=np.tile(self.table_rules.base, (n, 1)),
            pos=np.full(n, rules.n_cards, dtype=np.int64),
            needs_shuffle=np.ones(n, dtype=np.bool_),
            bankroll=np.full(n, self.initial_bankroll),
            prison=np.zeros((n, 4, 2)),
            coups=np.zeros(n, dtype=np.int64),
            results=np.full((n, history), NO_COUP, dtype=np.int64),
            couleurs=np.full((n, history), UNDECIDED, dtype=np.int64),
            seen=np.zeros((n, SHOE_SIZE), dtype=np.int64),
        )
        self.record = CoupRecord(
            reward=np.zeros(n),
            placed=np.zeros((n, 4)),
            insured=np.zeros((n, 4), dtype=np.bool_),
            back=np.zeros((n, 4)),
            coup=np.zeros((n, len(COUP_COLUMNS)), dtype=np.int64),
            clipped=np.zeros(n, dtype=np.bool_),
            terminated=np.zeros(n, dtype=np.bool_),
            truncated=np.zeros(n, dtype=np.bool_),
            pending=np.zeros(n, dtype=np.bool_),
            played=np.zeros(n, dtype=np.bool_),
            ended=np.zeros(n, dtype=np.bool_),
        )
        self.at = FlatOffsets(*(int(offsets.get(part, -1)) for part in OBS_PARTS))
        self.view = ObservationRows(
            flat=np.zeros((n, width), dtype=np.float32),
            one_hot=one_hot,
            full_shoe=np.concatenate([full, full]).astype(np.int64),
            track_shoe=track_shoe,
        )
        self.final = FinalObservation(
            flat=np.zeros((n, width), dtype=np.float32),
            results=np.full((n, history), NO_COUP, dtype=np.int64),
            couleurs=np.full((n, history), UNDECIDED, dtype=np.int64),
        )
        # the arrays of the bundles by name: the same arrays, updated in place (never replace them)
        state, record = self.state, self.record
        self.shoes, self.pos, self.needs_shuffle = state.shoes, state.pos, state.needs_shuffle
        self.bankroll, self.prison, self.coups = state.bankroll, state.prison, state.coups
        self.results, self.couleurs, self.seen = state.results, state.couleurs, state.seen
        self.reward, self.placed, self.insured, self.back = record.reward, record.placed, record.insured, record.back
        self.coup, self.clipped, self.terminated = record.coup, record.clipped, record.terminated
        self.truncated, self.played, self.ended = record.truncated, record.played, record.ended
        self.flat, self.full_shoe, self.base = self.view.flat, self.view.full_shoe, self.table_rules.base
        # the next seeds of each table's generator, drawn a batch at a time (one at a time for a single
        # table, whose generator is also the single env's np_random), and how many of them are used
        self._seeds = np.zeros((n, 1 if n == 1 else SEED_BATCH), dtype=np.uint64)
        self._used = np.full(n, self._seeds.shape[1], dtype=np.int64)
        self._no_skip = np.zeros(n, dtype=np.bool_)
        self._no_choice = np.zeros(0, dtype=np.int64)
        self._one_action = np.zeros((1, ACTION_WIDTH))  # the single table's action, in a buffer of fixed type
        self._action_shape = (n, ACTION_WIDTH)
        # the kernel's arguments after the autoreset mode (fixed objects, updated in place)
        self._args = (
            self._seeds, self._used, self.table_rules, state, record, self.view, self.final, self.at, self.target,
        )  # fmt: skip
        self._one_choice = np.zeros(1, dtype=np.int64)  # the single table's row of the menu
        self._one_args = (self._one_action, self._no_choice, self._no_skip, NO_AUTORESET, *self._args, NO_LIMIT,
                          self.initial_bankroll)  # fmt: skip
        #: the discrete form's action rows, for :meth:`choose_one` (None: no menu)
        self.menu = None if menu is None else _of_one_type(menu, np.float64)
        self._held: list[Callable[[], Any]] = []  # the single table's two calls, once made (_hold_calls)
        self._call_held: PlayCall | None = None  # the kernels' arguments in one object, once made (_tables_call)
        self._entries: dict = {}  # each kernel's compiled entry point, once called (see _call)
        self.generators: list[np.random.Generator | np.random.BitGenerator] = []
        self._bit_generators: list[np.random.BitGenerator] = []  # the generators' bit generators (seed)
        parallel = n >= PARALLEL_FROM if threads is None else bool(threads)
        self._play_kernel = _play_parallel if parallel else _play_serial
        self._restart_kernel = _restart_serial  # (some 50 ns a table: not worth numba's threads)
        self._all = np.ones(n, dtype=np.bool_)
        self._spent = n  # tables whose every drawn seed is used (all, before the first draw)
        self.reset_rows()  # every observation written, the one-hot scoreboard included

    def seed(self, generators: Sequence[np.random.Generator | np.random.BitGenerator]) -> None:
        """Give every table its shuffling generator (a :class:`numpy.random.Generator`, or the bit
        generator of one: a table draws only its raw outputs, see :func:`shuffling_generators`)."""
        if len(generators) != self.n:
            raise ValueError(f"need {self.n} generators, got {len(generators)}")
        self.generators = list(generators)
        self._bit_generators = [getattr(g, "bit_generator", g) for g in self.generators]
        self._used[:] = self._seeds.shape[1]  # the seeds drawn from the old generators are dropped
        self._spent = self.n

    def reset_rows(self, rows: np.ndarray | None = None) -> None:
        """Start new sessions on the tables in ``rows`` (a boolean mask; all when None).

        The bankroll is restored, prisoners and the scoreboard cleared, and the shoe will be
        shuffled before the next coup. The observations of those tables are rewritten.
        """
        mask = self._all if rows is None else self._mask(rows, "rows")
        self._call(self._restart_kernel, (mask, self._tables_call()))

    def play(self, actions: np.ndarray, skip: np.ndarray | None = None) -> None:
        """Play one coup on every table (except the ``skip`` mask) with ``actions`` of shape (n, 12).

        Results land in :attr:`record` (:attr:`reward`, :attr:`placed`, :attr:`insured`,
        :attr:`back`, :attr:`coup`, :attr:`clipped`, :attr:`terminated`) and :attr:`flat`; rows of
        skipped tables keep their last values. Actions of another shape, or not numbers, raise
        ValueError. A session that ends stays over until :meth:`reset_rows` (see :meth:`step`).
        """
        if type(actions) is not np.ndarray:
            actions = np.asarray(actions)
        if actions.shape != self._action_shape or actions.dtype.kind not in "biuf":
            raise ValueError(
                f"actions are {ACTION_WIDTH} numbers per table, shape ({self.n}, {ACTION_WIDTH}); "
                f"got shape {actions.shape} of {actions.dtype}"
            )
        skip = self._no_skip if skip is None else self._mask(skip, "skip")
        self._run(actions, self._no_choice, skip, NO_AUTORESET, NO_LIMIT)

    def play_one(self, row: np.ndarray) -> None:
        """:meth:`play` for a single table, with its action row of shape (12,) or (1, 12) already
        checked (the single environment's step: :meth:`~trente_env.layout.Layout.action_row`)."""
        self._one_action[...] = row  # the single table's action, without allocating (made float64 here)
        self._play_one(0)

    def choose_one(self, choice: int) -> None:
        """:meth:`play_one` with row ``choice`` of :attr:`menu` (the discrete form's action number,
        checked by the caller; the kernel raises ValueError outside the menu)."""
        self._one_choice[0] = choice
        self._play_one(1)

    def _play_one(self, which: int) -> None:
        if self._spent and self.needs_shuffle.item(0):
            if not self.generators:  # (a table without generators has spent its seeds, none drawn)
                raise RuntimeError("give the tables their generators (seed) before playing")
            self._draw_seeds()
        self._spent = (self._held or self._hold_calls())[which]()

    def _hold_calls(self) -> list[Callable[[], Any]]:
        """The single table's calls of the kernel, as functions of no argument: its own action row
        (:meth:`play_one`), and its row of the menu (:meth:`choose_one`). Each holds its arguments in
        one :class:`PlayCall` and calls :func:`_play_held`'s compiled entry point on it (a pointer
        to convert instead of every array)."""
        if self.n != 1:
            raise ValueError(f"play_one and choose_one play a single table; these are {self.n}")
        menu = self._one_action if self.menu is None else self.menu
        choose = _hold(menu, self._one_choice, *self._one_args[2:])
        for held in (self._tables_call(), choose):
            self._held.append(functools.partial(jit.compiled_entry(_play_held, (held,)), held))
        return self._held

    def _tables_call(self) -> PlayCall:
        """The kernels' arguments in one :class:`PlayCall` (those of the single table's step with them:
        its own action row, no autoreset, no limit), made once."""
        if self._call_held is None:
            self._call_held = _hold(*self._one_args)
        return self._call_held

    def step(
        self, actions: np.ndarray, choices: np.ndarray | None = None, *, autoreset: int, limit: int | None = None
    ) -> None:
        """One step of every table for an environment: a coup, or a new session where one is due.

        :param actions: the (n, 12) action rows; or, with ``choices``, the menu of action rows of the
            discrete form (``choices[t]`` is table ``t``'s row; their shapes and types are checked by the
            caller; a choice outside the menu raises ValueError before any table plays).
        :param autoreset: :data:`NEXT_STEP` or :data:`SAME_STEP`: how a table whose session ended
            starts its next one (:attr:`record`'s ``pending`` and ``ended``; the last observation of a
            session restarted in the same step is kept in :attr:`final`).
        :param limit: coups per session before it is truncated (None: no limit).
        """
        choices = self._no_choice if choices is None else choices
        self._run(actions, choices, self._no_skip, autoreset, NO_LIMIT if limit is None else limit)

    def _run(self, actions: np.ndarray, choices: np.ndarray, skip: np.ndarray, autoreset: int, limit: int) -> None:
        if not self.generators:
            raise RuntimeError("give the tables their generators (seed) before playing")
        if self._spent and (self.n > 1 or self.needs_shuffle[0]):
            self._draw_seeds()
        if self.n == 1 and choices.size == 0:
            self._one_action[...] = actions  # the single table's action, without allocating
            actions = self._one_action
        else:  # int64 rows (the action space's samples, SB3's actions) as they are: a kernel entry of their own
            actions = _of_one_type(actions, np.int64 if actions.dtype == np.int64 else np.float64)
        args = (actions, choices, skip, autoreset, limit, self._tables_call())
        self._spent = self._call(self._play_kernel, args)

    def _draw_seeds(self) -> None:
        """Draw the next seeds of every table that has used all those drawn before, and of every
        table that has used most of them (:data:`REFILL_FROM`).

        The seeds of a table's shuffles are the raw 64-bit outputs of its generator, in order, as
        :func:`~trente_env.dealer.shuffle_seeds` draws them; they are drawn up to :data:`SEED_BATCH`
        at a time (one call to the generator per batch instead of one per shuffle), so the generator
        runs ahead of the shuffles by up to a batch. A table refilled before it has used them all keeps
        its unused seeds first, in order, and the new ones after them. Refilling the tables that are
        nearly out together means a draw every few hundred steps rather than one at nearly every step
        (a fixed cost of some 30 us each, 8% of a step at 1,000 tables whose sessions end often).
        The generator serves nothing else, and a new generator (:meth:`seed`) drops the batch. A
        single table draws its seeds one at a time: its generator is the single environment's
        ``np_random``, which a reset hands over again.
        """
        seeds, used, generators = self._seeds, self._used, self._bit_generators
        if self.n == 1:  # one seed at a time (the single environment's step: no arrays to build)
            seeds[0, 0] = generators[0].random_raw()
            used[0] = 0
            self._spent = 0
            return
        size = seeds.shape[1]
        due = used >= REFILL_FROM
        for i, u in zip(np.flatnonzero(due).tolist(), used[due].tolist(), strict=True):
            seeds[i, : size - u] = seeds[i, u:]  # the seeds not used yet, still first
            seeds[i, size - u :] = generators[i].random_raw(u)
        used[due] = 0
        self._spent = 0

    def _mask(self, rows: np.ndarray, name: str) -> np.ndarray:
        """``rows`` as a mask of the tables (one boolean per table: C-contiguous, writable, aligned),
        or ValueError."""
        mask = np.asarray(rows)
        if mask.shape != (self.n,) or mask.dtype != np.bool_:
            raise ValueError(f"{name} must be {self.n} booleans, one per table; got shape {mask.shape} of {mask.dtype}")
        return _of_one_type(mask, np.bool_)

    def _call(self, kernel: Callable, args: tuple) -> Any:
        """Run ``kernel`` on ``args``, through its compiled entry point after the first call.

        Every argument of the table's kernels but the first has one type for the life of the tables:
        the held arguments (:meth:`_tables_call`) and the scalars are fixed when the tables are built
        (a held object is converted as one pointer, not array by array), and the masks are made bool
        arrays, C-contiguous, writable and aligned (:func:`_of_one_type`). The first (the actions,
        or the mask of :meth:`reset_rows`) is such an array of one of a few dtypes (the actions
        float64, or int64 as the action space samples them: no copy of the batch), and each kernel
        has one entry per dtype and number of dimensions. So numba's type dispatch, about 1 µs per
        array and several per bundle (a fifth of a single table's step), is done once per kernel and
        dtype (:func:`~trente_env.jit.entry_point`).
        """
        key = (kernel, args[0].dtype, args[0].ndim)
        entry = self._entries.get(key)
        if entry is None:
            out = kernel(*args)
            self._entries[key] = jit.entry_point(kernel, args)
            return out
        return entry(*args)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_entries"] = {}  # compiled functions: found again after unpickling
        state["_held"] = []  # numba's objects, which hold the arrays: made again after unpickling
        state["_call_held"] = None
        return state

    def cards(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """The Noir and Rouge rows of table ``i``'s last coup (card codes)."""
        start, middle, end = self.record.coup[i, 4:7].tolist()
        cards = self.state.shoes[i, start:end].copy()
        return cards[: middle - start], cards[middle - start :]


def _of_one_type(a: np.ndarray, dtype: type) -> np.ndarray:
    """``a`` as a C-contiguous, writable and aligned array of ``dtype``: one numba type for any input
    of that dtype and number of dimensions (a copy only when ``a`` is not such an array already)."""
    a = np.ascontiguousarray(a, dtype=dtype)
    flags = a.flags
    return a if flags.writeable and flags.aligned else a.copy()


def _check_layout(offsets: dict[str, int], width: int, history: int, one_hot: bool) -> None:
    """ValueError unless every part the kernels write lies inside a row of ``width`` numbers.

    The bankroll, the coups and the prisoners are always written; the scoreboard when ``one_hot``;
    the shoe and the cards left together or not at all.
    """
    unknown = set(offsets) - set(OBS_PARTS)
    required = {"bankroll", "coups", "prison"} | (set(SCOREBOARD_PARTS) if one_hot else set())
    shoe = [part in offsets for part in SHOE_PARTS]
    if unknown or not required <= set(offsets) or any(shoe) != all(shoe):
        raise ValueError(f"an observation layout places {sorted(required)} (and shoe with cards_left), got {offsets}")
    for part, at in offsets.items():
        size = part_size(part, history if one_hot else 0)  # the scoreboard is written one-hot, or not at all
        if not (isinstance(at, (int, np.integer)) and at >= 0 and at + size <= width):
            raise ValueError(f"the observation part {part!r} at {at} does not fit in a row of {width} numbers")


__all__ = [
    "COUP_COLUMNS",
    "NEXT_STEP",
    "NO_AUTORESET",
    "SAME_STEP",
    "CoupRecord",
    "FinalObservation",
    "FlatOffsets",
    "ObservationRows",
    "TableState",
    "Tables",
    "shuffling_generators",
]

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

The compiled kernels live in :mod:`trente_env.table_kernels`, with the bundles they take:
:class:`TableState` (every table's shoe, money and scoreboard), :class:`CoupRecord` (what the last
coup did at each table), :class:`ObservationRows` (where each table's observation is written) and
:class:`~trente_env.table_kernels.PlayArgs` (all of them, as the kernels take them).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from trente_env import jit
from trente_env.cards import composition
from trente_env.codes import (
    ACTION_WIDTH,
    NO_COUP,
    OBS_PARTS,
    SCOREBOARD_PARTS,
    SHOE_PARTS,
    SHOE_SIZE,
    UNDECIDED,
    part_size,
)
from trente_env.croupier import table_rules
from trente_env.rules import MAX_MONEY, RuleSet
from trente_env.seeding import REFILL_FROM, SEED_BATCH, shuffling_generators
from trente_env.table_kernels import (
    COUP_COLUMNS,
    NEXT_STEP,
    NO_AUTORESET,
    SAME_STEP,
    CoupRecord,
    FinalObservation,
    FlatOffsets,
    ObservationRows,
    PlayArgs,
    PlayCall,
    TableState,
    hold,
    observe_tables,
    play_held,
    play_parallel,
    play_serial,
    restart_serial,
)
from trente_env.whole import is_whole

#: No limit of coups per session (the kernel's ``limit``).
NO_LIMIT = np.iinfo(np.int64).max
#: Tables at or above this count are played by the multi-threaded kernels (by default). numba's threads
#: run on TBB (:mod:`trente_env.jit`), which enters a parallel loop in a few microseconds: 1,000 tables,
#: about 280 us of one thread's work a step, gain from a second idle core; ``python -m
#: benchmarks.bench_kernel`` measures both.
PARALLEL_FROM = 1000

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
    group's limit when lower, or what is left of its address-space limit (``ulimit -v``) when lower
    still (None where none can be read)."""
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
    room = _address_space_left()
    return room if have is None or (room is not None and room < have) else have


def _address_space_left() -> int | None:
    """Bytes this process may still map under its address-space limit (None: no limit, or not known)."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, AttributeError, ValueError, OSError):  # not POSIX
        return None
    if limit == resource.RLIM_INFINITY or limit < 0:
        return None
    try:
        with open("/proc/self/statm") as file:  # the first number: pages mapped now
            mapped = int(file.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        mapped = 0
    return max(limit - mapped, 0)


class TooManyTables(ValueError):
    """More tables than this process's memory holds: refused before any is allocated."""


def _is_number(value: Any) -> bool:
    """A real number of units (a bool, text, None or a list is not one, whatever it converts to)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


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
        if not is_whole(n, 1):
            raise ValueError(f"need a whole number of tables, at least one, got {n!r}")
        if not is_whole(history, 1):
            raise ValueError(f"the scoreboard must keep a whole number of coups, at least one, got history={history!r}")
        if history < rules.rig_memory:  # the rigged table pays Noir by its last coups (rules.rig_pattern)
            raise ValueError(f"this rigged table reads the last {rules.rig_memory} coups: history must keep as many")
        need, have = int(n) * table_bytes(rules, int(history), int(width)), machine_memory()
        if have is not None and need > have:
            raise TooManyTables(
                f"{int(n):,} tables would need about {_gigabytes(need)} of memory; this machine has {_gigabytes(have)}"
            )
        if not _is_number(bankroll):
            raise ValueError(f"the starting bankroll must be a number of units, got {bankroll!r}")
        if not 0 < bankroll <= MAX_MONEY:
            raise ValueError(f"the starting bankroll must be positive, at most {MAX_MONEY:.0e} units, got {bankroll!r}")
        if target is not None and not _is_number(target):
            raise ValueError(f"the target must be a number of units, got {target!r}")
        if threads is not None and not isinstance(threads, (bool, np.bool_)):
            raise ValueError(f"threads must be True, False or None (from {PARALLEL_FROM:,} tables), got {threads!r}")
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
        self.at, self.view = observation_rows(rules, n, offsets, width, one_hot, track_shoe)
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
        #: the tables' side of the kernels' arguments (fixed objects, updated in place)
        self.args = PlayArgs(
            self._seeds, self._used, self.table_rules, state, record, self.view, self.final, self.at, self.target,
            self.initial_bankroll,
        )  # fmt: skip
        self._one_choice = np.zeros(1, dtype=np.int64)  # the single table's row of the menu
        # the single table's step (its own action row, no autoreset, no limit): the arguments of hold
        self._one_args = (self._one_action, self._no_choice, self._no_skip, NO_AUTORESET, NO_LIMIT, self.args)
        #: the discrete form's action rows, for :meth:`choose_one` (None: no menu)
        self.menu = None if menu is None else _of_one_type(menu, np.float64)
        self._held: list[Callable[[], Any]] = []  # the single table's two calls, once made (_hold_calls)
        self._call_held: PlayCall | None = None  # the kernels' arguments in one object, once made (_tables_call)
        self._entries: dict = {}  # each kernel's compiled entry point, once called (see _call)
        self.generators: list[np.random.Generator | np.random.BitGenerator] = []
        self._bit_generators: list[np.random.BitGenerator] = []  # the generators' bit generators (seed)
        parallel = n >= PARALLEL_FROM if threads is None else bool(threads)
        self._play_kernel = play_parallel if parallel else play_serial
        self._restart_kernel = restart_serial  # (some 50 ns a table: not worth numba's threads)
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
        one :class:`~trente_env.table_kernels.PlayCall` and calls the compiled entry point of
        :func:`~trente_env.table_kernels.play_held` on it (a pointer to convert instead of every array)."""
        if self.n != 1:
            raise ValueError(f"play_one and choose_one play a single table; these are {self.n}")
        menu = self._one_action if self.menu is None else self.menu
        choose = hold(menu, self._one_choice, *self._one_args[2:])
        for held in (self._tables_call(), choose):
            self._held.append(functools.partial(jit.compiled_entry(play_held, (held,)), held))
        return self._held

    def _tables_call(self) -> PlayCall:
        """The kernels' arguments in one :class:`~trente_env.table_kernels.PlayCall` (those of the single
        table's step with them: its own action row, no autoreset, no limit), made once."""
        if self._call_held is None:
            self._call_held = hold(*self._one_args)
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


def observation_rows(
    rules: RuleSet, n: int, offsets: dict[str, int], width: int, one_hot: bool, track_shoe: bool
) -> tuple[FlatOffsets, ObservationRows]:
    """Where the kernels write ``n`` tables' observations: each part's offset (``offsets``, -1 for a
    part left out) and the rows of ``width`` numbers (see :class:`Tables` for the arguments)."""
    full = composition(rules.decks) // 2  # half of each value is black, half red
    at = FlatOffsets(*(int(offsets.get(part, -1)) for part in OBS_PARTS))
    rows = ObservationRows(
        flat=np.zeros((n, width), dtype=np.float32),
        one_hot=one_hot,
        full_shoe=np.concatenate([full, full]).astype(np.int64),
        track_shoe=track_shoe,
    )
    return at, rows


def observe_state(rules: RuleSet, state: TableState, offsets: dict[str, int], width: int, one_hot: bool) -> np.ndarray:
    """The observation rows, (n, ``width``) float32, of tables in ``state`` whose coups were played
    elsewhere (the classroom's seats: the teacher deals, the settlement is the croupier's), written by
    the kernel that writes every table's observation (parts placed by ``offsets``; the shoe's parts
    need the shoe's state, which such tables do not keep: leave them out)."""
    _check_layout(offsets, width, state.results.shape[1], one_hot)
    if any(part in offsets for part in SHOE_PARTS):
        raise ValueError("tables played elsewhere keep no shoe: leave the shoe out of their observation")
    at, rows = observation_rows(rules, state.bankroll.shape[0], offsets, width, one_hot, False)
    observe_tables(state, rows, at, rules.burn, rules.dead_cards)
    return rows.flat


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
    "PlayArgs",
    "TableState",
    "Tables",
    "TooManyTables",
    "observation_rows",
    "observe_state",
    "shuffling_generators",
]

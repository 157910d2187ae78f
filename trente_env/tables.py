"""Tables played in lockstep: the state of N tables and the compiled kernel that plays one coup on each.

This is the engine room of the environments, and it imports no gymnasium. The single environment
is one :class:`Tables` of one table; the vector environment is one :class:`Tables` of N tables. Both
run the same kernel, which plays each table's coup with the croupier's compiled steps
(:func:`~trente_env.croupier.next_coup` deals it with the dealer's own kernels,
:func:`~trente_env.croupier.bet_and_settle` settles every box with the settlement's own
:func:`~trente_env.settle.settle_box`), so there is one copy of the rules.

Randomness: each table owns a :class:`numpy.random.Generator`, used for nothing but shuffles. A
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

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numba
import numpy as np

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

#: Columns of :attr:`Tables.coup`: what was dealt on each table in the last coup.
COUP_COLUMNS = ("noir", "rouge", "result", "couleur", "start", "middle", "end", "reshuffle")
#: Tables at or above this count are played by the multi-threaded kernels.
PARALLEL_FROM = 4096


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


def _play(actions, skip, seeds, rules, state, record, view, at, target):  # fmt: skip
    """Play one coup on every table not in ``skip``: deal (:func:`~trente_env.croupier.next_coup`),
    make the bets legal and settle them (:func:`~trente_env.croupier.bet_and_settle`), record.

    Table ``t`` reads row ``t`` of every array: ``seeds[t]`` is the seed of its shuffle if its shoe
    needs one (written for every such table before the call; ignored otherwise). Then write the
    table's observation into its row of ``view.flat`` (parts placed by ``at``) and whether its
    session is over (ruin, or ``target`` reached, with nothing in prison) into ``record.terminated``.
    """
    # Every array written in the loop is taken from its bundle before it, one attribute a statement:
    # numba's parallel loop loses a write made in its body straight into an array of a named tuple, or
    # into one unpacked with `a, b = ...` (numba 0.68; see trente_env.jit.parallel). The loop's body
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
    track_shoe = view.track_shoe
    table_min = rules.table_min
    n = bankroll.shape[0]
    if (actions.shape[0] != n) | (actions.shape[1] != ACTION_WIDTH) | (skip.shape[0] != n) | (seeds.shape[0] != n):
        raise ValueError("_play: actions, skip and seeds need one row per table")
    k = results.shape[1]
    for t in numba.prange(n):
        if skip[t]:
            continue
        cards = shoes[t]
        if needs_shuffle[t] & track_shoe:
            seen[t, :] = 0
        noir, rouge, result, couleur, start, middle, end, reshuffle = next_coup(
            cards, pos[t], needs_shuffle[t], seeds[t], rules
        )
        before = bankroll[t]
        bankroll[t], clipped[t] = bet_and_settle(
            actions[t], before, prison[t], result, couleur, results[t, 0], rules, placed[t], insured[t], back[t]
        )
        reward[t] = bankroll[t] - before
        coups[t] += 1
        for j in range(k - 1, 0, -1):
            results[t, j] = results[t, j - 1]
            couleurs[t, j] = couleurs[t, j - 1]
        results[t, 0] = result
        couleurs[t, 0] = scoreboard_couleur(result, couleur)
        if track_shoe:
            if reshuffle:
                seen[t, :] = 0
            else:
                for i in range(start, end):
                    c = cards[i]
                    seen[t, (0 if CARD_BLACK[c] else 10) + CARD_VALUE[c] - 1] += 1
        pos[t] = end
        needs_shuffle[t] = reshuffle
        coup[t, 0] = noir
        coup[t, 1] = rouge
        coup[t, 2] = result
        coup[t, 3] = couleur
        coup[t, 4] = start
        coup[t, 5] = middle
        coup[t, 6] = end
        coup[t, 7] = reshuffle
        terminated[t] = is_free(prison[t]) & ((bankroll[t] < table_min) | (bankroll[t] >= target))
        _observe_row(t, state, view, at, rules.burn, rules.dead_cards)


def _observe_row(t, state, view, at, burn, dead_cards):  # fmt: skip
    """Write table ``t``'s observation into row ``t`` of ``view.flat``, each part where ``at`` places
    it (the parts at -1 are left out)."""
    flat = view.flat
    results, couleurs = state.results, state.couleurs
    k = results.shape[1]
    flat[t, at.bankroll] = state.bankroll[t]
    flat[t, at.coups] = state.coups[t]
    for b in range(4):
        flat[t, at.prison + b] = state.prison[t, b, 0]
        flat[t, at.prison + 4 + b] = state.prison[t, b, 1]
    if view.one_hot:  # each entry of the scoreboard as a block of zeros with a one at its code
        for i in range(COULEUR_CODES * k):
            flat[t, at.couleur + i] = 0.0
        for i in range(RESULT_CODES * k):
            flat[t, at.results + i] = 0.0
        for j in range(k):
            c = couleurs[t, j]
            if (c >= 0) & (c < COULEUR_CODES):
                flat[t, at.couleur + COULEUR_CODES * j + c] = 1.0
            r = results[t, j]
            if (r >= 0) & (r < RESULT_CODES):
                flat[t, at.results + RESULT_CODES * j + r] = 1.0
    if at.shoe >= 0:
        n_cards = state.shoes.shape[1] - dead_cards  # the dead cards are never dealt, so not left to deal
        flat[t, at.cards_left] = n_cards - burn if state.needs_shuffle[t] else n_cards - state.pos[t]
        for i in range(SHOE_SIZE):
            flat[t, at.shoe + i] = view.full_shoe[i] - state.seen[t, i]


def _restart(rows, state, record, view, at, rules, bankroll0):  # fmt: skip
    """Start a new session on every table in the ``rows`` mask: the bankroll back to ``bankroll0``,
    no prisoners, an empty scoreboard, no cards seen, a shoe to be shuffled before the next coup,
    not terminated; then write its observation."""
    shoes = state.shoes
    pos = state.pos
    needs_shuffle = state.needs_shuffle
    seen = state.seen
    bankroll = state.bankroll
    prison = state.prison
    coups = state.coups
    results = state.results
    couleurs = state.couleurs
    terminated = record.terminated
    n_cards = shoes.shape[1]
    if rows.shape[0] != bankroll.shape[0]:
        raise ValueError("_restart: rows need one flag per table")
    for t in numba.prange(rows.shape[0]):
        if not rows[t]:
            continue
        bankroll[t] = bankroll0
        prison[t, :, :] = 0.0
        coups[t] = 0
        results[t, :] = NO_COUP
        couleurs[t, :] = UNDECIDED
        seen[t, :] = 0
        needs_shuffle[t] = True
        pos[t] = n_cards
        terminated[t] = False
        _observe_row(t, state, view, at, rules.burn, rules.dead_cards)


_observe_row = jit.inline(_observe_row)
_play_serial = jit.kernel(_play)
_play_parallel = jit.parallel(_play)
_restart_serial = jit.kernel(_restart)
_restart_parallel = jit.parallel(_restart)

#: Seeds drawn at once from a table's generator (the seeds of its next shuffles, used in order).
SEED_BATCH = 64


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
        cores are busy with other work, the threaded loop waits for its slowest thread.

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
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"need a whole number of tables, at least one, got {n!r}")
        if isinstance(history, bool) or not isinstance(history, (int, np.integer)) or history < 1:
            raise ValueError(f"the scoreboard must keep a whole number of coups, at least one, got history={history!r}")
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
        )
        self.at = FlatOffsets(*(int(offsets.get(part, -1)) for part in OBS_PARTS))
        self.view = ObservationRows(
            flat=np.zeros((n, width), dtype=np.float32),
            one_hot=one_hot,
            full_shoe=np.concatenate([full, full]).astype(np.int64),
            track_shoe=track_shoe,
        )
        # the arrays of the bundles by name: the same arrays, updated in place (never replace them)
        state, record = self.state, self.record
        self.shoes, self.pos, self.needs_shuffle = state.shoes, state.pos, state.needs_shuffle
        self.bankroll, self.prison, self.coups = state.bankroll, state.prison, state.coups
        self.results, self.couleurs, self.seen = state.results, state.couleurs, state.seen
        self.reward, self.placed, self.insured, self.back = record.reward, record.placed, record.insured, record.back
        self.coup, self.clipped, self.terminated = record.coup, record.clipped, record.terminated
        self.flat, self.full_shoe, self.base = self.view.flat, self.view.full_shoe, self.table_rules.base
        self._seeds = np.zeros(n, dtype=np.uint64)  # the seed of each table's next shuffle
        self._no_skip = np.zeros(n, dtype=np.bool_)
        self._one_action = np.zeros((1, ACTION_WIDTH))  # the single table's action, in a buffer of fixed type
        self._action_shape = (n, ACTION_WIDTH)
        # the kernel's arguments after the actions and the skip mask (fixed objects, updated in place)
        self._args = (self._seeds, self.table_rules, state, record, self.view, self.at, self.target)
        self._one_args = (self._one_action, self._no_skip, *self._args)
        self._entries: dict = {}  # each kernel's compiled entry point, once called (see _call)
        self.generators: list[np.random.Generator] = []
        parallel = n >= PARALLEL_FROM if threads is None else bool(threads)
        self._play_kernel = _play_parallel if parallel else _play_serial
        self._restart_kernel = _restart_parallel if parallel else _restart_serial
        self._all = np.ones(n, dtype=np.bool_)
        # the next seeds of each table's generator, drawn SEED_BATCH at a time (several tables only)
        self._seed_batch = np.zeros((n, SEED_BATCH), dtype=np.uint64)
        self._seed_used = np.full(n, SEED_BATCH, dtype=np.int64)  # seeds of the batch taken so far

    def seed(self, generators: Sequence[np.random.Generator]) -> None:
        """Give every table its shuffling generator."""
        if len(generators) != self.n:
            raise ValueError(f"need {self.n} generators, got {len(generators)}")
        self.generators = list(generators)
        self._seed_used[:] = SEED_BATCH  # the batches drawn from the old generators are dropped

    def reset_rows(self, rows: np.ndarray | None = None) -> None:
        """Start new sessions on the tables in ``rows`` (a boolean mask; all when None).

        The bankroll is restored, prisoners and the scoreboard cleared, and the shoe will be
        shuffled before the next coup. The observations of those tables are rewritten.
        """
        mask = self._all if rows is None else self._mask(rows, "rows")
        args = (mask, self.state, self.record, self.view, self.at, self.table_rules, self.initial_bankroll)
        self._call(self._restart_kernel, args)

    def play(self, actions: np.ndarray, skip: np.ndarray | None = None) -> None:
        """Play one coup on every table (except the ``skip`` mask) with ``actions`` of shape (n, 12).

        Results land in :attr:`record` (:attr:`reward`, :attr:`placed`, :attr:`insured`,
        :attr:`back`, :attr:`coup`, :attr:`clipped`, :attr:`terminated`) and :attr:`flat`; rows of
        skipped tables keep their last values. Actions of another shape, or not numbers, raise
        ValueError.
        """
        if not self.generators:
            raise RuntimeError("give the tables their generators (seed) before playing")
        if type(actions) is not np.ndarray:
            actions = np.asarray(actions)
        if actions.shape != self._action_shape or actions.dtype.kind not in "biuf":
            raise ValueError(
                f"actions are {ACTION_WIDTH} numbers per table, shape ({self.n}, {ACTION_WIDTH}); "
                f"got shape {actions.shape} of {actions.dtype}"
            )
        if skip is None and self.n == 1:
            if self.needs_shuffle[0]:
                self._seeds[0] = self.generators[0].bit_generator.random_raw()
            self._one_action[...] = actions  # the single table's action, without allocating
            self._call(self._play_kernel, self._one_args)
            return
        skip = self._no_skip if skip is None else self._mask(skip, "skip")
        self._draw_seeds(np.flatnonzero(self.needs_shuffle & ~skip))
        self._call(self._play_kernel, (_of_one_type(actions, np.float64), skip, *self._args))

    def _draw_seeds(self, shuffling: np.ndarray) -> None:
        """Put the seed of its next shuffle in :attr:`_seeds` for each table in ``shuffling``.

        The seeds are the raw 64-bit outputs of the table's generator, in order, as
        :func:`~trente_env.dealer.shuffle_seeds` draws them; they are drawn :data:`SEED_BATCH` at a
        time (one call to the generator per batch instead of one per shuffle), so the generator
        runs ahead of the shuffles by up to a batch. It serves nothing else, and a new generator
        (:meth:`seed`) drops the batch.
        """
        if shuffling.size == 0:
            return
        used = self._seed_used
        batch = self._seed_batch
        generators = self.generators
        for i in shuffling[used[shuffling] == SEED_BATCH].tolist():
            batch[i] = generators[i].bit_generator.random_raw(SEED_BATCH)
            used[i] = 0
        self._seeds[shuffling] = batch[shuffling, used[shuffling]]
        used[shuffling] += 1

    def _mask(self, rows: np.ndarray, name: str) -> np.ndarray:
        """``rows`` as a mask of the tables (one boolean per table: C-contiguous, writable, aligned),
        or ValueError."""
        mask = np.asarray(rows)
        if mask.shape != (self.n,) or mask.dtype != np.bool_:
            raise ValueError(f"{name} must be {self.n} booleans, one per table; got shape {mask.shape} of {mask.dtype}")
        return _of_one_type(mask, np.bool_)

    def _call(self, kernel: Callable, args: tuple) -> None:
        """Run ``kernel`` on ``args``, through its compiled entry point after the first call.

        Every argument of the table's kernels has one type for the life of the tables: the bundles
        and scalars are fixed when the tables are built, and the actions and masks are made float64
        or bool arrays, C-contiguous, writable and aligned (:func:`_of_one_type`). So numba's type
        dispatch, about 1 µs per array and several per bundle (a fifth of a single table's step), is
        done once per kernel (:func:`~trente_env.jit.entry_point`).
        """
        entry = self._entries.get(kernel)
        if entry is None:
            kernel(*args)
            self._entries[kernel] = jit.entry_point(kernel, args)
        else:
            entry(*args)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_entries"] = {}  # compiled functions: found again after unpickling
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


__all__ = ["COUP_COLUMNS", "CoupRecord", "FlatOffsets", "ObservationRows", "TableState", "Tables"]

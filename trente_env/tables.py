"""Tables played in lockstep: the state of N tables and the compiled kernel that plays one coup on each.

This is the engine room of the environments, and it imports no gymnasium. The single environment
is one :class:`Tables` of one table; the vector environment is one :class:`Tables` of N tables. Both
run the same kernel, which deals with the dealer's own kernels (:func:`~trente_env.dealer.shuffle`,
:func:`~trente_env.dealer.deal_next`) and settles every box with the settlement's own compiled
:func:`~trente_env.settle.settle_box`, so there is one copy of the rules.

Randomness: each table owns a :class:`numpy.random.Generator`, used for nothing but shuffles. A
shuffle takes one seed from it (:func:`~trente_env.dealer.shuffle_seeds`), exactly as
:class:`~trente_env.dealer.Shoe` does,
so table ``i`` deals the same coups as a ``Shoe`` (or :func:`~trente_env.dealer.deal_coups`) fed
by the same generator. A table starts every session on a freshly shuffled shoe.

An action for one table is a row of :data:`ACTION_WIDTH` numbers::

    [stake Noir, stake Rouge, stake Couleur, stake Inverse,      # units
     insure Noir, ..., insure Inverse,                           # > 0.5 means insured
     prison Noir, ..., prison Inverse]                           # > 0.5: prison on a refait (choice rule)

Before the deal every row is made legal, box by box in layout order (:func:`make_legal`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from trente_env import jit
from trente_env.cards import CARD_BLACK, CARD_VALUE, composition, new_shoe
from trente_env.coup import Result, decide
from trente_env.dealer import deal_next, shuffle
from trente_env.rules import MAX_MONEY, RuleSet
from trente_env.settle import _paid, _settle_box, rule_codes

ACTION_WIDTH = 12
#: History code of a coup not played yet (the other codes are :class:`~trente_env.coup.Result`).
NO_COUP = 5
#: History codes for the Couleur/Inverse column of the scoreboard.
COULEUR_WINS, INVERSE_WINS, UNDECIDED = 0, 1, 2
#: The parts of an observation, in the order of the kernels' ``offsets`` array.
OBS_PARTS = ("bankroll", "cards_left", "coups", "couleur", "prison", "results", "shoe")
#: Columns of :attr:`Tables.coup`: what was dealt on each table in the last coup.
COUP_COLUMNS = ("noir", "rouge", "result", "couleur", "start", "middle", "end", "reshuffle")
#: Tables at or above this count are played by the multi-threaded kernels.
PARALLEL_FROM = 4096

_VALUE = CARD_VALUE.copy()
_BLACK = CARD_BLACK.copy()
_decide = jit.kernel(decide)


def make_legal(
    want: float,
    insure: bool,
    avail: float,
    is_open: bool,
    insurance: bool,
    rate: float,
    table_min: float,
    table_max: float,
) -> tuple[float, bool]:
    """The stake a box really takes, and whether it is insured (SPEC 2.5, 7).

    A negative, NaN or closed-box stake is 0; a stake over the table maximum is cut to the maximum;
    a stake whose cost (with its premium, :func:`~trente_env.settle.paid`) is over ``avail``, the
    money not yet staked this coup, is cut to the largest whole number of units ``s`` whose cost, as
    the bankroll will pay it, is at most ``avail``: exactly, not through a rounded division, so what
    is left after placing it is never below 0. Whatever is left under the table minimum is refused.
    Insurance is bought only on a stake, and only at tables that sell it.
    """
    stake = want if (want > 0.0 and is_open) else 0.0
    if stake > table_max:
        stake = table_max
    insured = insure and insurance and stake > 0.0
    if _paid(stake, insured, rate) > avail:
        # the division gives s within one unit: the exact comparison decides
        whole = np.floor(min(avail / (1.0 + rate if insured else 1.0), stake))
        if whole + 1.0 <= stake and _paid(whole + 1.0, insured, rate) <= avail:
            whole += 1.0
        while whole > 0.0 and _paid(whole, insured, rate) > avail:
            whole -= 1.0
        stake = max(whole, 0.0)
    if stake < table_min:
        stake = 0.0
        insured = False
    return stake, insured


_make_legal = jit.kernel(make_legal)


def next_coup(cards, pos, needs_shuffle, seed, base, burn, cut_card):  # fmt: skip
    """Deal one table's next coup: shuffle first if the shoe needs it (``base`` order, ``seed``),
    then :func:`~trente_env.dealer.deal_next` and the result.

    Returns (noir, rouge, result, couleur, start, middle, end, reshuffle): the totals, the
    :class:`~trente_env.coup.Result` code, whether Couleur wins, where the coup's cards lie in
    ``cards``, and whether the shoe must be shuffled before the next coup.
    """
    if needs_shuffle:
        for i in range(base.size):
            cards[i] = base[i]
        shuffle(cards, seed)
        pos = burn
    noir, rouge, middle, end, reshuffle = deal_next(cards, pos, cut_card)
    first_black = False
    if noir > 0:
        first_black = _BLACK[cards[pos]]
    result, couleur = _decide(noir, rouge, first_black)
    return noir, rouge, result, couleur, pos, middle, end, reshuffle


def bet_and_settle(
    action, bankroll, prison, result, couleur, n_boxes, insurance, table_min, table_max, refait_rule, second_refait,
    spares, rate, placed, insured, back,
):  # fmt: skip
    """One table's coup for the player: make the ``action``'s bets legal (:func:`make_legal`, box by
    box), then settle every box and its prisoners (``prison``, (4, 2), updated) on the result.

    Writes the stakes taken, their insurance and what came back into ``placed``, ``insured`` and
    ``back``; returns (bankroll, clipped): the bankroll after the coup and whether any wanted stake
    was changed. A box with no stake and no prisoner has nothing to settle.

    The money is counted so that it cannot go below zero, whatever the rounding: each stake is taken
    from what is left in hand only if its cost (:func:`~trente_env.settle.paid`) is at most that
    (:func:`make_legal`), so what is left stays >= 0, and the bankroll after the coup is what was left
    plus what came back (every ``back`` is >= 0). The caller's gain is the new bankroll minus the old.
    """
    left = bankroll
    clipped = False
    for b in range(4):
        want = action[b]
        if want == 0.0:  # what make_legal makes of no stake, without the arithmetic
            placed[b] = 0.0
            insured[b] = False
            continue
        stake, ins = _make_legal(want, action[4 + b] > 0.5, left, b < n_boxes, insurance, rate, table_min, table_max)
        if stake != want:
            clipped = True
        cost = _paid(stake, ins, rate)
        if (cost > left) | (stake > table_max):  # make_legal rules it out: a guard, never a rule
            raise ValueError("bet_and_settle: a stake above the money in hand or the table maximum")
        left -= cost
        placed[b] = stake
        insured[b] = ins
    returned = 0.0
    for b in range(4):
        stake = placed[b]
        if (stake == 0.0) & (prison[b, 0] == 0.0) & (prison[b, 1] == 0.0):
            back[b] = 0.0
            continue
        out = _settle_box(
            b, stake, insured[b], prison[b, 0], prison[b, 1], action[8 + b] > 0.5, result, couleur, refait_rule,
            second_refait, spares, rate,
        )  # fmt: skip
        back[b] = out[0]
        prison[b, 0] = out[1]
        prison[b, 1] = out[2]
        returned += out[0]
    bankroll = left + returned
    if not bankroll >= 0.0:  # left and every back are >= 0: a guard, against a bankroll edited by hand
        raise ValueError("bet_and_settle: the bankroll would end below 0 (or not a number)")
    return bankroll, clipped


next_coup = jit.hot(next_coup)
bet_and_settle = jit.hot(bet_and_settle)


def _play(
    actions, skip, seeds, shoes, pos, needs_shuffle, base, bankroll, prison, coups, results, couleurs,
    seen, track_shoe, burn, cut_card, n_boxes, insurance, table_min, table_max, refait_rule, second_refait, spares,
    rate, target, reward, placed, insured, back, coup, clipped, terminated, flat, offsets, one_hot, full,
):  # fmt: skip
    """Play one coup on every table not in ``skip``: deal (:func:`next_coup`), make the bets legal
    and settle them (:func:`bet_and_settle`), record.

    Table ``t`` reads row ``t`` of every array: ``seeds[t]`` is the seed of its shuffle if its shoe
    needs one (written for every such table before the call; ignored otherwise). Then write the
    table's observation into its row of ``flat`` and whether its session is over (ruin, or ``target``
    reached, with nothing in prison) into ``terminated``.
    """
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
            cards, pos[t], needs_shuffle[t], seeds[t], base, burn, cut_card
        )
        before = bankroll[t]
        bankroll[t], clipped[t] = bet_and_settle(
            actions[t], before, prison[t], result, couleur, n_boxes, insurance, table_min, table_max,
            refait_rule, second_refait, spares, rate, placed[t], insured[t], back[t],
        )  # fmt: skip
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
                    seen[t, (0 if _BLACK[c] else 10) + _VALUE[c] - 1] += 1
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
        _observe_row(
            t, flat, bankroll, coups, prison, results, couleurs, seen, needs_shuffle, pos, full, shoes.shape[1], burn,
            offsets, one_hot,
        )  # fmt: skip


@jit.hot
def scoreboard_couleur(result: int, couleur: bool) -> int:
    """The scoreboard's Couleur/Inverse code of a coup: Couleur or Inverse won, or neither (a tie or
    a void coup)."""
    if result == 0 or result == 1:
        return COULEUR_WINS if couleur else INVERSE_WINS
    return UNDECIDED


@jit.hot
def is_free(prison: np.ndarray) -> bool:
    """Whether a table's (4, 2) prison holds no stake."""
    for b in range(4):  # noqa: SIM110
        if (prison[b, 0] != 0.0) | (prison[b, 1] != 0.0):
            return False
    return True


def _observe_row(
    t, flat, bankroll, coups, prison, results, couleurs, seen, needs_shuffle, pos, full, n_cards, burn, offsets,
    one_hot,
):  # fmt: skip
    """Write table ``t``'s observation into row ``t`` of ``flat``; ``offsets`` (in the order of
    :data:`OBS_PARTS`) places each part, -1 marking the parts left out."""
    k = results.shape[1]
    flat[t, offsets[0]] = bankroll[t]
    flat[t, offsets[2]] = coups[t]
    o_prison = offsets[4]
    for b in range(4):
        flat[t, o_prison + b] = prison[t, b, 0]
        flat[t, o_prison + 4 + b] = prison[t, b, 1]
    if one_hot:
        o_couleur = offsets[3]
        o_results = offsets[5]
        for j in range(k):
            for v in range(3):
                flat[t, o_couleur + 3 * j + v] = 1.0 if couleurs[t, j] == v else 0.0
            for v in range(6):
                flat[t, o_results + 6 * j + v] = 1.0 if results[t, j] == v else 0.0
    o_shoe = offsets[6]
    if o_shoe >= 0:
        flat[t, offsets[1]] = n_cards - burn if needs_shuffle[t] else n_cards - pos[t]
        for i in range(20):
            flat[t, o_shoe + i] = full[i] - seen[t, i]


def _observe(
    rows, flat, bankroll, coups, prison, results, couleurs, seen, needs_shuffle, pos, full, n_cards, burn, offsets,
    one_hot,
):  # fmt: skip
    """Write the observation of every table in the ``rows`` mask into ``flat``."""
    for t in numba.prange(flat.shape[0]):
        if rows[t]:
            _observe_row(
                t, flat, bankroll, coups, prison, results, couleurs, seen, needs_shuffle, pos, full, n_cards, burn,
                offsets, one_hot,
            )  # fmt: skip


_observe_row = jit.kernel(_observe_row)
_play_serial = jit.kernel(_play)
_play_parallel = jit.parallel(_play)
_observe_serial = jit.kernel(_observe)
_observe_parallel = jit.parallel(_observe)


class Tables:
    """N tables with the same rules, each with its own shoe, generator, bankroll and prisoners.

    :param rules: the house rules of every table.
    :param n: the number of tables.
    :param bankroll: each player's starting bankroll, in units.
    :param history: how many past coups the scoreboard keeps.
    :param target: a session ends when the bankroll reaches this with nothing in prison (None: never).
    :param track_shoe: keep count of the cards seen since the last shuffle (for ``observe_shoe``).
    :param offsets: where each part of :data:`OBS_PARTS` starts in a row of :attr:`flat` (absent
        parts may be left out); the kernels write every table's observation there.
    :param width: the length of a row of :attr:`flat`.
    :param one_hot: write the scoreboard one-hot into :attr:`flat` (otherwise read
        :attr:`results` and :attr:`couleurs`).

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
        self.offsets = np.array([offsets.get(part, -1) for part in OBS_PARTS], dtype=np.int64)
        self.one_hot = one_hot
        self.flat = np.zeros((n, width), dtype=np.float32)
        self.base = new_shoe(rules.decks)
        full = composition(rules.decks) // 2  # half of each value is black, half red
        self.full_shoe = np.concatenate([full, full]).astype(np.int64)
        n_cards = rules.n_cards
        self.shoes = np.tile(self.base, (n, 1))
        self.pos = np.full(n, n_cards, dtype=np.int64)
        self.needs_shuffle = np.ones(n, dtype=np.bool_)
        self.bankroll = np.full(n, self.initial_bankroll)
        self.prison = np.zeros((n, 4, 2))
        self.coups = np.zeros(n, dtype=np.int64)
        self.results = np.full((n, history), NO_COUP, dtype=np.int64)
        self.couleurs = np.full((n, history), UNDECIDED, dtype=np.int64)
        self.seen = np.zeros((n, 20), dtype=np.int64)
        # what the last coup did, per table
        self.reward = np.zeros(n)
        self.placed = np.zeros((n, 4))
        self.insured = np.zeros((n, 4), dtype=np.bool_)
        self.back = np.zeros((n, 4))
        self.coup = np.zeros((n, len(COUP_COLUMNS)), dtype=np.int64)
        self.clipped = np.zeros(n, dtype=np.bool_)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self._seeds = np.zeros(n, dtype=np.uint64)  # the seed of each table's next shuffle
        self._no_skip = np.zeros(n, dtype=np.bool_)
        self._one_action = np.zeros((1, ACTION_WIDTH))  # the single table's action, in a buffer of fixed type
        self._action_shape = (n, ACTION_WIDTH)
        self.generators: list[np.random.Generator] = []
        parallel = n >= PARALLEL_FROM
        self._play_kernel = _play_parallel if parallel else _play_serial
        self._observe_kernel = _observe_parallel if parallel else _observe_serial
        refait, second, spares, rate = rule_codes(rules)
        self._play_args = (
            self._seeds, self.shoes, self.pos, self.needs_shuffle, self.base, self.bankroll, self.prison,
            self.coups, self.results, self.couleurs, self.seen, track_shoe, rules.burn, rules.cut_card,
            len(rules.boxes), rules.insurance, float(rules.table_min), float(rules.table_max), refait, second,
            spares, rate, self.target, self.reward, self.placed, self.insured, self.back, self.coup, self.clipped,
            self.terminated, self.flat, self.offsets, one_hot, self.full_shoe,
        )  # fmt: skip
        self._observe_args = (
            self.flat, self.bankroll, self.coups, self.prison, self.results, self.couleurs, self.seen,
            self.needs_shuffle, self.pos, self.full_shoe, n_cards, rules.burn, self.offsets, one_hot,
        )  # fmt: skip

    def seed(self, generators: Sequence[np.random.Generator]) -> None:
        """Give every table its shuffling generator."""
        if len(generators) != self.n:
            raise ValueError(f"need {self.n} generators, got {len(generators)}")
        self.generators = list(generators)

    def reset_rows(self, rows: np.ndarray | None = None) -> None:
        """Start new sessions on the tables in ``rows`` (a boolean mask; all when None).

        The bankroll is restored, prisoners and the scoreboard cleared, and the shoe will be
        shuffled before the next coup. The observations of those tables are rewritten.
        """
        mask = np.ones(self.n, dtype=np.bool_) if rows is None else self._mask(rows, "rows")
        self.bankroll[mask] = self.initial_bankroll
        self.prison[mask] = 0.0
        self.coups[mask] = 0
        self.results[mask] = NO_COUP
        self.couleurs[mask] = UNDECIDED
        self.seen[mask] = 0
        self.needs_shuffle[mask] = True
        self.pos[mask] = self.rules.n_cards
        self.terminated[mask] = False
        self._observe_kernel(mask, *self._observe_args)

    def play(self, actions: np.ndarray, skip: np.ndarray | None = None) -> None:
        """Play one coup on every table (except the ``skip`` mask) with ``actions`` of shape (n, 12).

        Results land in :attr:`reward`, :attr:`placed`, :attr:`insured`, :attr:`back`,
        :attr:`coup`, :attr:`clipped`, :attr:`terminated` and :attr:`flat`; rows of skipped tables
        keep their last values. Actions of another shape, or not numbers, raise ValueError.
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
            self._one_action[...] = actions
            self._play_one()
            return
        skip = self._no_skip if skip is None else self._mask(skip, "skip")
        generators = self.generators  # one seed per shuffle, as dealer.shuffle_seeds draws them
        for i in np.flatnonzero(self.needs_shuffle & ~skip).tolist():
            self._seeds[i] = generators[i].bit_generator.random_raw()
        self._play_kernel(np.ascontiguousarray(actions, dtype=np.float64), skip, *self._play_args)

    def _mask(self, rows: np.ndarray, name: str) -> np.ndarray:
        """``rows`` as a mask of the tables (one boolean per table), or ValueError."""
        mask = np.asarray(rows)
        if mask.shape != (self.n,) or mask.dtype != np.bool_:
            raise ValueError(f"{name} must be {self.n} booleans, one per table; got shape {mask.shape} of {mask.dtype}")
        return np.ascontiguousarray(mask)

    def _play_one(self) -> None:
        """The single table's coup, through the compiled kernel's entry point.

        Every argument is an array of the table's own, of a type fixed when the table was built (the
        action is copied into :attr:`_one_action`), so numba's type dispatch, about 1 µs of a 9 µs
        step, is done once (:func:`~trente_env.jit.entry_point`).
        """
        args = (self._one_action, self._no_skip, *self._play_args)
        entry = self.__dict__.get("_entry")
        if entry is None:
            self._play_kernel(*args)
            self._entry = jit.entry_point(self._play_kernel, args)
        else:
            entry(*args)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_entry", None)  # a compiled function: found again after unpickling
        return state

    def cards(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """The Noir and Rouge rows of table ``i``'s last coup (card codes)."""
        start, middle, end = self.coup[i, 4:7].tolist()
        cards = self.shoes[i, start:end].copy()
        return cards[: middle - start], cards[middle - start :]


def _part_sizes(k: int, one_hot: bool) -> dict[str, int]:
    """The numbers each part of :data:`OBS_PARTS` takes in a row of :attr:`Tables.flat`, for a
    scoreboard of ``k`` coups (written one-hot, or not at all)."""
    board = 1 if one_hot else 0
    return {"bankroll": 1, "cards_left": 1, "coups": 1, "couleur": 3 * k * board, "prison": 8,
            "results": 6 * k * board, "shoe": 20}  # fmt: skip


def _check_layout(offsets: dict[str, int], width: int, history: int, one_hot: bool) -> None:
    """ValueError unless every part the kernels write lies inside a row of ``width`` numbers.

    The bankroll, the coups and the prisoners are always written; the scoreboard when ``one_hot``;
    the shoe and the cards left together or not at all.
    """
    unknown = set(offsets) - set(OBS_PARTS)
    required = {"bankroll", "coups", "prison"} | ({"couleur", "results"} if one_hot else set())
    if unknown or not required <= set(offsets) or ("shoe" in offsets) != ("cards_left" in offsets):
        raise ValueError(f"an observation layout places {sorted(required)} (and shoe with cards_left), got {offsets}")
    sizes = _part_sizes(history, one_hot)
    for part, at in offsets.items():
        if not (isinstance(at, (int, np.integer)) and at >= 0 and at + sizes[part] <= width):
            raise ValueError(f"the observation part {part!r} at {at} does not fit in a row of {width} numbers")


__all__ = ["ACTION_WIDTH", "COUP_COLUMNS", "NO_COUP", "OBS_PARTS", "Result", "Tables", "make_legal"]

"""How one table's actions and observations look to a Gymnasium agent: the spaces and the converters.

:class:`Layout` is shared by the single environment (:mod:`trente_env.env`) and the vector
environment (:mod:`trente_env.vector`), so both read actions and write observations the same way.
The codes it lays out (the action row, the observation's parts and their flat offsets) are those of
:mod:`trente_env.codes`; the tables write each observation straight into a buffer in this layout
(:class:`~trente_env.tables.Tables`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
from gymnasium import spaces

from trente_env.cards import composition
from trente_env.codes import (
    ACTION_WIDTH,
    COULEUR_CODES,
    INSURE,
    PRISON_SIZE,
    RESULT_CODES,
    SCOREBOARD_PARTS,
    SHOE_SIZE,
    STAKE,
    flat_offsets,
    flat_size,
    part_size,
    parts,
)
from trente_env.rules import Refait, RuleSet
from trente_env.tables import Tables, TableState, observe_state

ActionForm = Literal["full", "discrete", "factored"]
ObservationForm = Literal["dict", "flat"]
ACTION_FORMS: tuple[str, ...] = ("full", "discrete", "factored")
#: The forms that bet from the menu of :attr:`Layout.action_table` (sit out, or one stake level on one box).
MENU_FORMS: tuple[str, ...] = ("discrete", "factored")
OBSERVATION_FORMS: tuple[str, ...] = ("dict", "flat")
DEFAULT_STAKE_LEVELS: tuple[float, ...] = (1.0, 5.0, 25.0, 100.0)

#: The upper bound of quantities without one (bankroll, coups, prisoners): float32's largest value.
UNBOUNDED = float(np.finfo(np.float32).max)


class Layout:
    """How one table's actions and observations are laid out: the spaces and the converters.

    :param rules: the table's rules.
    :param action_form: ``"full"``, ``"discrete"`` or ``"factored"`` (see
        :class:`~trente_env.env.TrenteEtQuaranteEnv`).
    :param observation: ``"dict"`` or ``"flat"``.
    :param history: coups kept on the scoreboard.
    :param observe_shoe: add the unseen cards of the shoe to the observation.
    :param stake_levels: the stakes, in units, offered by the discrete and factored forms.
    """

    def __init__(
        self,
        rules: RuleSet,
        action_form: str,
        observation: str,
        history: int,
        observe_shoe: bool,
        stake_levels: Sequence[float],
    ) -> None:
        if action_form not in ACTION_FORMS:
            raise ValueError(f"unknown action_form {action_form!r}; choose one of {', '.join(ACTION_FORMS)}")
        if observation not in OBSERVATION_FORMS:
            raise ValueError(f"unknown observation {observation!r}; choose one of {', '.join(OBSERVATION_FORMS)}")
        self.rules = rules
        self.action_form = action_form
        self.observation = observation
        self.history = history
        self.observe_shoe = observe_shoe
        self.n_boxes = len(rules.boxes)
        self.stake_levels = np.asarray(stake_levels, dtype=np.float64)
        self.max_stake = int(np.floor(rules.table_max))
        self._build_actions()
        self._build_observations()

    # -- actions -------------------------------------------------------------------------------
    def _build_actions(self) -> None:
        rules = self.rules
        if self.action_form == "full":
            stakes = [self.max_stake + 1 if b < self.n_boxes else 1 for b in range(4)]
            insure = [2 if rules.insurance and b < self.n_boxes else 1 for b in range(4)]
            prison = [2 if rules.refait is Refait.CHOICE and b < self.n_boxes else 1 for b in range(4)]
            self.nvec = np.array(stakes + insure + prison, dtype=np.int64)  # the action row's order
            self.single_action_space: spaces.Space = spaces.MultiDiscrete(self.nvec)
            self._one_shape: tuple[int, ...] | None = (ACTION_WIDTH,)  # the shape of a single full action
            return
        self._one_shape = None  # the menu's forms have no such shortcut
        levels = self.stake_levels
        if levels.ndim != 1 or levels.size == 0:
            raise ValueError("stake_levels must be a non-empty sequence of stakes")
        if not np.isfinite(levels).all():
            raise ValueError(f"stake levels must be finite numbers of units, got {levels.tolist()}")
        if np.unique(levels).size != levels.size:
            raise ValueError(f"stake levels must differ from one another (each is one action), got {levels.tolist()}")
        bad = levels[(levels < rules.table_min) | (levels > rules.table_max)]
        if bad.size:
            raise ValueError(
                f"stake levels {bad.tolist()} are outside the table limits {rules.table_min:g}-{rules.table_max:g}"
            )
        table = np.zeros((1 + self.n_boxes * levels.size, ACTION_WIDTH))
        for b in range(self.n_boxes):
            table[1 + b * levels.size : 1 + (b + 1) * levels.size, STAKE + b] = levels
        self.action_table = table
        if self.action_form == "factored":  # bet or sit out, which box, which stake level: the same menu
            self.nvec = np.array([2, self.n_boxes, levels.size], dtype=np.int64)
            self.single_action_space = spaces.MultiDiscrete(self.nvec)
        else:
            self.single_action_space = spaces.Discrete(table.shape[0])

    def menu_rows(self, parts: Any) -> np.ndarray:
        """The factored form's actions ``(n, 3)`` (bet or not, box, stake level) as row numbers of
        :attr:`action_table` (int64): 0 where the first part is 0 (sit out, whatever the others say),
        else ``1 + box * levels + level``, the discrete form's number of the same bet. ValueError,
        naming them, for parts out of their range (:attr:`nvec`)."""
        a = np.asarray(parts)
        if a.size and ((a < 0) | (a >= self.nvec)).any():
            bad = a[((a < 0) | (a >= self.nvec)).any(axis=-1)]
            ranges = ", ".join(f"0..{n - 1}" for n in self.nvec)
            raise ValueError(f"factored action {bad.tolist()} out of range ({ranges}: bet, box, stake level)")
        rows = 1 + a[..., 1].astype(np.int64) * self.stake_levels.size + a[..., 2]
        return np.where(a[..., 0] == 0, 0, rows).astype(np.int64)

    def factored(self, rows: Any) -> np.ndarray:
        """Row numbers of :attr:`action_table` (the discrete form's actions) as the factored form's
        ``(n, 3)`` actions: the inverse of :meth:`menu_rows` (a sit-out is ``[0, 0, 0]``)."""
        r = np.asarray(rows, dtype=np.int64).reshape(-1)
        bet = r > 0
        box, level = np.divmod(np.where(bet, r - 1, 0), self.stake_levels.size)
        return np.stack([bet.astype(np.int64), box, level], axis=1)

    def actions(self, action: Any, n: int | None = None) -> np.ndarray:
        """The (n, 12) action rows of the tables from a batch of ``n`` actions (the vector
        environment), or from one action without a table axis (``n`` None: the single environment,
        which also takes a batch of one). An action of another shape, or of something other than
        numbers (whole numbers for the discrete form), raises ValueError.
        """
        single = n is None
        if single and self.is_usual_full(action):
            return action.reshape(1, ACTION_WIDTH)
        if self.action_form == "factored":
            n = 1 if single else n
            a = _array(action)
            if a.dtype.kind not in "iu" or a.shape not in ([(n, 3), (3,)] if single else [(n, 3)]):
                raise ValueError(
                    f"a factored action is 3 whole numbers per table (bet or not, box, stake level), shape ({n}, 3); "
                    f"got {_describe(a)}"
                )
            return self.action_table[self.menu_rows(a.reshape(n, 3))]
        if self.action_form == "discrete":
            last = self.action_table.shape[0] - 1
            if single and isinstance(action, (int, np.integer)) and 0 <= action <= last:
                return self.action_table[action : action + 1]
        n = 1 if single else n
        shapes = [(n,)] if self.action_form == "discrete" else [(n, ACTION_WIDTH)]
        if single:
            shapes.append(shapes[0][1:])
        if self.action_form == "discrete":
            a = _array(action)
            if a.dtype.kind not in "iu" or a.shape not in shapes:
                raise ValueError(f"a discrete action is {n} whole number(s) in 0..{last}, got {_describe(a)}")
            self.check_range(a)
            return self.action_table[a.reshape(n)]
        rows = _array(action)
        if rows.dtype.kind not in "biuf" or rows.shape not in shapes:
            raise ValueError(
                f"a full action is {ACTION_WIDTH} numbers per table (4 stakes, 4 insure flags, 4 prison flags), "
                f"shape {shapes[0]}; got {_describe(rows)}"
            )
        return rows.reshape(n, ACTION_WIDTH)

    def is_usual_full(self, action: Any) -> bool:
        """Whether ``action`` is the single environment's usual full action, a numpy array of the 12
        numbers of one table (what the action space's ``sample()`` and SB3 give), which is legal as it
        is: :meth:`actions` takes it without a copy, and :meth:`action_row` hands it over untouched."""
        return type(action) is np.ndarray and action.shape == self._one_shape and action.dtype.kind in "biuf"

    def action_row(self, action: Any) -> np.ndarray:
        """One action of the single environment as its 12 numbers, of shape (12,) or (1, 12), for
        :meth:`Tables.play_one <trente_env.tables.Tables.play_one>`: the usual full action
        (:meth:`is_usual_full`) as it is, any other as :meth:`actions` reads it (ValueError likewise)."""
        return action if self.is_usual_full(action) else self.actions(action)

    def choices(self, action: Any, n: int) -> np.ndarray:
        """The discrete form's batch of ``n`` actions as row numbers of :attr:`action_table` (int64,
        C-contiguous), for :meth:`Tables.step <trente_env.tables.Tables.step>` to read the rows
        itself; ValueError as in :meth:`actions` for anything but ``n`` whole numbers. Their range is
        checked where the rows are read: the kernel refuses a number outside the menu before any
        table plays (the vector env then words it with :meth:`check_range`), which saves two passes
        over the batch a step (about 5 us at 1,000 tables). The factored form's ``(n, 3)`` actions
        become their rows here (:meth:`menu_rows`, which checks their range)."""
        a = action if type(action) is np.ndarray else _array(action)
        if self.action_form == "factored":
            if a.dtype.kind not in "iu" or a.shape != (n, 3):
                raise ValueError(
                    f"a factored action is 3 whole numbers per table (bet or not, box, stake level), shape ({n}, 3); "
                    f"got {_describe(a)}"
                )
            return self.menu_rows(a)
        if a.dtype.kind not in "iu" or a.shape != (n,):
            last = self.action_table.shape[0] - 1
            raise ValueError(f"a discrete action is {n} whole number(s) in 0..{last}, got {_describe(a)}")
        return a if a.dtype == np.int64 and a.flags.c_contiguous else np.ascontiguousarray(a, dtype=np.int64)

    def check_range(self, action: Any) -> None:
        """ValueError, naming them, if the discrete actions ``action`` (whole numbers) are not all
        numbers of rows of :attr:`action_table`."""
        a = _array(action)
        if self.action_form == "factored":
            self.menu_rows(a)
            return
        last = self.action_table.shape[0] - 1
        if a.size and (a.min() < 0 or a.max() > last):
            raise ValueError(f"discrete action {a.tolist()} out of range 0..{last}")

    def action_masks(self, bankroll: np.ndarray) -> np.ndarray:
        """Which actions are legal for players holding ``bankroll`` (one row per table).

        Discrete form: one flag per action. Full and factored forms: the flags of every dimension, one
        after the other (the layout sb3-contrib's MaskablePPO expects for MultiDiscrete). A stake is
        legal if it is 0 or within the table limits and the bankroll; the full form checks each box
        against the whole bankroll, and several boxes together may still be cut down at the deal. The
        factored form offers "bet" only when a stake level is legal, and its box and level parts,
        which say nothing when it sits out, all stay legal then (MaskablePPO needs one legal value in
        each part).
        """
        bankroll = np.asarray(bankroll, dtype=np.float64).reshape(-1, 1)
        rules = self.rules
        if self.action_form == "discrete":
            stakes = self.action_table[:, STAKE:INSURE].sum(axis=1)
            return (stakes == 0) | (stakes <= bankroll)
        if self.action_form == "factored":
            legal = self.stake_levels[None, :] <= bankroll
            can_bet = legal.any(axis=1, keepdims=True)
            sit = np.ones_like(can_bet)
            boxes = np.ones((bankroll.shape[0], self.n_boxes), dtype=np.bool_)
            return np.concatenate([sit, can_bet, boxes, legal | ~can_bet], axis=1)
        masks = []
        for size in self.nvec[STAKE:INSURE]:
            v = np.arange(size)
            legal = (v == 0) | ((v >= rules.table_min) & (v <= bankroll))
            masks.append(np.broadcast_to(legal, (bankroll.shape[0], size)))
        masks.append(np.ones((bankroll.shape[0], int(self.nvec[INSURE:].sum())), dtype=np.bool_))
        return np.concatenate(masks, axis=1)

    # -- observations --------------------------------------------------------------------------
    def _build_observations(self) -> None:
        k, rules, shoe = self.history, self.rules, self.observe_shoe
        full = np.concatenate([composition(rules.decks) // 2] * 2).astype(np.float32)  # black, then red
        boxes: dict[str, spaces.Space] = {
            "bankroll": spaces.Box(0.0, UNBOUNDED, (1,), np.float32),
            "cards_left": spaces.Box(0.0, float(rules.n_cards), (1,), np.float32),
            "couleur": spaces.MultiDiscrete(np.full(k, COULEUR_CODES)),
            "coups": spaces.Box(0.0, UNBOUNDED, (1,), np.float32),
            "prison": spaces.Box(0.0, UNBOUNDED, (PRISON_SIZE,), np.float32),
            "results": spaces.MultiDiscrete(np.full(k, RESULT_CODES)),
            "shoe": spaces.Box(np.zeros(SHOE_SIZE, np.float32), full, (SHOE_SIZE,), np.float32),
        }
        self.dict_space = spaces.Dict({part: boxes[part] for part in parts(shoe)})
        if self.observation == "flat":
            highs = {part: np.full(part_size(part, k), UNBOUNDED) for part in ("bankroll", "coups", "prison")}
            highs.update(cards_left=np.full(1, rules.n_cards), shoe=full)
            highs.update({part: np.ones(part_size(part, k)) for part in SCOREBOARD_PARTS})  # one-hot
            high = np.concatenate([highs[part] for part in parts(shoe)]).astype(np.float32)
            self.single_observation_space: spaces.Space = spaces.Box(np.zeros_like(high), high, dtype=np.float32)
            self.offsets: dict[str, int] = flat_offsets(k, shoe)
            self.flat_size = flat_size(k, shoe)
        else:  # only the parts that are numbers live in the buffer; the scoreboard comes from the tables
            self.single_observation_space = self.dict_space
            self.offsets = {part: at for part, at in flat_offsets(0, shoe).items() if part not in SCOREBOARD_PARTS}
            self.flat_size = flat_size(0, shoe)
        #: the parts of the dict form read from the buffer, and where
        self._slices = tuple((part, slice(at, at + part_size(part, 0))) for part, at in self.offsets.items())

    def new_tables(self, n: int, bankroll: float, target: float | None, threads: bool | None = None) -> Tables:
        """``n`` tables that write their observations in this layout (``threads``: see :class:`Tables`)."""
        return Tables(
            self.rules, n, bankroll, self.history, target=target, track_shoe=self.observe_shoe,
            offsets=self.offsets, width=self.flat_size, one_hot=self.observation == "flat", threads=threads,
            menu=self.action_table if self.action_form in MENU_FORMS else None,
        )  # fmt: skip

    def views(self, flat: np.ndarray, results: np.ndarray, couleurs: np.ndarray) -> np.ndarray | dict[str, np.ndarray]:
        """The observations of all tables as views of the tables' own arrays (``flat``, and the
        scoreboard's ``results`` and ``couleurs`` for the dict form): no copy, so they change with
        the arrays."""
        if self.observation == "flat":
            return flat
        obs = {part: flat[:, at] for part, at in self._slices}
        obs["couleur"] = couleurs
        obs["results"] = results
        return obs

    def observe(self, tables: Tables) -> np.ndarray | dict[str, np.ndarray]:
        """The observations of all tables, with a leading table axis: fresh arrays (the dict form's
        numbers are views of one fresh copy of the tables' buffer), never the buffer itself."""
        flat = tables.flat.copy()
        if self.observation == "flat":
            return flat
        obs = {part: flat[:, at] for part, at in self._slices}  # views of one fresh copy
        obs["couleur"] = tables.couleurs.copy()
        obs["results"] = tables.results.copy()
        return obs

    def observe_state(self, state: TableState) -> np.ndarray | dict[str, np.ndarray]:
        """The observations, with a leading table axis, of tables in ``state`` whose coups were played
        outside :class:`Tables` (the classroom's seats), as fresh arrays: the numbers written by the
        tables' own kernel (:func:`~trente_env.tables.observe_state`), laid out as :meth:`observe`
        lays them out. Without the shoe (such tables keep none)."""
        flat = observe_state(self.rules, state, self.offsets, self.flat_size, self.observation == "flat")
        return self.views(flat, state.results.copy(), state.couleurs.copy())

    def observer(self, tables: Tables) -> Callable[[], np.ndarray | dict[str, np.ndarray]]:
        """A function giving the observation of the only table of ``tables`` (no table axis) as fresh
        arrays, the values of :meth:`observe`'s first row: in the dict form each part is its own copy
        of its view of the table's row. The function holds the views' ``copy`` methods, made once
        (the single environment's step: making a view costs about as much as copying it)."""
        row = tables.flat[0]
        if self.observation == "flat":
            return row.copy
        keys = [part for part, _ in self._slices] + ["couleur", "results"]
        copies = [row[at].copy for _, at in self._slices] + [tables.couleurs[0].copy, tables.results[0].copy]
        if not self.observe_shoe:  # the usual parts, written out (faster than the loop below)
            bankroll, coups, prison, couleur, results = copies

            def observe() -> dict[str, np.ndarray]:
                return {
                    "bankroll": bankroll(),
                    "coups": coups(),
                    "prison": prison(),
                    "couleur": couleur(),
                    "results": results(),
                }

            return observe

        def observe_with_shoe() -> dict[str, np.ndarray]:
            return {key: copy() for key, copy in zip(keys, copies, strict=True)}

        return observe_with_shoe


def _array(action: Any) -> np.ndarray:
    """``action`` as a numpy array; a ragged one (no array at all) as an empty object array."""
    try:
        return np.asarray(action)
    except (ValueError, TypeError):
        return np.empty(0, dtype=object)


def _describe(a: np.ndarray) -> str:
    return "something that is not an array of numbers" if a.dtype == object else f"shape {a.shape} of {a.dtype}"


__all__ = ["ACTION_FORMS", "DEFAULT_STAKE_LEVELS", "MENU_FORMS", "OBSERVATION_FORMS", "UNBOUNDED", "Layout"]

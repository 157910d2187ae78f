"""The strategy interface: a betting system as a vectorised policy over many sessions at once.

A :class:`Strategy` looks at exactly what an RL agent sees, the environment's observation, and
answers with exactly what an agent answers, an action in the environment's ``"full"`` form: an
``(n, 12)`` integer array, one row per session (4 stakes, 4 insure flags, 4 prison flags). So a
martingale, a trained PPO model and a user's plugin are interchangeable wherever a policy is used.

**How a strategy learns each coup's result: from the observation.** The scoreboard in the
observation (``results[0]`` and ``couleur[0]``, most recent coup first) says how the last coup
ended, the ``prison`` part says whether a stake of ours sits in prison, ``bankroll`` and ``coups``
give the money and the session's progress. The strategy remembers the bet it placed (box and
stake, in its :class:`SessionState`), so from the next observation alone it knows whether that
bet won, lost, was caught by a refait or came back on an après. Nothing else has to be passed in:
:meth:`Strategy.act` (and its SB3 twin :meth:`Strategy.predict`) is the whole interface, and works
the same under ``gymnasium.make``, the native vector env, SB3's ``VecEnv`` and ``evaluate_policy``.

**Sessions.** A row whose observation shows ``coups == 0`` (a table just sat down, including the
vector env's autoreset) or whose ``episode_start`` flag is set starts a new session: the
progression restarts, the starting bankroll is noted for stop-win/stop-loss, a walk-away ends.

**Common rules of every system** (fields of :class:`Strategy`):

* stakes are whole units: ``base`` times the system's count of units;
* the table limits and the bankroll: a stake above the table maximum, or above the money in hand
  (with the insurance premium), is a *limit hit*; ``on_limit="reset"`` restarts the progression
  (the classic way a martingale "breaks"), ``on_limit="cap"`` stakes what is allowed and goes on.
  Hits are counted per row in :attr:`SessionState.table_max_hits` and
  :attr:`SessionState.bankroll_hits`. A stake left under the table minimum is not placed;
* a refait: ``refait="loss"`` (default) counts it as a lost coup for the progression, whatever
  later happens to the prisoner; ``refait="wait"`` places no new bet while our stake is in prison,
  then counts a freed prisoner as "no change" and a lost one as a loss. A stake that a refait
  hands back whole (insured, or Couleur/Inverse under ``refait_spares_couleur``) is "no change"
  either way, and so is a partage (``half``) refait under ``wait``;
* an après or a void coup changes nothing: the same bet is placed again;
* ``stop_win`` / ``stop_loss`` (units, against the bankroll at the start of the session): once
  reached, the player walks away: no new stake for the rest of that session (prisoners already
  on the table settle by themselves).
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from strategies import kernel
from strategies.kernel import Kind
from strategies.policy import Acting, Observation
from trente_env.codes import COULEUR_CODES, PRISON_SIZE, RESULT_CODES, Box, flat_layout, flat_offsets, no_actions
from trente_env.rules import Refait, RuleSet, get_rules
from trente_env.whole import checked_whole

#: Units never grow past this (a doubling progression capped at the table keeps counting).
MAX_UNITS = kernel.MAX_UNITS
#: The float32 observation holds every whole unit up to this many (:meth:`Strategy.act` warns above it
#: when it is not given the exact ``money``).
FLOAT32_EXACT = 2**24
_warned_rounded_money = False


def _warn_rounded_money(bankroll: np.ndarray) -> None:
    """Warn once per process when a bankroll read from the observation is above :data:`FLOAT32_EXACT`."""
    global _warned_rounded_money
    if not _warned_rounded_money and bankroll.size and float(np.max(bankroll)) > FLOAT32_EXACT:
        _warned_rounded_money = True
        warnings.warn(
            f"Strategy.act read a bankroll above 2**24 units ({float(np.max(bankroll)):.6g}) from the float32 "
            "observation, where it is rounded: stop rules and stake limits compare rounded money. Pass the exact "
            "figure: act(obs, state, money=envs.bankroll) (env.unwrapped.bankroll for the single env).",
            RuntimeWarning,
            stacklevel=3,
        )


class RefaitMode(str, Enum):
    """How a system books a refait that catches its stake."""

    LOSS = "loss"  #: the refait is a lost coup for the progression
    WAIT = "wait"  #: no new bet while the stake is in prison; freed = no change, lost = a loss


class OnLimit(str, Enum):
    """What a system does when its next stake is over the table maximum or the bankroll."""

    RESET = "reset"  #: restart the progression from its first stake
    CAP = "cap"  #: stake the most allowed and keep the progression going


@dataclass(frozen=True)
class Seen:
    """What a strategy reads from a batch of observations, one entry per session (contiguous
    arrays of fixed types, ready for the compiled rules)."""

    bankroll: np.ndarray  #: (n,) float64, money in hand (exact when ``act`` is given ``money``)
    coups: np.ndarray  #: (n,) int64, coups played this session
    result: np.ndarray  #: (n,) int64, :class:`~trente_env.codes.Result` code of the last coup (5: none yet)
    couleur: np.ndarray  #: (n,) int64, 0 Couleur won, 1 Inverse won, 2 neither
    prison: np.ndarray  #: (n, 8) float64, stakes in first, then second, prison per box


@dataclass(eq=False)
class SessionState:
    """A strategy's memory of ``n`` sessions (rows), updated in place.

    ``ints`` holds one row of numbers per session, in the columns of :mod:`strategies.kernel`
    (the last bet, the stake waited for in prison, limit hits, cycles, sessions, then the system's
    own memory); ``start`` the bankroll when each session began; ``keys`` each row's session key,
    which fixes the random system's draws (:func:`trente_env.seeding.session_keys`; by default
    the row number). A plugin written as Python hooks keeps its own arrays in ``memory``. The
    counters accumulate over every session played on a row (``episodes`` says how many).
    """

    n: int
    ints: np.ndarray  #: (n, width) int64, the columns of :mod:`strategies.kernel`
    start: np.ndarray  #: (n,) float64, bankroll when the current session began
    memory: dict[str, np.ndarray] = field(default_factory=dict)  #: a plugin's own arrays
    keys: np.ndarray | None = None  #: (n,) int64, the session keys (None: the row numbers)

    def __post_init__(self) -> None:
        if self.keys is None:
            self.keys = np.arange(self.n, dtype=np.int64)

    box = property(lambda self: self.ints[:, kernel.BOX], doc="box of the stake placed on the last coup (-1: none)")
    stake = property(lambda self: self.ints[:, kernel.STAKE], doc="stake placed on the last coup, units")
    jail_box = property(lambda self: self.ints[:, kernel.JAIL_BOX], doc="box of a stake waited for in prison")
    jail = property(lambda self: self.ints[:, kernel.JAIL], doc="that stake (0: not waiting)")
    walked = property(lambda self: self.ints[:, kernel.WALKED] != 0, doc="walked away (stop-win/loss), a copy")
    table_max_hits = property(lambda self: self.ints[:, kernel.TABLE_MAX_HITS], doc="coups over the table maximum")
    bankroll_hits = property(lambda self: self.ints[:, kernel.BANKROLL_HITS], doc="coups over the money in hand")
    cycles = property(lambda self: self.ints[:, kernel.CYCLES], doc="completed cycles (Labouchère, Oscar, paroli)")
    episodes = property(lambda self: self.ints[:, kernel.EPISODES], doc="sessions started on this row")


#: The Python hooks a plugin may write; a class that writes one runs on them, not on the kernel.
HOOK_NAMES = ("_init_memory", "_restart", "_new_session", "_see", "_update", "_bet")


@dataclass(frozen=True)
class Strategy(Acting):
    """A betting system, vectorised over sessions: a :class:`~strategies.policy.Policy` (and so SB3's
    ``PolicyPredictor``).

    The built-in systems are a ``kind`` of :mod:`strategies.kernel`'s compiled state machine, with
    parameters from their fields (:meth:`kernel_params`). A plugin may instead write Python hooks
    over the whole batch: :meth:`_init_memory`, :meth:`_restart`, :meth:`_new_session`,
    :meth:`_see`, :meth:`_update` and :meth:`_bet`; the rules common to every system (see the module
    docstring) still run compiled. A class that writes any hook runs on its hooks.

    :param base: the base unit, in units of the table (a whole number within the table limits).
    :param on_limit: ``reset`` or ``cap`` when a stake would pass the table maximum or bankroll.
    :param refait: ``loss`` or ``wait``: how the progression books a refait.
    :param stop_win: walk away once this many units ahead in the session (None: never).
    :param stop_loss: walk away once this many units behind in the session (None: never).
    :param insure: insure every stake against the refait (only at tables that sell insurance).
    :param to_prison: under the ``choice`` rule, send stakes to prison on a refait (default half).
    :param rules: the table's rules (a preset name or a RuleSet), for limits and options.
    """

    #: The registry name and a one-line description (set by each system).
    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    #: The system's :class:`~strategies.kernel.Kind` (``HOOKS``: its Python hooks).
    kind: ClassVar[int] = Kind.HOOKS

    base: int = field(default=1, metadata={"help": "base unit (whole units within the table limits)"})
    on_limit: OnLimit = field(default=OnLimit.RESET, metadata={"help": "reset|cap at the table max or bankroll"})
    refait: RefaitMode = field(default=RefaitMode.LOSS, metadata={"help": "loss|wait: how a refait is booked"})
    stop_win: float | None = field(default=None, metadata={"help": "walk away this many units ahead"})
    stop_loss: float | None = field(default=None, metadata={"help": "walk away this many units behind"})
    insure: bool = field(default=False, metadata={"help": "insure every stake against the refait"})
    to_prison: bool = field(default=False, metadata={"help": "choice rule: prison rather than half"})
    rules: RuleSet = field(default_factory=RuleSet, metadata={"table": True})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "kind" not in cls.__dict__ and any(h in cls.__dict__ for h in HOOK_NAMES):
            cls.kind = Kind.HOOKS  # it writes its own rules in Python

    def __post_init__(self) -> None:
        _coerce_fields(self)
        rules = self.rules
        checked_whole(self.base, f"base must be a whole number of units >= 1, got {self.base!r}", 1)
        if not rules.table_min <= self.base <= rules.table_max:
            raise ValueError(f"base {self.base} is outside the table limits {rules.table_min:g}-{rules.table_max:g}")
        for name in ("stop_win", "stop_loss"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be positive, got {value}")
        if self.insure and not rules.insurance:
            raise ValueError("these rules sell no insurance; drop insure")
        for box in self.boxes_played():
            if box.index >= len(rules.boxes):
                raise ValueError(f"the {box.value} box is closed under these rules (open: {', '.join(rules.boxes)})")

    # -- what subclasses provide ----------------------------------------------------------------
    def boxes_played(self) -> tuple[Box, ...]:
        """The boxes this system may stake on (checked against the rules)."""
        return ()

    def _kernel_values(self) -> tuple[dict[int, int], tuple[int, ...]]:
        """The system's own integer parameters (``K_*`` column: value) and its list of units (a
        sequence, a Labouchère line, the random bettor's boxes)."""
        return {}, ()

    def _init_memory(self, n: int) -> dict[str, np.ndarray]:
        """Hook: the system's own arrays for ``n`` sessions, at their starting values."""
        return {}

    def _restart(self, state: SessionState, rows: np.ndarray) -> None:
        """Hook: restart the progression of the ``rows`` (a boolean mask): a new session or a limit hit."""

    def _new_session(self, state: SessionState, rows: np.ndarray) -> None:
        """Hook: forget everything about the ``rows``' past (default: restart the progression)."""
        self._restart(state, rows)

    def _see(self, state: SessionState, seen: Seen, live: np.ndarray) -> None:
        """Hook: read the last coup of the ``live`` rows, whether or not the system bet on it."""

    def _update(self, state: SessionState, win: np.ndarray, loss: np.ndarray, amount: np.ndarray) -> None:
        """Hook: advance the progression: ``win``/``loss`` masks of the rows whose bet was decided, and
        the ``amount`` (units) that won or lost. Rows in neither mask had no change (après, no bet...)."""

    def _bet(self, state: SessionState) -> tuple[np.ndarray | int, np.ndarray | int]:
        """Hook: the box (-1: none) and stake (units) the system wants for the next coup, per row."""
        return -1, 0

    # -- the policy -----------------------------------------------------------------------------
    @functools.cached_property
    def _params(self) -> tuple[np.ndarray, np.ndarray]:
        rules = self.rules
        values, listed = self._kernel_values()
        k = np.zeros(kernel.K_LIST + len(listed), dtype=np.int64)
        k[kernel.K_KIND] = self.kind
        k[kernel.K_BASE] = self.base
        k[kernel.K_CAP] = self.on_limit is OnLimit.CAP
        k[kernel.K_WAIT] = self.refait is RefaitMode.WAIT
        k[kernel.K_INSURE] = self.insure
        k[kernel.K_PRISON] = self.to_prison and rules.refait is Refait.CHOICE
        k[kernel.K_COUNT] = len(listed)
        k[kernel.K_LIST :] = listed
        for column, value in values.items():
            k[column] = value
        f = np.zeros(kernel.F_WIDTH)
        f[kernel.F_STOP_WIN] = np.inf if self.stop_win is None else self.stop_win
        f[kernel.F_STOP_LOSS] = np.inf if self.stop_loss is None else self.stop_loss
        f[kernel.F_P_BET] = getattr(self, "p_bet", 1.0)
        f[kernel.F_TABLE_MIN] = rules.table_min
        f[kernel.F_TABLE_MAX] = np.floor(rules.table_max)
        f[kernel.F_RATE] = rules.insurance_rate if self.insure else 0.0
        f[kernel.F_SPARES] = rules.refait_spares_couleur
        k.flags.writeable = f.flags.writeable = False
        return k, f

    def kernel_params(self) -> tuple[np.ndarray, np.ndarray]:
        """The system for :mod:`strategies.kernel`: its int64 and float64 parameter vectors."""
        return self._params

    def state_width(self) -> int:
        """Columns of a session's state row (the Labouchère line gets room to grow)."""
        if self.kind == Kind.LABOUCHERE:
            return kernel.LINE + max(16, 2 * len(self._kernel_values()[1]))
        return kernel.LINE

    def initial_state(self, n: int, keys: Sequence[int] | np.ndarray | None = None) -> SessionState:
        """A fresh memory for ``n`` sessions (each starts a session at its first observation).

        :param keys: each row's session key (:func:`trente_env.seeding.session_keys` of the
            sessions' seeds), which fixes the random system's draws; None: the row numbers.
        """
        if keys is not None:
            keys = np.ascontiguousarray(keys, dtype=np.int64)
            if keys.shape != (n,):
                raise ValueError(f"keys must hold one session key per row ({n}), got shape {keys.shape}")
        state = SessionState(n, np.zeros((n, self.state_width()), dtype=np.int64), np.zeros(n), keys=keys)
        kernel.init_rows(state.ints, self.kernel_params()[0])
        if self.kind == Kind.HOOKS:
            state.memory = self._init_memory(n)
        return state

    def act(
        self,
        observation: Observation,
        state: SessionState | None = None,
        episode_start: np.ndarray | None = None,
        money: np.ndarray | None = None,
    ) -> tuple[np.ndarray, SessionState]:
        """Read the observations (the last coup's result), update, and choose the next bets.

        :param observation: a batch of the env's observations, dict or flat (or one unbatched).
        :param state: the memory returned by the previous call (None: start afresh).
        :param episode_start: per row, True where a new session begins (as SB3 passes it).
        :param money: the exact money in hand per row (float64: the env's ``bankroll``), read
            instead of the observation's bankroll. The observation holds it as float32, exact
            for whole units only up to ``2**24`` units (about 16.8 million): above that a
            stop rule or a stake limit would compare rounded money. The session runner passes it;
            without it, a bankroll above ``2**24`` in the observation warns once (RuntimeWarning).
        :return: actions in the env's full form, ``(n, 12)`` int64 (``(12,)`` for one unbatched
            observation), and the updated state.
        """
        seen, single = read_observation(observation)
        n = seen.bankroll.shape[0]
        if money is not None:
            exact = np.ascontiguousarray(money, dtype=np.float64).reshape(-1)
            if exact.shape != (n,):
                raise ValueError(f"money must hold one amount per observation ({n}), got shape {np.shape(money)}")
            seen = dataclasses.replace(seen, bankroll=exact)
        else:
            _warn_rounded_money(seen.bankroll)
        if state is None or state.n != n:
            state = self.initial_state(n)
        self._check_state(state)
        fresh = seen.coups == 0
        if episode_start is not None:
            fresh = fresh | np.asarray(episode_start, dtype=np.bool_).reshape(n)
        actions = no_actions(n)
        if self.kind == Kind.HOOKS:
            self._act_hooks(state, seen, fresh, actions)
        else:
            _make_room(state)
            columns = (seen.bankroll, seen.coups, seen.result, seen.couleur, seen.prison)
            kernel.act_rows(*self.kernel_params(), state.ints, state.start, columns, fresh, state.keys, actions)
        return (actions[0] if single else actions), state

    def _check_state(self, state: SessionState) -> None:
        """ValueError unless ``state`` has the shape and types of this strategy's memory of
        ``state.n`` sessions (a memory of another system has no room for this one's)."""
        ints = state.ints
        if not (
            isinstance(ints, np.ndarray) and ints.dtype == np.int64 and ints.flags.c_contiguous
            and ints.ndim == 2 and ints.shape[0] == state.n and ints.shape[1] >= self.state_width()
            and isinstance(state.start, np.ndarray) and state.start.dtype == np.float64
            and state.start.shape == (state.n,)
            and isinstance(state.keys, np.ndarray) and state.keys.dtype == np.int64 and state.keys.shape == (state.n,)
        ):  # fmt: skip
            raise ValueError(f"this state is not a memory of {self.name or type(self).__name__} for {state.n} sessions")

    def carried(self, state: Any) -> SessionState | None:
        """The memory :meth:`act` is given from SB3's ``predict`` (:class:`~strategies.policy.Acting`):
        the :class:`SessionState` handed back (SB3 passes it back unchanged), anything else afresh."""
        return state if isinstance(state, SessionState) else None

    def params(self) -> dict[str, Any]:
        """The parameters as plain values (enums by value, no rules)."""
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self) if not f.metadata.get("table")}

    def spec(self) -> str:
        """The spec string that recreates this strategy with :func:`~strategies.registry.make_strategy`
        (e.g. ``martingale:base=2,box=rouge``): the name the registry knows it by (a built-in, an
        installed plugin), else its ``module:Class`` path (``my_systems:Triple:base=2``)."""
        from strategies.registry import spec_name  # the registry imports this module

        defaults = type(self)(rules=self.rules).params()
        changed = {k: v for k, v in self.params().items() if v != defaults[k]}
        params = ",".join(f"{k}={_spec_value(v)}" for k, v in changed.items())
        return spec_name(type(self)) + (":" + params if params else "")

    # -- a system written as Python hooks -------------------------------------------------------
    def _act_hooks(self, state: SessionState, seen: Seen, fresh: np.ndarray, actions: np.ndarray) -> None:
        """The steps of :func:`strategies.kernel.step` over the batch, with the system's own rules
        from its hooks and the common rules compiled."""
        k, f = self.kernel_params()
        kernel.begin_rows(state.ints, state.start, seen.bankroll, fresh)
        if fresh.any():
            self._new_session(state, fresh)
        live = ~fresh
        self._see(state, seen, live)
        win, loss, amount = kernel.book_rows(k, f, state.ints, seen.result, seen.couleur, seen.prison, live)
        self._update(state, win, loss, amount)
        kernel.walk_away_rows(f, state.ints, seen.bankroll, state.start)
        box, stake = self._wanted(state)
        active, over = kernel.limit_rows(f, state.ints, seen.bankroll, box, stake)
        if self.on_limit is OnLimit.RESET and over.any():
            self._restart(state, over)
            box2, stake2 = self._wanted(state)
            box, stake = np.where(over, box2, box), np.where(over, stake2, stake)
        kernel.place_rows(k, f, state.ints, seen.bankroll, box, stake, active, actions)

    def _wanted(self, state: SessionState) -> tuple[np.ndarray, np.ndarray]:
        """The hook's bets as (n,) int64 arrays: boxes -1..3, stakes from 0 to
        :data:`~strategies.kernel.STAKE_CAP`, or ValueError."""
        box, stake = self._bet(state)
        n = state.n
        box = np.ascontiguousarray(np.broadcast_to(np.asarray(box, dtype=np.int64), (n,)))
        stake = np.ascontiguousarray(np.broadcast_to(np.asarray(stake, dtype=np.int64), (n,)))
        if ((box < -1) | (box > 3)).any() or ((stake < 0) | (stake > kernel.STAKE_CAP)).any():
            raise ValueError(f"{self.name or type(self).__name__}._bet: boxes are -1..3 and stakes whole units >= 0")
        return box, stake


def _make_room(state: SessionState) -> None:
    """Widen the state rows when a Labouchère line may outgrow them on this coup (one number a coup)."""
    ints = state.ints
    if ints.shape[1] > kernel.LINE and int(ints[:, kernel.HI].max(initial=0)) + 2 > ints.shape[1] - kernel.LINE:
        state.ints = np.pad(ints, ((0, 0), (0, ints.shape[1] - kernel.LINE)))


def read_observation(observation: Observation, rules: RuleSet | None = None) -> tuple[Seen, bool]:
    """The parts a strategy reads from a batch of observations (dict or flat), and whether the
    input was a single unbatched observation. The layout of a flat observation is read from its
    width; ``rules`` is not needed for it (accepted for the callers that pass it)."""
    if isinstance(observation, dict):
        bankroll = np.asarray(observation["bankroll"])
        single = bankroll.ndim == 1
        get = (lambda key: np.asarray(observation[key])[None]) if single else (lambda key: observation[key])
        seen = _seen(
            get("bankroll")[:, 0], get("coups")[:, 0], get("results")[:, 0], get("couleur")[:, 0], get("prison")
        )
        return seen, single
    flat = np.asarray(observation)
    single = flat.ndim == 1
    if single:
        flat = flat[None]
    at = _flat_offsets(flat.shape[1])
    seen = _seen(
        flat[:, at["bankroll"]],
        flat[:, at["coups"]],
        np.argmax(flat[:, at["results"] : at["results"] + RESULT_CODES], axis=1),
        np.argmax(flat[:, at["couleur"] : at["couleur"] + COULEUR_CODES], axis=1),
        flat[:, at["prison"] : at["prison"] + PRISON_SIZE],
    )
    return seen, single


def _seen(bankroll, coups, result, couleur, prison) -> Seen:  # noqa: ANN001
    def ints(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=np.int64)

    seen = Seen(
        np.ascontiguousarray(bankroll, dtype=np.float64), ints(coups), ints(result), ints(couleur),
        np.ascontiguousarray(prison, dtype=np.float64),
    )  # fmt: skip
    n = seen.bankroll.shape
    if seen.bankroll.ndim != 1 or any(a.shape != n for a in (seen.coups, seen.result, seen.couleur)):
        raise ValueError("the parts of the observations disagree on the number of sessions")
    if seen.prison.shape != (*n, PRISON_SIZE):
        raise ValueError(
            f"the prison part of an observation is {PRISON_SIZE} numbers per session, got shape {seen.prison.shape}"
        )
    return seen


@lru_cache(maxsize=64)
def _flat_offsets(width: int) -> dict[str, int]:
    """Where each part starts in a flat observation of ``width`` numbers (the layout of
    :mod:`trente_env.codes`, read from the width; ValueError for a width no layout has)."""
    return flat_offsets(*flat_layout(width))


def _coerce_fields(strategy: Strategy) -> None:
    """Accept plain values for enum, tuple and rules fields (from spec strings and config files)."""
    import typing

    hints = typing.get_type_hints(type(strategy))
    for f in dataclasses.fields(strategy):
        value = getattr(strategy, f.name)
        hint = hints[f.name]
        try:
            if f.name == "rules":
                value = get_rules(value)
            elif isinstance(hint, type) and issubclass(hint, Enum):
                value = hint(value)
            elif typing.get_origin(hint) is tuple:
                (inner, _) = typing.get_args(hint)
                value = tuple(inner(v) if issubclass(inner, Enum) else v for v in value)
        except ValueError as exc:
            raise ValueError(f"{f.name}: {exc}") from None
        object.__setattr__(strategy, f.name, value)


def plain(value: Any) -> Any:
    """A parameter's value as plain data (JSON, TOML): an enum's value, a tuple as a list."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value


def _spec_value(value: Any) -> str:
    if isinstance(value, list):
        return "-".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


__all__ = [
    "OnLimit",
    "RefaitMode",
    "Seen",
    "SessionState",
    "Strategy",
    "read_observation",
]

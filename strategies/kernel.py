"""The built-in systems as one compiled state machine: the only copy of their rules.

The per-session functions are compiled by :data:`trente_env.jit.hot` (no reference counting);
their conditions join with ``&`` and ``|``, which compile to straight-line code.

Every built-in system reads a coup and chooses its next bet through the functions below, compiled
with numba. :meth:`strategies.base.Strategy.act` runs them over a batch of observations (the
policy an RL agent's twin uses under gymnasium and SB3), and the tournament's compiled session loop
(:mod:`strategies.sessions`) runs the very same functions coup after coup without building an
observation, so a martingale stakes the same under both by construction.

**State.** One row of int64 numbers per session (columns below): the common part (the last bet,
the stake waited for in prison, walk-away, limit hits, cycles, sessions), then the system's own
memory (:data:`UNITS` ... :data:`HI`, and from :data:`LINE` on the Labouchère line). The bankroll
at the start of the session is kept beside it, as a float.

**Parameters.** A system is a :class:`Kind` with an int64 vector of parameters (``K_*``: base,
on-limit, refait booking, insurance, box, the system's number, list of units...) and a float64
vector (``F_*``: stop-win, stop-loss, probability of betting, table limits, premium).
:meth:`strategies.base.Strategy.kernel_params` builds both from the dataclass fields.

**A new kind of system**: a member of :class:`Kind`, then its own rule in the functions of the
section "the systems" below (:func:`restart`, :func:`see`, :func:`update`, :func:`units`,
:func:`want`: only those where it differs from a flat stake), reading its parameters from the
``K_*`` columns (a new one, if none fits, before :data:`K_LIST`). See :mod:`strategies.registry`
for the class side.

The rules common to every system are described in :mod:`strategies.base`; each system's own rule
is in its class docstring (:mod:`strategies.progressions`, :mod:`strategies.patterns`).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from trente_env import codes, jit
from trente_env.codes import GOLDEN, MIX1, MIX2, Result, box_won

#: Columns of a session's state row.
BOX, STAKE, JAIL_BOX, JAIL, WALKED, TABLE_MAX_HITS, BANKROLL_HITS, CYCLES, EPISODES = range(9)
UNITS, LEVEL, PROFIT, SIDE, RUN, COUP, LO, HI = range(9, 17)
#: The Labouchère line starts at this column (``LO``/``HI`` index it from there).
LINE = 17


class Kind(IntEnum):
    """The kinds of system the state machine plays: the one list of them (a system class names its
    kind; the functions below give each kind its rule)."""

    HOOKS = -1  #: a plugin: the common rules run here, the system's own rules in its Python hooks
    NEVER = 0  #: no stake, ever
    FLAT = 1  #: the same stake every coup
    MARTINGALE = 2  #: double after a loss
    GRAND = 3  #: double plus one unit after a loss
    REVERSE = 4  #: double after a win
    SEQUENCE = 5  #: a fixed sequence of units, one step up per win (paroli, 1-3-2-6)
    DALEMBERT = 6  #: one step more after a loss, one less after a win
    CONTRA = 7  #: one step more after a win, one less after a loss
    FIB = 8  #: up the Fibonacci sequence after a loss, back after a win
    LABOUCHERE = 9  #: a line of units: stake its ends, cross off or write down
    OSCAR = 10  #: one unit more after a win until the cycle's goal
    RUNS = 11  #: bet with (or against) a run of one column of the scoreboard
    RANDOM = 12  #: a random box, seeded


#: Integer parameters. ``K_STEP`` holds a system's own number, which each kind reads under the name of
#: what it means to it (one column, as no system has two of them): ``K_STEP`` for d'Alembert and
#: contra-d'Alembert, the units added or taken off after a decided coup; ``K_BACK``, ``K_GOAL``, ``K_RUN``.
K_KIND, K_BASE, K_CAP, K_WAIT, K_INSURE, K_PRISON, K_BOX, K_STEP, K_FOLLOW, K_SEED, K_COUNT, K_LIST = range(12)
#: Fibonacci: steps back down the sequence after a win (``K_STEP``).
K_BACK = K_STEP
#: Oscar's grind: the cycle's goal, in base units (``K_STEP``).
K_GOAL = K_STEP
#: A scoreboard reader: the length of run that triggers a bet (``K_STEP``).
K_RUN = K_STEP
#: Float parameters.
F_STOP_WIN, F_STOP_LOSS, F_P_BET, F_TABLE_MIN, F_TABLE_MAX, F_RATE, F_SPARES = range(7)
#: Numbers in the float vector.
F_WIDTH = F_SPARES + 1

#: Units never grow past this (a doubling progression capped at the table keeps counting), and no
#: parameter of a system (base, step, back, goal, run, a number of a line or sequence) may pass it.
MAX_UNITS = 2**40
#: The largest stake the kernel computes: far above any table maximum (at most
#: :data:`trente_env.rules.MAX_MONEY`, under 2**40), far below int64's limit.
STAKE_CAP = 2**62

# Why no int64 arithmetic here can overflow: every parameter is at most MAX_UNITS = 2**40 (checked
# when a system is made), and every count of units stays at most 2 * MAX_UNITS (sums of two such
# numbers, then capped at MAX_UNITS). The two products, the stake (base times units) and Oscar's goal
# (goal times base), are computed by `times`, which stops at STAKE_CAP = 2**62; Oscar's running profit
# moves by one stake (at most STAKE_CAP) a coup and is held within +-STAKE_CAP / 2, so the goal minus
# the profit stays under 2**62 + 2**61. Money read as a float
# (bankroll, table maximum) becomes a whole number through `whole`, clamped to [0, STAKE_CAP] first, so
# no conversion can overflow whatever the input.
#: Fibonacci numbers 1, 1, 2, 3, 5, ... up to what int64 stakes can hold.
FIBONACCI = np.array([1, 1] + [0] * 58, dtype=np.int64)
for _i in range(2, FIBONACCI.size):
    FIBONACCI[_i] = FIBONACCI[_i - 1] + FIBONACCI[_i - 2]


@jit.hot
def mix(x: np.uint64) -> np.uint64:
    """SplitMix64's finaliser: a well-mixed 64-bit number from a 64-bit input."""
    x = x ^ (x >> np.uint64(30))
    x = x * MIX1
    x = x ^ (x >> np.uint64(27))
    x = x * MIX2
    return x ^ (x >> np.uint64(31))


@jit.hot
def uniform(seed: int, row: int, episode: int, coup: int, stream: int) -> float:
    """A uniform in [0, 1) fixed by (seed, row, session on that row, coup, stream): counter-based,
    so a row draws the same numbers whatever the batch size or the other rows do. ``row`` is the
    session's key (:func:`trente_env.seeding.session_keys`: one number per session seed, whatever
    block or batch the session is played in), or the batch row where no key was given."""
    x = np.uint64(seed) * GOLDEN
    x = mix(x ^ (np.uint64(row) + GOLDEN))
    x = mix(x ^ (np.uint64(episode) + GOLDEN))
    x = mix(x ^ (np.uint64(coup) + GOLDEN))
    x = mix(x ^ (np.uint64(stream) + GOLDEN))
    return float(x >> np.uint64(11)) * 2.0**-53


# -- the common rules ------------------------------------------------------------------------------


@jit.hot
def begin(s: np.ndarray) -> None:
    """A new session on this row: no bet, nothing waited for, no walk-away (the caller notes the
    starting bankroll and restarts the system)."""
    s[BOX] = -1
    s[STAKE] = 0
    s[JAIL_BOX] = -1
    s[JAIL] = 0
    s[WALKED] = 0
    s[EPISODES] += 1


@jit.hot
def book(s: np.ndarray, k: np.ndarray, f: np.ndarray, result: int, couleur: int, prison: np.ndarray):
    """Whether the last bet won or lost, and the amount (units) that did: (win, loss, amount).

    A refait is a loss (``refait="loss"``), or (``"wait"``) the stake waits in prison, where being
    freed is no change and being lost is a loss. A stake the refait hands back whole (insured, or
    Couleur/Inverse at tables that spare them) is no change. ``prison`` is the observation's 8
    prisoner amounts (first prison per box, then second).
    """
    box = min(max(s[BOX], 0), 3)
    stake = s[STAKE]
    bet = stake > 0
    wins = box_won(box, result, couleur)
    win = bet & wins
    loss = bet & ((result == Result.NOIR) | (result == Result.ROUGE)) & (not wins)
    amount = stake
    spared = (k[K_INSURE] != 0) | ((f[F_SPARES] != 0.0) & (box >= 2))
    caught = bet & (result == Result.REFAIT) & (not spared)
    if k[K_WAIT] == 0:
        return win, loss | caught, amount
    if s[JAIL] > 0:
        held = min(max(s[JAIL_BOX], 0), 3)
        if prison[held] + prison[4 + held] <= 0.0:  # settled: freed (no change) or lost
            if not box_won(held, result, couleur):
                loss = True
                amount = s[JAIL]
            s[JAIL] = 0
            s[JAIL_BOX] = -1
    if caught & (prison[box] + prison[4 + box] > 0.0):
        s[JAIL] = stake
        s[JAIL_BOX] = s[BOX]
    return win, loss, amount


@jit.hot
def walk_away(s: np.ndarray, f: np.ndarray, bankroll: float, start: float) -> None:
    """Walk away for the rest of the session once ``stop_win`` ahead or ``stop_loss`` behind."""
    profit = bankroll - start
    if (profit >= f[F_STOP_WIN]) | (-profit >= f[F_STOP_LOSS]):
        s[WALKED] = 1


@jit.hot
def whole(money: float) -> int:
    """The whole units in ``money``, rounded down and held within [0, :data:`STAKE_CAP`] (NaN is 0)
    before the conversion to int64, which is then defined for any input (inf and 1e300 included)."""
    if not money > 0.0:
        return 0
    if money >= STAKE_CAP:
        return STAKE_CAP
    return int(np.floor(money))


@jit.hot
def times(a: int, b: int) -> int:
    """``a * b`` for counts >= 0, stopping at :data:`STAKE_CAP` instead of overflowing int64 (and 0
    if either is negative, which no system's count is)."""
    if (a < 2**31) & (b < 2**31) & (a >= 0) & (b >= 0):
        return a * b  # below 2**62: exact
    return whole(float(a) * float(b))


@jit.hot
def affordable(bankroll: float, rate: float) -> int:
    """The largest whole stake the bankroll covers, premium included.

    With a premium the money is no longer a whole or half number, so a hair of margin keeps the
    stake within what the table accepts (the division may round up).
    """
    money = bankroll * (1 - 1e-6) / (1 + rate) if rate != 0.0 else bankroll
    return whole(money)


@jit.hot
def limit(s: np.ndarray, f: np.ndarray, bankroll: float, box: int, stake: int) -> tuple[bool, bool]:
    """Whether the wanted bet is to be played at all (a box, a stake, no walk-away, nothing waited
    for in prison), and whether it passes the table maximum or the bankroll; hits are counted."""
    active = (box >= 0) & (box < 4) & (stake > 0) & (s[WALKED] == 0) & (s[JAIL] == 0)
    if not active:
        return False, False
    over_max = stake > whole(f[F_TABLE_MAX])
    over_bank = stake > affordable(bankroll, f[F_RATE])
    if over_max:
        s[TABLE_MAX_HITS] += 1
    if over_bank:
        s[BANKROLL_HITS] += 1
    return True, over_max | over_bank


@jit.hot
def place(s: np.ndarray, k: np.ndarray, f: np.ndarray, bankroll: float, box: int, stake: int, active: bool,
          action: np.ndarray) -> None:  # fmt: skip
    """Make the bet legal (capped at the maximum and the bankroll, dropped under the minimum),
    remember it, and write it into ``action`` (a row of the env's full action form, zeroed). Only
    an ``active`` bet (:func:`limit`: a box 0..3) is written."""
    if active:
        stake = min(stake, whole(f[F_TABLE_MAX]), affordable(bankroll, f[F_RATE]))
    if (not active) | (stake < f[F_TABLE_MIN]):
        stake = 0
    s[STAKE] = stake
    s[BOX] = box if stake > 0 else -1
    if stake > 0:
        action[codes.STAKE + box] = stake
        if k[K_INSURE] != 0:
            action[codes.INSURE + box] = 1
        if k[K_PRISON] != 0:
            action[codes.PRISON + box] = 1


# -- the systems -----------------------------------------------------------------------------------


@jit.hot
def restart(s: np.ndarray, k: np.ndarray) -> None:
    """Restart the progression: a new session or a limit hit under ``on_limit="reset"``."""
    kind = k[K_KIND]
    s[UNITS] = 1
    s[LEVEL] = 0
    s[PROFIT] = 0
    if kind == Kind.LABOUCHERE:
        n = k[K_COUNT]
        if (n < 1) | (K_LIST + n > k.size) | (LINE + n > s.size):
            raise ValueError("restart: the Labouchère line does not fit its parameters or state row")
        for i in range(n):
            s[LINE + i] = k[K_LIST + i]
        s[LO] = 0
        s[HI] = n


@jit.hot
def new_session(s: np.ndarray, k: np.ndarray) -> None:
    """Forget the row's past: the progression restarts, a scoreboard reader forgets its run."""
    restart(s, k)
    s[SIDE] = -1
    s[RUN] = 0


@jit.hot
def see(s: np.ndarray, k: np.ndarray, result: int, couleur: int, coups: int, live: bool) -> None:
    """Read the last coup, bet on or not: a scoreboard reader follows the run of its column
    (après, refait and void coups leave it as it was); the random bettor notes the coup number."""
    kind = k[K_KIND]
    if (kind == Kind.RUNS) & live:
        if k[K_BOX] == 0:
            side = 0 if result == Result.NOIR else (1 if result == Result.ROUGE else -1)
        else:
            side = couleur if couleur < 2 else -1
        if side >= 0:
            if side == s[SIDE]:
                s[RUN] += 1
            else:
                s[RUN] = 1
                s[SIDE] = side
    elif kind == Kind.RANDOM:
        s[COUP] = coups


@jit.hot
def update(s: np.ndarray, k: np.ndarray, win: bool, loss: bool, amount: int) -> None:
    """Advance the progression after a decided bet: ``win`` or ``loss`` of ``amount`` units."""
    kind = k[K_KIND]
    if not (win | loss):
        return
    if kind == Kind.MARTINGALE:
        s[UNITS] = 1 if win else min(s[UNITS] * 2, MAX_UNITS)
    elif kind == Kind.GRAND:
        s[UNITS] = 1 if win else min(s[UNITS] * 2 + 1, MAX_UNITS)
    elif kind == Kind.REVERSE:
        s[UNITS] = min(s[UNITS] * 2, MAX_UNITS) if win else 1
    elif kind == Kind.SEQUENCE:
        s[LEVEL] = s[LEVEL] + 1 if win else 0
        if s[LEVEL] >= k[K_COUNT]:
            s[LEVEL] = 0
            s[CYCLES] += 1
    elif (kind == Kind.DALEMBERT) | (kind == Kind.CONTRA):
        if win == (kind == Kind.DALEMBERT):
            s[UNITS] = max(s[UNITS] - k[K_STEP], 1)
        else:
            s[UNITS] = min(s[UNITS] + k[K_STEP], MAX_UNITS)
    elif kind == Kind.FIB:
        s[LEVEL] = max(s[LEVEL] - k[K_BACK], 0) if win else min(s[LEVEL] + 1, FIBONACCI.size - 1)
    elif kind == Kind.LABOUCHERE:
        if loss:  # write the lost stake at the end of the line
            if LINE + s[HI] >= s.size:  # the callers give the line room for one number a coup
                raise ValueError("update: no room left for the Labouchère line in the state row")
            s[LINE + s[HI]] = min(units(s, k), MAX_UNITS)
            s[HI] += 1
        else:  # cross off both ends (the only number when one is left)
            if s[HI] - s[LO] >= 2:
                s[HI] -= 1
            s[LO] += 1
            if s[HI] <= s[LO]:
                s[CYCLES] += 1
                restart(s, k)
    elif kind == Kind.OSCAR:
        s[PROFIT] = min(max(s[PROFIT] + (amount if win else -amount), -STAKE_CAP // 2), STAKE_CAP // 2)
        if win:
            goal = times(k[K_GOAL], k[K_BASE])
            if s[PROFIT] >= goal:
                s[CYCLES] += 1
                restart(s, k)
            else:
                left = -(-(goal - s[PROFIT]) // k[K_BASE])  # base units still to win, rounded up
                s[UNITS] = max(min(s[UNITS] + 1, left), 1)


@jit.hot
def units(s: np.ndarray, k: np.ndarray) -> int:
    """The system's count of units for the next stake."""
    kind = k[K_KIND]
    if kind == Kind.SEQUENCE:
        if (s[LEVEL] < 0) | (s[LEVEL] >= k[K_COUNT]) | (K_LIST + s[LEVEL] >= k.size):
            raise ValueError("units: a sequence step outside the sequence")
        return k[K_LIST + s[LEVEL]]
    if kind == Kind.FIB:
        if (s[LEVEL] < 0) | (s[LEVEL] >= FIBONACCI.size):
            raise ValueError("units: a Fibonacci step outside the sequence")
        return FIBONACCI[s[LEVEL]]
    if kind == Kind.LABOUCHERE:
        if (s[LO] < 0) | (s[HI] <= s[LO]) | (LINE + s[HI] > s.size):
            raise ValueError("units: the ends of the Labouchère line are outside the line")
        first = s[LINE + s[LO]]
        return first + s[LINE + s[HI] - 1] if s[HI] - s[LO] >= 2 else first
    return s[UNITS]


@jit.hot
def want(s: np.ndarray, k: np.ndarray, f: np.ndarray, row: int) -> tuple[int, int]:
    """The box (-1: none) and stake the system wants for the next coup. ``row`` keys the random
    bettor's draws."""
    kind = k[K_KIND]
    if kind == Kind.NEVER:
        return -1, 0
    if kind == Kind.RUNS:
        if s[RUN] < k[K_RUN]:
            return -1, k[K_BASE]
        side = s[SIDE] if k[K_FOLLOW] != 0 else 1 - s[SIDE]
        return k[K_BOX] + side, k[K_BASE]
    if kind == Kind.RANDOM:
        pick = uniform(k[K_SEED], row, s[EPISODES], s[COUP], np.int64(0))  # typed: one compile, not one per literal
        go = uniform(k[K_SEED], row, s[EPISODES], s[COUP], np.int64(1)) < f[F_P_BET]
        n = k[K_COUNT]
        if (n < 1) | (K_LIST + n > k.size):
            raise ValueError("want: the random bettor has no boxes to draw from")
        box = k[K_LIST + min(int(pick * n), n - 1)]
        return (box if go else -1), k[K_BASE]
    return k[K_BOX], times(k[K_BASE], units(s, k))


# -- one coup of one session, and a batch of them ----------------------------------------------


@jit.hot
def step(s, k, f, start, seen, fresh, row, action):
    """Read one observation and choose the next bet: the whole policy for one session.

    :param s: the session's state row (updated).
    :param start: the bankroll when the session began; returns it (the bankroll seen, when
        ``fresh``).
    :param seen: what the table shows, (bankroll, coups, result, couleur, prison): the money in
        hand, exact (float64: the table's own figure, not the observation's float32 copy, which
        loses a unit above ``2**24`` units); the coups played this session; the scoreboard's last
        coup; the 8 prisoner amounts.
    :param fresh: a new session begins on this row.
    :param row: the session's key for the random system's draws.
    :param action: the 12-number action row to fill (zeroed by the caller).
    """
    bankroll, coups, result, couleur, prison = seen
    if fresh:
        begin(s)
        start = bankroll
        new_session(s, k)
    see(s, k, result, couleur, coups, not fresh)
    win, loss, amount = book(s, k, f, result, couleur, prison)
    update(s, k, win, loss, amount)
    walk_away(s, f, bankroll, start)
    box, stake = want(s, k, f, row)
    active, over = limit(s, f, bankroll, box, stake)
    if over & (k[K_CAP] == 0):
        restart(s, k)
        box, stake = want(s, k, f, row)
    place(s, k, f, bankroll, box, stake, active, action)
    return start


@jit.kernel
def act_rows(k, f, state, start, seen, fresh, keys, actions):
    """:func:`step` for every row of a batch of observations (a built-in system's ``act``); row
    ``t`` draws with the session key ``keys[t]``. ``seen``: the batch's columns (bankroll, coups,
    result, couleur, prison), one row a session, as :func:`step` reads them."""
    bankroll, coups, result, couleur, prison = seen
    for t in range(state.shape[0]):
        seen_t = (bankroll[t], coups[t], result[t], couleur[t], prison[t])
        start[t] = step(state[t], k, f, start[t], seen_t, fresh[t], keys[t], actions[t])


@jit.kernel
def init_rows(state, k):  # fmt: skip
    """Every row at its starting values: no bet, and the system as at a session's start."""
    for t in range(state.shape[0]):
        state[t, BOX] = -1
        state[t, JAIL_BOX] = -1
        new_session(state[t], k)


# -- the common rules over a batch, for systems written as Python hooks (plugins) ------------------


@jit.kernel
def begin_rows(state, start, bankroll, fresh):  # fmt: skip
    for t in range(state.shape[0]):
        if fresh[t]:
            begin(state[t])
            start[t] = bankroll[t]


@jit.kernel
def book_rows(k, f, state, result, couleur, prison, live):  # fmt: skip
    n = state.shape[0]
    win = np.zeros(n, dtype=np.bool_)
    loss = np.zeros(n, dtype=np.bool_)
    amount = np.zeros(n, dtype=np.int64)
    for t in range(n):
        if live[t]:
            win[t], loss[t], amount[t] = book(state[t], k, f, result[t], couleur[t], prison[t])
    return win, loss, amount


@jit.kernel
def walk_away_rows(f, state, bankroll, start):  # fmt: skip
    for t in range(state.shape[0]):
        walk_away(state[t], f, bankroll[t], start[t])


@jit.kernel
def limit_rows(f, state, bankroll, box, stake):  # fmt: skip
    n = state.shape[0]
    active = np.zeros(n, dtype=np.bool_)
    over = np.zeros(n, dtype=np.bool_)
    for t in range(n):
        active[t], over[t] = limit(state[t], f, bankroll[t], box[t], stake[t])
    return active, over


@jit.kernel
def place_rows(k, f, state, bankroll, box, stake, active, actions):  # fmt: skip
    for t in range(state.shape[0]):
        place(state[t], k, f, bankroll[t], box[t], stake[t], active[t], actions[t])

"""The compiled session loop: every built-in system plays the same sessions, in one kernel.

For each session the coups are dealt once, as a table of the native vector env seeded with the
session's seed would deal them (:func:`~trente_env.croupier.next_coup`: the same shuffles, the same
cut card), and kept; then every system plays them in turn: its compiled policy
(:func:`strategies.kernel.step`, the code behind :meth:`strategies.base.Strategy.act`) reads what
the observation would show (the money in hand exact, in float64, as ``Strategy.act`` reads it from
the table: see its ``money``), and the table makes its bets legal and settles them
(:func:`~trente_env.croupier.bet_and_settle`, the code behind the environments). No observation is
built, no Python runs between coups, and the cards of a session are dealt once for all systems.

The session runner (:func:`strategies.runner.play`) plays here whatever it can (:func:`is_compiled`);
the bookkeeping is the one of :func:`strategies.runner.play_on_env`, which plays any policy (a
trained model, a plugin) on the vector env, and a test proves both give identical numbers.

The kernel's arguments travel in bundles: :class:`Systems` (who plays), the table's
:class:`~trente_env.croupier.TableRules`, :class:`SessionPlan` (how long, with what) and
:class:`SessionTotals` (the results of every system in every session).

Shuffle seeds: a table's generator gives one 64-bit seed per shuffle. They are drawn ahead,
``shuffles`` per session; a session that needs more is flagged ``short`` and played again by the
caller with more seeds, so the result never depends on how many were drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from strategies import kernel
from strategies.kernel import Kind
from strategies.results import SessionResults
from trente_env import jit
from trente_env.codes import ACTION_WIDTH, NO_COUP, PRISON_SIZE, UNDECIDED, scoreboard_couleur
from trente_env.croupier import bet_and_settle, is_free, is_ruined, next_coup, table_rules
from trente_env.rules import MAX_MONEY, RuleSet
from trente_env.seeding import session_shuffle_seeds
from trente_env.settle import _rig_payout
from trente_env.whole import is_whole

#: Coups allowed after the end of a session for prisoners to settle (no new stakes).
SETTLE_LIMIT = 1000


class Systems(NamedTuple):
    """The systems of a run as the kernel reads them: system ``j`` is row ``j`` of each vector."""

    params: np.ndarray  #: (systems, K) int64, :meth:`~strategies.base.Strategy.kernel_params`' int vectors
    floats: np.ndarray  #: (systems, F_WIDTH) float64, their float vectors
    width: int  #: columns of a session's state row (room for the longest Labouchère line)


class SessionPlan(NamedTuple):
    """What every session is: its starting bankroll, its length, and how many are recorded coup by coup."""

    bankroll: float  #: units
    coups: int  #: coups per session at most
    keep: int  #: the first ``keep`` sessions record the bankroll after every coup


class SessionTotals(NamedTuple):
    """The results of every system (first axis) in every session (second axis), one array each;
    the names are those of :data:`strategies.results.SESSION_FIELDS`."""

    net: np.ndarray
    staked: np.ndarray
    square_staked: np.ndarray  #: the sum of the squares of the session's new stakes
    final_bankroll: np.ndarray
    coups: np.ndarray
    walked: np.ndarray
    max_drawdown: np.ndarray
    longest_losing_run: np.ndarray
    table_max_hits: np.ndarray
    bankroll_hits: np.ndarray
    box_stakes: np.ndarray  #: (systems, sessions, 2, 4): uninsured and insured new stakes per box
    rig_staked: np.ndarray  #: (systems, sessions): Noir units staked right after the rig's pattern (a Noir win)
    trajectories: np.ndarray  #: (systems, keep, coups + 1) float32


@jit.released
def _play_block(systems, rules, plan, rows, seeds, out, short):  # fmt: skip
    """Play the sessions ``rows`` (session ``rows[i]`` shuffles with ``seeds[i]``) with every system
    ``j`` (row ``j`` of ``systems``) at a table of ``rules``; write the results of each into
    ``[j, rows[i]]`` of ``out``.

    A session that runs out of shuffle seeds is flagged in ``short`` and its results are partial.
    """
    params, floats = systems.params, systems.floats
    bankroll, coups, keep = plan.bankroll, plan.coups, plan.keep
    n_systems = params.shape[0]
    horizon = coups + SETTLE_LIMIT
    results = np.empty(horizon, dtype=np.int64)
    couleurs = np.empty(horizon, dtype=np.bool_)
    cards = rules.base.copy()
    state = np.zeros(systems.width, dtype=np.int64)
    action = np.zeros(ACTION_WIDTH)
    prison = np.zeros((4, 2))
    seen_prison = np.zeros(PRISON_SIZE)
    placed = np.zeros(4)
    insured = np.zeros(4, dtype=np.bool_)
    back = np.zeros(4)
    board = np.full(rules.rig_pattern.size, NO_COUP, dtype=np.int64)  # the last coups, most recent first: the rig's
    for i in range(rows.size):
        r = rows[i]
        key = np.int64(seeds[i, 0] >> np.uint64(1))  # the session's key (session_keys)
        dealt = 0
        shuffles = 0
        # typed from the start: a literal first value (0, True) has numba compile every kernel it
        # reaches twice, once for the literal and once for the loop's int64 / bool
        pos = np.int64(0)
        needs_shuffle = np.bool_(True)
        for j in range(n_systems):
            k = params[j]
            f = floats[j]
            out.staked[j, r] = 0.0
            out.square_staked[j, r] = 0.0
            out.box_stakes[j, r] = 0.0
            out.rig_staked[j, r] = 0.0
            state[:] = 0
            state[kernel.BOX] = -1
            state[kernel.JAIL_BOX] = -1
            kernel.new_session(state, k)
            prison[:] = 0.0
            money_in_hand = bankroll  # the table's bankroll
            last_result = np.int64(NO_COUP)
            board[:] = NO_COUP
            last_couleur = np.int64(UNDECIDED)
            start = 0.0
            gained = 0.0  # the session's net result
            peak = bankroll
            worst = 0.0
            run = 0
            long_run = 0
            n_played = 0
            t_hits = 0
            b_hits = 0
            active = True
            gone = False
            c = np.int64(0)
            while c < horizon:
                free = is_free(prison)
                if c >= coups:
                    active = False
                if (not active) & free:
                    break  # nothing on the table and no more bets: the session is over
                action[:] = 0.0
                if active:
                    for b in range(4):
                        seen_prison[b] = prison[b, 0]
                        seen_prison[4 + b] = prison[b, 1]
                    hits0 = state[kernel.TABLE_MAX_HITS]
                    bhits0 = state[kernel.BANKROLL_HITS]
                    shown = (money_in_hand, c, last_result, last_couleur, seen_prison)
                    start = kernel.step(state, k, f, start, shown, c == 0, key, action)
                    if state[kernel.WALKED] != 0:
                        gone = True
                        active = False
                        action[:] = 0.0
                    else:
                        t_hits += state[kernel.TABLE_MAX_HITS] - hits0
                        b_hits += state[kernel.BANKROLL_HITS] - bhits0
                        n_played += 1
                if c == dealt:  # the session's next coup, dealt once for every system
                    if needs_shuffle:
                        if shuffles == seeds.shape[1]:
                            short[i] = True
                            break
                        seed = seeds[i, shuffles]
                        shuffles += 1
                    else:
                        seed = np.uint64(0)
                    noir, rouge, result, couleur, _, _, pos, needs_shuffle = next_coup(
                        cards, pos, needs_shuffle, seed, rules
                    )
                    results[c] = result
                    couleurs[c] = couleur
                    dealt += 1
                result = results[c]
                couleur = couleurs[c]
                before = money_in_hand
                money_in_hand, _ = bet_and_settle(
                    action, before, prison, result, couleur, board, rules, (placed, insured, back)
                )
                for b in range(4):
                    out.box_stakes[j, r, 1 if insured[b] else 0, b] += placed[b]
                    out.staked[j, r] += placed[b]
                    out.square_staked[j, r] += placed[b] * placed[b]
                if _rig_payout(board, rules.rig_pattern, 1.0, 0.0) == 1.0:  # what a rigged table pays differently
                    out.rig_staked[j, r] += placed[0]
                gain = money_in_hand - before
                gained += gain
                money = gained + bankroll
                peak = max(peak, money)
                worst = max(worst, peak - money)
                if gain < 0:
                    run += 1
                elif gain > 0:
                    run = 0
                long_run = max(long_run, run)
                if (c < coups) & (r < keep):
                    out.trajectories[j, r, c + 1] = money
                c += 1
                last_result = result
                for q in range(board.size - 1, 0, -1):
                    board[q] = board[q - 1]
                board[0] = result
                last_couleur = scoreboard_couleur(result, couleur)
                if is_ruined(money_in_hand, rules.table_min, prison):
                    break
            if short[i]:
                break
            if r < keep:  # a finished session keeps its final bankroll (prisoners settled after the end too)
                for later in range(min(c, coups - 1) + 1, coups + 1):
                    out.trajectories[j, r, later] = gained + bankroll
            out.net[j, r] = gained
            out.final_bankroll[j, r] = bankroll + gained
            out.coups[j, r] = n_played
            out.walked[j, r] = gone
            out.max_drawdown[j, r] = worst
            out.longest_losing_run[j, r] = long_run
            out.table_max_hits[j, r] = t_hits
            out.bankroll_hits[j, r] = b_hits


def is_compiled(policy: object) -> bool:
    """Whether a policy plays on the compiled session loop (a built-in system, not a model or hooks)."""
    return getattr(policy, "kind", Kind.HOOKS) != Kind.HOOKS


def play_compiled(
    policies: Sequence[object],
    rules: RuleSet,
    bankroll: float,
    coups: int,
    seeds: Sequence[int],
    keep: int = 0,
    threads: int = 1,
    shuffles: int | None = None,
) -> list[SessionResults]:
    """Play one session per seed with every (built-in) policy: the results of
    :func:`strategies.runner.play_on_env` for each, in one compiled loop.

    :param policies: built-in strategies (:func:`is_compiled` is true for each).
    :param seeds: one table seed per session (the session's row in the block is its position here).
    :param keep: record the bankroll after every coup of the first ``keep`` sessions.
    :param threads: threads sharing the sessions, each running the compiled loop without Python's lock
        (the numbers do not depend on it).
    :param shuffles: shuffle seeds drawn ahead per session (default: plenty for ``coups``); a
        session that needs more is played again with four times as many.
    """
    n_systems, n = len(policies), len(seeds)
    if not all(is_compiled(policy) for policy in policies):
        raise ValueError("play_compiled plays built-in systems only (models and plugins: runner.play_on_env)")
    if not 0 < bankroll <= MAX_MONEY:
        raise ValueError(f"the starting bankroll must be positive and at most {MAX_MONEY:.0e} units, got {bankroll!r}")
    counts = (("coups", coups, 0), ("keep", keep, 0), ("threads", threads, 1), ("shuffles", shuffles, 1))
    for name, value, low in counts:
        if value is not None and not is_whole(value, low):
            raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
    widths, lists = [kernel.LINE], [kernel.K_LIST]
    for policy in policies:
        k, _ = policy.kernel_params()
        lists.append(k.size)
        if k[kernel.K_KIND] == Kind.LABOUCHERE:  # the line grows by at most one number a coup
            widths.append(kernel.LINE + k[kernel.K_COUNT] + coups + 2)
    params, floats = np.zeros((n_systems, max(lists)), dtype=np.int64), np.zeros((n_systems, kernel.F_WIDTH))
    systems = Systems(params, floats, max(widths))
    for j, policy in enumerate(policies):
        k, f = policy.kernel_params()
        systems.params[j, : k.size] = k
        systems.floats[j] = f
    keep = min(keep, n)
    plan = SessionPlan(float(bankroll), int(coups), int(keep))
    out = SessionTotals(
        net=np.zeros((n_systems, n)),
        staked=np.zeros((n_systems, n)),
        square_staked=np.zeros((n_systems, n)),
        final_bankroll=np.zeros((n_systems, n)),
        coups=np.zeros((n_systems, n), dtype=np.int64),
        walked=np.zeros((n_systems, n), dtype=np.bool_),
        max_drawdown=np.zeros((n_systems, n)),
        longest_losing_run=np.zeros((n_systems, n), dtype=np.int64),
        table_max_hits=np.zeros((n_systems, n), dtype=np.int64),
        bankroll_hits=np.zeros((n_systems, n), dtype=np.int64),
        box_stakes=np.zeros((n_systems, n, 2, 4)),
        rig_staked=np.zeros((n_systems, n)),
        trajectories=np.full((n_systems, keep, coups + 1), bankroll, dtype=np.float32),
    )
    table = table_rules(rules)
    todo = np.arange(n)
    if shuffles is None:
        shuffles = coups // 4 + 8  # a shoe deals about 25 coups
    while todo.size:
        short = np.zeros(todo.size, dtype=np.bool_)
        first_shuffles = session_shuffle_seeds([seeds[i] for i in todo], shuffles)
        if threads > 1 and todo.size > 1:  # threads share the sessions: each writes only its own
            chunks = np.linspace(0, todo.size, min(threads, todo.size) + 1).astype(np.int64)
            parts = [slice(lo, hi) for lo, hi in zip(chunks[:-1], chunks[1:])]
            with ThreadPoolExecutor(len(parts)) as pool:
                done = [
                    pool.submit(_play_block, systems, table, plan, todo[p], first_shuffles[p], out, short[p])
                    for p in parts
                ]
                for task in done:
                    task.result()  # an error in a thread is raised here
        else:
            _play_block(systems, table, plan, todo, first_shuffles, out, short)
        todo, shuffles = todo[short], shuffles * 4
    totals = ("box_stakes", "rig_staked", "trajectories")
    per_session = {key: value for key, value in out._asdict().items() if key not in totals}
    return [
        SessionResults(
            **{key: value[j] for key, value in per_session.items()},
            ahead=out.net[j] > 0,
            ruined=out.final_bankroll[j] < rules.table_min,
            box_stakes=out.box_stakes[j].sum(axis=0),
            rig_staked=out.rig_staked[j].sum(),  # a float64 scalar, as box_stakes is an array
            trajectories=out.trajectories[j],
            exact_gain=np.zeros(out.net[j].size),  # blind to the cards: the stake-weighted edge (SessionResults.edge)
            exact_staked=np.float64(0.0),
            rules=rules,
            to_prison=getattr(policy, "to_prison", None),
        )
        for j, policy in enumerate(policies)
    ]

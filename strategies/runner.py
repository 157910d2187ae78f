"""The session runner shared by every consumer: the tournament, ``trente-lab evaluate`` (and the
periodic evaluation of ``trente-lab train``) and the fallacy companion game all play their sessions
through :func:`play`, so the numbers of a system do not depend on the command that printed them.

**The accounting convention** (the only one in trente-lab; the README states it too):

* A session starts with ``bankroll`` units at a table of its own and lasts at most ``coups`` coups.
  It ends earlier at *ruin* (money in hand below the table minimum with nothing in prison) or when
  the system *walks away* (stop-win or stop-loss).
* After the last coup, ruin or walk-away **no new stake is placed**. Stakes still in prison settle
  on the following coups of the same shoe (freed, lost, or held again by the rules' refait), for at
  most :data:`~strategies.sessions.SETTLE_LIMIT` coups (a prisoner still held after that many
  coups, which takes about a thousand ties in a row, would count as lost).
* The session's **net result** ``y`` is the change of the bankroll once every stake has settled:
  wins, losses, halves, freed prisoners, insurance premiums (and, on the rigged table of the
  positive control, its bonus).
* The session's **total staked** ``x`` is the sum of the new stakes it placed; a prisoner is not
  staked again, and an insurance premium is not a stake.
* The **return per unit staked** is ``R = sum(y) / sum(x)`` over the sessions, the independent
  units, with the delta-method interval of :func:`trente_env.estimate.ratio_estimate`, never
  narrower than the noise the stakes imply. Beside it stands the exact expectation of the very
  stakes placed: ``-``:func:`trente_env.odds.stake_weighted_edge`, or, where the odds of a stake
  depend on the cards left (a policy reading the shoe), the expected gain of
  each stake given the cards unseen when it was placed (:class:`ExactGains`). Both are methods of the
  :class:`~strategies.results.SessionResults` every play path returns (``return_per_unit``,
  ``expected_return``).

**Seeds.** Session ``i`` of a run with seed ``s`` plays a table seeded
:func:`~trente_env.seeding.session_seed` ``(s, i)``, the ``i``-th child of
``numpy.random.SeedSequence(s)``, in every command (:mod:`trente_env.seeding` derives every seed).
Bets never change the cards, so every system sees the same coups in session ``i`` (common random
numbers), and the seed of a session does not depend on how the work is split.

**Two ways to play, one set of numbers.** :func:`play` plays built-in systems together on the
compiled session loop (:func:`strategies.sessions.play_compiled`: each session dealt once, no
observation built), and any other policy (a trained model, a plugin written as Python hooks), or
any policy when a table factory or an observer is given, on the native vector environment through
its ``act`` (:func:`play_on_env`). For a built-in system both give identical numbers to the last
chip (``tests/test_sessions.py``, ``tests/test_runner.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from strategies.base import Strategy
from strategies.policy import Policy
from strategies.results import SESSION_FIELDS, SessionResults
from strategies.sessions import SETTLE_LIMIT, is_compiled, play_compiled
from trente_env.codes import NOIR, PRISON, no_actions
from trente_env.rules import RuleSet
from trente_env.seeding import session_keys, session_seed, session_seeds
from trente_env.settle import rig_holds


@dataclass(frozen=True)
class CoupView:
    """What an observer of :func:`play_on_env` sees of one coup, one entry per session.

    Rows of sessions that are over (and no longer waiting for a prisoner) hold zeros in ``stakes``
    and ``reward``.
    """

    coup: int  #: the coup's index in the session (``coup >= coups``: prisoners settling after the end)
    last_result: np.ndarray  #: (n,) the result code of the coup before (the scoreboard the bet saw, or NO_COUP)
    playing: np.ndarray  #: (n,) bool: the session is on, its system could stake on this coup
    stakes: np.ndarray  #: (n, 4) new stakes placed per box, units
    insured: np.ndarray  #: (n, 4) bool: which of them are insured
    reward: np.ndarray  #: (n,) the money this coup won or lost, units
    info: dict[str, Any]  #: the vector env's ``info`` of the coup (e.g. the rig's ``bonus``)


#: An observer: called after every coup of :func:`play_on_env`.
Observer = Callable[[CoupView], None]
#: A table factory: ``factory(num_envs, rules=..., bankroll=..., **observation_kwargs)`` -> a
#: :class:`~trente_env.vector.TrenteEtQuaranteVectorEnv` (or a subclass, as the rigged table).
EnvFactory = Callable[..., Any]


def play(
    policies: Sequence[Policy],
    rules: RuleSet,
    bankroll: float,
    coups: int,
    seeds: Sequence[int],
    keep: int = 0,
    *,
    env_factory: EnvFactory | None = None,
    observer: Observer | None = None,
    threads: int = 1,
) -> list[SessionResults]:
    """Play one session per seed with every policy; the results of each.

    The compiled loop runs when every policy is a built-in system (:func:`~strategies.sessions.is_compiled`)
    and neither ``env_factory`` nor ``observer`` is given; otherwise each policy plays on the vector
    env (:func:`play_on_env`). Both give the same numbers.

    :param policies: :class:`~strategies.policy.Policy` objects: strategies,
        :class:`~strategies.model.ModelPolicy`, plugins.
    :param rules: the rules of every table.
    :param bankroll: starting bankroll of every session, units.
    :param coups: coups per session at most.
    :param seeds: one table seed per session (:func:`session_seeds`).
    :param keep: record the bankroll after every coup of the first ``keep`` sessions.
    :param env_factory: the tables to play on (default: the native vector env; the rules, rigged or
        not, are the engine's).
    :param observer: called after every coup with a :class:`CoupView` (each policy's sessions in
        turn; it sends play to the vector env).
    :param threads: threads of the compiled loop (the numbers do not depend on it).
    :return: per policy, its :class:`~strategies.results.SessionResults`: the :data:`SESSION_FIELDS`
        arrays, ``box_stakes`` ((2, 4): uninsured and insured new stakes per box, summed over
        sessions), ``rig_staked`` (the Noir units staked right after a coup won by Noir, summed: what a
        rigged table pays differently) and ``trajectories`` ((keep, coups + 1) float32; a finished
        session keeps its final bankroll).
    """
    if env_factory is None and observer is None and policies and all(is_compiled(p) for p in policies):
        return play_compiled(policies, rules, bankroll, coups, seeds, keep, threads)
    return [play_on_env(p, rules, bankroll, coups, seeds, keep, env_factory, observer) for p in policies]


def observation_kwargs(policy: Policy) -> dict[str, Any]:
    """The observation a policy reads: the form, scoreboard length and shoe of a model's training
    env (its ``env_kwargs()``), else the vector env's default (dict, 10 coups, no shoe)."""
    settings = getattr(policy, "env_kwargs", None)
    if settings is None:
        return {}
    kwargs = settings()
    return {key: kwargs[key] for key in ("observation", "history", "observe_shoe") if key in kwargs}


def play_on_env(
    policy: Policy,
    rules: RuleSet,
    bankroll: float,
    coups: int,
    seeds: Sequence[int],
    keep: int = 0,
    env_factory: EnvFactory | None = None,
    observer: Observer | None = None,
    exact_odds: bool | None = None,
) -> SessionResults:
    """Play one session per seed with ``policy`` on the native vector env through its ``act``.

    The convention of the module docstring; the arguments and the result are those of :func:`play`.

    :param exact_odds: also add up, per session, the expected gain of every new stake given the cards
        unseen when it was placed (``exact_gain`` and ``exact_staked`` of the results: :class:`ExactGains`). None: on a
        fair table, when the policy reads the shoe (its env observes it), so that its stakes' odds
        depend on the cards left. A policy blind to the cards keeps the first coup's stake-weighted
        edge, as the compiled session loop (the tournament) does, so the two agree; at a table dealt
        to the end of the shoe (no cut card) that edge is about 3% too large (a coup in 32 is void,
        every stake returned), which ``exact_odds=True`` shows.
    """
    n = len(seeds)
    if env_factory is None:
        from trente_env.vector import TrenteEtQuaranteVectorEnv as env_factory
    kwargs = observation_kwargs(policy)
    if exact_odds is None:
        exact_odds = bool(kwargs.get("observe_shoe")) and not rules.rigged
    elif exact_odds and rules.rigged:
        raise ValueError("the expected gain of each stake given the cards is computed at a fair table only")
    gains = ExactGains(rules, n) if exact_odds else None
    if getattr(policy, "serial_tables", False):  # a model: its network runs between the coups on this thread,
        kwargs["threads"] = False  # numba's threads would spin beside it and slow it (see ModelPolicy)
    venv = env_factory(n, rules=rules, bankroll=bankroll, coup_info=True, **kwargs)
    obs, _ = venv.reset(seed=list(seeds))
    system = isinstance(policy, Strategy)
    # a betting system reads the exact money (the observation's float32 rounds it above 2**24 units)
    # and draws with each session's key, not its row: the numbers of the compiled loop
    state = policy.initial_state(n, keys=session_keys(seeds)) if system else None
    net = np.zeros(n)
    box_total = np.zeros((n, 4))  # new stakes per session and box
    square = np.zeros(n)  # the sum of the squares of each session's new stakes (the stakes' own noise)
    rig_staked = 0.0  # Noir units staked right after the rig's pattern (what a rigged table pays differently)
    box_insured = np.zeros(4)  # of which insured, summed over sessions
    peak = np.full(n, float(bankroll))
    drawdown = np.zeros(n)
    run = np.zeros(n, dtype=np.int64)
    longest = np.zeros(n, dtype=np.int64)
    played = np.zeros(n, dtype=np.int64)
    table_hits = np.zeros(n, dtype=np.int64)
    bank_hits = np.zeros(n, dtype=np.int64)
    walked = np.zeros(n, dtype=np.bool_)
    active = np.ones(n, dtype=np.bool_)  # the session is still on: the system may stake
    counting = np.ones(n, dtype=np.bool_)  # still on, or waiting for a prisoner to settle
    keep = min(keep, n)
    trajectories = np.empty((keep, coups + 1), dtype=np.float32)
    trajectories[:, 0] = bankroll
    zeros = np.zeros(n, dtype=np.int64)
    c = 0
    while c < coups + SETTLE_LIMIT:
        if c < coups:
            hits0 = getattr(state, "table_max_hits", zeros).copy()
            bhits0 = getattr(state, "bankroll_hits", zeros).copy()
            try:
                if system:
                    actions, state = policy.act(obs, state, money=venv.bankroll)
                else:
                    actions, state = policy.act(obs, state)
            except KeyboardInterrupt:  # Ctrl-C, or a plugin raising it: the run stops as at Ctrl-C
                raise
            except BaseException as exc:  # a plugin failing in any way or exiting: one line naming it (built-in: a bug)
                from strategies.registry import plugin_failure

                failure = plugin_failure(policy, exc, "playing")
                if failure is None:
                    raise
                raise failure from None
            gone = getattr(state, "walked", None)
            if gone is not None:
                walked |= active & gone
                active &= ~gone
            table_hits += (getattr(state, "table_max_hits", zeros) - hits0) * active
            bank_hits += (getattr(state, "bankroll_hits", zeros) - bhits0) * active
            actions = np.asarray(actions) * active[:, None]  # a finished session stakes nothing
        else:  # the sessions are over: no policy is asked, prisoners settle
            active[:] = False
            actions = no_actions(n)
        playing = active.copy() if observer is not None else active
        before = venv.tables.results[:, 0].copy()  # the previous coup
        held = rig_holds(rules, venv.tables.results)  # the rig's pattern shows: a rigged table pays Noir differently
        played += active
        if gains is not None:
            gains.before(venv.tables)
        obs, reward, terminated, _, info = venv.step(actions)
        # rows of finished sessions (or of a table restarting after ruin) carry stale values
        reward *= counting
        stakes = info["stakes"]
        stakes *= counting[:, None]
        box_total += stakes
        square += (stakes * stakes).sum(axis=1)
        rig_staked += float(stakes[held, NOIR].sum())
        insured = info["insured"]
        if gains is not None:
            gains.placed(venv.tables, stakes, insured, actions)
        if insured.any():
            box_insured += (stakes * insured).sum(axis=0)
        net += reward
        money = net + bankroll
        np.maximum(peak, money, out=peak)
        np.maximum(drawdown, peak - money, out=drawdown)
        run += reward < 0  # a losing run: coups that lost money; one that won money ends it
        run[reward > 0] = 0
        np.maximum(longest, run, out=longest)
        if c < coups and keep:
            trajectories[:, c + 1] = money[:keep]
        if observer is not None:
            observer(CoupView(c, before, playing, stakes, insured & counting[:, None], reward, info))
        c += 1
        ruined_now = counting & terminated
        if ruined_now.any():
            active &= ~ruined_now
            counting &= ~ruined_now
        waiting = counting & ~active
        if waiting.any():  # finished sessions wait only for their prisoners
            counting &= active | _prison(obs, venv)
        if not counting.any():
            break
    final = bankroll + net
    if keep:  # a finished session keeps its final bankroll (prisoners settled after the end too)
        trajectories[:, min(c, coups - 1) + 1 :] = final[:keep, None]
    uninsured = box_total.sum(axis=0) - box_insured
    return SessionResults(
        net=net,
        staked=box_total.sum(axis=1),
        square_staked=square,
        final_bankroll=final,
        coups=played,
        ahead=net > 0,
        ruined=final < rules.table_min,
        walked=walked,
        max_drawdown=drawdown,
        longest_losing_run=longest,
        table_max_hits=table_hits,
        bankroll_hits=bank_hits,
        box_stakes=np.stack([uninsured, box_insured]),
        rig_staked=np.float64(rig_staked),
        trajectories=trajectories,
        exact_gain=np.zeros(n) if gains is None else gains.total,
        exact_staked=np.float64(0.0 if gains is None else box_total.sum()),
        rules=rules,
        to_prison=getattr(policy, "to_prison", None),
    )


class ExactGains:
    """The expected gain of the new stakes of ``n`` sessions given the cards each table had not seen
    when they were placed, added up per session (:attr:`total`): the odds of each coup from its unseen
    cards and what a unit on each box is worth by them, the counting engine's
    (:func:`trente_env.counting.counters.placed_gains`: the perfect counter's view, exact for a short
    shoe, else the fast approximation). Call :meth:`before` before each coup and :meth:`placed` after it."""

    def __init__(self, rules: RuleSet, n: int) -> None:
        # imported here, once (the counting engine is loaded only by the runs that need it), not at every coup
        from trente_env.counting.counters import bet_rules, placed_gains
        from trente_env.odds import COUPLED_CARDS, EXACT_BOX, nodes

        self._placed_gains = placed_gains
        self.odds = (EXACT_BOX, COUPLED_CARDS, nodes().model())
        self.rules = bet_rules(rules)
        self.total = np.zeros(n)
        self._pos = np.zeros(n, dtype=np.int64)
        self._fresh = np.zeros(n, dtype=np.bool_)

    def before(self, tables: Any) -> None:
        """Note where each table's shoe stands before the coup (the vector env's :attr:`tables`)."""
        self._pos[:] = tables.pos
        self._fresh[:] = tables.needs_shuffle

    def placed(self, tables: Any, stakes: np.ndarray, insured: np.ndarray, actions: np.ndarray) -> None:
        """Add the expected gain of the coup's new ``stakes`` ((n, 4) units, ``insured`` (n, 4) bool),
        with the prison choice of the full-form ``actions`` that placed them."""
        to_prison = np.ascontiguousarray(np.asarray(actions)[:, PRISON : PRISON + 4] > 0.5)
        slips = (np.ascontiguousarray(stakes, dtype=np.float64), np.ascontiguousarray(insured), to_prison)
        before = (self._pos, self._fresh)
        self._placed_gains(tables.shoes, before, tables.table_rules, slips, self.odds, self.rules, self.total)


def _prison(obs: Any, venv: Any) -> np.ndarray:
    """Which tables hold a stake in prison (from a dict observation, else from the tables)."""
    if isinstance(obs, dict):
        return obs["prison"].any(axis=1)
    return venv.tables.prison.reshape(venv.num_envs, -1).any(axis=1)


__all__ = [
    "SESSION_FIELDS",
    "CoupView",
    "SessionResults",
    "EnvFactory",
    "Observer",
    "is_compiled",
    "observation_kwargs",
    "play",
    "play_on_env",
    "session_seed",
    "session_seeds",
]

"""Exact session risk of a betting system: a Markov chain over what a session can be.

**The model.** Coups are taken as independent, each with the exact odds of the first coup of a full
shoe (:func:`trente_env.odds.first_coup`): Noir or Rouge wins, each with Couleur or Inverse (a
quarter of the decided coups each: a full shoe is balanced in colour), refait, après. A real shoe
deals without replacement, so its coups are very slightly dependent (docs/statistics.md measures
how little it matters); everything else is exact.

**One engine.** A session's state is the system's state row (:mod:`strategies.kernel`), the money in
hand, the prisoners and the last coup on the scoreboard. Each coup, every distinct state is advanced
by the system's own compiled decision (:func:`strategies.kernel.step`, the code the tournament and
the environments run) and settled by the table (:func:`trente_env.croupier.bet_and_settle`) for each
outcome of the coup with its probability; equal states are merged (a hash table on the whole row).
The loop is the session loop of :mod:`strategies.sessions`, coup for coup: the same walk-away, the
same ruin (money under the table minimum with no prisoner left), prisoners settled after the last coup.
Counters that decide nothing (limit hits, cycles, sessions, the coup number) are taken out of the
state after each coup and added up as expectations, so they do not keep apart states that play alike.

**Two chains, one distribution.** The money is most of what tells states apart, and the system
reads it only through a few thresholds. The grid chain (:mod:`strategies.risk.grid`, the default) holds
each class of states (all but the money) as a dense vector over a money grid and moves whole runs of
it at a time; the state-by-state chain (:mod:`strategies.risk.states`) takes any payout, and is the
fallback when one falls off every grid (an insurance premium). Tests hold the two equal.

**Which systems.** Every built-in system whose state takes finitely many values in a session: all of
:data:`strategies.registry.LINEUP`. The random bettor draws its box from a generator keyed by the
session; here its draw is chance like the coup (a branch for each box it may draw and one for no bet,
with their probabilities). Two systems' own state grows without bound as a session loses: a
Labouchère line (one number more a losing coup) and Oscar's grind (its cycle's running loss). The
chain stops with :class:`RiskError` when the distinct states pass ``max_states``, which they do for
a default tournament's session (200 coups): simulate those. Plugins (Python hooks) and trained
models are not state machines of the kernel: simulate them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from strategies import kernel
from strategies.kernel import Kind
from strategies.risk import grid as grid_chain
from strategies.risk.states import (
    ACTION,
    BANK_HITS,
    MONEY,
    N_FLOATS,
    PLAYED,
    STAKED,
    TABLE_HITS,
    Advanced,
    Decision,
    Game,
    Shown,
    States,
    System,
    advance,
    canonical,
    decide,
)
from strategies.sessions import SETTLE_LIMIT
from trente_env.codes import ACTION_WIDTH, NO_COUP, PRISON_SIZE, UNDECIDED, Result
from trente_env.croupier import table_rules
from trente_env.odds import first_coup
from trente_env.rules import RuleSet

#: The most distinct states the chain carries at once by default.
MAX_STATES = 2_000_000
#: The most memory the chain's arrays of one coup may take; each allocation is checked against it
#: before it is made (a state's row grows with a Labouchère line's room: one number a coup).
MAX_BYTES = 2**30


class RiskError(ValueError):
    """A system whose exact risk cannot be computed: not a state machine, or too many states."""


@dataclass(frozen=True)
class ExactRisk:
    """The exact distribution of a session's result (see the module's notes for the model).

    ``final`` and ``p_final``: every final bankroll a session can end with and its probability (sorted).
    """

    name: str
    rules: RuleSet
    bankroll: float
    coups: int
    final: np.ndarray
    p_final: np.ndarray
    expected_staked: float  #: units staked in a session, on average (new stakes)
    expected_coups: float  #: coups played (a stake considered), on average
    expected_table_max_hits: float
    expected_bankroll_hits: float
    largest_states: int  #: the most distinct states the chain carried at once
    seconds: float
    model: str = field(default="independent coups with the exact odds of the first coup of a full shoe")

    @property
    def p_ruin(self) -> float:
        """P(the session ends with less than the table minimum): the tournament's ruin."""
        return float(self.p_final[self.final < self.rules.table_min].sum())

    @property
    def p_ahead(self) -> float:
        """P(the session ends with more than it began with)."""
        return float(self.p_final[self.final > self.bankroll].sum())

    def p_at_least(self, gain: float) -> float:
        """P(the session ends at least ``gain`` units ahead)."""
        return float(self.p_final[self.final >= self.bankroll + gain].sum())

    @property
    def expected_net(self) -> float:
        """The session's expected result, in units."""
        return float(self.p_final @ (self.final - self.bankroll))

    @property
    def return_per_staked(self) -> float:
        """E[net] / E[staked]: what the tournament's ratio estimator converges to (NaN if nothing is staked)."""
        return self.expected_net / self.expected_staked if self.expected_staked > 0 else float("nan")

    def quantile(self, q: float) -> float:
        """The smallest final bankroll whose cumulative probability reaches ``q``."""
        cum = np.cumsum(self.p_final)
        return float(self.final[min(int(np.searchsorted(cum, q - 1e-12)), self.final.size - 1)])

    def summary(self) -> dict[str, object]:
        return {
            "system": self.name,
            "rules": self.rules.describe(),
            "bankroll": self.bankroll,
            "coups": self.coups,
            "model": self.model,
            "p_ruin": self.p_ruin,
            "p_ahead": self.p_ahead,
            "expected_net": self.expected_net,
            "expected_staked": self.expected_staked,
            "return_per_staked": self.return_per_staked,
            "expected_coups": self.expected_coups,
            "expected_table_max_hits": self.expected_table_max_hits,
            "expected_bankroll_hits": self.expected_bankroll_hits,
            "median_final": self.quantile(0.5),
            "distinct_final": int(self.final.size),
            "largest_states": self.largest_states,
            "seconds": self.seconds,
        }


def coup_outcomes(rules: RuleSet) -> np.ndarray:
    """(result, couleur, probability) rows of a coup under ``rules``: the first coup of a full shoe.
    A full shoe holds as many red as black cards of each value, so each decided result is split
    evenly between Couleur and Inverse."""
    odds = first_coup(rules.decks)
    half_noir, half_rouge = odds.p_noir / 2, odds.p_rouge / 2
    rows = [
        (Result.NOIR, 1, half_noir), (Result.NOIR, 0, half_noir), (Result.ROUGE, 1, half_rouge),
        (Result.ROUGE, 0, half_rouge), (Result.REFAIT, 0, odds.p_refait), (Result.APRES, 0, odds.p_apres),
    ]  # fmt: skip
    return np.array(rows, dtype=np.float64)


def _branches(k: np.ndarray, f: np.ndarray) -> np.ndarray:
    """The system's choice as chance: (box, probability) rows; one row (-2, 1) for a system that
    chooses by its state, a row per box and one for no bet for the random bettor."""
    if k[kernel.K_KIND] != Kind.RANDOM:
        return np.array([[-2.0, 1.0]])
    boxes = k[kernel.K_LIST : kernel.K_LIST + k[kernel.K_COUNT]]
    p_bet = float(f[kernel.F_P_BET])
    rows = [(float(b), p_bet / boxes.size) for b in boxes]
    return np.array([*rows, (-1.0, 1.0 - p_bet)])


#: The money grids the fast chain tries, coarsest first (a whole unit holds the classic rules' money,
#: a half the partage's, a quarter every payout of the presets).
GRIDS = (1.0, 0.5, 0.25, 0.125, 1 / 64)
#: After the last coup the prisoners settle until the chance that one is still held is below this
#: (:meth:`_Chain.settle_coups`); what is left then ends with the money in hand, as a session that
#: reaches the session loop's limit (:data:`strategies.sessions.SETTLE_LIMIT`): far below any digit shown.
TAIL = 1e-15
#: The chains :func:`exact_risk` can run: ``"auto"`` is the money grid where every payout falls on one.
ENGINES = ("auto", "grid", "states")


class _OffGrid(Exception):
    """A payout fell off the money grid: a finer grid, or the state-by-state chain."""


def exact_risk(
    policy: object,
    rules: RuleSet,
    bankroll: float,
    coups: int,
    *,
    max_states: int = MAX_STATES,
    name: str | None = None,
    engine: str = "auto",
) -> ExactRisk:
    """The exact risk of one session of ``coups`` coups from ``bankroll`` units played by ``policy`` (a
    built-in system) at a table of ``rules`` (see the module's notes: the model, and which systems).

    :param max_states: the most distinct states carried at once; :class:`RiskError` beyond.
    :param engine: ``"grid"``, the chain over a dense money grid (:mod:`strategies.risk.grid`);
        ``"states"``, state by state (:mod:`strategies.risk.states`, any payout); ``"auto"``, the grid
        where every payout falls on one (a grid's step divides the bankroll and every payout), else
        the states. Both give the same distribution.
    :raises RiskError: a policy that is no state machine of the kernel, or too many states.
    """
    kind = getattr(policy, "kind", Kind.HOOKS)
    if kind == Kind.HOOKS or not hasattr(policy, "kernel_params"):
        raise RiskError(f"{name or policy!r} is not a built-in system: its exact risk is unknown, simulate it")
    if not bankroll > 0 or coups < 0:
        raise RiskError(f"need a positive bankroll and coups >= 0, got {bankroll!r} and {coups!r}")
    if rules.rig_memory > 1:
        raise RiskError(
            f"this rigged table pays Noir by its last {rules.rig_memory} coups; the chain keeps the last one only"
        )
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    start_time = time.perf_counter()
    chain = _Chain(policy, rules, float(bankroll), int(coups), max_states, name or repr(policy))
    result = None
    if engine != "states":
        for g in GRIDS:
            try:
                result = chain.on_grid(g)
                break
            except _OffGrid:
                continue
        if result is None and engine == "grid":
            raise RiskError(f"{chain.name}: a payout falls off every money grid tried; use the states chain")
    if result is None:
        result = chain.by_state()
    money, p, acc, largest = result
    final, inverse = np.unique(money, return_inverse=True)
    p_final = np.bincount(inverse.ravel(), weights=p, minlength=final.size)
    return ExactRisk(
        name=name or getattr(policy, "name", "system"),
        rules=rules,
        bankroll=float(bankroll),
        coups=int(coups),
        final=final,
        p_final=p_final,
        expected_staked=float(acc[STAKED]),
        expected_coups=float(acc[PLAYED]),
        expected_table_max_hits=float(acc[TABLE_HITS]),
        expected_bankroll_hits=float(acc[BANK_HITS]),
        largest_states=int(largest),
        seconds=time.perf_counter() - start_time,
    )


class _Chain:
    """One session's chain: its first decisions, then coup after coup by either engine. Each engine
    returns (final money, their probabilities, the expectations added up, the most states at once)."""

    def __init__(self, policy: object, rules: RuleSet, bankroll: float, coups: int, max_states: int, name: str):
        self.rules, self.bankroll, self.coups, self.max_states, self.name = rules, bankroll, coups, max_states, name
        k, self.f = policy.kernel_params()
        self.k = k = k.copy()
        self.line = k[kernel.K_KIND] == Kind.LABOUCHERE
        self.width = kernel.LINE + (int(k[kernel.K_COUNT]) + coups + 2 if self.line else 0)
        self.table = table_rules(rules)
        self.outcomes = coup_outcomes(rules)
        self.branches = _branches(k, self.f)
        self.start = float(np.float32(bankroll))
        self.rigged = bool(rules.rigged)

    def first(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list, list, np.ndarray]:
        """The states before the first coup: the system's first decision (one per branch of its draw).
        Returns (keys, action rows, probabilities, money ended, their probabilities, expectations)."""
        k, width, branches = self.k, self.width, self.branches
        s = np.zeros(width, np.int64)
        s[kernel.BOX] = -1
        s[kernel.JAIL_BOX] = -1
        kernel.new_session(s, k)
        acc = np.zeros(4)
        money_parts, prob_parts = [], []
        keys = np.zeros((branches.shape[0], width + 1), np.int64)
        actions = np.zeros((branches.shape[0], ACTION_WIDTH))
        probs = branches[:, 1].copy()
        no_prisoner = np.zeros((4, 2))
        shown = Shown(float(self.bankroll), 0, self.coups, NO_COUP, UNDECIDED, no_prisoner)
        for j in range(branches.shape[0]):
            row = s.copy()
            out = Decision(actions[j], np.zeros(PRISON_SIZE), acc)
            over = decide(row, System(k, k.copy(), self.f), self.start, shown, int(branches[j, 0]), out, probs[j])
            if over:
                money_parts.append(np.array([self.bankroll]))
                prob_parts.append(probs[j : j + 1].copy())
                probs[j] = 0.0
            canonical(row, self.line)
            keys[j, :width] = row
            keys[j, width] = NO_COUP if self.rigged else 0
        keep = probs > 0
        return keys[keep], actions[keep], probs[keep], money_parts, prob_parts, acc

    def game(self) -> Game:
        """What every coup of this session's chain is played with (either chain)."""
        return Game(
            self.k, self.f, self.table, self.coups, self.start, self.branches, self.outcomes, self.line, self.rigged
        )

    def settle_coups(self) -> int:
        """Coups after the last for prisoners to settle: a prisoner is still held after a coup only on a
        refait or an après, so after ``t`` coups with chance at most ``q ** t`` (``q``: their chance)."""
        kept = np.isin(self.outcomes[:, 0], (Result.REFAIT, Result.APRES))
        q = float(self.outcomes[kept, 2].sum())
        if q <= 0.0:
            return 1
        return min(SETTLE_LIMIT, int(np.ceil(np.log(TAIL) / np.log(q))) if q < 1.0 else SETTLE_LIMIT)

    def check_bytes(self, c: int, rows: int, floats: int, extra: int = 0) -> None:
        """Refuse, before they are allocated, ``rows`` states of this chain (each its key, ``floats``
        numbers and a slot or two of hashing) and ``extra`` more bytes (the rest of the coup's arrays,
        and the states held from the coup before) when they pass :data:`MAX_BYTES`."""
        need = rows * 8 * (self.width + 1 + floats + 4) + extra
        if need > MAX_BYTES:
            raise RiskError(
                f"{self.name}: its states after {c + 1} coups would need about {need / 1e9:.1f} GB "
                f"({rows:,} states of {self.width + 1:,} numbers each): not a finite-state system within this "
                "bound (simulate it, or ask for fewer coups)"
            )

    def too_many(self, c: int) -> RiskError:
        return RiskError(
            f"{self.name}: more than {self.max_states:,} distinct states after {c + 1} coups: not a "
            "finite-state system within this bound (simulate it, or ask for fewer coups)"
        )

    def by_state(self) -> tuple:
        keys, actions, probs, money_parts, prob_parts, acc = self.first()
        values = np.zeros((probs.size, N_FLOATS))
        values[:, MONEY] = self.bankroll
        values[:, ACTION:] = actions
        width, fan = self.width, self.outcomes.shape[0] * self.branches.shape[0]
        game = self.game()
        largest = n = probs.size
        for c in range(self.coups + self.settle_coups()):
            if n == 0:
                break
            room = n * fan
            size = 16
            while size < 2 * room:
                size *= 2
            self.check_bytes(c, room, N_FLOATS + 3, 8 * size + keys.nbytes + values.nbytes + probs.nbytes)  # + held
            new_keys = np.empty((room, width + 1), np.int64)
            new_values = np.empty((room, N_FLOATS))
            new_probs = np.empty(room)
            done_money = np.empty(room)
            done_probs = np.empty(room)
            out = Advanced(
                np.empty(size, np.int64), States(new_keys, new_values, new_probs), done_money, done_probs, acc
            )
            n, d = advance(States(keys, values, probs), n, game, c, out)
            money_parts.append(done_money[:d])
            prob_parts.append(done_probs[:d])
            keys, values, probs = new_keys[:n], new_values[:n], new_probs[:n]
            largest = max(largest, n)
            if n > self.max_states:
                raise self.too_many(c)
        if n:  # the horizon reached with prisoners still held: the session ends there, as the session loop's
            money_parts.append(values[:n, MONEY])
            prob_parts.append(probs[:n])
        return np.concatenate(money_parts), np.concatenate(prob_parts), acc, largest

    def on_grid(self, g: float) -> tuple:
        at = self.bankroll / g
        if at != np.round(at) or self.start != self.bankroll:
            raise _OffGrid
        keys, actions, probs, money_parts, prob_parts, acc = self.first()
        n = probs.size
        values = np.zeros((n, grid_chain.CLASS_FLOATS))
        values[:, PRISON_SIZE:] = actions
        lo = np.full(n, int(at), np.int64)
        ln = np.ones(n, np.int64)
        off = np.arange(n, dtype=np.int64)
        pool = probs.copy()
        final_lo, final = int(at), np.zeros(1)  # where sessions end: probability by money index
        game, grid = self.game(), grid_chain.Grid(g, int(at), int(np.ceil(self.rules.table_min / g)))
        width = self.width
        classes, room = max(16, 4 * n), max(64, 16 * n)
        largest = n
        for c in range(self.coups + self.settle_coups()):
            if n == 0:
                break
            pref = np.empty(pool.size + n)
            grid_chain.prefix(pool, off, ln, n, pref)
            while True:
                size = 16
                while size < 2 * classes:
                    size *= 2
                before = keys.nbytes + values.nbytes + pool.nbytes + pref.nbytes + 3 * 8 * n  # the coup before's
                self.check_bytes(c, classes, grid_chain.CLASS_FLOATS + 2, 8 * size + 48 * room + 8 * pool.size + before)
                new_keys = np.empty((classes, width + 1), np.int64)
                new_values = np.empty((classes, grid_chain.CLASS_FLOATS))
                new_lo = np.empty(classes, np.int64)
                new_hi = np.empty(classes, np.int64)
                moves = np.empty((room, 5), np.int64)
                factors = np.empty(room)
                step_acc = np.zeros_like(acc)
                held = grid_chain.Held(keys, values, lo, ln, off, pref)
                hashes = np.empty(size, np.int64)
                out = grid_chain.Next(hashes, new_keys, new_values, new_lo, new_hi, moves, factors, step_acc)
                status, m, r, end_lo, end_hi = grid_chain.plan(game, grid, held, n, c, out)
                if status == grid_chain.OFF_GRID:
                    raise _OffGrid
                if status == grid_chain.OK:
                    break
                classes, room = 2 * classes, 2 * room  # no room: again with twice as much
                if classes > 2 * self.max_states:
                    raise self.too_many(c)
            acc += step_acc
            if end_hi >= 0 and (end_lo < final_lo or end_hi >= final_lo + final.size):
                first, last = min(final_lo, end_lo), max(final_lo + final.size - 1, end_hi)
                wider = np.zeros(last - first + 1)
                wider[final_lo - first : final_lo - first + final.size] = final
                final_lo, final = first, wider
            new_ln = new_hi[:m] - new_lo[:m] + 1
            new_off = np.zeros(m, np.int64)
            np.cumsum(new_ln[:-1], out=new_off[1:])
            total = int(new_ln.sum())
            if total > 16 * self.max_states:
                raise self.too_many(c)
            new_pool = np.zeros(total)
            new_lo = new_lo[:m]
            grid_chain.apply((pool, lo, off), (moves, factors, r), (new_pool, new_lo, new_off), final, final_lo)
            keep = np.empty(m, np.bool_)
            total = grid_chain.trim(new_pool, new_lo, new_ln, new_off, m, keep)
            keys, values, pool, n = new_keys[:m][keep], new_values[:m][keep], new_pool[:total], int(keep.sum())
            lo, ln, off = new_lo[keep], new_ln[keep], new_off[keep]
            largest = max(largest, total)
            if total > self.max_states:
                raise self.too_many(c)
            classes, room = max(classes, 2 * m), max(room, 2 * r)
        if n:  # the horizon reached with prisoners still held: the session ends there
            index = np.repeat(np.arange(n), ln)
            kept = pool > 0.0
            money_parts.append(((lo[index] + (np.arange(pool.size) - off[index])) * g)[kept])
            prob_parts.append(pool[kept])
        ended = np.flatnonzero(final)
        money_parts.append((final_lo + ended) * g)
        prob_parts.append(final[ended])
        return np.concatenate(money_parts), np.concatenate(prob_parts), acc, largest


__all__ = ["ENGINES", "GRIDS", "MAX_BYTES", "MAX_STATES", "ExactRisk", "RiskError", "coup_outcomes", "exact_risk"]

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

**Which systems.** Every built-in system whose state takes finitely many values in a session: all of
:data:`strategies.registry.LINEUP`. The random bettor draws its box from a generator keyed by the
session; here its draw is chance like the coup (a branch for each box it may draw and one for no bet,
with their probabilities). A Labouchère line can grow by one number a losing coup, so its states can
grow very fast: the chain stops with :class:`RiskError` when the distinct states pass ``max_states``
(the line is then no finite state for this purpose: simulate it). Plugins (Python hooks) and trained
models are not state machines of the kernel: simulate them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from strategies import kernel
from strategies.kernel import Kind
from strategies.sessions import SETTLE_LIMIT
from trente_env import jit
from trente_env.codes import ACTION_WIDTH, NO_COUP, PRISON_SIZE, UNDECIDED, Result, scoreboard_couleur
from trente_env.croupier import bet_and_settle, is_free, table_rules
from trente_env.odds import first_coup
from trente_env.rules import RuleSet

#: The most distinct states the chain carries at once by default (a few hundred MB at most).
MAX_STATES = 2_000_000
#: The counters of a state row that decide nothing: taken out after each coup (their expectations kept).
_COUNTERS = (kernel.TABLE_MAX_HITS, kernel.BANKROLL_HITS, kernel.CYCLES, kernel.EPISODES, kernel.COUP)
#: Expectations added up coup by coup: stakes, coups played, table-maximum hits, bankroll hits.
STAKED, PLAYED, TABLE_HITS, BANK_HITS = range(4)


class RiskError(ValueError):
    """A system whose exact risk cannot be computed: not a state machine, or too many states."""


#: A state's floats: the money in hand, the prisoners (first and second prison of each box), the action row.
MONEY, PRISONERS, ACTION = 0, 1, 9
N_FLOATS = ACTION + ACTION_WIDTH


@jit.kernel
def _hash_state(row, floats):
    """A well-mixed 64-bit hash of a state: its int64 row and its floats (to a millionth of a unit:
    equal states hash alike; the rare others are told apart by comparing them whole). Each number is
    folded in through SplitMix64's finaliser (:func:`strategies.kernel._mix`)."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for x in row:
        h = kernel._mix(h ^ np.uint64(x)) + np.uint64(0x9E3779B97F4A7C15)
    for x in floats:
        h = kernel._mix(h ^ np.uint64(np.int64(x * 1048576.0))) + np.uint64(0x9E3779B97F4A7C15)
    return h


@jit.kernel
def _insert(row, floats, p, table, keys, values, probs, m):
    """Add the state (``row``, ``floats``) with probability ``p`` to the ``m`` states held (``keys``,
    ``values``, ``probs``, found through the open-addressing ``table``): to its equal if held, else as a
    new one. Returns the number of states held."""
    mask = np.uint64(table.size - 1)
    h = _hash_state(row, floats) & mask
    width, n_floats = row.size, floats.size
    while True:
        j = table[h]
        if j < 0:
            table[h] = m
            keys[m] = row
            values[m] = floats
            probs[m] = p
            return m + 1
        same = True
        for c in range(width):
            if keys[j, c] != row[c]:
                same = False
                break
        if same:
            for c in range(n_floats):
                if values[j, c] != floats[c]:
                    same = False
                    break
        if same:
            probs[j] += p
            return m
        h = (h + np.uint64(1)) & mask


@jit.kernel
def _canonical(s, line):
    """Take the counters out of a state row, and shift a Labouchère line to the row's start with
    nothing left behind its end: rows that play alike become equal."""
    for c in _COUNTERS:
        s[c] = 0
    if line:
        lo, hi = s[kernel.LO], s[kernel.HI]
        for i in range(s.size - kernel.LINE):
            src = lo + i
            s[kernel.LINE + i] = s[kernel.LINE + src] if src < hi else 0
        s[kernel.HI] = hi - lo
        s[kernel.LO] = 0


@jit.kernel
def _decide(s, k, own, f, start, money, c, coups, last_result, last_couleur, prison, branch, action, seen, acc, p):
    """The system's decision for coup ``c`` from the state row ``s`` (updated) and what the table shows
    (the system's own :func:`strategies.kernel.step`; ``branch`` >= -1: the random bettor's draw, a
    box or none). Writes the action row; returns whether the session is over (no more bets, and no
    prisoner left to settle). Adds the coup's expected counts, weighted by ``p``, to ``acc``."""
    action[:] = 0.0
    free = True
    for b in range(4):
        seen[b] = prison[b, 0]
        seen[4 + b] = prison[b, 1]
        if (prison[b, 0] != 0.0) | (prison[b, 1] != 0.0):
            free = False
    if (c >= coups) | (s[kernel.WALKED] != 0):
        return free
    system = k
    if branch >= -1:
        own[kernel.K_KIND] = Kind.FLAT
        own[kernel.K_BOX] = branch
        system = own
    hits0 = s[kernel.TABLE_MAX_HITS]
    bhits0 = s[kernel.BANKROLL_HITS]
    kernel.step(s, system, f, start, money, c, last_result, last_couleur, seen, c == 0, 0, action)
    if s[kernel.WALKED] != 0:
        action[:] = 0.0
        return free
    acc[TABLE_HITS] += p * (s[kernel.TABLE_MAX_HITS] - hits0)
    acc[BANK_HITS] += p * (s[kernel.BANKROLL_HITS] - bhits0)
    acc[PLAYED] += p
    return False


@jit.kernel
def _advance(
    keys, values, probs, n, k, f, table, c, coups, start, branches, outcomes, line, rigged, hashes, new_keys,
    new_values, new_probs, done_money, done_probs, acc,
):  # fmt: skip
    """Coup ``c`` for every one of the ``n`` states, each holding the decision for it: the table settles
    the action for each outcome of the coup (``outcomes``: (result, couleur, probability) rows), then
    the system decides the next coup (for each of its ``branches``: (box, chance), box -2 for the
    system's own choice). A session that ends goes to ``done_*`` (its money and probability); the
    others are merged into ``new_*`` through the hash table ``hashes``. Returns (states, done)."""
    width = keys.shape[1] - 1
    s = np.empty(width, np.int64)
    row = np.empty(width + 1, np.int64)
    floats = np.empty(N_FLOATS)
    prison = np.zeros((4, 2))
    seen = np.zeros(PRISON_SIZE)
    placed = np.zeros(4)
    insured = np.zeros(4, np.bool_)
    back = np.zeros(4)
    own = k.copy()
    board = np.empty(1, np.int64)  # the scoreboard the table reads: the last coup (a rigged table's pattern)
    hashes[:] = -1
    m = 0
    d = 0
    for i in range(n):
        last = keys[i, width]
        money = values[i, MONEY]
        action = values[i, ACTION:]
        for o in range(outcomes.shape[0]):
            result = int(outcomes[o, 0])
            couleur = outcomes[o, 1] != 0.0
            p = probs[i] * outcomes[o, 2]
            for b in range(4):
                prison[b, 0] = values[i, PRISONERS + 2 * b]
                prison[b, 1] = values[i, PRISONERS + 2 * b + 1]
            board[0] = last
            after, _ = bet_and_settle(action, money, prison, result, couleur, board, table, placed, insured, back)
            acc[STAKED] += p * (placed[0] + placed[1] + placed[2] + placed[3])
            if (after < table.table_min) & is_free(prison):  # ruined: the session is over
                done_money[d] = after
                done_probs[d] = p
                d += 1
                continue
            shown = scoreboard_couleur(result, couleur)
            for br in range(branches.shape[0]):
                q = p * branches[br, 1]
                if q == 0.0:
                    continue
                for x in range(width):
                    s[x] = keys[i, x]
                over = _decide(
                    s, k, own, f, start, after, c + 1, coups, result, shown, prison, int(branches[br, 0]),
                    floats[ACTION:], seen, acc, q,
                )  # fmt: skip
                if over:
                    done_money[d] = after
                    done_probs[d] = q
                    d += 1
                    continue
                _canonical(s, line)
                for x in range(width):
                    row[x] = s[x]
                row[width] = result if rigged else 0  # only a rigged table reads the last result
                floats[MONEY] = after
                for b in range(4):
                    floats[PRISONERS + 2 * b] = prison[b, 0]
                    floats[PRISONERS + 2 * b + 1] = prison[b, 1]
                m = _insert(row, floats, q, hashes, new_keys, new_values, new_probs, m)
    return m, d


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


def exact_risk(
    policy: object,
    rules: RuleSet,
    bankroll: float,
    coups: int,
    *,
    max_states: int = MAX_STATES,
    name: str | None = None,
) -> ExactRisk:
    """The exact risk of one session of ``coups`` coups from ``bankroll`` units played by ``policy`` (a
    built-in system) at a table of ``rules`` (see the module's notes: the model, and which systems).

    :param max_states: the most distinct states carried at once; :class:`RiskError` beyond.
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
    start_time = time.perf_counter()
    k, f = policy.kernel_params()
    k = k.copy()
    line = k[kernel.K_KIND] == Kind.LABOUCHERE
    width = kernel.LINE + (int(k[kernel.K_COUNT]) + coups + 2 if line else 0)
    s = np.zeros(width, np.int64)
    s[kernel.BOX] = -1
    s[kernel.JAIL_BOX] = -1
    kernel.new_session(s, k)
    table = table_rules(rules)
    outcomes = coup_outcomes(rules)
    branches = _branches(k, f)
    fan = outcomes.shape[0] * branches.shape[0]
    start = float(np.float32(bankroll))
    acc = np.zeros(4)
    money_parts, prob_parts = [], []
    # the states before the first coup: the system's first decision (one per branch of its draw)
    keys = np.zeros((branches.shape[0], width + 1), np.int64)
    values = np.zeros((branches.shape[0], N_FLOATS))
    probs = branches[:, 1].copy()
    no_prisoner = np.zeros((4, 2))
    for j in range(branches.shape[0]):
        row = s.copy()
        over = _decide(
            row, k, k.copy(), f, start, float(bankroll), 0, coups, NO_COUP, UNDECIDED, no_prisoner,
            int(branches[j, 0]), values[j, ACTION:], np.zeros(PRISON_SIZE), acc, probs[j],
        )  # fmt: skip
        if over:
            money_parts.append(np.array([float(bankroll)]))
            prob_parts.append(probs[j : j + 1].copy())
            probs[j] = 0.0
        _canonical(row, line)
        keys[j, :width] = row
        keys[j, width] = NO_COUP if rules.rigged else 0
        values[j, MONEY] = bankroll
    keep = probs > 0
    keys, values, probs = keys[keep], values[keep], probs[keep]
    largest = n = probs.size
    rigged = bool(rules.rigged)
    for c in range(coups + SETTLE_LIMIT):
        if n == 0:
            break
        room = n * fan
        size = 16
        while size < 2 * room:
            size *= 2
        new_keys = np.empty((room, width + 1), np.int64)
        new_values = np.empty((room, N_FLOATS))
        new_probs = np.empty(room)
        done_money = np.empty(room)
        done_probs = np.empty(room)
        n, d = _advance(
            keys, values, probs, n, k, f, table, c, coups, start, branches, outcomes, line, rigged,
            np.empty(size, np.int64), new_keys, new_values, new_probs, done_money, done_probs, acc,
        )  # fmt: skip
        money_parts.append(done_money[:d])
        prob_parts.append(done_probs[:d])
        keys, values, probs = new_keys[:n], new_values[:n], new_probs[:n]
        largest = max(largest, n)
        if n > max_states:
            raise RiskError(
                f"{name or policy!r}: more than {max_states:,} distinct states after {c + 1} coups: not a "
                "finite-state system within this bound (simulate it, or ask for fewer coups)"
            )
    if n:  # the horizon reached with prisoners still held: the session ends there, as the session loop's
        money_parts.append(values[:n, MONEY])
        prob_parts.append(probs[:n])
    money = np.concatenate(money_parts)
    p = np.concatenate(prob_parts)
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


__all__ = ["MAX_STATES", "ExactRisk", "RiskError", "coup_outcomes", "exact_risk"]

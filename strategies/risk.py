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


@jit.kernel
def _hash_row(row, money):
    """A well-mixed 64-bit hash of a state: its int64 row and its money (SplitMix64-like steps; money
    to a millionth of a unit: equal states hash alike, the rare others are told apart by comparing)."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for x in row:
        h = (h ^ np.uint64(x)) * np.uint64(0xBF58476D1CE4E5B9)
        h = h ^ (h >> np.uint64(31))
    for x in money:
        h = (h ^ np.uint64(np.int64(x * 1048576.0))) * np.uint64(0x94D049BB133111EB)
        h = h ^ (h >> np.uint64(29))
    return h


@jit.kernel
def _merge(keys, money, probs, n, out_keys, out_money, out_probs):
    """Merge the equal states among the first ``n`` (rows of ``keys`` and of ``money``), adding their
    ``probs``: the distinct states go to ``out_*`` (open addressing, whole states compared exactly).
    Returns how many distinct states."""
    size = 16
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, -1, np.int64)
    width = keys.shape[1]
    floats = money.shape[1]
    m = 0
    for i in range(n):
        h = _hash_row(keys[i], money[i]) & mask
        while True:
            j = table[h]
            if j < 0:
                table[h] = m
                out_keys[m] = keys[i]
                out_money[m] = money[i]
                out_probs[m] = probs[i]
                m += 1
                break
            same = True
            for c in range(width):
                if out_keys[j, c] != keys[i, c]:
                    same = False
                    break
            for c in range(floats):
                if out_money[j, c] != money[i, c]:
                    same = False
                    break
            if same:
                out_probs[j] += probs[i]
                break
            h = (h + np.uint64(1)) & mask
    return m


@jit.kernel
def _canonical(s, line):
    """Take the counters out of a state row, and shift a Labouchère line to the row's start with
    nothing left behind its end: rows that play alike become equal."""
    for c in _COUNTERS:
        s[c] = 0
    if line:
        lo, hi = s[kernel.LO], s[kernel.HI]
        n = s.size - kernel.LINE
        for i in range(n):
            src = lo + i
            s[kernel.LINE + i] = s[kernel.LINE + src] if src < hi else 0
        s[kernel.HI] = hi - lo
        s[kernel.LO] = 0


@jit.kernel
def _advance(
    keys, money_of, probs, n, k, f, table, c, coups, start, branches, outcomes, width, line, new_keys,
    new_money, new_probs, done_money, done_probs, acc,
):  # fmt: skip
    """Coup ``c`` of every one of the ``n`` states: a state whose session is over goes to ``done_*``
    (its money and probability); else the system decides (for each of its ``branches``: (box, chance),
    box -2 for the system's own choice), and the coup settles it for each outcome (``outcomes``:
    (result, couleur, probability) rows). A state is its int64 row ``keys[i]`` (the system's state row,
    then the last result and the scoreboard's Couleur code) and its floats ``money_of[i]`` (the money in
    hand, then the prisoners: first and second prison of each box). Returns (new states, done states)."""
    state = np.empty(width, np.int64)
    action = np.zeros(ACTION_WIDTH)
    prison = np.zeros((4, 2))
    seen = np.zeros(PRISON_SIZE)
    placed = np.zeros(4)
    insured = np.zeros(4, np.bool_)
    back = np.zeros(4)
    own = k.copy()
    m = 0
    d = 0
    for i in range(n):
        p0 = probs[i]
        row = keys[i]
        money = money_of[i, 0]
        last_result = row[width]
        last_couleur = row[width + 1]
        pr = money_of[i, 1:]
        free = True
        for b in range(8):
            if pr[b] != 0.0:
                free = False
        walked = row[kernel.WALKED] != 0
        active = (c < coups) & (not walked)
        if (not active) & free:
            done_money[d] = money
            done_probs[d] = p0
            d += 1
            continue
        for br in range(branches.shape[0]):
            box = int(branches[br, 0])
            p1 = p0 * branches[br, 1]
            if p1 == 0.0:
                continue
            for x in range(width):
                state[x] = row[x]
            action[:] = 0.0
            if box != -2:
                own[kernel.K_KIND] = Kind.FLAT
                own[kernel.K_BOX] = box
            if active:
                for b in range(4):
                    seen[b] = pr[2 * b]
                    seen[4 + b] = pr[2 * b + 1]
                hits0 = state[kernel.TABLE_MAX_HITS]
                bhits0 = state[kernel.BANKROLL_HITS]
                seen_money = np.float64(np.float32(money))  # as the observation shows it
                kernel.step(
                    state, own if box != -2 else k, f, start, seen_money, c, last_result, last_couleur, seen, c == 0,
                    0, action,
                )  # fmt: skip
                if state[kernel.WALKED] != 0:
                    action[:] = 0.0
                else:
                    acc[TABLE_HITS] += p1 * (state[kernel.TABLE_MAX_HITS] - hits0)
                    acc[BANK_HITS] += p1 * (state[kernel.BANKROLL_HITS] - bhits0)
                    acc[PLAYED] += p1
            _canonical(state, line)
            for o in range(outcomes.shape[0]):
                result = int(outcomes[o, 0])
                couleur = outcomes[o, 1] != 0.0
                p = p1 * outcomes[o, 2]
                for b in range(4):
                    prison[b, 0] = pr[2 * b]
                    prison[b, 1] = pr[2 * b + 1]
                after, _ = bet_and_settle(
                    action, money, prison, result, couleur, last_result, table, placed, insured, back
                )
                acc[STAKED] += p * (placed[0] + placed[1] + placed[2] + placed[3])
                if (after < table.table_min) & is_free(prison):  # ruined: the session is over
                    done_money[d] = after
                    done_probs[d] = p
                    d += 1
                    continue
                for x in range(width):
                    new_keys[m, x] = state[x]
                new_keys[m, width] = result
                new_keys[m, width + 1] = scoreboard_couleur(result, couleur)
                new_money[m, 0] = after
                for b in range(4):
                    new_money[m, 1 + 2 * b] = prison[b, 0]
                    new_money[m, 2 + 2 * b] = prison[b, 1]
                new_probs[m] = p
                m += 1
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
        return float(self.p_final @ self.final - self.bankroll)

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
    start_time = time.perf_counter()
    k, f = policy.kernel_params()
    k = k.copy()
    line = k[kernel.K_KIND] == Kind.LABOUCHERE
    width = kernel.LINE + (int(k[kernel.K_COUNT]) + coups + 2 if line else 0)
    s = np.zeros(width, np.int64)
    s[kernel.BOX] = -1
    s[kernel.JAIL_BOX] = -1
    kernel.new_session(s, k)
    key_width = width + 2
    keys = np.zeros((1, key_width), np.int64)
    keys[0, :width] = s
    keys[0, width] = NO_COUP  # as the session loop starts: no coup on the scoreboard
    keys[0, width + 1] = UNDECIDED
    floats = np.zeros((1, 9))
    floats[0, 0] = bankroll
    probs = np.ones(1)
    table = table_rules(rules)
    outcomes = coup_outcomes(rules)
    branches = _branches(k, f)
    fan = outcomes.shape[0] * branches.shape[0]
    start = float(np.float32(bankroll))
    acc = np.zeros(4)
    money_parts, prob_parts = [], []
    largest = 1
    n = 1
    for c in range(coups + SETTLE_LIMIT):
        if n == 0:
            break
        new_keys = np.empty((n * fan, key_width), np.int64)
        new_floats = np.empty((n * fan, 9))
        new_probs = np.empty(n * fan)
        done_money = np.empty(n + n * fan)
        done_probs = np.empty(n + n * fan)
        m, d = _advance(
            keys, floats, probs, n, k, f, table, c, coups, start, branches, outcomes, width, line, new_keys,
            new_floats, new_probs, done_money, done_probs, acc,
        )  # fmt: skip
        money_parts.append(done_money[:d])
        prob_parts.append(done_probs[:d])
        keys = np.empty((m, key_width), np.int64)
        floats = np.empty((m, 9))
        probs = np.empty(m)
        n = _merge(new_keys, new_floats, new_probs, m, keys, floats, probs)
        keys, floats, probs = keys[:n], floats[:n], probs[:n]
        largest = max(largest, n)
        if n > max_states:
            raise RiskError(
                f"{name or policy!r}: more than {max_states:,} distinct states after {c + 1} coups: not a "
                "finite-state system within this bound (simulate it, or ask for fewer coups)"
            )
    if n:  # the horizon reached with prisoners still held: the session ends there, as the session loop's
        money_parts.append(floats[:, 0])
        prob_parts.append(probs)
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

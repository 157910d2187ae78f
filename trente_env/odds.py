"""Exact odds of the coup, for an infinite deck and for a finite shoe dealt without replacement.

A row is dealt while its total is at most 30, so it is an ordered run of cards whose *prefix* (all
but the last card) sums to at most 30, and whose last card takes it to 31..40. The probability of an
ordered run drawn without replacement depends only on how many cards of each value it holds, and
any order of a prefix is a valid order. So instead of enumerating every ordered row we walk the
20,545 multisets of values that sum to at most 30 (each one a *prefix state*) in order of size:

* the Noir row: one pass over the prefix states from the full shoe gives the probability of each of
  the 63,231 possible Noir rows, as multisets of values;
* the Rouge row: for each Noir row, one more pass from the shoe depleted by it gives the Rouge
  total. These passes are independent and run in parallel.

That is exact (up to floating-point rounding, ~1e-15) for any composition of the shoe and takes a
few seconds; the results for full shoes of 1..8 decks are cached in ``data/first_coup.json`` and a
test regenerates them from this code. The infinite deck is a small Markov chain.

The house edge of a box follows from the distribution of (Noir total, Rouge total), with the prison
recursions of docs/rules.md#en-prison solved in closed form; see :func:`house_edges`.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

import numba
import numpy as np

from trente_env import jit
from trente_env.cards import composition
from trente_env.codes import COULEUR, INVERSE, NOIR, ROUGE
from trente_env.coup import REFAIT_TOTAL, ROW_LIMIT
from trente_env.rules import Refait, RuleSet
from trente_env.settle import prisoner_value, refait_code, refait_value, second_refait_code

INFINITE_P = np.array([1] * 9 + [4]) / 13  #: probability of each value 1..10 from an infinite deck
CACHE = Path(__file__).with_name("data") / "first_coup.json"


class RowOdds:
    """What the joint distribution of the two rows' totals says: ``pair[i, j]`` is P(Noir ends on
    31+i and Rouge on 31+j). The base of every odds class (:class:`CoupOdds`, the card counter's
    ``ShoeOdds``), so each reads the boxes off ``pair`` the same way."""

    pair: np.ndarray

    @property
    def p_refait(self) -> float:
        return float(self.pair[0, 0])

    @property
    def p_apres(self) -> float:
        return float(np.trace(self.pair) - self.pair[0, 0])

    @property
    def p_noir(self) -> float:
        """P(Noir wins): the Noir total is lower."""
        return float(np.triu(self.pair, 1).sum())

    @property
    def p_rouge(self) -> float:
        return float(np.tril(self.pair, -1).sum())


@dataclass(frozen=True)
class CoupOdds(RowOdds):
    """The distribution of a coup's outcome.

    ``pair[i, j]`` is P(Noir ends on 31+i and Rouge on 31+j); ``p_void`` is the chance the shoe runs
    out before the coup is complete (0 for a full shoe).
    """

    p_total: np.ndarray  #: distribution of the Noir row's final total, 31..40
    pair: np.ndarray  #: joint distribution of (Noir total, Rouge total), 10 x 10
    p_void: float
    cards_per_coup: float  #: expected cards dealt in a complete coup

    @property
    def p_couleur(self) -> float:
        """P(Couleur wins). The first card is black with probability 1/2 whatever its value when
        each value has as many black as red cards (any full shoe), so this is half the decided coups."""
        return (self.p_noir + self.p_rouge) / 2

    p_inverse = p_couleur

    def to_dict(self) -> dict[str, object]:
        return {
            "p_total": self.p_total.tolist(),
            "pair": self.pair.tolist(),
            "p_void": self.p_void,
            "cards_per_coup": self.cards_per_coup,
        }

    @classmethod
    def from_dict(cls, data: dict) -> CoupOdds:
        return cls(
            np.array(data["p_total"]), np.array(data["pair"]), float(data["p_void"]), float(data["cards_per_coup"])
        )


# -- the infinite deck ---------------------------------------------------------------------------


def row_infinite() -> tuple[np.ndarray, float]:
    """Distribution of a row's final total (31..40) and its expected number of cards, infinite deck."""
    p = np.zeros(ROW_LIMIT + 1)  # probability of passing through each running total 0..30
    p[0] = 1.0
    final = np.zeros(10)
    for total in range(ROW_LIMIT + 1):
        for value, q in enumerate(INFINITE_P, start=1):
            if total + value <= ROW_LIMIT:
                p[total + value] += p[total] * q
            else:
                final[total + value - REFAIT_TOTAL] += p[total] * q
    return final, float(p.sum())  # each visit of a running total <= 30 draws one card


def infinite_odds() -> CoupOdds:
    """The coup from an infinite deck: both rows independent."""
    row, cards = row_infinite()
    return CoupOdds(row, np.outer(row, row), 0.0, 2 * cards)


# -- the finite shoe -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Prefixes:
    counts: np.ndarray  # (S, 10) cards of each value in the prefix state
    size: np.ndarray  # (S,) cards in it
    total: np.ndarray  # (S,) their total
    child: np.ndarray  # (S, 10) state after one more card of each value, or -(index of the row + 1)
    rows: np.ndarray  # (R, 10) the complete rows (prefix + last card) as value counts
    row_total: np.ndarray  # (R,) their totals


@cache
def _prefixes() -> _Prefixes:
    """Every multiset of values summing to at most 30, ordered by size, with its transitions."""
    states: list[tuple[int, ...]] = [(0,) * 10]
    index = {states[0]: 0}
    rows: dict[tuple[int, ...], int] = {}
    child = []
    for state in states:  # grows while we walk it: breadth first, so by size
        total = sum(v * c for v, c in enumerate(state, start=1))
        links = []
        for v in range(1, 11):
            nxt = state[: v - 1] + (state[v - 1] + 1,) + state[v:]
            if total + v <= ROW_LIMIT:
                links.append(index.setdefault(nxt, len(states)))
                if links[-1] == len(states):
                    states.append(nxt)
            else:
                links.append(-1 - rows.setdefault(nxt, len(rows)))
        child.append(links)
    counts = np.array(states, dtype=np.int64)
    row_counts = np.array(list(rows), dtype=np.int64)
    values = np.arange(1, 11)
    return _Prefixes(
        counts, counts.sum(1), counts @ values, np.array(child, dtype=np.int64), row_counts, row_counts @ values
    )


@jit.kernel
def _row_odds(shoe, counts, size, child, n_rows, row_total, row_p, out):
    """The odds of one row dealt from a shoe with ``shoe[v-1]`` cards of value v: one pass over the
    prefix states, in order of size.

    Adds the probability of ending on each complete row to ``row_p`` (if it has ``n_rows`` entries)
    and on each total to ``out[0:10]``; ``out[10]`` collects the expected number of cards and
    ``out[11]`` the chance the shoe runs out.
    """
    n_cards = shoe.sum()
    p = np.zeros(counts.shape[0])
    p[0] = 1.0
    for s in range(counts.shape[0]):
        ps = p[s]
        if ps == 0.0:
            continue
        left = n_cards - size[s]
        if left <= 0:
            out[11] += ps
            continue
        scale = ps / left
        for v in range(10):
            c = shoe[v] - counts[s, v]
            if c <= 0:
                continue
            q = scale * c
            nxt = child[s, v]
            if nxt >= 0:
                p[nxt] += q
            else:
                r = -1 - nxt
                if n_rows:
                    row_p[r] += q
                out[row_total[r] - REFAIT_TOTAL] += q
                out[10] += q * (size[s] + 1)


@jit.parallel
def _rouge_given_noir(shoe, rows, row_p, counts, size, child, row_total, out):
    """For every Noir row with positive probability, the Rouge row's distribution from what is left."""
    empty = np.zeros(0)
    for r in numba.prange(rows.shape[0]):
        if row_p[r] > 0.0:
            _row_odds(shoe - rows[r], counts, size, child, 0, row_total, empty, out[r])


def shoe_odds(shoe: np.ndarray) -> CoupOdds:
    """Exact odds of the next coup from a shoe holding ``shoe[v-1]`` cards of each value v = 1..10.

    Works for any composition: a full shoe of any size, or what is left of one (card counting).
    """
    shoe = np.asarray(shoe, dtype=np.int64)
    if shoe.shape != (10,) or (shoe < 0).any():
        raise ValueError("a shoe composition is ten non-negative counts, for the values 1..10")
    pre = _prefixes()
    row_p = np.zeros(len(pre.rows))
    noir = np.zeros(12)
    _row_odds(shoe, pre.counts, pre.size, pre.child, len(pre.rows), pre.row_total, row_p, noir)
    rouge = np.zeros((len(pre.rows), 12))
    _rouge_given_noir(shoe, pre.rows, row_p, pre.counts, pre.size, pre.child, pre.row_total, rouge)
    pair = np.zeros((10, 10))
    np.add.at(pair, pre.row_total - REFAIT_TOTAL, row_p[:, None] * rouge[:, :10])
    complete = pair.sum()
    rows_cards = pre.rows.sum(1)
    cards = (row_p * (rouge[:, :10].sum(1) * rows_cards + rouge[:, 10])).sum() / complete if complete else 0.0
    return CoupOdds(noir[:10], pair, float(1.0 - complete), float(cards))


def first_coup(decks: int, *, use_cache: bool = True) -> CoupOdds:
    """Exact odds of the first coup of a full shoe of ``decks`` packs (from the cache if there)."""
    if use_cache and CACHE.exists():
        table = json.loads(CACHE.read_text())
        if str(decks) in table:
            return CoupOdds.from_dict(table[str(decks)])
    return shoe_odds(composition(decks))


def write_cache(decks: range = range(1, 9), done: Callable[[int], None] | None = None) -> dict[str, dict]:
    """Recompute the first-coup odds of full shoes and store them in :data:`CACHE` (tens of seconds
    per deck count; ``python -m trente_env.odds`` shows a progress bar).

    :param done: told each deck count as soon as its odds are computed.
    """
    table = {}
    for d in decks:
        table[str(d)] = shoe_odds(composition(d)).to_dict()
        if done is not None:
            done(d)
    CACHE.parent.mkdir(exist_ok=True)
    CACHE.write_text(json.dumps(table, indent=1) + "\n")
    return table


# -- house edges ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class HouseEdge:
    """Expected loss per unit of new stake on one coup, as fractions (0.011 means 1.1%)."""

    noir: float
    rouge: float
    couleur: float
    inverse: float
    insured: float | None  #: a Noir stake with insurance (premium included), None without insurance
    prisoner_value: float  #: what a stake in (first) prison is worth, per unit

    def as_dict(self) -> dict[str, float | None]:
        return asdict(self)


def house_edges(rules: RuleSet, odds: CoupOdds | None = None) -> HouseEdge:
    """The house edge of every box under ``rules``, from ``odds`` (default: the first coup of a
    full shoe of ``rules.decks`` packs; the convention of docs/rules.md#reference-numbers).

    A box's edge is ``lose - payout * win + refait * (1 - V)``, where ``payout`` is what a win on the
    box pays to 1 (:attr:`~trente_env.rules.RuleSet.payouts`) and ``V`` what a stake caught by the
    refait is worth per unit (:func:`~trente_env.settle.refait_value`: what a partage leaves, the
    prisoner's value for prison, the better of the two for the player's choice), 1 when insured (plus
    the premium) or spared. The prisoner's value is :func:`~trente_env.settle.prisoner_value`, a tie
    other than the refait keeping it waiting. A rigged table's Noir bonus is apart: :func:`rig_bonus`.
    """
    odds = odds or first_coup(rules.decks)
    r = odds.p_refait
    rule, second, pays = int(refait_code(rules)), int(second_refait_code(rules)), rules.payouts

    def prisoner(win: float, lose: float) -> float:
        return prisoner_value(win, 1.0 - win - lose - r, r, second)

    def edge(win: float, lose: float, payout: float, spared: bool = False) -> float:
        value = 1.0 if spared else refait_value(rule, prisoner(win, lose))
        return lose - payout * win + r * (1 - value)

    spared = rules.refait_spares_couleur
    insured = odds.p_rouge - pays[NOIR] * odds.p_noir + rules.insurance_rate if rules.insurance else None
    return HouseEdge(
        noir=edge(odds.p_noir, odds.p_rouge, pays[NOIR]),
        rouge=edge(odds.p_rouge, odds.p_noir, pays[ROUGE]),
        couleur=edge(odds.p_couleur, odds.p_inverse, pays[COULEUR], spared),
        inverse=edge(odds.p_inverse, odds.p_couleur, pays[INVERSE], spared),
        insured=insured,
        prisoner_value=prisoner(odds.p_noir, odds.p_rouge),
    )


def stake_weighted_edge(
    rules: RuleSet, box_stakes: np.ndarray, to_prison: bool | None = None, rig_staked: float | None = None
) -> float:
    """The exact house edge of what a player staked: each box's edge weighted by the units staked on it.

    Used wherever a return per unit staked is set beside the exact odds (the tournament, ``evaluate``,
    the fallacy companion), so that the expectation of the same stakes is the same number everywhere.

    :param rules: the table's rules.
    :param box_stakes: (2, 4) units of new stake per box (Noir, Rouge, Couleur, Inverse): the first
        row uninsured, the second insured (insured units count at the insured edge).
    :param to_prison: under the ``choice`` rule, whether the player sends its stakes to prison (True)
        or takes half (False) on a refait; None: the better of the two (a player who chooses well).
    :param rig_staked: of the Noir units, those staked right after a coup won by Noir: on a rigged
        table (:func:`rig_bonus`) they are paid differently from the others, so a rigged table needs
        it (a ValueError without it); ignored on a fair table.
    :return: the edge, a fraction of the units staked (positive: the bank's take); the Noir edge when
        nothing was staked.
    """
    if rules.refait is Refait.CHOICE and to_prison is not None:
        rules = rules.replace(refait=Refait.PRISON if to_prison else Refait.HALF)
    edges = house_edges(rules)
    stakes = np.asarray(box_stakes, dtype=np.float64).reshape(2, 4)
    total = stakes.sum()
    if total <= 0:
        return float(edges.noir)
    per_box = np.array([edges.noir, edges.rouge, edges.couleur, edges.inverse])
    insured = insured_edges(rules) if rules.insurance else np.zeros(4)
    bonus = 0.0
    if rules.rigged:
        if rig_staked is None:
            raise ValueError("a rigged table's edge needs the Noir units staked right after a Noir win")
        after, otherwise = rig_bonus(rules)
        bonus = rig_staked * after + (stakes[:, 0].sum() - rig_staked) * otherwise
    return float((stakes[0] @ per_box + stakes[1] @ insured - bonus) / total)


def insured_edges(rules: RuleSet, odds: CoupOdds | None = None) -> np.ndarray:
    """The house edge of an insured stake on each box (Noir, Rouge, Couleur, Inverse): the premium
    plus ``lose - payout * win`` (a refait returns the stake). Noir's is :attr:`HouseEdge.insured`;
    at even money every box's is the same but for rounding."""
    odds = odds or first_coup(rules.decks)
    win = np.array([odds.p_noir, odds.p_rouge, odds.p_couleur, odds.p_inverse])
    lose = win[[ROUGE, NOIR, INVERSE, COULEUR]]
    return lose - np.array(rules.payouts) * win + rules.insurance_rate


# -- the rigged table (the positive control) -----------------------------------------------------


def rig_bonus(rules: RuleSet, odds: CoupOdds | None = None) -> tuple[float, float]:
    """What a rigged table (docs/rules.md#the-rigged-table-positive-control) adds to the expected
    return of one unit staked on Noir, insured or not, as fractions: (right after a coup won by
    Noir, on any other coup). Each is ``P(Noir wins) * (payout - 1)``: only a winning stake is paid
    differently (a prisoner freed by a Noir win comes back unpaid at every table), so the refait
    and the prison values are those of the fair table. (0, 0) on a fair table.

    :param odds: the coup's odds (default: the first coup of a full shoe, docs/rules.md#reference-numbers).
    """
    p = (odds or first_coup(rules.decks)).p_noir
    return p * (rules.noir_after_noir - 1.0), p * (rules.noir_otherwise - 1.0)


def rig_probability(rules: RuleSet, odds: CoupOdds | None = None) -> float:
    """The chance that the last coups show a rigged table's pattern (:attr:`RuleSet.rig_pattern`)
    before a coup, with consecutive coups taken as independent at the first-coup odds: ``P(Noir)`` for
    each ``N``, ``P(Rouge)`` for each ``R``, 1 for each ``.``. For the one-coup rig, ``P(Noir)``."""
    odds = odds or first_coup(rules.decks)
    letter = {"N": odds.p_noir, "R": odds.p_rouge, ".": 1.0}
    return float(np.prod([letter[c] for c in rules.rig_pattern]))


@dataclass(frozen=True)
class RigExpectations:
    """The exact expected return per unit staked of the reference policies on one table (a fraction;
    positive: the player gains), from the first-coup odds, **with consecutive coups taken as
    independent**: the chance that the coups before a stake show the rig's pattern is
    :func:`rig_probability` (``P(Noir)`` of a full shoe for the one-coup rig), and the first coups of
    a session (too few coups before them) are left out. A real shoe deals its coups without
    replacement, so they are slightly dependent; ``trente-lab control`` measures how far real shoes
    are from this on the same shoes.
    """

    p_noir: float  #: P(Noir wins), first coup: also the share of coups that come right after a Noir win
    always_noir: float  #: one unit on Noir every coup
    flat: dict[str, float]  #: one unit on one box every coup, per open box (Noir is ``always_noir``)
    never: float  #: never staking: nothing staked, a return of 0
    noir_after_noir: float  #: the ideal state-aware rule: one unit on Noir only right after the rig's pattern
    noir_otherwise: float  #: the opposite rule: one unit on Noir except right after the rig's pattern
    p_pattern: float = float("nan")  #: the share of coups right after the rig's pattern (:func:`rig_probability`)

    @property
    def best_unconditional(self) -> float:
        """The best return of a policy that does not read the scoreboard: never staking (0) or the
        best box staked every coup (any mixture of boxes and sizes lies between them)."""
        return max(self.never, *self.flat.values())

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "best_unconditional": self.best_unconditional}


def rig_expectations(rules: RuleSet, odds: CoupOdds | None = None) -> RigExpectations:
    """The exact expectations of :class:`RigExpectations` under ``rules`` (a rigged table or a fair
    one, where the state-aware rules simply earn the Noir edge)."""
    odds = odds or first_coup(rules.decks)
    edges = house_edges(rules, odds)
    after, otherwise = rig_bonus(rules, odds)
    q = rig_probability(rules, odds)
    noir = -edges.noir + q * after + (1 - q) * otherwise
    boxes = {"noir": noir, "rouge": -edges.rouge, "couleur": -edges.couleur, "inverse": -edges.inverse}
    return RigExpectations(
        p_noir=odds.p_noir,
        always_noir=noir,
        flat={box: boxes[box] for box in rules.boxes},
        never=0.0,
        noir_after_noir=-edges.noir + after,
        noir_otherwise=-edges.noir + otherwise,
        p_pattern=q,
    )


@dataclass(frozen=True)
class MemoryOptimum:
    """The best policy that reads the results of the last ``memory`` coups, and nothing else, and
    stakes one unit on one box or nothing (:func:`best_with_memory`): exact, under the model of
    :class:`RigExpectations` (coups independent, first-coup odds, a session's first coups left out)."""

    memory: int  #: coups of the scoreboard the policy reads
    insured: bool  #: whether it may insure its stake
    per_coup: float  #: its expected gain per coup, units (one unit staked when it stakes)
    bet_share: float  #: the share of coups on which it stakes
    best_gain: float  #: the largest expected gain per unit that any history offers on any box (<= 0: it never bets)
    histories: dict[str, tuple[str, float]]  #: per history it bets on (oldest first, N/R/T): (box, gain per unit)

    @property
    def per_unit(self) -> float:
        """Its expected gain per unit staked (0 when it never stakes)."""
        return self.per_coup / self.bet_share if self.bet_share > 0 else 0.0


def best_with_memory(
    rules: RuleSet, memory: int, *, insured: bool = False, odds: CoupOdds | None = None
) -> MemoryOptimum:
    """The exact optimum of a policy that sees the results of the last ``memory`` coups (each a Noir
    win ``N``, a Rouge win ``R`` or a tie ``T``, après or refait) and stakes one unit on one box or
    nothing: for each of the ``3**memory`` histories, the best of sitting out and of each open box's
    expected gain per unit given that history (the rig's Noir bonus, :func:`rig_bonus`, weighted by the
    chance that the pattern is complete given what is seen: :func:`rig_probability` for the coups not
    seen), summed over the histories' probabilities. Stakes are linear in expectation, so a larger
    stake scales ``per_coup``; and with every other box at its fair edge, staking several boxes at once
    never beats the best one.

    :param insured: whether the policy may insure its stake (the RL's discrete actions do not).
    :param odds: the coup's odds (default: the first coup of a full shoe).
    """
    if isinstance(memory, bool) or not isinstance(memory, int) or not 0 <= memory <= 8:
        raise ValueError(f"memory is a number of coups from 0 to 8, got {memory!r}")
    odds = odds or first_coup(rules.decks)
    edges = house_edges(rules, odds)
    after, otherwise = rig_bonus(rules, odds)
    p = {"N": odds.p_noir, "R": odds.p_rouge, "T": 1.0 - odds.p_noir - odds.p_rouge - odds.p_void}
    unseen = {"N": odds.p_noir, "R": odds.p_rouge, ".": 1.0}
    pattern = rules.rig_pattern[::-1]  # most recent first, as the scoreboard
    fair = {"rouge": -edges.rouge, "couleur": -edges.couleur, "inverse": -edges.inverse}
    fair = {box: gain for box, gain in fair.items() if box in rules.boxes}
    can_insure = insured and rules.insurance
    per_coup = bet_share = 0.0
    best_gain = -np.inf
    bets: dict[str, tuple[str, float]] = {}
    for history in itertools.product("NRT", repeat=memory):  # most recent first
        weight = float(np.prod([p[c] for c in history]))
        q = 1.0
        for i, letter in enumerate(pattern):
            if i < memory:
                q *= 1.0 if letter in (".", history[i]) else 0.0
            else:
                q *= unseen[letter]
        bonus = q * after + (1 - q) * otherwise
        gains = {"noir": -edges.noir + bonus, **fair}
        if can_insure:  # an insured stake's edge is the premium less P(its box wins) - P(it loses): Noir's and Rouge's
            gains["noir insured"] = -edges.insured + bonus
            gains["rouge insured"] = -(odds.p_noir - odds.p_rouge + rules.insurance_rate)
        box = max(gains, key=gains.__getitem__)
        best_gain = max(best_gain, gains[box])
        if gains[box] > 0:
            per_coup += weight * gains[box]
            bet_share += weight
            bets["".join(reversed(history))] = (box, gains[box])
    return MemoryOptimum(memory, can_insure, per_coup, bet_share, float(best_gain), bets)


def _rebuild_cache() -> None:
    """``python -m trente_env.odds``: rebuild :data:`CACHE`, a progress bar on stderr (a few minutes)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        decks = range(1, 9)
        task = bar.add_task("exact odds of the first coup, 1 to 8 decks", total=len(decks))
        write_cache(decks, lambda d: bar.advance(task))
    print(f"wrote {CACHE}")


if __name__ == "__main__":
    _rebuild_cache()

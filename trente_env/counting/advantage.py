"""What one unit staked on each box is worth on the next coup, given what is left of the shoe.

From the odds of the next coup (:mod:`trente_env.odds`) and the house rules, the expected gain
of one unit on Noir, Rouge, Couleur and Inverse, with and without insurance. A box wins with ``win``,
loses with ``lose``, and a refait takes the stake with ``refait``; an après leaves it in place and a
void coup returns it. So the expected gain of a new stake is::

    payout win - lose - refait * (1 - V)        uninsured
    payout win - lose - rate * (1 - void)       insured (a refait returns the stake, a void coup the premium)

where ``payout`` is what a win on the box pays to 1 (:attr:`~trente_env.rules.RuleSet.payouts`) and
``V`` what a stake caught by the refait is worth per unit (:func:`~trente_env.settle.refait_value`):
what a partage leaves, the better of 1/2 and the prisoner's value under ``choice``, 1 when the house
spares Couleur and Inverse, and under ``prison`` the value of the prisoner, which is decided by later
coups.

P(Noir) = P(Rouge) for every shoe, so Noir and Rouge are never favourable; Couleur wins with
``(P(Noir) + P(Rouge) + e) / 2`` and Inverse with ``(P(Noir) + P(Rouge) - e) / 2``, where ``e`` is
the colour edge of :class:`~trente_env.odds.ShoeOdds`.

**The prisoner's value (an approximation).** It depends on the coups after the refait, dealt from a
shoe further depleted by the refait's cards. It is taken as if those coups had the odds of the present
one, except that a void coup sends the prisoner to a freshly shuffled shoe, where it is worth the
prisoner's value of a full shoe (:func:`fresh_prisoner`): :func:`~trente_env.settle.prisoner_value`
with the chance of a void coup. Only uninsured stakes under ``prison`` or ``choice`` depend on it;
everything else is exact given the odds.

Measured against the exact value (:func:`prisoner_exact`: a Noir prisoner, classic rules, shoes dealt
by the dealer, 10 per line, 6 at 28 cards), root-mean-square and largest error of the prisoner's value,
then of the expected gain of the stake (times P(refait)):

==========  ===============  ===============
cards left  value            expected gain
==========  ===============  ===============
16          4.0e-3 / 7.1e-3  1.0e-4 / 2.5e-4
20          4.6e-3 / 1.1e-2  1.1e-4 / 2.3e-4
24          1.5e-3 / 4.2e-3  4.4e-5 / 1.2e-4
28          1.0e-3 / 1.6e-3  2.2e-5 / 4.7e-5
==========  ===============  ===============

Deeper in the shoe the next coups' odds hardly move and the error shrinks further.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from trente_env import jit
from trente_env.codes import BOXES, COULEUR, ROUGE
from trente_env.odds import N_OUT, N_VALUES, ShoeOdds, check_composition, first_coup
from trente_env.odds.joint import joint_forward, joint_layout
from trente_env.rules import RuleSet, SecondRefait
from trente_env.settle import prisoner_value, refait_value, rule_codes, second_refait_code

EV, EV_INSURED, PRISONER = range(3)  #: columns of the (4, 3) table of :func:`box_values_into`


class BetRules(NamedTuple):
    """The rule options a counter's compiled code reads (:func:`bet_rules`)."""

    n_boxes: int  #: open boxes: 4, or 2 without Couleur/Inverse
    insurance: bool  #: the table sells insurance
    refait: int  #: the refait rule's code (:func:`~trente_env.settle.rule_codes`)
    second_refait: int  #: the second refait's code
    spares_couleur: bool  #: Couleur/Inverse stakes are returned on a refait
    rate: float  #: the insurance premium, a fraction of the stake
    fresh1: float  #: a prisoner in first prison in a fresh shoe (:func:`fresh_prisoner`)
    fresh2: float  #: the same in second prison
    payouts: np.ndarray  #: what a win pays to 1 on each box


def fresh_prisoner(rules: RuleSet) -> tuple[float, float]:
    """What a stake in first and in second prison is worth, per unit, when the next coup comes from
    a freshly shuffled full shoe (the first-coup odds of docs/rules.md#reference-numbers; later
    coups taken alike)."""
    odds = first_coup(rules.decks)
    win, apres, refait = odds.p_noir, odds.p_apres, odds.p_refait
    first = prisoner_value(win, 1.0 - win - odds.p_rouge - refait, refait, int(second_refait_code(rules)))
    second = win * first / (1.0 - apres) if rules.second_refait is SecondRefait.SECOND_PRISON else 0.0
    return first, second


def bet_rules(rules: RuleSet) -> BetRules:
    """``rules`` as :func:`box_values_into` and the counters' kernels read them."""
    refait_rule, second, spares, rate = rule_codes(rules)
    fresh1, fresh2 = fresh_prisoner(rules)
    return BetRules(
        len(rules.boxes), rules.insurance, refait_rule, second, spares, rate, fresh1, fresh2, np.array(rules.payouts)
    )


@jit.kernel
def box_values_into(chances: tuple, rules: BetRules, out: np.ndarray) -> None:
    """Fill ``out`` (4 boxes x 3: uninsured EV, insured EV, prisoner's value) from the coup's chances
    (refait, après, void, decided, colour edge: :func:`odds_summary`) under ``rules``. ``decided`` is
    P(Noir) + P(Rouge), the chance that some row wins; the colour edge P(Couleur) - P(Inverse).
    Insured EVs are NaN when the rules have no insurance.
    """
    refait, apres, void, decided, colour_edge = chances
    refait_rule, second_refait, spares_couleur = rules.refait, rules.second_refait, rules.spares_couleur
    fresh1, fresh2, payouts, insurance, rate = rules.fresh1, rules.fresh2, rules.payouts, rules.insurance, rules.rate
    half = decided / 2.0
    for box in range(4):
        edge = 0.0 if box <= ROUGE else (colour_edge if box == COULEUR else -colour_edge)
        win = half + edge / 2.0
        lose = half - edge / 2.0
        jail = prisoner_value(win, apres, refait, second_refait, void, fresh1, fresh2)
        value = 1.0 if spares_couleur and box >= COULEUR else refait_value(refait_rule, jail)
        gain = payouts[box] * win - lose
        out[box, EV] = gain - refait * (1.0 - value)
        out[box, EV_INSURED] = gain - rate * (1.0 - void) if insurance else np.nan
        out[box, PRISONER] = jail


@jit.kernel
def odds_summary(out: np.ndarray, counts: np.ndarray) -> tuple[float, float, float, float, float]:
    """(refait, après, void, decided, colour edge) from an odds vector of
    :mod:`trente_env.odds` and the 20 counts of the shoe it came from."""
    refait = out[0]
    trace = 0.0
    complete = 0.0
    for t in range(10):
        trace += out[t * 11]
        for u in range(10):
            complete += out[t * 10 + u]
    edge = 0.0
    for v in range(N_VALUES):
        n_v = counts[v] + counts[N_VALUES + v]
        if n_v > 0:
            edge += out[100 + v] * (counts[v] - counts[N_VALUES + v]) / n_v
    return refait, trace - refait, out[110], complete - trace, edge


@dataclass(frozen=True)
class BoxValues:
    """Expected gain of one unit on each box (Noir, Rouge, Couleur, Inverse) on the next coup.

    NaN marks a box closed by the rules (``couleur_inverse`` off) or insurance they do not offer.
    """

    ev: np.ndarray  #: (4,) uninsured
    ev_insured: np.ndarray  #: (4,) insured, premium included
    prisoner: np.ndarray  #: (4,) value per unit of a stake in first prison on each box

    @property
    def best(self) -> tuple[str, bool, float]:
        """(box, insured, expected gain) of the best single bet, whatever its sign."""
        table = np.stack([self.ev, self.ev_insured])
        table = np.where(np.isnan(table), -np.inf, table)
        insured, box = np.unravel_index(int(np.argmax(table)), table.shape)
        return BOXES[box], bool(insured), float(table[insured, box])


def box_values(odds: ShoeOdds, rules: RuleSet) -> BoxValues:
    """The expected gain of one unit on each box under ``rules``, from the odds of the next coup."""
    out = np.empty((4, 3))
    chances = (odds.p_refait, odds.p_apres, odds.p_void, odds.p_noir + odds.p_rouge, odds.couleur_edge)
    box_values_into(chances, bet_rules(rules), out)
    if not rules.couleur_inverse:
        out[COULEUR:, :2] = np.nan
    return BoxValues(out[:, EV].copy(), out[:, EV_INSURED].copy(), out[:, PRISONER].copy())


def prisoner_exact(counts: np.ndarray, dead: int, rules: RuleSet) -> float:
    """The exact value per unit of a stake sent to (first) prison on Noir by a refait of the next
    coup from the unseen cards ``counts``, what the module's notes approximate: averaged over the
    refaits (their cards leave the shoe), then coup after coup from the shoe that is left, a void
    coup sending the prisoner to a fresh shoe (:func:`fresh_prisoner`). By recursion over the
    compositions the later coups leave (exact odds of each); short shoes only (at most a few dozen
    cards), for rules whose second refait loses the prisoner or keeps it (``lost``, ``stays``).
    """
    counts, dead = check_composition(counts, dead)
    if rules.second_refait is SecondRefait.SECOND_PRISON:
        raise ValueError("prisoner_exact covers the lost and stays rules of the second refait, not second_prison")
    fresh, _ = fresh_prisoner(rules)
    stays = rules.second_refait is SecondRefait.STAYS
    memo: dict[tuple[int, ...], float] = {}

    def value(shoe: tuple[int, ...]) -> float:
        """A Noir prisoner's value before the next coup from ``shoe``."""
        if shoe not in memo:
            noir, _, void, ties = _coup_ties(np.array(shoe), dead)
            v = noir + void * fresh
            for (left, total), p in ties.items():
                if total > 31 or stays:
                    v += p * value(left)
            memo[shoe] = v
        return memo[shoe]

    _, _, _, ties = _coup_ties(counts[:10] + counts[10:], dead)
    refaits = {left: p for (left, total), p in ties.items() if total == 31}
    mass = sum(refaits.values())
    if mass == 0.0:
        return fresh
    return sum(p * value(left) for left, p in refaits.items()) / mass


def _coup_ties(shoe: np.ndarray, dead: int) -> tuple[float, float, float, dict]:
    """(P(Noir wins), P(Rouge wins), P(void), {(value counts left after the coup, tied total): P})."""

    layout = joint_layout(shoe)
    caps, stride, size = layout
    if shoe.sum() <= dead:
        return 0.0, 0.0, 1.0, {}
    room = 10 * size
    state, total, chance = np.empty(room, np.int64), np.empty(room, np.int64), np.empty(room)
    out = np.zeros(N_OUT)
    pn, joint = np.empty(size), np.empty(10 * size)
    void, _, _, ties = joint_forward(shoe, dead, layout, pn, joint, out, (state, total, chance))
    if ties == room:
        raise ValueError("too many ties to record: the shoe is too large for prisoner_exact")
    pair = out[:100].reshape(10, 10)
    grouped: dict[tuple[tuple[int, ...], int], float] = {}
    for code, t, p in zip(state[:ties], total[:ties], chance[:ties]):
        used = (code // N_VALUES // stride) % (caps + 1)
        used[code % N_VALUES] += 1
        key = (tuple(int(x) for x in shoe - used), int(t))
        grouped[key] = grouped.get(key, 0.0) + float(p)
    return float(np.triu(pair, 1).sum()), float(np.tril(pair, -1).sum()), float(void), grouped

"""The house edge of every box, of the stakes a player placed, and of a rigged table's Noir bonus.

A box's edge follows from the distribution of (Noir total, Rouge total) of a coup (:mod:`.first`:
the first coup of a full shoe, the convention of docs/rules.md#reference-numbers) and from the rules'
arithmetic of :mod:`trente_env.settle` (what a refaited stake and a prisoner are worth: the prison
recursions of docs/rules.md#en-prison solved in closed form).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from trente_env.codes import COULEUR, INVERSE, NOIR, ROUGE
from trente_env.odds.first import CoupOdds, first_coup
from trente_env.rules import Refait, RuleSet
from trente_env.settle import prisoner_value, refait_code, refait_value, second_refait_code


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

"""The rigged table (the positive control, docs/rules.md#the-rigged-table-positive-control): the exact
expectations of the reference policies and the best policy that reads the last coups, with
consecutive coups taken as independent at the first-coup odds.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass

import numpy as np

from trente_env.odds.edges import house_edges, rig_bonus
from trente_env.odds.first import CoupOdds, first_coup
from trente_env.rules import RuleSet
from trente_env.whole import checked_whole


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
    #: Noir's largest expected gain per unit over the histories: how close a view of ``memory`` coups
    #: comes to the rig (on ``rig-3`` Noir loses after every history of fewer than three coups)
    noir_gain: float = float("nan")

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
    checked_whole(memory, f"memory is a number of coups from 0 to 8, got {memory!r}", 0, 8, numpy=False)
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
    best_gain = noir_gain = -np.inf
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
        noir_gain = max(noir_gain, gains["noir"])
        best_gain = max(best_gain, gains[box])
        if gains[box] > 0:
            per_coup += weight * gains[box]
            bet_share += weight
            bets["".join(reversed(history))] = (box, gains[box])
    return MemoryOptimum(memory, can_insure, per_coup, bet_share, float(best_gain), bets, float(noir_gain))

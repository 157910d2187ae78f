"""Effects of removal: how the next coup changes when one card leaves a full shoe (blackjack's EOR
tables, for Trente et Quarante), and the linear count built from them.

Removing one card of each value and colour from a full shoe of ``decks`` packs changes P(refait) and
the expected gain of each box; :func:`effects_of_removal` computes these changes exactly. Weighted by
the cards of the full shoe they sum to zero (taking out a card nobody sees, a burnt card, does not
change the odds of the next coup), exactly for the chances and for the expected gains that are
linear in them (everything but prisoners' values).

A **linear count** estimates the expected gains of a depleted shoe from the effects of removal of the
cards seen so far: with ``N`` cards in the full shoe and ``n`` unseen, to first order in the shoe's
proportions::

    EV(shoe) ~ EV(full shoe) + (N - 1) / n * sum over seen cards of their effect of removal

(the running count divided by the cards left: blackjack's *true count*). Only the colour tags differ
between black and red cards; see :class:`RemovalEffects`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trente_env.codes import BOXES, COULEUR
from trente_env.counting.advantage import EV, EV_INSURED, BetRules, bet_rules, box_values_into, odds_summary
from trente_env.odds import N_VALUES, QUARTER, exact_values, full_counts, nodes
from trente_env.rules import RuleSet

#: The 20 kinds of card, in the order of the environment's ``observe_shoe``.
KINDS = tuple(f"{colour} {value}" for colour in ("black", "red") for value in range(1, N_VALUES + 1))


@dataclass(frozen=True)
class RemovalEffects:
    """The next coup of a full shoe, and how removing one card of each kind changes it.

    ``ev[b, 0]`` is the expected gain of one unit on box ``b`` (Noir, Rouge, Couleur, Inverse),
    ``ev[b, 1]`` the same insured (NaN without insurance); ``d_ev[k]`` is the change of that table
    when one card of kind ``k`` (see :data:`KINDS`) leaves the shoe, ``d_refait[k]`` the change of
    P(refait).
    """

    decks: int
    rules: RuleSet
    p_refait: float
    ev: np.ndarray  #: (4, 2)
    d_refait: np.ndarray  #: (20,)
    d_ev: np.ndarray  #: (20, 4, 2)

    @property
    def cards(self) -> np.ndarray:
        """The 20 counts of the full shoe."""
        return full_counts(self.decks)

    def weighted_sums(self) -> tuple[float, np.ndarray]:
        """The effects weighted by the cards of the full shoe: (refait, (4, 2) EVs); zero but for the
        prisoners' values under prison rules."""
        w = self.cards.astype(float)
        return float(w @ self.d_refait), np.einsum("k,kbi->bi", w, self.d_ev)

    def to_dict(self) -> dict[str, object]:
        return {
            "decks": self.decks,
            "rules": self.rules.describe(),
            "p_refait": self.p_refait,
            "ev": {box: self.ev[b].tolist() for b, box in enumerate(BOXES)},
            "removal": [
                {"card": kind, "d_refait": float(self.d_refait[k])}
                | {box: self.d_ev[k, b].tolist() for b, box in enumerate(BOXES)}
                for k, kind in enumerate(KINDS)
            ],
        }


def _values(vector: np.ndarray, counts: np.ndarray, rules: BetRules, couleur_inverse: bool) -> np.ndarray:
    """(4, 2) expected gains (uninsured, insured) from an odds vector and the shoe's 20 counts."""
    out = np.empty((4, 3))
    box_values_into(odds_summary(vector, counts), rules, out)
    table = out[:, [EV, EV_INSURED]]
    if not couleur_inverse:
        table[COULEUR:] = np.nan
    return table


def effects_of_removal(rules: RuleSet, *, recompute: bool = False) -> RemovalEffects:
    """The effects of removal for a full shoe of ``rules.decks`` packs under ``rules``.

    The exact odds of the full shoe and of the shoe less one card of each value are read from the
    nodes of :mod:`trente_env.odds` (a full shoe of d packs is the node of 4 d quarter-packs), or
    computed afresh with ``recompute`` (a minute for six packs). The colour of the removed card
    enters exactly through the colour edge.
    """
    k = 4 * rules.decks
    if recompute:
        ref = QUARTER * k
        base = exact_values(ref)
        removed = np.array([exact_values(ref - np.eye(N_VALUES, dtype=np.int64)[v]) for v in range(N_VALUES)])
    else:
        table = nodes()
        i = int(np.flatnonzero(table.cards == 13 * k)[0])
        base, removed = table.exact[i], table.exact_removed[i]
    kernel_rules = bet_rules(rules)
    full = full_counts(rules.decks)
    ev = _values(base, full, kernel_rules, rules.couleur_inverse)
    d_ev = np.empty((2 * N_VALUES, 4, 2))
    d_refait = np.empty(2 * N_VALUES)
    for kind in range(2 * N_VALUES):
        counts = full.copy()
        counts[kind] -= 1
        vector = removed[kind % N_VALUES]
        d_ev[kind] = _values(vector, counts, kernel_rules, rules.couleur_inverse) - ev
        d_refait[kind] = vector[0] - base[0]
    return RemovalEffects(rules.decks, rules, float(base[0]), ev, d_refait, d_ev)


@dataclass(frozen=True)
class LinearCount:
    """A linear count: the full shoe's expected gains and one tag per kind of card and bet, the
    effect of removing that card (see the module's notes)."""

    cards: int  #: N, the cards of the full shoe
    base: np.ndarray  #: (4, 2) expected gains of the full shoe
    tags: np.ndarray  #: (20, 4, 2) effects of removal

    def estimate(self, seen: np.ndarray, unseen: int) -> np.ndarray:
        """The (4, 2) estimated expected gains after ``seen`` cards (20 counts), ``unseen`` left."""
        return self.base + (self.cards - 1) / unseen * np.einsum("k,kbi->bi", np.asarray(seen, float), self.tags)


def linear_count(effects: RemovalEffects) -> LinearCount:
    """The linear count derived from the effects of removal."""
    return LinearCount(int(effects.cards.sum()), np.nan_to_num(effects.ev, nan=-np.inf), np.nan_to_num(effects.d_ev))

"""What the croupier does at one table in one coup: deal it, take the bets and settle them.

These are the compiled steps every table of trente-lab goes through, whoever plays it: the
environments' tables (:class:`~trente_env.tables.Tables`) and the tournament's session loop
(:mod:`strategies.sessions`) both call them coup after coup, so there is one copy of the rules.

* :func:`next_coup`: shuffle if the shoe needs it, deal the coup (:mod:`trente_env.dealer`) and
  decide it (:func:`~trente_env.coup.decide`);
* :func:`make_legal`: the stake a box really takes, within the limits and the money in hand;
* :func:`bet_and_settle`: make a whole action row legal, box by box, then settle every box and its
  prisoners (:func:`~trente_env.settle.settle_box`);
* :func:`is_free`: whether a table's prison is empty.

The kernels read a table's rules as numbers, in one bundle: :class:`TableRules` (:func:`table_rules`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from trente_env import jit
from trente_env.cards import CARD_BLACK, new_shoe
from trente_env.codes import INSURE, PRISON
from trente_env.coup import decide
from trente_env.dealer import deal_next, shuffle
from trente_env.rules import RuleSet
from trente_env.settle import _paid, _rig_payout, _settle_box, noir_payouts, rig_codes, rule_codes

_decide = jit.inner(decide)  # (compiled callers only, like _make_legal: no entry point for Python)


class TableRules(NamedTuple):
    """A table's rules as the kernels read them (:func:`table_rules`)."""

    base: np.ndarray  #: a fresh shoe's card codes, unshuffled: every shuffle starts from this order
    burn: int  #: cards burnt after each shuffle
    cut_card: int  #: cards behind the cut card
    n_boxes: int  #: open boxes: 4, or 2 (Noir and Rouge) without Couleur/Inverse
    insurance: bool  #: the table sells insurance
    table_min: float
    table_max: float
    refait: int  #: the refait rule's code (:func:`~trente_env.settle.rule_codes`)
    second_refait: int  #: the second refait's code
    spares_couleur: bool  #: Couleur/Inverse stakes are returned on a refait
    rate: float  #: the insurance premium, a fraction of the stake
    dead_cards: int  #: the last cards of the shoe, never dealt
    noir_after_noir: float  #: what a Noir win pays to 1 right after the rig's pattern (settle.noir_payouts)
    noir_otherwise: float  #: what a Noir win pays to 1 otherwise (the Noir box's payout but on the rigged table)
    rig_pattern: np.ndarray  #: the rig's pattern, most recent coup first (:func:`~trente_env.settle.rig_codes`)
    payouts: np.ndarray  #: what a win pays to 1 on each box (RuleSet.payouts; Noir's as above)


def table_rules(rules: RuleSet) -> TableRules:
    """``rules`` as the kernels read them."""
    refait, second, spares, rate = rule_codes(rules)
    after, otherwise = noir_payouts(rules)
    return TableRules(
        new_shoe(rules.decks), rules.burn, rules.cut_card, len(rules.boxes), rules.insurance, float(rules.table_min),
        float(rules.table_max), refait, second, spares, rate, rules.dead_cards, after, otherwise, rig_codes(rules),
        np.array(rules.payouts),
    )  # fmt: skip


def make_legal(
    want: float,
    insure: bool,
    avail: float,
    is_open: bool,
    insurance: bool,
    rate: float,
    table_min: float,
    table_max: float,
) -> tuple[float, bool]:
    """The stake a box really takes, and whether it is insured (docs/rules.md#the-table,
    docs/rules.md#invariants-of-every-coup).

    A negative, NaN or closed-box stake is 0; a stake over the table maximum is cut to the maximum;
    a stake whose cost (with its premium, :func:`~trente_env.settle.paid`) is over ``avail``, the
    money not yet staked this coup, is cut to the largest whole number of units ``s`` whose cost, as
    the bankroll will pay it, is at most ``avail``: exactly, not through a rounded division, so what
    is left after placing it is never below 0. Whatever is left under the table minimum is refused.
    Insurance is bought only on a stake, and only at tables that sell it.
    """
    stake = want if (want > 0.0 and is_open) else 0.0
    if stake > table_max:
        stake = table_max
    insured = insure and insurance and stake > 0.0
    if _paid(stake, insured, rate) > avail:
        # the division gives s within one unit: the exact comparison decides
        whole = np.floor(min(avail / (1.0 + rate if insured else 1.0), stake))
        if whole + 1.0 <= stake and _paid(whole + 1.0, insured, rate) <= avail:
            whole += 1.0
        while whole > 0.0 and _paid(whole, insured, rate) > avail:
            whole -= 1.0
        stake = max(whole, 0.0)
    if stake < table_min:
        stake = 0.0
        insured = False
    return stake, insured


_make_legal = jit.inner(make_legal)


def next_coup(cards, pos, needs_shuffle, seed, rules):  # fmt: skip
    """Deal one table's next coup: shuffle first if the shoe needs it (from ``rules.base`` with
    ``seed``, then burn), then :func:`~trente_env.dealer.deal_next` and the result.

    Returns (noir, rouge, result, couleur, start, middle, end, reshuffle): the totals, the
    :class:`~trente_env.codes.Result` code, whether Couleur wins, where the coup's cards lie in
    ``cards``, and whether the shoe must be shuffled before the next coup.
    """
    if needs_shuffle:
        base = rules.base
        for i in range(base.size):
            cards[i] = base[i]
        shuffle(cards, seed)
        pos = rules.burn
    noir, rouge, middle, end, reshuffle = deal_next(cards, pos, rules.cut_card, rules.dead_cards)
    first_black = False
    if noir > 0:
        first_black = CARD_BLACK[cards[pos]]
    result, couleur = _decide(noir, rouge, first_black)
    return noir, rouge, result, couleur, pos, middle, end, reshuffle


def bet_and_settle(action, bankroll, prison, result, couleur, board, rules, slips):
    """One table's coup for the player: make the ``action``'s bets legal (:func:`make_legal`, box by
    box), then settle every box and its prisoners (``prison``, (4, 2), updated) on the result, under
    the table's ``rules`` (:class:`TableRules`).

    ``board`` is the table's scoreboard before this coup, in this session: the
    :class:`~trente_env.codes.Result` codes of the last coups, most recent first
    (:data:`~trente_env.codes.NO_COUP` where none was played yet), at least as many as the rig's
    pattern: the rigged table pays a Noir win by it (:func:`~trente_env.settle.rig_payout`;
    docs/rules.md#the-rigged-table-positive-control).
    Writes the stakes taken, their insurance and what came back into ``slips``, the rows (placed,
    insured, back); returns (bankroll, clipped): the bankroll after the coup and whether any wanted stake
    was changed. A box with no stake and no prisoner has nothing to settle.

    The money is counted so that it cannot go below zero, whatever the rounding: each stake is taken
    from what is left in hand only if its cost (:func:`~trente_env.settle.paid`) is at most that
    (:func:`make_legal`), so what is left stays >= 0, and the bankroll after the coup is what was left
    plus what came back (every ``back`` is >= 0). The caller's gain is the new bankroll minus the old.
    """
    placed, insured, back = slips
    n_boxes, insurance, rate = rules.n_boxes, rules.insurance, rules.rate
    table_min, table_max = rules.table_min, rules.table_max
    noir_pays = rules.noir_otherwise  # a fair table (both Noir payouts the same) need not read its scoreboard
    if rules.noir_after_noir != rules.noir_otherwise:
        noir_pays = _rig_payout(board, rules.rig_pattern, rules.noir_after_noir, rules.noir_otherwise)
    left = bankroll
    clipped = False
    for b in range(4):
        want = action[b]
        if want == 0.0:  # what make_legal makes of no stake, without the arithmetic
            placed[b] = 0.0
            insured[b] = False
            continue
        insure = action[INSURE + b] > 0.5
        stake, ins = _make_legal(want, insure, left, b < n_boxes, insurance, rate, table_min, table_max)
        if stake != want:
            clipped = True
        cost = _paid(stake, ins, rate)
        if (cost > left) | (stake > table_max):  # make_legal rules it out: a guard, never a rule
            raise ValueError("bet_and_settle: a stake above the money in hand or the table maximum")
        left -= cost
        placed[b] = stake
        insured[b] = ins
    returned = 0.0
    codes = (rules.refait, rules.second_refait, rules.spares_couleur, rate)
    for b in range(4):
        stake = placed[b]
        if (stake == 0.0) & (prison[b, 0] == 0.0) & (prison[b, 1] == 0.0):
            back[b] = 0.0
            continue
        bet = (stake, insured[b], action[PRISON + b] > 0.5)
        pays = noir_pays if b == 0 else rules.payouts[b]
        out = _settle_box(b, bet, (prison[b, 0], prison[b, 1]), result, couleur, codes, pays)
        back[b] = out[0]
        prison[b, 0] = out[1]
        prison[b, 1] = out[2]
        returned += out[0]
    bankroll = left + returned
    if not bankroll >= 0.0:  # left and every back are >= 0: a guard, against a bankroll edited by hand
        raise ValueError("bet_and_settle: the bankroll would end below 0 (or not a number)")
    return bankroll, clipped


next_coup = jit.hot(next_coup)
bet_and_settle = jit.hot(bet_and_settle)


@jit.hot
def is_free(prison: np.ndarray) -> bool:
    """Whether a table's (4, 2) prison holds no stake."""
    for b in range(4):  # noqa: SIM110
        if (prison[b, 0] != 0.0) | (prison[b, 1] != 0.0):
            return False
    return True


@jit.hot
def is_ruined(money: float, table_min: float, prison: np.ndarray) -> bool:
    """The ruin rule of every session loop: the money in hand is below the table minimum and no stake
    is left in prison (a prisoner freed may still pay for a stake)."""
    if money < table_min:  # noqa: SIM103  (two ifs: no array is looked at while the money suffices)
        return is_free(prison)
    return False


__all__ = ["TableRules", "bet_and_settle", "is_free", "is_ruined", "make_legal", "next_coup", "table_rules"]

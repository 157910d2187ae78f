"""The invariants every coup must keep (docs/rules.md#invariants-of-every-coup),
checked on arrays with one row per table.

Shared by the fuzz tests of the single environment, the vector environment and the tournament loop.
"""

from __future__ import annotations

import numpy as np

from trente_env.cards import CARD_VALUE
from trente_env.codes import NO_COUP
from trente_env.rules import RuleSet
from trente_env.settle import noir_payout, noir_payouts, rule_codes, settle, settle_box


def check_coup(
    rules: RuleSet,
    before: np.ndarray,
    prison_before: np.ndarray,
    rows: np.ndarray,
    stakes: np.ndarray,
    insured: np.ndarray,
    back: np.ndarray,
    prison_after: np.ndarray,
    after: np.ndarray,
    result: np.ndarray,
    couleur: np.ndarray,
    exact: np.ndarray | None = None,
    last: np.ndarray | None = None,
) -> None:
    """One coup on ``n`` tables kept every rule of the money.

    :param before: (n,) bankroll before the coup; ``after`` the bankroll after it.
    :param prison_before: (n, 4, 2) prisoners before the coup; ``prison_after`` after it.
    :param rows: (n, 12) the action rows the tables were given (for the half-or-prison choice).
    :param stakes: (n, 4) the stakes placed; ``insured`` which were insured; ``back`` what came back.
    :param result: (n,) Result codes; ``couleur``: (n,) the scoreboard's code (0 Couleur won).
    :param exact: where ``after`` and ``prison_after`` are the table's own float64 values (elsewhere they
        come from a float32 observation and are compared within its precision).
    :param last: (n,) the result code of the previous coup at each table (what a rigged table pays
        Noir by); default: no previous coup.
    """
    n = before.shape[0]
    exact = np.ones(n, dtype=np.bool_) if exact is None else exact
    rate = rules.insurance_rate
    # every stake legal: whole tables, open boxes, within the limits, insured only if sold and staked
    assert (stakes >= 0).all() and (stakes <= rules.table_max).all()
    assert ((stakes == 0) | (stakes >= rules.table_min)).all()
    assert (stakes[:, len(rules.boxes) :] == 0).all()
    assert not (insured & ~((stakes > 0) & rules.insurance)).any()
    # placed one after the other, each from what is left in hand: what is left never goes below 0
    left = before.copy()
    for b in range(4):
        left = left - np.where(insured[:, b], stakes[:, b] + rate * stakes[:, b], stakes[:, b])
        assert (left >= 0).all()
    # settled by the rules (the numpy-facing settlement, its own compiled kernel)
    want = settle(
        rules, stakes, result, couleur == 0, insured=insured, prison=prison_before, to_prison=rows[:, 8:] > 0.5,
        last=last,
    )  # fmt: skip
    assert np.array_equal(back, want.back)
    assert np.array_equal(prison_after[exact], want.prison[exact])
    assert np.allclose(prison_after[~exact], want.prison[~exact], rtol=1e-6)
    # every chip accounted for: stakes + premiums + prisoners in == back + prisoners out + the bank's take
    paid_in = np.where(insured, stakes + rate * stakes, stakes).sum(axis=1) + prison_before.sum(axis=(1, 2))
    paid_out = want.back.sum(axis=1) + want.prison.sum(axis=(1, 2)) + want.bank
    assert np.allclose(paid_in, paid_out, rtol=1e-12, atol=1e-9)
    # the bankroll after the coup: what was left, plus what came back; never negative
    returned = np.zeros(n)
    for b in range(4):
        returned = returned + back[:, b]
    assert np.array_equal(after[exact], (left + returned)[exact])
    assert np.allclose(after[~exact], (left + returned)[~exact], rtol=1e-6)
    assert (after >= 0).all()


def check_settle_box_in_python(
    rules: RuleSet, rows: np.ndarray, stakes, insured, prison_before, back, result, couleur, last=None
):
    """The compiled settlement of a few tables equals the rule run as plain Python (:func:`settle_box`,
    :func:`noir_payout` with ``last``, the previous coups' result codes; default: none)."""
    refait, second, spares, rate = rule_codes(rules)
    last = np.full(len(stakes), NO_COUP) if last is None else np.asarray(last)
    for i in range(min(len(stakes), 4)):
        noir_pays = noir_payout(int(last[i]), *noir_payouts(rules))
        for b in range(4):
            out = settle_box(
                b, (float(stakes[i, b]), bool(insured[i, b]), bool(rows[i, 8 + b] > 0.5)),
                (float(prison_before[i, b, 0]), float(prison_before[i, b, 1])), int(result[i]), bool(couleur[i] == 0),
                (refait, second, spares, rate), noir_pays if b == 0 else rules.payouts[b],
            )  # fmt: skip
            assert out[0] == back[i, b]


def check_rows(shoes: np.ndarray, start, middle, end, noir, rouge) -> None:
    """Each row's total is the sum of its cards, over 30 and at most 40 (0: the shoe ran out)."""
    values = np.concatenate(
        [np.zeros((shoes.shape[0], 1), np.int16), np.cumsum(CARD_VALUE[shoes], axis=1, dtype=np.int16)], axis=1
    )
    rows = np.arange(shoes.shape[0])
    decided = noir > 0
    noir_sum = values[rows, middle] - values[rows, start]
    rouge_sum = values[rows, end] - values[rows, middle]
    assert np.array_equal(noir_sum[decided], noir[decided]) and np.array_equal(rouge_sum[decided], rouge[decided])
    assert ((noir[decided] >= 31) & (noir[decided] <= 40) & (rouge[decided] >= 31) & (rouge[decided] <= 40)).all()
    assert (start < middle).all() and (middle <= end).all() and (end <= shoes.shape[1]).all()


class CardsSeen:
    """The cards each table has dealt since its last shuffle: none may come out twice more than the
    shoe holds it (each card of the shoe dealt once per shuffle)."""

    def __init__(self, n: int, decks: int) -> None:
        self.decks = decks
        self.counts = np.zeros((n, 52), dtype=np.int64)

    def new_shoe(self, mask: np.ndarray | slice) -> None:
        self.counts[mask] = 0

    def deal(self, i: int, cards: tuple[int, ...] | np.ndarray) -> None:
        np.add.at(self.counts[i], np.asarray(cards, dtype=np.int64), 1)
        assert self.counts[i].max(initial=0) <= self.decks

"""Settlement: what a coup's result does to the stakes on the four boxes (docs/rules.md#ties, docs/rules.md#insurance).

The rules for one box live in :func:`settle_box`, plain Python on plain numbers. The same source is
compiled with numba for whole batches of tables (:func:`settle`), so the single environment, the
vector environment and the tournament settle with one copy of the rules.

Money flows, per box and coup (every chip is accounted for)::

    stake + premium + prisoners in  ==  back + prisoners out + bank

``back`` is what returns to the player's bankroll (a win pays ``payout`` to 1, so
``back = stake + payout * stake``: 1:1 at every real table, other payouts on the Noir box of the rigged
table, :func:`rig_payout`; freed prisoners come back unpaid), ``bank`` is the bank's take (negative
when it pays out).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from trente_env import jit
from trente_env.codes import COULEUR, NO_COUP, Result, box_won, scoreboard_couleur
from trente_env.rules import Refait, RuleSet, SecondRefait

#: The codes of the refait rules and of the second refait, as the kernels read them (:func:`rule_codes`).
_HALF, _PRISON, _CHOICE = range(3)
_LOST, _SECOND_PRISON, _STAYS = range(3)
#: A rig pattern's code for "any coup, or none" (the letter ``.`` of :attr:`RuleSet.rig_pattern`).
ANY_COUP = -1


def paid(stake: float, insured: bool, rate: float) -> float:
    """What placing ``stake`` takes from the bankroll: the stake and, if it is insured, its premium
    ``rate * stake``, summed exactly as :func:`settle_box` sums them (so every chip is counted the same
    way when it goes out and when it comes back)."""
    return stake + rate * stake if insured else stake


def rig_payout(board: np.ndarray, pattern: np.ndarray, after: float, otherwise: float) -> float:
    """What a Noir win pays to 1 on this coup (docs/rules.md#the-rigged-table-positive-control):
    ``after`` if the last coups at the table show the rig's ``pattern``, else ``otherwise`` (both 1.0
    at every real table).

    :param board: the scoreboard's :class:`~trente_env.codes.Result` codes, most recent first
        (:data:`~trente_env.codes.NO_COUP` where no coup was played yet).
    :param pattern: the codes the last coups must show, most recent first (:func:`rig_codes`):
        ``Result.NOIR``, ``Result.ROUGE``, or :data:`ANY_COUP`. A coup the board does not hold shows
        nothing but for :data:`ANY_COUP`.
    """
    for i in range(pattern.size):
        code = pattern[i]
        if code == ANY_COUP:
            continue
        if i >= board.size:
            return otherwise
        if board[i] != code:
            return otherwise
    return after


_ONE_COUP = np.array([Result.NOIR], dtype=np.int64)


def noir_payout(last_result: int, after_noir: float, otherwise: float) -> float:
    """The one-coup rig (the default pattern ``"N"``) by :func:`rig_payout`: ``after_noir`` if the
    previous coup at the table, ``last_result`` (its :class:`~trente_env.codes.Result` code, or
    :data:`~trente_env.codes.NO_COUP` on the first coup of a session), was won by Noir, else
    ``otherwise``."""
    return rig_payout(np.array([last_result], dtype=np.int64), _ONE_COUP, after_noir, otherwise)


def rig_codes(rules: RuleSet) -> np.ndarray:
    """The rig's pattern (:attr:`RuleSet.rig_pattern`) as the kernels read it: int64 codes, most
    recent coup first (:func:`rig_payout`)."""
    letter = {"N": int(Result.NOIR), "R": int(Result.ROUGE), ".": ANY_COUP}
    return np.array([letter[c] for c in reversed(rules.rig_pattern)], dtype=np.int64)


_rig_payout = jit.kernel(rig_payout)


@jit.kernel
def _rig_holds(boards, pattern, out):
    for t in range(boards.shape[0]):
        out[t] = _rig_payout(boards[t], pattern, 1.0, 0.0) == 1.0


def rig_holds(rules: RuleSet, boards: np.ndarray) -> np.ndarray:
    """Whether the rig's pattern shows on each scoreboard, ``boards`` of shape (n, history) (result
    codes, most recent first): on those coups a rigged table pays a Noir win ``noir_after_noir``
    (a fair table has a pattern too, ``"N"`` by default, which changes nothing there).

    :raises ValueError: a scoreboard shorter than the pattern.
    """
    boards = np.ascontiguousarray(np.atleast_2d(boards), dtype=np.int64)
    out = np.zeros(boards.shape[0], dtype=np.bool_)
    if boards.shape[1] < len(rules.rig_pattern):
        k = len(rules.rig_pattern)
        raise ValueError(f"the rig reads the last {k} coups: a scoreboard of {boards.shape[1]} is too short")
    _rig_holds(boards, rig_codes(rules), out)
    return out


def settle_box(
    box: int,
    stake: float,
    insured: bool,
    prison1: float,
    prison2: float,
    to_prison: bool,
    result: int,
    couleur: bool,
    refait_rule: int,
    second_refait: int,
    spares_couleur: bool,
    rate: float,
    payout: float,
) -> tuple[float, float, float, float]:
    """Settle one box. Returns (back, prison level 1, prison level 2, bank).

    :param box: the box's index (:data:`~trente_env.codes.NOIR` ... :data:`~trente_env.codes.INVERSE`).
    :param stake: the new stake placed on the box for this coup.
    :param insured: whether that stake is insured against the refait (premium ``rate * stake``).
    :param prison1: stakes in (first) prison on this box from earlier coups.
    :param prison2: stakes in second prison (``second_prison`` rule): two wins in a row free them.
    :param to_prison: under the ``choice`` rule, the player's pick if a refait comes: True for
        prison, False for half.
    :param result: the coup's :class:`~trente_env.codes.Result` code.
    :param couleur: whether Couleur (rather than Inverse) wins; ignored on ties and void coups.
    :param payout: what a winning stake on this box is paid, to 1 (1.0 but on the rigged table's Noir
        box, :func:`rig_payout`); prisoners freed by the win come back unpaid whatever it is.
    """
    premium = rate * stake if insured else 0.0
    if result == Result.VOID:  # every bet is returned, the premium too; prisoners wait
        return stake + premium, prison1, prison2, 0.0
    if result == Result.APRES:  # void for every box; the stake comes back to be placed again
        return stake, prison1, prison2, premium
    if result == Result.REFAIT:
        back = 0.0
        bank = premium
        jailed = 0.0
        if insured or (spares_couleur and box >= COULEUR):
            back = stake
        elif refait_rule == _HALF or (refait_rule == _CHOICE and not to_prison):
            back = stake / 2
            bank += stake - back
        else:
            jailed = stake
        if second_refait == _LOST:
            return back, jailed, 0.0, bank + prison1 + prison2
        if second_refait == _SECOND_PRISON:
            return back, jailed, prison1, bank + prison2
        return back, prison1 + jailed, prison2, bank  # stays
    if box_won(box, result, scoreboard_couleur(result, couleur)):
        # paid payout:1; first prison freed unpaid, second prison moves up to the first
        return stake + payout * stake + prison1, prison2, 0.0, premium - payout * stake
    return 0.0, 0.0, 0.0, stake + premium + prison1 + prison2


_settle_box = jit.kernel(settle_box)
_paid = jit.kernel(paid)


@jit.kernel
def _settle_tables(
    stakes, insured, prison, to_prison, result, couleur, last, pattern, rig, refait_rule, second_refait, spares, rate
):
    n = stakes.shape[0]
    back = np.empty_like(stakes)
    new_prison = np.empty_like(prison)
    bank = np.zeros(n)
    for t in range(n):
        noir_pays = _rig_payout(last[t], pattern, rig[0], rig[1])
        for b in range(stakes.shape[1]):
            r = _settle_box(
                b, stakes[t, b], insured[t, b], prison[t, b, 0], prison[t, b, 1], to_prison[t, b],
                result[t], couleur[t], refait_rule, second_refait, spares, rate, noir_pays if b == 0 else 1.0,
            )  # fmt: skip
            back[t, b] = r[0]
            new_prison[t, b, 0] = r[1]
            new_prison[t, b, 1] = r[2]
            bank[t] += r[3]
    return back, new_prison, bank


class Settlement(NamedTuple):
    """The outcome of settling one or many tables."""

    back: np.ndarray  #: (..., 4) money returned to the player per box, stakes and winnings
    prison: np.ndarray  #: (..., 4, 2) stakes left in first and second prison per box
    bank: np.ndarray  #: (...,) the bank's take, negative when it pays out


def rule_codes(rules: RuleSet) -> tuple[int, int, bool, float]:
    """The rule options the kernels read: (refait rule, second refait, spares couleur, rate)."""
    refait = {Refait.HALF: _HALF, Refait.PRISON: _PRISON, Refait.CHOICE: _CHOICE}[rules.refait]
    second = {SecondRefait.LOST: _LOST, SecondRefait.SECOND_PRISON: _SECOND_PRISON, SecondRefait.STAYS: _STAYS}
    return refait, second[rules.second_refait], rules.refait_spares_couleur, float(rules.insurance_rate)


def settle(
    rules: RuleSet,
    stakes: np.ndarray,
    result: np.ndarray,
    couleur: np.ndarray,
    *,
    insured: np.ndarray | None = None,
    prison: np.ndarray | None = None,
    to_prison: np.ndarray | None = None,
    last: np.ndarray | int | None = None,
) -> Settlement:
    """Settle a coup on one table (``stakes`` of shape (4,)) or on many (shape (n, 4)).

    :param stakes: new stakes on Noir, Rouge, Couleur, Inverse.
    :param result: :class:`~trente_env.codes.Result` code(s) of the coup(s).
    :param couleur: whether Couleur wins, per coup.
    :param insured: which stakes are insured (default none).
    :param prison: stakes in first and second prison, shape (..., 4, 2) (default none).
    :param to_prison: under the ``choice`` rule, which stakes go to prison on a refait (default
        none: half). Ignored by the other rules.
    :param last: the result code of the previous coup at each table, shape (n,), or each table's
        scoreboard, shape (n, k), most recent first (default :data:`~trente_env.codes.NO_COUP`: none);
        only a rigged table's Noir payout reads it (:func:`rig_payout`).
    """
    stakes = np.asarray(stakes, dtype=np.float64)
    single = stakes.ndim == 1
    if stakes.shape[-1:] != (4,) or stakes.ndim > 2:
        raise ValueError(f"stakes are 4 numbers (Noir, Rouge, Couleur, Inverse) per table, got shape {stakes.shape}")
    stakes = np.atleast_2d(stakes)
    n = stakes.shape[0]
    insured = _bools(insured, stakes.shape) & rules.insurance
    to_prison = _bools(to_prison, stakes.shape)
    prison = np.zeros((n, 4, 2)) if prison is None else np.asarray(prison, dtype=np.float64).reshape(n, 4, 2)
    result = np.broadcast_to(np.asarray(result, dtype=np.int8), (n,))
    if ((result < 0) | (result > Result.VOID)).any():
        raise ValueError(f"result codes are 0..{int(Result.VOID)} (see trente_env.codes.Result)")
    couleur = np.broadcast_to(np.asarray(couleur, dtype=np.bool_), (n,))
    last = np.asarray(NO_COUP if last is None else last, dtype=np.int64)
    last = last.reshape(-1, 1) if last.ndim < 2 else last  # one previous coup per table, or a scoreboard
    last = np.ascontiguousarray(np.broadcast_to(last, (n, last.shape[1])))
    rig = np.array([rules.noir_after_noir, rules.noir_otherwise])
    out = _settle_tables(
        stakes, insured, prison, to_prison, result, couleur, last, rig_codes(rules), rig, *rule_codes(rules)
    )
    return Settlement(*(a[0] for a in out)) if single else Settlement(*out)


def _bools(values: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    if values is None:
        return np.zeros(shape, dtype=np.bool_)
    return np.broadcast_to(np.asarray(values, dtype=np.bool_), shape)

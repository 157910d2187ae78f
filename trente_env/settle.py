"""Settlement: what a coup's result does to the stakes on the four boxes (docs/rules.md#ties, docs/rules.md#insurance),
and what the refait rules are worth (docs/rules.md#house-edges).

The rules for one box live in :func:`settle_box`, plain Python on plain numbers. The same source is
compiled with numba for whole batches of tables (:func:`settle`), so the single environment, the
vector environment and the tournament settle with one copy of the rules.

Money flows, per box and coup (every chip is accounted for)::

    stake + premium + prisoners in  ==  back + prisoners out + bank

``back`` is what returns to the player's bankroll (a win pays ``payout`` to 1, so
``back = stake + payout * stake``: the box's :attr:`~trente_env.rules.RuleSet.payouts`, 1:1 at every
real table, other payouts on the Noir box of the rigged table, :func:`rig_payout`; freed prisoners
come back unpaid), ``bank`` is the bank's take (negative when it pays out).

**The rules' arithmetic, in one place.** What a stake caught by the refait is worth per unit under
each refait rule (:func:`refait_value`, from the share a partage takes, :func:`partage_share`, and
whether the stake goes to prison, :func:`imprisoned`), what a prisoner is worth (:func:`prisoner_value`),
and the rule in words (:func:`refait_words`): the settlement, the exact house edges
(:mod:`trente_env.odds`), the card counters' expected gains (:mod:`trente_env.counting.advantage`)
and the teaching table read them from here. A new refait rule is a member of
:class:`~trente_env.rules.Refait` and of :class:`~trente_env.codes.RefaitCode`, and its case in these
functions.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from trente_env import jit
from trente_env.codes import COULEUR, NO_COUP, RefaitCode, Result, SecondRefaitCode, box_won, scoreboard_couleur
from trente_env.rules import Refait, RuleSet

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


_rig_payout = jit.inner(rig_payout)  # (compiled callers only: no entry point for Python)


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


# -- what the refait rules are worth ------------------------------------------------------------------


@jit.hot
def partage_share(refait_rule: int) -> float:
    """The share of a stake a partage takes (:class:`~trente_env.codes.RefaitCode`): a quarter under
    ``QUARTER``, half otherwise (``HALF``, and ``CHOICE`` when the player picks half). A power of two,
    so ``stake * share`` is exact."""
    if refait_rule == RefaitCode.QUARTER:
        return 0.25
    return 0.5


@jit.hot
def imprisoned(refait_rule: int, to_prison: bool) -> bool:
    """Whether a stake caught by the refait goes to prison (rather than a partage) under the rule
    ``refait_rule``; ``to_prison`` is the player's pick under ``CHOICE``."""
    return (refait_rule == RefaitCode.PRISON) | ((refait_rule == RefaitCode.CHOICE) & to_prison)


@jit.hot
def refait_value(refait_rule: int, prisoner: float) -> float:
    """What a stake caught by the refait is worth, per unit, under the rule ``refait_rule``
    (:class:`~trente_env.codes.RefaitCode`): what a partage leaves (``1 - partage_share``), the
    prisoner's value ``prisoner`` (:func:`prisoner_value`) under prison, the better of the two under the
    player's choice. An insured or spared stake is worth 1 whatever the rule."""
    kept = 1.0 - partage_share(refait_rule)
    if refait_rule == RefaitCode.PRISON:
        return prisoner
    if refait_rule == RefaitCode.CHOICE:
        return max(kept, prisoner)
    return kept


@jit.hot
def prisoner_value(
    win: float, apres: float, refait: float, second_refait: int, void: float = 0.0, fresh1: float = 0.0,
    fresh2: float = 0.0,
) -> float:  # fmt: skip
    """The value, per unit, of a stake in first prison on a box that wins with ``win`` on each coup,
    ties in an après with ``apres`` (the prisoner waits) and hits a refait with ``refait``, under the
    second-refait rule ``second_refait`` (:class:`~trente_env.codes.SecondRefaitCode`); anything else
    loses it, but for a void coup (chance ``void``), which sends it to a fresh shoe where it is worth
    ``fresh1`` (first prison) or ``fresh2`` (second prison).

    With ``w = 1 - apres``, the first prison is worth ``V1 = (win + void F1 + refait X) / w``, where
    ``X`` is what a second refait leaves: 0 (``LOST``), V1 (``STAYS``), or the second prison
    ``V2 = (win V1 + void F2) / w`` (``SECOND_PRISON``; a third refait loses it). A coup that can only
    tie (``w`` or the denominator 0) leaves the prisoner to the fresh shoe: ``fresh1``.
    """
    wait = 1.0 - apres
    if wait <= 1e-12:
        return fresh1
    if second_refait == SecondRefaitCode.LOST:
        return (win + void * fresh1) / wait
    if second_refait == SecondRefaitCode.STAYS:
        if wait - refait <= 1e-12:
            return fresh1
        return (win + void * fresh1) / (wait - refait)
    denominator = wait - refait * win / wait
    if denominator <= 1e-12:
        return fresh1
    return (win + void * fresh1 + refait * void * fresh2 / wait) / denominator


def refait_words(rules: RuleSet) -> str:
    """What a refait does to an uninsured stake under ``rules``, in a sentence for players (the
    teaching table's help and its answer to ``choose``)."""
    if rules.refait is Refait.PRISON:
        return "a refait sends each stake to prison, to be freed (not paid) if its box wins the next coup"
    if rules.refait is Refait.CHOICE:
        return "on a refait you choose half (partage) or prison for your stakes (see choose)"
    return f"a refait takes {partage_words(rules)} (partage)"


#: The share a partage takes (:func:`partage_share`) in English and in French: every page's words for it.
SHARE_WORDS = {0.5: ("half", "la moitié"), 0.25: ("a quarter", "le quart")}


def share_words(rules: RuleSet) -> tuple[str, str]:
    """The share a partage takes under ``rules`` in English and in French (:data:`SHARE_WORDS`):
    ``("half", "la moitié")``."""
    return SHARE_WORDS[partage_share(int(refait_code(rules)))]


def partage_words(rules: RuleSet) -> str:
    """What a partage takes under ``rules`` (:func:`partage_share`), in words: "half of each stake",
    "a quarter of each stake"."""
    return share_words(rules)[0] + " of each stake"


def refait_code(rules: RuleSet) -> RefaitCode:
    """The refait rule of ``rules`` as the kernels read it (the code of the same name)."""
    return RefaitCode[rules.refait.name]


def second_refait_code(rules: RuleSet) -> SecondRefaitCode:
    """The second-refait rule of ``rules`` as the kernels read it (the code of the same name)."""
    return SecondRefaitCode[rules.second_refait.name]


# -- settling a box ----------------------------------------------------------------------------------


def settle_box(
    box: int,
    bet: tuple[float, bool, bool],
    prisoners: tuple[float, float],
    result: int,
    couleur: bool,
    codes: tuple[int, int, bool, float],
    payout: float,
) -> tuple[float, float, float, float]:
    """Settle one box. Returns (back, prison level 1, prison level 2, bank).

    :param box: the box's index (:data:`~trente_env.codes.NOIR` ... :data:`~trente_env.codes.INVERSE`).
    :param bet: (stake, insured, to_prison): the new stake placed on the box for this coup; whether
        it is insured against the refait (premium ``rate * stake``); under the ``choice`` rule, the
        player's pick if a refait comes (True for prison, False for half).
    :param prisoners: (first, second): stakes in (first) prison on this box from earlier coups, and
        in second prison (``second_prison`` rule), which two wins in a row free.
    :param result: the coup's :class:`~trente_env.codes.Result` code.
    :param couleur: whether Couleur (rather than Inverse) wins; ignored on ties and void coups.
    :param codes: the rule options as the kernels read them (:func:`rule_codes`): refait rule,
        second refait, spares couleur, insurance rate.
    :param payout: what a winning stake on this box is paid, to 1 (the box's
        :attr:`~trente_env.rules.RuleSet.payouts`, or on the rigged table's Noir box :func:`rig_payout`);
        prisoners freed by the win come back unpaid whatever it is.
    """
    stake, insured, to_prison = bet
    prison1, prison2 = prisoners
    refait_rule, second_refait, spares_couleur, rate = codes
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
        elif imprisoned(refait_rule, to_prison):
            jailed = stake
        else:  # a partage: the share is a power of two, so both parts are exact
            taken = stake * partage_share(refait_rule)
            back = stake - taken
            bank += taken
        if second_refait == SecondRefaitCode.LOST:
            return back, jailed, 0.0, bank + prison1 + prison2
        if second_refait == SecondRefaitCode.SECOND_PRISON:
            return back, jailed, prison1, bank + prison2
        return back, prison1 + jailed, prison2, bank  # stays
    if box_won(box, result, scoreboard_couleur(result, couleur)):
        # paid payout:1; first prison freed unpaid, second prison moves up to the first
        return stake + payout * stake + prison1, prison2, 0.0, premium - payout * stake
    return 0.0, 0.0, 0.0, stake + premium + prison1 + prison2


_settle_box = jit.inner(settle_box)
_paid = jit.kernel(paid)


@jit.kernel
def _settle_tables(bets, coups, pays, codes):
    """Settle every table: ``bets`` (stakes, insured, prison, to_prison), ``coups`` (result, couleur,
    scoreboard), ``pays`` (the rig's pattern, the two Noir payouts, every box's payout) and ``codes``
    (:func:`rule_codes`)."""
    stakes, insured, prison, to_prison = bets
    result, couleur, last = coups
    pattern, rig, payouts = pays
    n = stakes.shape[0]
    back = np.empty_like(stakes)
    new_prison = np.empty_like(prison)
    bank = np.zeros(n)
    for t in range(n):
        noir_pays = _rig_payout(last[t], pattern, rig[0], rig[1])
        for b in range(stakes.shape[1]):
            bet = (stakes[t, b], insured[t, b], to_prison[t, b])
            pays = noir_pays if b == 0 else payouts[b]
            r = _settle_box(b, bet, (prison[t, b, 0], prison[t, b, 1]), result[t], couleur[t], codes, pays)
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
    """The rule options the kernels read: (refait rule, second refait, spares couleur, rate), the
    rules as their codes (:func:`refait_code`, :func:`second_refait_code`)."""
    refait, second = int(refait_code(rules)), int(second_refait_code(rules))
    return refait, second, rules.refait_spares_couleur, float(rules.insurance_rate)


def noir_payouts(rules: RuleSet) -> tuple[float, float]:
    """What a Noir win pays, to 1, as the kernels read it: (right after the rig's pattern, otherwise);
    the rigged table's two payouts, or the Noir box's payout twice at a fair table."""
    if rules.rigged:
        return rules.noir_after_noir, rules.noir_otherwise
    return rules.payouts[0], rules.payouts[0]


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
    rig = np.array(noir_payouts(rules))
    payouts = np.array(rules.payouts)
    out = _settle_tables(
        (stakes, insured, prison, to_prison),
        (result, couleur, last),
        (rig_codes(rules), rig, payouts),
        rule_codes(rules),
    )
    return Settlement(*(a[0] for a in out)) if single else Settlement(*out)


def _bools(values: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    if values is None:
        return np.zeros(shape, dtype=np.bool_)
    return np.broadcast_to(np.asarray(values, dtype=np.bool_), shape)

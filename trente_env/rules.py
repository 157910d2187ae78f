"""Rule sets: every house rule of the game as one immutable, validated value (docs/rules.md#rule-presets).

What the rules are worth lives in :mod:`trente_env.settle` (what a refaited stake and a prisoner are
worth, and the rule in words); the codes the kernels read in :mod:`trente_env.codes`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from trente_env.cards import CARDS_PER_DECK
from trente_env.codes import BOXES, NOIR
from trente_env.whole import checked_whole

#: The largest bankroll, stake or table limit anything accepts, in units: float64 holds every whole
#: unit below it exactly, and stakes counted in int64 units cannot overflow.
MAX_MONEY = 10**12
#: The most a rigged table's Noir win may pay, to 1.
MAX_PAYOUT = 100.0
#: The longest pattern of past coups a rigged table's Noir payout may read (:attr:`RuleSet.rig_pattern`).
MAX_RIG_MEMORY = 8
#: The letters of a rig pattern: a coup won by Noir, one won by Rouge, any coup (or none).
RIG_LETTERS = "NR."


class Refait(str, Enum):
    """What happens to a stake on a 31-31 *refait*."""

    HALF = "half"  #: partage: half the stake is lost at once, half comes back
    PRISON = "prison"  #: en prison: the stake waits on its box for the next coup
    CHOICE = "choice"  #: the player picks half or prison for each stake
    QUARTER = "quarter"  #: a gentler partage: a quarter of the stake is lost, three quarters come back


class SecondRefait(str, Enum):
    """What happens to a stake already in prison when another refait comes."""

    LOST = "lost"  #: the prisoner is lost
    SECOND_PRISON = "second_prison"  #: it goes to a second prison: two wins in a row free it
    STAYS = "stays"  #: it stays in the same prison


@dataclass(frozen=True)
class RuleSet:
    """The house rules of one table. Build it directly or from a preset with :func:`get_rules`.

    :param decks: packs of 52 cards in the shoe (1..8).
    :param cut_card: cards left behind the cut card; when it comes out the coup is finished and
        the shoe reshuffled. 0 deals the shoe to the end.
    :param burn: cards discarded face down after each shuffle.
    :param refait: the rule for stakes caught by a 31-31 refait.
    :param second_refait: the rule for a prisoner caught by another refait (prison rules only).
    :param refait_spares_couleur: Couleur and Inverse stakes are simply returned on a refait.
    :param insurance: whether stakes may be insured against the refait.
    :param insurance_rate: the insurance premium, as a fraction of the insured stake.
    :param table_min: the smallest stake a box accepts, in units.
    :param table_max: the largest stake a box accepts, in units (at most :data:`MAX_MONEY`).
    :param couleur_inverse: whether the Couleur and Inverse boxes are open.
    :param dead_cards: the last cards of the shoe, never dealt (a casino's answer to card counting):
        the shoe is dealt from its first ``n_cards - dead_cards`` cards, the cut card stays where it
        lies counted from the real end (so it comes out ``max(cut_card - dead_cards, 0)`` cards before
        the dead ones), and a coup that would need a dead card is void (every bet returned), then the
        shoe is reshuffled.
    :param noir_after_noir: what a winning Noir stake is paid, to 1, on a coup that comes right after
        the pattern ``rig_pattern`` on the scoreboard (by default, right after a coup won by Noir: hence
        the name). 1.0 (even money) in every real game: anything else is the **rigged table**, the
        positive control of the RL experiments (docs/rules.md#the-rigged-table-positive-control).
    :param noir_otherwise: what a winning Noir stake is paid, to 1, on any other coup (after a Rouge
        win, an après, a refait, a void coup, or on the first coup of a session). 1.0 in a real game.
    :param payouts: what a win pays, to 1, on Noir, Rouge, Couleur and Inverse: 1:1 (even money) at
        every real table. Each in (0, :data:`MAX_PAYOUT`]; a rigged table pays Noir by
        ``noir_after_noir``/``noir_otherwise`` instead, so its Noir payout here must stay 1.
    :param rig_pattern: the last coups that make a Noir win pay ``noir_after_noir``, oldest first, one
        letter a coup: ``N`` won by Noir, ``R`` won by Rouge, ``.`` any coup (or none yet); at most
        :data:`MAX_RIG_MEMORY` letters. ``"N"`` (the default) is the one-coup rig, right after a Noir
        win; ``"NRN"`` pays right after Noir, Rouge, Noir, the last coup a Noir win. Read only by a
        rigged table; the scoreboard must keep at least as many coups as the pattern has letters.
    """

    decks: int = 6
    cut_card: int = 52
    burn: int = 0
    refait: Refait = Refait.PRISON
    second_refait: SecondRefait = SecondRefait.LOST
    refait_spares_couleur: bool = False
    insurance: bool = True
    insurance_rate: float = 0.01
    table_min: float = 1.0
    table_max: float = 1000.0
    couleur_inverse: bool = True
    dead_cards: int = 0
    noir_after_noir: float = 1.0
    noir_otherwise: float = 1.0
    rig_pattern: str = "N"
    payouts: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "refait", Refait(self.refait))
            object.__setattr__(self, "second_refait", SecondRefait(self.second_refait))
        except ValueError as exc:
            raise ValueError(f"{exc}; choose one of {_choices(Refait)} / {_choices(SecondRefait)}") from None
        for name in ("decks", "cut_card", "burn", "dead_cards"):
            value = getattr(self, name)
            checked_whole(value, f"{name} must be a whole number, got {value!r}", numpy=False)
        if not 1 <= self.decks <= 8:
            raise ValueError(f"decks must be between 1 and 8, got {self.decks}")
        if self.cut_card < 0 or self.burn < 0 or self.dead_cards < 0:
            raise ValueError(
                f"cut_card, burn and dead_cards cannot be negative (cut_card={self.cut_card}, burn={self.burn}, "
                f"dead_cards={self.dead_cards})"
            )
        if self.burn + max(self.cut_card, self.dead_cards) >= self.n_cards:
            dead = f", {self.dead_cards} dead cards" if self.dead_cards else ""
            raise ValueError(
                f"cut card {self.cut_card}{dead} and burn {self.burn} leave no cards to deal "
                f"from a {self.n_cards}-card shoe"
            )
        if not 0 <= self.insurance_rate < 1:
            raise ValueError(f"insurance_rate must be in [0, 1), got {self.insurance_rate}")
        if not 0 < self.table_min <= self.table_max:
            raise ValueError(f"need 0 < table_min <= table_max, got min {self.table_min} and max {self.table_max}")
        if not self.table_max <= MAX_MONEY:
            raise ValueError(
                f"table_max must be a finite number of units, at most {MAX_MONEY:.0e}, got {self.table_max!r}"
            )

        for name in ("noir_after_noir", "noir_otherwise"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_PAYOUT:
                raise ValueError(f"{name} is what a Noir win pays to 1: a number in (0, {MAX_PAYOUT}], got {value!r}")
            object.__setattr__(self, name, float(value))
        payouts = self.payouts
        if (
            isinstance(payouts, (str, bytes))
            or not hasattr(payouts, "__len__")
            or len(payouts) != len(BOXES)
            or any(isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= MAX_PAYOUT for p in payouts)
        ):
            raise ValueError(
                f"payouts are what a win pays to 1 on Noir, Rouge, Couleur and Inverse: four numbers in "
                f"(0, {MAX_PAYOUT}], got {payouts!r}"
            )
        object.__setattr__(self, "payouts", tuple(float(p) for p in payouts))
        if self.rigged and self.payouts[NOIR] != 1.0:
            raise ValueError(
                "a rigged table pays Noir by noir_after_noir and noir_otherwise: leave its Noir payout at 1"
            )
        pattern = self.rig_pattern
        if (
            not isinstance(pattern, str)
            or not 1 <= len(pattern) <= MAX_RIG_MEMORY
            or any(letter not in RIG_LETTERS for letter in pattern)
        ):
            raise ValueError(
                f"rig_pattern is the last coups that make the rig pay, oldest first: 1 to {MAX_RIG_MEMORY} of the "
                f"letters N (Noir won), R (Rouge won) and . (any coup), got {pattern!r}"
            )

    @property
    def rig_memory(self) -> int:
        """How many past coups the rig reads: the letters of :attr:`rig_pattern` (0 on a fair table)."""
        return len(self.rig_pattern) if self.rigged else 0

    @property
    def rigged(self) -> bool:
        """Whether this is a rigged table (a positive control, never a real game): a Noir win is not
        paid even money."""
        return self.noir_after_noir != 1.0 or self.noir_otherwise != 1.0

    @property
    def n_cards(self) -> int:
        return self.decks * CARDS_PER_DECK

    @property
    def boxes(self) -> tuple[str, ...]:
        """The open boxes, in layout order."""
        return BOXES if self.couleur_inverse else BOXES[:2]

    def replace(self, **changes: object) -> RuleSet:
        """A copy with some options changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def describe(self) -> str:
        """One line in the croupier's terms."""
        refait = {
            Refait.HALF: "refait: half the stake lost (partage)",
            Refait.PRISON: f"refait: en prison, second refait {self.second_refait.value.replace('_', ' ')}",
            Refait.CHOICE: f"refait: player's choice of half or prison (second refait {self.second_refait.value})",
            Refait.QUARTER: "refait: a quarter of the stake lost (partage)",
        }[self.refait]
        parts = [
            f"{self.decks} decks",
            f"cut card {self.cut_card} from the end" if self.cut_card else "dealt to the end",
            refait,
            f"insurance {self.insurance_rate:.0%}" if self.insurance else "no insurance",
            f"table {self.table_min:g}-{self.table_max:g}",
        ]
        if self.burn:
            parts.insert(1, f"{self.burn} burnt")
        if self.dead_cards:
            parts.insert(2 if self.burn else 1, f"the last {self.dead_cards} cards dead")
        if not self.couleur_inverse:
            parts.append("Noir/Rouge only")
        elif self.refait_spares_couleur:
            parts.append("Couleur/Inverse returned on a refait")
        if any(p != 1.0 for p in self.payouts):
            paid = ", ".join(f"{box.capitalize()} {payout_odds(p)}" for box, p in zip(self.boxes, self.payouts))
            parts.append(f"paid {paid}")
        text = ", ".join(parts)
        if self.rigged:
            text = (
                f"RIGGED (positive control): a Noir win pays {self.noir_after_noir:g} to 1 right after "
                f"{rig_condition(self.rig_pattern, short=False)} and {self.noir_otherwise:g} to 1 otherwise; " + text
            )
        return text


_CLASSIC = RuleSet()
PRESETS: dict[str, RuleSet] = {
    "classic": _CLASSIC,
    "partage": _CLASSIC.replace(refait=Refait.HALF),
    "choice": _CLASSIC.replace(refait=Refait.CHOICE),
    "family": RuleSet(decks=2, cut_card=26, refait=Refait.HALF, insurance=False),
    "main-bets": _CLASSIC.replace(couleur_inverse=False),
    "lenient-couleur": _CLASSIC.replace(refait_spares_couleur=True),
    "exhaustion": _CLASSIC.replace(cut_card=0),
    "second-prison": _CLASSIC.replace(second_refait=SecondRefait.SECOND_PRISON),
    "dead-cards": _CLASSIC.replace(cut_card=0, dead_cards=5),
}
PRESET_NOTES: dict[str, str] = {
    "classic": "Monte Carlo: 6 decks, prison, a second refait loses the prisoner, 1% insurance",
    "partage": "as classic, but a refait takes half of each stake",
    "choice": "as classic, but the player chooses half or prison for each stake",
    "family": "home game: 2 decks, cut card 26 from the end, half, no insurance",
    "main-bets": "classic with Couleur/Inverse removed (Noir vs Rouge only)",
    "lenient-couleur": "classic, but Couleur/Inverse stakes are returned on a refait",
    "exhaustion": "classic dealt to the end of the shoe: where card counting could matter",
    "second-prison": "classic, but a second refait sends the prisoner to a second prison",
    "dead-cards": "classic dealt to the end but for the last 5 cards, never dealt: the casino's answer to counting",
}


#: A preset called ``rigged-<preset>`` is the preset's table rigged as the positive control.
RIGGED_PREFIX = "rigged-"
#: The positive control's payouts (docs/rules.md#the-rigged-table-positive-control; in words,
#: :func:`rig_payouts`): a Noir win pays more than even money right after a Noir win and less
#: otherwise. With the first-coup odds and coups taken as independent
#: (:func:`trente_env.odds.rig_expectations`, whose figures docs/rules.md prints), always betting Noir
#: loses more than the fair edge, every other box loses its fair edge, and only a stake on Noir right
#: after a Noir win gains: every unconditional policy loses, and only one that reads the scoreboard wins.
RIG = {"noir_after_noir": 1.5, "noir_otherwise": 0.5}
#: The three-coup rig (the ``rig-3`` level of :mod:`trente_env.levels`): the same payouts as :data:`RIG`,
#: but a Noir win is paid ``noir_after_noir`` only right after Noir, Rouge, Noir (oldest first). Under the same model a
#: policy that reads fewer than the last three coups sees the pattern complete at most ``P(Noir)`` or
#: ``P(Rouge)`` of the time it hopes for it, so it is paid below even money on Noir and loses on every
#: box; only a policy that reads the last three coups gains (docs/levels.md#rig-3).
RIG3 = {**RIG, "rig_pattern": "NRN"}
#: ``rigged-<preset>`` for every preset: the positive control, never a real game and never the default.
RIGGED_PRESETS: dict[str, RuleSet] = {RIGGED_PREFIX + name: rules.replace(**RIG) for name, rules in PRESETS.items()}


def payout_odds(payout: float) -> str:
    """A payout to 1 as the odds a croupier says: 1.5 is "3:2", 0.5 "1:2", 1 "1:1" (even money), 2
    "2:1"; a payout no fraction of small terms (up to 100) writes exactly is "<payout>:1"."""
    odds = Fraction(payout).limit_denominator(100)
    if abs(float(odds) - payout) > 1e-12 * payout:
        return f"{payout:g}:1"
    return f"{odds.numerator}:{odds.denominator}"


_LETTER_WORDS = {"N": "Noir", "R": "Rouge", ".": "any coup"}


def rig_condition(pattern: str, short: bool = True) -> str:
    """The coups a rig pattern waits for, in words: "N" is "a Noir win" (``short``) or "a coup won by
    Noir"; "NRN" is "Noir, Rouge, Noir (the last three coups, oldest first)"."""
    if pattern == "N":
        return "a Noir win" if short else "a coup won by Noir"
    if pattern == "R":
        return "a Rouge win" if short else "a coup won by Rouge"
    words = ", ".join(_LETTER_WORDS[letter] for letter in pattern)
    return f"{words} (the last {len(pattern)} coups, oldest first)"


def rig_payouts(rules: RuleSet) -> str:
    """What a rigged table pays a Noir win, from its rule set: "Noir paid 3:2 right after a Noir win,
    else 1:2" (the coups it waits for: :attr:`RuleSet.rig_pattern`, :func:`rig_condition`)."""
    return (
        f"Noir paid {payout_odds(rules.noir_after_noir)} right after {rig_condition(rules.rig_pattern)}, "
        f"else {payout_odds(rules.noir_otherwise)}"
    )


RIGGED_NOTES: dict[str, str] = {
    name: f"POSITIVE CONTROL, not a real game: {name.removeprefix(RIGGED_PREFIX)}, {rig_payouts(rules)}"
    for name, rules in RIGGED_PRESETS.items()
}


def get_rules(preset: str | RuleSet = "classic", **changes: object) -> RuleSet:
    """The rule set named ``preset`` (see :data:`PRESETS`, and :data:`RIGGED_PRESETS` for the positive
    control), with ``changes`` applied."""
    if isinstance(preset, RuleSet):
        rules = preset
    else:
        rules = PRESETS.get(preset) or RIGGED_PRESETS.get(preset)
        if rules is None:
            raise ValueError(
                f"unknown rules preset {preset!r}; choose one of {', '.join(PRESETS)} "
                f"(or {RIGGED_PREFIX}<preset>, the positive control)"
            )
    changes = {k: v for k, v in changes.items() if v is not None}
    return rules.replace(**changes) if changes else rules


def _choices(enum: type[Enum]) -> str:
    return "|".join(member.value for member in enum)

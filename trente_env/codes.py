"""The codes and layouts every part of trente-lab shares: boxes, results, the scoreboard, the action
row and the observation. One home for each, so that the engine, the environments, the strategies
and the tournament read the same numbers the same way.

**Boxes**, in layout order: Noir, Rouge, Couleur, Inverse (:data:`BOXES`, the indices :data:`NOIR`
... :data:`INVERSE`, and the :class:`Box` enum for user-facing values).

**Results** of a coup (:class:`Result`): Noir, Rouge, après, refait, void. The scoreboard keeps the
result code of each recent coup, :data:`NO_COUP` before the first, and a Couleur column:
:data:`COULEUR_WINS`, :data:`INVERSE_WINS` or :data:`UNDECIDED` (a tie, a void coup, no coup yet).

**The action row** of one table: :data:`ACTION_WIDTH` numbers, three groups of four boxes::

    [stake Noir, stake Rouge, stake Couleur, stake Inverse,      # units      (from STAKE)
     insure Noir, ..., insure Inverse,                           # > 0.5      (from INSURE)
     prison Noir, ..., prison Inverse]                           # > 0.5      (from PRISON)

**The observation**: the parts of :data:`OBS_PARTS` (Gymnasium's sorted key order). The flat form
holds them one after the other, with the two scoreboard columns one-hot encoded:
:func:`flat_offsets`, :func:`flat_size`, :func:`flatten` and :func:`unflatten` convert between the
forms, and :func:`flat_layout` reads the scoreboard length back from a flat width.

**Rule codes**: the refait rule (:class:`RefaitCode`) and the second refait (:class:`SecondRefaitCode`)
as the compiled settlement reads them; :class:`~trente_env.rules.Refait` and
:class:`~trente_env.rules.SecondRefait` are their names in a rule set (member for member).

**Random numbers**: the SplitMix64 constants of the dealer's shuffles and of the random bettor.

:func:`scoreboard_couleur` and :func:`box_won` are compiled (:func:`trente_env.jit.hot`): the
settlement, the tables and the strategies' kernels call them coup after coup, and plain Python
calls them just as well.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum, IntEnum

import numpy as np

from trente_env import jit

# -- boxes -------------------------------------------------------------------------------------------

#: The four boxes of the layout, in order.
BOXES: tuple[str, ...] = ("noir", "rouge", "couleur", "inverse")
NOIR, ROUGE, COULEUR, INVERSE = range(4)


class Box(str, Enum):
    """A box of the layout, by name; :attr:`index` is its place in :data:`BOXES` and the action row."""

    NOIR = "noir"
    ROUGE = "rouge"
    COULEUR = "couleur"
    INVERSE = "inverse"

    @property
    def index(self) -> int:
        return BOXES.index(self.value)


# -- results and the scoreboard ----------------------------------------------------------------------


class Result(IntEnum):
    """How a coup ends. Couleur/Inverse is decided separately by the first card's colour."""

    NOIR = 0  #: the Noir row is lower
    ROUGE = 1  #: the Rouge row is lower
    APRES = 2  #: equal rows on 32..40: void for every box, stakes stay
    REFAIT = 3  #: both rows on 31
    VOID = 4  #: the shoe ran out before the coup was complete: every bet is returned


#: The scoreboard's result code of a coup not played yet (after :class:`Result`'s codes).
NO_COUP = 5
#: How many codes the scoreboard's result column takes (its one-hot width).
RESULT_CODES = 6
#: The scoreboard's Couleur column: Couleur won, Inverse won, or neither.
COULEUR_WINS, INVERSE_WINS, UNDECIDED = 0, 1, 2
#: How many codes the Couleur column takes (its one-hot width).
COULEUR_CODES = 3


@jit.hot
def scoreboard_couleur(result: int, couleur: bool) -> int:
    """The Couleur column's code of a coup from its result and whether Couleur (rather than Inverse)
    won: only a decided coup (Noir or Rouge) decides Couleur/Inverse."""
    if (result == Result.NOIR) | (result == Result.ROUGE):
        return COULEUR_WINS if couleur else INVERSE_WINS
    return UNDECIDED


@jit.hot
def box_won(box: int, result: int, couleur: int) -> bool:
    """Whether ``box`` won a coup whose result code is ``result`` and Couleur code ``couleur``
    (:func:`scoreboard_couleur`). A tie or a void coup wins for no box."""
    if box == NOIR:
        return result == Result.NOIR
    if box == ROUGE:
        return result == Result.ROUGE
    return couleur == box - COULEUR  # COULEUR_WINS for the Couleur box, INVERSE_WINS for the Inverse box


# -- rule codes --------------------------------------------------------------------------------------


class RefaitCode(IntEnum):
    """The refait rule as the kernels read it: one code per member of :class:`~trente_env.rules.Refait`,
    by the same name (what each is worth: :func:`trente_env.settle.refait_value`)."""

    HALF = 0  #: partage: half of the stake is lost
    PRISON = 1  #: en prison
    CHOICE = 2  #: the player picks half or prison
    QUARTER = 3  #: a partage that takes a quarter of the stake


class SecondRefaitCode(IntEnum):
    """The second-refait rule as the kernels read it: one code per member of
    :class:`~trente_env.rules.SecondRefait`, by the same name."""

    LOST = 0
    SECOND_PRISON = 1
    STAYS = 2


# -- the action row ----------------------------------------------------------------------------------

#: Numbers in one table's action row.
ACTION_WIDTH = 12
#: Where each group of four (one per box) starts in an action row.
STAKE, INSURE, PRISON = 0, 4, 8


def no_actions(n: int, dtype: type = np.int64) -> np.ndarray:
    """``n`` action rows that stake nothing."""
    return np.zeros((n, ACTION_WIDTH), dtype=dtype)


# -- the observation ---------------------------------------------------------------------------------

#: The parts of an observation, in Gymnasium's (sorted) key order: the flat form's order too.
OBS_PARTS: tuple[str, ...] = ("bankroll", "cards_left", "couleur", "coups", "prison", "results", "shoe")
#: The parts present only with ``observe_shoe``.
SHOE_PARTS: tuple[str, ...] = ("cards_left", "shoe")
#: The scoreboard's two columns: codes in the dict form, one-hot in the flat form.
SCOREBOARD_PARTS: tuple[str, ...] = ("couleur", "results")
#: Stakes in prison: first prison per box, then second prison per box.
PRISON_SIZE = 8
#: Unseen cards: black values 1..10, then red values 1..10.
SHOE_SIZE = 20


def part_size(part: str, history: int) -> int:
    """Numbers a part takes in the flat form (the scoreboard one-hot, ``history`` coups long)."""
    sizes = {
        "bankroll": 1,
        "cards_left": 1,
        "coups": 1,
        "couleur": COULEUR_CODES * history,
        "prison": PRISON_SIZE,
        "results": RESULT_CODES * history,
        "shoe": SHOE_SIZE,
    }
    return sizes[part]


def scoreboard_codes(part: str) -> int:
    """How many codes a scoreboard column takes: its one-hot width per coup."""
    return COULEUR_CODES if part == "couleur" else RESULT_CODES


def parts(observe_shoe: bool) -> tuple[str, ...]:
    """The parts of an observation, in order, with or without the shoe."""
    return OBS_PARTS if observe_shoe else tuple(p for p in OBS_PARTS if p not in SHOE_PARTS)


def flat_offsets(history: int, observe_shoe: bool) -> dict[str, int]:
    """Where each part starts in a flat observation."""
    offsets, at = {}, 0
    for part in parts(observe_shoe):
        offsets[part] = at
        at += part_size(part, history)
    return offsets


def flat_size(history: int, observe_shoe: bool) -> int:
    """Numbers in a flat observation: ``10 + 9 history``, or ``31 + 9 history`` with the shoe."""
    return sum(part_size(part, history) for part in parts(observe_shoe))


def flat_layout(width: int) -> tuple[int, bool]:
    """The (history, observe_shoe) of a flat observation ``width`` numbers wide.

    :raises ValueError: no layout has that width.
    """
    step = COULEUR_CODES + RESULT_CODES
    for shoe in (False, True):
        fixed = flat_size(0, shoe)
        if width > fixed and (width - fixed) % step == 0:
            return (width - fixed) // step, shoe
    raise ValueError(f"a flat observation of {width} numbers is not one of TrenteEtQuarante-v0's")


def flatten(
    observation: Mapping[str, np.ndarray], history: int | None = None, observe_shoe: bool | None = None
) -> np.ndarray:
    """A batch of dict observations in the flat form: the parts in order, the scoreboard one-hot.

    ``history`` keeps the first (most recent) coups of a longer scoreboard (default: all of it);
    ``observe_shoe`` False leaves the shoe's parts out (default: as the observation has them).
    The result equals ``gymnasium.spaces.flatten`` of each observation, row by row.
    """
    results = np.asarray(observation["results"])
    n = results.shape[0]
    k = results.shape[1] if history is None else history
    out = []
    for part in parts("shoe" in observation if observe_shoe is None else observe_shoe):
        value = np.asarray(observation[part])
        if part in SCOREBOARD_PARTS:
            width = scoreboard_codes(part)
            hot = np.zeros((n, k, width), dtype=np.float32)
            np.put_along_axis(hot, value[:, :k, None].astype(np.int64), 1.0, axis=2)
            out.append(hot.reshape(n, k * width))
        else:
            out.append(value.reshape(n, -1).astype(np.float32))
    return np.concatenate(out, axis=1)


def unflatten(flat: np.ndarray) -> dict[str, np.ndarray]:
    """A batch of flat observations in the dict form (the layout read from the width)."""
    flat = np.asarray(flat)
    history, shoe = flat_layout(flat.shape[1])
    observation = {}
    for part, at in flat_offsets(history, shoe).items():
        value = flat[:, at : at + part_size(part, history)]
        if part in SCOREBOARD_PARTS:
            observation[part] = value.reshape(-1, history, scoreboard_codes(part)).argmax(axis=2).astype(np.int64)
        else:
            observation[part] = value
    return observation


# -- random numbers ----------------------------------------------------------------------------------

#: SplitMix64's constants (Steele, Lea and Flood, 2014): the increment and the two multipliers.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)

__all__ = [
    "ACTION_WIDTH",
    "BOXES",
    "COULEUR",
    "COULEUR_CODES",
    "COULEUR_WINS",
    "GOLDEN",
    "INSURE",
    "INVERSE",
    "INVERSE_WINS",
    "MIX1",
    "MIX2",
    "NOIR",
    "NO_COUP",
    "OBS_PARTS",
    "PRISON",
    "PRISON_SIZE",
    "RESULT_CODES",
    "RefaitCode",
    "ROUGE",
    "SCOREBOARD_PARTS",
    "SHOE_PARTS",
    "SHOE_SIZE",
    "STAKE",
    "UNDECIDED",
    "Box",
    "Result",
    "SecondRefaitCode",
    "box_won",
    "flat_layout",
    "flat_offsets",
    "flat_size",
    "flatten",
    "no_actions",
    "part_size",
    "parts",
    "scoreboard_codes",
    "scoreboard_couleur",
    "unflatten",
]

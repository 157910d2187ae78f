"""Trente et Quarante (Rouge et Noir): the game engine and its Gymnasium environment.

The modules ``cards``, ``rules``, ``coup``, ``dealer``, ``settle`` and ``odds`` are the game itself
and import no gymnasium.
"""

from trente_env.coup import Coup, Result
from trente_env.dealer import Coups, Shoe, deal_coups
from trente_env.rules import PRESETS, Refait, RuleSet, SecondRefait, get_rules
from trente_env.settle import Settlement, settle

__all__ = [
    "PRESETS",
    "Coup",
    "Coups",
    "Refait",
    "Result",
    "RuleSet",
    "SecondRefait",
    "Settlement",
    "Shoe",
    "deal_coups",
    "get_rules",
    "settle",
]

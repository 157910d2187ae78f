"""Trente et Quarante (Rouge et Noir): the game engine and its Gymnasium environment.

The game itself imports no gymnasium: ``codes`` (the boxes, results, action row and observation
layout everything shares), ``cards``, ``rules``, ``coup``, ``dealer``, ``settle``, ``croupier`` (one
table's coup, compiled), ``tables`` (N tables in lockstep), ``odds`` (exact odds of any shoe and
house edges), ``counting`` (the card counters) and ``jit`` (the one compile policy). The Gymnasium
face: ``layout`` (spaces and converters), ``env``, ``vector`` and ``wrappers`` (stable-baselines3).
Importing the package registers the environments with gymnasium: ``TrenteEtQuarante-v0`` (classic
rules) and one id per rule preset, e.g. ``TrenteEtQuarante-Partage-v0``; see
:class:`trente_env.env.TrenteEtQuaranteEnv`. The graded tables with exact optima (``levels``) have
ids of their own: ``TrenteEtQuarante-Fair-v0``, ``-Rig1-v0``, ``-Rig3-v0`` and ``-Shoe-v0``
(:data:`LEVEL_NAMES`).
"""

from trente_env.codes import Result
from trente_env.coup import Coup
from trente_env.dealer import Coups, Shoe, deal_coups
from trente_env.rules import PRESETS, Refait, RuleSet, SecondRefait, get_rules
from trente_env.settle import Settlement, settle

#: Coups per session before truncation, for every registered id.
MAX_EPISODE_STEPS = 1000
#: The graded tables with exact optima (:mod:`trente_env.levels`), each registered as an id of its own.
LEVEL_NAMES = ("fair", "rig-1", "rig-3", "shoe")


def env_id(preset: str) -> str:
    """The registered id of a rules preset: ``"main-bets"`` -> ``"TrenteEtQuarante-MainBets-v0"``."""
    if preset == "classic":
        return "TrenteEtQuarante-v0"
    return "TrenteEtQuarante-" + "".join(part.capitalize() for part in preset.split("-")) + "-v0"


def _register() -> None:
    from gymnasium.envs.registration import register, registry

    kinds = (  # (names, entry point, vector entry point, the keyword that takes the name)
        (PRESETS, "trente_env.env:TrenteEtQuaranteEnv", "trente_env.vector:TrenteEtQuaranteVectorEnv", "rules"),
        (LEVEL_NAMES, "trente_env.levels:make_env", "trente_env.levels:make_vector_env", "level"),
    )
    for names, entry, vector_entry, keyword in kinds:
        for name in names:
            if env_id(name) not in registry:
                register(
                    id=env_id(name),
                    entry_point=entry,
                    vector_entry_point=vector_entry,
                    max_episode_steps=MAX_EPISODE_STEPS,
                    kwargs={keyword: name},
                )


_register()

#: The Gymnasium face, imported on first use (``trente_env.env.TrenteEtQuaranteEnv`` after a plain
#: ``import trente_env``) so that the gym-free core does not pay for it.
_FACES = ("env", "vector", "layout", "wrappers", "render")


def __getattr__(name: str) -> object:
    if name in _FACES:
        import importlib

        return importlib.import_module(f"trente_env.{name}")
    raise AttributeError(f"module 'trente_env' has no attribute {name!r}")


__all__ = [
    "LEVEL_NAMES",
    "MAX_EPISODE_STEPS",
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
    "env_id",
    "get_rules",
    "settle",
]

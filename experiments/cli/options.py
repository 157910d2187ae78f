"""The options several commands share, with their ranges checked by the parser (:mod:`experiments.limits`)."""

from __future__ import annotations

from typing import Annotated

import typer

from experiments.limits import MAX_CARDS, MAX_SEED

RulesOption = Annotated[
    str, typer.Option("--rules", "-r", help="Rules preset (see `trente-lab presets`).", show_default=True)
]
DecksOption = Annotated[
    int | None, typer.Option("--decks", min=1, max=8, help="Number of decks (1-8), overriding the preset's.")
]
CutCardOption = Annotated[
    int | None,
    typer.Option(
        "--cut-card",
        min=0,
        max=MAX_CARDS - 1,
        help="Cards behind the cut card (0: deal to the end), overriding the preset's.",
    ),
]
SeedOption = Annotated[
    int, typer.Option("--seed", "-s", min=0, max=MAX_SEED, help="Seed of the random generator.", show_default=True)
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout instead of tables.")]


__all__ = ["CutCardOption", "DecksOption", "JsonOption", "RulesOption", "SeedOption"]

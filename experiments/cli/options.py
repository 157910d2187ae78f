"""The options several commands share, with their ranges checked by the parser (:mod:`experiments.limits`)."""

from __future__ import annotations

from typing import Annotated

import typer

from experiments.limits import MAX_CARDS, MAX_SEED, MAX_WORKERS

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

BackendOption = Annotated[
    str,
    typer.Option(
        "--backend",
        help="Where the shards are played: local (this machine), dask (a Dask cluster of --workers processes on "
        "this machine), dask://HOST:PORT or dask-scheduler-file:PATH (a running Dask cluster). The numbers are the "
        "same on every backend. Dask needs the distributed extra.",
    ),
]
DaskWorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        "-w",
        min=1,
        max=MAX_WORKERS,
        help="Worker processes of --backend dask (default the CPU count); the numbers do not depend on it.",
    ),
]


__all__ = [
    "BackendOption",
    "CutCardOption",
    "DaskWorkersOption",
    "DecksOption",
    "JsonOption",
    "RulesOption",
    "SeedOption",
]

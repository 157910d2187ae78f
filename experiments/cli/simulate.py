"""``trente-lab simulate``: deal many coups and set them beside the exact odds (:mod:`experiments.game.simulate`)."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from experiments.cli.options import (
    BackendOption,
    CutCardOption,
    DaskWorkersOption,
    DecksOption,
    JsonOption,
    RulesOption,
    SeedOption,
)
from experiments.console import print_json
from experiments.limits import MAX_COUPS


def command(
    rules: RulesOption = "classic",
    coups: Annotated[
        int, typer.Option("--coups", "-n", min=1, max=MAX_COUPS, help="Number of coups to deal.")
    ] = 1_000_000,
    seed: SeedOption = 0,
    decks: DecksOption = None,
    cut_card: CutCardOption = None,
    backend: BackendOption = "local",
    workers: DaskWorkersOption = None,
    as_json: JsonOption = False,
) -> None:
    """Deal many coups and compare what came out with the exact odds (z-scores)."""
    from experiments.backends import parse_backend
    from experiments.game import simulate

    where = parse_backend(backend)
    show = not as_json and coups > simulate.CHUNK
    workers = workers or os.cpu_count() or 1
    report = simulate.simulation_report(rules, coups, seed, show, decks, cut_card, where, workers)
    if as_json:
        print_json(report)
    else:
        simulate.print_report(report)

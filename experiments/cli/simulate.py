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

MAX_FIRST_SHOES = 100_000_000  #: the most shoes whose first coup is checked (a minute or so)


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
    first_shoes: Annotated[
        int | None,
        typer.Option(
            "--first-shoes",
            min=1,
            max=MAX_FIRST_SHOES,
            help="Shoes whose first coup is set beside the exact odds (default: one per 1,000 coups, 2,000 to "
            "500,000).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Deal many coups and compare what came out with the rates expected over whole shoes, and the first
    coups of shoes with the exact first-coup odds (z-scores)."""
    from experiments.backends import parse_backend
    from experiments.game import simulate
    from experiments.rules import load_rules

    where = parse_backend(backend)
    show = not as_json and coups > simulate.CHUNK
    workers = workers or os.cpu_count() or 1
    table = load_rules(rules)
    report = simulate.simulation_report(
        table, coups, seed, show, decks, cut_card, where, workers, first_shoes=first_shoes, name=rules
    )
    if as_json:
        print_json(report)
    else:
        simulate.print_report(report)

"""``trente-lab simulate``: deal many coups and set them beside the exact odds (:mod:`experiments.game.simulate`)."""

from __future__ import annotations

from typing import Annotated

import typer

from experiments.cli.options import CutCardOption, DecksOption, JsonOption, RulesOption, SeedOption
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
    as_json: JsonOption = False,
) -> None:
    """Deal many coups and compare what came out with the exact odds (z-scores)."""
    from experiments.game import simulate

    report = simulate.simulation_report(rules, coups, seed, not as_json and coups > simulate.CHUNK, decks, cut_card)
    if as_json:
        print_json(report)
    else:
        simulate.print_report(report)

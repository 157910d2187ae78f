"""``trente-lab strategies``: every betting system, what it does and its parameters
(:mod:`experiments.game.listings`)."""

from __future__ import annotations

from typing import Annotated

import typer

from experiments.cli.options import JsonOption, RulesOption
from experiments.console import print_json


def command(
    spec: Annotated[
        str | None,
        typer.Argument(
            metavar="SPEC", help="Show one strategy, e.g. martingale:base=2,box=rouge (plugins and models run code)."
        ),
    ] = None,
    rules: RulesOption = "classic",
    as_json: JsonOption = False,
) -> None:
    """List the betting systems with their parameters, or show one from its spec.

    Showing a plugin or a model file loads it, and loading runs its code: name only ones you trust.
    """
    from experiments.game import listings

    if spec is not None:
        detail = listings.strategy_detail(spec, rules)
        if as_json:
            print_json(detail)
        else:
            listings.print_strategy(detail)
        return
    listing = listings.strategy_list()
    if as_json:
        print_json(listing)
    else:
        listings.print_strategies(listing)

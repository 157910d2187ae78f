"""``trente-lab strategies``: every betting system, what it does and its parameters
(:mod:`experiments.game.listings`)."""

from __future__ import annotations

from typing import Annotated

import typer

from experiments.cli.options import JsonOption, RulesOption
from experiments.cli.trust import TrustModelOption
from experiments.console import print_json


def command(
    spec: Annotated[
        str | None,
        typer.Argument(
            metavar="SPEC", help="Show one strategy, e.g. martingale:base=2,box=rouge (a plugin runs its code)."
        ),
    ] = None,
    rules: RulesOption = "classic",
    trust_model: TrustModelOption = False,
    as_json: JsonOption = False,
) -> None:
    """List the betting systems with their parameters, or show one from its spec.

    Showing a plugin loads it, and loading runs its code: name only ones you trust. A model file not
    saved by train is unpickled, which runs its code too: it needs --trust-model.
    """
    from experiments.game import listings
    from experiments.rules import load_rules

    table = load_rules(rules)  # the table is checked even where the listing does not depend on it
    if spec is not None:
        detail = listings.strategy_detail(spec, table, name=rules)
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

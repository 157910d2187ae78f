"""``trente-lab presets``: the named rule sets and what each means (:mod:`experiments.game.listings`)."""

from __future__ import annotations

from experiments.cli.options import JsonOption
from experiments.console import print_json


def command(as_json: JsonOption = False) -> None:
    """List the rules presets and what each means."""
    from experiments.game import listings

    table = listings.preset_table()
    if as_json:
        print_json(table)
    else:
        listings.print_presets(table)

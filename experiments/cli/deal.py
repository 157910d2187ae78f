"""``trente-lab deal``: coups laid out as the croupier lays them (:mod:`experiments.game.deal`)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from experiments.cli.options import CutCardOption, DecksOption, JsonOption, RulesOption, SeedOption
from experiments.console import out
from experiments.limits import MAX_COUPS


def command(
    coups: Annotated[int, typer.Option("--coups", "-n", min=0, max=MAX_COUPS, help="Number of coups to deal.")] = 5,
    seed: SeedOption = 0,
    rules: RulesOption = "classic",
    decks: DecksOption = None,
    cut_card: CutCardOption = None,
    as_json: JsonOption = False,
) -> None:
    """Deal a few coups and show them as the croupier lays them out (each printed as it is dealt)."""
    from experiments.game import deal
    from experiments.memory import check_room
    from experiments.rules import load_rules

    per_coup = deal.JSON_BYTES_PER_COUP if as_json else deal.TEXT_BYTES_PER_COUP
    check_room(sys.stdout, coups * per_coup, f"{coups:,} coups", "deal fewer (--coups)")
    dealt = deal.deal_coups_from_shoe(load_rules(rules), coups, seed, decks, cut_card)
    if as_json:
        deal.print_json_list(deal.coup_record(c) for c in dealt)
        return
    for i, coup in enumerate(dealt, start=1):
        out.print(deal.render_coup(coup, i))

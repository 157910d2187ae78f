"""``trente-lab count``: can counting cards beat the game? (:mod:`experiments.game.count`)."""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from experiments.cli.options import BackendOption, DaskWorkersOption, JsonOption, RulesOption, SeedOption, path_option
from experiments.console import print_json
from experiments.files import check_output_folder
from experiments.limits import MAX_CARDS, MAX_COUNT_SHOES


class Stop(str, Enum):
    """The stop rules (written out here: the help loads no engine; a test checks them)."""

    CUT_CARD = "cut-card"
    EXHAUSTION = "exhaustion"
    DEAD_CARDS = "dead-cards"


def command(
    rules: RulesOption = "classic",
    shoes: Annotated[
        int, typer.Option("--shoes", "-n", min=1, max=MAX_COUNT_SHOES, help="Shoes dealt per stop rule.")
    ] = 500,
    stops: Annotated[
        list[Stop] | None,
        typer.Option("--stop", help="A stop rule to study (repeat the option; default: all three)."),
    ] = None,
    dead_cards: Annotated[
        int,
        typer.Option("--dead-cards", min=0, max=MAX_CARDS - 1, help="Dead cards at the end of the shoe (dead-cards)."),
    ] = 5,
    seed: SeedOption = 0,
    out_dir: Annotated[
        Path | None, path_option("--out", "-o", help="Folder for count.json, best-ev.png and gain.png.")
    ] = None,
    backend: BackendOption = "local",
    workers: DaskWorkersOption = None,
    as_json: JsonOption = False,
) -> None:
    """Can counting cards beat it? Effects of removal, the best bet on offer as the shoe runs down,
    and a perfect and a linear counter's gain per shoe under three stop rules."""
    from experiments.backends import parse_backend
    from experiments.game import count
    from experiments.rules import load_rules

    if out_dir is not None:
        check_output_folder(out_dir)
    chosen = tuple(count.StopRule(s.value) for s in dict.fromkeys(stops)) if stops else count.STOP_RULES
    where = parse_backend(backend)
    table = load_rules(rules)
    report = count.count_report(
        table, shoes, seed, dead_cards, chosen, not as_json, where, workers or os.cpu_count() or 1, name=rules
    )
    paths = count.write_outputs(report, out_dir) if out_dir else []
    if as_json:
        print_json(report)
    else:
        count.print_report(report, paths)

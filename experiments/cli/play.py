"""``trente-lab play``: sit at the table (:mod:`experiments.teaching.play`)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from experiments.cli.options import RulesOption
from experiments.console import out
from experiments.limits import MAX_MONEY, MAX_SEED


def command(
    rules: RulesOption = "classic",
    bankroll: Annotated[
        float, typer.Option("--bankroll", "-b", min=1, max=MAX_MONEY, help="Units you sit down with.")
    ] = 1000.0,
    seed: Annotated[
        int | None,
        typer.Option("--seed", "-s", min=0, max=MAX_SEED, help="Seed of the shoe (default: a new shoe each time)."),
    ] = None,
    delay: Annotated[
        float, typer.Option("--delay", min=0, max=10, help="Seconds between two cards (0: no animation).")
    ] = 0.12,
) -> None:
    """Sit at an interactive table: bet with short commands (r 10, n 5, c 2, i 2, ins, deal, help, quit)."""
    from experiments.rules import load_rules
    from experiments.teaching import play

    interactive = sys.stdin.isatty()
    play.play_session(load_rules(rules), bankroll, seed, sys.stdin, out, delay if interactive else 0.0)

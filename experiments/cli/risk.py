"""``trente-lab risk``: a system's exact session risk (:mod:`experiments.risk`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from experiments.cli.options import JsonOption, RulesOption, path_option
from experiments.console import print_json
from experiments.files import check_output_file
from experiments.limits import MAX_MONEY

MAX_RISK_COUPS = 100_000  #: the most coups of an exact session (the chain's cost grows with them)


def _open_probability(value: float | None) -> float | None:
    """A probability strictly between 0 and 1 (no bankroll makes P(ruin) 0, and 1 asks for nothing)."""
    if value is not None and not 0 < value < 1:
        raise typer.BadParameter(f"{value:g} is not a probability above 0 and below 1")
    return value


_open_probability.open_range = "0<x<1"  # what the help shows as the range (the parser's is closed)


def command(
    spec: Annotated[str, typer.Argument(help="The system, as a spec: martingale, paroli:base=2, ...")],
    bankroll: Annotated[
        float, typer.Option("--bankroll", "-b", min=1, max=MAX_MONEY, help="Starting bankroll, units.")
    ] = 1000.0,
    coups: Annotated[int, typer.Option("--coups", "-n", min=0, max=MAX_RISK_COUPS, help="Coups in a session.")] = 200,
    rules: RulesOption = "classic",
    target_ruin: Annotated[
        float | None,
        typer.Option(
            "--target-ruin",
            min=0,
            max=1,
            callback=_open_probability,
            help="Also find the least bankroll with P(ruin) at most this (a probability above 0 and below 1).",
        ),
    ] = None,
    goal: Annotated[
        float | None,
        typer.Option(
            "--goal",
            min=0,
            max=MAX_MONEY,
            help="Trip form: walk away this many units ahead; P(goal before ruin).",
        ),
    ] = None,
    plot: Annotated[
        Path | None, path_option("--plot", help="Draw the final bankroll's distribution into this PNG file.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Exact P(ruin), P(ahead), return per unit staked and the final bankroll's distribution of one
    session of a system (a Markov chain; model: independent coups with the exact first-coup odds)."""
    from experiments import risk
    from experiments.rules import load_rules

    if plot is not None:
        check_output_file(plot, "--plot")
    report = risk.risk_report(spec, load_rules(rules), bankroll, coups, target_ruin=target_ruin, goal=goal, name=rules)
    if plot is not None:
        risk.plot_distribution(report, plot)
    if as_json:
        print_json(report)
    else:
        risk.print_report(report, plot)

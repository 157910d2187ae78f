"""``trente-lab report [DIR]``: one self-contained HTML page (:mod:`experiments.teaching.report`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from experiments.cli.options import SeedOption, path_argument, path_option
from experiments.console import out
from experiments.limits import MAX_COUPS, MAX_TABLES


def command(
    folder: Annotated[
        Path | None,
        path_argument(metavar="DIR", help="A tournament output folder (results.json, plots). Optional."),
    ] = None,
    output: Annotated[Path | None, path_option("--output", "-o", help="The HTML file to write.")] = None,
    rules: Annotated[
        str | None, typer.Option("--rules", "-r", help="Rules to describe (default: the tournament's, else classic).")
    ] = None,
    coups: Annotated[
        int,
        typer.Option(
            "--coups", "-n", min=1, max=MAX_COUPS, help="Coups for the fallacy table when DIR has no fallacy.json."
        ),
    ] = 1_000_000,
    seed: SeedOption = 0,
    sessions: Annotated[
        int,
        typer.Option(
            "--sessions",
            min=0,
            max=MAX_TABLES,
            help="Sessions per system in that run's betting-systems companion (0: none).",
        ),
    ] = 1000,
) -> None:
    """Write one self-contained HTML page: tournament, fallacy table, rules and a bilingual glossary."""
    from experiments.rules import load_rules
    from experiments.teaching import report

    table = load_rules(rules) if rules is not None else None  # the preset resolved once, here
    path = report.build_report(folder, output, table, coups, seed, sessions, name=rules)
    out.print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB); open it in any browser, no network needed")

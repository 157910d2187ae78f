"""``trente-lab fallacy``: the gambler's fallacy, measured (:mod:`experiments.teaching.fallacy`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from experiments.cli.options import BackendOption, DaskWorkersOption, JsonOption, RulesOption, SeedOption, path_option
from experiments.console import print_json
from experiments.files import check_output_folder
from experiments.limits import MAX_COUPS, MAX_SESSION_COUPS, MAX_TABLES


def command(
    coups: Annotated[
        int, typer.Option("--coups", "-n", min=1, max=MAX_COUPS, help="Number of coups to deal.")
    ] = 2_000_000,
    max_streak: Annotated[int, typer.Option("--max-streak", "-k", min=1, max=30, help="Longest streak shown (K).")] = 8,
    rules: RulesOption = "classic",
    seed: SeedOption = 0,
    out_dir: Annotated[
        Path | None, path_option("--out", "-o", help="Folder for fallacy.png, systems.png and fallacy.json.")
    ] = None,
    sessions: Annotated[
        int,
        typer.Option(
            "--sessions", min=0, max=MAX_TABLES, help="Sessions per betting system in the companion run (0: skip it)."
        ),
    ] = 5000,
    session_coups: Annotated[
        int, typer.Option("--session-coups", min=1, max=MAX_SESSION_COUPS, help="Coups per session.")
    ] = 400,
    backend: BackendOption = "local",
    workers: DaskWorkersOption = None,
    as_json: JsonOption = False,
) -> None:
    """Does a streak make the other side 'due'? Frequencies after k wins in a row, beside the exact odds."""
    from experiments.backends import parse_backend
    from experiments.rules import load_rules
    from experiments.teaching import fallacy

    if out_dir is not None:
        check_output_folder(out_dir)
    progress = not as_json and coups > fallacy.CHUNK
    where = parse_backend(backend)
    table = load_rules(rules)
    report = fallacy.fallacy_report(
        table,
        coups,
        max_streak,
        seed,
        progress,
        sessions,
        session_coups,
        where,
        workers or os.cpu_count() or 1,
        name=rules,
    )
    paths = fallacy.write_outputs(report, out_dir) if out_dir else []
    if as_json:
        print_json(report)
    else:
        fallacy.print_report(report, paths)

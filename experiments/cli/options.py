"""The options several commands share, with their ranges checked by the parser (:mod:`experiments.limits`),
and the one type of every path a command takes (:func:`path_value`, :func:`path_option`, :func:`path_argument`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from experiments.limits import MAX_CARDS, MAX_SEED, MAX_WORKERS

RulesOption = Annotated[
    str, typer.Option("--rules", "-r", help="Rules preset (see `trente-lab presets`).", show_default=True)
]
DecksOption = Annotated[
    int | None, typer.Option("--decks", min=1, max=8, help="Number of decks (1-8), overriding the preset's.")
]
CutCardOption = Annotated[
    int | None,
    typer.Option(
        "--cut-card",
        min=0,
        max=MAX_CARDS - 1,
        help="Cards behind the cut card (0: deal to the end), overriding the preset's.",
    ),
]
SeedOption = Annotated[
    int, typer.Option("--seed", "-s", min=0, max=MAX_SEED, help="Seed of the random generator.", show_default=True)
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout instead of tables.")]

BackendOption = Annotated[
    str,
    typer.Option(
        "--backend",
        help="Where the shards are played: local (this machine), dask (a Dask cluster of --workers processes on "
        "this machine), dask://HOST:PORT or dask-scheduler-file:PATH (a running Dask cluster). The numbers are the "
        "same on every backend. Dask needs the distributed extra.",
    ),
]
DaskWorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        "-w",
        min=1,
        max=MAX_WORKERS,
        help="Worker processes of --backend dask (default the CPU count); the numbers do not depend on it.",
    ),
]

#: The backend and the workers of the commands that play whole training runs (sweep, benchmark).
RunsBackendOption = Annotated[
    str,
    typer.Option(
        "--backend",
        help="Where the runs are played: local, dask (a Dask cluster of --workers processes on this machine), "
        "dask://HOST:PORT or dask-scheduler-file:PATH (a running Dask cluster).",
    ),
]
RunWorkersOption = Annotated[
    int, typer.Option("--workers", "-w", min=1, max=MAX_WORKERS, help="Runs played at once (one torch thread each).")
]


# -- paths ---------------------------------------------------------------------------------------

#: Why an empty path is refused, after the parser's "Invalid value for '--out': ".
EMPTY_PATH = "an empty path would be the current folder; give a path (an unset shell variable?)"


def path_value(text: str | Path) -> Path:
    """The parser of every path a command takes (``--out``, ``--resume``, ``--output``, ``--config``,
    ``--from``, a folder or file argument): the path, with an empty string (or only spaces) refused
    in one line, where ``Path("")`` would silently be the current folder."""
    if isinstance(text, Path):  # a default, already a path
        return text
    if not text.strip():
        raise typer.BadParameter(EMPTY_PATH)
    return Path(text)


def path_option(*names: str, metavar: str = "<path>", **kwargs: Any) -> Any:
    """``typer.Option(*names, **kwargs)`` for a path: parsed by :func:`path_value` (an empty path is refused)."""
    return typer.Option(*names, parser=path_value, metavar=metavar, **kwargs)


def path_argument(**kwargs: Any) -> Any:
    """``typer.Argument(**kwargs)`` for a path: parsed by :func:`path_value` (an empty path is refused)."""
    return typer.Argument(parser=path_value, **kwargs)


__all__ = [
    "BackendOption",
    "CutCardOption",
    "DaskWorkersOption",
    "DecksOption",
    "EMPTY_PATH",
    "JsonOption",
    "RulesOption",
    "SeedOption",
    "path_argument",
    "path_option",
    "path_value",
]

"""Terminal output shared by the commands: rich consoles, one-line errors, rule options."""

from __future__ import annotations

import errno
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from experiments.files import json_default
from trente_env.cards import CARDS_PER_DECK

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)

# The bounds of the number options, checked by the parser (``typer.Option(min=..., max=...)``):
#: A seed is a whole number from 0 to the largest int64 (numpy's generators and the kernels' int64).
MAX_SEED = 2**63 - 1
#: The most coups a command deals in one run (``deal``, ``simulate``, ``fallacy``, ``report``) or an
#: agent trains on: the dealing is streamed in chunks, so only time grows with it; counts summed over
#: this many coups stay far inside int64 (and a day of dealing is about 10**11 coups).
MAX_COUPS = 10**12
#: The most coups in one session: about 1,700 hours at a real table. Sessions are played
#: coup by coup and the tournament keeps sample trajectories of every coup.
MAX_SESSION_COUPS = 100_000
#: The most sessions (tables) one command plays side by side in one vector env, about 4 KB each.
MAX_TABLES = 1_000_000
#: The most sessions per system in a tournament: sessions x coups x systems stays far inside int64.
#: (Whether the machine can hold every session's totals is for the tournament to check.)
MAX_SESSIONS = 10**9
#: The most worker threads or processes a command starts.
MAX_WORKERS = 1024
#: The largest shoe: 8 decks.
MAX_CARDS = 8 * CARDS_PER_DECK

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


# Typer may ship its own copy of click: take the exception classes from the one it uses.
_click_errors = sys.modules[typer.BadParameter.__module__]
ClickException: type[Exception] = _click_errors.ClickException
NoArgsIsHelp: type[Exception] | tuple = getattr(_click_errors, "NoArgsIsHelpError", ())


def progress_bar(enabled: bool = True) -> Progress:
    """The progress bar of long work: description, bar, percentage and time left, on stderr,
    gone when done; a no-op when ``enabled`` is False (JSON output, short runs, tests) or stderr is
    not a terminal (a bar drawn into a file or a pipe is noise)."""
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeRemainingColumn(),
    )
    return Progress(*columns, console=err, transient=True, disable=not enabled or not err.is_terminal)


class BadInput(_click_errors.UsageError):
    """Input we refuse: shown as one line, exit code 2."""


def fail(message: str) -> NoReturn:
    raise BadInput(message)


def load_rules(preset: str, **changes: Any):  # -> RuleSet, imported lazily to keep --help fast
    """The rule set of ``preset`` with ``changes``; bad values become a one-line error."""
    from trente_env.rules import get_rules

    try:
        return get_rules(preset, **changes)
    except ValueError as exc:
        fail(str(exc))


def check_output_folder(path: Path, option: str = "--out") -> Path:
    """Refuse, before any work, an output folder that cannot be one: an existing file, a path
    through a file, or a place we may not write. Nothing is created."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        fail(f"{option} {str(path)!r} is a file, not a folder")
    _check_writable(path, option, str(path))
    return path


def check_output_file(path: Path, option: str = "--output") -> Path:
    """Refuse, before any work, an output file that cannot be written: an existing folder, a path
    through a file, or a place we may not write. Nothing is created."""
    path = Path(path)
    if path.is_dir():
        fail(f"{option} {str(path)!r} is a folder; give the file to write")
    _check_writable(path.absolute().parent, option, str(path))
    return path


def _check_writable(path: Path, option: str, shown: str) -> None:
    """The nearest existing folder on the way to ``path`` (``path`` itself if it exists) must be a
    folder we may write in."""
    here = path.absolute()
    while not here.exists():
        here = here.parent
    if not here.is_dir():
        fail(f"{option} {shown!r}: {str(here)!r} is a file, not a folder")
    if not os.access(here, os.W_OK | os.X_OK):
        fail(f"{option} {shown!r}: cannot write in {str(here)!r} (permission denied)")


def os_error_message(exc: OSError) -> tuple[str, int]:
    """One line for an operating-system error, and the exit code: 1 when the machine failed
    (disk full, input/output error), 2 when the path given was wrong."""
    what = exc.strerror or str(exc)
    where = f"{exc.filename}: " if exc.filename is not None else ""
    code = 1 if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO) else 2
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        what += " (disk full: the files written before are complete, the one being written was not kept)"
    return " ".join(f"{where}{what}".split()), code


def print_json(document: Any) -> None:
    """Write ``document`` to stdout as JSON (numpy numbers allowed)."""
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False, default=json_default) + "\n")

"""Terminal output shared by the commands: rich consoles, one-line errors, rule options."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from experiments.files import json_default

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)

RulesOption = Annotated[
    str, typer.Option("--rules", "-r", help="Rules preset (see `trente-lab presets`).", show_default=True)
]
DecksOption = Annotated[int | None, typer.Option("--decks", help="Number of decks (1-8), overriding the preset's.")]
CutCardOption = Annotated[
    int | None,
    typer.Option("--cut-card", help="Cards behind the cut card (0: deal to the end), overriding the preset's."),
]
SeedOption = Annotated[int, typer.Option("--seed", "-s", help="Seed of the random generator.", show_default=True)]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout instead of tables.")]


# Typer may ship its own copy of click: take the exception classes from the one it uses.
_click_errors = sys.modules[typer.BadParameter.__module__]
ClickException: type[Exception] = _click_errors.ClickException
NoArgsIsHelp: type[Exception] | tuple = getattr(_click_errors, "NoArgsIsHelpError", ())


def progress_bar(enabled: bool = True) -> Progress:
    """The progress bar of long work: description, bar, percentage and time left, on stderr,
    gone when done; a no-op when ``enabled`` is False (JSON output, short runs, tests)."""
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeRemainingColumn(),
    )
    return Progress(*columns, console=err, transient=True, disable=not enabled)


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


def check_at_least(name: str, value: int | float, low: int | float) -> None:
    if value < low:
        fail(f"{name} must be at least {low}, got {value}")


def print_json(document: Any) -> None:
    """Write ``document`` to stdout as JSON (numpy numbers allowed)."""
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False, default=json_default) + "\n")

"""The terminal: the rich consoles of stdout and stderr, the progress bar of long work, JSON on
stdout and one-line notices."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.files import json_default

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress


class _LazyConsole:
    """A rich :class:`~rich.console.Console` made when it is first used, so that rich is imported
    then and not when trente-lab starts (``trente-lab simulate --json`` never draws). Every
    attribute is the console's own."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    @property
    def console(self) -> Console:
        """The console itself (what rich's own objects are given)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:  # what this class does not define
        if name.startswith("_"):  # copies and pickles look for these before __init__ has run
            raise AttributeError(name)
        return getattr(self.console, name)


out = _LazyConsole(highlight=False)
err = _LazyConsole(stderr=True, highlight=False)


def _rich(console: _LazyConsole | Console) -> Console:
    """The rich console behind :data:`out` or :data:`err` (or the one put in its place)."""
    return console.console if isinstance(console, _LazyConsole) else console


def progress_bar(enabled: bool = True) -> Progress:
    """The progress bar of every long job (dealing, a tournament, training): description, bar,
    percentage, work done of the total and time left, on stderr, gone when done. A no-op when
    ``enabled`` is False (JSON output, short runs, tests) or stderr is not a terminal (a bar drawn
    into a file or a pipe is noise). Add a task with its total and advance it::

        with progress_bar(show) as bar:
            task = bar.add_task("dealing", total=n)
            bar.update(task, completed=done)
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    return Progress(*columns, console=_rich(err), transient=True, disable=not enabled or not err.is_terminal)


@contextlib.contextmanager
def status(enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """A status line with a spinner on stderr for work whose length is not counted (writing files,
    drawing plots), gone when done; yields a function that says what is being done now. A no-op
    when ``enabled`` is False or stderr is not a terminal, like :func:`progress_bar`::

        with status(show) as doing:
            doing("drawing final_bankroll.png")
    """
    if not enabled or not err.is_terminal:
        yield lambda _: None
        return
    from rich.live import Live
    from rich.spinner import Spinner

    spinner = Spinner("dots")
    # what is printed meanwhile goes above the line when stdout is this terminal, to its file otherwise
    with Live(spinner, console=_rich(err), transient=True, redirect_stdout=out.is_terminal, redirect_stderr=False):
        yield lambda text: spinner.update(text=text)


def print_json(document: Any) -> None:
    """Write ``document`` to stdout as JSON (numpy numbers allowed)."""
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False, default=json_default) + "\n")


def say(line: str) -> None:
    """A one-line notice on stderr, ``trente-lab: <line>`` (what a run does about a problem it met)."""
    err.print(f"trente-lab: {line}", markup=False, soft_wrap=True, highlight=False)


def print_written(paths: Sequence[Path], saves: str, seconds: float) -> None:
    """A report's last lines on stdout: each file written, or how to save them (``saves``: what
    ``--out DIR`` would save) when none was, then the run's seconds."""
    for path in paths:
        out.print(f"wrote {path}", style="dim")
    if not paths:
        out.print(f"Add --out DIR to save {saves}.", style="dim")
    out.print(f"{seconds:.1f} s", style="dim")


__all__ = ["err", "out", "print_json", "print_written", "progress_bar", "say", "status"]

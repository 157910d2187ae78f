"""The terminal: the rich consoles of stdout and stderr, the progress bar of long work, JSON on
stdout and one-line notices."""

from __future__ import annotations

import contextlib
import json
import sys
import time
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


#: Seconds between two lines of a long job's progress on a stderr that is not a terminal
#: (:func:`progress_bar`): a log file or a CI job shows it is alive, and when it should end.
LINE_EVERY = 60.0


def progress_bar(enabled: bool = True) -> Progress:
    """The progress bar of every long job (dealing, a tournament, training): description, bar,
    percentage, work done of the total and time left, on stderr, gone when done. A no-op when
    ``enabled`` is False (JSON output, short runs, tests). When stderr is not a terminal (a file, a
    pipe, a CI log), where a bar drawn is noise, a job still running after :data:`LINE_EVERY` seconds
    prints one plain line then and every :data:`LINE_EVERY` seconds after: what it does, how far it
    is, and the time left (:func:`progress_line`). Add a task with its total and advance it::

        with progress_bar(show) as bar:
            task = bar.add_task("dealing", total=n)
            bar.update(task, completed=done)
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    if enabled and not err.is_terminal:
        return _progress_lines(Progress, LINE_EVERY, time.monotonic)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    return Progress(*columns, console=_rich(err), transient=True, disable=not enabled)


def _progress_lines(progress: type[Progress], every: float, clock: Callable[[], float]) -> Progress:
    """A :class:`~rich.progress.Progress` that draws nothing and prints :func:`progress_line` on
    stderr at most every ``every`` seconds of ``clock``, the first ``every`` seconds after it is made."""

    class ProgressLines(progress):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__(disable=True)
            self._next_line = clock() + every

        def update(self, task_id: Any, **changes: Any) -> None:
            super().update(task_id, **changes)
            self._tell(task_id)

        def advance(self, task_id: Any, advance: float = 1) -> None:
            super().advance(task_id, advance)
            self._tell(task_id)

        def _tell(self, task_id: Any) -> None:
            if clock() < self._next_line:
                return
            task = next(t for t in self.tasks if t.id == task_id)
            if task.finished:  # the job's own output comes next
                return
            self._next_line = clock() + every
            print(progress_line(task.description, task.completed, task.total, task.time_remaining), file=sys.stderr)

    return ProgressLines()


def progress_line(what: str, done: float, total: float | None, seconds_left: float | None) -> str:
    """One line of a job's progress for a log: ``"trente-lab: dealing: 45% (45 of 100), about
    1 min 10 s left"``; the share and the time left only where they are known."""
    if not total:
        return f"trente-lab: {what}: {done:,.0f} done"
    left = "" if seconds_left is None else f", about {duration(seconds_left)} left"
    return f"trente-lab: {what}: {done / total:.0%} ({done:,.0f} of {total:,.0f}){left}"


def duration(seconds: float) -> str:
    """A time for people: "40 s", "5 min 10 s", "2 h 05 min"."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


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

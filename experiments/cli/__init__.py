"""The ``trente-lab`` command: the Typer app, and the one place that turns a refusal into one line.

Each command lives in its own module here (:mod:`experiments.cli.edge`, ...), a thin Typer wrapper
over a plain function of a library (:mod:`experiments.game`, :mod:`experiments.tournament`,
:mod:`experiments.rl`, :mod:`experiments.teaching`) that tests and notebooks call directly. The
wrappers import their library when the command runs, so that ``trente-lab --help`` loads no numpy,
numba, matplotlib or torch. The libraries raise (:mod:`experiments.errors`); only :class:`_Group`
here prints: a refusal is one line ``trente-lab: error: ...`` on stderr with exit code 2, a
machine that fails (disk full) one line with exit code 1, Ctrl-C one line with exit code 130. SIGTERM
(``kill``, ``timeout``, a job scheduler) stops a command as Ctrl-C does, its worker processes
included, with exit code 143.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import inspect
import os
import signal
import sys
import threading
from typing import Annotated

INTERRUPTED = "trente-lab: interrupted"


def _interrupted_hook(kind, value, traceback) -> None:  # a Ctrl-C before the command starts
    if issubclass(kind, KeyboardInterrupt):
        print(INTERRUPTED, file=sys.stderr)
    else:
        _previous_hook(kind, value, traceback)


_previous_hook, sys.excepthook = sys.excepthook, _interrupted_hook
_terminated = False


def _terminate(signum: int, frame) -> None:
    """SIGTERM: what Ctrl-C does in a terminal, where it reaches the worker processes too (they stop
    and what they finished is kept; left alone they would compute on as orphans). A second SIGTERM
    ends this process at once."""
    global _terminated
    _terminated = True
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    processes = sys.modules.get("multiprocessing")  # not loaded: no worker was started by it
    pids = [child.pid for child in processes.active_children()] if processes else []
    workers = sys.modules.get("experiments.workers")  # the worker pool's processes (Workers)
    for pid in pids + (workers.worker_pids() if workers else []):
        with contextlib.suppress(ProcessLookupError):  # gone already
            os.kill(pid, signal.SIGINT)
    handler = signal.getsignal(signal.SIGINT)  # the command's own Ctrl-C (`train` saves its model)
    if not callable(handler):
        raise KeyboardInterrupt
    handler(signal.SIGINT, frame)


import typer  # noqa: E402
from typer.core import TyperGroup  # noqa: E402

from experiments.cli import (  # noqa: E402
    benchmark,
    classroom,
    configs,
    control,
    count,
    deal,
    edge,
    evaluate,
    fallacy,
    play,
    presets,
    report,
    risk,
    simulate,
    strategies,
    sweep,
    tournament,
    train,
    warm,
)
from experiments.errors import LabError  # noqa: E402

# Typer may ship its own copy of click: take the exception classes from the one it uses.
_click_errors = sys.modules[typer.BadParameter.__module__]
ClickException: type[Exception] = _click_errors.ClickException
NoArgsIsHelp: type[Exception] | tuple = getattr(_click_errors, "NoArgsIsHelpError", ())


class BadInput(_click_errors.UsageError):
    """Input we refuse: shown as one line, exit code 2."""


#: The betting systems' refusals, shown like :class:`~experiments.errors.LabError`: (module, class).
#: Looked up only once their module is loaded (they cannot be raised before).
_SYSTEM_ERRORS = (("strategies.registry", "StrategyError"), ("strategies.model", "ModelError"))


def refusal(exc: BaseException) -> bool:
    """Whether ``exc`` is input a library refused (shown as one line), rather than a bug."""
    kinds = [LabError] + [getattr(sys.modules[m], name) for m, name in _SYSTEM_ERRORS if m in sys.modules]
    return isinstance(exc, tuple(kinds))


def worker_died(exc: BaseException) -> bool:
    """Whether ``exc`` is a worker process that ended before its task did
    (:class:`experiments.workers.WorkerDied`; looked up only once the pool's module is loaded)."""
    workers = sys.modules.get("experiments.workers")
    return workers is not None and isinstance(exc, workers.WorkerDied)


def os_error_message(exc: OSError) -> tuple[str, int]:
    """One line for an operating-system error, and the exit code: 1 when the machine failed
    (disk full, input/output error), 2 when the path given was wrong."""
    what = exc.strerror or str(exc)
    where = f"{exc.filename}: " if exc.filename is not None else ""
    code = 1 if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO) else 2
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        what += " (disk full: the files written before are complete, the one being written was not kept)"
    return " ".join(f"{where}{what}".split()), code


class _Group(TyperGroup):
    """Bad input gets one line on stderr and exit code 2, never a traceback or a usage box; Ctrl-C
    gets one line and exit code 130."""

    def invoke(self, ctx):  # type: ignore[override]
        # Typer turns KeyboardInterrupt into a silent Exit(130) around this call: say it here first.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            typer.echo(INTERRUPTED, err=True)
            raise typer.Exit(130) from None
        except BrokenPipeError:  # stdout closed early (`trente-lab deal -n 1000 | head`): stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # what is left to flush goes nowhere
            raise typer.Exit(1) from None
        except OSError as exc:  # a file we could not write or read: disk full, a path of the wrong kind
            message, code = os_error_message(exc)
            typer.echo(f"trente-lab: error: {message}", err=True)
            raise typer.Exit(code) from None
        except ValueError as exc:  # every refusal is a ValueError; any other is a bug and shows as one
            if not refusal(exc):
                raise
            raise BadInput(str(exc)) from None
        except RuntimeError as exc:  # a worker process that died (killed, out of memory): the machine failed
            if not worker_died(exc):
                raise
            typer.echo(f"trente-lab: error: {' '.join(str(exc).split())}", err=True)
            raise typer.Exit(1) from None

    def main(self, *args, standalone_mode: bool = True, **kwargs):  # type: ignore[override]
        global _terminated
        _terminated, own = False, threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGTERM, _terminate) if own else None
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except NoArgsIsHelp as exc:
            typer.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            code = 0
        except ClickException as exc:
            typer.echo(f"trente-lab: error: {' '.join(exc.format_message().split())}", err=True)
            code = exc.exit_code
        except (typer.Abort, KeyboardInterrupt):
            typer.echo(INTERRUPTED, err=True)
            code = 130
        finally:
            if previous is not None:  # the caller's own handler again (tests, notebooks call this)
                signal.signal(signal.SIGTERM, previous)
        code = code if isinstance(code, int) else 0
        sys.exit(143 if _terminated and code == 130 else code)


app = typer.Typer(
    cls=_Group,
    name="trente-lab",
    help="Trente et Quarante (Rouge et Noir): exact odds, simulations, betting systems and RL agents.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion and --show-completion (bash, zsh, fish, PowerShell)
)


def _show_version(asked: bool) -> None:
    if asked:
        from experiments import version

        typer.echo(f"trente-lab {version()} (Python {sys.version.split()[0]})")
        raise typer.Exit()


@app.callback()
def _options(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Show trente-lab's version and exit."),
    ] = False,
) -> None:
    """Trente et Quarante (Rouge et Noir): exact odds, simulations, betting systems and RL agents."""


app.command("edge")(edge.command)
app.command("simulate")(simulate.command)
app.command("deal")(deal.command)
app.command("presets")(presets.command)
app.command("strategies")(strategies.command)
app.command("fallacy")(fallacy.command)
app.command("play")(play.command)
app.command("report")(report.command)
app.command("tournament")(tournament.command)
app.command("train")(train.command)
app.command("sweep")(sweep.command)
app.command("control")(control.command)
app.command("benchmark")(benchmark.command)
app.command("configs")(configs.command)
app.command("evaluate")(evaluate.command)
app.command("count")(count.command)
app.command("classroom")(classroom.command)
app.command("risk")(risk.command)
app.command("warm")(warm.command)


#: The garbage collector's thresholds in the ``trente-lab`` process (:func:`run`): Python's, but a
#: full collection after 100 collections of the middle generation instead of 10.
GC_THRESHOLDS = (700, 10, 100)


def run() -> None:
    """The ``trente-lab`` script and ``python -m experiments.cli``: :data:`app` with fewer full
    garbage collections (:data:`GC_THRESHOLDS`), and an exit without the interpreter's last ones
    (:func:`gc.freeze`). A command that loads a compiled kernel first builds numba's registries, a
    hundred thousand objects and more that live as long as the process; walking them all again in full
    collections during start-up and at exit was a large share of a short command's time
    (docs/performance.md). Exit handlers still run, and every file a command writes is closed
    before it returns; only the memory is left to the operating system."""
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        app(prog_name="trente-lab")
    finally:
        gc.freeze()


def _reflow(doc: str | None) -> str | None:
    """A docstring as help: each paragraph on one line, however the source wraps it (Typer's rich
    help keeps the source's line breaks, cutting sentences in the middle)."""
    if doc is None:
        return None
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in paragraphs)


for _command in app.registered_commands:
    if _command.help is None:
        _command.help = _reflow(_command.callback.__doc__)


_typer_display_type = typer.core.TyperOption.display_type_rich


def _display_type(self, ctx):  # Typer shows "<bool>" beside every flag: a flag takes no value, so no type
    return None if self.is_flag else _typer_display_type(self, ctx)


typer.core.TyperOption.display_type_rich = _display_type
_typer_range = typer.core.TyperOption._get_number_range_help_str


def _range(self):  # an option whose callback also refuses the ends shows the open range ("0<x<1")
    return getattr(self.callback, "open_range", None) or _typer_range(self)


typer.core.TyperOption._get_number_range_help_str = _range

__all__ = ["INTERRUPTED", "app", "os_error_message", "refusal", "run"]

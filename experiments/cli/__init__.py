"""The ``trente-lab`` command: one module per command, each a thin layer over a plain function."""

from __future__ import annotations

import os
import sys

INTERRUPTED = "trente-lab: interrupted"


def _interrupted_hook(kind, value, traceback) -> None:  # a Ctrl-C before the command starts
    if issubclass(kind, KeyboardInterrupt):
        print(INTERRUPTED, file=sys.stderr)
    else:
        _previous_hook(kind, value, traceback)


_previous_hook, sys.excepthook = sys.excepthook, _interrupted_hook

import typer  # noqa: E402
from typer.core import TyperGroup  # noqa: E402

from experiments import (  # noqa: E402
    deal,
    edge,
    evaluate,
    fallacy,
    play,
    presets,
    report,
    simulate,
    strategies,
    tournament,
    train,
)
from experiments.console import ClickException, NoArgsIsHelp, os_error_message  # noqa: E402


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

    def main(self, *args, standalone_mode: bool = True, **kwargs):  # type: ignore[override]
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
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    cls=_Group,
    name="trente-lab",
    help="Trente et Quarante (Rouge et Noir): exact odds, simulations, betting systems and RL agents.",
    no_args_is_help=True,
    add_completion=False,
)
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
app.command("evaluate")(evaluate.command)

"""The ``trente-lab`` command: one module per command, each a thin layer over a plain function."""

from __future__ import annotations

import sys

import typer
from typer.core import TyperGroup

from experiments import deal, edge, evaluate, fallacy, play, presets, report, simulate, strategies, tournament, train
from experiments.console import ClickException, NoArgsIsHelp


class _Group(TyperGroup):
    """Bad input gets one line on stderr and exit code 2, never a traceback or a usage box."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):  # type: ignore[override]
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except NoArgsIsHelp as exc:
            typer.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            code = 0
        except ClickException as exc:
            typer.echo(f"trente-lab: error: {exc.format_message()}", err=True)
            code = exc.exit_code
        except (typer.Abort, KeyboardInterrupt):
            typer.echo("trente-lab: interrupted", err=True)
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

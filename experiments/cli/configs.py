"""``trente-lab configs``: the configuration files shipped with trente-lab (:mod:`experiments.game.listings`)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from experiments.cli.options import JsonOption
from experiments.console import print_json


def command(
    name: Annotated[
        str | None, typer.Argument(help="Print this shipped file (to copy and change it), e.g. quick.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """List the shipped configuration files (tournament line-ups, RL hyper-parameters, sweeps), or
    print one of them."""
    from experiments.game import listings

    if name is not None:
        sys.stdout.write(listings.config_text(name))  # as it is, to copy
    elif as_json:
        print_json(listings.config_listing())
    else:
        listings.print_configs(listings.config_listing())

"""``trente-lab evaluate``: what a policy bets and what it earns per unit staked (:mod:`experiments.rl.evaluate`)."""

from __future__ import annotations

from typing import Annotated

import typer

from experiments.cli.options import JsonOption, SeedOption
from experiments.cli.trust import TrustModelOption
from experiments.console import print_json
from experiments.limits import MAX_SESSION_COUPS, MAX_TABLES


def command(
    model: Annotated[
        str,
        typer.Argument(
            help="Model file (.zip) saved by `trente-lab train`, or a strategy spec (e.g. martingale:base=2). "
            "A model not saved by train needs --trust-model; a plugin runs its code.",
            metavar="MODEL_OR_SPEC",
        ),
    ],
    episodes: Annotated[
        int,
        typer.Option(
            "--episodes",
            "-n",
            min=2,
            max=MAX_TABLES,
            help="Sessions to play (the independent units; an interval needs two).",
        ),
    ] = 200,
    rules: Annotated[
        str | None,
        typer.Option("--rules", "-r", help="Table: a preset or rigged-<preset>; default: the training table."),
    ] = None,
    seed: SeedOption = 10_000,
    coups: Annotated[
        int, typer.Option("--coups", min=1, max=MAX_SESSION_COUPS, help="Coups per session (at most).")
    ] = 1000,
    algo: Annotated[
        str | None, typer.Option("--algo", help="Algorithm that saved the file (default: from model.json, else ppo).")
    ] = None,
    trust_model: TrustModelOption = False,
    as_json: JsonOption = False,
) -> None:
    """Play a trained agent or a betting system on many sessions: what it bets, and its return per
    unit staked beside the exact house edge. A model saved by train loads without running code; any
    other model file is unpickled, which runs code, and needs --trust-model."""
    from experiments.rl import evaluate
    from experiments.rl.rig import parse_venue
    from trente_env.plan import EvalPlan

    venue = parse_venue(rules) if rules is not None else None  # an empty --rules is refused, not defaulted
    report = evaluate.evaluate_model(model, EvalPlan(episodes, coups, seed), venue, algo, progress=not as_json)
    if as_json:
        print_json(report)
    else:
        evaluate.print_report(report)

"""``trente-lab control``: the positive control, the same agent on the fair and the rigged table
(:mod:`experiments.rl.control`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from experiments.cli.options import JsonOption
from experiments.cli.train import Algo
from experiments.console import out, print_json
from experiments.limits import MAX_COUPS, MAX_SB3_SEED, MAX_TABLES


def command(
    algo: Annotated[Algo, typer.Option("--algo", "-a", help="Algorithm.")] = Algo.ppo,
    timesteps: Annotated[
        int, typer.Option("--timesteps", "-t", min=1, max=MAX_COUPS, help="Coups to train on, per table.")
    ] = 100_000,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, max=MAX_SB3_SEED, help="Seed of both runs.")] = 0,
    episodes: Annotated[
        int, typer.Option("--episodes", "-n", min=2, max=MAX_TABLES, help="Evaluation sessions per table.")
    ] = 200,
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("runs/control"),
    force: Annotated[bool, typer.Option("--force", help="Replace the models of an earlier control in --out.")] = False,
    as_json: JsonOption = False,
) -> None:
    """The positive control: train the same agent (same settings and seed) on the fair table and on
    a deliberately rigged one, and show that it finds the rigged edge and does not beat the fair
    table. Writes into --out only (models, curves, control.json, rl_control.png)."""
    from experiments.rl.control import TABLES, run_control

    results = run_control(algo.value, timesteps, seed, out_dir, episodes, force, progress=not as_json)
    if as_json:
        print_json(results)
        return
    for table in TABLES:
        training, evaluation = results[table]["training"], results[table]["evaluation"]
        r = evaluation["return_per_unit_staked"]
        out.print(
            f"{table}: {training['steps_per_second']:,.0f} steps/s; return per unit staked {r['ratio']:+.3%} "
            f"(95% CI {r['ci_low']:+.3%} to {r['ci_high']:+.3%}), sat out {evaluation['behaviour']['sat_out']:.0%}; "
            f"{evaluation['verdict']}",
            markup=False, highlight=False,
        )  # fmt: skip
    out.print(f"Figure: {results['figure']} (the README's is docs/rl_control.png: copy it there by hand)", style="dim")

"""``trente-lab control``: the positive control, the same agent on the fair and the rigged table
(:mod:`experiments.rl.control`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from experiments.cli.options import JsonOption, path_option
from experiments.cli.train import Algo
from experiments.console import out, print_json
from experiments.limits import MAX_COUPS, MAX_SB3_SEED, MAX_TABLES


def command(
    algo: Annotated[Algo, typer.Option("--algo", "-a", help="Algorithm.")] = Algo.ppo,
    timesteps: Annotated[
        int, typer.Option("--timesteps", "-t", min=1, max=MAX_COUPS, help="Coups to train on, per table.")
    ] = 1_000_000,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, max=MAX_SB3_SEED, help="Seed of both runs.")] = 0,
    episodes: Annotated[
        int, typer.Option("--episodes", "-n", min=2, max=MAX_TABLES, help="Evaluation sessions per table.")
    ] = 200,
    out_dir: Annotated[Path, path_option("--out", "-o", help="Output folder.")] = Path("runs/control"),
    force: Annotated[bool, typer.Option("--force", help="Replace the models of an earlier control in --out.")] = False,
    as_json: JsonOption = False,
) -> None:
    """The positive control: train the same agent (same settings and seed) on the fair table and on
    a deliberately rigged one where every policy blind to the scoreboard loses, and show, on the same
    shoes, that it finds the rigged edge by reading the last coup and does not beat the fair table.
    Writes into --out only (models, curves, control.json, rl_control.png)."""
    from rich.table import Table

    from experiments.rl.control import TABLES, run_control

    results = run_control(algo.value, timesteps, seed, out_dir, episodes, force, progress=not as_json)
    if as_json:
        print_json(results)
        return
    pct = lambda x: "-" if x is None or x != x else f"{x:+.2%}"  # noqa: E731
    for table in TABLES:
        part = results[table]
        view = Table(title=f"{table}: {part['rules']}", title_justify="left")
        for column in ("policy", "exact", "measured (95% CI)", "Noir after Noir", "Noir otherwise"):
            view.add_column(column, justify="left" if column == "policy" else "right")
        for name, row in part["rows"].items():
            exact = pct(row["exact"]) if row["exact"] is not None else f"{pct(row['exact_for_its_stakes'])} *"
            measured = f"{pct(row['return_per_unit'])} ({pct(row['ci_low'])} to {pct(row['ci_high'])})"
            view.add_row(name, exact, measured, f"{row['p_noir_after_noir']:.1%}", f"{row['p_noir_otherwise']:.1%}")
        out.print(view)
        out.print(f"agent: {part['agent_verdict']}", markup=False, highlight=False)
        sc = part["score"]
        if sc["share_of_optimum"] is None:
            told = (
                f"sat out {sc['sat_out']:.1%} of coups (the optimum: all); loss per coup "
                f"{sc['loss_vs_flat']:.2f}x a 1-unit flat bettor's"
            )
        else:
            per_unit = "-" if sc["share_per_unit"] is None else f"{sc['share_per_unit']:.1%}"
            told = (
                f"{sc['share_of_optimum']:.1%} of the optimum per coup ({sc['reward_per_coup']:+.2f} of "
                f"{sc['optimum_per_coup']:+.2f} units), {per_unit} of its return per unit staked; "
                f"sat out {sc['sat_out']:.1%}"
            )
        out.print(f"score: {told}", markup=False, highlight=False)
    out.print(
        "exact: per unit staked, first-coup odds, consecutive coups taken as independent; "
        "* the agent's: for the very stakes it placed. Noir after Noir / otherwise: how often it staked on Noir "
        "right after a Noir win / on the other coups",
        style="dim",
    )
    out.print(f"Figure: {results['figure']}", style="dim")

"""``trente-lab sweep``: many training runs, each trained and evaluated as alone (:mod:`experiments.rl.sweep`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from experiments.cli.options import JsonOption, RunsBackendOption, RunWorkersOption, path_argument, path_option
from experiments.console import out, print_json


def command(
    grid: Annotated[
        Path,
        path_argument(
            help="The sweep: a TOML file whose sweep table lists algos, tables, seeds, timesteps..., or the name of "
            "a shipped one (sweep-seeds).",
            metavar="SWEEP.toml",
        ),
    ],
    out_dir: Annotated[
        Path | None, path_option("--out", "-o", help="Output folder (default runs/sweep-<file name>).")
    ] = None,
    backend: RunsBackendOption = "local",
    workers: RunWorkersOption = 1,
    as_json: JsonOption = False,
) -> None:
    """Train and evaluate many agents (seeds x algorithms x tables x hyper-parameters), then one table
    and one plot of their returns per unit staked beside the exact expectation.

    A finished run is kept: run the same command again after Ctrl-C to play only the others.
    Each run's numbers are those of the same run done alone with `trente-lab train` and `evaluate`.
    """
    from experiments.backends import parse_backend
    from experiments.rl.sweep import load_sweep, run_sweep

    where = parse_backend(backend)
    sweep = load_sweep(grid)
    folder = out_dir if out_dir is not None else Path("runs") / f"sweep-{grid.stem}"
    document = run_sweep(sweep, folder, where, workers, progress=True)
    if as_json:
        print_json(document)
        return
    from rich.table import Table

    table = Table(
        "run", "per coup", "of optimum", "sat out", "return/unit", "95% interval", "expected", "p", box=None,
        header_style="bold",
    )  # fmt: skip
    for row in document["runs"]:
        share = row.get("share_of_optimum")
        per_coup = (
            f"{row['reward_per_coup']:+.3f}" if row.get("reward_per_coup") is not None else "",
            "" if share is None else f"{share:.1%}",
            f"{row['sat_out']:.1%}",
        )
        if row["return_per_unit"] is None or row["return_per_unit"] != row["return_per_unit"]:
            table.add_row(row["name"], *per_coup, "no stakes", "", "", "")
            continue
        p = row.get("p_value")
        interval = (
            "too few stakes"
            if row["ci_low"] is None or row["ci_low"] != row["ci_low"]
            else f"{row['ci_low']:+.2%} to {row['ci_high']:+.2%}"
        )
        table.add_row(
            row["name"], *per_coup, f"{row['return_per_unit']:+.2%}", interval,
            f"{row['expected_return_per_unit']:+.2%}", "" if p is None else f"{p:.2g}",
        )  # fmt: skip
    out.print(table)
    out.print(
        "per coup: units won a coup; of optimum: its share of the table's exact optimum per coup (rigged tables); "
        "expected: the exact return of the stakes each agent placed (the house edge on a fair table); "
        "p: how often chance alone ends this far from it (one-sided above 0 on a rigged table). "
        "Each run's verdict is in sweep.csv.",
        style="dim",
    )
    out.print(f"Files in {folder}: sweep.csv, sweep.json, sweep.png, runs/<name>/.", style="dim")

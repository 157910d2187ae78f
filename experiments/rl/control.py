"""The headline RL result, end to end: the same agent on the fair table and on the rigged one.

A positive control. On the fair ``classic`` table no policy can beat the refait: the agent should
learn to sit out, or lose about the house edge (1.12%) on what it stakes. On ``rigged-classic``
(a Noir stake winning right after a Noir win is paid 3:2; see :mod:`experiments.rl.rig`) an edge
exists in a situation shown on the scoreboard, and the same algorithm with the same settings and
seed must find it: a return per unit staked significantly above 0.

Run: ``trente-lab control [--algo ppo] [--timesteps 100000] [--out runs/control]``. Writes into
``--out`` only: both runs (models, curves), ``control.json`` (the two evaluations) and the figure
``rl_control.png``. The README's figure ``docs/rl_control.png`` is a copy of it, made by hand.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from experiments.files import atomic_write_json, pyplot, save_figure
from experiments.plotting import edge_label
from experiments.rl.evaluate import evaluate_model
from experiments.rl.train import train_agent

#: The two tables of the control: the fair one, and its rigged twin.
TABLES = ("classic", "rigged-classic")


def run_control(
    algo: str = "ppo",
    timesteps: int = 100_000,
    seed: int = 0,
    out: str | Path = Path("runs/control"),
    episodes: int = 200,
    force: bool = False,
    progress: bool = False,
) -> dict[str, Any]:
    """Train ``algo`` on the fair and the rigged table with the same settings and seed, evaluate
    each on its table, and draw both learning curves into ``out/rl_control.png``.

    :param force: replace the models of an earlier control in ``out`` (refused otherwise).
    :return: per table, the training summary and the evaluation; ``figure``: the PNG's path.
    """
    out = Path(out)
    results: dict[str, Any] = {"algo": algo, "timesteps": timesteps, "seed": seed, "episodes": episodes}
    curves = {}
    for table in TABLES:
        summary = train_agent(algo, timesteps, table, seed=seed, out_dir=out / table, progress=progress, force=force)
        evaluation = evaluate_model(summary["files"]["model"], episodes=episodes, rules=table)
        results[table] = {"training": summary, "evaluation": evaluation}
        curves[table] = out / table / "curve.csv"
    results["figure"] = str(out / "rl_control.png")
    draw(curves, results, out / "rl_control.png")
    atomic_write_json(out / "control.json", results)
    return results


def draw(curves: dict[str, Path], results: dict[str, Any], figure: Path) -> None:
    """Both learning curves (return per unit staked, 95% bands) on one figure, written atomically."""
    fig, ax = pyplot().subplots(figsize=(7.5, 4.2), constrained_layout=True)
    for (table, path), colour in zip(curves.items(), ("tab:blue", "tab:green")):
        with path.open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        t = np.array([float(r["timesteps"]) for r in rows])
        y = np.array([float(r["return_per_unit"]) for r in rows]) * 100
        lo = np.array([float(r["ci_low"]) for r in rows]) * 100
        hi = np.array([float(r["ci_high"]) for r in rows]) * 100
        label = "fair table (classic)" if table == "classic" else "rigged table (positive control)"
        ax.fill_between(t, lo, hi, color=colour, alpha=0.2)
        ax.plot(t, y, marker="o", ms=3, color=colour, label=label)
    edge = results["classic"]["evaluation"]["house_edge"] * 100
    ax.axhline(0, color="black", lw=0.8)
    ax.axhline(-edge, color="red", ls="--", lw=1, label=edge_label(edge / 100))
    ax.set_xlabel("timesteps (coups, all tables)")
    ax.set_ylabel("return per unit staked (%), greedy policy")
    ax.set_title(f"{results['algo']}: same settings and seed, fair vs rigged table (95% CI over sessions)")
    ax.legend(loc="best", fontsize=8)
    figure.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, figure)

"""The witness benchmark (``trente-lab benchmark``): levels x algorithms x seeds, each agent trained
with the shipped configuration (``experiments/configs/rl.toml``, the same on every level) and scored
against its level's exact optimum (:mod:`experiments.rl.score`) on fixed evaluation shoes that every
entrant plays, the ideal policy too.

A run trains as ``trente-lab train`` would, evaluates as ``trente-lab evaluate`` would, then lets
the ideal policy play the very same sessions. Runs are played on this machine or on a Dask cluster
(:mod:`experiments.backends`) through the sweep's machinery (:func:`experiments.rl.sweep.play_runs`):
a finished run is saved under ``OUT/runs/<name>/`` with the identity of its settings and code, so an
interrupted benchmark resumes with the runs it has.

Written to ``OUT``: ``benchmark.json`` (every run's scores and learning curve, the summary per
level and algorithm), ``benchmark.csv`` (one row per run) and ``benchmark.png`` (the scores per
level, and the learning curve of the share of the optimum, or of the coups sat out on the fair
level beside the gambler's horizon: the coups a test needs to tell the house edge from 0).

The headline score of a run is its share of the exact optimum per coup on a rigged level, and the
share of coups it sat out on the fair one (where the optimum is 0); over seeds, the interquartile
mean with a 95% percentile-bootstrap interval (rliable's convention).
"""

from __future__ import annotations

import csv
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from experiments.backends import LOCAL, Backend
from experiments.errors import RLError
from experiments.files import atomic_write_csv, atomic_write_json, check_output_folder, pyplot, save_figure
from experiments.rl.algorithms import TRAINABLE
from experiments.rl.config import algo_class, load_config
from experiments.rl.rig import parse_venue
from experiments.rl.score import gambler_horizon, headline, optimum, score, summarise
from experiments.rl.sweep import RUN_FILES, Sweep, SweepRun, play_runs
from trente_env import LEVEL_NAMES

#: The levels, by name (:data:`trente_env.levels.LEVELS`): the table each is played on
#: (``trente-lab train --rules`` takes a level's name).
LEVEL_TABLES = {name: name for name in LEVEL_NAMES}
#: The quick pass (the default): these levels, these algorithms, these seeds.
QUICK = {"levels": ("fair", "rig-1"), "algos": ("ppo",), "seeds": (0, 1, 2, 3, 4)}
#: ``--full``: every level and both algorithms of the witness.
FULL = {"levels": tuple(LEVEL_TABLES), "algos": ("ppo", "a2c"), "seeds": (0, 1, 2, 3, 4)}
#: Each level's training budget in timesteps (coups, all tables) unless ``--timesteps`` says
#: otherwise: rig-3's pattern follows 8.8% of coups and takes longer to find (docs/rl.md).
BUDGETS = {"fair": 1_000_000, "rig-1": 1_000_000, "rig-3": 8_000_000, "shoe": 3_000_000}
#: The targets of the headline score, per level: the share of coups sat out on ``fair``, the share
#: of the optimum per coup on a rigged level.
TARGETS = {"fair": 0.99, "rig-1": 0.95, "rig-3": 0.90, "shoe": 0.50}
#: Evaluation sessions (of :data:`EVAL_COUPS` coups) and their seed: the same shoes for every entrant.
EVAL_SESSIONS, EVAL_COUPS, EVAL_SEED = 100, 1000, 10_000
#: Timesteps between two points of a run's learning curve.
CURVE_EVERY = 50_000
#: The columns of ``benchmark.csv``.
COLUMNS = (
    "level", "algo", "seed", "timesteps", "score", "share_of_optimum", "share_per_unit", "sat_out",
    "reward_per_coup", "return_per_unit", "loss_vs_flat", "ideal_share", "train_seconds",
)  # fmt: skip


@dataclass(frozen=True)
class Benchmark:
    """What a benchmark plays: levels x algorithms x seeds, ``timesteps`` each (None: each level's
    budget, :data:`BUDGETS`)."""

    levels: tuple[str, ...]
    algos: tuple[str, ...]
    seeds: tuple[int, ...]
    timesteps: int | None
    episodes: int = EVAL_SESSIONS
    coups: int = EVAL_COUPS
    eval_seed: int = EVAL_SEED
    curve_every: int = CURVE_EVERY
    config: str | None = None  #: the hyper-parameter file (None: the shipped one)

    def budget(self, level: str) -> int:
        """The timesteps of a run on ``level``."""
        return self.timesteps if self.timesteps is not None else BUDGETS[level]

    def sweep(self) -> Sweep:
        """The runs as a sweep (its resumable runner and identities), in level, algorithm, seed order."""
        runs = tuple(
            SweepRun(algo, LEVEL_TABLES[level], seed, self.budget(level))
            for level in self.levels
            for algo in self.algos
            for seed in self.seeds
        )
        source = {"kind": "benchmark", "curve_every": self.curve_every, "benchmark": self.as_dict()}
        return Sweep(runs, self.episodes, self.coups, self.eval_seed, self.config, source)

    def as_dict(self) -> dict[str, Any]:
        return {
            "levels": list(self.levels), "algos": list(self.algos), "seeds": list(self.seeds),
            "timesteps": {level: self.budget(level) for level in self.levels},
            "episodes": self.episodes, "coups": self.coups, "eval_seed": self.eval_seed,
            "curve_every": self.curve_every, "config": self.config,
        }  # fmt: skip


def make_benchmark(
    full: bool = False,
    levels: Sequence[str] | None = None,
    algos: Sequence[str] | None = None,
    seeds: Sequence[int] | None = None,
    timesteps: int | None = None,
    episodes: int = EVAL_SESSIONS,
    coups: int = EVAL_COUPS,
    curve_every: int = CURVE_EVERY,
    config: str | Path | None = None,
) -> Benchmark:
    """The quick pass (:data:`QUICK`) or, with ``full``, :data:`FULL`; each part can be replaced.
    ``timesteps``: every run's budget (default: each level's, :data:`BUDGETS`). ``config``: a
    hyper-parameter file instead of the shipped one (the witness is the shipped one).

    :raises RLError: an unknown level or algorithm, no seeds, a budget below 1.
    """
    base = FULL if full else QUICK
    levels = tuple(levels or base["levels"])
    algos = tuple(algos or base["algos"])
    seeds = tuple(seeds if seeds is not None else base["seeds"])
    unknown = [name for name in levels if name not in LEVEL_TABLES]
    if unknown:
        raise RLError(f"unknown level {unknown[0]!r}; choose from {', '.join(LEVEL_TABLES)}")
    wrong = [name for name in algos if name not in TRAINABLE]
    if wrong:
        raise RLError(f"unknown algo {wrong[0]!r}; choose from {', '.join(TRAINABLE)}")
    if not levels or not algos or not seeds:
        raise RLError("a benchmark needs at least one level, one algorithm and one seed")
    if len(set(seeds)) != len(seeds) or any(s < 0 for s in seeds):
        raise RLError(f"seeds must be distinct whole numbers >= 0, got {list(seeds)}")
    for name, value in (
        ("timesteps", timesteps),
        ("episodes", episodes),
        ("coups", coups),
        ("curve_every", curve_every),
    ):
        if value is not None and value < 1:
            raise RLError(f"{name} must be at least 1, got {value}")
    if config is not None:
        load_config(algos[0], config)  # a missing or malformed file is refused before any work
    path = None if config is None else str(config)
    return Benchmark(levels, algos, seeds, timesteps, episodes, coups, EVAL_SEED, curve_every, path)


def level_of(table: str) -> str:
    """The level played on ``table``."""
    return next(level for level, name in LEVEL_TABLES.items() if name == table)


def play_benchmark_run(sweep: Sweep, run: SweepRun) -> dict[str, Any]:
    """Train and evaluate ``run`` in a scratch folder as ``train`` and ``evaluate`` would, let the
    ideal policy play the same evaluation sessions, and score both against the exact optimum.
    Returns the row (with the learning curve), the evaluation and the run's files."""
    from experiments.rl.evaluate import evaluate_model, evaluation_report, watch_sessions
    from experiments.rl.train import train_agent

    curve_every = int(sweep.source.get("curve_every", CURVE_EVERY))
    venue = parse_venue(run.table)
    from trente_env.levels import LEVELS

    stake = max(load_config(run.algo, sweep.config).train.stake_levels)
    observe_shoe = bool(LEVELS[level_of(run.table)].env_kwargs.get("observe_shoe", False))
    best = optimum(venue, stake)
    with tempfile.TemporaryDirectory(prefix="trente-lab-benchmark-") as scratch:
        folder = Path(scratch) / run.name
        summary = train_agent(
            run.algo, run.timesteps, rules=run.table, seed=run.seed, out_dir=folder, eval_every=curve_every,
            config_path=sweep.config, observe_shoe=observe_shoe,
        )  # fmt: skip
        report = evaluate_model(str(folder / "model.zip"), sweep.episodes, seed=sweep.eval_seed, coups=sweep.coups)
        files = {name: (folder / name).read_bytes() for name in RUN_FILES if (folder / name).exists()}
        curve = summary_curve(summary)
    ideal_play = watch_sessions(best.policy(venue, stake), venue, sweep.episodes, sweep.coups, sweep.eval_seed)
    ideal = evaluation_report(ideal_play, venue)
    scores = score(report, best)
    ideal_scores = score(ideal, best)
    row = {
        "name": run.name, "level": level_of(run.table), "table": run.table, "algo": run.algo, "seed": run.seed,
        "timesteps": summary["timesteps"], "train_seconds": summary["seconds"], "score": headline(scores),
        **scores,
        "ideal_share": ideal_scores["share_of_optimum"], "ideal_share_se": ideal_scores["share_of_optimum_se"],
        "curve": [
            {k: r[k] for k in ("timesteps", "share_of_optimum", "sat_out", "reward_per_coup", "seconds")}
            for r in curve
        ],
    }  # fmt: skip
    return {"row": row, "evaluation": report, "files": files}


def summary_curve(summary: Mapping[str, Any]) -> list[dict[str, float]]:
    """The learning curve a training run wrote (its ``curve.csv``), as numbers."""
    with open(summary["files"]["curve_csv"], encoding="utf-8", newline="") as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def summarise_runs(bench: Benchmark, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per level and algorithm: the IQM and 95% bootstrap interval over seeds of the headline score,
    the share per unit staked and the coups sat out; how many seeds reach the level's target."""
    groups = []
    for level in bench.levels:
        for algo in bench.algos:
            mine = [r for r in rows if r["level"] == level and r["algo"] == algo]
            target = TARGETS.get(level)
            groups.append(
                {
                    "level": level, "algo": algo, "seeds": len(mine), "target": target,
                    "score": summarise([r["score"] for r in mine]),
                    "share_per_unit": summarise([r["share_per_unit"] for r in mine]),
                    "sat_out": summarise([r["sat_out"] for r in mine]),
                    "reached": sum(r["score"] >= target for r in mine) if target is not None else None,
                    "train_seconds": float(np.mean([r["train_seconds"] for r in mine])) if mine else float("nan"),
                }
            )  # fmt: skip
    return groups


def run_benchmark(
    bench: Benchmark, out: str | Path, backend: Backend = LOCAL, workers: int = 1, progress: bool = False
) -> dict[str, Any]:
    """Play every run of ``bench`` not yet saved in ``out`` (on ``backend``), then write
    ``benchmark.json``, ``benchmark.csv`` and ``benchmark.png``; returns the document."""
    out = check_output_folder(Path(out))
    for algo in bench.algos:
        algo_class(algo)  # stable-baselines3 (or sb3-contrib) is there, before anything is written
    sweep = bench.sweep()
    rows = play_runs(sweep, out, backend, workers, progress, play=play_benchmark_run, label="benchmark (training runs)")
    horizon = gambler_horizon(parse_venue(LEVEL_TABLES["fair"]))
    document = {
        "benchmark": bench.as_dict(),
        "targets": TARGETS,
        "gambler_horizon": horizon,
        "optimum_model": rows[0]["optimum_model"] if rows else None,
        "summary": summarise_runs(bench, rows),
        "runs": rows,
    }
    atomic_write_json(out / "benchmark.json", document)
    atomic_write_csv(out / "benchmark.csv", rows, COLUMNS)
    plot_benchmark(out / "benchmark.png", document)
    return document


def plot_benchmark(path: Path, document: Mapping[str, Any]) -> None:
    """Left: each run's headline score per level and algorithm, the IQM with its 95% interval and
    the target. Right: the learning curves (the share of the optimum per coup on a rigged level, the
    coups sat out on ``fair``) against timesteps, the gambler's horizon marked."""
    rows, summary = document["runs"], document["summary"]
    fig, (left, right) = pyplot().subplots(1, 2, figsize=(11, 4.6), constrained_layout=True)
    colours = dict(zip(document["benchmark"]["algos"], ("tab:blue", "tab:orange", "tab:green", "tab:red")))
    for x, group in enumerate(summary):
        c = colours[group["algo"]]
        values = [r["score"] for r in rows if r["level"] == group["level"] and r["algo"] == group["algo"]]
        left.plot([x] * len(values), values, "o", color=c, alpha=0.5, ms=4)
        s = group["score"]
        if s["n"]:
            yerr = [[max(s["iqm"] - s["ci_low"], 0)], [max(s["ci_high"] - s["iqm"], 0)]]
            left.errorbar(x + 0.15, s["iqm"], yerr=yerr, fmt="D", color=c, capsize=4)
        if group["target"] is not None:
            left.plot([x - 0.3, x + 0.3], [group["target"]] * 2, color="red", ls="--", lw=1)
    left.set_xticks(range(len(summary)), [f"{g['level']}\n{g['algo']}" for g in summary])
    left.set_ylabel("score")
    left.set_title("Score: coups sat out (fair), share of the optimum per coup (rigged)", fontsize=9)
    left.set_xlabel("dots: seeds; diamond: IQM, 95% bootstrap CI; red dashes: target", fontsize=8)
    left.axhline(0, color="black", lw=0.6)
    for row in rows:
        t = [p["timesteps"] for p in row["curve"]]
        key = "sat_out" if row["level"] == "fair" else "share_of_optimum"
        style = ":" if row["level"] == "fair" else "-"
        label = f"{row['level']} {row['algo']}"
        right.plot(t, [p[key] for p in row["curve"]], style, color=colours[row["algo"]], alpha=0.6, lw=1, label=label)
    horizon = document["gambler_horizon"]["coups"]
    right.axvline(horizon, color="grey", lw=1, ls="--", label=f"gambler's horizon: {horizon:,.0f} coups")
    handles, labels = right.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    right.legend(unique.values(), unique.keys(), fontsize=7, loc="lower right")
    right.set_xlabel("timesteps (coups, all tables)")
    right.set_ylabel("share of the optimum per coup (—)\ncoups sat out on fair (···)")
    right.set_title("Learning curves (greedy policy, fixed evaluation shoes)", fontsize=9)
    right.set_ylim(-0.6, 1.1)
    save_figure(fig, path)


__all__ = [
    "FULL",
    "LEVEL_TABLES",
    "QUICK",
    "TARGETS",
    "Benchmark",
    "make_benchmark",
    "play_benchmark_run",
    "plot_benchmark",
    "run_benchmark",
    "summarise_runs",
]

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

**Held-out seeds.** The seeds that ever chose a setting (:data:`TUNING_SEEDS`) are not the seeds the
benchmark reports on (:data:`REPORTING_SEEDS`, the default): a configuration chosen by its score on
some seeds and reported on the same seeds overstates how often it works.

**The interval holds both sources of noise.** Each training seed is evaluated on shoes of its own
(the level's plan, :data:`trente_env.levels.LEVEL_PLAN`: the evaluation seed derived from the training
seed by :func:`trente_env.seeding.evaluation_seed`), so the seeds are independent draws of both the
training and the evaluation shoes, and the bootstrap over seeds is an interval for the expected
score, not for the score on one set of shoes. The ideal policy plays each seed's shoes too: its
score, 1 in expectation on a rigged level, is printed beside the agent's with the same interval, and
a test checks that this interval covers it about 95% of the time (:func:`ideal_shares`).
"""

from __future__ import annotations

import csv
import json
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
from experiments.rl.score import gambler_horizon, headline, optimum, score, share_of_optimum, summarise
from experiments.rl.sweep import RUN_FILES, Sweep, SweepRun, play_runs
from trente_env.levels import LEVEL_PLAN, LEVELS, Level, get_level
from trente_env.plan import EvalPlan

#: Every seed that ever chose a setting of the shipped configuration: 0-4 chose it, 5-9 checked it
#: and chose what changed after (docs/rl.md, "Tuning and reporting seeds"). Never reported on by default.
TUNING_SEEDS = tuple(range(0, 10))
#: The seeds the benchmark reports on: none of them ever chose anything.
REPORTING_SEEDS = tuple(range(10, 20))
#: The quick pass (the default): these levels, these algorithms, these seeds.
QUICK = {"levels": ("fair", "rig-1"), "algos": ("ppo",), "seeds": REPORTING_SEEDS}
#: ``--full``: every level and both algorithms of the witness.
FULL = {"levels": tuple(LEVELS), "algos": ("ppo", "a2c"), "seeds": REPORTING_SEEDS}
#: Each level's training budget in timesteps (coups, all tables) unless ``--timesteps`` says
#: otherwise (:attr:`trente_env.levels.Level.budget`).
BUDGETS = {name: level.budget for name, level in LEVELS.items()}
#: The targets of the headline score, per level (:attr:`trente_env.levels.Level.target`).
TARGETS = {name: level.target for name, level in LEVELS.items()}
#: Timesteps between two points of a run's learning curve.
CURVE_EVERY = 50_000
#: The columns of ``benchmark.csv``.
COLUMNS = (
    "level", "algo", "seed", "eval_seed", "timesteps", "score", "share_of_optimum", "share_per_unit", "sat_out",
    "reward_per_coup", "return_per_unit", "loss_vs_flat", "ideal_score", "ideal_share", "train_seconds",
)  # fmt: skip


@dataclass(frozen=True)
class Benchmark:
    """What a benchmark plays: levels x algorithms x seeds, ``timesteps`` each (None: each level's
    budget, :data:`BUDGETS`), each run evaluated by ``plan`` (by default the levels' own: each
    training seed on its own shoes)."""

    levels: tuple[str, ...]
    algos: tuple[str, ...]
    seeds: tuple[int, ...]
    timesteps: int | None
    plan: EvalPlan = LEVEL_PLAN
    curve_every: int = CURVE_EVERY
    config: str | None = None  #: the hyper-parameter file (None: the shipped one)

    def budget(self, level: str) -> int:
        """The timesteps of a run on ``level``."""
        return self.timesteps if self.timesteps is not None else BUDGETS[level]

    def sweep(self) -> Sweep:
        """The runs as a sweep (its resumable runner and identities), in level, algorithm, seed order."""
        runs = tuple(
            SweepRun(algo, parse_venue(level), seed, self.budget(level))
            for level in self.levels
            for algo in self.algos
            for seed in self.seeds
        )
        source = {"kind": "benchmark", "curve_every": self.curve_every, "benchmark": self.as_dict()}
        return Sweep(runs, self.plan, self.config, source)

    def as_dict(self) -> dict[str, Any]:
        return {
            "levels": list(self.levels), "algos": list(self.algos), "seeds": list(self.seeds),
            "timesteps": {level: self.budget(level) for level in self.levels},
            "episodes": self.plan.sessions, "coups": self.plan.coups, "eval_seed": self.plan.seed,
            "evaluation": self.plan.describe(),
            "curve_every": self.curve_every, "config": self.config,
        }  # fmt: skip


def make_benchmark(
    full: bool = False,
    levels: Sequence[str] | None = None,
    algos: Sequence[str] | None = None,
    seeds: Sequence[int] | None = None,
    timesteps: int | None = None,
    episodes: int = LEVEL_PLAN.sessions,
    coups: int = LEVEL_PLAN.coups,
    curve_every: int = CURVE_EVERY,
    config: str | Path | None = None,
) -> Benchmark:
    """The quick pass (:data:`QUICK`) or, with ``full``, :data:`FULL`; each part can be replaced.
    ``timesteps``: every run's budget (default: each level's, :data:`BUDGETS`). ``episodes`` sessions
    of ``coups`` coups evaluate each run, on its training seed's own shoes. ``config``: a
    hyper-parameter file instead of the shipped one (the witness is the shipped one).

    :raises RLError: an unknown level or algorithm, no seeds, a budget below 1, a config whose stake
        menu is not the levels' (the optimum is the levels' largest stake's).
    """
    base = FULL if full else QUICK
    levels = tuple(levels or base["levels"])
    algos = tuple(algos or base["algos"])
    seeds = tuple(seeds if seeds is not None else base["seeds"])
    unknown = [name for name in levels if name not in LEVELS]
    if unknown:
        raise RLError(f"unknown level {unknown[0]!r}; choose from {', '.join(LEVELS)}")
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
    for algo in algos:  # a missing or malformed file is refused before any work
        menu = tuple(load_config(algo, config).train.stake_levels)
        wrong_menu = [name for name in levels if tuple(LEVELS[name].stakes) != menu]
        if wrong_menu:
            level = LEVELS[wrong_menu[0]]
            raise RLError(
                f"the {level.name} level offers the stakes {', '.join(f'{s:g}' for s in level.stakes)}; "
                f"the {algo} config offers {', '.join(f'{s:g}' for s in menu)}"
            )
    path = None if config is None else str(config)
    plan = EvalPlan(episodes, coups, seed=None)
    return Benchmark(levels, algos, seeds, timesteps, plan, curve_every, path)


def play_benchmark_run(sweep: Sweep, run: SweepRun) -> dict[str, Any]:
    """Train and evaluate ``run`` in a scratch folder as ``train`` and ``evaluate`` would, let the
    ideal policy play the same evaluation sessions, and score both against the exact optimum.
    Returns the row (with the learning curve), the evaluation and the run's files."""
    from experiments.rl.evaluate import evaluate_model, evaluation_report, watch_sessions
    from experiments.rl.train import train_agent
    from strategies.ideal import ideal_policy

    curve_every = int(sweep.source.get("curve_every", CURVE_EVERY))
    venue = run.venue
    level = get_level(venue.name)
    observe_shoe = bool(level.env_kwargs.get("observe_shoe", False))
    best = optimum(venue, level.stake)
    with tempfile.TemporaryDirectory(prefix="trente-lab-benchmark-") as scratch:
        folder = Path(scratch) / run.name
        summary = train_agent(
            run.algo, run.timesteps, venue=venue, seed=run.seed, out_dir=folder, eval_every=curve_every,
            config_path=sweep.config, observe_shoe=observe_shoe,
        )  # fmt: skip
        report = evaluate_model(str(folder / "model.zip"), sweep.plan, training_seed=run.seed)
        files = {name: (folder / name).read_bytes() for name in RUN_FILES if (folder / name).exists()}
        curve = summary_curve(summary)
    ideal_play = watch_sessions(ideal_policy(level), venue, sweep.plan, training_seed=run.seed)
    ideal = evaluation_report(ideal_play, venue)
    scores = score(report, best)
    ideal_scores = score(ideal, best)
    row = {
        "name": run.name, "level": level.name, "table": venue.name, "algo": run.algo, "seed": run.seed,
        "eval_seed": sweep.plan.seed_for(run.seed),
        "timesteps": summary["timesteps"], "train_seconds": summary["seconds"], "score": headline(scores),
        **scores,
        "ideal_score": headline(ideal_scores),
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


def ideal_shares(level: Level, plan: EvalPlan, training_seeds: Sequence[int]) -> np.ndarray:
    """The ideal policy's headline score on a rigged level (its share of the optimum per coup) on
    the evaluation shoes of each training seed (``plan.seed_for(seed)``), as :func:`play_benchmark_run`
    scores it beside that seed's agent; every seed's sessions played in one batch.

    :raises ValueError: a level whose optimum is 0 (``fair``: the ideal stakes nothing, its score is 1).
    """
    from experiments.rl.evaluate import DEFAULT_BANKROLL
    from strategies.ideal import ideal_policy
    from strategies.runner import play_on_env
    from trente_env.seeding import session_seeds
    from trente_env.tables import TooManyTables

    if not level.optimum_per_coup > 0:
        raise ValueError(f"the {level.name} level's optimum is {level.optimum_per_coup}: no share of it")
    seeds = [s for t in training_seeds for s in session_seeds(plan.seed_for(t), plan.sessions)]
    try:
        results = play_on_env(ideal_policy(level), level.rules, DEFAULT_BANKROLL, plan.coups, seeds)
    except TooManyTables as exc:  # every seed's sessions at once, a table each
        raise RLError(f"{len(seeds):,} sessions: {exc}; play fewer (--episodes)") from None
    net = np.asarray(results.net, dtype=np.float64).reshape(len(training_seeds), plan.sessions).sum(axis=1)
    coups = np.asarray(results.coups, dtype=np.float64).reshape(len(training_seeds), plan.sessions).sum(axis=1)
    best = optimum(parse_venue(level.name), level.stake)
    return np.array([share_of_optimum(n / c, best) for n, c in zip(net, coups)])


def summarise_runs(bench: Benchmark, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per level and algorithm: the IQM and 95% bootstrap interval over seeds of the headline score,
    the share per unit staked and the coups sat out, and the ideal policy's score on the same shoes;
    how many seeds reach the level's target."""
    groups = []
    for level in bench.levels:
        for algo in bench.algos:
            mine = [r for r in rows if r["level"] == level and r["algo"] == algo]
            target = TARGETS.get(level)
            groups.append(
                {
                    "level": level, "algo": algo, "seeds": len(mine), "target": target,
                    "score": summarise([r["score"] for r in mine]),
                    "ideal": summarise([r.get("ideal_score") for r in mine]),
                    "share_per_unit": summarise([r["share_per_unit"] for r in mine]),
                    "sat_out": summarise([r["sat_out"] for r in mine]),
                    "reached": sum(r["score"] >= target for r in mine) if target is not None else None,
                    "train_seconds": float(np.mean([r["train_seconds"] for r in mine])) if mine else None,
                }
            )  # fmt: skip
    return groups


def run_benchmark(
    bench: Benchmark, out: str | Path, backend: Backend = LOCAL, workers: int = 1, progress: bool = False
) -> dict[str, Any]:
    """Play every run of ``bench`` not yet saved in ``out`` (on ``backend``), then write
    ``benchmark.json``, ``benchmark.csv`` and ``benchmark.png``; returns the document as written (a
    missing figure is ``None``)."""
    out = check_output_folder(Path(out))
    for algo in bench.algos:
        algo_class(algo)  # stable-baselines3 (or sb3-contrib) is there, before anything is written
    sweep = bench.sweep()
    rows = play_runs(sweep, out, backend, workers, progress, play=play_benchmark_run, label="benchmark (training runs)")
    horizon = gambler_horizon(parse_venue("fair"))
    document = {
        "benchmark": bench.as_dict(),
        "targets": TARGETS,
        "tuning_seeds": list(TUNING_SEEDS),
        "reporting_seeds": list(REPORTING_SEEDS),
        "gambler_horizon": horizon,
        # the exact figure's model, as on a rigged level (the fair level's optimum is 0 whatever the model)
        "optimum_model": next((r["optimum_model"] for r in rows if r["level"] != "fair"), None),
        "summary": summarise_runs(bench, rows),
        "runs": rows,
    }
    atomic_write_json(out / "benchmark.json", document, strict=True)  # standard JSON: null, never NaN
    atomic_write_csv(out / "benchmark.csv", rows, COLUMNS)
    plot_benchmark(out / "benchmark.png", document)
    return json.loads((out / "benchmark.json").read_text())  # what was written, as written


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
        if s["ci_low"] is not None:
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
    "BUDGETS",
    "FULL",
    "QUICK",
    "REPORTING_SEEDS",
    "TARGETS",
    "TUNING_SEEDS",
    "Benchmark",
    "ideal_shares",
    "make_benchmark",
    "play_benchmark_run",
    "plot_benchmark",
    "run_benchmark",
    "summarise_runs",
]

"""Many training runs at once (``trente-lab sweep``): algorithms x tables x seeds x hyper-parameters,
each trained and evaluated exactly as ``trente-lab train`` and ``trente-lab evaluate`` would do it
alone, on this machine or on a Dask cluster (:mod:`experiments.backends`).

A sweep is a TOML file::

    [sweep]
    algos = ["ppo", "a2c"]                  # trente-lab train --algo (default ["ppo"])
    tables = ["classic", "rigged-classic"]  # presets, or rigged-<preset>: the positive control
    seeds = "0..9"                          # "A..B" (inclusive), or a list of seeds
    timesteps = 100000                      # coups to train on, per run
    config = "rl.toml"                      # hyper-parameter file (default: the shipped one)

    [sweep.hyper.ppo]                       # optional: a grid of hyper-parameters per algorithm
    learning_rate = [0.0003, 0.001]

    [sweep.evaluate]                        # trente-lab evaluate's settings (these are the defaults)
    episodes = 200
    coups = 1000
    seed = 10000

Each run (:func:`play_run`) trains in a scratch folder of the worker, evaluates its model, and sends
back the evaluation and the model's files; this process writes them under ``OUT/runs/<name>/``
with a ``result.json`` that records the run's identity (its settings and trente-lab's code), so an
interrupted sweep resumes with the runs it has and plays the others. The runs use one torch thread
each; a run's numbers depend on its settings only, so they are the same as the same run done alone,
on any backend. At the end ``OUT/sweep.csv``, ``sweep.json`` and ``sweep.png``: each agent's return
per unit staked with its 95% interval, beside the exact expectation of the stakes it placed.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.backends import LOCAL, Backend, dask_client, run_on_dask
from experiments.console import progress_bar
from experiments.errors import RLError
from experiments.files import (
    CONFIG_BYTES,
    RESULTS_BYTES,
    atomic_write_bytes,
    atomic_write_csv,
    atomic_write_json,
    check_output_folder,
    read_input_text,
    read_json,
    read_toml,
    save_figure,
)
from experiments.rl.algorithms import TRAINABLE
from experiments.rl.config import DEFAULT_CONFIG, algo_class
from experiments.rl.rig import Venue, parse_venue
from experiments.workers import run_in_processes
from trente_env.plan import EVAL_PLAN, EvalPlan
from trente_env.whole import checked_whole, is_whole

#: Runs in one sweep at most (a grid that multiplies out to more is refused before any work).
MAX_RUNS = 10_000
#: The files of a run sent back from the worker and written under ``OUT/runs/<name>/``.
RUN_FILES = ("model.zip", "model.json", "curve.csv", "curve.png")
#: The columns of ``sweep.csv``.
COLUMNS = (
    "name", "algo", "table", "seed", "hyper", "timesteps", "return_per_unit", "ci_low", "ci_high",
    "expected_return_per_unit", "p_value", "verdict", "sat_out", "mean_stake_per_coup", "reward_per_coup",
    "share_of_optimum", "share_per_unit", "train_seconds",
)  # fmt: skip


@dataclass(frozen=True)
class SweepRun:
    """One training run of a sweep and its evaluation."""

    algo: str
    venue: Venue  #: the table (a preset, ``rigged-<preset>`` or a level: :func:`~experiments.rl.rig.parse_venue`)
    seed: int
    timesteps: int
    hyper: tuple[tuple[str, Any], ...] = ()  #: overrides of the algorithm's hyper-parameters

    @property
    def name(self) -> str:
        extra = "".join(f"-{k}={v}" for k, v in self.hyper)
        return f"{self.algo}-{self.venue.name}-seed{self.seed}{extra}"

    def record(self) -> dict[str, Any]:
        """The run's settings as saved runs are identified by (the table by its name)."""
        return {"algo": self.algo, "table": self.venue.name, "seed": self.seed, "timesteps": self.timesteps,
                "hyper": self.hyper}  # fmt: skip


@dataclass(frozen=True)
class Sweep:
    """A sweep's runs and the settings they share."""

    runs: tuple[SweepRun, ...]
    plan: EvalPlan = EVAL_PLAN  #: how each run is evaluated (a fixed seed, or each training seed's own shoes)
    config: str | None = None  #: the hyper-parameter file (None: the shipped one)
    source: dict[str, Any] = field(default_factory=dict, compare=False)  #: the TOML it was read from

    def identity(self, run: SweepRun) -> str:
        """A digest of everything a run's numbers depend on: its settings, the hyper-parameter file,
        trente-lab's code and the versions of the libraries that train."""
        import stable_baselines3
        import torch

        from experiments.backends import worker_versions

        config_text = read_input_text(self.config or DEFAULT_CONFIG, "config", CONFIG_BYTES, RLError)
        plan = self.plan
        settings = {"run": run.record(), "episodes": plan.sessions, "coups": plan.coups, "eval_seed": plan.seed}
        if self.source.get("kind", "sweep") != "sweep":  # a benchmark's run: other settings, other files
            # but not the plan around it: a benchmark grown by a seed or a level keeps the runs it has
            settings["source"] = {k: v for k, v in self.source.items() if k != "benchmark"}
        libraries = {"torch": torch.__version__, "stable_baselines3": stable_baselines3.__version__}
        document = {**settings, "config": config_text, "code": worker_versions(), **libraries}
        return hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()


def parse_seeds(value: Any, where: str) -> list[int]:
    """``"A..B"`` (both included), one seed, or a list of seeds."""
    if isinstance(value, str):
        low, dots, high = value.partition("..")
        if dots and low.strip().isdigit() and high.strip().isdigit() and int(low) <= int(high):
            return list(range(int(low), int(high) + 1))
        raise RLError(f"{where}: seeds must be 'A..B' with 0 <= A <= B, a seed or a list of seeds, got {value!r}")
    values = value if isinstance(value, list) else [value]
    if not values or not all(is_whole(s, 0, 2**32 - 1, numpy=False) for s in values):
        raise RLError(f"{where}: seeds must be whole numbers from 0 to 2**32 - 1, got {value!r}")
    return list(values)


#: The sweeps shipped with trente-lab, used by name (``trente-lab sweep sweep-seeds``).
SHIPPED = Path(__file__).parent.parent / "configs"


def load_sweep(path: str | Path) -> Sweep:
    """The sweep in the TOML file ``path`` (or the shipped sweep of that name, e.g. ``sweep-seeds``);
    every mistake is an :class:`RLError` with one line."""
    if not Path(path).exists() and (SHIPPED / f"{path}.toml").is_file() and str(path).startswith("sweep-"):
        path = SHIPPED / f"{path}.toml"
    where = f"sweep file {str(path)!r}"
    document = read_toml(Path(path), RLError, "sweep file")
    table = document.get("sweep")
    if not isinstance(table, Mapping):
        raise RLError(f"{where}: needs a [sweep] table")
    known = {"algos", "tables", "seeds", "timesteps", "config", "hyper", "evaluate"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise RLError(f"{where}: unknown [sweep] key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    algos = table.get("algos", ["ppo"])
    if not isinstance(algos, list) or not algos or any(a not in TRAINABLE for a in algos):
        raise RLError(f"{where}: algos must be a list of {', '.join(TRAINABLE)}, got {algos!r}")
    tables = table.get("tables", ["classic"])
    if not isinstance(tables, list) or not tables or not all(isinstance(t, str) for t in tables):
        raise RLError(f"{where}: tables must be a list of presets (or rigged-<preset>), got {tables!r}")
    venues = [parse_venue(name) for name in tables]  # an unknown preset is refused here, before any work
    seeds = parse_seeds(table.get("seeds", [0]), where)
    timesteps = table.get("timesteps", 100_000)
    message = f"{where}: timesteps must be a whole number from 1 to 10**12, got {timesteps!r}"
    checked_whole(timesteps, message, 1, 10**12, numpy=False, error=RLError)
    config = table.get("config")
    if config is not None:
        config = str((Path(path).parent / config) if not Path(config).is_absolute() else config)
        if not Path(config).is_file():
            raise RLError(f"{where}: no hyper-parameter file {config!r}")
    grids = table.get("hyper", {})
    if not isinstance(grids, Mapping) or not all(isinstance(g, Mapping) for g in grids.values()):
        raise RLError(f"{where}: [sweep.hyper.<algo>] tables map a hyper-parameter to a list of values")
    evaluate = table.get("evaluate", {})
    settings = {"episodes": EVAL_PLAN.sessions, "coups": EVAL_PLAN.coups, "seed": EVAL_PLAN.seed}
    if not isinstance(evaluate, Mapping) or set(evaluate) - set(settings):
        raise RLError(f"{where}: [sweep.evaluate] takes {', '.join(settings)}")
    settings.update(evaluate)
    for key, value in settings.items():
        if not is_whole(value, 0 if key == "seed" else 1, numpy=False):
            raise RLError(f"{where}: [sweep.evaluate] {key} must be a whole number, got {value!r}")
    runs = []
    for algo in algos:
        grid = {k: (v if isinstance(v, list) else [v]) for k, v in grids.get(algo, {}).items()}
        combos = [tuple(zip(grid, values)) for values in itertools.product(*grid.values())] or [()]
        runs += [SweepRun(algo, v, s, timesteps, combo) for v in venues for s in seeds for combo in combos]
        if len(runs) > MAX_RUNS:
            raise RLError(f"{where}: more than {MAX_RUNS:,} runs; split the sweep")
    plan = EvalPlan(settings["episodes"], settings["coups"], settings["seed"])
    return Sweep(tuple(runs), plan, config, dict(document))


# -- one run ---------------------------------------------------------------------------------------


def play_run(sweep: Sweep, run: SweepRun) -> dict[str, Any]:
    """Train and evaluate ``run`` in a scratch folder (on whichever machine runs it), as
    ``trente-lab train`` then ``trente-lab evaluate`` would; returns its row and its files."""
    from experiments.rl.evaluate import evaluate_model
    from experiments.rl.train import train_agent

    with tempfile.TemporaryDirectory(prefix="trente-lab-sweep-") as scratch:
        folder = Path(scratch) / run.name
        summary = train_agent(
            run.algo, run.timesteps, venue=run.venue, seed=run.seed, out_dir=folder,
            config_path=sweep.config, hyper=dict(run.hyper),
        )  # fmt: skip
        report = evaluate_model(str(folder / "model.zip"), sweep.plan, training_seed=run.seed)
        files = {name: (folder / name).read_bytes() for name in RUN_FILES if (folder / name).exists()}
    estimate = report["return_per_unit_staked"]
    row = {
        "name": run.name, "algo": run.algo, "table": run.venue.name, "seed": run.seed,
        "hyper": ";".join(f"{k}={v}" for k, v in run.hyper), "timesteps": summary["timesteps"],
        "return_per_unit": estimate["ratio"], "ci_low": estimate["ci_low"], "ci_high": estimate["ci_high"],
        "expected_return_per_unit": report["expected_return_per_unit"], "p_value": report.get("p_value"),
        "verdict": report.get("verdict"),
        "sat_out": report["behaviour"]["sat_out"], "mean_stake_per_coup": report["behaviour"]["mean_stake_per_coup"],
        "reward_per_coup": report["reward_per_coup"]["agent"], "share_of_optimum": report["score"]["share_of_optimum"],
        "share_per_unit": report["score"]["share_per_unit"],
        "train_seconds": summary["seconds"],
    }  # fmt: skip
    return {"row": row, "evaluation": report, "files": files}


# -- the sweep -------------------------------------------------------------------------------------


def _result_path(out: Path, run: SweepRun) -> Path:
    return out / "runs" / run.name / "result.json"


def saved_result(out: Path, sweep: Sweep, run: SweepRun) -> dict[str, Any] | None:
    """The row of ``run`` saved in ``out`` by this very sweep (same settings, same code), else None."""
    if not _result_path(out, run).exists():
        return None
    try:
        saved = read_json(_result_path(out, run), "run result", RESULTS_BYTES, RLError)
    except RLError:  # damaged or not a file: the run is made again (and its writing refuses what is not a file)
        return None
    return saved["row"] if isinstance(saved, dict) and saved.get("identity") == sweep.identity(run) else None


def _save(out: Path, sweep: Sweep, run: SweepRun, result: Mapping[str, Any]) -> None:
    folder = out / "runs" / run.name
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in result["files"].items():
        atomic_write_bytes(folder / name, data)  # only over a regular file or at a new path
    document = {"identity": sweep.identity(run), "row": result["row"], "evaluation": result["evaluation"]}
    atomic_write_json(_result_path(out, run), document)  # last: a run counts once every file is there


def play_runs(
    sweep: Sweep,
    out: Path,
    backend: Backend = LOCAL,
    workers: int = 1,
    progress: bool = False,
    play: Callable[[Sweep, SweepRun], dict[str, Any]] | None = None,
    label: str = "sweep (training runs)",
) -> list[dict[str, Any]]:
    """Play with ``play`` (a top-level function: Dask sends it to its workers; default
    :func:`play_run`, looked up when called) every run of ``sweep`` not yet saved in ``out``, saving
    each as it ends; the rows of all runs in the sweep's order. Ctrl-C keeps every run already
    finished (``trente-lab benchmark`` plays its runs through this too)."""
    play = play_run if play is None else play
    out.mkdir(parents=True, exist_ok=True)
    rows: dict[str, dict[str, Any]] = {}
    for run in sweep.runs:
        row = saved_result(out, sweep, run)
        if row is not None:
            rows[run.name] = row
    todo = [run for run in sweep.runs if run.name not in rows]
    with progress_bar(progress) as bar:
        task = bar.add_task(label, total=len(sweep.runs), completed=len(rows))

        def done(run: SweepRun, result: Mapping[str, Any]) -> None:
            _save(out, sweep, run, result)
            rows[run.name] = result["row"]
            bar.advance(task)

        tasks = ((run, (sweep, run)) for run in todo)
        if todo and backend.kind == "dask":
            with (
                tempfile.TemporaryDirectory(prefix=".dask-", dir=out) as scratch,
                dask_client(backend, workers, Path(scratch)) as client,
            ):
                run_on_dask(client, play, tasks, done)
        elif workers <= 1 or not todo:
            for run, arguments in tasks:
                done(run, play(*arguments))
        else:  # one run a process at a time: after Ctrl-C no queued run starts
            run_in_processes(play, tasks, done, min(workers, len(todo)))
    return [rows[run.name] for run in sweep.runs]


def run_sweep(
    sweep: Sweep, out: str | Path, backend: Backend = LOCAL, workers: int = 1, progress: bool = False
) -> dict[str, Any]:
    """Play every run of ``sweep`` not yet saved in ``out`` (on ``backend``), then write the table
    and the plot; returns the sweep's document. Ctrl-C keeps every run already finished."""
    out = check_output_folder(Path(out))
    for algo in {run.algo for run in sweep.runs}:
        algo_class(algo)  # stable-baselines3 (or sb3-contrib) is there, before anything is written
    ordered = play_runs(sweep, out, backend, workers, progress)
    document = {"sweep": sweep.source.get("sweep", {}), "runs": ordered}
    atomic_write_json(out / "sweep.json", document)
    atomic_write_csv(out / "sweep.csv", ordered, COLUMNS)
    plot_sweep(out / "sweep.png", ordered)
    return document


def plot_sweep(path: Path, rows: list[dict[str, Any]]) -> None:
    """Each agent's return per unit staked with its 95% interval (one row per run, by table), and
    the exact expectation of the stakes it placed (a tick on the same row)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import PercentFormatter

    ordered = sorted(rows, key=lambda r: (r["table"], r["algo"], r["seed"], r["hyper"]))
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.32 * len(ordered)))
    for y, row in enumerate(ordered):
        if row["return_per_unit"] is None or row["ci_low"] is None:  # an agent that never bet
            ax.annotate("no stakes", (0, y), fontsize=8, va="center")
            continue
        mid = row["return_per_unit"]
        colour = "tab:red" if row["table"].startswith("rigged-") else "tab:blue"
        ax.errorbar(mid, y, xerr=[[mid - row["ci_low"]], [row["ci_high"] - mid]], fmt="o", color=colour, capsize=3)
        if row["expected_return_per_unit"] is not None:
            ax.plot(row["expected_return_per_unit"], y, "|", color="black", markersize=12)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(range(len(ordered)), [r["name"] for r in ordered], fontsize=8)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=1))
    ax.set_xlabel("return per unit staked (95% interval); | = exact expectation of the stakes placed")
    ax.set_title("Trained agents: fair tables (blue), positive control (red)")
    fig.tight_layout()
    save_figure(fig, path)


__all__ = [
    "COLUMNS", "MAX_RUNS", "RUN_FILES", "Sweep", "SweepRun", "load_sweep", "parse_seeds", "play_run", "play_runs",
    "run_sweep",
]  # fmt: skip

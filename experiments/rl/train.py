"""``trente-lab train``: train a stable-baselines3 agent on the native vector environment.

The agent sees the flat observation (bankroll, coups, prisoners, the scoreboard one-hot) through
:class:`~experiments.features.LogScaledFlat` and bets in the discrete form by default (sit out, or one of
the stake levels on one box). Hyper-parameters come from ``experiments/configs/rl.toml``. Every
``eval_every`` timesteps the greedy policy plays ``eval_sessions`` fixed sessions (the same shoes
every time) and the learning curve records its reward per coup and its return per unit staked
with a 95% interval. Written to ``--out``: ``model.zip`` (SB3; loading it runs code),
``model.json`` (what it was trained on), ``curve.csv`` and ``curve.png``.
"""

from __future__ import annotations

import csv
import io
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from experiments.console import (
    MAX_COUPS,
    MAX_TABLES,
    check_output_folder,
    err,
    fail,
    out,
    print_json,
)
from experiments.evaluate import play_sessions, summarise
from experiments.files import atomic_write, atomic_write_json, atomic_write_text, save_figure
from experiments.rl import (
    ALGOS,
    RLConfig,
    RLError,
    Table,
    algo_class,
    load_config,
    metadata_path,
    parse_table,
    sb3_env,
    set_threads,
)

#: The largest seed stable-baselines3 takes (it seeds numpy's legacy generator).
MAX_SB3_SEED = 2**32 - 1

CURVE_COLUMNS = ("timesteps", "reward_per_coup", "return_per_unit", "ci_low", "ci_high", "sat_out", "seconds")


class Algo(str, Enum):
    ppo = "ppo"
    a2c = "a2c"
    dqn = "dqn"
    maskable_ppo = "maskable-ppo"


class Form(str, Enum):
    discrete = "discrete"
    full = "full"


def evaluate_now(model: Any, table: Table, config: RLConfig, env_kwargs: dict[str, Any], seed: int) -> dict[str, Any]:
    """The greedy policy of ``model`` on the fixed evaluation sessions (the same shoes every time),
    played by the session runner as ``trente-lab evaluate`` plays it: the summary of
    :func:`experiments.evaluate.summarise`."""
    from strategies.model import ModelPolicy

    policy = ModelPolicy.of(model, config.algo, {"env": env_kwargs, "boxes": len(table.rules.boxes)})
    s = config.train
    return summarise(play_sessions(policy, table, s.eval_sessions, s.eval_coups, seed), table)


def _curve_callback(table: Table, config: RLConfig, env_kwargs: dict[str, Any], seed: int, progress: Progress | None):
    from stable_baselines3.common.callbacks import BaseCallback

    class LearningCurve(BaseCallback):
        """Evaluate every ``eval_every`` timesteps; log to SB3's logger, the curve and the progress bar."""

        def __init__(self) -> None:
            super().__init__()
            self.rows: list[dict[str, float]] = []
            self.next_eval = 0
            self.eval_seconds = 0.0
            self.task = progress.add_task("training", total=None) if progress else None

        def evaluate(self) -> None:
            start = time.perf_counter()
            report = evaluate_now(self.model, table, config, env_kwargs, seed)
            self.eval_seconds += time.perf_counter() - start
            r = report["return_per_unit_staked"]
            row = {
                "timesteps": self.num_timesteps,
                "reward_per_coup": report["reward_per_coup"]["agent"],
                "return_per_unit": r["ratio"],
                "ci_low": r["ci_low"],
                "ci_high": r["ci_high"],
                "sat_out": report["behaviour"]["sat_out"],
                "seconds": time.perf_counter() - self.start,
            }
            self.rows.append(row)
            for key in ("reward_per_coup", "return_per_unit", "sat_out"):
                self.logger.record(f"eval/{key}", row[key])
            if progress is not None:
                progress.update(
                    self.task,
                    description=f"training · return/unit {_pct(row['return_per_unit'])} · sat out {row['sat_out']:.0%}",
                )
            self.next_eval = self.num_timesteps + config.train.eval_every

        def _on_training_start(self) -> None:
            self.start = time.perf_counter()
            if progress is not None:
                progress.update(self.task, total=self.locals.get("total_timesteps"))
            self.evaluate()

        def _on_step(self) -> bool:
            if progress is not None:
                progress.update(self.task, completed=self.num_timesteps)
            if self.num_timesteps >= self.next_eval:
                self.evaluate()
            return True

        def _on_training_end(self) -> None:
            if not self.rows or self.rows[-1]["timesteps"] != self.num_timesteps:
                self.evaluate()

    return LearningCurve()


def _pct(x: float) -> str:
    return "n/a" if x != x else f"{x:+.2%}"


def build_model(config: RLConfig, venv: Any, seed: int, tensorboard: str | None = None) -> Any:
    """The SB3 model of ``config`` on ``venv`` (one-line errors on bad hyper-parameters)."""
    from experiments.features import LogScaledFlat

    cls = algo_class(config.algo)
    hyper = dict(config.hyper)
    policy_kwargs = dict(hyper.pop("policy_kwargs", {}))
    policy_kwargs.setdefault("net_arch", list(config.train.net_arch))
    policy_kwargs.setdefault("features_extractor_class", LogScaledFlat)
    try:
        return cls(
            "MlpPolicy", venv, seed=seed, device="cpu", policy_kwargs=policy_kwargs, tensorboard_log=tensorboard,
            verbose=0, **hyper,
        )  # fmt: skip
    except (TypeError, ValueError, AssertionError) as exc:
        raise RLError(f"bad hyper-parameters for {config.algo}: {exc}".splitlines()[0]) from None


def train_agent(
    algo: str = "ppo",
    timesteps: int = 200_000,
    rules: str = "classic",
    action_form: str = "discrete",
    n_envs: int | None = None,
    seed: int = 0,
    out_dir: str | Path | None = None,
    tensorboard: bool = False,
    rigged: bool = False,
    config_path: str | Path | None = None,
    progress: bool = False,
    eval_every: int | None = None,
) -> dict[str, Any]:
    """Train ``algo`` for ``timesteps`` steps (coups, summed over tables) and save model, curve, plot.

    :param rules: the table: a preset, or ``rigged-<preset>`` for the positive control.
    :param rigged: rig the table (same as ``rules="rigged-<preset>"``).
    :param n_envs: tables played side by side (default from the config).
    :param out_dir: where to write (default ``runs/<algo>-<table>-seed<seed>``).
    :return: a summary: files written, training steps per second, the final evaluation.
    """
    try:
        config = load_config(algo, config_path)
        table = parse_table(rules, rigged)
    except RLError as exc:
        fail(str(exc))
    if eval_every is not None:
        from dataclasses import replace

        config = RLConfig(config.algo, config.hyper, replace(config.train, eval_every=eval_every))
    if algo == "dqn" and action_form != "discrete":
        fail("dqn needs --action-form discrete (it cannot act in the full MultiDiscrete form)")
    if action_form not in ("discrete", "full"):
        fail(f"unknown action form {action_form!r}; choose discrete or full")
    tb_dir = None
    out_path = check_output_folder(
        Path(out_dir) if out_dir is not None else Path("runs") / f"{algo}-{table.name}-seed{seed}"
    )
    try:
        algo_class(config.algo)  # stable-baselines3 (or sb3-contrib) is there, before anything is written
    except RLError as exc:
        fail(str(exc))
    if tensorboard:
        try:
            import tensorboard as _tb  # noqa: F401
        except ImportError:
            fail("--tensorboard needs the tensorboard package: pip install tensorboard")
        tb_dir = str(out_path / "tensorboard")
    set_threads(1)
    s = config.train
    env_kwargs = {
        "action_form": action_form,
        "observation": "flat",
        "history": s.history,
        "stake_levels": tuple(float(x) for x in s.stake_levels),
    }
    try:
        venv = sb3_env(table, n_envs or s.n_envs, seed, s.reward_scale, **env_kwargs)
        model = build_model(config, venv, seed, tb_dir)
    except (RLError, ValueError) as exc:
        fail(str(exc).splitlines()[0])
    try:  # the output folder is made once everything else was checked
        out_path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot create output directory {str(out_path)!r}: {exc.strerror or exc}")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True, disable=not progress or not err.is_terminal) as bar:
        callback = _curve_callback(table, config, env_kwargs, seed + 1_000_000, bar if progress else None)
        start = time.perf_counter()
        model.learn(timesteps, callback=callback)
        seconds = time.perf_counter() - start
    model_file = out_path / "model.zip"
    atomic_write(model_file, model.save)  # a unique temporary file, synced, then renamed
    meta = {
        "algo": algo,
        "table": table.name,
        "payout": table.rig.payout if table.rig else None,
        "boxes": len(table.rules.boxes),
        "bankroll": 1000.0,
        "seed": seed,
        "timesteps": int(model.num_timesteps),
        "n_envs": venv.num_envs,
        "env": {k: (list(v) if isinstance(v, tuple) else v) for k, v in env_kwargs.items()},
        "hyper": config.hyper,
        "train": config.train,
    }
    atomic_write_json(metadata_path(model_file), meta)
    rows = callback.rows
    write_curve(out_path / "curve.csv", rows)
    plot_curve(out_path / "curve.png", rows, table, algo)
    learning = seconds - callback.eval_seconds
    final = rows[-1]
    return {
        "algo": algo,
        "table": table.name,
        "positive_control": table.rig.describe() if table.rig else None,
        "timesteps": int(model.num_timesteps),
        "n_envs": venv.num_envs,
        "seconds": seconds,
        "eval_seconds": callback.eval_seconds,
        "steps_per_second": model.num_timesteps / learning if learning > 0 else float("nan"),
        "final_eval": final,
        "files": {
            "model": str(model_file),
            "metadata": str(metadata_path(model_file)),
            "curve_csv": str(out_path / "curve.csv"),
            "curve_png": str(out_path / "curve.png"),
            **({"tensorboard": tb_dir} if tb_dir else {}),
        },
    }


def write_curve(path: Path, rows: list[dict[str, float]]) -> None:
    """The learning curve as CSV (written atomically)."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=CURVE_COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, text.getvalue())


def plot_curve(path: Path, rows: list[dict[str, float]], table: Table, algo: str, ax: Any = None) -> None:
    """Return per unit staked (with its 95% band) and reward per coup against timesteps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from trente_env.odds import house_edges

    t = np.array([r["timesteps"] for r in rows], dtype=np.float64)
    ratio = np.array([r["return_per_unit"] for r in rows], dtype=np.float64)
    low = np.array([r["ci_low"] for r in rows], dtype=np.float64)
    high = np.array([r["ci_high"] for r in rows], dtype=np.float64)
    rpc = np.array([r["reward_per_coup"] for r in rows], dtype=np.float64)
    sat = np.array([r["sat_out"] for r in rows], dtype=np.float64)
    edge = house_edges(table.rules).noir
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True, constrained_layout=True)
    top.fill_between(t, 100 * low, 100 * high, alpha=0.25, label="95% CI over sessions")
    top.plot(t, 100 * ratio, marker="o", ms=3, label="agent (greedy)")
    top.axhline(0, color="black", lw=0.8)
    top.axhline(-100 * edge, color="red", ls="--", lw=1, label=f"-house edge ({-edge:.2%})")
    top.set_ylabel("return per unit staked (%)")
    title = f"{algo} on {table.name}" + ("  [POSITIVE CONTROL: rigged table]" if table.rig else "")
    top.set_title(title)
    top.legend(loc="best", fontsize=8)
    bottom.plot(t, rpc, marker="o", ms=3, label="reward per coup (units)")
    bottom.axhline(0, color="black", lw=0.8)
    bottom.set_ylabel("reward per coup (units)")
    twin = bottom.twinx()
    twin.plot(t, 100 * sat, color="grey", ls=":", label="coups sat out (%)")
    twin.set_ylabel("coups sat out (%)")
    twin.set_ylim(-5, 105)
    bottom.set_xlabel("timesteps (coups, all tables)")
    lines = bottom.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    labels = bottom.get_legend_handles_labels()[1] + twin.get_legend_handles_labels()[1]
    bottom.legend(lines, labels, loc="best", fontsize=8)
    save_figure(fig, path)


def command(
    algo: Annotated[Algo, typer.Option("--algo", "-a", help="Algorithm.")] = Algo.ppo,
    timesteps: Annotated[
        int, typer.Option("--timesteps", "-t", min=1, max=MAX_COUPS, help="Coups to train on, all tables.")
    ] = 200_000,
    rules: Annotated[
        str, typer.Option("--rules", "-r", help="Table: a preset, or rigged-<preset> (positive control).")
    ] = "classic",
    action_form: Annotated[Form, typer.Option("--action-form", help="How the agent bets.")] = Form.discrete,
    n_envs: Annotated[
        int | None, typer.Option("--n-envs", min=1, max=MAX_TABLES, help="Tables side by side (default: config).")
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            "--seed", "-s", min=0, max=MAX_SB3_SEED, help="Seed of the run (stable-baselines3 takes 0 to 2**32 - 1)."
        ),
    ] = 0,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Output directory.")] = None,
    tensorboard: Annotated[
        bool, typer.Option("--tensorboard", help="Also log to TensorBoard (OUT/tensorboard).")
    ] = False,
    rigged: Annotated[
        bool, typer.Option("--rigged", help="POSITIVE CONTROL: rig the table so an edge exists (see docs).")
    ] = False,
    config: Annotated[
        Path | None, typer.Option("--config", help="Hyper-parameter TOML (default: configs/rl.toml).")
    ] = None,
    eval_every: Annotated[
        int | None, typer.Option("--eval-every", min=1, max=MAX_COUPS, help="Timesteps between evaluations.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Train an RL agent (stable-baselines3) on the vector env; save model, learning curve (CSV, PNG).

    Algorithms: ppo, a2c, dqn, maskable-ppo. The model file it writes holds pickled code: loading it
    (evaluate, tournament) runs code, so share and load only files you trust.
    """
    summary = train_agent(
        algo.value, timesteps, rules, action_form.value, n_envs, seed, out_dir, tensorboard, rigged, config,
        progress=not as_json, eval_every=eval_every,
    )  # fmt: skip
    if as_json:
        print_json(summary)
        return
    if summary["positive_control"]:
        out.print(f"[bold magenta]{summary['positive_control']}[/]")
    f = summary["final_eval"]
    out.print(
        f"Trained {summary['algo']} on {summary['table']}: {summary['timesteps']:,} timesteps in "
        f"{summary['seconds']:.0f} s ({summary['steps_per_second']:,.0f} steps/s, evaluation excluded)."
    )
    out.print(
        f"Last evaluation: return per unit staked {_pct(f['return_per_unit'])} "
        f"(95% CI {_pct(f['ci_low'])} to {_pct(f['ci_high'])}), reward per coup {f['reward_per_coup']:+.3f}, "
        f"sat out {f['sat_out']:.0%} of coups."
    )
    for name, path in summary["files"].items():
        out.print(f"  {name}: {path}", style="dim")
    out.print(f"Next: trente-lab evaluate {summary['files']['model']}", style="dim")


__all__ = ["ALGOS", "CURVE_COLUMNS", "build_model", "plot_curve", "train_agent", "write_curve"]

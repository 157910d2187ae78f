"""Training a stable-baselines3 agent on the native vector environment (``trente-lab train``).

The agent sees the flat observation (bankroll, coups, prisoners, the scoreboard one-hot; with
``observe_shoe`` the unseen cards and the cards left to deal too) through
:class:`~experiments.rl.features.LogScaledFlat` and bets in the discrete form by default (sit out, or one of
the stake levels on one box). Hyper-parameters come from ``experiments/configs/rl.toml``. Every
``eval_every`` timesteps the greedy policy plays ``eval_sessions`` fixed sessions (the same shoes
every time) and the learning curve records its reward per coup, its share of the table's exact
optimum per coup (:mod:`experiments.rl.score`), the coups it sat out, and its return per unit staked
with the 95% interval ``evaluate`` prints (none below :data:`~experiments.rl.evaluate.MIN_STAKES`
stakes). Written to ``--out``: ``model.zip`` (SB3's file; the lab reads only its weights),
``model.json`` (what it was trained on), ``curve.csv`` and ``curve.png``.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import Progress

from experiments.console import progress_bar
from experiments.errors import RLError
from experiments.files import (
    CONFIG_BYTES,
    MODEL_BYTES,
    atomic_write,
    atomic_write_csv,
    atomic_write_json,
    check_output_folder,
    claim_folder,
    open_input,
    pyplot,
    read_json,
    save_figure,
)
from experiments.memory import check_memory
from experiments.plotting import edge_label
from experiments.rl.algorithms import NOT_A_WITNESS
from experiments.rl.config import (
    SCHEDULABLE,
    RLConfig,
    algo_class,
    check_hyper,
    linear_start,
    load_config,
    own_tables,
    set_threads,
)
from experiments.rl.evaluate import evaluation_report, watch_sessions
from experiments.rl.rig import Venue, parse_venue, sb3_env
from experiments.rl.score import optimum, score
from strategies.model import ModelPolicy, trusted
from strategies.model_file import lab_network, load_weights
from trente_env.layout import ACTION_FORMS, Layout
from trente_env.odds import house_edges
from trente_env.plan import EvalPlan
from trente_env.whole import checked_whole

CURVE_COLUMNS = (
    "timesteps", "reward_per_coup", "return_per_unit", "ci_low", "ci_high", "stakes", "sat_out", "share_of_optimum",
    "seconds",
)  # fmt: skip


def metadata_path(model_path: str | Path) -> Path:
    """Where the description of a model file lives: ``model.zip`` -> ``model.json``."""
    return Path(model_path).with_suffix(".json")


def evaluate_now(model: Any, venue: Venue, config: RLConfig, env_kwargs: dict[str, Any], seed: int) -> dict[str, Any]:
    """The greedy policy of ``model`` on the fixed evaluation sessions (the same shoes every time),
    played by the session runner as ``trente-lab evaluate`` plays it: the report of
    :func:`experiments.rl.evaluate.evaluation_report`."""
    policy = ModelPolicy.of(model, config.algo, {"env": env_kwargs, "boxes": len(venue.rules.boxes)})
    s = config.train
    return evaluation_report(watch_sessions(policy, venue, EvalPlan(s.eval_sessions, s.eval_coups, seed)), venue)


def _curve_callback(venue: Venue, config: RLConfig, env_kwargs: dict[str, Any], seed: int, progress: Progress):
    from stable_baselines3.common.callbacks import BaseCallback  # the rl extra, imported to train

    best = optimum(venue, max(config.train.stake_levels))
    decay = None

    class LearningCurve(BaseCallback):
        """Evaluate every ``eval_every`` timesteps; log to SB3's logger, the curve and the progress bar."""

        def __init__(self) -> None:
            super().__init__()
            self.rows: list[dict[str, float]] = []
            self.next_eval = 0
            self.eval_seconds = 0.0
            self.task = progress.add_task("training", total=None)

        def evaluate(self) -> None:
            start = time.perf_counter()
            report = evaluate_now(self.model, venue, config, env_kwargs, seed)
            self.eval_seconds += time.perf_counter() - start
            r = report["return_per_unit_staked"]
            scores = score(report, best)
            share = scores["share_of_optimum"]
            row = {
                "timesteps": self.num_timesteps,
                "reward_per_coup": report["reward_per_coup"]["agent"],
                "return_per_unit": r["ratio"],
                "ci_low": r["ci_low"],
                "ci_high": r["ci_high"],
                "stakes": r["stakes"],
                "sat_out": report["behaviour"]["sat_out"],
                "share_of_optimum": float("nan") if share is None else share,
                "seconds": time.perf_counter() - self.start,
            }
            self.rows.append(row)
            for key in ("reward_per_coup", "return_per_unit", "sat_out", "share_of_optimum"):
                self.logger.record(f"eval/{key}", row[key])
            ratio, sat_out = format_return(row["return_per_unit"]), row["sat_out"]
            told = f"share of optimum {share:.0%}" if share is not None else f"return/unit {ratio}"
            progress.update(self.task, description=f"training · {told} · sat out {sat_out:.0%}")
            self.next_eval = self.num_timesteps + config.train.eval_every

        def _on_training_start(self) -> None:
            nonlocal decay
            self.start = time.perf_counter()
            start_coef = getattr(self.model, "ent_coef", None)
            if config.train.ent_decay > 0 and isinstance(start_coef, float):
                total = self.locals.get("total_timesteps") or 1
                decay = entropy_schedule(start_coef, self.num_timesteps, total, config.train.ent_decay)
            progress.update(self.task, total=self.locals.get("total_timesteps"))
            self.evaluate()

        def _on_step(self) -> bool:
            progress.update(self.task, completed=self.num_timesteps)
            if decay is not None:
                self.model.ent_coef = decay(self.num_timesteps)
            if self.num_timesteps >= self.next_eval:
                self.evaluate()
            return True

        def _on_training_end(self) -> None:
            if not self.rows or self.rows[-1]["timesteps"] != self.num_timesteps:
                self.evaluate()

    return LearningCurve()


def entropy_schedule(coef: float, start: int, total: int, fraction: float):
    """The entropy coefficient at each timestep: from ``coef`` at ``start`` falling linearly to 0
    after ``fraction`` of the ``total`` timesteps of the run, 0 after that. Early on, a bonus keeps
    the stakes the policy has not tried yet in play; once it is 0, nothing pays the policy to bet at
    random (a fair table's best policy is to sit out)."""
    span = max(fraction * total, 1.0)
    return lambda t: coef * max(0.0, 1.0 - (t - start) / span)


def linear_schedule(start: float):
    """A rate falling linearly from ``start`` to 0 over a run, as SB3 reads a schedule: a function of
    the share of the run still to go (1 at the start, 0 at the end)."""
    return lambda remaining: start * remaining


def format_return(x: float) -> str:
    """A return per unit staked as a signed percentage, ``n/a`` for NaN (nothing staked)."""
    return "n/a" if x != x else f"{x:+.2%}"


#: ``--device``'s choices: torch's.
DEVICES = ("cpu", "cuda", "auto")

#: Bytes a table of the vector env holds while training, roughly (about 3.5 KB measured at 100,000 tables).
TABLE_BYTES = 4096


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during training: the model of the steps done was saved (``model.json`` says ``partial``)."""

    def __init__(self, model_file: Path, timesteps: int) -> None:
        super().__init__(f"{timesteps} timesteps saved in {model_file}")
        self.model_file, self.timesteps = model_file, timesteps

    def __reduce__(self) -> tuple[Any, ...]:  # sent back whole from a sweep's worker process
        return type(self), (self.model_file, self.timesteps)


def check_device(device: str) -> None:
    """Refuse ``cuda`` when torch sees no CUDA device (it would not train there)."""
    if device not in DEVICES:
        raise RLError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}")
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise RLError(f"--device cuda: torch {torch.__version__} sees no CUDA device; use --device cpu (or auto)")


def training_memory(config: RLConfig, n_envs: int, layout: Layout) -> int:
    """Bytes a run holds at its peak, roughly: the tables, and the rollout buffer (twice: SB3 copies
    it to shuffle it into batches) or the replay buffer, from their array sizes (float32 observations,
    int64 actions, six float32 values a step)."""
    hyper = {**_defaults(algo_class(config.algo)), **config.hyper}
    observation = layout.flat_size * 4
    action = int(np.prod(layout.single_action_space.shape or (1,))) * 8
    masks = int(np.sum(getattr(layout.single_action_space, "nvec", [getattr(layout.single_action_space, "n", 0)])))
    if "buffer_size" in hyper:  # off-policy: a step and the next observation, whatever the tables
        steps = int(hyper["buffer_size"])
        buffer = steps * (2 * observation + action + 12)
    else:
        steps = int(hyper.get("n_steps", 1)) * n_envs
        buffer = 2 * steps * (observation + action + 24 + (4 * masks if config.algo == "maskable-ppo" else 0))
    return n_envs * TABLE_BYTES + buffer


def _defaults(cls: type) -> dict[str, Any]:
    import inspect

    return {
        name: p.default
        for name, p in inspect.signature(cls).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


def silent_logger() -> Any:
    """An SB3 logger that writes nothing anywhere (SB3's default one makes a folder to write in)."""
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


def build_model(config: RLConfig, venv: Any, seed: int, tensorboard: str | None = None, device: str = "cpu") -> Any:
    """The SB3 model of ``config`` on ``venv`` (one-line errors on bad hyper-parameters)."""
    from strategies.features import LogScaledFlat  # torch: imported to train

    check_hyper(config.algo, config.hyper)
    cls = algo_class(config.algo)
    hyper = dict(config.hyper)
    policy_kwargs = dict(hyper.pop("policy_kwargs", {}))
    policy_kwargs.setdefault("net_arch", list(config.train.net_arch))
    policy_kwargs.setdefault("features_extractor_class", LogScaledFlat)
    for key in SCHEDULABLE:  # "lin_<start>": falls linearly to 0 over the run
        start = linear_start(hyper.get(key))
        if start is not None:
            hyper[key] = linear_schedule(start)
    try:
        return cls(
            "MlpPolicy", venv, seed=seed, device=device, policy_kwargs=policy_kwargs, tensorboard_log=tensorboard,
            verbose=0, **hyper,
        )  # fmt: skip
    except (TypeError, ValueError, AssertionError) as exc:
        raise RLError(f"bad hyper-parameters for {config.algo}: {exc}".splitlines()[0]) from None


def _train_agent(
    algo: str = "ppo",
    timesteps: int = 200_000,
    venue: Venue | None = None,
    action_form: str | None = None,
    n_envs: int | None = None,
    seed: int = 0,
    out_dir: str | Path | None = None,
    tensorboard: bool = False,
    config_path: str | Path | None = None,
    progress: bool = False,
    eval_every: int | None = None,
    hyper: Mapping[str, Any] | None = None,
    force: bool = False,
    start_from: str | Path | None = None,
    device: str = "cpu",
    observe_shoe: bool = False,
    warn: Callable[[str], None] | None = None,
    *,
    held: contextlib.ExitStack,
) -> dict[str, Any]:
    """Train ``algo`` for ``timesteps`` steps (coups, summed over tables) and save model, curve, plot.

    :param venue: the table (:func:`~experiments.rl.rig.parse_venue`: a preset, ``rigged-<preset>``
        for the positive control, a graded table); default: the classic table.
    :param action_form: how the agent bets (``discrete``, ``factored`` or ``full``; default: the
        config's ``[train] action_form``, and ``discrete`` for DQN, which acts in no other).
    :param n_envs: tables played side by side (default from the config).
    :param out_dir: where to write (default ``runs/<algo>-<table>-seed<seed>``).
    :param progress: show a progress bar (with the last evaluation) on stderr.
    :param hyper: hyper-parameters of the algorithm that replace the config file's.
    :param force: overwrite a model already in ``out_dir`` (refused otherwise).
    :param start_from: a model saved by ``train`` to go on training (same algorithm and action
        form; its steps count on), instead of a new one.
    :param device: torch's device (``cpu``, ``cuda`` or ``auto``).
    :param observe_shoe: the agent also sees the unseen cards (20 counts, value and colour) and the
        cards left to deal, as a card counter does (the env's ``observe_shoe``); a model trained so
        plays on such an env wherever it is loaded (its ``model.json`` says so).
    :param warn: called with a one-line warning, once everything is checked, when ``algo`` is no
        witness (:data:`~experiments.rl.algorithms.NOT_A_WITNESS`).
    :return: a summary: files written, training steps per second, the final evaluation.
    :raises RLError: bad input, found before anything is written (or a folder that cannot be made, or
        that another run holds: the folder is locked as a tournament's, until the run ends).
    """
    config = load_config(algo, config_path)
    venue = venue if venue is not None else parse_venue("classic")
    if eval_every is not None:
        config = RLConfig(config.algo, config.hyper, replace(config.train, eval_every=eval_every))
    if hyper:
        config = own_tables(RLConfig(config.algo, {**config.hyper, **hyper}, config.train))
    if action_form is None:  # DQN acts in one Discrete space only: the config's form is the others'
        action_form = "discrete" if algo == "dqn" else config.train.action_form
    if action_form not in ACTION_FORMS:
        raise RLError(f"unknown action form {action_form!r}; choose one of {', '.join(ACTION_FORMS)}")
    if algo == "dqn" and action_form != "discrete":
        raise RLError(f"dqn needs --action-form discrete (it cannot act in the {action_form} MultiDiscrete form)")
    check_device(device)
    tb_dir = None
    out_path = check_output_folder(
        Path(out_dir) if out_dir is not None else Path("runs") / f"{algo}-{venue.name}-seed{seed}"
    )
    if (out_path / "model.zip").exists() and not force:
        raise RLError(f"{str(out_path)!r} holds a trained model: choose another --out, or --force to replace it")
    previous, previous_meta = _previous_model(start_from, algo, action_form, observe_shoe) if start_from else (None, {})
    network = lab_network(previous_meta) if previous is not None else None
    if previous is not None:  # its own hyper-parameters and network go on, but for the hyper-parameters given here
        config = own_tables(RLConfig(config.algo, {**previous_meta.get("hyper", {}), **(hyper or {})}, config.train))
        if network is None and not trusted():
            raise RLError(
                f"{str(previous)!r}: its model.json does not describe its network, so going on from it would unpickle "
                "it, which runs any code it holds; pass --trust-model to do so (files you trust only)"
            )
        if isinstance(network, list):
            config = RLConfig(config.algo, config.hyper, replace(config.train, net_arch=tuple(network)))
    check_hyper(config.algo, config.hyper)
    algo_class(config.algo)  # stable-baselines3 (or sb3-contrib) is there, before anything is written
    if tensorboard:
        try:
            import tensorboard as _tb  # noqa: F401
        except ImportError:
            raise RLError("--tensorboard needs the tensorboard package: pip install tensorboard") from None
        tb_dir = str(out_path / "tensorboard")
    set_threads(1)
    s = config.train
    env_kwargs = {
        "action_form": action_form,
        "observation": "flat",
        "history": s.history,
        "stake_levels": tuple(float(x) for x in s.stake_levels),
        "observe_shoe": bool(observe_shoe),
    }
    tables = n_envs or s.n_envs
    try:
        layout = Layout(venue.rules, action_form, "flat", s.history, bool(observe_shoe), env_kwargs["stake_levels"])
    except ValueError as exc:  # the env's refusal of [train] values
        raise RLError(str(exc).splitlines()[0]) from None
    check_memory(
        training_memory(config, tables, layout), f"{tables:,} tables and the {config.algo} buffers",
        "train on fewer tables (--n-envs) or fewer steps per update (n_steps, buffer_size)", RLError,
    )  # fmt: skip
    try:
        venv = sb3_env(venue, tables, seed, s.reward_scale, **env_kwargs)
        if previous is None or network is not None:
            model = build_model(config, venv, seed, tb_dir, device)
        if previous is not None and network is not None:  # its weights, read without unpickling anything
            load_weights(model, previous, mismatch=f"cannot go on from {str(previous)!r}: {_NOT_THIS_NETWORK}")
            model.num_timesteps = _saved_timesteps(previous_meta)
        elif previous is not None:  # trusted (--trust-model): SB3's own loading unpickles the file
            model = algo_class(algo).load(previous, env=venv, device=device, tensorboard_log=tb_dir, **(hyper or {}))
            model.set_random_seed(seed)
    except (ValueError, TypeError) as exc:  # the env's refusal of [train] values, bad hyper-parameters
        raise RLError(str(exc).splitlines()[0]) from None
    # the output folder is made once everything else was checked, and held to the end (as a tournament's)
    held.enter_context(claim_folder(out_path, "training run", RLError))
    if (out_path / "model.zip").exists() and not force:  # saved by a run that ended meanwhile
        raise RLError(f"{str(out_path)!r} holds a trained model: choose another --out, or --force to replace it")
    if tb_dir is None:  # SB3's own logger would leave an empty SB3-<date> folder in the temporary folder
        model.set_logger(silent_logger())
    if warn is not None and algo in NOT_A_WITNESS:
        warn(NOT_A_WITNESS[algo])
    with progress_bar(progress) as bar, _first_interrupt_stops() as stop:
        callback = _curve_callback(venue, config, env_kwargs, seed + 1_000_000, bar)
        start, steps_before = time.perf_counter(), int(model.num_timesteps)
        try:
            model.learn(timesteps, callback=[callback, _stop_callback(stop)], reset_num_timesteps=previous is None)
        except KeyboardInterrupt:  # a second Ctrl-C: the steps done are saved all the same
            stop.set()
        seconds = time.perf_counter() - start
    model_file = out_path / "model.zip"
    atomic_write(model_file, model.save)  # a unique temporary file, synced, then renamed
    meta = {
        "algo": algo,
        "table": venue.name,
        "rigged": venue.rigged,
        "boxes": len(venue.rules.boxes),
        "bankroll": 1000.0,
        "seed": seed,
        "timesteps": int(model.num_timesteps),
        "n_envs": venv.num_envs,
        "env": {k: (list(v) if isinstance(v, tuple) else v) for k, v in env_kwargs.items()},
        "hyper": config.hyper,
        "train": config.train,
        "continued_from": str(previous) if previous is not None else None,
        # what loading it builds before reading its weights (nothing in model.zip is unpickled)
        "network": {
            "policy": "MlpPolicy",
            "features": "LogScaledFlat",
            "net_arch": dict(config.hyper.get("policy_kwargs") or {}).get("net_arch", list(config.train.net_arch)),
        },
        # interrupted (Ctrl-C): the model of the steps done, which `train --from` goes on from
        "partial": stop.is_set(),
        "timesteps_asked": timesteps,
    }
    atomic_write_json(metadata_path(model_file), meta)
    rows = callback.rows
    write_curve(out_path / "curve.csv", rows)
    plot_curve(out_path / "curve.png", rows, venue, algo)
    if stop.is_set():
        raise TrainingInterrupted(model_file, int(model.num_timesteps))
    learning = seconds - callback.eval_seconds
    final = rows[-1]
    return {
        "algo": algo,
        "table": venue.name,
        "positive_control": venue.rules.describe() if venue.rigged else None,
        "timesteps": int(model.num_timesteps),
        "n_envs": venv.num_envs,
        "seconds": seconds,
        "eval_seconds": callback.eval_seconds,
        "steps_per_second": (model.num_timesteps - steps_before) / learning if learning > 0 else float("nan"),
        "final_eval": final,
        "files": {
            "model": str(model_file),
            "metadata": str(metadata_path(model_file)),
            "curve_csv": str(out_path / "curve.csv"),
            "curve_png": str(out_path / "curve.png"),
            **({"tensorboard": tb_dir} if tb_dir else {}),
        },
    }


@functools.wraps(_train_agent)
def train_agent(*args: Any, **kwargs: Any) -> dict[str, Any]:
    with contextlib.ExitStack() as held:  # the output folder's lock, once taken
        return _train_agent(*args, held=held, **kwargs)


_signature = inspect.signature(_train_agent)
train_agent.__signature__ = _signature.replace(
    parameters=[p for p in _signature.parameters.values() if p.name != "held"]
)


@contextlib.contextmanager
def _first_interrupt_stops() -> Iterator[threading.Event]:
    """Within the block, a first Ctrl-C (SIGINT) sets the event instead of raising, so that training
    stops at its next step and its model is saved; a second one raises as usual. Outside the main
    thread (no signal handler can be set there) Ctrl-C raises, and the caller sets the event."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    before = signal.getsignal(signal.SIGINT)

    def first(signum: int, frame: Any) -> None:
        stop.set()
        signal.signal(signal.SIGINT, before)

    signal.signal(signal.SIGINT, first)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, before)


def _stop_callback(stop: threading.Event) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    class StopWhenInterrupted(BaseCallback):
        """Ends ``learn`` at the step after Ctrl-C."""

        def _on_step(self) -> bool:
            return not stop.is_set()

    return StopWhenInterrupted()


_NOT_THIS_NETWORK = "its weights do not fit this run's network (its [train] history and stake_levels, and the net_arch)"


def _saved_timesteps(meta: dict[str, Any]) -> int:
    steps = meta.get("timesteps", 0)
    message = f"the model's model.json gives no number of timesteps it was trained for: {steps!r}"
    return checked_whole(steps, message, 0, 10**15, numpy=False, error=RLError)


def _previous_model(
    path: str | Path, algo: str, action_form: str, observe_shoe: bool = False
) -> tuple[Path, dict[str, Any]]:
    """The model file to go on training from, checked against this run: the same algorithm, action
    form and shoe observed or not (its network's inputs and outputs), as its ``model.json`` says."""
    path = Path(path)
    open_input(path, "model file", MODEL_BYTES, RLError).close()
    try:
        meta = read_json(metadata_path(path), "model description", CONFIG_BYTES, RLError)
    except ValueError:
        where = str(metadata_path(path))
        raise RLError(f"{where!r} is missing or unreadable: train goes on only from models it saved") from None
    if meta.get("algo") != algo:
        raise RLError(f"{str(path)!r} is a {meta.get('algo')} model; train it on with --algo {meta.get('algo')}")
    if meta.get("env", {}).get("action_form") != action_form:
        raise RLError(f"{str(path)!r} bets in the {meta.get('env', {}).get('action_form')} form, not {action_form}")
    if bool(meta.get("env", {}).get("observe_shoe", False)) != observe_shoe:
        seen = "sees" if observe_shoe else "does not see"
        raise RLError(f"{str(path)!r} was trained on another observation: this run {seen} the shoe (--observe-shoe)")
    return path, meta


def write_curve(path: Path, rows: list[dict[str, float]]) -> None:
    """The learning curve as CSV (written atomically)."""
    atomic_write_csv(path, rows, CURVE_COLUMNS)


def plot_curve(path: Path, rows: list[dict[str, float]], venue: Venue, algo: str) -> None:
    """Return per unit staked (with its 95% band) and reward per coup against timesteps."""
    t = np.array([r["timesteps"] for r in rows], dtype=np.float64)
    ratio = np.array([r["return_per_unit"] for r in rows], dtype=np.float64)
    low = np.array([r["ci_low"] for r in rows], dtype=np.float64)
    high = np.array([r["ci_high"] for r in rows], dtype=np.float64)
    rpc = np.array([r["reward_per_coup"] for r in rows], dtype=np.float64)
    sat = np.array([r["sat_out"] for r in rows], dtype=np.float64)
    edge = house_edges(venue.rules).noir
    fig, (top, bottom) = pyplot().subplots(2, 1, figsize=(7, 6), sharex=True, constrained_layout=True)
    top.fill_between(t, 100 * low, 100 * high, alpha=0.25, label="95% CI over sessions")
    top.plot(t, 100 * ratio, marker="o", ms=3, label="agent (greedy)")
    top.axhline(0, color="black", lw=0.8)
    top.axhline(-100 * edge, color="red", ls="--", lw=1, label=edge_label(edge))
    top.set_ylabel("return per unit staked (%)")
    title = f"{algo} on {venue.name}" + ("  [POSITIVE CONTROL: rigged table]" if venue.rigged else "")
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


__all__ = [
    "CURVE_COLUMNS",
    "DEVICES",
    "TABLE_BYTES",
    "TrainingInterrupted",
    "build_model",
    "check_device",
    "evaluate_now",
    "entropy_schedule",
    "linear_schedule",
    "format_return",
    "metadata_path",
    "plot_curve",
    "train_agent",
    "training_memory",
    "write_curve",
]

"""The time of one witness run: ``trente-lab train``'s PPO on the fair level for 1,000,000 steps,
as ``trente-lab benchmark`` trains it (the shipped configuration, a learning-curve point every
50,000 steps), with the settings of today against those before (8 tables of 256 coups a rollout
instead of 64 of 32: the same 2,048 transitions an update, the same minibatches and epochs),
reached through the run's hyper-parameter overrides (:data:`BEFORE`).

The two are timed in alternation (the first of each pair alternating too), ``--repeats`` pairs; the
row gives the median wall time of each, the median of the paired ratios (now / before), and the same
for the process's CPU time, which a busy machine moves less than the wall time. A run trains in a
scratch folder; one short run first compiles the kernels and warms torch up. ``--quick`` trains a
tenth of the steps.

Run: ``python -m benchmarks.bench_train_time [--repeats 3] [--quick]``, or as a row of
``python -m benchmarks --train``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from typing import Any

#: The settings before: what ``experiments/configs/rl.toml`` gave PPO until it played 64 tables.
BEFORE: dict[str, Any] = {"n_envs": 8, "n_steps": 256}
#: Steps of the timed run (``--quick``: a tenth).
TIMESTEPS = 1_000_000


def run_seconds(timesteps: int, hyper: dict[str, Any] | None = None, seed: int = 0) -> tuple[float, float]:
    """Wall and CPU seconds of one ``train_agent`` run of PPO on the fair level (``hyper`` overrides
    the shipped configuration), with a learning-curve point as often as the benchmark takes one."""
    from experiments.rl.benchmark import CURVE_EVERY
    from experiments.rl.train import train_agent

    with tempfile.TemporaryDirectory(prefix="trente-lab-bench-train-") as scratch:
        wall, cpu = time.perf_counter(), time.process_time()
        train_agent("ppo", timesteps, rules="fair", seed=seed, out_dir=scratch, eval_every=CURVE_EVERY, hyper=hyper)
        return time.perf_counter() - wall, time.process_time() - cpu


def measure(timesteps: int, repeats: int) -> dict[str, list[float]]:
    """Wall and CPU seconds of ``repeats`` runs with today's settings and with :data:`BEFORE`, in
    alternation: lists ``now_wall``, ``now_cpu``, ``before_wall``, ``before_cpu``."""
    run_seconds(4096)  # compiles the kernels, warms torch up
    run_seconds(4096, BEFORE)
    times: dict[str, list[float]] = {key: [] for key in ("now_wall", "now_cpu", "before_wall", "before_cpu")}
    for r in range(repeats):
        for which in ("now", "before")[:: 1 if r % 2 == 0 else -1]:
            wall, cpu = run_seconds(timesteps, BEFORE if which == "before" else None)
            times[f"{which}_wall"].append(wall)
            times[f"{which}_cpu"].append(cpu)
    return times


def paired_ratio(now: list[float], before: list[float]) -> float:
    """The median of the ratios of each pair (now / before)."""
    return statistics.median([a / b for a, b in zip(now, before, strict=True)])


def rows(repeats: int, quick: bool = False) -> list[str]:
    """Markdown rows: the run's wall time now and before, and the same in CPU time."""
    from experiments.rl.config import load_config

    timesteps = TIMESTEPS // 10 if quick else TIMESTEPS
    shipped = load_config("ppo")
    now_label = f"{shipped.train.n_envs} tables x {shipped.hyper['n_steps']} coups"
    t = measure(timesteps, repeats)
    what = f"PPO on fair, {timesteps:,} steps (train as benchmark runs it)"
    before = f"{BEFORE['n_envs']} tables x {BEFORE['n_steps']} coups a rollout"
    out = []
    for clock in ("wall", "cpu"):
        now, old = t[f"now_{clock}"], t[f"before_{clock}"]
        out.append(
            f"| {what}, {clock} time | {statistics.median(now):.1f} s ({now_label}) "
            f"| {before}: {statistics.median(old):.1f} s | {paired_ratio(now, old):.2f}x |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="alternating pairs of runs (median)")
    parser.add_argument("--quick", action="store_true", help="a tenth of the steps")
    args = parser.parse_args()
    print("| run | now (median) | before, same run | ratio (median of pairs) |")
    print("|---|---|---|---|")
    for line in rows(args.repeats, args.quick):
        print(line, flush=True)


if __name__ == "__main__":
    main()

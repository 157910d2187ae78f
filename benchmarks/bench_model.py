"""A trained model in the tournament: session-coups per second, against the same model with torch's
default threads, measured in the same run.

    python benchmarks/bench_model.py [--sessions 2000] [--coups 100] [--repeats 5]

It trains a small PPO model (one update, the shipped network: [64, 64], discrete form) in a
temporary folder, then plays one block of ``--sessions`` with it on the tournament's path for
models (the vector env and the model's batched ``act``): with one torch thread (what the tournament
sets) and with torch's default number of threads (what it left before), alternating, ``--repeats``
times each. Figures are medians; on a
shared machine the default threads fight over the cores and the ratio grows with the load.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import torch

from experiments.rl.train import train_agent
from strategies.registry import make_strategy
from strategies.runner import play_on_env, session_seeds
from trente_env.rules import get_rules


def rate(policy, sessions: int, coups: int, threads: int) -> float:
    """Session-coups per second of one block of sessions of ``policy`` on ``threads`` torch threads:
    the tournament's path for a model (:func:`strategies.runner.play_on_env`)."""
    torch.set_num_threads(threads)
    seeds = session_seeds(0, sessions)
    start = time.perf_counter()
    play_on_env(policy, get_rules("classic"), 1000.0, coups, seeds, keep=0)
    return sessions * coups / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--coups", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    default_threads = torch.get_num_threads()
    with tempfile.TemporaryDirectory() as scratch:
        model = train_agent("ppo", 2048, out_dir=Path(scratch) / "model", eval_every=10**9)["files"]["model"]
        policy = make_strategy(f"model:{model}")
        rate(policy, 50, 5, 1)  # warm up: compile, load
        runs: dict[int, list[float]] = {1: [], default_threads: []}
        for r in range(args.repeats):
            for threads in runs:
                runs[threads].append(rate(policy, args.sessions, args.coups, threads))
                print(f"  {threads} thread(s), run {r + 1}/{args.repeats}: {runs[threads][-1]:,.0f}/s", flush=True)
    medians = {f"{t} torch threads": statistics.median(v) for t, v in runs.items()}
    ratio = statistics.median(runs[1]) / statistics.median(runs[default_threads])
    print(json.dumps({"median_session_coups_per_second": medians, "one_thread_over_default": ratio}, indent=2))


if __name__ == "__main__":
    main()

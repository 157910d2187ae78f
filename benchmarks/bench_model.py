"""A trained model in the tournament: session-coups per second of its greedy play, against SB3's
``predict`` (the path it replaced), measured in the same run.

    python benchmarks/bench_model.py [--sessions 2000 8000] [--coups 100] [--repeats 5]

It trains a small PPO model (one update, the shipped network: [64, 64], discrete form) in a
temporary folder, then, on one torch thread (what the tournament sets), for each block size of
``--sessions``:

* ``tournament``: one block on the tournament's path for models (:func:`strategies.runner.play_on_env`:
  the vector env, the runner's bookkeeping and the model's batched ``act``);
* ``policy``: the model's ``act`` alone on the observations of one block (what the network costs);

each with the direct greedy play (``act``'s default: the network on kept buffers) and with
``model.predict(deterministic=True)`` (``reference``), alternating, ``--repeats`` times; and, in the
same rounds, ``tables alone``: the tournament's path with a stand-in that bets one unit on Noir
without a network (the tables, their reset and the runner: what no network can make faster).
Figures are medians; the ratios are direct over reference. The load of the machine is printed
before and after each block size (other work on the cores slows every figure).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from experiments.rl.train import train_agent
from strategies.model import ModelPolicy
from strategies.registry import make_strategy
from strategies.runner import observation_kwargs, play_on_env, session_seeds
from trente_env.rules import get_rules
from trente_env.vector import TrenteEtQuaranteVectorEnv


class TablesAlone:
    """The model's tables and the runner without its network: one unit on Noir at every coup."""

    serial_tables = True

    def __init__(self, model: ModelPolicy) -> None:
        self.env_kwargs = model.env_kwargs
        self.full_actions = model.full_actions
        self._rows = None

    def act(self, observation, state=None):  # noqa: ANN001, ANN201
        if self._rows is None or len(self._rows) != len(observation):
            self._rows = self.full_actions(np.ones(len(observation), dtype=np.int64))  # action 1: a unit on Noir
        return self._rows, state


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes)."""
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def tournament_rate(policy: ModelPolicy, sessions: int, coups: int) -> float:
    """Session-coups per second of one block of ``sessions`` sessions on the tournament's path."""
    seeds = session_seeds(0, sessions)
    start = time.perf_counter()
    play_on_env(policy, get_rules("classic"), 1000.0, coups, seeds, keep=0)
    return sessions * coups / (time.perf_counter() - start)


def policy_rate(policy: ModelPolicy, observation, coups: int) -> float:
    """Session-coups per second of ``policy.act`` alone, asked ``coups`` times for one block's observations."""
    sessions = len(observation["bankroll"]) if isinstance(observation, dict) else len(observation)
    start = time.perf_counter()
    for _ in range(coups):
        policy.act(observation)
    return sessions * coups / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--coups", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    report: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as scratch:
        model = train_agent("ppo", 2048, out_dir=Path(scratch) / "model", eval_every=10**9)["files"]["model"]
        direct = make_strategy(f"model:{model}")
        reference = make_strategy(f"model:{model}")
        reference.__dict__["_greedy_network"] = None  # no direct path: every batch goes through predict
        paths = {"direct": direct, "reference": reference}
        alone = TablesAlone(direct)
        for policy in (*paths.values(), alone):
            tournament_rate(policy, 50, 5)  # warm up: compile, load
        for sessions in args.sessions:
            before = load()
            # tables of one thread, as the tournament's for a model: numba's thread pool, once started,
            # slows torch's work in this process from then on (README, Performance)
            venv = TrenteEtQuaranteVectorEnv(sessions, threads=False, **observation_kwargs(direct))
            observation, _ = venv.reset(seed=0)
            runs: dict[str, list[float]] = {f"{kind} {path}": [] for kind in ("tournament", "policy") for path in paths}
            runs["tables alone"] = []
            for r in range(args.repeats):
                for path, policy in paths.items():
                    runs[f"tournament {path}"].append(tournament_rate(policy, sessions, args.coups))
                    runs[f"policy {path}"].append(policy_rate(policy, observation, args.coups))
                runs["tables alone"].append(tournament_rate(alone, sessions, args.coups))
                print(
                    f"  block of {sessions}, run {r + 1}/{args.repeats} ({load()}): "
                    + ", ".join(f"{k} {v[-1]:,.0f}/s" for k, v in runs.items()),
                    flush=True,
                )
            medians: dict = {k: statistics.median(v) for k, v in runs.items()}
            for kind in ("tournament", "policy"):
                medians[f"{kind} ratio"] = medians[f"{kind} direct"] / medians[f"{kind} reference"]
            medians["load before, after"] = f"{before}; {load()}"
            report[f"block of {sessions}"] = medians
    print(json.dumps({"median_session_coups_per_second": report}, indent=2))


if __name__ == "__main__":
    main()

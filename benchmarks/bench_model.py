"""A trained model in the tournament: session-coups per second of its greedy play, against SB3's
``predict`` (the path it replaced), measured in the same run.

    python benchmarks/bench_model.py [--sessions 2000 8000] [--coups 100] [--repeats 5]

It trains a small PPO model (one update, the shipped network: [64, 64], discrete form) in a
temporary folder, then, on one torch thread (what the tournament sets), for each block size of
``--sessions``:

* ``tournament``: one block on the tournament's path for models (the block's session seeds, then
  :func:`strategies.runner.play_on_env`: the vector env and its reset, the runner's bookkeeping and the
  model's batched ``act``);
* ``policy``: the model's ``act`` alone on the observations of one block (what the network costs);

each with the direct greedy play (``act``'s default: the network on kept buffers) and with
``model.predict(deterministic=True)`` (``reference``), alternating, ``--repeats`` times; and, in the
same rounds, ``tables alone``: the tournament's path with a stand-in that bets one unit on Noir
without a network (the tables, their reset and the runner: what no network can make faster).
Figures are medians; the ratios are direct over reference. The load of the machine is printed
before and after each block size (other work on the cores slows every figure). Every figure is given
twice: per second of the clock, and per second of this process's CPU (``cpu``): the process plays on
one thread (one torch thread, tables of one thread), so on a quiet machine the two agree, and on a
busy one the CPU figure is what the work itself costs.

Then ``seeding``: microseconds of CPU a session of the start of a block, in the same rounds: its
session seeds (``session_seeds``, against :func:`~strategies.runner.session_seed` called for each
session) and its tables' shuffling generators (``shuffling_generators``, what the vector env's reset
makes, against ``numpy.random.default_rng`` of each seed): the same numbers, made two ways.

Then ``network``: the floor a model's greedy play cannot go below, SB3's own modules stage by stage
on one block of observations, for each of ``--rows`` and torch threads 1 and 2 (nanoseconds a row,
clock and CPU medians): ``features`` (the policy's features extractor), ``actor`` (its
``mlp_extractor.forward_actor``), ``action net``, ``most likely`` (the argmax as SB3's distribution
takes it), ``act`` (the model's whole ``act``: observation, network, action rows), and ``tanh`` (one
``torch.tanh`` of a ``(rows, 64)`` array: times the actor's layers, its share of ``actor``).
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

from experiments.console import status
from experiments.rl.train import train_agent
from strategies.model import ModelPolicy
from strategies.registry import make_strategy
from strategies.runner import observation_kwargs, play_on_env, session_seed, session_seeds
from trente_env.rules import get_rules
from trente_env.tables import shuffling_generators
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


def timed(work) -> tuple[float, float]:  # noqa: ANN001
    """Seconds of the clock and of this process's CPU that ``work()`` takes."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def tournament_rate(policy: ModelPolicy, sessions: int, coups: int) -> tuple[float, float]:
    """Session-coups per second (clock, CPU) of one block of ``sessions`` sessions on the tournament's
    path, the session seeds included."""
    wall, cpu = timed(
        lambda: play_on_env(policy, get_rules("classic"), 1000.0, coups, session_seeds(0, sessions), keep=0)
    )
    return sessions * coups / wall, sessions * coups / cpu


def policy_rate(policy: ModelPolicy, observation, coups: int) -> tuple[float, float]:
    """Session-coups per second (clock, CPU) of ``policy.act`` alone, asked ``coups`` times for one
    block's observations."""
    sessions = len(observation["bankroll"]) if isinstance(observation, dict) else len(observation)
    wall, cpu = timed(lambda: [policy.act(observation) for _ in range(coups)])
    return sessions * coups / wall, sessions * coups / cpu


def seeding(sessions: int, repeats: int) -> dict:
    """Microseconds of CPU a session (medians of ``repeats``) of making a block's seeds and generators,
    the way the tournament does and one numpy object per integer (the reference)."""
    seeds = session_seeds(0, sessions)
    ways = {
        "session_seeds": lambda: session_seeds(0, sessions),
        "session_seed of each (reference)": lambda: [session_seed(0, i) for i in range(sessions)],
        "shuffling_generators": lambda: shuffling_generators(seeds),
        "default_rng of each (reference)": lambda: [np.random.default_rng(s) for s in seeds],
    }
    runs: dict = {}
    for _ in range(repeats):
        for name, way in ways.items():
            runs.setdefault(name, []).append(timed(way)[1] / sessions * 1e6)
    report = {f"{k} us/session (cpu)": round(statistics.median(v), 2) for k, v in runs.items()}
    print(f"  seeding, {sessions} sessions: {json.dumps(report)}", flush=True)
    return report


def stages(model: ModelPolicy, observation, threads: int) -> dict:  # noqa: ANN001
    """Each stage of the model's greedy forward pass on one block's observations, as a function of
    nothing, on ``threads`` torch threads (SB3's own modules, in the order ``act`` runs them)."""
    from stable_baselines3.common.policies import BasePolicy

    from strategies.model import most_likely_parts

    policy = model._greedy_network
    torch.set_num_threads(threads)
    tensor = torch.as_tensor(model.model_observation(observation))
    with torch.inference_mode():
        features = BasePolicy.extract_features(policy, tensor, policy.pi_features_extractor)
        hidden = policy.mlp_extractor.forward_actor(features)
        logits = policy.action_net(hidden)
    square = torch.randn(hidden.shape)

    def run(work):  # noqa: ANN001, ANN202
        def stage() -> None:
            with torch.inference_mode():
                work()

        return stage

    return {
        "features": run(lambda: BasePolicy.extract_features(policy, tensor, policy.pi_features_extractor)),
        "actor": run(lambda: policy.mlp_extractor.forward_actor(features)),
        "action net": run(lambda: policy.action_net(hidden)),
        "most likely": run(lambda: most_likely_parts(policy, logits)),
        "act": lambda: model.act(observation),
        "tanh": run(lambda: torch.tanh(square)),
    }


def network_floor(model: ModelPolicy, rows: list[int], repeats: int) -> dict:
    """Nanoseconds a row (clock, CPU; medians of ``repeats``) of each stage of SB3's greedy forward pass."""
    layers = sum(isinstance(m, torch.nn.Tanh) for m in model._greedy_network.mlp_extractor.policy_net.modules())
    report: dict = {}
    for n in rows:
        venv = TrenteEtQuaranteVectorEnv(n, threads=False, **observation_kwargs(model))
        observation, _ = venv.reset(seed=1)
        for _ in range(20):  # a scoreboard to read
            observation, *_ = venv.step(model.act(observation)[0])
        calls = max(3, 200_000 // n)
        for threads in (1, 2):
            runs: dict = {}
            for _ in range(repeats):
                for name, stage in stages(model, observation, threads).items():
                    wall, cpu = timed(lambda stage=stage, calls=calls: [stage() for _ in range(calls)])
                    runs.setdefault(name, []).append((wall / calls / n * 1e9, cpu / calls / n * 1e9))
            medians = {k: [round(statistics.median(x[i] for x in v)) for i in (0, 1)] for k, v in runs.items()}
            key = f"{n} rows, {threads} torch threads"
            report[key] = {
                **{f"{k} ns/row (clock, cpu)": v for k, v in medians.items()},
                f"tanh share of actor (cpu, {layers} layers)": round(
                    layers * medians["tanh"][1] / medians["actor"][1], 2
                ),
                "load": load(),
            }
            print(f"  network, {key}: {json.dumps(report[key])}", flush=True)
    torch.set_num_threads(1)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--coups", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--rows", type=int, nargs="*", default=[2000, 8000, 32000], help="blocks of the network's floor"
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    report: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as scratch, status() as doing:
        doing("training a small PPO model (one update)")
        model = train_agent("ppo", 2048, out_dir=Path(scratch) / "model", eval_every=10**9)["files"]["model"]
        direct = make_strategy(f"model:{model}")
        reference = make_strategy(f"model:{model}")
        reference.__dict__["_greedy_network"] = None  # no direct path: every batch goes through predict
        paths = {"direct": direct, "reference": reference}
        alone = TablesAlone(direct)
        doing("warming up (numba's caches, the model), off the clock")
        for policy in (*paths.values(), alone):
            tournament_rate(policy, 50, 5)  # warm up: compile, load
        for sessions in args.sessions:
            doing(f"blocks of {sessions} sessions")
            before = load()
            # tables of one thread, as the tournament's for a model: numba's thread pool, once started,
            # slows torch's work in this process from then on (README, Performance)
            venv = TrenteEtQuaranteVectorEnv(sessions, threads=False, **observation_kwargs(direct))
            observation, _ = venv.reset(seed=0)
            runs: dict[str, list[tuple[float, float]]] = {
                f"{kind} {path}": [] for kind in ("tournament", "policy") for path in paths
            }
            runs["tables alone"] = []
            for r in range(args.repeats):
                for path, policy in paths.items():
                    runs[f"tournament {path}"].append(tournament_rate(policy, sessions, args.coups))
                    runs[f"policy {path}"].append(policy_rate(policy, observation, args.coups))
                runs["tables alone"].append(tournament_rate(alone, sessions, args.coups))
                print(
                    f"  block of {sessions}, run {r + 1}/{args.repeats} ({load()}): "
                    + ", ".join(f"{k} {v[-1][0]:,.0f}/s (cpu {v[-1][1]:,.0f}/s)" for k, v in runs.items()),
                    flush=True,
                )
            medians: dict = {}
            for key, values in runs.items():
                medians[key] = statistics.median(v[0] for v in values)
                medians[f"{key} cpu"] = statistics.median(v[1] for v in values)
            for kind in ("tournament", "policy"):
                medians[f"{kind} ratio"] = medians[f"{kind} direct"] / medians[f"{kind} reference"]
            medians["load before, after"] = f"{before}; {load()}"
            report[f"block of {sessions}"] = medians
        doing("seeding")
        seeds = seeding(max(args.sessions), max(args.repeats, 5))
        doing("the network's floor, stage by stage")
        floor = network_floor(direct, args.rows, args.repeats) if args.rows else {}
    print(
        json.dumps({"median_session_coups_per_second": report, "seeding": seeds, "network_ns_per_row": floor}, indent=2)
    )


if __name__ == "__main__":
    main()

"""Strategy speed: session-coups per second for every strategy at 10,000 sessions.

For each strategy of :data:`strategies.registry.LINEUP`, two figures, each the median of
``--repeats`` runs:

* ``with_env``: the strategy and the native vector env stepping together (``act`` then ``step``),
  the loop a tournament runs;
* ``alone``: the strategy's ``act`` alone, fed the observations recorded from that run (the
  bookkeeping cost of the system itself).

The env alone (a fixed action, no strategy) is measured in the same run as the reference.
Printed as one JSON document. Run: ``python benchmarks/bench_strategies.py [--sessions 10000]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import gymnasium as gym
import numpy as np

import trente_env  # noqa: F401  (registers the ids)
from strategies import LINEUP, make_strategy


def with_env_rate(spec: str, sessions: int, coups: int, record: bool = False) -> tuple[float, list]:
    venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=sessions)
    policy = make_strategy(spec)
    obs, _ = venv.reset(seed=0)
    actions, state = policy.act(obs)  # warm up (the env's kernels compile on first use)
    venv.step(actions)
    seen = []
    start = time.perf_counter()
    for _ in range(coups):
        actions, state = policy.act(obs, state)
        obs, *_ = venv.step(actions)
        if record:
            seen.append(obs)
    return sessions * coups / (time.perf_counter() - start), seen


def alone_rate(spec: str, observations: list, sessions: int) -> float:
    policy = make_strategy(spec)
    state = None
    start = time.perf_counter()
    for obs in observations:
        _, state = policy.act(obs, state)
    return sessions * len(observations) / (time.perf_counter() - start)


def env_rate(sessions: int, coups: int) -> float:
    return flat_bet_rate(gym.make_vec("TrenteEtQuarante-v0", num_envs=sessions), sessions, coups)


def flat_bet_rate(venv: gym.vector.VectorEnv, sessions: int, coups: int) -> float:
    """Session-coups/s of ``venv`` (``sessions`` tables) over ``coups`` steps of 1 unit on Noir at
    every table, after one step untimed (the env alone: the reference of the strategies' rates)."""
    venv.reset(seed=0)
    actions = np.zeros((sessions, 12), dtype=np.int64)
    actions[:, 0] = 1
    venv.step(actions)
    start = time.perf_counter()
    for _ in range(coups):
        venv.step(actions)
    return sessions * coups / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--coups", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n, coups = args.sessions, args.coups
    with_env_rate("flat", n, 10)  # warm up numba's threads and caches before anything is timed
    report: dict = {
        "sessions": n,
        "coups_per_run": coups,
        "repeats": args.repeats,
        "unit": "session-coups per second (median of repeats)",
        "env_alone": statistics.median(env_rate(n, coups) for _ in range(args.repeats)),
        "strategies": {},
    }
    for spec in LINEUP:
        together, alone = [], []
        for _ in range(args.repeats):
            rate, seen = with_env_rate(spec, n, coups, record=True)
            together.append(rate)
            alone.append(alone_rate(spec, seen, n))
        report["strategies"][spec] = {
            "with_env": round(statistics.median(together)),
            "alone": round(statistics.median(alone)),
            "with_env_vs_env_alone": round(statistics.median(together) / report["env_alone"], 3),
        }
    report["env_alone"] = round(report["env_alone"])
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

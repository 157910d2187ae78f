"""Tournament speed (docs/rules.md#speed-is-measured-by-benchmarks).

Session-coups per second and the wall time of the default run.

Measured, each as the median of ``--repeats`` runs unless said otherwise:

* ``default_run``: ``trente-lab tournament`` with no options (every system of the line-up,
  the default sessions and coups, all CPUs as workers), through the plain function
  :func:`experiments.tournament.run_tournament`: wall time including worker start-up, files and
  plots; ``after_play_seconds``, the part of it after the last coup (reading the blocks, the
  summary, the files and the plots); ``session_coups_per_second`` over the whole line-up and all
  workers;
* ``one_worker``: the same run with one worker (``--no-one-worker`` skips it), to show what the
  workers buy;
* ``compiled_block``: one block of the line-up (2,000 sessions x 200 coups x 19 systems) on the
  compiled session loop alone (:func:`strategies.sessions.play_compiled`, all workers as threads);
* ``vector_env_block``: the same block through the vector env and each strategy's ``act``
  (:func:`strategies.runner.play_on_env`, the path of trained models and plugins, and the
  whole tournament before the compiled loop), one process: the reference of the same run;
* ``reference_env``: the native vector env alone, one process, one block of sessions, a flat 1-unit
  Noir stake and no strategy;
* ``scaling``: wall time at three sizes around the default (a quarter and a half of the sessions,
  half the coups), one run each, to show that time grows linearly with sessions x coups.

Figures on a shared machine are noisy: compare the ratios, which are measured in the same run.
Printed as one JSON document (a status line on stderr says which step is running). Run:
``python benchmarks/bench_tournament.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from experiments.console import status
from experiments.tournament.config import make_config
from experiments.tournament.defaults import DEFAULT_BLOCK
from experiments.tournament.runner import run_tournament


def timed_run(config, workers: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        doc = run_tournament(config, Path(folder) / "run", workers=workers, progress=False, plots=True)
        wall = time.perf_counter() - start
    work = config.sessions * config.coups * len(config.specs)
    return {
        "wall_seconds": wall,
        "play_seconds": doc["seconds"],
        "after_play_seconds": wall - doc["seconds"],
        "session_coups_per_second": work / doc["seconds"],
    }


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]}


def reference_env_rate(sessions: int, coups: int) -> float:
    from benchmarks.bench_strategies import flat_bet_rate
    from trente_env.vector import TrenteEtQuaranteVectorEnv

    return flat_bet_rate(TrenteEtQuaranteVectorEnv(num_envs=sessions), sessions, coups)


def block_rates(workers: int, coups: int) -> tuple[float, float]:
    """Session-coups per second of one block of the line-up: compiled loop, then vector env path."""
    from strategies import LINEUP, make_strategy
    from strategies.runner import play_on_env, session_seed
    from strategies.sessions import play_compiled
    from trente_env.rules import get_rules

    rules = get_rules("classic")
    policies = [make_strategy(spec, rules) for spec in LINEUP]
    seeds = [session_seed(0, i) for i in range(DEFAULT_BLOCK)]
    work = len(policies) * len(seeds) * coups
    start = time.perf_counter()
    play_compiled(policies, rules, 1000.0, coups, seeds, keep=DEFAULT_BLOCK // 2, threads=workers)
    fast = work / (time.perf_counter() - start)
    start = time.perf_counter()
    for policy in policies:
        play_on_env(policy, rules, 1000.0, coups, seeds, keep=DEFAULT_BLOCK // 2)
    return fast, work / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-one-worker", action="store_true", help="skip the one-process run")
    parser.add_argument("--no-scaling", action="store_true", help="skip the three-size table")
    args = parser.parse_args()
    with status() as doing:
        report = measure(args, doing)
    print(json.dumps(report, indent=2))


def measure(args: argparse.Namespace, doing: Callable[[str], None]) -> dict:
    """Every figure of the module's docstring; ``doing`` is told each step as it starts."""
    config = make_config()
    work = config.sessions * config.coups * len(config.specs)
    doing("warming up (numba's caches, the first-coup tables), off the clock")
    timed_run(make_config(sessions=200, coups=20), 1)

    def runs(what: str, count: int, workers: int) -> list[dict[str, float]]:
        done = []
        for i in range(count):
            doing(f"{what}: run {i + 1} of {count}")
            done.append(timed_run(config, workers))
        return done

    report: dict = {
        "cpus": os.cpu_count(),
        "workers": args.workers,
        "repeats": args.repeats,
        "default": {
            "strategies": len(config.specs),
            "sessions": config.sessions,
            "coups": config.coups,
            "session_coups": work,
        },
        "default_run": median_of(runs("default run", args.repeats, args.workers)),
    }
    if not args.no_one_worker:
        report["one_worker"] = median_of(runs("one worker", max(1, args.repeats // 2), 1))
        report["workers_speed_up"] = round(
            report["default_run"]["session_coups_per_second"] / report["one_worker"]["session_coups_per_second"], 2
        )
    rates = []
    for i in range(args.repeats):
        doing(f"one block, compiled loop and vector env: run {i + 1} of {args.repeats}")
        rates.append(block_rates(args.workers, config.coups))
    fast = statistics.median(r[0] for r in rates)
    slow = statistics.median(r[1] for r in rates)
    report["compiled_block"] = {"session_coups_per_second": round(fast)}
    report["vector_env_block"] = {"session_coups_per_second": round(slow)}
    report["compiled_vs_vector_env"] = round(fast / slow, 2)
    doing("the vector env alone")
    ref = statistics.median(reference_env_rate(DEFAULT_BLOCK, config.coups) for _ in range(args.repeats))
    report["reference_env"] = {"sessions": DEFAULT_BLOCK, "session_coups_per_second": round(ref)}
    report["tournament_vs_reference_env"] = round(report["default_run"]["session_coups_per_second"] / ref, 3)
    if not args.no_scaling:
        sizes = [
            (config.sessions // 4, config.coups),
            (config.sessions // 2, config.coups),
            (config.sessions, config.coups // 2),
        ]
        rows = []
        for i, (sessions, coups) in enumerate(sizes):
            doing(f"scaling: {sessions:,} sessions x {coups} coups ({i + 1} of {len(sizes)})")
            run = timed_run(make_config(sessions=sessions, coups=coups), args.workers)
            rows.append({"sessions": sessions, "coups": coups, **{k: round(v, 3) for k, v in run.items()}})
        rows.append({"sessions": config.sessions, "coups": config.coups, **report["default_run"]})
        report["scaling"] = rows
    return report


if __name__ == "__main__":
    main()

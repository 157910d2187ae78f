"""Tournament speed (issue 5, SPEC 6): session-coups per second and the wall time of the default run.

Measured, each as the median of ``--repeats`` runs unless said otherwise:

* ``default_run``: ``trente-lab tournament`` with no options (every system of the line-up,
  the default sessions and coups, all CPUs as workers), through the plain function
  :func:`experiments.tournament.run_tournament`: wall time including worker start-up, files and
  plots; ``session_coups_per_second`` over the whole line-up and all workers;
* ``one_worker``: the same run in one process (``--no-one-worker`` skips it), to show what the
  workers buy;
* ``reference_env``: the native vector env alone, one process, one block of sessions, a flat 1-unit
  Noir stake and no strategy: the ceiling the tournament's per-coup work is measured against;
* ``scaling``: wall time at three sizes around the default (a quarter and a half of the sessions,
  half the coups), one run each, to show that time grows linearly with sessions x coups.

Figures on a shared machine are noisy: compare the ratios, which are measured in the same run.
Printed as one JSON document. Run: ``python benchmarks/bench_tournament.py [--repeats 3]``.
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

from experiments.tournament import DEFAULT_BLOCK, make_config, run_tournament


def timed_run(config, workers: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        doc = run_tournament(config, Path(folder) / "run", workers=workers, progress=False, plots=True)
        wall = time.perf_counter() - start
    work = config.sessions * config.coups * len(config.specs)
    return {"wall_seconds": wall, "play_seconds": doc["seconds"], "session_coups_per_second": work / doc["seconds"]}


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]}


def reference_env_rate(sessions: int, coups: int) -> float:
    from trente_env.vector import TrenteEtQuaranteVectorEnv

    venv = TrenteEtQuaranteVectorEnv(num_envs=sessions)
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
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-one-worker", action="store_true", help="skip the one-process run")
    parser.add_argument("--no-scaling", action="store_true", help="skip the three-size table")
    args = parser.parse_args()
    config = make_config()
    work = config.sessions * config.coups * len(config.specs)
    # warm-up: numba's caches and the first-coup tables, off the clock
    timed_run(make_config(sessions=200, coups=20), 1)
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
        "default_run": median_of([timed_run(config, args.workers) for _ in range(args.repeats)]),
    }
    if not args.no_one_worker:
        report["one_worker"] = median_of([timed_run(config, 1) for _ in range(max(1, args.repeats // 2))])
        report["workers_speed_up"] = round(
            report["default_run"]["session_coups_per_second"] / report["one_worker"]["session_coups_per_second"], 2
        )
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
        for sessions, coups in sizes:
            run = timed_run(make_config(sessions=sessions, coups=coups), args.workers)
            rows.append({"sessions": sessions, "coups": coups, **{k: round(v, 3) for k, v in run.items()}})
        rows.append({"sessions": config.sessions, "coups": config.coups, **report["default_run"]})
        report["scaling"] = rows
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

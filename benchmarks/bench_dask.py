"""The tournament on a Dask cluster against the local backend, measured in the same run.

    python benchmarks/bench_dask.py [--sessions 16000] [--coups 200] [--workers 2] [--repeats 3]
    python benchmarks/bench_dask.py --billion     # about 10**9 session-coups: minutes, one repeat

Both play the default line-up (``--sessions`` x ``--coups``, classic rules, seed 0) without plots:

* ``local``: this process, the compiled loop on ``--workers`` threads (the default backend);
* ``dask``: a ``LocalCluster`` of ``--workers`` processes on 127.0.0.1 (one thread each), started
  for the run: its start-up is in ``wall_seconds``, not in ``play_seconds``.

It prints the medians of ``--repeats`` alternating runs, the efficiency (dask's play rate over
local's) and the overhead per task (block): ``(dask play - local play) / tasks``, what each of
the tasks costs on Dask beyond its play (shipping the configuration and the results, scheduling).
Both runs' ``results.json`` are compared byte for byte. Figures are medians; the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from experiments.backends import Backend
from experiments.tournament.config import make_config
from experiments.tournament.runner import run_tournament

BILLION = 10**9


def timed(config, workers: int, backend: Backend, folder: Path) -> dict[str, float]:
    start = time.perf_counter()
    doc = run_tournament(config, folder, workers=workers, plots=False, backend=backend)
    return {"wall_seconds": time.perf_counter() - start, "play_seconds": doc["seconds"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=16_000)
    parser.add_argument("--coups", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--billion", action="store_true", help="as many sessions as make about 10**9 session-coups (one repeat)"
    )
    args = parser.parse_args()
    if args.billion:
        systems = len(make_config(coups=args.coups).specs)
        args.sessions = -(-BILLION // (args.coups * systems))
        args.repeats = 1
    config = make_config(sessions=args.sessions, coups=args.coups)
    work = config.sessions * config.coups * len(config.specs)
    tasks = config.n_blocks * len(config.groups())
    runs: dict[str, list[dict[str, float]]] = {"local": [], "dask": []}
    same = True
    with tempfile.TemporaryDirectory() as scratch:
        timed(make_config(sessions=200, coups=20), 1, Backend("local"), Path(scratch) / "warm")  # compile once
        for r in range(args.repeats):
            outs = {}
            for name in ("local", "dask"):
                outs[name] = Path(scratch) / f"{name}-{r}"
                runs[name].append(timed(config, args.workers, Backend(name), outs[name]))
                played = runs[name][-1]["play_seconds"]
                print(f"  {name} run {r + 1}/{args.repeats}: {played:.2f} s of play", flush=True)
            same &= (outs["local"] / "results.json").read_bytes() == (outs["dask"] / "results.json").read_bytes()
    median = {n: {k: statistics.median(run[k] for run in rs) for k in rs[0]} for n, rs in runs.items()}
    rate = {n: work / m["play_seconds"] for n, m in median.items()}
    result = {
        "session_coups": work,
        "tasks": tasks,
        "workers": args.workers,
        "repeats": args.repeats,
        "median": median,
        "session_coups_per_second": rate,
        "efficiency": rate["dask"] / rate["local"],
        "overhead_per_task_seconds": (median["dask"]["play_seconds"] - median["local"]["play_seconds"]) / tasks,
        "results_json_identical": same,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""The card counters as tournament entrants: session-coups per second of each path, one process.

    python benchmarks/bench_counters.py [--sessions 2000] [--coups 200] [--rules exhaustion classic]

For each rule set, the session runner (:func:`strategies.runner.play`, as the tournament calls it)
plays the same ``sessions`` sessions with ``flat`` (the compiled session loop), ``linear-counter``
and ``counter`` (each alone on the shoe-observing vector env), after two sessions of warm-up (the
compiled code loaded), and prints the session-coups per second of each with its staked and net
units (the same sessions as a tournament of that seed).
"""

from __future__ import annotations

import argparse
import json
import time

from strategies import make_strategy
from strategies.runner import play, session_seeds
from trente_env.rules import get_rules

SPECS = ("flat", "linear-counter", "counter")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--coups", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", nargs="+", default=["exhaustion", "classic"])
    args = parser.parse_args()
    seeds = session_seeds(args.seed, args.sessions)
    rows = []
    for name in args.rules:
        rules = get_rules(name)
        for spec in SPECS:
            policy = make_strategy(spec, rules)
            play([policy], rules, 1000.0, args.coups, seeds[:2])
            start = time.perf_counter()
            result = play([policy], rules, 1000.0, args.coups, seeds)[0]
            seconds = time.perf_counter() - start
            rows.append(
                {
                    "rules": name,
                    "spec": spec,
                    "seconds": seconds,
                    "session_coups_per_second": args.sessions * args.coups / seconds,
                    "staked": float(result["staked"].sum()),
                    "net": float(result["net"].sum()),
                }
            )
            print(json.dumps(rows[-1]), flush=True)


if __name__ == "__main__":
    main()

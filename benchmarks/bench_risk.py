"""Exact session risk speed: every system of the default tournament, exactly, against its simulation.

For each system of :data:`strategies.registry.LINEUP` (Labouchère apart when its states pass the
bound: it is then reported as refused), :func:`strategies.risk.exact_risk` of a session of
``--coups`` coups from ``--bankroll`` units, the median of ``--repeats`` runs; the reference, measured
in the same run: the compiled simulation of the same systems (:func:`strategies.sessions.play_compiled`,
``--sessions`` sessions, the default tournament's size), median of as many runs.

Printed as one JSON document. Run: ``python -m benchmarks.bench_risk [--coups 200 --bankroll 1000]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from strategies import LINEUP, make_strategy
from strategies.risk import RiskError, exact_risk
from strategies.sessions import play_compiled
from trente_env.rules import get_rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coups", type=int, default=200)
    parser.add_argument("--bankroll", type=float, default=1000.0)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-states", type=int, default=2_000_000)
    args = parser.parse_args()
    rules = get_rules("classic")
    policies = {spec: make_strategy(spec, rules) for spec in LINEUP}
    exact_risk(policies["flat"], rules, args.bankroll, 2)  # compile before timing
    play_compiled([policies["flat"]], rules, args.bankroll, 2, [0])
    per_system, refused = {}, {}
    for spec, policy in policies.items():
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            try:
                result = exact_risk(policy, rules, args.bankroll, args.coups, max_states=args.max_states, name=spec)
            except RiskError as exc:
                refused[spec] = str(exc)
                break
            times.append(time.perf_counter() - start)
        if times:
            per_system[spec] = {"seconds": statistics.median(times), "states": result.largest_states}
    exact_total = sum(row["seconds"] for row in per_system.values())
    sims = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        play_compiled(list(policies.values()), rules, args.bankroll, args.coups, list(range(args.sessions)))
        sims.append(time.perf_counter() - start)
    print(
        json.dumps(
            {
                "coups": args.coups,
                "bankroll": args.bankroll,
                "exact_seconds_total": exact_total,
                "exact": per_system,
                "refused": refused,
                "reference_simulation_seconds": statistics.median(sims),
                "reference_sessions": args.sessions,
                "repeats": args.repeats,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

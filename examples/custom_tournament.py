"""A custom tournament from Python: four betting systems on the same shoes, with a smaller table.

Every system plays exactly the same shoes (session ``i`` is the same table for all of them), so the
differences between them come from their staking alone. The script prints each system's return per
unit staked with its 95% interval beside the exact house edge, and the folder holds the usual files
(``results.json``, ``results.csv``, ``sessions.csv``, the plots; see ``docs/tournament-files.md``).

    python examples/custom_tournament.py                      # 4,000 sessions of 200 coups
    python examples/custom_tournament.py --sessions 200 --coups 50 --out /tmp/t
"""

import argparse
import tempfile

from experiments.tournament.config import make_config
from experiments.tournament.runner import run_tournament
from trente_env.rules import get_rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=4000)
    parser.add_argument("--coups", type=int, default=200)
    parser.add_argument("--out", help="output folder (default: a new temporary folder)")
    args = parser.parse_args()

    config = make_config(
        ["flat", "martingale", "paroli:steps=4", {"name": "labouchere", "line": "1-2-3"}],
        sessions=args.sessions,
        coups=args.coups,
        bankroll=500,
        rules=get_rules("partage"),
        rule_changes={"table_max": 200},  # a narrow table: the martingale hits the maximum sooner
        seed=1,
    )
    out = args.out or tempfile.mkdtemp(prefix="custom-tournament-")
    results = run_tournament(config, out=out, plots=False)

    print(f"{config.sessions:,} sessions of up to {config.coups} coups, {results['description']}")
    print(f"exact house edge of a Noir stake: {results['house_edge']:.4%}")
    for label in results["order"]:
        s = results["strategies"][label]
        print(
            f"{label:28} return per unit staked {s['return_per_unit']:+.4%} "
            f"(95% CI {s['ci_low']:+.3%} to {s['ci_high']:+.3%}), "
            f"P(ahead) {s['p_ahead']:.1%}, P(ruin) {s['p_ruin']:.1%}"
        )
    print(f"files in {out}")


if __name__ == "__main__":
    main()

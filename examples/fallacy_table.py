"""The gambler's fallacy table: after Rouge has won k decided coups in a row, how often does it win
the next one?

Every row is near one half and the intervals cover the exact value: the cards have no memory.
This is what ``trente-lab fallacy`` prints, from Python, at a size you choose (the command deals two
million coups). The companion run plays "follow the streak", "bet against the streak" and flat
betting on the same shoes: all three lose the house edge per unit staked.

    python examples/fallacy_table.py                               # 500,000 coups, 2,000 sessions
    python examples/fallacy_table.py --coups 50000 --sessions 200
"""

import argparse

from experiments.teaching.fallacy import fallacy_report, print_report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coups", type=int, default=500_000, help="coups dealt for the streak table")
    parser.add_argument("--sessions", type=int, default=2000, help="sessions of the companion run (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    report = fallacy_report(n_coups=args.coups, sessions=args.sessions, session_coups=200, seed=args.seed)
    print_report(report)
    rouge = report["tables"][0]
    print(f"exact P(Rouge wins a decided coup) = {rouge['exact']:.4f}")


if __name__ == "__main__":
    main()

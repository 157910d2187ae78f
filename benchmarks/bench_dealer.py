"""Bulk dealer speed: coups per second against a plain pure-Python dealer timed in the same run.

    python benchmarks/bench_dealer.py [--coups 5000000] [--repeats 7]

Both dealers shuffle 6-deck shoes, deal Noir then Rouge rows to a cut card 52 from the end, and
produce the two totals and the first card's colour of every coup. Figures are medians over the
repeats; the ratio is taken within this run because shared machines are noisy.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import numba

from trente_env.dealer import Shoe, deal_coups
from trente_env.rules import get_rules


def pure_python_dealer(n_coups: int, seed: int) -> list[tuple[int, int, bool]]:
    """The reference: a list of (value, black) cards, random.shuffle, and while loops."""
    rng = random.Random(seed)
    deck = [(min(rank + 1, 10), suit in (0, 3)) for suit in range(4) for rank in range(13)] * 6
    coups: list[tuple[int, int, bool]] = []
    while len(coups) < n_coups:
        rng.shuffle(deck)
        pos = 0
        while pos <= len(deck) - 52 and len(coups) < n_coups:
            first_black = deck[pos][1]
            totals = []
            for _ in range(2):
                total = 0
                while total <= 30:
                    total += deck[pos][0]
                    pos += 1
                totals.append(total)
            coups.append((totals[0], totals[1], first_black))
    return coups


def rate(fn, n: int, repeats: int) -> float:
    """Median coups per second of ``fn(n, seed)`` over ``repeats`` runs."""
    times = []
    for seed in range(repeats):
        start = time.perf_counter()
        fn(n, seed)
        times.append(time.perf_counter() - start)
    return n / statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coups", type=int, default=5_000_000, help="coups per run of the bulk dealer")
    parser.add_argument("--python-coups", type=int, default=50_000, help="coups per run of the reference")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rules = get_rules()
    deal_coups(rules, 1_000, 0)  # compile (or load the compiled kernels) outside the timing

    def one_at_a_time(n: int, seed: int) -> None:
        import numpy as np

        shoe = Shoe(rules, np.random.default_rng(seed))
        for _ in range(n):
            shoe.deal()

    bulk = rate(lambda n, s: deal_coups(rules, n, s), args.coups, args.repeats)
    reference = rate(pure_python_dealer, args.python_coups, args.repeats)
    table = rate(one_at_a_time, args.python_coups, args.repeats)
    print(
        json.dumps(
            {
                "threads": numba.get_num_threads(),
                "bulk_coups_per_second": round(bulk),
                "pure_python_coups_per_second": round(reference),
                "one_coup_shoe_coups_per_second": round(table),
                "bulk_over_pure_python": round(bulk / reference, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

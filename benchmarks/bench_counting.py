"""Card counting's odds: microseconds per evaluation of the next coup by cards left, against the
value-only ``odds.coup_odds`` timed in the same run, and the wall time of the perfect-counter study.

    python benchmarks/bench_counting.py [--samples 7] [--repeats 20] [--shoes 2000]

At each depth (312, 200, 104, 52, 26 and 13 cards left) the unseen cards of ``samples`` six-pack
shoes shuffled by the dealer are evaluated by:

* ``compiled``: the compiled evaluator that the study (and a tournament's session loop) calls,
  ``odds.evaluate_into``: exact, coupled rows or with replacement, as ``shoe_odds`` chooses;
* ``shoe_odds``: the same from Python (validation and the result's dataclass included);
* ``exact_odds``: the exact odds, colour included;
* ``reference``: ``odds.coup_odds``, today's exact value-only odds (one run per depth: seconds).

Figures are medians over the samples (the fast paths: the best of three batches of ``repeats``
calls each); ratios are taken within this run because shared machines are noisy. The study deals
``shoes`` shoes under each stop rule and reports its wall time and the time for 100,000 shoes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numba
import numpy as np

from trente_env import odds
from trente_env.cards import CARD_BLACK, CARD_VALUE, new_shoe
from trente_env.counting.counters import study_shoes
from trente_env.dealer import shuffle, shuffle_seeds
from trente_env.odds import COUPLED_CARDS, EXACT_BOX, METHODS, N_OUT, evaluate_into, exact_odds, nodes, shoe_odds
from trente_env.rules import get_rules

DEPTHS = (312, 200, 104, 52, 26, 13)
STOP_RULES = (("cut card", "classic"), ("exhaustion", "exhaustion"), ("5 dead", "dead-cards"))


def unseen(cards_left: int, seed: np.uint64) -> np.ndarray:
    """The 20 counts of the last ``cards_left`` cards of a six-pack shoe shuffled by the dealer."""
    cards = new_shoe(6)
    shuffle(cards, seed)
    rest = cards[cards.size - cards_left :]
    return np.bincount(np.where(CARD_BLACK[rest], 0, 10) + CARD_VALUE[rest] - 1, minlength=20)


def timed(fn, repeats: int) -> float:
    """Seconds per call of ``fn``: the best of three batches of ``repeats`` calls."""
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        best = min(best, (time.perf_counter() - start) / repeats)
    return best


def depth_figures(left: int, seeds: np.ndarray, repeats: int) -> dict[str, object]:
    model = nodes().model()
    pn, joint, out = np.empty(EXACT_BOX), np.empty(10 * EXACT_BOX), np.empty(N_OUT)
    compiled, api, exact, methods = [], [], [], []
    reference = 0.0
    for i, seed in enumerate(seeds):
        counts = unseen(left, seed)

        def fast(counts=counts) -> int:
            return evaluate_into(counts, 0, EXACT_BOX, COUPLED_CARDS, model, pn, joint, out)

        methods.append(METHODS[fast()])
        compiled.append(timed(fast, repeats))
        api.append(timed(lambda counts=counts: shoe_odds(counts), repeats))
        start = time.perf_counter()
        exact_odds(counts)
        exact.append(time.perf_counter() - start)
        if i == 0:
            start = time.perf_counter()
            odds.coup_odds(counts[:10] + counts[10:])
            reference = time.perf_counter() - start
    median = statistics.median(compiled)
    return {
        "method": max(set(methods), key=methods.count),
        "compiled_us": round(median * 1e6, 1),
        "shoe_odds_us": round(statistics.median(api) * 1e6, 1),
        "exact_odds_ms": round(statistics.median(exact) * 1e3, 2),
        "reference_ms": round(reference * 1e3, 1),
        "reference_over_compiled": round(reference / median),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=7, help="shoes per depth")
    parser.add_argument("--repeats", type=int, default=20, help="calls per batch when timing the fast paths")
    parser.add_argument("--shoes", type=int, default=2000, help="shoes per stop rule in the study")
    args = parser.parse_args()
    seeds = shuffle_seeds(np.random.default_rng(2024), args.samples)
    shoe_odds(unseen(13, seeds[0]))  # compile (or load the compiled kernels) outside the timing
    odds.coup_odds(np.ones(10, dtype=np.int64))
    depths = {str(left): depth_figures(left, seeds, args.repeats) for left in DEPTHS}
    study = {}
    for name, preset in STOP_RULES:
        rules = get_rules(preset)
        study_shoes(rules, 64, 0)  # compile outside the timing
        run = study_shoes(rules, args.shoes, 1)
        study[name] = {
            "shoes": args.shoes,
            "seconds": round(run.seconds, 2),
            "minutes_for_100000_shoes": round(run.seconds * 100_000 / args.shoes / 60, 1),
        }
    print(json.dumps({"threads": numba.get_num_threads(), "cards_left": depths, "study": study}, indent=2))


if __name__ == "__main__":
    main()

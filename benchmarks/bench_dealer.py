"""Bulk dealer speed: coups per second against a plain pure-Python dealer timed in the same run.

    python benchmarks/bench_dealer.py [--coups 5000000] [--repeats 7] [--whole-process 100000000]

Both dealers shuffle 6-deck shoes, deal Noir then Rouge rows to a cut card 52 from the end, and
produce the two totals and the first card's colour of every coup. Figures are medians over the
repeats; the ratio is taken within this run because shared machines are noisy.

``--whole-process N`` also times ``trente-lab simulate --coups N --json`` as a subprocess, end to
end (start-up, imports, loading the compiled kernels, the exact odds, dealing and counting, the JSON
written), the median of ``--process-repeats`` runs, each run right after a run of the pure-Python
reference so that both see the same load: ``whole_process_over_pure_python`` is N over the
process's seconds, over the reference's coups per second. The process's own ``coups_per_second``
(dealing and counting only) is given beside it, and the seconds of ``trente-lab simulate --coups 1
--json`` (start-up, imports and loading the kernels: what the whole process pays beside the deal).
The load average before and after is printed with the figures (other work on the machine).
``whole_process_meets_target`` says whether the whole process is at least
:data:`WHOLE_PROCESS_TARGET` times the pure-Python dealer, judged on the median of the paired ratios
(``whole_process_ratio_median_of_pairs``: each run over the reference timed just before it), as
``python -m benchmarks`` judges its rows (:func:`simulate_row` is its row); ``--whole-process
100000000``: the whole-shoe reference is read from the package, so the process is the deal and its
start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba

from trente_env.dealer import Shoe, deal_coups, tally_coups
from trente_env.rules import get_rules

#: ``simulate --coups 100000000``, whole process, against the pure-Python dealer in the same run: at least this.
WHOLE_PROCESS_TARGET = 85


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


def whole_process(n_coups: int, repeats: int, python_coups: int) -> dict[str, float]:
    """``trente-lab simulate --coups n_coups`` timed end to end as a subprocess, ``repeats`` times,
    each after a timing of the pure-Python reference; medians."""
    root = Path(__file__).resolve().parents[1]

    def simulate(coups: int) -> tuple[float, float]:
        command = [sys.executable, "-m", "experiments.cli", "simulate", "--coups", str(coups), "--json"]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True)
        return time.perf_counter() - start, json.loads(done.stdout)["coups_per_second"]

    seconds, inside, reference, startup = [], [], [], []
    for _ in range(repeats):
        reference.append(rate(pure_python_dealer, python_coups, 1))
        whole, dealing = simulate(n_coups)
        seconds.append(whole)
        inside.append(dealing)
        startup.append(simulate(1)[0])
    process = statistics.median(seconds)
    python = statistics.median(reference)
    pairs = statistics.median(n_coups / s / r for s, r in zip(seconds, reference))
    return {
        "whole_process_coups": n_coups,
        "whole_process_seconds": round(process, 2),
        "startup_seconds": round(statistics.median(startup), 2),
        "whole_process_coups_per_second": round(n_coups / process),
        "inside_process_coups_per_second": round(statistics.median(inside)),
        "pure_python_coups_per_second_beside_it": round(python),
        "whole_process_over_pure_python": round(n_coups / process / python, 1),
        "inside_process_over_pure_python": round(statistics.median(inside) / python, 1),
        "whole_process_ratios_each_run": [round(n_coups / s / r, 1) for s, r in zip(seconds, reference)],
        "whole_process_ratio_median_of_pairs": round(pairs, 1),
        "whole_process_target": WHOLE_PROCESS_TARGET,
        "whole_process_meets_target": pairs >= WHOLE_PROCESS_TARGET,
    }


def simulate_row(n_coups: int, repeats: int, python_coups: int = 50_000) -> str:
    """The row of ``python -m benchmarks``: ``trente-lab simulate --coups n_coups --json`` as a whole
    process against the pure-Python dealer, ``repeats`` runs each beside its reference
    (:func:`whole_process`), and whether it meets :data:`WHOLE_PROCESS_TARGET`."""
    f = whole_process(n_coups, repeats, python_coups)
    met = "met" if f["whole_process_meets_target"] else "not met"
    return (
        f"| `simulate --coups {n_coups:,}`, whole process ({f['whole_process_seconds']:.2f} s, start-up "
        f"{f['startup_seconds']:.2f} s) | {f['whole_process_coups_per_second'] / 1e6:.2f} M coups/s (inside: "
        f"{f['inside_process_coups_per_second'] / 1e6:.2f} M) | pure-Python dealer: "
        f"{f['pure_python_coups_per_second_beside_it'] / 1e3:.0f} k coups/s | "
        f"{f['whole_process_ratio_median_of_pairs']:.1f}x (target {WHOLE_PROCESS_TARGET}x at 1e8 coups: {met}) |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coups", type=int, default=5_000_000, help="coups per run of the bulk dealer")
    parser.add_argument("--python-coups", type=int, default=50_000, help="coups per run of the reference")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--whole-process", type=int, default=0, metavar="N", help="also time `trente-lab simulate --coups N` end to end"
    )
    parser.add_argument("--process-repeats", type=int, default=3, help="runs of the whole process (median)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    rules = get_rules()
    tally_coups(rules, 1_000, 0)
    deal_coups(rules, 1_000, 0)  # compile (or load the compiled kernels) outside the timing

    def one_at_a_time(n: int, seed: int) -> None:
        import numpy as np

        shoe = Shoe(rules, np.random.default_rng(seed))
        for _ in range(n):
            shoe.deal()

    bulk = rate(lambda n, s: deal_coups(rules, n, s), args.coups, args.repeats)
    reference = rate(pure_python_dealer, args.python_coups, args.repeats)
    table = rate(one_at_a_time, args.python_coups, args.repeats)
    tally = rate(lambda n, s: tally_coups(rules, n, s), args.coups, args.repeats)
    figures = {
        "threads": numba.get_num_threads(),
        "bulk_coups_per_second": round(bulk),
        "tally_coups_per_second": round(tally),
        "pure_python_coups_per_second": round(reference),
        "one_coup_shoe_coups_per_second": round(table),
        "bulk_over_pure_python": round(bulk / reference, 1),
        "tally_over_pure_python": round(tally / reference, 1),
    }
    if args.whole_process:
        figures.update(whole_process(args.whole_process, args.process_repeats, args.python_coups))
    figures["load_average_before_after"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()

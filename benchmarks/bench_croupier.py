"""The cost of one coup's arithmetic at one table: shuffling, dealing, settling.

    python -m benchmarks.bench_croupier [--repeats 15] [--rules classic]

Every figure is the CPU time of the calling thread (``time.thread_time``: what a call costs while it
runs, whatever else the machine does) per call, inside a compiled loop without reference counting
(:func:`~trente_env.jit.hot`, as the callers' loops are) that calls the croupier's kernels as the
vector env's tables and the tournament's session loop do; the minimum and the median over
``--repeats`` runs of each loop, the loops timed in alternation:

* ``shuffle``: a fresh shoe put back in order and shuffled (:func:`~trente_env.dealer.shuffle`);
* ``deal_next``: one coup dealt (:func:`~trente_env.dealer.deal_next`) from shoes shuffled beforehand,
  each dealt to its cut card;
* ``next_coup``: one table's coup after coup (:func:`~trente_env.croupier.next_coup`), its shuffles
  included (one a shoe, about 24 coups at the classic table);
* ``bet_and_settle``: one table's bets made legal and settled (:func:`~trente_env.croupier.bet_and_settle`)
  on coups dealt beforehand, for three kinds of action rows: ``full`` (the full action form's random
  action: stakes of 0 to 1,000 units on all four boxes, random insurance and prison flags, so most
  stakes are clipped to the money in hand), ``one box`` (0, 10 or 20 units on one box picked at
  random, no insurance: the discrete form's kind of bet) and ``small`` (0 to 5 units on each box);
  a session ruined starts again with its bankroll of 1,000 units.

A checksum of what every loop computed is printed beside its time: a checksum that moves with a
change of these kernels means the change dealt or paid differently (an unmoved one is a quick
check, not the proof: that is the digest tests' job).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from trente_env import jit
from trente_env.croupier import bet_and_settle, next_coup, table_rules
from trente_env.dealer import _fresh_shoe, deal_coups, deal_next, shuffle
from trente_env.rules import get_rules

BANKROLL = 1_000.0


@jit.hot
def _shuffles(cards, base, seeds):
    check = 0
    for s in range(seeds.size):
        _fresh_shoe(cards, base)
        shuffle(cards, seeds[s])
        check += cards[0] + 7 * cards[base.size // 2]
    return check, seeds.size


@jit.hot
def _deals(shoes, burn, cut_card, dead_cards):
    check = 0
    n = 0
    for s in range(shoes.shape[0]):
        cards = shoes[s]
        pos = burn
        reshuffle = False
        while not reshuffle:
            noir, rouge, middle, end, reshuffle = deal_next(cards, pos, cut_card, dead_cards)
            check += 3 * noir + rouge + middle + end
            n += 1
            pos = end
    return check, n


@jit.hot
def _coups(cards, seeds, rules, n_coups):
    check = 0
    pos = 0
    needs_shuffle = True
    used = 0
    for _ in range(n_coups):
        seed = np.uint64(0)
        if needs_shuffle:
            seed = seeds[used % seeds.size]
            used += 1
        noir, rouge, result, couleur, start, middle, pos, needs_shuffle = next_coup(
            cards, pos, needs_shuffle, seed, rules
        )
        check += 3 * noir + rouge + 5 * result + couleur + start + middle
    return check, n_coups


@jit.hot
def _settlements(actions, results, couleurs, rules, bankroll0, table):
    prison, placed, insured, back = table
    slips = (placed, insured, back)
    prison[:] = 0.0
    bankroll = bankroll0
    last = results[0:1]  # the scoreboard bet_and_settle reads: the previous coup
    check = 0.0
    for c in range(results.size):
        bankroll, clipped = bet_and_settle(
            actions[c % actions.shape[0]], bankroll, prison, results[c], couleurs[c], last, rules, slips
        )
        check += bankroll + back[0] + 3 * back[1] + 5 * back[2] + 7 * back[3] + prison.sum() + clipped
        last = results[c : c + 1]
        if bankroll < rules.table_min:  # ruined: a new session
            bankroll = bankroll0
            prison[:] = 0.0
    return check, results.size


def _timed(loops: dict[str, tuple], repeats: int) -> dict[str, tuple[float, float, object]]:
    """(min, median) CPU ns per call and the checksum of each loop (kernel, args), alternated."""
    times: dict[str, list[float]] = {name: [] for name in loops}
    checks = {}
    for fn, args in loops.values():
        fn(*args)  # compile, or load the compiled kernel, outside the timing
    for _ in range(repeats):
        for name, (fn, args) in loops.items():
            start = time.thread_time()
            checks[name], calls = fn(*args)
            times[name].append((time.thread_time() - start) / calls * 1e9)
    return {name: (min(t), statistics.median(t), checks[name]) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--rules", default="classic")
    args = parser.parse_args()
    rules = table_rules(get_rules(args.rules))
    rng = np.random.default_rng(0)
    seeds = rng.bit_generator.random_raw(2_000)
    shoes = np.empty((seeds.size, rules.base.size), dtype=rules.base.dtype)
    for shoe, seed in zip(shoes, seeds, strict=True):
        shoe[:] = rules.base
        shuffle(shoe, seed)
    coups = deal_coups(get_rules(args.rules), 200_000, 1)
    results = np.asarray(coups.result, dtype=np.int64)
    couleurs = np.asarray(coups.couleur, dtype=np.bool_)
    full = np.zeros((4_096, 12))
    full[:, :4] = rng.integers(0, 1_001, (4_096, 4))
    full[:, 4:] = rng.integers(0, 2, (4_096, 8))
    one_box = np.zeros((4_096, 12))
    one_box[np.arange(4_096), rng.integers(0, 4, 4_096)] = rng.choice([0.0, 10.0, 20.0], 4_096)
    small = np.zeros((4_096, 12))
    small[:, :4] = rng.integers(0, 6, (4_096, 4))
    cards = rules.base.copy()
    table = (np.zeros((4, 2)), np.zeros(4), np.zeros(4, dtype=np.bool_), np.zeros(4))  # prison, placed, insured, back
    loops = {
        "shuffle": (_shuffles, (cards, rules.base, seeds)),
        "deal_next": (_deals, (shoes, rules.burn, rules.cut_card, rules.dead_cards)),
        "next_coup": (_coups, (cards, seeds, rules, 200_000)),
        "bet_and_settle, full": (_settlements, (full, results, couleurs, rules, BANKROLL, table)),
        "bet_and_settle, one box": (_settlements, (one_box, results, couleurs, rules, BANKROLL, table)),
        "bet_and_settle, small": (_settlements, (small, results, couleurs, rules, BANKROLL, table)),
    }
    print(f"{'CPU ns a call':26} {'min':>7} {'median':>7}  checksum")
    for name, (low, mid, check) in _timed(loops, args.repeats).items():
        print(f"{name:26} {low:7.1f} {mid:7.1f}  {check!r}")


if __name__ == "__main__":
    main()

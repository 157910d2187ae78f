"""The environments' performance table, with its references measured in the same run.

``python -m benchmarks [--repeats 5] [--quick]`` prints a Markdown table:

* the native vector env (``gymnasium.make_vec("TrenteEtQuarante-v0", num_envs=N)``) at 1,000,
  10,000 and 100,000 tables, in the full/dict and discrete/flat forms, random actions, the env's
  own autoreset timed with the steps (from 10,000 tables on also with ``threads=False``), against
  gymnasium's ``CartPoleVectorEnv``
  (``gymnasium.make_vec("CartPole-v1", num_envs=N, vectorization_mode="vector_entry_point")``);
* the single env through ``gymnasium.make`` (Gymnasium's default wrappers), both forms, against
  ``CartPole-v1`` through ``gymnasium.make``;
* ``trente-lab simulate --coups 100000000`` as a whole process (start-up, kernels, deal, counts, JSON)
  against the pure-Python dealer, each run right after a run of the dealer, the median of the paired
  ratios beside the target (:func:`benchmarks.bench_dealer.simulate_row`; ``--quick``: 10,000,000
  coups; ``--no-simulate`` leaves it out);
* with ``--train``, the wall time of one witness run (PPO on the fair level, 1,000,000 steps, as
  ``trente-lab benchmark`` trains it) with today's settings against those before, in the same run
  (:mod:`benchmarks.bench_train_time`; ``--quick``: 100,000 steps);
* the first use of each command with an empty numba cache, after an editable install's compile
  step, and its second use (:mod:`benchmarks.bench_cold`; ``--no-cold`` leaves it out);
* with ``--ppo``, PPO's training speed on :func:`trente_env.wrappers.sb3_vec_env` at 256 and 1,024
  tables against the same PPO on ``CartPoleVectorEnv`` (:mod:`benchmarks.bench_ppo_vector`).

Each row's two envs are timed in alternation, ``--repeats`` times; the table gives the median rate
of each and the median of the paired ratios (each ratio from two runs a few seconds apart, so a
change of the machine's load moves both). The other benchmark scripts (``bench_*.py``) still run on
their own.
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections.abc import Callable

import numba

from benchmarks.bench_env import single_env_rate, vector_rate
from experiments.console import status
from trente_env.tables import PARALLEL_FROM

FORMS = {
    "full/dict": {"action_form": "full", "observation": "dict"},
    "discrete/flat": {"action_form": "discrete", "observation": "flat"},
}


def paired(
    ours: Callable[[], float],
    reference: Callable[[], float],
    repeats: int,
    what: str = "",
    doing: Callable[[str], None] | None = None,
) -> tuple[float, float, float]:
    """Median rate of ``ours``, of ``reference`` and median of the paired ratios, the two timed in
    alternation (the first of each pair alternating too); ``doing`` is told ``what`` and which run."""
    a, b = [], []
    for r in range(repeats):
        if doing is not None:
            doing(f"measuring {what}: run {r + 1} of {repeats}")
        if r % 2:
            b.append(reference())
            a.append(ours())
        else:
            a.append(ours())
            b.append(reference())
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    return statistics.median(a), statistics.median(b), statistics.median(ratios)


def rate_text(x: float) -> str:
    """A rate as the tables print it: millions to two decimals, else thousands."""
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.0f} k"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="alternating runs of each pair (median)")
    parser.add_argument("--quick", action="store_true", help="a tenth of the steps (a rough table in seconds)")
    parser.add_argument("--ppo", action="store_true", help="add PPO's training speed at 256 and 1,024 tables")
    parser.add_argument(
        "--train", action="store_true", help="add one PPO run of fair at 1,000,000 steps, today's settings vs before"
    )
    parser.add_argument(
        "--no-cold", action="store_true", help="leave out the first-use table (each command cold and warm)"
    )
    parser.add_argument(
        "--no-simulate", action="store_true", help="leave out simulate's whole process against the pure-Python dealer"
    )
    args = parser.parse_args()
    with status() as doing:  # a status line on stderr: which row, which run
        _table(args, doing)


def _table(args: argparse.Namespace, doing: Callable[[str], None]) -> None:
    scale = 0.1 if args.quick else 1.0
    table_steps = int(2_000_000 * scale)
    single_steps = int(50_000 * scale)

    print(f"{os.cpu_count()} CPUs, numba threads {numba.get_num_threads()}, {args.repeats} repeats", flush=True)
    print()
    print("| env | steps/s (median) | reference, same run | ratio (median of pairs) |")
    print("|---|---|---|---|")
    for n in (1_000, 10_000, 100_000):
        # from PARALLEL_FROM tables on, the kernels run on threads by default; the one-thread figure beside it
        for threads in (None,) if n < PARALLEL_FROM else (None, False):
            for form, kwargs in FORMS.items():
                ours, ref, ratio = paired(
                    lambda n=n, kwargs=kwargs, threads=threads: vector_rate(n, table_steps, threads=threads, **kwargs),
                    lambda n=n: vector_rate(n, table_steps, env_id="CartPole-v1"),
                    args.repeats,
                    f"the native vector env, {n:,} tables, {form}",
                    doing,
                )
                how = ", one thread" if threads is False else ""
                print(
                    f"| native vector env, {n:,} tables, {form}{how} | {rate_text(ours)} table-steps/s "
                    f"| CartPoleVectorEnv, {n:,} envs: {rate_text(ref)} | {ratio:.2f}x |",
                    flush=True,
                )
    for form, kwargs in FORMS.items():
        ours, ref, ratio = paired(
            lambda kwargs=kwargs: single_env_rate("TrenteEtQuarante-v0", single_steps, **kwargs),
            lambda: single_env_rate("CartPole-v1", single_steps),
            args.repeats,
            f"the single env, {form}",
            doing,
        )
        print(
            f"| single env via gym.make, {form} | {rate_text(ours)} | CartPole-v1 via gym.make: {rate_text(ref)} "
            f"| {ratio:.2f}x |",
            flush=True,
        )
    if not args.no_simulate:
        from benchmarks.bench_dealer import simulate_row

        doing("timing `trente-lab simulate` as a whole process, each run after a run of the pure-Python dealer")
        print(simulate_row(10_000_000 if args.quick else 100_000_000, args.repeats), flush=True)
    if args.ppo:
        from benchmarks.bench_ppo_vector import rows

        for line in rows([256, 1024], args.repeats):
            print(line, flush=True)
    if args.train:
        from benchmarks.bench_train_time import rows as train_rows

        doing("timing PPO runs on fair, today's settings and before, in alternation")
        for line in train_rows(args.repeats, args.quick):
            print(line, flush=True)
    if not args.no_cold:
        from benchmarks.bench_cold import ROWS, measure, table

        doing("measuring each first command with an empty numba cache, after the install's compile step, and warm")
        print()
        print(table(measure(list(ROWS), 1 if args.quick else max(1, args.repeats // 2))), flush=True)


if __name__ == "__main__":
    main()

"""The vector env's cost per table-step, the tables' kernel apart from the env around it (issue 16).

``python -m benchmarks.bench_kernel [--tables 1000 10000] [--calls 200]`` prints, for each number of
tables, form (full/dict, discrete/flat) and threading (one thread, numba's threads), the cost of one
table-step in nanoseconds:

* ``step``: one ``step`` of the native vector env (``gymnasium.make_vec``), random actions sampled
  beforehand, the env's own autoreset included;
* ``tables``: :meth:`trente_env.tables.Tables.step` alone on the same actions, already converted
  to action rows or choices (the compiled kernel and its thin Python call); ``step - tables`` is the
  vector env's Python side (checking the actions, ``info``).

Each call is timed on its own, and the table gives the 10th percentile of the calls' times (what a
call costs when nothing else takes its core: steady on a busy machine) and their median (what it
costs on this machine now). The ratios to ``CartPoleVectorEnv`` are in ``python -m benchmarks``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import trente_env  # noqa: F401  (registers the ids)
from trente_env.tables import NEXT_STEP

FORMS = {
    "full/dict": {"action_form": "full", "observation": "dict"},
    "discrete/flat": {"action_form": "discrete", "observation": "flat"},
}


def call_times(call: Callable[[int], object], calls: int) -> list[float]:
    """Seconds taken by each of ``calls`` calls of ``call(i)``, after 5 calls of warm-up."""
    for i in range(5):
        call(i)
    times = []
    for i in range(calls):
        start = time.perf_counter()
        call(i)
        times.append(time.perf_counter() - start)
    return times


def costs(n: int, form: str, threads: bool, calls: int) -> dict[str, tuple[float, float]]:
    """(10th percentile, median) nanoseconds per table-step of the vector env's ``step`` and of
    its tables' ``step`` alone, at ``n`` tables in ``form``."""
    venv = gym.make_vec(
        "TrenteEtQuarante-v0", num_envs=n, vectorization_mode="vector_entry_point", threads=threads, **FORMS[form]
    )
    venv.reset(seed=0)
    venv.action_space.seed(0)
    actions = [venv.action_space.sample() for _ in range(8)]
    env = venv.unwrapped
    tables, layout = env.tables, env.layout
    if layout.action_form == "discrete":
        rows = [(layout.action_table, layout.choices(a, n)) for a in actions]
    else:
        rows = [(layout.actions(a, n), None) for a in actions]
    limit = env.max_episode_steps
    out = {}
    for name, call in (
        ("step", lambda i: venv.step(actions[i % 8])),
        ("tables", lambda i: tables.step(*rows[i % 8], autoreset=NEXT_STEP, limit=limit)),
    ):
        times = np.array(call_times(call, calls)) / n * 1e9
        out[name] = (float(np.percentile(times, 10)), float(statistics.median(times)))
    venv.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--calls", type=int, default=200, help="timed calls of each (at least 20 at 100,000 tables)")
    args = parser.parse_args()
    print("| tables | form | threads | step: p10 / median ns | tables.step: p10 / median ns |")
    print("|---|---|---|---|---|")
    for n in args.tables:
        calls = max(20, min(args.calls, args.calls * 10_000 // n))
        for form in FORMS:
            for threads in (False, True):
                c = costs(n, form, threads, calls)
                step, alone = c["step"], c["tables"]
                print(
                    f"| {n:,} | {form} | {'numba' if threads else 'one'} | {step[0]:.0f} / {step[1]:.0f} "
                    f"| {alone[0]:.0f} / {alone[1]:.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()

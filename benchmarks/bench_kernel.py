"""The vector env's cost per table-step, the tables' kernel apart from the env around it.

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

``python -m benchmarks.bench_kernel --layers [tbb workqueue omp] [--tables 1000]`` compares numba's
threading layers (:mod:`trente_env.jit` picks one), each in a fresh process: the layer in use; the
cost of entering a parallel loop (``Tables.reset_rows`` of no row, which does nothing else, on
threads); the tables' step on one thread and on threads, timed call by call in alternation; and
torch's work (an MLP's forward pass on 1,024 rows, one torch thread, as PPO's policy) before any
parallel loop, after the threaded steps, and right after each threaded step.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
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


def torch_forward(calls: int = 300) -> Callable[[], float]:
    """A function timing the median microseconds of an MLP's forward pass (100 -> 64 -> 64, tanh, as
    SB3's ``MlpPolicy``) on 1,024 rows, one torch thread, over ``calls`` passes."""
    import torch

    torch.set_num_threads(1)
    x, w1, w2 = torch.randn(1024, 100), torch.randn(100, 64), torch.randn(64, 64)

    def timed() -> float:
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            torch.tanh(torch.tanh(x @ w1) @ w2)
            times.append(time.perf_counter() - start)
        return statistics.median(times) * 1e6

    return timed


def layer_costs(n: int, calls: int) -> dict:
    """The figures of ``--layers`` in this process (its threading layer chosen by its environment)."""
    import numba

    from trente_env.layout import Layout
    from trente_env.rules import get_rules

    forward = torch_forward()
    out: dict = {"torch_before_us": forward()}
    layout = Layout(get_rules("classic"), "full", "flat", 10, False, (1.0,))
    one, many = (layout.new_tables(n, 100.0, None, threads=threads) for threads in (False, True))
    for tables in (one, many):
        tables.seed([np.random.default_rng(i) for i in range(n)])
        tables.reset_rows()
    nothing = np.zeros(n, dtype=np.bool_)
    entry = call_times(lambda i: many.reset_rows(nothing), 10 * calls)
    out["layer"] = numba.threading_layer()
    out["enter_us"] = (np.percentile(entry, 10) * 1e6, statistics.median(entry) * 1e6)
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 3, (n, 12)).astype(np.float64) for _ in range(8)]
    times: dict[str, list[float]] = {"one": [], "threads": []}
    for i in range(5 * calls):
        for name, tables in (("one", one), ("threads", many)):
            start = time.perf_counter()
            tables.step(actions[i % 8], autoreset=NEXT_STEP)
            times[name].append(time.perf_counter() - start)
    for name, t in times.items():
        out[name + "_ns"] = (np.percentile(t, 10) / n * 1e9, statistics.median(t) / n * 1e9)
    out["torch_after_us"] = forward()
    single = torch_forward(1)
    after_step = []
    for i in range(calls):
        many.step(actions[i % 8], autoreset=NEXT_STEP)
        after_step.append(single())
    out["torch_after_each_step_us"] = statistics.median(after_step)
    return out


def compare_layers(layers: list[str], n: int, calls: int) -> None:
    """Print ``--layers``' table: each layer measured in a fresh process, in turn."""
    print(
        f"| layer ({n:,} tables, load {os.getloadavg()[0]:.1f}) | entering a parallel loop: p10 / median us "
        "| one thread: p10 / median ns | threads: p10 / median ns "
        "| torch forward, us: before / after / right after each step |"
    )
    print("|---|---|---|---|---|")
    for layer in layers:
        env = {**os.environ, "NUMBA_THREADING_LAYER": layer}
        code = f"import json; from benchmarks.bench_kernel import layer_costs as c; print(json.dumps(c({n}, {calls})))"
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        if done.returncode:
            print(f"| {layer} | failed: {done.stderr.strip().splitlines()[-1:]} | | | |", flush=True)
            continue
        c = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"| {c['layer']} | {c['enter_us'][0]:.1f} / {c['enter_us'][1]:.1f} | {c['one_ns'][0]:.0f} / "
            f"{c['one_ns'][1]:.0f} | {c['threads_ns'][0]:.0f} / {c['threads_ns'][1]:.0f} | "
            f"{c['torch_before_us']:.0f} / {c['torch_after_us']:.0f} / {c['torch_after_each_step_us']:.0f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--calls", type=int, default=200, help="timed calls of each (at least 20 at 100,000 tables)")
    parser.add_argument("--layers", nargs="*", help="compare numba's threading layers (default: tbb workqueue omp)")
    args = parser.parse_args()
    import numba

    if args.layers is not None:
        print("numba's threading layer: each in turn")
        for n in args.tables:
            compare_layers(args.layers or ["tbb", "workqueue", "omp"], n, args.calls)
        return
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
    print(f"numba's threading layer: {numba.threading_layer()}")  # known once a parallel loop has run


if __name__ == "__main__":
    main()

"""First use against second use: each command's wall time with an empty numba cache (a fresh
install, a new Dask worker machine, CI) and again with the cache it filled, in one run.

    python -m benchmarks.bench_cold [--repeats 1] [--rows env,vec,tournament,fallacy,simulate]

Each row runs in a subprocess of its own: ``cold`` with ``NUMBA_CACHE_DIR`` set to a new empty
folder, then ``warm`` with the same folder (now filled), so both pay the same imports and start-up.
The figure is the median wall time over ``--repeats`` pairs, with the ratio cold / warm of each pair
(median). The numba compile events of the cold run are counted by kernel, with each kernel's own compile
seconds (``--kernels``: where the time goes). Load on the machine moves both columns alike: compare the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The rows: what the user does first, as a Python snippet run in a fresh interpreter.
ROWS: dict[str, tuple[str, str]] = {
    "env": (
        'gym.make("TrenteEtQuarante-v0"), reset and first step',
        "import gymnasium as gym, trente_env\n"
        'env = gym.make("TrenteEtQuarante-v0"); env.reset(seed=0); env.step(env.action_space.sample())',
    ),
    "vec": (
        "gym.make_vec(..., num_envs=10_000), reset and first step",
        "import gymnasium as gym, trente_env\n"
        'envs = gym.make_vec("TrenteEtQuarante-v0", num_envs=10_000, vectorization_mode="vector_entry_point")\n'
        "envs.reset(seed=0); envs.step(envs.action_space.sample())",
    ),
    "tournament": (
        "trente-lab tournament --no-plots (default)",
        "import sys, tempfile; from experiments.cli import app\n"
        "out = tempfile.mkdtemp() + '/run'\n"
        "sys.argv = ['trente-lab', 'tournament', '--no-plots', '--out', out]\n"
        "app(standalone_mode=False)",
    ),
    "fallacy": (
        "trente-lab fallacy --coups 100000",
        "import sys, tempfile; from experiments.cli import app\n"
        "sys.argv = ['trente-lab', 'fallacy', '--coups', '100000', '--json']\n"
        "app(standalone_mode=False)",
    ),
    "simulate": (
        "trente-lab simulate --coups 1000000",
        "import sys; from experiments.cli import app\n"
        "sys.argv = ['trente-lab', 'simulate', '--coups', '1000000', '--json']\n"
        "app(standalone_mode=False)",
    ),
}

#: Wrapped around a row's snippet: counts numba's compile events by kernel, with the seconds spent
#: compiling each (its own time: the kernels it compiled inside it are counted apart), as JSON.
PROBE = """
import json, time
from numba.core import event
compiled, seconds, stack = {}, {}, []
class Count(event.Listener):
    def on_start(self, e):
        stack.append([time.perf_counter(), 0.0])
    def on_end(self, e):
        begun, inner = stack.pop()
        spent = time.perf_counter() - begun
        if stack:
            stack[-1][1] += spent
        fn = e.data["dispatcher"].py_func
        name = f"{fn.__module__}.{fn.__qualname__}"
        compiled[name] = compiled.get(name, 0) + 1
        seconds[name] = seconds.get(name, 0.0) + spent - inner
event.register("numba:compile", Count())
start = time.perf_counter()
def report():  # at exit: the CLI's commands may end the process with SystemExit
    out = {"seconds": time.perf_counter() - start, "compiled": compiled, "compile_s": seconds}
    print("\\nBENCH_COLD " + json.dumps(out), flush=True)
import atexit
atexit.register(report)
{snippet}
"""


def run(snippet: str, cache: str) -> dict:
    """Run ``snippet`` in a fresh interpreter with numba's cache in ``cache``: wall seconds (the whole
    process, start-up included), and the kernels compiled."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROBE.replace("{snippet}", snippet)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - start
    lines = [line for line in done.stdout.splitlines() if line.startswith("BENCH_COLD ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"bench_cold: the snippet failed:\n{done.stderr[-2000:]}")
    return {"wall": wall, **json.loads(lines[-1].removeprefix("BENCH_COLD "))}


def measure(rows: list[str], repeats: int) -> dict[str, dict]:
    results = {}
    for name in rows:
        what, snippet = ROWS[name]
        cold, warm, kernels, compile_s = [], [], {}, {}
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as cache:
                first = run(snippet, cache)
                second = run(snippet, cache)
            cold.append(first["wall"])
            warm.append(second["wall"])
            kernels, compile_s = first["compiled"], first.get("compile_s", {})
        ratios = [c / w for c, w in zip(cold, warm, strict=True)]
        results[name] = {
            "what": what,
            "cold_s": statistics.median(cold),
            "warm_s": statistics.median(warm),
            "cold_over_warm": statistics.median(ratios),
            "kernels_compiled": sum(kernels.values()),
            "kernels": kernels,
            "compile_s": compile_s,
        }
        print(f"  {what}: cold {results[name]['cold_s']:.1f} s, warm {results[name]['warm_s']:.1f} s", file=sys.stderr)
    return results


def table(results: dict[str, dict]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| first command on a fresh install | cold | warm | cold / warm | kernels compiled cold |",
        "|---|---|---|---|---|",
    ]
    for r in results.values():
        lines.append(
            f"| {r['what']} | {r['cold_s']:.1f} s | {r['warm_s']:.2f} s | {r['cold_over_warm']:.1f}x "
            f"| {r['kernels_compiled']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="cold/warm pairs per row (median)")
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, from {', '.join(ROWS)}")
    parser.add_argument("--kernels", action="store_true", help="list the kernels each cold run compiled")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    rows = [row for row in args.rows.split(",") if row]
    unknown = [row for row in rows if row not in ROWS]
    if unknown:
        raise SystemExit(f"bench_cold: unknown row(s) {', '.join(unknown)}; choose from {', '.join(ROWS)}")
    results = measure(rows, args.repeats)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(table(results))
    if args.kernels:
        for name, r in results.items():
            print(f"\n{name}:")
            spent = r["compile_s"]
            print(f"  compiling: {sum(spent.values()):.1f} s (count, own seconds, kernel)")
            for kernel, n in sorted(r["kernels"].items(), key=lambda kv: -spent.get(kv[0], 0.0)):
                print(f"  {n:3d}  {spent.get(kernel, 0.0):5.2f} s  {kernel}")


if __name__ == "__main__":
    main()

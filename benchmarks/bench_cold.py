"""First use against second use: each command's wall time with an empty numba cache (a new Dask
worker machine, a regular install), after the install's compile step (an editable install, the
README's: :mod:`experiments.warm`), and again with the cache it filled, in one run.

    python -m benchmarks.bench_cold [--repeats 1] [--rows env,vec,tournament,fallacy,simulate]

Each row runs in a subprocess of its own: ``cold`` with ``NUMBA_CACHE_DIR`` set to a new empty
folder, then ``warm`` with the same folder (now filled), so both pay the same imports and start-up;
``installed`` in a folder that ``python -m experiments.warm`` filled first (timed: the seconds the
install spends compiling), with the kernels it still had to compile.
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

from experiments.warm import FIRST_COMMANDS

ROOT = Path(__file__).resolve().parent.parent

#: The rows: what the user does first, as a Python snippet run in a fresh interpreter (the same
#: commands an editable install compiles ahead, :mod:`experiments.warm`).
ROWS = FIRST_COMMANDS

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


def install_step(cache: str) -> float:
    """What an editable install does after building: ``python -m experiments.warm`` into ``cache``;
    its wall seconds."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "experiments.warm"],
        cwd=ROOT, env=dict(os.environ, NUMBA_CACHE_DIR=cache), capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"bench_cold: the install's compile step failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - start


def measure(rows: list[str], repeats: int) -> dict[str, dict]:
    """Per row the medians over ``repeats`` of cold, installed and warm, and the kernels compiled; the
    install step's own seconds under the key ``"install"``."""
    samples = {name: {"cold": [], "warm": [], "installed": [], "ratio": []} for name in rows}
    last = {}
    install = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as installed:
            install.append(install_step(installed))
            for name in rows:
                snippet = ROWS[name][1]
                with tempfile.TemporaryDirectory() as cache:
                    first = run(snippet, cache)
                    second = run(snippet, cache)
                after = run(snippet, installed)
                s = samples[name]
                s["cold"].append(first["wall"])
                s["warm"].append(second["wall"])
                s["installed"].append(after["wall"])
                s["ratio"].append(first["wall"] / second["wall"])
                last[name] = (first, after)
    results: dict[str, dict] = {}
    for name in rows:
        s, (first, after) = samples[name], last[name]
        results[name] = {
            "what": ROWS[name][0],
            "cold_s": statistics.median(s["cold"]),
            "installed_s": statistics.median(s["installed"]),
            "warm_s": statistics.median(s["warm"]),
            "cold_over_warm": statistics.median(s["ratio"]),
            "kernels_compiled": sum(first["compiled"].values()),
            "kernels_compiled_installed": sum(after["compiled"].values()),
            "kernels": first["compiled"],
            "compile_s": first.get("compile_s", {}),
        }
        r = results[name]
        print(
            f"  {r['what']}: cold {r['cold_s']:.1f} s, after install {r['installed_s']:.1f} s, "
            f"warm {r['warm_s']:.1f} s",
            file=sys.stderr,
        )
    results["install"] = {
        "what": "python -m experiments.warm (an editable install's compile step)",
        "seconds": statistics.median(install),
    }
    return results


def table(results: dict[str, dict]) -> str:
    """The results as a Markdown table, and the install step's seconds below it."""
    lines = [
        "| first command | cold (empty cache) | after an editable install | warm | cold / warm "
        "| kernels compiled cold / after install |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        if name != "install":
            lines.append(
                f"| {r['what']} | {r['cold_s']:.1f} s | {r['installed_s']:.2f} s | {r['warm_s']:.2f} s "
                f"| {r['cold_over_warm']:.1f}x | {r['kernels_compiled']} / {r['kernels_compiled_installed']} |"
            )
    if "install" in results:
        lines.append(
            f"\nThe install's compile step (`python -m experiments.warm`): {results['install']['seconds']:.1f} s."
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
            if name == "install":
                continue
            print(f"\n{name}:")
            spent = r["compile_s"]
            print(f"  compiling: {sum(spent.values()):.1f} s (count, own seconds, kernel)")
            for kernel, n in sorted(r["kernels"].items(), key=lambda kv: -spent.get(kv[0], 0.0)):
                print(f"  {n:3d}  {spent.get(kernel, 0.0):5.2f} s  {kernel}")


if __name__ == "__main__":
    main()

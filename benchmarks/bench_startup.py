"""A short command's whole process: ``trente-lab`` as the installed script runs it
(:func:`experiments.cli.run`: fewer full garbage collections, an exit without the last ones) against
the same command through the bare Typer app (Python's own garbage collection), in one run.

    python -m benchmarks.bench_startup [--repeats 15] [--rows simulate,edge,deal,help,train]

Each row's two forms run as subprocesses in alternation (the first of each pair alternating too),
``--repeats`` pairs; the row gives the median wall time of each and the median of the paired ratios
(script / bare app). The commands are short on purpose: what is measured is the start-up and the
exit that every command pays (the imports, numba's registries, the kernels loaded from the cache);
``train`` (not run unless asked) adds what a short training run pays for torch's objects at exit.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The rows: a command's arguments (short runs: the start-up and exit dominate).
ROWS: dict[str, list[str]] = {
    "simulate": ["simulate", "--coups", "1", "--json"],
    "edge": ["edge", "--json"],
    "deal": ["deal", "--coups", "1", "--json"],
    "help": ["--help"],
    "train": ["train", "--rules", "fair", "--timesteps", "20000", "--out", "{scratch}", "--force", "--json"],
}
#: The rows run unless ``--rows`` says otherwise (``train``, a short training run, takes a minute a pair).
DEFAULT_ROWS = ("simulate", "edge", "deal", "help")

#: The command through the bare app: what ``trente-lab`` ran before :func:`experiments.cli.run`.
BARE = "import sys; sys.argv[0] = 'trente-lab'; from experiments.cli import app; app(prog_name='trente-lab')"


def seconds(command: list[str]) -> float:
    """Wall seconds of one run of ``command`` (which must succeed)."""
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, capture_output=True, check=True)
    return time.perf_counter() - start


def measure(args: list[str], repeats: int) -> dict[str, float]:
    """Median seconds of the script and of the bare app over ``repeats`` pairs, and the median ratio
    (``{scratch}`` in ``args``: a temporary folder, the same for every run)."""
    with tempfile.TemporaryDirectory(prefix="trente-lab-bench-startup-") as scratch:
        args = [arg.replace("{scratch}", str(Path(scratch) / "run")) for arg in args]
        return _measure(args, repeats)


def _measure(args: list[str], repeats: int) -> dict[str, float]:
    forms = {"script": [sys.executable, "-m", "experiments.cli", *args], "bare": [sys.executable, "-c", BARE, *args]}
    for command in forms.values():  # the kernels loaded once from the cache, the files in the page cache
        seconds(command)
    times: dict[str, list[float]] = {"script": [], "bare": []}
    for r in range(repeats):
        for name in ("script", "bare")[:: 1 if r % 2 == 0 else -1]:
            times[name].append(seconds(forms[name]))
    return {
        "script": statistics.median(times["script"]),
        "bare": statistics.median(times["bare"]),
        "ratio": statistics.median(s / b for s, b in zip(times["script"], times["bare"], strict=True)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="pairs of runs a row (median)")
    parser.add_argument("--rows", default=",".join(DEFAULT_ROWS), help=f"comma-separated, from {', '.join(ROWS)}")
    args = parser.parse_args()
    rows = args.rows.split(",")
    if unknown := [row for row in rows if row not in ROWS]:
        raise SystemExit(f"bench_startup: unknown row(s) {', '.join(unknown)}; choose from {', '.join(ROWS)}")
    print("| command | the script (`run`) | the bare app | script / bare (median of pairs) |")
    print("|---|---|---|---|")
    for row in rows:
        f = measure(ROWS[row], args.repeats)
        command = " ".join(ROWS[row]).replace("{scratch}", "<folder>")
        print(f"| `trente-lab {command}` | {f['script']:.3f} s | {f['bare']:.3f} s | {f['ratio']:.2f}x |")


if __name__ == "__main__":
    main()

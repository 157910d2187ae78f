"""What a default tournament costs after its progress bar: CPU-seconds of reading the blocks,
summing up, writing the files and drawing the plots.

    python benchmarks/bench_plots.py [--repeats 5] [--sessions 16000]

It plays the default tournament once (``trente-lab tournament``'s defaults, the block files kept),
then, ``--repeats`` times, in a fresh Python process each (so that importing matplotlib and its
font cache are paid as a user pays them): reads the block files back, sums them up and writes
every file and plot into a scratch folder, timing each phase in CPU-seconds of that process
(``time.process_time``: what the machine's load does not change much) and in wall seconds.
Figures are medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: One repeat, in a fresh process: argv[1] the tournament's folder, argv[2] a scratch folder.
PHASES = r"""
import json, sys, time
from pathlib import Path

cpu, wall, marks = time.process_time(), time.perf_counter(), {}
def mark(name):
    global cpu, wall
    marks[name] = (time.process_time() - cpu, time.perf_counter() - wall)
    cpu, wall = time.process_time(), time.perf_counter()

from experiments.tournament.checkpoints import run_identity
from experiments.tournament.folder import manifest_config
from experiments.tournament.runner import collect
from experiments.tournament.summary import summarize
from experiments.tournament.output import write_outputs
mark("imports")
folder, scratch = Path(sys.argv[1]), Path(sys.argv[2])
config = manifest_config(folder)
sessions = collect(config, folder, run_identity(config))
mark("reading the blocks")
document = summarize(config, sessions)
mark("summing up")
write_outputs(scratch, document, sessions, plots=False)
mark("files")
from experiments.tournament.output import trajectory_bands
from experiments.tournament.plots import draw_all
mark("importing matplotlib")
draw_all(scratch, document, sessions, trajectory_bands(sessions))
mark("plots")
print(json.dumps(marks))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=None, help="default: the default tournament's")
    args = parser.parse_args()
    from experiments.tournament.config import make_config
    from experiments.tournament.runner import run_tournament

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "run"
        sizes = {} if args.sessions is None else {"sessions": args.sessions}
        print("playing the default tournament once...", file=sys.stderr, flush=True)
        run_tournament(make_config(**sizes), folder, plots=False, keep_blocks=True)
        runs: dict[str, list[tuple[float, float]]] = {}
        for r in range(args.repeats):
            target = Path(scratch) / f"out{r}"
            target.mkdir()
            done = subprocess.run(
                [sys.executable, "-c", PHASES, str(folder), str(target)], check=True, capture_output=True, text=True
            )
            for phase, figures in json.loads(done.stdout).items():
                runs.setdefault(phase, []).append(tuple(figures))
            after = sum(runs[p][-1][0] for p in runs if p != "imports")
            print(f"  run {r + 1}/{args.repeats}: {after:.2f} CPU-s after the bar", file=sys.stderr, flush=True)
    medians = {
        phase: {"cpu_s": statistics.median(c for c, _ in v), "wall_s": statistics.median(w for _, w in v)}
        for phase, v in runs.items()
    }
    after = [sum(runs[p][r][0] for p in runs if p != "imports") for r in range(args.repeats)]
    print(json.dumps({"median_per_phase": medians, "median_cpu_s_after_the_bar": statistics.median(after)}, indent=2))


if __name__ == "__main__":
    main()

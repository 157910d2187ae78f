"""What a default tournament costs after its progress bar: reading the blocks, summing up, writing
the files and drawing the plots, the way the tournament did it before (``old``) and does it now
(``new``), alternated.

    python benchmarks/bench_plots.py [--repeats 5] [--sessions 16000]

It plays the default tournament once (``trente-lab tournament``'s defaults, the block files kept),
then, ``--repeats`` times each way in alternation, in a fresh Python process each (so that importing
matplotlib and its font cache are paid as a user pays them), does what follows the progress bar
into a scratch folder, timing each phase in CPU-seconds of that process (``time.process_time``) and
in wall seconds:

* ``old``: the blocks read back from their files, matplotlib imported and the plots drawn in this
  process after the files;
* ``new``: the blocks held in memory as the run leaves them (:meth:`Checkpoints.take`), and the plots
  drawn by two :class:`~experiments.tournament.drawing.Drawers` processes while this one writes the
  files. The drawing processes are started and have imported matplotlib before the clock starts, as
  they have while the sessions are played; the CPU-seconds they spend drawing are added.

Figures are medians; ``after_the_bar`` sums the phases after the imports (wall: what a user waits).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: One repeat, in a fresh process: argv[1] the tournament's folder, argv[2] a scratch folder,
#: argv[3] old or new.
PHASES = r"""
import json, sys, time
from pathlib import Path

cpu, wall, marks = time.process_time(), time.perf_counter(), {}
def mark(name):
    global cpu, wall
    marks[name] = [time.process_time() - cpu, time.perf_counter() - wall]
    cpu, wall = time.process_time(), time.perf_counter()

from experiments.tournament.checkpoints import Checkpoints, run_identity
from experiments.tournament.folder import manifest_config
from experiments.tournament.runner import collect
from experiments.tournament.summary import summarize
from experiments.tournament.output import write_outputs
folder, scratch, way = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
config = manifest_config(folder)
identity = run_identity(config)
drawers = None
blocks = Checkpoints(folder, config, identity, in_memory=way == "new")
if way == "new":
    from experiments.tournament.drawing import Drawers
    drawers = Drawers()
    for b in range(config.n_blocks):  # as the run leaves them: every block it played, in memory
        for s in range(len(config.specs)):
            blocks.kept[b, s] = blocks.load(b, s)
    time.sleep(5)  # both drawing processes have imported matplotlib, as they do while the sessions play
mark("imports")
sessions = collect(config, folder, identity, blocks)
mark("reading the blocks")
document = summarize(config, sessions)
mark("summing up")
if way == "old":
    write_outputs(scratch, document, sessions, plots=False)
    mark("files")
    from experiments.tournament.output import trajectory_bands
    from experiments.tournament.plots import draw_all
    mark("importing matplotlib")
    draw_all(scratch, document, sessions, trajectory_bands(sessions))
    mark("plots")
else:
    write_outputs(scratch, document, sessions, plots=True, drawers=drawers)
    mark("files and plots")
    marks["files and plots"][0] += sum(drawers.cpu_seconds.values())
    marks["of which drawing, in the drawing processes"] = [sum(drawers.cpu_seconds.values()), 0.0]
    drawers.__exit__(None, None, None)
    if set(drawers.cpu_seconds) != {"final_bankroll.png", "trajectories.png", "ahead_vs_return.png"}:
        raise SystemExit(f"the drawing processes drew {sorted(drawers.cpu_seconds)}")
print(json.dumps(marks))
"""

#: Phases that are not part of what follows the progress bar.
NOT_AFTER = ("imports", "of which drawing, in the drawing processes")


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
        runs: dict[str, dict[str, list[tuple[float, float]]]] = {"old": {}, "new": {}}
        for r in range(args.repeats):
            for way in ("old", "new"):
                target = Path(scratch) / f"{way}{r}"
                target.mkdir()
                done = subprocess.run(
                    [sys.executable, "-c", PHASES, str(folder), str(target), way],
                    check=True, capture_output=True, text=True,
                )  # fmt: skip
                for phase, figures in json.loads(done.stdout).items():
                    runs[way].setdefault(phase, []).append(tuple(figures))
                cpu, wall = _after(runs[way], -1)
                print(f"  run {r + 1}/{args.repeats} {way}: {cpu:.2f} CPU-s, {wall:.2f} s wall after the bar",
                      file=sys.stderr, flush=True)  # fmt: skip
    report = {}
    for way, phases in runs.items():
        after = [_after(phases, r) for r in range(args.repeats)]
        report[way] = {
            "median_per_phase": {
                p: {"cpu_s": statistics.median(c for c, _ in v), "wall_s": statistics.median(w for _, w in v)}
                for p, v in phases.items()
            },
            "median_after_the_bar": {
                "cpu_s": statistics.median(c for c, _ in after), "wall_s": statistics.median(w for _, w in after)
            },
        }  # fmt: skip
    print(json.dumps(report, indent=2))


def _after(phases: dict[str, list[tuple[float, float]]], r: int) -> tuple[float, float]:
    """CPU-seconds and wall seconds of run ``r`` after the progress bar (every phase but the imports)."""
    kept = [v[r] for p, v in phases.items() if p not in NOT_AFTER]
    return sum(c for c, _ in kept), sum(w for _, w in kept)


if __name__ == "__main__":
    main()

"""The tournament's plots drawn by other processes while this one writes the files.

Drawing the plots of a default tournament costs a few CPU-seconds, most of them in matplotlib's
axes, ticks and text (19 small panels a figure), and importing matplotlib costs most of a second.
:class:`Drawers` starts its processes when the run starts, so that they import matplotlib while
the sessions are played; once the results are summed up, each process is sent its share of the
plots and draws them (:func:`experiments.tournament.plots.draw_one`, the same function and the
same bytes as a drawing in this process) while this one writes the other files.

The processes are fresh interpreters running :func:`serve` (not :mod:`multiprocessing`, which
would run the caller's own script again in each of them unless it is guarded by
``if __name__ == "__main__"``). They find trente-lab where this process found it (its folder first
on their ``PYTHONPATH``) and nothing of the working folder (``-P``: neither another checkout of
trente-lab there nor a stray file named like a standard module), so they run the same code. A plot
whose process fails is drawn by this process after all (:func:`~experiments.tournament.output.write_outputs`).
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

#: The tournament's plots, in the order they are listed (:mod:`experiments.tournament.plots`).
PLOT_FILES = ("final_bankroll.png", "trajectories.png", "ahead_vs_return.png")
#: Each process's share of the plots, by the number of processes: about as long to draw each.
SHARES = {1: (PLOT_FILES,), 2: (("final_bankroll.png",), ("trajectories.png", "ahead_vs_return.png"))}

SERVE = "from experiments.tournament.drawing import serve; serve()"
#: The folder that holds this process's ``experiments`` package.
ROOT = Path(__file__).resolve().parents[2]


def serve() -> None:
    """A drawing process: import matplotlib at once, then read its plots from stdin (a pickled
    list of :func:`~experiments.tournament.plots.draw_one`'s arguments), draw them and write to
    stdout the CPU-seconds each took (pickled). Nothing on stdin: nothing to draw."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's business
    from experiments.tournament.plots import draw_one  # matplotlib, while the sessions are played

    data = sys.stdin.buffer.read()
    if not data:
        return
    seconds = {}
    for out, name, document, sessions, bands in pickle.loads(data):
        cpu = time.process_time()
        draw_one(Path(out), name, document, sessions, bands)
        seconds[name] = time.process_time() - cpu
    sys.stdout.buffer.write(pickle.dumps(seconds))


class Drawers:
    """Two processes (one on a one-core machine) that draw the plots, started at once; a context
    manager that waits for them to end (a plot being drawn is finished, never left half-written)."""

    def __init__(self, processes: int = 2) -> None:
        count = max(1, min(processes, len(SHARES), os.cpu_count() or 1))
        # this process's trente-lab first, then what the user's PYTHONPATH holds (nothing else of this
        # process's sys.path: its working folder there would hide standard modules behind its files)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
        self.children = [
            subprocess.Popen(
                [sys.executable, "-P", "-c", SERVE],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )  # fmt: skip
            for _ in range(count)
        ]
        self.sent: list[tuple[threading.Thread, dict[str, Any], tuple[str, ...]]] = []
        #: CPU-seconds each plot took in its drawing process, once :meth:`wait` has it.
        self.cpu_seconds: dict[str, float] = {}
        #: The plots whose process failed, with the last line of its error, once :meth:`wait` has them.
        self.failures: dict[str, str] = {}

    def __enter__(self) -> Drawers:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.sent:
            for child in self.children:
                child.communicate()  # nothing to draw (stdin closed empty): each process ends
        for thread, _, _ in self.sent:
            thread.join()

    def draw(
        self,
        out: Path,
        document: Mapping[str, Any],
        sessions: Mapping[str, Mapping[str, np.ndarray]],
        bands: Mapping[str, Mapping[str, np.ndarray]],
    ) -> None:
        """Send each process its share (:data:`SHARES`) of the plots to draw into ``out``, with only
        what each plot reads; :meth:`wait` waits for them."""
        finals = {label: {"final_bankroll": s["final_bankroll"]} for label, s in sessions.items()}
        reads = {"final_bankroll.png": (finals, {}), "trajectories.png": ({}, bands), "ahead_vs_return.png": ({}, {})}
        for child, names in zip(self.children, SHARES[len(self.children)]):
            jobs = pickle.dumps([(str(out), name, dict(document), *reads[name]) for name in names])
            answer: dict[str, Any] = {}
            thread = threading.Thread(target=_talk, args=(child, jobs, answer), daemon=True)
            thread.start()  # a thread: the process may still be importing matplotlib, not reading yet
            self.sent.append((thread, answer, names))

    def wait(self, written: list[str], doing: Callable[[str], None] | None = None) -> list[str]:
        """Wait for the plots :meth:`draw` sent; each is added to ``written`` once its process is
        done (in :data:`PLOT_FILES` order) and returned. The plots of a process that failed are left
        out and kept in :attr:`failures` with its error's last line."""
        for thread, answer, names in self.sent:
            if doing and thread.is_alive():
                doing(f"drawing {', '.join(names)} (in another process)")
            thread.join()
            if answer.get("returncode") != 0:
                lines = answer.get("stderr", b"").decode(errors="replace").strip().splitlines() or ["no message"]
                self.failures.update(dict.fromkeys(names, lines[-1]))
                continue
            self.cpu_seconds.update(pickle.loads(answer["stdout"]))
        done = [name for name in PLOT_FILES if name in self.cpu_seconds]
        written.extend(done)
        return done


def _talk(child: subprocess.Popen, jobs: bytes, answer: dict[str, Any]) -> None:
    answer["stdout"], answer["stderr"] = child.communicate(jobs)
    answer["returncode"] = child.returncode


__all__ = ["PLOT_FILES", "SHARES", "Drawers", "serve"]

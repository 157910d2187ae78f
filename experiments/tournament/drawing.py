"""The tournament's plots drawn by other processes while this one writes the files.

Drawing the plots of a default tournament costs a few CPU-seconds, most of them in matplotlib's
axes, ticks and text (19 small panels a figure), and importing matplotlib costs most of a second.
:class:`Drawers` starts its processes when the run starts, so that they import matplotlib while
the sessions are played; once the results are summed up, each process is given its share of the
plots and draws them (:func:`experiments.tournament.plots.draw_one`, the same function and the
same bytes as a drawing in this process) while this one writes the other files.

The processes are the run's worker pool (:class:`experiments.workers.Workers`: fresh interpreters
running this code, not the caller's script again). A plot whose process fails is drawn by this
process after all (:func:`~experiments.tournament.output.write_outputs`).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from experiments.workers import Workers

#: The tournament's plots, in the order they are listed (:mod:`experiments.tournament.plots`).
PLOT_FILES = ("final_bankroll.png", "trajectories.png", "ahead_vs_return.png")
#: Each process's share of the plots, by the number of processes: about as long to draw each.
SHARES = {1: (PLOT_FILES,), 2: (("final_bankroll.png",), ("trajectories.png", "ahead_vs_return.png"))}


def _load_matplotlib() -> None:
    """A drawing process's start: Ctrl-C is the parent's business; matplotlib, while the sessions are played."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import experiments.tournament.plots  # noqa: F401


def draw_share(jobs: list[tuple[Any, ...]]) -> dict[str, float]:
    """In a drawing process: draw each plot of ``jobs`` (:func:`~experiments.tournament.plots.draw_one`'s
    arguments); returns the CPU-seconds each took."""
    from experiments.tournament.plots import draw_one

    seconds = {}
    for out, name, document, sessions, bands in jobs:
        cpu = time.process_time()
        draw_one(Path(out), name, document, sessions, bands)
        seconds[name] = time.process_time() - cpu
    return seconds


class Drawers:
    """Two processes (one on a one-core machine) that draw the plots, started at once; a context
    manager that waits for them to end (a plot being drawn is finished, never left half-written)."""

    def __init__(self, processes: int = 2) -> None:
        count = max(1, min(processes, len(SHARES), os.cpu_count() or 1))
        self.pool = Workers(count, _load_matplotlib)
        self.pool.start()
        self.sent: dict[int, tuple[str, ...]] = {}  # the plots each process was given
        #: CPU-seconds each plot took in its drawing process, once :meth:`wait` has it.
        self.cpu_seconds: dict[str, float] = {}
        #: The plots whose process failed, with the one line of its error, once :meth:`wait` has them.
        self.failures: dict[str, str] = {}

    def __enter__(self) -> Drawers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.close()

    def draw(
        self,
        out: Path,
        document: Mapping[str, Any],
        sessions: Mapping[str, Mapping[str, np.ndarray]],
        bands: Mapping[str, Mapping[str, np.ndarray]],
    ) -> None:
        """Give each process its share (:data:`SHARES`) of the plots to draw into ``out``, with only
        what each plot reads; :meth:`wait` waits for them."""
        finals = {label: {"final_bankroll": s["final_bankroll"]} for label, s in sessions.items()}
        reads = {"final_bankroll.png": (finals, {}), "trajectories.png": ({}, bands), "ahead_vs_return.png": ({}, {})}
        for names in SHARES[self.pool.count]:
            jobs = [(str(out), name, dict(document), *reads[name]) for name in names]
            self.sent[self.pool.submit(draw_share, (jobs,))] = names

    def wait(self, written: list[str], doing: Callable[[str], None] | None = None) -> list[str]:
        """Wait for the plots :meth:`draw` gave; each is added to ``written`` once its process is done
        (in :data:`PLOT_FILES` order) and returned. The plots of a process that failed are left out
        and kept in :attr:`failures` with its error's one line."""
        waiting = dict(self.sent)
        if doing and waiting:
            doing(f"drawing {', '.join(n for names in waiting.values() for n in names)} (in other processes)")
        while waiting:
            answer = self.pool.answer()
            names = waiting.pop(answer.index, ())
            if answer.ok:
                self.cpu_seconds.update(answer.value)
                for name in names:
                    self.failures.pop(name, None)
            else:  # its task failed, its start (matplotlib) failed, or it died
                self.failures.update(dict.fromkeys(names, answer.line))
                if answer.index in self.pool.busy:  # the start failed: the plots' answer is still to come
                    waiting[answer.index] = names
        done = [name for name in PLOT_FILES if name in self.cpu_seconds]
        written.extend(done)
        return done


__all__ = ["PLOT_FILES", "SHARES", "Drawers", "draw_share"]

"""The tournament's plots drawn by other processes while this one writes the files.

Drawing the plots of a default tournament costs a few CPU-seconds, most of them in matplotlib's
axes, ticks and text (19 small panels a figure), and importing matplotlib costs most of a second.
:class:`Drawers` starts its processes when the run starts, so that they import matplotlib while
the sessions are played; once the results are summed up, each plot is drawn by one of them
(:func:`experiments.tournament.plots.draw_one`, the same function and the same bytes as a drawing
in this process) while this one writes the other files.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

#: The tournament's plots, in the order they are drawn (:mod:`experiments.tournament.plots`).
PLOT_FILES = ("final_bankroll.png", "trajectories.png", "ahead_vs_return.png")


def _ready() -> None:
    """A drawing process: Ctrl-C is the parent's business; matplotlib is imported at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import experiments.tournament.plots  # noqa: F401  (matplotlib, while the sessions are played)


def _draw(
    out: str, name: str, document: Mapping[str, Any], sessions: Mapping[str, Any], bands: Mapping[str, Any]
) -> float:
    """Draw ``name`` into ``out`` in a drawing process; returns the CPU-seconds it took there."""
    from experiments.tournament.plots import draw_one

    cpu = time.process_time()
    draw_one(Path(out), name, document, sessions, bands)
    return time.process_time() - cpu


def _nothing() -> None:
    """A task that makes the pool start one more process now (the pool starts them as tasks come)."""


class Drawers:
    """``processes`` processes that draw the plots (at most the CPU count, at least 1), started at
    once; a context manager that stops them (a plot being drawn is finished first)."""

    def __init__(self, processes: int = 2) -> None:
        self.processes = max(1, min(processes, os.cpu_count() or 1))
        context = multiprocessing.get_context("spawn")  # numba's threads do not survive a fork
        self.pool = ProcessPoolExecutor(self.processes, mp_context=context, initializer=_ready)
        self.started = [self.pool.submit(_nothing) for _ in range(self.processes)]
        self.drawing: dict[str, Future[float]] = {}
        #: CPU-seconds each plot took in its drawing process, once :meth:`wait` has it.
        self.cpu_seconds: dict[str, float] = {}

    def __enter__(self) -> Drawers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def draw(
        self,
        out: Path,
        document: Mapping[str, Any],
        sessions: Mapping[str, Mapping[str, np.ndarray]],
        bands: Mapping[str, Mapping[str, np.ndarray]],
    ) -> None:
        """Start drawing every plot of :data:`PLOT_FILES` into ``out``
        (each process is sent only what its plot reads); :meth:`wait` waits for them."""
        finals = {label: {"final_bankroll": s["final_bankroll"]} for label, s in sessions.items()}
        inputs = {
            "final_bankroll.png": (finals, {}),
            "trajectories.png": ({}, bands),
            "ahead_vs_return.png": ({}, {}),
        }
        for name in PLOT_FILES:
            self.drawing[name] = self.pool.submit(_draw, str(out), name, document, *inputs[name])

    def wait(self, written: list[str], doing: Callable[[str], None] | None = None) -> list[str]:
        """Wait for the plots :meth:`draw` started, in order; each is added to ``written`` once it is
        whole (a drawing's error is raised here). Returns their names."""
        for name, future in self.drawing.items():
            if doing and not future.done():
                doing(f"drawing {name} (in another process)")
            self.cpu_seconds[name] = future.result()
            written.append(name)
        return list(self.drawing)


__all__ = ["PLOT_FILES", "Drawers"]

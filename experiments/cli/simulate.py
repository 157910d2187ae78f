"""``trente-lab simulate``: deal many coups and set them beside the exact odds (:mod:`experiments.game.simulate`)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Annotated

import typer

from experiments.cli.options import (
    BackendOption,
    CutCardOption,
    DaskWorkersOption,
    DecksOption,
    JsonOption,
    RulesOption,
    SeedOption,
)
from experiments.console import print_json
from experiments.limits import MAX_COUPS


def command(
    rules: RulesOption = "classic",
    coups: Annotated[
        int, typer.Option("--coups", "-n", min=1, max=MAX_COUPS, help="Number of coups to deal.")
    ] = 1_000_000,
    seed: SeedOption = 0,
    decks: DecksOption = None,
    cut_card: CutCardOption = None,
    backend: BackendOption = "local",
    workers: DaskWorkersOption = None,
    as_json: JsonOption = False,
) -> None:
    """Deal many coups and compare what came out with the exact odds (z-scores)."""
    from experiments.backends import parse_backend
    from experiments.game import simulate

    where = parse_backend(backend)
    show = not as_json and coups > simulate.CHUNK
    workers = workers or os.cpu_count() or 1
    with _numba_without_blas() if where.kind == "local" else contextlib.nullcontext():
        report = simulate.simulation_report(rules, coups, seed, show, decks, cut_card, where, workers)
    if as_json:
        print_json(report)
    else:
        simulate.print_report(report)


#: What numba imports on a process's first compiled call to see whether BLAS is there for compiled code.
_BLAS = "scipy.linalg.cython_blas"


@contextlib.contextmanager
def _numba_without_blas() -> Iterator[None]:
    """While the dealer's first kernel loads, numba's look for BLAS finds none, as if scipy were not installed.

    On its first compiled call numba imports scipy.linalg (about 0.3 s, some 5% of a 100-million-coup
    run) only to see whether BLAS is there; the dealer's kernels use none. Only while that first call
    loads does the import fail (``sys.modules[name] = None`` is Python's own way to say a module is
    missing). Afterwards numba still imports scipy when compiled code asks for BLAS (``np.dot``,
    ``np.linalg``), and in a process where numba is already set up nothing changes.
    """
    if "numba.np.arraymath" in sys.modules or _BLAS in sys.modules:
        yield
        return
    sys.modules[_BLAS] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if _BLAS in sys.modules and sys.modules[_BLAS] is None:
            del sys.modules[_BLAS]

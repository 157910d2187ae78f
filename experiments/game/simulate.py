"""Many coups dealt by the bulk dealer, counted and set beside the exact odds (``trente-lab simulate``)."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import numpy as np

from experiments.backends import LOCAL, Backend, run_shards, shard_generator, shard_sizes
from experiments.console import out, progress_bar
from experiments.errors import load_rules, rules_name
from trente_env.codes import Result
from trente_env.dealer import TALLY_NOIR, TALLY_RESULTS, TALLY_ROUGE, TALLY_SIZE, tally_coups
from trente_env.odds import first_coup

#: Coups in a shard: the unit of work, the same on every backend (the last shard is shorter).
SHARD = 2_000_000
CHUNK = SHARD  #: coups dealt between two updates of the progress bar (a shard): shown for more


def count_shard(rules, seed: int, index: int, n_coups: int, threads: int = 0) -> np.ndarray:
    """Shard ``index`` of a run seeded ``seed``: ``n_coups`` coups from a fresh shoe, dealt from
    :func:`~experiments.backends.shard_generator` ``(seed, index)`` and tallied
    (:func:`~trente_env.dealer.tally_coups`), on ``threads`` of numba's threads (0: as many as set)."""
    if threads:
        import numba

        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    return tally_coups(rules, n_coups, shard_generator(seed, index))


def _count_on_worker(rules, seed: int, index: int, n_coups: int) -> np.ndarray:
    """:func:`count_shard` on a Dask worker: one numba thread (the cluster's workers are its parallelism)."""
    return count_shard(rules, seed, index, n_coups, threads=1)


def count_outcomes(
    rules, n_coups: int, seed: int, progress: Any = None, backend: Backend = LOCAL, workers: int = 1
) -> tuple[dict[str, int], int]:
    """Deal ``n_coups`` coups in shards of :data:`SHARD` (shard ``i`` dealt by :func:`count_shard`)
    and count each total of each row, refaits, après, wins per box and void coups, summing the
    shards in order: the same counts on every ``backend``. Returns (counts, void)."""
    sizes = shard_sizes(n_coups, SHARD)
    total = np.zeros(TALLY_SIZE, dtype=np.int64)
    task = progress.add_task(f"dealing (shards of {SHARD:,} coups)", total=len(sizes)) if progress else None

    def add(i: int, tally: np.ndarray) -> None:
        total[:] += tally
        if progress:
            progress.advance(task, 1)

    play = count_shard if backend.kind == "local" else _count_on_worker
    run_shards(play, [(rules, seed, i, n) for i, n in enumerate(sizes)], add, backend, workers)
    counts: dict[str, int] = {}
    for row, first in (("noir", TALLY_NOIR), ("rouge", TALLY_ROUGE)):
        for t in range(31, 41):
            counts[f"{row} row ends on {t}"] = int(total[first + t - 31])
    joint = total[TALLY_RESULTS:]  # (result, couleur) pairs

    def wins(result: Result) -> int:
        return int(joint[2 * result] + joint[2 * result + 1])

    counts.update(
        {
            "refait": wins(Result.REFAIT),
            "après": wins(Result.APRES),
            "noir wins": wins(Result.NOIR),
            "rouge wins": wins(Result.ROUGE),
            "couleur wins": int(joint[2 * Result.NOIR + 1] + joint[2 * Result.ROUGE + 1]),
            "inverse wins": int(joint[2 * Result.NOIR] + joint[2 * Result.ROUGE]),
        }
    )
    return counts, wins(Result.VOID)


def simulation_report(
    preset: str = "classic",
    n_coups: int = 1_000_000,
    seed: int = 0,
    progress: bool = False,
    decks: int | None = None,
    cut_card: int | None = None,
    backend: Backend = LOCAL,
    workers: int = 1,
) -> dict:
    """Observed frequencies beside the exact first-coup probabilities, with standard errors.

    The coups are dealt in shards of :data:`SHARD` coups, each from a fresh shoe seeded from
    ``seed`` and the shard's index (:func:`count_outcomes`): the report is the same on every
    ``backend`` (:mod:`experiments.backends`), with any number of ``workers``, but for its timing.

    The z-score is (observed - exact) / sqrt(exact (1 - exact) / n). Coups later in a shoe are dealt
    from a depleted shoe, so over whole shoes the rates differ very slightly from the first coup's.
    """
    rules = load_rules(preset, decks=decks, cut_card=cut_card)
    odds = first_coup(rules.decks)
    exact: dict[str, float] = {}
    for t in range(31, 41):
        exact[f"noir row ends on {t}"] = float(odds.pair[t - 31].sum())
        exact[f"rouge row ends on {t}"] = float(odds.pair[:, t - 31].sum())
    exact.update(
        {
            "refait": odds.p_refait,
            "après": odds.p_apres,
            "noir wins": odds.p_noir,
            "rouge wins": odds.p_rouge,
            "couleur wins": odds.p_couleur,
            "inverse wins": odds.p_inverse,
        }
    )
    start = time.perf_counter()
    with progress_bar() if progress else contextlib.nullcontext() as bar:
        counts, void = count_outcomes(rules, n_coups, seed, bar, backend, workers)
    seconds = time.perf_counter() - start
    complete = n_coups - void
    rows = {}
    for name, p in exact.items():
        observed = counts[name] / complete if complete else float("nan")
        se = float(np.sqrt(p * (1 - p) / complete)) if complete else float("nan")
        rows[name] = {"observed": observed, "exact": p, "se": se, "z": (observed - p) / se if se else 0.0}
    return {
        "rules": preset,
        "rules_played": rules_name(preset, rules),
        "description": rules.describe(),
        "coups": n_coups,
        "void_coups": void,
        "seed": seed,
        "seconds": seconds,
        "coups_per_second": n_coups / seconds,
        "frequencies": rows,
    }


def print_report(report: dict[str, Any]) -> None:
    """The frequencies beside the exact odds, with z-scores, and what to make of the largest."""
    from rich.table import Table

    view = Table(
        title=f"{report['coups']:,} coups, {report['rules_played']} rules, seed {report['seed']} "
        "(exact: first coup of a full shoe)",
        title_justify="left",
    )
    for col in ("event", "observed", "exact", "std. error", "z"):
        view.add_column(col, justify="left" if col == "event" else "right")
    for name, row in report["frequencies"].items():
        style = "bold red" if abs(row["z"]) > 3 else None
        view.add_row(
            name, f"{row['observed']:.6f}", f"{row['exact']:.6f}", f"{row['se']:.6f}", f"{row['z']:+.2f}", style=style
        )
    out.print(view)
    if report["void_coups"]:
        out.print(f"{report['void_coups']:,} void coups (the shoe ran out) are left out of the frequencies.")
    out.print(f"Dealt {report['coups_per_second']:,.0f} coups per second ({report['seconds']:.2f} s).", style="dim")
    _print_summary(report)


def _print_summary(report: dict[str, Any]) -> None:
    worst = max(abs(row["z"]) for row in report["frequencies"].values())
    n = len(report["frequencies"])
    out.print(
        f"Largest |z| over {n} frequencies: {worst:.2f}. Among {n} honest comparisons a |z| above 3 "
        "turns up in about 1 run in 20; coups in one shoe are also slightly dependent.",
        style="dim",
    )


__all__ = ["CHUNK", "SHARD", "count_outcomes", "count_shard", "print_report", "simulation_report"]

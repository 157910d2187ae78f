"""Many coups dealt by the bulk dealer, counted and set beside the exact odds (``trente-lab simulate``)."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import numpy as np

from experiments.backends import LOCAL, Backend, run_shards, shard_generator, shard_sizes
from experiments.console import out, progress_bar
from experiments.errors import LabError
from experiments.game.reference import EVENTS, N_EVENTS, reference_rates, tally_events
from experiments.rules import load_rules, rules_name, table_name
from trente_env.dealer import TALLY_SIZE, shuffle_seeds, tally_coups, tally_first_coups
from trente_env.odds import first_coup
from trente_env.rules import PRESETS, RIGGED_PRESETS, RuleSet
from trente_env.seeding import reference_generator

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
    events, void = tally_events(total)
    return dict(zip(EVENTS, events.tolist())), void


#: Shoes whose first coup is set beside the exact first-coup odds, per coup dealt, and the least and most.
FIRST_SHOES_PER_COUP = 1 / 1000
FIRST_SHOES = (2_000, 500_000)


def first_coups(rules, shoes: int, seed: int) -> np.ndarray:
    """The :data:`EVENTS` of the first coups of ``shoes`` shoes (from the run's reference stream,
    :func:`~trente_env.seeding.reference_generator`) and, last, the number of complete ones."""
    tally = tally_first_coups(rules, shuffle_seeds(reference_generator(seed), shoes))
    events, void = tally_events(tally)
    return np.append(events, shoes - void)


def first_shoe_count(n_coups: int) -> int:
    """Shoes whose first coup is checked in a run of ``n_coups`` coups (:data:`FIRST_SHOES`)."""
    low, high = FIRST_SHOES
    return int(min(high, max(low, n_coups * FIRST_SHOES_PER_COUP)))


def _first_coup_exact(decks: int) -> np.ndarray:
    """The exact chance of each of the :data:`EVENTS` on the first coup of a full shoe."""
    odds = first_coup(decks)
    return np.array(
        [
            *odds.pair.sum(1),
            *odds.pair.sum(0),
            odds.p_refait,
            odds.p_apres,
            odds.p_noir,
            odds.p_rouge,
            odds.p_couleur,
            odds.p_inverse,
        ]
    )


def simulation_report(
    rules: RuleSet = PRESETS["classic"],
    n_coups: int = 1_000_000,
    seed: int = 0,
    progress: bool = False,
    decks: int | None = None,
    cut_card: int | None = None,
    backend: Backend = LOCAL,
    workers: int = 1,
    first_shoes: int | None = None,
    name: str | None = None,
) -> dict:
    """Observed whole-shoe frequencies beside the rates expected over shoes dealt to the cut card, and
    the first coups of shoes beside the exact first-coup odds.

    The coups are dealt in shards of :data:`SHARD` coups, each from a fresh shoe seeded from
    ``seed`` and the shard's index (:func:`count_outcomes`): the counts are the same on every
    ``backend`` (:mod:`experiments.backends`), with any number of ``workers``.

    **Whole-shoe reference.** Coups later in a shoe are dealt from a depleted shoe, so over whole
    shoes the rates differ from the first coup's (refait 2.193% against 2.189%). The expected rates
    are a long count by the same dealer from a stream of its own, kept with the package for every
    preset's way of dealing (:mod:`experiments.game.reference`; another is dealt on first use and
    cached). Its standard error is printed with it and counted in the z-score,
    ``z = (observed - expected) / sqrt(se_dealt^2 + se_expected^2)``, with ``se_dealt = sqrt(p (1 - p) / n)``.

    **First coups.** The first coup of each of ``first_shoes`` other shoes (default
    :func:`first_shoe_count`: about one for every 1,000 coups dealt) beside the exact odds of the
    first coup of a full shoe (:func:`trente_env.odds.first_coup`).
    """
    label = table_name(rules) if name is None else name
    rules = load_rules(rules, decks=decks, cut_card=cut_card)
    if first_shoes is not None and first_shoes < 1:
        raise LabError(f"the first coups need at least 1 shoe, got {first_shoes}")
    n_shoes = first_shoes or first_shoe_count(n_coups)
    start = time.perf_counter()
    with progress_bar() if progress else contextlib.nullcontext() as bar:
        counts, void = count_outcomes(rules, n_coups, seed, bar, backend, workers)
    seconds = time.perf_counter() - start
    first = first_coups(rules, n_shoes, seed)
    rate, rate_se, reference_coups, source = reference_rates(rules, n_coups)
    complete = n_coups - void
    rows = {}
    for name, p, p_se in zip(EVENTS, rate, rate_se):
        observed = counts[name] / complete if complete else float("nan")
        se = float(np.sqrt(p * (1 - p) / complete)) if complete else float("nan")
        both = float(np.hypot(se, p_se))
        rows[name] = {
            "observed": observed,
            "expected": float(p),
            "expected_se": float(p_se),
            "se": se,
            "z": (observed - p) / both if both else 0.0,
        }
    n_first = int(first[N_EVENTS])
    firsts = {}
    for name, p, k in zip(EVENTS, _first_coup_exact(rules.decks), first[:N_EVENTS]):
        observed = k / n_first if n_first else float("nan")
        se = float(np.sqrt(p * (1 - p) / n_first)) if n_first else float("nan")
        firsts[name] = {"observed": observed, "exact": float(p), "se": se, "z": (observed - p) / se if se else 0.0}
    return {
        "rules": label,
        "rules_played": rules_name(label, rules) if label in PRESETS or label in RIGGED_PRESETS else label,
        "description": rules.describe(),
        "coups": n_coups,
        "void_coups": void,
        "seed": seed,
        "seconds": seconds,
        "coups_per_second": n_coups / seconds,
        "reference_coups": reference_coups,
        "reference_source": source,
        "first_shoes": n_shoes,
        "frequencies": rows,
        "first_coups": firsts,
    }


def print_report(report: dict[str, Any]) -> None:
    """The whole-shoe frequencies beside their expected rates, the first coups beside the exact
    first-coup odds, with z-scores, and what to make of the largest."""
    from rich.table import Table

    view = Table(
        title=f"{report['coups']:,} coups, {report['rules_played']} rules, seed {report['seed']}: whole shoes dealt "
        f"to the cut card (expected: {report['reference_coups']:,} coups dealt by the same dealer, a stream apart)",
        title_justify="left",
    )
    for col in ("event", "observed", "expected", "± its error", "std. error", "z"):
        view.add_column(col, justify="left" if col == "event" else "right")
    for name, row in report["frequencies"].items():
        style = "bold red" if abs(row["z"]) > 3 else None
        view.add_row(
            name, f"{row['observed']:.7f}", f"{row['expected']:.7f}", f"{row['expected_se']:.7f}",
            f"{row['se']:.7f}", f"{row['z']:+.2f}", style=style,
        )  # fmt: skip
    out.print(view)
    if report["void_coups"]:
        out.print(f"{report['void_coups']:,} void coups (the shoe ran out) are left out of the frequencies.")
    out.print(f"Dealt {report['coups_per_second']:,.0f} coups per second ({report['seconds']:.2f} s).", style="dim")
    firsts = report["first_coups"]
    view = Table(
        title=f"The first coup of each of {report['first_shoes']:,} other shoes (exact: first coup of a full shoe)",
        title_justify="left",
    )
    for col in ("event", "observed", "exact", "std. error", "z"):
        view.add_column(col, justify="left" if col == "event" else "right")
    for name, row in firsts.items():
        style = "bold red" if abs(row["z"]) > 3 else None
        view.add_row(
            name, f"{row['observed']:.6f}", f"{row['exact']:.6f}", f"{row['se']:.6f}", f"{row['z']:+.2f}", style=style
        )
    out.print(view)
    _print_summary(report)


def _print_summary(report: dict[str, Any]) -> None:
    n = len(report["frequencies"])
    chance = n * 0.0027  # P(|z| > 3) of one standard normal z, times the comparisons (Bonferroni's bound)
    for what, rows in (("whole-shoe frequencies", report["frequencies"]), ("first coups", report["first_coups"])):
        worst = max(abs(row["z"]) for row in rows.values())
        out.print(f"Largest |z| over the {n} {what}: {worst:.2f}.", style="dim")
    out.print(
        f"If the dealer is right, a |z| above 3 in one table turns up in at most 1 run in {1 / chance:.0f} "
        f"({n} comparisons × 0.27%, many of them repeats: Noir's and Rouge's rows have the same odds), "
        "a |z| above 4 in fewer than 1 in 500.",
        style="dim",
    )


__all__ = [
    "CHUNK",
    "EVENTS",
    "SHARD",
    "count_outcomes",
    "count_shard",
    "first_coups",
    "first_shoe_count",
    "print_report",
    "simulation_report",
]

"""Many coups dealt by the bulk dealer, counted and set beside the exact odds (``trente-lab simulate``)."""

from __future__ import annotations

import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np

from experiments.backends import LOCAL, Backend, run_shards, shard_generator, shard_sizes
from experiments.console import out, progress_bar
from experiments.errors import LabError
from experiments.rules import load_rules, rules_name, table_name
from trente_env import jit
from trente_env.cards import CARD_BLACK, CARD_VALUE
from trente_env.codes import Result
from trente_env.coup import REFAIT_TOTAL, ROW_TOTALS
from trente_env.croupier import next_coup, table_rules
from trente_env.dealer import TALLY_NOIR, TALLY_RESULTS, TALLY_ROUGE, TALLY_SIZE, shuffle_seeds, tally_coups
from trente_env.odds import EXACT_BOX, N_OUT, N_VALUES, evaluate_into, first_coup, full_counts, nodes
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
    counts: dict[str, int] = {}
    for row, first in (("noir", TALLY_NOIR), ("rouge", TALLY_ROUGE)):
        for t in ROW_TOTALS:
            counts[f"{row} row ends on {t}"] = int(total[first + t - ROW_TOTALS.start])
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


#: The events counted, in the order of the report: each row's total, then the results and Couleur/Inverse.
EVENTS: tuple[str, ...] = (
    *(f"noir row ends on {t}" for t in ROW_TOTALS),
    *(f"rouge row ends on {t}" for t in ROW_TOTALS),
    "refait",
    "après",
    "noir wins",
    "rouge wins",
    "couleur wins",
    "inverse wins",
)
N_EVENTS = len(EVENTS)
#: Shoes dealt for the whole-shoe reference per coup dealt, and the least and most of them. Measured
#: (classic rules): a coup of the reference carries 300 to 600 times less variance than a dealt coup
#: (a shoe's expected counts vary little), so one shoe (about 25 coups) per 1,000 coups dealt keeps the
#: reference's standard error about 3 to 4 times below the dealt counts' (under 1/3 for the refait).
REFERENCE_SHOES_PER_COUP = 1 / 1000
REFERENCE_SHOES = (2_000, 500_000)
#: The card kind of each card code (0..19: black values 1..10, then red): the order of the counts.
_KIND = np.where(CARD_BLACK, 0, N_VALUES) + CARD_VALUE.astype(np.int64) - 1


@jit.kernel
def _coup_expectations(out, counts, into):
    """Add the chance of each of the :data:`EVENTS` of the coup whose odds are ``out`` (the layout of
    :func:`~trente_env.odds.evaluate_into`, drawn from the unseen ``counts``) to ``into[:N_EVENTS]``,
    and the chance the coup is complete to ``into[N_EVENTS]``."""
    noir = 0.0
    rouge = 0.0
    apres = 0.0
    decided = 0.0
    for i in range(10):
        for j in range(10):
            p = out[10 * i + j]
            into[i] += p
            into[10 + j] += p
            if i < j:
                noir += p
            elif i > j:
                rouge += p
            elif i > 0:
                apres += p
    decided = noir + rouge
    colour = 0.0  # P(Couleur) - P(Inverse): the first-card edge times each value's colour balance
    for v in range(N_VALUES):
        n = counts[v] + counts[N_VALUES + v]
        if n > 0:
            colour += out[100 + v] * (counts[v] - counts[N_VALUES + v]) / n
    into[20] += out[0]
    into[21] += apres
    into[22] += noir
    into[23] += rouge
    into[24] += (decided + colour) / 2
    into[25] += (decided - colour) / 2
    into[N_EVENTS] += 1.0 - out[110]


@jit.kernel
def _first_coup_events(noir, rouge, result, couleur, into):
    """Count the :data:`EVENTS` of one dealt coup into ``into`` (nothing for a void coup) and the coup
    itself into ``into[N_EVENTS]`` if it is complete."""
    if result == Result.VOID:
        return
    into[noir - REFAIT_TOTAL] += 1
    into[10 + rouge - REFAIT_TOTAL] += 1
    if result == Result.REFAIT:
        into[20] += 1
    elif result == Result.APRES:
        into[21] += 1
    else:
        into[22 if result == Result.NOIR else 23] += 1
        into[24 if couleur else 25] += 1
    into[N_EVENTS] += 1


@jit.released
def _reference_shoes(first, last, seeds, table, odds, records):
    """Shoes ``first..last-1``, each shuffled with its seed and dealt coup by coup by the croupier to
    its cut card; before each coup the odds of the unseen cards (:func:`~trente_env.odds.evaluate_into`
    with ``odds`` = (a full shoe's counts, exact box, model)) go into ``expected[s]``
    (:func:`_coup_expectations`), and the shoe's first coup as dealt into ``dealt_first[s]``
    (:func:`_first_coup_events`), ``records`` = (expected, dealt_first)."""
    full, exact_box, model = odds
    expected, dealt_first = records
    n_cards = table.base.size
    unseen_dead = table.burn + table.dead_cards
    pn = np.empty(exact_box)
    joint = np.empty(exact_box * 10)
    out = np.empty(N_OUT)
    cards = np.empty(n_cards, np.uint8)
    counts = np.empty(2 * N_VALUES, np.int64)
    seen = np.zeros(2 * N_VALUES, np.int64)
    for s in range(first, last):
        seen[:] = 0
        pos = table.burn
        k = 0
        while True:
            for i in range(2 * N_VALUES):
                counts[i] = full[i] - seen[i]
            evaluate_into(counts, unseen_dead, exact_box, 0, model, pn, joint, out)
            _coup_expectations(out, counts, expected[s])
            noir, rouge, result, couleur, start, _, end, reshuffle = next_coup(cards, pos, k == 0, seeds[s], table)
            if k == 0:
                _first_coup_events(noir, rouge, result, couleur, dealt_first[s])
            for i in range(start, end):
                seen[_KIND[cards[i]]] += 1
            pos = end
            k += 1
            if reshuffle:
                break


def whole_shoe_reference(rules, shoes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Deal ``shoes`` shoes to their cut card and, before each coup, take the odds of the coup from
    the unseen cards (:func:`trente_env.odds.shoe_odds`' evaluator: exact for the last 20 or so
    cards, else its approximation with replacement and the nodes' correction; ``coupled_cards`` 0 so
    that it is a few microseconds a coup).

    Returns (expected, first): per shoe (rows), the expected number of each of the :data:`EVENTS`
    and, last, of complete coups, summed over the shoe's coups; and the shoe's first coup as dealt,
    the same layout (0/1 counts). By the tower rule the expected counts of a shoe have the mean of its
    dealt counts, so their ratio estimates the whole-shoe rates that a long run converges to.
    """
    seeds = shuffle_seeds(reference_generator(seed), shoes)
    expected = np.zeros((shoes, N_EVENTS + 1))
    first = np.zeros((shoes, N_EVENTS + 1))
    threads = numba.get_num_threads()
    chunks = np.linspace(0, shoes, min(shoes, 64 * threads) + 1).astype(np.int64)
    model, table, full = nodes().model(), table_rules(rules), full_counts(rules.decks)
    with ThreadPoolExecutor(threads) as pool:  # each thread its own shoes, in one compiled kernel
        tasks = [
            pool.submit(_reference_shoes, lo, hi, seeds, table, (full, EXACT_BOX, model), (expected, first))
            for lo, hi in zip(chunks[:-1].tolist(), chunks[1:].tolist())
        ]
        for task in tasks:
            task.result()  # an error in a thread is raised here
    return expected, first


def ratio_over_shoes(events: np.ndarray, complete: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rates sum(events) / sum(complete) over shoes (rows) with their delta-method standard errors
    (shoes are the independent units)."""
    n = complete.size
    rate = events.sum(0) / complete.sum()
    resid = events - rate[None, :] * complete[:, None]
    se = resid.std(0, ddof=1) * np.sqrt(n) / complete.sum() if n > 1 else np.full(rate.size, np.nan)
    return rate, se


def reference_shoe_count(n_coups: int) -> int:
    """Shoes dealt for the whole-shoe reference of a run of ``n_coups`` coups (:data:`REFERENCE_SHOES`)."""
    low, high = REFERENCE_SHOES
    return int(min(high, max(low, n_coups * REFERENCE_SHOES_PER_COUP)))


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


def _reference_in_blocks(rules, shoes: int, seed: int, progress: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`whole_shoe_reference` in blocks of :data:`REFERENCE_BLOCK` shoes (each block its own
    stream of seeds), advancing the progress bar after each."""
    sizes = shard_sizes(shoes, REFERENCE_BLOCK)
    task = progress.add_task("expected rates over shoes", total=len(sizes)) if progress else None
    parts = []
    for i, n in enumerate(sizes):
        parts.append(whole_shoe_reference(rules, n, seed * 1_000_003 + i))
        if progress:
            progress.advance(task, 1)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


REFERENCE_BLOCK = 20_000  #: shoes of the whole-shoe reference dealt between two updates of the progress bar


def simulation_report(
    rules: RuleSet = PRESETS["classic"],
    n_coups: int = 1_000_000,
    seed: int = 0,
    progress: bool = False,
    decks: int | None = None,
    cut_card: int | None = None,
    backend: Backend = LOCAL,
    workers: int = 1,
    reference_shoes: int | None = None,
    name: str | None = None,
) -> dict:
    """Observed whole-shoe frequencies beside the rates expected over shoes dealt to the cut card, and
    the first coups of shoes beside the exact first-coup odds.

    The coups are dealt in shards of :data:`SHARD` coups, each from a fresh shoe seeded from
    ``seed`` and the shard's index (:func:`count_outcomes`): the counts are the same on every
    ``backend`` (:mod:`experiments.backends`), with any number of ``workers``.

    **Whole-shoe reference.** Coups later in a shoe are dealt from a depleted shoe, so over whole
    shoes the rates differ from the first coup's (refait 2.193% against 2.189%). The expected rates
    are estimated by :func:`whole_shoe_reference` over ``reference_shoes`` other shoes (default
    :func:`reference_shoe_count`: about one for every 1,000 coups dealt): the odds of every composition met,
    averaged over shoes, a ratio whose standard error (delta method over shoes) is printed with it and
    counted in the z-score, ``z = (observed - expected) / sqrt(se_dealt^2 + se_expected^2)``, with
    ``se_dealt = sqrt(p (1 - p) / n)``.

    **First coups.** The first coup of each of those reference shoes, as dealt, beside the exact odds
    of the first coup of a full shoe (:func:`trente_env.odds.first_coup`).
    """
    label = table_name(rules) if name is None else name
    rules = load_rules(rules, decks=decks, cut_card=cut_card)
    if reference_shoes is not None and reference_shoes < 2:
        raise LabError(f"the whole-shoe reference needs at least 2 shoes, got {reference_shoes}")
    n_shoes = reference_shoes or reference_shoe_count(n_coups)
    start = time.perf_counter()
    with progress_bar() if progress else contextlib.nullcontext() as bar:
        counts, void = count_outcomes(rules, n_coups, seed, bar, backend, workers)
        seconds = time.perf_counter() - start
        expected, first = _reference_in_blocks(rules, n_shoes, seed, bar)
    complete = n_coups - void
    rate, rate_se = ratio_over_shoes(expected[:, :N_EVENTS], expected[:, N_EVENTS])
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
    n_first = int(first[:, N_EVENTS].sum())
    firsts = {}
    for name, p, k in zip(EVENTS, _first_coup_exact(rules.decks), first[:, :N_EVENTS].sum(0)):
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
        "reference_shoes": n_shoes,
        "frequencies": rows,
        "first_coups": firsts,
    }


def print_report(report: dict[str, Any]) -> None:
    """The whole-shoe frequencies beside their expected rates, the first coups beside the exact
    first-coup odds, with z-scores, and what to make of the largest."""
    from rich.table import Table

    view = Table(
        title=f"{report['coups']:,} coups, {report['rules_played']} rules, seed {report['seed']}: whole shoes dealt "
        f"to the cut card (expected: the odds of every composition met over {report['reference_shoes']:,} other shoes)",
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
        title=f"The first coup of each of those {report['reference_shoes']:,} shoes (exact: first coup of a full shoe)",
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
    "print_report",
    "ratio_over_shoes",
    "reference_shoe_count",
    "simulation_report",
    "whole_shoe_reference",
]

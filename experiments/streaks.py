"""Streaks, counted in one place: what ``trente-lab fallacy`` counts over millions of coups and what
the classroom counts over its own coups and its students' predictions (both read this module; the
report reads a classroom session through it too).

**What counts** (one definition, :mod:`experiments.teaching.fallacy` tells it in full): only decided
coups (Noir or Rouge won) count; après, refait and void coups neither extend nor break a streak. A
prediction is right when it names the decided coup's winner; on a tie it is neither right nor wrong.

* **Many coups, compiled**: :func:`count_streaks` deals coups in shards (:func:`streak_shard`) and
  counts them with one kernel (:func:`_tally`), the shards joined in order (:func:`join_shard`).
* **A class's coups, in Python**: the streak before each coup (:func:`streaks_before`), the class's
  pooled table (:func:`pooled_table`), a student's record (:func:`hit_sequence`, :func:`after_run`)
  and the streak trap (:func:`streak_trap`, Miller and Sanjurjo, 2018) with its exact expectation.

**The streak trap**: for each student, the share of their predictions that were right just after
``k`` right in a row, within their own short record, averaged over the students; beside it the
pooled share (all such occasions of the class together). Each prediction is right with probability
exactly 1/2 whatever came before (the rows are exchangeable, so the winner of a decided coup is a
fair coin given the past), yet the average of the per-student shares is expected below 1/2:
:func:`expected_share` computes by how much, exactly, for each record's length.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from rich.progress import Progress

from experiments.backends import LOCAL, Backend, run_shards, shard_generator, shard_sizes
from trente_env import jit
from trente_env.codes import Result
from trente_env.dealer import deal_coups

#: Coups in a shard: the unit of work, the same on every backend (the last shard is shorter).
SHARD = 2_000_000
#: The two pairs of boxes: (the side whose wins are counted, the other side).
FAMILIES = (("rouge", "noir"), ("couleur", "inverse"))

# -- counting streaks ----------------------------------------------------------------------------


@jit.kernel
def _tally(sides: np.ndarray, side: int, run: int, counts: np.ndarray) -> tuple[int, int]:
    """Walk the coups' ``sides`` (0 or 1: who won; -1: undecided) and count, for each decided coup,
    which side won given the streak before it: ``counts[streak side, streak length, winner]``.

    Lengths above the last index are counted in the last one. ``side``/``run`` are the streak
    carried in from the coups before (``-1``/``0`` at the start); the streak after is returned.
    ``counts`` has shape (2, at least 1, 2); any other side than 0 or 1 counts as undecided.
    """
    if (counts.shape[0] != 2) | (counts.shape[1] < 1) | (counts.shape[2] != 2):
        raise ValueError("_tally: counts must have shape (2, lengths, 2)")
    if ((side != 0) & (side != 1)) | (run < 1):  # no streak carried in
        side, run = -1, 0
    top = counts.shape[1] - 1
    for s in sides:
        if (s != 0) & (s != 1):
            continue  # après, refait, void: the streak is left as it was
        if side >= 0:
            counts[side, min(run, top), s] += 1
        if s == side:
            run += 1
        else:
            side, run = s, 1
    return side, run


def _streak_start(sides: np.ndarray) -> np.ndarray:
    """The decided coups of ``sides`` up to the first that breaks the first streak, that one included
    (all of them if none does): the only coups whose count depends on the streak carried in."""
    decided = sides[sides >= 0]
    breaks = np.flatnonzero(decided != decided[0]) if decided.size else decided
    return decided[: breaks[0] + 1] if breaks.size else decided


def streak_shard(rules: Any, seed: int, index: int, n_coups: int, max_streak: int, threads: int = 0) -> dict[str, Any]:
    """Shard ``index`` of a run seeded ``seed``: ``n_coups`` coups from a fresh shoe, dealt from
    :func:`~experiments.backends.shard_generator` ``(seed, index)``, their streaks counted as if no
    streak came before (the shards are joined by :func:`count_streaks`).

    Returns, for each family, the counts (:func:`_tally` from no streak), the streak at the end, and
    the shard's first streak with the coup that breaks it (:func:`_streak_start`); and the decided
    and void coups.
    """
    if threads:
        import numba

        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    coups = deal_coups(rules, n_coups, shard_generator(seed, index))
    result, couleur = coups.result, coups.couleur
    decided = result <= Result.ROUGE
    sides = {
        "rouge": np.where(decided, (result == Result.NOIR.value).astype(np.int8), -1).astype(np.int8),
        "couleur": np.where(decided, (~couleur).astype(np.int8), -1).astype(np.int8),
    }
    families = {}
    for event, _ in FAMILIES:
        counts = np.zeros((2, max_streak + 2, 2), dtype=np.int64)
        end = _tally(sides[event], -1, 0, counts)
        families[event] = {"counts": counts, "end": end, "start": _streak_start(sides[event])}
    return {"families": families, "decided": int(decided.sum()), "void": int((result == Result.VOID).sum())}


def _streak_shard_on_worker(rules: Any, seed: int, index: int, n_coups: int, max_streak: int) -> dict[str, Any]:
    """:func:`streak_shard` on a Dask worker: one numba thread (the cluster's workers are its parallelism)."""
    return streak_shard(rules, seed, index, n_coups, max_streak, threads=1)


def join_shard(counts: np.ndarray, carried: tuple[int, int], shard: dict[str, Any]) -> tuple[int, int]:
    """Add one family's ``shard`` (:func:`streak_shard`) to ``counts``, given the streak ``carried``
    in from the shards before it; returns the streak after it. Only the shard's first streak and
    the coup that breaks it are counted differently with a streak carried in: they are counted
    again both ways and the difference added."""
    counts += shard["counts"]
    start = shard["start"]
    with_carried, alone = np.zeros_like(counts), np.zeros_like(counts)
    after = _tally(start, *carried, with_carried)
    _tally(start, -1, 0, alone)
    counts += with_carried - alone
    broken = start.size > 0 and start[-1] != start[0]
    return shard["end"] if broken else after


def count_streaks(
    rules: Any,
    n_coups: int,
    max_streak: int,
    seed: int,
    progress: Progress | None = None,
    backend: Backend = LOCAL,
    workers: int = 1,
    shard: int | None = None,
) -> tuple[dict[str, np.ndarray], int, int]:
    """Deal ``n_coups`` coups in shards of :data:`SHARD` (:func:`streak_shard`) and count the
    streaks, the shards joined in order (:func:`join_shard`): the streaks run on from one shard to
    the next as if the coups were dealt in one go, and the counts are the same on every ``backend``.

    Returns (counts per family, decided coups, void coups); ``counts[event]`` has shape
    ``(2, max_streak + 2, 2)``: [streak side (0 the event's side), streak length, winner].
    """
    sizes = shard_sizes(n_coups, shard or SHARD)
    counts = {event: np.zeros((2, max_streak + 2, 2), dtype=np.int64) for event, _ in FAMILIES}
    state = {event: (-1, 0) for event, _ in FAMILIES}
    totals = {"decided": 0, "void": 0}
    task = progress.add_task(f"dealing (shards of {shard or SHARD:,} coups)", total=len(sizes)) if progress else None

    def join(i: int, result: dict[str, Any]) -> None:
        for event, _ in FAMILIES:
            state[event] = join_shard(counts[event], state[event], result["families"][event])
        totals["decided"] += result["decided"]
        totals["void"] += result["void"]
        if progress:
            progress.advance(task, 1)

    play = streak_shard if backend.kind == "local" else _streak_shard_on_worker
    run_shards(play, [(rules, seed, i, n, max_streak) for i, n in enumerate(sizes)], join, backend, workers)
    return counts, totals["decided"], totals["void"]


# -- a class's coups and predictions ---------------------------------------------------------------


SIDES = ("noir", "rouge")  #: what a student predicts
MAX_STREAK = 4  #: the pooled table's rows k = 1..MAX_STREAK (the last: that many or more)
TRAP_K = (1, 2, 3)  #: the streak trap's rows: after k right in a row


def side_of(result: str) -> str | None:
    """The side that won a coup (``"noir"``/``"rouge"``), None on a tie or a void coup."""
    return result if result in SIDES else None


def streaks_before(results: list[str]) -> list[tuple[str | None, int]]:
    """For each coup, the streak of decided coups just before it: (side, exactly how many in a row)."""
    out, side, run = [], None, 0
    for result in results:
        out.append((side, run))
        won = side_of(result)
        if won is None:
            continue
        run = run + 1 if won == side else 1
        side = won
    return out


def pooled_table(results: list[str], predictions: list[dict[int, tuple[str, int]]]) -> list[dict[str, Any]]:
    """The class's table: after exactly ``k`` Noir (or Rouge) decided coups in a row (the last row:
    :data:`MAX_STREAK` or more), how often the next decided coup went each way, and how many of the
    predictions made on those coups named the other side (the streak "must" break)."""
    rows = {(s, k): {"side": s, "k": k, "occasions": 0, "same": 0, "other": 0, "predicted_same": 0,
                     "predicted_other": 0} for s in SIDES for k in range(1, MAX_STREAK + 1)}  # fmt: skip
    for (side, run), result, preds in zip(streaks_before(results), results, predictions):
        won = side_of(result)
        if side is None or won is None:
            continue
        row = rows[side, min(run, MAX_STREAK)]
        row["occasions"] += 1
        row["same" if won == side else "other"] += 1
        for guess, _ in preds.values():
            row["predicted_same" if guess == side else "predicted_other"] += 1
    return list(rows.values())


def hit_sequence(results: list[str], predictions: list[dict[int, tuple[str, int]]], student: int) -> list[bool]:
    """One student's predictions on decided coups, in order: right (True) or wrong."""
    hits = []
    for result, preds in zip(results, predictions):
        won = side_of(result)
        if won is not None and student in preds:
            hits.append(preds[student][0] == won)
    return hits


def after_run(hits: list[bool], k: int) -> tuple[int, int]:
    """(occasions, right): predictions made just after ``k`` right in a row (the ``k`` before all right)."""
    occasions = right = run = 0
    for hit in hits:
        if run >= k:
            occasions += 1
            right += hit
        run = run + 1 if hit else 0
    return occasions, right


#: The longest record whose streak-trap expectation is computed exactly (its table takes a few MB).
TRAP_EXACT_MAX = 300


@lru_cache(maxsize=8)
def _trap_curve(k: int) -> np.ndarray:
    """:func:`expected_share` for every n from 0 to :data:`TRAP_EXACT_MAX` (NaN where undefined).

    Dynamic programming over the tosses: the probability of each (current run capped at ``k``,
    occasions, heads on occasions) state after each toss; one pass gives every ``n``."""
    n_max = TRAP_EXACT_MAX
    p = np.zeros((k + 1, n_max + 1, n_max + 1))  # [run capped at k, occasions, heads on occasions]
    p[0, 0, 0] = 1.0
    occasions = np.arange(n_max + 1)[:, None]
    share = np.arange(n_max + 1)[None, :] / np.maximum(occasions, 1)
    curve = np.full(n_max + 1, np.nan)
    for n in range(1, n_max + 1):
        q = np.zeros_like(p)
        for run in range(k + 1):
            if run == k:  # an occasion: this toss is counted
                q[k, 1:, 1:] += 0.5 * p[run, :-1, :-1]  # heads: the run stays k
                q[0, 1:, :] += 0.5 * p[run, :-1, :]  # tails
            else:
                q[run + 1] += 0.5 * p[run]
                q[0] += 0.5 * p[run]
        p = q
        dist = p.sum(axis=0)[1:]  # [occasions >= 1, heads]
        some = dist.sum()
        if some > 0:
            curve[n] = (dist * share[1:]).sum() / some
    return curve


def expected_share(n: int, k: int) -> float | None:
    """The exact expectation of a fair coin's share of heads just after ``k`` heads in a row, within
    one sequence of ``n`` tosses, over the sequences with at least one such occasion (Miller and
    Sanjurjo's streak selection bias: below 1/2). None when no sequence has an occasion or ``n`` is
    above :data:`TRAP_EXACT_MAX`."""
    if n > TRAP_EXACT_MAX or n < 0:
        return None
    value = _trap_curve(k)[n]
    return None if np.isnan(value) else float(value)


def streak_trap(
    results: list[str], predictions: list[dict[int, tuple[str, int]]], students: list[int]
) -> list[dict[str, Any]]:
    """For k in :data:`TRAP_K`: the average of the ``students``' own shares (those with an occasion),
    the pooled share, and the exact expectation of that average on a fair game."""
    seqs = [hit_sequence(results, predictions, student) for student in students]
    rows = []
    for k in TRAP_K:
        shares, expected, occasions, right = [], [], 0, 0
        for hits in seqs:
            o, r = after_run(hits, k)
            occasions += o
            right += r
            if o:
                shares.append(r / o)
                expected.append(expected_share(len(hits), k))
        exact = None if None in expected or not expected else sum(expected) / len(expected)
        rows.append(
            {
                "k": k,
                "students": len(shares),
                "average": sum(shares) / len(shares) if shares else None,
                "expected_average": exact,
                "occasions": occasions,
                "right": right,
                "pooled": right / occasions if occasions else None,
            }
        )
    return rows


__all__ = [
    "FAMILIES",
    "MAX_STREAK",
    "SHARD",
    "SIDES",
    "TRAP_EXACT_MAX",
    "TRAP_K",
    "after_run",
    "count_streaks",
    "expected_share",
    "hit_sequence",
    "join_shard",
    "pooled_table",
    "side_of",
    "streak_shard",
    "streak_trap",
    "streaks_before",
]

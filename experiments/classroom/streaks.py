"""What counts in the classroom, as plain functions of the coups and the predictions: the streak
before each coup, the class's pooled table, a student's record of right and wrong predictions, and
the streak trap (Miller and Sanjurjo, 2018) with its exact expectation.

**What counts** is :mod:`experiments.teaching.fallacy`'s definition: only decided coups (Noir or
Rouge won) count; après, refait and void coups neither extend nor break a streak. A prediction is
right when it names the decided coup's winner; on a tie it is neither right nor wrong.

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


__all__ = [
    "MAX_STREAK",
    "SIDES",
    "TRAP_EXACT_MAX",
    "TRAP_K",
    "after_run",
    "expected_share",
    "hit_sequence",
    "pooled_table",
    "side_of",
    "streaks_before",
]

"""The fast-forward: many coups at once from the bulk dealer, their streaks counted exactly as
``trente-lab fallacy`` counts them (:func:`experiments.streaks.count_streaks`), so the class
sees its small table's frequencies settle on the exact odds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from experiments.streaks import MAX_STREAK
from trente_env.seeding import fast_forward_seed as fast_seed

#: Shards of a fast-forward: the progress shown moves once a shard.
STEPS = 20


class _Progress:
    """The two methods of a rich progress bar that :func:`count_streaks` calls, reported to ``done``."""

    def __init__(self, done: Callable[[int, int], None]) -> None:
        self.done, self.total, self.count = done, 0, 0

    def add_task(self, _description: str, total: int) -> int:
        self.total = total
        self.done(0, total)
        return 0

    def advance(self, _task: int, step: int) -> None:
        self.count += step
        self.done(self.count, self.total)


def fast_forward(rules: Any, n_coups: int, seed: int, progress: Callable[[int, int], None]) -> dict[str, Any]:
    """Deal ``n_coups`` coups (seeded ``seed``) and return the pooled table of their streaks:
    rows (side, k) for k = 1..MAX_STREAK (the last: that many or more), as the live table's."""
    from experiments.streaks import count_streaks

    shard = max(1, -(-n_coups // STEPS))
    counts, decided, void = count_streaks(rules, n_coups, MAX_STREAK, seed, _Progress(progress), shard=shard)
    rouge = counts["rouge"]  # [streak side: 0 Rouge, 1 Noir; length; winner: 0 Rouge, 1 Noir]
    rows = []
    for side, s in (("noir", 1), ("rouge", 0)):
        for k in range(1, MAX_STREAK + 1):
            cell = rouge[s, k:].sum(axis=0) if k == MAX_STREAK else rouge[s, k]
            rows.append({"side": side, "k": k, "occasions": int(cell.sum()), "same": int(cell[s]),
                         "other": int(cell[1 - s])})  # fmt: skip
    won_rouge = int(rouge[:, :, 0].sum())
    return {"coups": n_coups, "seed": seed, "decided": decided, "void": void, "rouge": won_rouge,
            "noir": decided - won_rouge, "rows": rows, "done": True}  # fmt: skip


__all__ = ["STEPS", "fast_forward", "fast_seed"]

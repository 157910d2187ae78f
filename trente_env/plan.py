"""THE evaluation plan: how many sessions of how many coups an evaluation plays, on which shoes.

``evaluate``, ``sweep``, ``control``, ``train``'s learning curves and ``benchmark`` each play an
:class:`EvalPlan`. Its seed is either fixed (every entrant on the very same shoes, session ``i`` on
the table seeded :func:`~trente_env.seeding.session_seed` ``(seed, i)``) or derived from the
training seed of the agent it evaluates (``seed=None``: :func:`~trente_env.seeding.evaluation_seed`),
so that an average over training seeds also averages over shoes.
"""

from __future__ import annotations

from dataclasses import dataclass

from trente_env.seeding import evaluation_seed

#: The fixed evaluation seed of ``evaluate``, ``sweep`` and ``control``: away from the training seeds.
EVAL_SEED = 10_000


@dataclass(frozen=True)
class EvalPlan:
    """Sessions of up to ``coups`` coups each, on the shoes of ``seed``.

    :param sessions: evaluation sessions (the independent units of every interval over them).
    :param coups: coups per session at most.
    :param seed: the sessions' seed; None: each training seed's own (:meth:`seed_for`).
    """

    sessions: int = 200
    coups: int = 1000
    seed: int | None = EVAL_SEED

    def seed_for(self, training_seed: int | None = None) -> int:
        """The evaluation seed for an agent trained with ``training_seed``: the plan's fixed seed, or
        one derived from the training seed (:func:`~trente_env.seeding.evaluation_seed`)."""
        if self.seed is not None:
            return self.seed
        if training_seed is None:
            raise ValueError("this plan derives its seed from the training seed: give one")
        return evaluation_seed(training_seed)

    def describe(self) -> str:
        """The plan in words, for a table's caption."""
        shoes = f"seed {self.seed:,}" if self.seed is not None else "each training seed's own shoes"
        return f"{self.sessions:,} sessions x {self.coups:,} coups, {shoes}"


#: The evaluation of ``evaluate``, ``sweep`` and ``control``: 200 sessions x 1,000 coups on seed 10,000.
EVAL_PLAN = EvalPlan()

__all__ = ["EVAL_PLAN", "EVAL_SEED", "EvalPlan"]

"""Exact odds of the next coup for any shoe: the joint states for short shoes, the rows beyond."""

from __future__ import annotations

import numpy as np

from trente_env.odds.joint import box_size, joint_odds
from trente_env.odds.rows import rows_odds
from trente_env.odds.shoe import (
    EXACT,
    N_OUT,
    N_VALUES,
    ShoeOdds,
    check_composition,
    odds_from,
    odds_vector,
    value_counts,
)  # fmt: skip

JOINT_EXACT = 1_000_000  #: :func:`exact_odds` uses the joint states up to this many
MAX_BOX = 8_000_000  #: the most joint states the joint method accepts (about 700 MB)


def exact_odds(counts: np.ndarray | list[int], dead: int = 0, *, method: str | None = None) -> ShoeOdds:
    """Exact odds of the next coup from the unseen cards ``counts`` (black 1..10, red 1..10), of
    which ``dead`` will not be dealt. Any shoe.

    :param method: ``"joint"`` (one pass over the joint states: fast for short shoes, its memory
        grows with :func:`box_size`) or ``"rows"`` (a Rouge row after each Noir row: seconds for a
        full shoe). Default: joint up to :data:`JOINT_EXACT` joint states, else rows.
    """
    counts, dead = check_composition(counts, dead)
    shoe = value_counts(counts)
    size = box_size(shoe)
    if method is None:
        method = "joint" if size <= JOINT_EXACT else "rows"
    if method == "joint":
        if size > MAX_BOX:
            raise ValueError(f"this shoe has {size:,} joint states, more than {MAX_BOX:,}: use the rows method")
        out = np.zeros(N_OUT)
        joint_odds(shoe, dead, np.empty(size), np.empty(size * 10), out)
    elif method == "rows":
        out = rows_odds(shoe, dead)
    else:
        raise ValueError(f"unknown exact method {method!r}; choose joint or rows")
    return odds_from(out, counts, EXACT)


def exact_values(shoe: np.ndarray) -> np.ndarray:
    """The exact odds vector of a shoe given by its value counts (colours do not matter to it)."""
    return odds_vector(exact_odds(np.concatenate([shoe, np.zeros(N_VALUES, np.int64)])))

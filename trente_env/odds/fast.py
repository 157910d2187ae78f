"""The odds of the next coup fast enough for a counter at the table: exact for a short shoe (at most
``exact_box`` joint states), else the coupled rows up to ``coupled_cards`` cards, else with
replacement, both corrected by the nodes (see the notes of :mod:`trente_env.odds`).
"""

from __future__ import annotations

import numpy as np

from trente_env import jit
from trente_env.odds.approximate import correct, coupled, symmetrise, with_replacement
from trente_env.odds.joint import box_size, joint_odds
from trente_env.odds.nodes import nodes
from trente_env.odds.shoe import (
    COUPLED,
    COUPLED_CARDS,
    COUPLED_MAX,
    EXACT,
    EXACT_BOX,
    JOINT_LIMIT,
    N_OUT,
    N_VALUES,
    REPLACEMENT,
    ShoeOdds,
    check_composition,
    odds_from,
    value_counts,
)  # fmt: skip


@jit.kernel
def evaluate_into(counts, dead, exact_box, coupled_cards, model, pn, joint, out):
    """The odds of the next coup from 20 counts into ``out`` (see :func:`shoe_odds`); ``pn`` and
    ``joint`` must hold ``exact_box`` and ``10 * exact_box`` numbers. Returns the method used."""
    prefixes, wr_n, wr_ref, wr_corr, wr_removal, cp_corr, cp_removal = model
    shoe = np.empty(N_VALUES, np.int64)
    size = 1
    n = 0
    for v in range(N_VALUES):
        shoe[v] = counts[v] + counts[N_VALUES + v]
        n += shoe[v]
        size *= min(shoe[v], JOINT_LIMIT // (v + 1)) + 1
    if n - dead <= 0:  # nothing left to deal: the coup is void
        out[:] = 0.0
        out[110] = 1.0
        return EXACT
    if size <= exact_box:
        joint_odds(shoe, dead, pn, joint, out)
        return EXACT
    if n <= coupled_cards:
        coupled(shoe, n - dead, prefixes, out)
        correct(shoe, wr_n, wr_ref, cp_corr, cp_removal, out)
        symmetrise(shoe, out)
        return COUPLED
    with_replacement(shoe, n - dead, out)
    correct(shoe, wr_n, wr_ref, wr_corr, wr_removal, out)
    symmetrise(shoe, out)
    return REPLACEMENT


def check_tiers(exact_box: int, coupled_cards: int) -> None:
    """Validate the settings of :func:`shoe_odds`; one-line :class:`ValueError` otherwise."""
    if exact_box < 0 or not 0 <= coupled_cards <= COUPLED_MAX:
        raise ValueError(
            f"need exact_box >= 0 and 0 <= coupled_cards <= {COUPLED_MAX}, got {exact_box} and {coupled_cards}"
        )


def shoe_odds(
    counts: np.ndarray | list[int],
    dead: int = 0,
    *,
    exact_box: int = EXACT_BOX,
    coupled_cards: int = COUPLED_CARDS,
) -> ShoeOdds:
    """The odds of the next coup from the unseen cards ``counts`` (black 1..10, red 1..10), of which
    ``dead`` will not be dealt. Exact for a short shoe (at most ``exact_box`` joint states, see
    :func:`box_size`: about the last 20 cards by default); else, up to ``coupled_cards`` cards (at
    most :data:`COUPLED_MAX`), the coupled rows; else with replacement; both with the nodes'
    finite-shoe correction (see the module's notes for their measured errors).
    """
    counts, dead = check_composition(counts, dead)
    check_tiers(exact_box, coupled_cards)
    size = box_size(value_counts(counts))
    room = size if size <= exact_box else 1
    out = np.zeros(N_OUT)
    model = nodes().model()
    method = evaluate_into(counts, dead, exact_box, coupled_cards, model, np.empty(room), np.empty(room * 10), out)
    return odds_from(out, counts, int(method))


def approximate_odds(counts: np.ndarray | list[int], dead: int = 0, *, coupled_cards: int = COUPLED_CARDS) -> ShoeOdds:
    """The fast path's odds whatever the size of the shoe (never exact): for measuring its error."""
    return shoe_odds(counts, dead, exact_box=0, coupled_cards=coupled_cards)

"""Exact odds of a coup and the house edges: the first coup of a full shoe, any shoe a player has
watched being dealt (colour included), fast approximations for the card counter, the edges.

**The modules.**

* :mod:`.prefixes`: the prefix states of a row and the one walk over them that every row
  calculator reads;
* :mod:`.first`: the coup from the values of the cards: the first coup of a full shoe
  (:func:`first_coup`, cached), any composition dealt to its end (:func:`coup_odds`), the infinite
  deck; the odds types (:class:`RowOdds`, :class:`CoupOdds`);
* :mod:`.edges`: the house edge of every box (:func:`house_edges`), of insured stakes, of the stakes
  a player placed (:func:`stake_weighted_edge`), a rigged table's Noir bonus;
* :mod:`.rig`: the rigged table's exact expectations and the best policy with a memory;
* :mod:`.shoe`: the unseen cards of a shoe (20 counts) and the odds of its next coup
  (:class:`ShoeOdds`), as data;
* :mod:`.joint`, :mod:`.rows`, :mod:`.exact`: the exact odds of the next coup from any shoe
  (:func:`exact_odds`);
* :mod:`.approximate`, :mod:`.nodes`, :mod:`.fast`: the approximations for deep shoes, their
  corrections at the nodes, and the odds fast enough for a counter at the table (:func:`shoe_odds`).

The card counters that play on these odds (what a unit on each box is worth, the effects of
removal, the linear count, the counters over dealt shoes) are :mod:`trente_env.counting`.

**Any shoe.** The state is what a player who watches every card knows: the unseen cards, as 20
counts (black cards of value 1..10, then red ones: the order of the environment's ``observe_shoe``),
and how many of them will never be dealt (``dead``: burnt cards, dead cards at the end of the
shoe). The unseen cards lie in a uniformly random order, so the dead ones are a random part of them:
the next cards are drawn without replacement from all the unseen ones, and a coup that needs more
than the ``cards left - dead`` cards that can still be dealt is void.

**Colour for free.** Given the sequence of *values* dealt, the colours of the value-v cards are a
uniformly random assignment of the shoe's ``b_v`` black and ``r_v`` red cards of value v, so the
coup's first card is black with probability ``b_v / n_v`` once its value is v, whatever else
happens. And given the Noir row as a multiset, every order of its prefix (all its cards but the
last) is equally likely, so its first card has value v with probability ``prefix_v / |prefix|``.
So with ``D_v = P(first value v, Noir wins) - P(first value v, Rouge wins)`` (the *first-card edge*)
and ``d_v = (b_v - r_v) / n_v``::

    P(Couleur) - P(Inverse) = sum_v D_v d_v,        P(Couleur) + P(Inverse) = P(Noir) + P(Rouge),

and the colour-aware odds cost no more than the value-only ones. P(Noir) = P(Rouge) for every
composition (the two rows' blocks of cards can be swapped), so Noir and Rouge are never
favourable: only Couleur and Inverse can be, through the colours left in the shoe.

**Exact**: :func:`exact_odds`, two ways to the same numbers.

* *joint* (:mod:`.joint`): one pass over the joint states of the coup (every multiset of values the
  coup may have taken so far, inside the shoe, with the Noir total once that row is complete),
  forward for the two rows' distribution, backward for the first-card edge. Its cost grows with
  ``prod(n_v + 1)`` (:func:`box_size`).
* *rows* (:mod:`.rows`): the Noir row by the walk over the prefix states (:mod:`.prefixes`); then for
  each Noir row the Rouge row from the table P(the first L cards add up to s), updated card by card
  as the Noir row's cards leave the shoe (by exchangeability the Rouge row ends on u with a last
  card l when the shoe without that l has a first run of cards adding up to u - l <= 30). Any shoe.

**Fast**: :func:`shoe_odds`, exact for a short shoe (at most ``exact_box`` joint states; by default
50,000: every shoe of at most 20 cards and some up to 26), else one of two approximations
(:mod:`.approximate`):

* *coupled rows* (up to ``coupled_cards`` cards, 64 by default and 104 at most): the Noir row
  exact and the Rouge row after it to first order in the Noir row's cards,
  ``R(shoe - A) ~ R(shoe) - sum_v A_v (R(shoe) - R(shoe less one card of value v))``, every ``R``
  exact (totals and lengths, so void coups are counted);
* *with replacement* (beyond): both rows drawn with replacement at the shoe's proportions (the
  rows' lengths tracked when fewer than 40 cards can be dealt).

Both add a finite-shoe correction tabulated at 15 *nodes*, balanced shoes of 13 k cards (k
quarter-packs; every full shoe of 1..8 packs is one): the exact odds minus the approximation at the
node, linear in the cards removed from the node, interpolated between the two nodes that bracket
the shoe's size. The nodes' exact odds are stored in ``data/counting_nodes.json`` (:mod:`.nodes`;
rebuilt by :func:`write_nodes`, checked when loaded; the corrections are recomputed from them by this
code). Last, the approximate odds are projected onto two exact symmetries
(:func:`~.approximate.symmetrise`).

Measured error of the approximations against the exact odds (classic rules, six packs, shoes dealt
by the project's dealer and cut that many cards before their end, 20 shoes per line for the coupled
rows, 12 with replacement; :func:`trente_env.counting.counters.approximation_error`):
root-mean-square and largest error of the best expected gain on offer, per unit staked.

==========  ================  ================
cards left  coupled rows      with replacement
==========  ================  ================
20          3.8e-4 / 1.0e-3
24          1.4e-4 / 3.1e-4
26          8.7e-5 / 1.9e-4
30          9.6e-5 / 2.4e-4
35          6.9e-5 / 1.8e-4
40          1.9e-5 / 4.4e-5
52          8.4e-6 / 2.5e-5
64          6.9e-6 / 2.1e-5
65                            2.0e-4 / 6.0e-4
70          4.5e-6 / 9.7e-6   1.0e-4 / 2.8e-4
90          5.0e-7 / 1.1e-6   3.8e-5 / 7.3e-5
104         4.4e-7 / 1.3e-6   2.0e-5 / 4.6e-5
156                           4.6e-6 / 1.1e-5
208                           1.2e-6 / 2.1e-6
260                           3.0e-7 / 9.2e-7
==========  ================  ================

(At 20 cards and fewer the default is exact; at 70 to 104 cards the coupled rows were measured on 10
shoes with ``coupled_cards=104``.) The best expected gain on offer is about -0.01 in a deep shoe and
comes near zero only in the last few dozen cards.
"""

from __future__ import annotations

from trente_env.odds.edges import HouseEdge, house_edges, insured_edges, rig_bonus, stake_weighted_edge
from trente_env.odds.exact import JOINT_EXACT, MAX_BOX, exact_odds, exact_values
from trente_env.odds.fast import approximate_odds, check_tiers, evaluate_into, shoe_odds
from trente_env.odds.first import (
    CACHE,
    INFINITE_P,
    CoupOdds,
    RowOdds,
    coup_odds,
    first_coup,
    infinite_odds,
    row_infinite,
    write_cache,
)
from trente_env.odds.joint import box_size
from trente_env.odds.nodes import NODE_QUARTERS, QUARTER, Nodes, node_odds, nodes, write_nodes
from trente_env.odds.rig import (
    MemoryOptimum,
    RigExpectations,
    best_with_memory,
    rig_expectations,
    rig_probability,
)
from trente_env.odds.shoe import (
    COUPLED,
    COUPLED_CARDS,
    COUPLED_MAX,
    EXACT,
    EXACT_BOX,
    METHODS,
    N_OUT,
    N_VALUES,
    PACK,
    REPLACEMENT,
    ShoeOdds,
    check_composition,
    full_counts,
)

__all__ = [
    "CACHE",
    "COUPLED",
    "COUPLED_CARDS",
    "COUPLED_MAX",
    "EXACT",
    "EXACT_BOX",
    "INFINITE_P",
    "JOINT_EXACT",
    "MAX_BOX",
    "METHODS",
    "NODE_QUARTERS",
    "N_OUT",
    "N_VALUES",
    "PACK",
    "QUARTER",
    "REPLACEMENT",
    "CoupOdds",
    "HouseEdge",
    "MemoryOptimum",
    "Nodes",
    "RigExpectations",
    "RowOdds",
    "ShoeOdds",
    "approximate_odds",
    "best_with_memory",
    "box_size",
    "check_composition",
    "check_tiers",
    "coup_odds",
    "evaluate_into",
    "exact_odds",
    "exact_values",
    "first_coup",
    "full_counts",
    "house_edges",
    "infinite_odds",
    "insured_edges",
    "node_odds",
    "nodes",
    "rig_bonus",
    "rig_expectations",
    "rig_probability",
    "row_infinite",
    "shoe_odds",
    "stake_weighted_edge",
    "write_cache",
    "write_nodes",
]

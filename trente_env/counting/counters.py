"""Card counting over dealt shoes: what a player who watches every card could win.

Each shoe is played by the croupier of every table of trente-lab (:mod:`trente_env.croupier`):
:func:`~trente_env.croupier.next_coup` shuffles it with a seed of
:func:`~trente_env.dealer.shuffle_seeds`, burns and deals it coup by coup under the rules' cut card
and dead cards, and :func:`~trente_env.croupier.bet_and_settle` settles every stake (prisoners
included). Before each coup two players look at the unseen cards:

* the **perfect counter** knows the odds of the next coup from the unseen cards
  (:func:`trente_env.odds.shoe_odds`: exact for a short shoe, else the fast approximation) and
  stakes one unit on the best box, insured if that is better, only when its expected gain is positive;
* the **linear counter** estimates the expected gains with a linear count
  (:class:`~trente_env.counting.removal.LinearCount`) and does the same with its estimates.

Under the ``choice`` rule both ask for prison on a refait when a prisoner is worth more than half a
stake. A prisoner still waiting when the shoe is reshuffled is counted at its value for a fresh
shoe (:func:`~trente_env.counting.advantage.fresh_prisoner`): each shoe's result is its own.

For each shoe the study keeps the expected gain of the stakes made (the sum of their expected gains,
by the same odds), the realised gain, and for each coup the cards left and the best expected gain on
offer. **Stop rules**: the rules' cut card, ``cut_card=0`` (the ``exhaustion`` preset) deals to the end,
and the rules' ``dead_cards`` keep the last cards of the shoe out of play (the ``dead-cards`` preset;
see :class:`~trente_env.rules.RuleSet`). The counters never see the dead cards: they count among the
unseen cards, with the burnt ones, and ``burn + dead_cards`` of the unseen cards can never be dealt.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import NamedTuple

import numba
import numpy as np

from trente_env import jit
from trente_env.cards import CARD_BLACK, CARD_VALUE, new_shoe
from trente_env.codes import ACTION_WIDTH, COULEUR, INSURE, NO_COUP, PRISON, STAKE, RefaitCode
from trente_env.counting.advantage import (
    EV,
    EV_INSURED,
    PRISONER,
    bet_rules,
    box_values,
    box_values_into,
    odds_summary,
)  # fmt: skip
from trente_env.counting.removal import LinearCount, effects_of_removal, linear_count
from trente_env.croupier import bet_and_settle, next_coup, table_rules
from trente_env.dealer import shuffle, shuffle_seeds
from trente_env.estimate import Interval, ratio_estimate
from trente_env.odds import (
    COUPLED_CARDS,
    EXACT,
    EXACT_BOX,
    N_OUT,
    N_VALUES,
    approximate_odds,
    check_tiers,
    evaluate_into,
    exact_odds,
    full_counts,
    nodes,
)  # fmt: skip
from trente_env.rules import RuleSet
from trente_env.settle import partage_share

#: The kind of each card code (0..19: black values 1..10, then red ones), the order of the counts.
_KIND = np.where(CARD_BLACK, 0, N_VALUES) + CARD_VALUE.astype(np.int64) - 1
#: The bankroll each counter's coup is settled from: far above any stake of the study, so nothing is
#: refused for want of money, and small enough that a coup's gain (what comes back less the purse) is
#: counted to within 1e-10 units.
PURSE = 1.0e6
#: The scoreboard of a study's coups, as the croupier reads it: no previous coup (the rig is never read).
NO_BOARD = np.full(1, NO_COUP, dtype=np.int64)


@jit.kernel
def best_bet(values, n_boxes, insurance):
    """(box, insured, expected gain) of the best bet in a (4, >=2) table of expected gains."""
    best = -np.inf
    box = 0
    insured = False
    for b in range(n_boxes):
        if values[b, EV] > best:
            best, box, insured = values[b, EV], b, False
        if insurance and values[b, EV_INSURED] > best:
            best, box, insured = values[b, EV_INSURED], b, True
    return box, insured, best


class StudyRecords(NamedTuple):
    """What the counting study writes, shoe by shoe (row ``s``): see :class:`ShoeStudy`."""

    expected: np.ndarray  #: (shoes,) the perfect counter's expected gain
    realised: np.ndarray  #: (shoes,) its realised gain
    bets: np.ndarray  #: (shoes,) its stakes
    linear_expected: np.ndarray  #: (shoes,) the same for the linear counter
    linear_realised: np.ndarray
    linear_bets: np.ndarray
    coups: np.ndarray  #: (shoes,) coups dealt
    left: np.ndarray  #: (shoes, room) cards left to deal before each coup
    best_ev: np.ndarray  #: (shoes, room) the best expected gain on offer
    method: np.ndarray  #: (shoes, room) how its odds were computed


class StudyShoes(NamedTuple):
    """The shoes of the counting study and what its counters read besides the rules."""

    seeds: np.ndarray  #: one shuffle seed a shoe
    full: np.ndarray  #: the 20 counts of a full shoe
    exact_box: int  #: the exact odds' tier (:func:`trente_env.odds.evaluate_into`)
    coupled_cards: int  #: the coupled rows' tier
    lin_base: np.ndarray  #: the linear count (:class:`~trente_env.counting.removal.LinearCount`)
    lin_tags: np.ndarray


@jit.kernel
def scratch(exact_box):
    """The work arrays of :func:`perfect_bet`: (pn, joint, odds vector, (4, 3) values)."""
    return np.empty(exact_box), np.empty(exact_box * 10), np.empty(N_OUT), np.empty((4, 3))


@jit.kernel
def perfect_bet(counts, dead, odds, rules, work):
    """The perfect counter's view of the next coup from the unseen cards ``counts`` (20, ``dead`` of
    them never dealt): the odds (:func:`~trente_env.odds.evaluate_into` with ``odds`` = (exact box,
    coupled cards, model), into the odds vector of ``work``: :func:`scratch`), the (4, 3) table of
    :func:`~trente_env.counting.advantage.box_values_into` under ``rules`` (:func:`bet_rules`) into
    ``work``'s values, and the best bet.

    Returns (method, box, insured, expected gain): stake on ``box`` only if the gain is positive.
    """
    exact_box, coupled_cards, model = odds
    pn, joint, out, values = work
    method = evaluate_into(counts, dead, exact_box, coupled_cards, model, pn, joint, out)
    box_values_into(odds_summary(out, counts), rules, values)
    box, insured, best = best_bet(values, rules.n_boxes, rules.insurance)
    return method, box, insured, best


@jit.kernel
def linear_estimate(seen, unseen, cards, base, tags, estimate):
    """A linear count's (4, 2) estimated expected gains into ``estimate`` from the ``seen`` cards (20
    counts), ``unseen`` cards left of a full shoe of ``cards``: see
    :class:`~trente_env.counting.removal.LinearCount`."""
    scale = (cards - 1.0) / unseen if unseen > 0 else 0.0
    for b in range(4):
        for i in range(2):
            x = 0.0
            for kind in range(2 * N_VALUES):
                x += seen[kind] * tags[kind, b, i]
            estimate[b, i] = base[b, i] + scale * x


@jit.kernel
def _bet_row(action, box, insured, stake, values):
    """A player's action row for the coup: ``stake`` on ``box`` (insured or not), and under the
    ``choice`` rule prison for every box whose prisoner is worth more than half a stake."""
    for i in range(ACTION_WIDTH):
        action[i] = 0.0
    action[STAKE + box] = stake
    action[INSURE + box] = 1.0 if insured else 0.0
    for b in range(4):
        action[PRISON + b] = 1.0 if values[b, PRISONER] > 0.5 else 0.0


@jit.kernel
def counter_actions(shoe, cards_left, unit, threshold, odds, rules, actions, expected):
    """The perfect counter at ``n`` tables from what each one's observation shows: ``shoe`` ((n, 20)
    unseen cards, black 1..10 then red: the env's ``shoe`` part) and ``cards_left`` ((n,) cards that
    can still be dealt; the others, burnt or dead, are unseen but never dealt). For each table the
    decision of the count analysis (:func:`perfect_bet` with ``odds`` and ``rules``, :func:`_bet_row`):
    ``unit`` on the best box, insured if better, when its expected gain per unit is above
    ``threshold``; the action row goes to ``actions[t]`` ((n, 12)) and the stake's expected gain (0
    with no stake) to ``expected[t]``."""
    work = scratch(odds[0])
    values = work[3]
    counts = np.empty(2 * N_VALUES, np.int64)
    for t in range(shoe.shape[0]):
        unseen = 0
        for i in range(2 * N_VALUES):
            counts[i] = shoe[t, i]
            unseen += counts[i]
        dead = unseen - cards_left[t]
        if dead < 0:
            raise ValueError("counter_actions: more cards left to deal than unseen cards")
        _, box, insured, best = perfect_bet(counts, dead, odds, rules, work)
        stake = unit if best > threshold else 0.0
        expected[t] = stake * best
        _bet_row(actions[t], box, insured, stake, values)


@jit.kernel
def stake_value(values, refait, stake, insured, to_prison, rules):
    """The expected gain of the new stakes ``stake`` ((4,) units; ``insured`` and ``to_prison`` (4,)
    bool: the player's insurance and, under the ``choice`` rule, its prison choice) from the coup's
    (4, 3) table of :func:`~trente_env.counting.advantage.box_values_into` and its chance of a refait:
    the uninsured expected gain counts the stake caught by the refait at what the chosen prison or
    partage is worth, not at the better of the two."""
    kept = 1.0 - partage_share(rules.refait)
    gain = 0.0
    for b in range(4):
        if stake[b] <= 0.0:
            continue
        if insured[b]:
            gain += stake[b] * values[b, EV_INSURED]
            continue
        ev = values[b, EV]
        if rules.refait == RefaitCode.CHOICE and not (rules.spares_couleur and b >= COULEUR):
            jail = values[b, PRISONER]
            ev += refait * ((jail if to_prison[b] else kept) - max(kept, jail))
        gain += stake[b] * ev
    return gain


@jit.kernel
def placed_gains(cards, before, table, slips, odds, rules, gains):
    """Add to ``gains[t]`` the expected gain of the new stakes table ``t`` placed on a coup, given the
    cards it had not seen before the coup: the odds of the coup and the values of
    :func:`perfect_bet` (the perfect counter's view, ``odds`` and ``rules`` as there), then
    :func:`stake_value`. ``cards`` ((n, shoe) card codes: the tables' shoes), ``before`` = (pos, fresh):
    where each table's next card lay before the coup and whether the coup began a new shoe, ``table``
    the :class:`~trente_env.croupier.TableRules` (burn, dead cards), ``slips`` = (stakes, insured,
    to_prison), each (n, 4): what each table placed on the coup. The cards before ``pos`` are the burnt
    ones, unseen, then the coups dealt; a new shoe has every card unseen."""
    pos, fresh = before
    stakes, insured, to_prison = slips
    work = scratch(odds[0])
    values, out = work[3], work[2]
    full = np.zeros(2 * N_VALUES, np.int64)
    for i in range(table.base.size):
        full[_KIND[table.base[i]]] += 1
    counts = np.empty(2 * N_VALUES, np.int64)
    dead = table.burn + table.dead_cards  # unseen but never dealt: the burnt and the dead cards
    for t in range(stakes.shape[0]):
        staked = 0.0
        for b in range(4):
            staked += stakes[t, b]
        if staked <= 0.0:
            continue
        for i in range(2 * N_VALUES):
            counts[i] = full[i]
        if not fresh[t]:
            row = cards[t]
            for i in range(table.burn, pos[t]):
                counts[_KIND[row[i]]] -= 1
        perfect_bet(counts, dead, odds, rules, work)
        gains[t] += stake_value(values, out[0], stakes[t], insured[t], to_prison[t], rules)


@jit.kernel
def linear_actions(shoe, full, unit, threshold, base, tags, rules, actions):
    """The linear counter at ``n`` tables (``shoe`` as in :func:`counter_actions`, ``full`` the 20
    counts of a full shoe): the count analysis' linear estimate (:func:`linear_estimate`) and best bet
    (:func:`best_bet`), ``unit`` on it when its estimated gain is above ``threshold``. Under the
    ``choice`` rule it asks for prison when a prisoner in a fresh shoe is worth more than half a stake
    (the count gives no prisoner's value)."""
    n_boxes, insurance, fresh1 = rules.n_boxes, rules.insurance, rules.fresh1
    seen = np.empty(2 * N_VALUES, np.int64)
    estimate = np.empty((4, 2))
    values = np.zeros((4, 3))
    values[:, PRISONER] = fresh1
    cards = 0
    for i in range(2 * N_VALUES):
        cards += full[i]
    for t in range(shoe.shape[0]):
        unseen = 0
        for i in range(2 * N_VALUES):
            seen[i] = full[i] - shoe[t, i]
            unseen += shoe[t, i]
        linear_estimate(seen, unseen, cards, base, tags, estimate)
        box, insured, best = best_bet(estimate, n_boxes, insurance)
        _bet_row(actions[t], box, insured, unit if best > threshold else 0.0, values)


@jit.kernel
def _play(action, prison, result, couleur, table, placed, insured, back):
    """The croupier settles one player's row (:func:`~trente_env.croupier.bet_and_settle`); returns
    the player's gain on the coup. The bankroll is :data:`PURSE`, enough for any stake of the study."""
    # no previous coup: study_shoes refuses the rigged tables, the only ones that read it
    after, _ = bet_and_settle(action, PURSE, prison, result, couleur, NO_BOARD, table, (placed, insured, back))
    return after - PURSE


@jit.kernel
def study_range(first, last, shoes, table, rules, model, records):
    """Shoes ``first..last-1`` of the :class:`StudyShoes` ``shoes``, each shuffled with its seed and
    dealt coup by coup by the croupier (:func:`~trente_env.croupier.next_coup`) under ``table``, both
    counters betting before each coup under the rules ``rules`` (:func:`bet_rules`); per-shoe results and
    per-coup records go to row ``s`` of the :class:`StudyRecords` ``records``."""
    expected, realised, bets = records.expected, records.realised, records.bets
    lin_expected, lin_realised, lin_bets = records.linear_expected, records.linear_realised, records.linear_bets
    coups, left, best_ev, method = records.coups, records.left, records.best_ev, records.method
    seeds, full, lin_base, lin_tags = shoes.seeds, shoes.full, shoes.lin_base, shoes.lin_tags
    odds = (shoes.exact_box, shoes.coupled_cards, model)
    fresh1, fresh2 = rules.fresh1, rules.fresh2
    n_cards = table.base.size
    deal_to = n_cards - table.dead_cards
    unseen_dead = table.burn + table.dead_cards
    work = scratch(shoes.exact_box)
    values = work[3]
    cards = np.empty(n_cards, np.uint8)
    counts = np.empty(2 * N_VALUES, np.int64)
    seen = np.zeros(2 * N_VALUES, np.int64)
    prison = np.zeros((4, 2))
    lin_prison = np.zeros((4, 2))
    estimate = np.empty((4, 2))
    action = np.zeros(ACTION_WIDTH)
    lin_action = np.zeros(ACTION_WIDTH)
    placed = np.zeros(4)
    insured = np.zeros(4, np.bool_)
    back = np.zeros(4)
    for s in range(first, last):
        seen[:] = 0
        prison[:, :] = 0.0
        lin_prison[:, :] = 0.0
        pos = table.burn
        k = 0
        while True:
            unseen = 0
            for i in range(2 * N_VALUES):
                counts[i] = full[i] - seen[i]
                unseen += counts[i]
            how, box, ins, best = perfect_bet(counts, unseen_dead, odds, rules, work)
            left[s, k] = deal_to - pos
            best_ev[s, k] = best
            method[s, k] = how
            stake = 0.0
            if best > 0.0:
                stake = 1.0
                expected[s] += best
                bets[s] += 1
            _bet_row(action, box, ins, stake, values)
            linear_estimate(seen, unseen, n_cards, lin_base, lin_tags, estimate)
            lin_box, lin_ins, lin_best = best_bet(estimate, rules.n_boxes, rules.insurance)
            lin_stake = 0.0
            if lin_best > 0.0:
                lin_stake = 1.0
                lin_expected[s] += values[lin_box, EV_INSURED if lin_ins else EV]
                lin_bets[s] += 1
            _bet_row(lin_action, lin_box, lin_ins, lin_stake, values)
            # the coup: the first one shuffles the shoe with the shoe's seed and burns
            _, _, result, couleur, start, _, end, reshuffle = next_coup(cards, pos, k == 0, seeds[s], table)
            realised[s] += _play(action, prison, result, couleur, table, placed, insured, back)
            lin_realised[s] += _play(lin_action, lin_prison, result, couleur, table, placed, insured, back)
            for i in range(start, end):
                seen[_KIND[cards[i]]] += 1
            pos = end
            k += 1
            if reshuffle:
                break
        coups[s] = k
        for b in range(4):  # prisoners left when the shoe is reshuffled: their value in a fresh shoe
            realised[s] += prison[b, 0] * fresh1 + prison[b, 1] * fresh2
            lin_realised[s] += lin_prison[b, 0] * fresh1 + lin_prison[b, 1] * fresh2


@jit.parallel
def study_chunks(chunks, shoes, table, rules, prefixes, nodes, records):
    """:func:`study_range` on numba's threads, shoes ``chunks[c]..chunks[c+1]-1`` a task. The model of
    :func:`~trente_env.odds.evaluate_into` comes in two flat tuples, the prefix states and the nodes
    (a parallel kernel takes no nested tuple), and every write happens in the called function (see
    :func:`trente_env.jit.parallel`)."""
    for c in numba.prange(chunks.size - 1):
        model = (prefixes, nodes[0], nodes[1], nodes[2], nodes[3], nodes[4], nodes[5])
        study_range(chunks[c], chunks[c + 1], shoes, table, rules, model, records)


@dataclass(frozen=True)
class ShoeStudy:
    """The perfect and the linear counter over the same dealt shoes (see the module's notes).

    Per shoe: ``expected`` (sum of the expected gains of the perfect counter's stakes), ``realised``,
    ``bets``; the same with ``linear_``. Per coup (row = shoe, ``coups[s]`` columns used): cards left
    to deal before it, the best expected gain on offer, and how its odds were computed (the codes of
    :data:`trente_env.odds.METHODS`).
    """

    rules: RuleSet
    dead_cards: int
    seed: int
    exact_box: int
    coupled_cards: int
    expected: np.ndarray
    realised: np.ndarray
    bets: np.ndarray
    linear_expected: np.ndarray
    linear_realised: np.ndarray
    linear_bets: np.ndarray
    coups: np.ndarray
    left: np.ndarray
    best_ev: np.ndarray
    method: np.ndarray
    seconds: float

    @property
    def shoes(self) -> int:
        return self.expected.size

    def gain(self) -> Interval:
        """The perfect counter's expected gain per shoe, in units (interval over shoes)."""
        return Interval.of(self.expected)

    def linear_gain(self) -> Interval:
        return Interval.of(self.linear_expected)

    def capture(self) -> Interval:
        """The share of the perfect counter's expected gain that the linear counter gets: a ratio of
        means, its interval by the delta method over shoes."""
        return Interval.of_ratio(ratio_estimate(self.linear_expected, self.expected))

    def summary(self) -> dict[str, object]:
        """The study's figures as plain data (the depth table apart: :func:`best_ev_by_depth`)."""
        diff = self.realised - self.expected
        return {
            "rules": self.rules.describe(),
            "dead_cards": self.dead_cards,
            "shoes": self.shoes,
            "seed": self.seed,
            "seconds": self.seconds,
            "coups_per_shoe": float(self.coups.mean()),
            "perfect": {
                "expected_gain_per_shoe": asdict(self.gain()),
                "realised_gain_per_shoe": asdict(Interval.of(self.realised)),
                "bets_per_shoe": float(self.bets.mean()),
                "realised_minus_expected": [  # its standard error needs two shoes
                    float(diff.mean()),
                    float(diff.std(ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else None,
                ],
            },
            "linear": {
                "expected_gain_per_shoe": asdict(self.linear_gain()),
                "realised_gain_per_shoe": asdict(Interval.of(self.linear_realised)),
                "bets_per_shoe": float(self.linear_bets.mean()),
                "capture": asdict(self.capture()),
            },
        }

    def coup_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every coup as flat arrays: (cards left, best expected gain, method code)."""
        mask = np.arange(self.left.shape[1])[None, :] < self.coups[:, None]
        return self.left[mask], self.best_ev[mask], self.method[mask]


QUANTILES = (0.01, 0.1, 0.5, 0.9, 0.99)  #: the quantiles of :class:`DepthTable`
DEPTHS = (0, 13, 20, 26, 39, 52, 78, 104, 156, 208, 260, 313)  #: default bins of cards left


@dataclass(frozen=True)
class DepthTable:
    """The best expected gain on offer before each coup, by cards left to deal (bins ``[low, high)``):
    its quantiles (:data:`QUANTILES`), how often it is positive, its positive part's mean (what the
    perfect counter gains per coup there) and how often the odds were exact."""

    low: np.ndarray
    high: np.ndarray
    coups: np.ndarray
    quantiles: np.ndarray  #: (bins, len(QUANTILES))
    favourable: np.ndarray
    gain_per_coup: np.ndarray
    exact_share: np.ndarray

    def to_dict(self) -> dict[str, list]:
        return {
            "cards_left": [[int(a), int(b) - 1] for a, b in zip(self.low, self.high)],
            "coups": self.coups.tolist(),
            "quantiles": {f"q{q:g}": self.quantiles[:, i].tolist() for i, q in enumerate(QUANTILES)},
            "favourable": self.favourable.tolist(),
            "gain_per_coup": self.gain_per_coup.tolist(),
            "exact_share": self.exact_share.tolist(),
        }


def best_ev_by_depth(study: ShoeStudy, edges: tuple[int, ...] = DEPTHS) -> DepthTable:
    """Thorp and Walden's picture: the spread of the best expected gain widens as the shoe runs down."""
    left, best, method = study.coup_table()
    low, high = np.array(edges[:-1]), np.array(edges[1:])
    rows = []
    for a, b in zip(low, high):
        sel = (left >= a) & (left < b)
        x = best[sel]
        if x.size:
            exact = (method[sel] == EXACT).mean()
            rows.append((x.size, np.quantile(x, QUANTILES), (x > 0).mean(), np.maximum(x, 0).mean(), exact))
        else:
            rows.append((0, np.full(len(QUANTILES), np.nan), np.nan, np.nan, np.nan))
    coups, quantiles, favourable, gain, exact = zip(*rows)
    return DepthTable(
        low, high, np.array(coups), np.array(quantiles), np.array(favourable), np.array(gain), np.array(exact)
    )


def study_shoes(
    rules: RuleSet,
    shoes: int,
    seed: int,
    *,
    exact_box: int = EXACT_BOX,
    coupled_cards: int = COUPLED_CARDS,
    count: LinearCount | None = None,
) -> ShoeStudy:
    """Deal ``shoes`` shoes under ``rules`` (their cut card and dead cards: the stop rule) and play the
    perfect and the linear counter on them. The counters stake one unit: the table minimum must allow it.

    :param exact_box: the odds are exact for shoes of at most this many joint states
        (:func:`trente_env.odds.box_size`), else the fast approximations: coupled rows up to
        ``coupled_cards`` cards, with replacement beyond (see :func:`trente_env.odds.shoe_odds`).
    :param count: the linear count (default: derived from the effects of removal of ``rules``).
    """
    if shoes < 1:
        raise ValueError(f"the number of shoes must be at least 1, got {shoes}")
    if rules.table_min > 1:
        raise ValueError(f"the counters stake one unit, below the table minimum {rules.table_min:g}")
    if rules.rigged:
        raise ValueError("card counting is studied on real tables only, not on a rigged one (the positive control)")
    check_tiers(exact_box, coupled_cards)
    count = count or linear_count(effects_of_removal(rules))
    seeds = shuffle_seeds(np.random.default_rng(seed), shoes)
    room = (rules.n_cards - rules.burn) // 8 + 2
    records = StudyRecords(
        *(np.zeros(shoes) for _ in range(6)),
        coups=np.zeros(shoes, np.int64),
        left=np.zeros((shoes, room), np.int16),
        best_ev=np.zeros((shoes, room)),
        method=np.zeros((shoes, room), np.int8),
    )
    played = StudyShoes(seeds, full_counts(rules.decks), max(exact_box, 1), coupled_cards, count.base, count.tags)
    chunks = np.linspace(0, shoes, min(shoes, 64 * numba.get_num_threads()) + 1).astype(np.int64)
    model = nodes().model()
    start = time.perf_counter()
    study_chunks(chunks, played, table_rules(rules), bet_rules(rules), model[0], model[1:], records)
    seconds = time.perf_counter() - start
    return ShoeStudy(rules, rules.dead_cards, seed, exact_box, coupled_cards, *records, seconds)


@dataclass(frozen=True)
class ApproximationError:
    """The fast path against the exact odds on shoes dealt down to ``cards_left`` cards: the largest
    and the root-mean-square error of P(refait), P(après), the colour edge and the best expected gain."""

    cards_left: int
    samples: int
    max_error: dict[str, float]
    rms_error: dict[str, float]


def approximation_error(
    rules: RuleSet, cards_left: int, samples: int, seed: int, *, coupled_cards: int = COUPLED_CARDS
) -> ApproximationError:
    """Compare :func:`~trente_env.odds.approximate_odds` with :func:`~trente_env.odds.exact_odds`
    on ``samples`` shoes shuffled by the dealer, each cut ``cards_left`` cards before its end (seconds
    per sample for deep shoes)."""
    if not 0 < cards_left <= rules.n_cards:
        raise ValueError(f"cards left must be between 1 and {rules.n_cards}, got {cards_left}")
    seeds = shuffle_seeds(np.random.default_rng(seed), samples)
    errors = []
    for s in seeds:
        cards = new_shoe(rules.decks)
        shuffle(cards, s)
        counts = np.bincount(_KIND[cards[rules.n_cards - cards_left :]], minlength=2 * N_VALUES)
        pair = [exact_odds(counts), approximate_odds(counts, coupled_cards=coupled_cards)]
        best = [box_values(o, rules).best[2] for o in pair]
        errors.append(
            [
                pair[1].p_refait - pair[0].p_refait,
                pair[1].p_apres - pair[0].p_apres,
                pair[1].couleur_edge - pair[0].couleur_edge,
                best[1] - best[0],
            ]
        )
    e = np.array(errors)
    names = ("refait", "apres", "colour_edge", "best_ev")
    return ApproximationError(
        cards_left,
        samples,
        dict(zip(names, np.abs(e).max(0).tolist())),
        dict(zip(names, np.sqrt((e**2).mean(0)).tolist())),
    )

"""Card counting over dealt shoes: what a player who watches every card could win.

Shoes are shuffled by the project's dealer (:func:`~trente_env.dealer.shuffle` with the seeds of
:func:`~trente_env.dealer.shuffle_seeds`, as :func:`~trente_env.dealer.deal_coups` does) and dealt
coup by coup with its :func:`~trente_env.dealer.deal_next`. Before each coup two players look at the
unseen cards:

* the **perfect counter** knows the odds of the next coup from the unseen cards
  (:func:`trente_env.counting.shoe_odds`: exact for a short shoe, else the fast approximation) and
  stakes one unit on the best box, insured if that is better, only when its expected gain is positive;
* the **linear counter** estimates the expected gains with a linear count
  (:class:`~trente_env.removal.LinearCount`) and does the same with its estimates.

Every stake is settled by :func:`~trente_env.settle.settle_box` (prisoners included). A prisoner
still waiting when the shoe is reshuffled is counted at its value for a fresh shoe
(:func:`~trente_env.advantage.fresh_prisoner`): each shoe's result is its own.

For each shoe the study keeps the expected gain of the stakes made (the sum of their expected gains,
by the same odds), the realised gain, and for each coup the cards left and the best expected gain on
offer. **Stop rules**: the rules' cut card, ``cut_card=0`` (the ``exhaustion`` preset) deals to the end,
and ``dead_cards`` keeps the last cards of the shoe out of play (a casino's countermeasure).

**Dead cards.** The last ``dead_cards`` cards of the shuffled shoe are never dealt: the shoe is dealt
from its first ``n_cards - dead_cards`` cards with the cut card ``max(cut_card - dead_cards, 0)`` cards
before their end (so the cut card keeps its place counted from the real end), and a coup that needs
more cards than that is void (every bet returned, prisoners wait) and the shoe is reshuffled, as when
a shoe runs out today. The counters never see the dead cards: they count among the unseen cards, with
the burnt ones, and ``dead = burn + dead_cards`` of the unseen cards can never be dealt. The number is
a parameter of :func:`study_shoes`, defaulting to the rules' ``dead_cards`` field once
:class:`~trente_env.rules.RuleSet` has one.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numba
import numpy as np

from trente_env.advantage import EV, EV_INSURED, PRISONER, box_values_into, fresh_prisoner, odds_summary
from trente_env.cards import CARD_BLACK, CARD_VALUE, new_shoe
from trente_env.counting import (
    COUPLED_CARDS,
    EXACT,
    EXACT_BOX,
    N_OUT,
    N_VALUES,
    check_tiers,
    evaluate_into,
    full_counts,
    nodes,
)
from trente_env.coup import decide
from trente_env.dealer import deal_next, shuffle, shuffle_seeds
from trente_env.removal import LinearCount, effects_of_removal, linear_count
from trente_env.rules import RuleSet
from trente_env.settle import rule_codes, settle_box

_decide = numba.njit(cache=True)(decide)
_settle_box = numba.njit(cache=True)(settle_box)
_KIND = np.array([(0 if CARD_BLACK[c] else N_VALUES) + CARD_VALUE[c] - 1 for c in range(52)], dtype=np.int64)
_BLACK = CARD_BLACK.copy()


def check_dead_cards(rules: RuleSet, dead_cards: int) -> int:
    """Validate a number of dead cards for ``rules``; one-line :class:`ValueError` otherwise."""
    try:
        whole = int(dead_cards)
    except (TypeError, ValueError):
        whole = -1
    if isinstance(dead_cards, bool) or whole != dead_cards or whole < 0:
        raise ValueError(f"the number of dead cards must be a whole number >= 0, got {dead_cards!r}")
    dead_cards = whole
    if rules.burn + max(rules.cut_card, dead_cards) >= rules.n_cards:
        raise ValueError(
            f"{dead_cards} dead cards and {rules.burn} burnt leave no cards to deal from a {rules.n_cards}-card shoe"
        )
    return dead_cards


@numba.njit(cache=True)
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


def bet_rules(rules: RuleSet) -> tuple:
    """The rule options that :func:`perfect_bet` and :func:`best_bet` read, for compiled code:
    (open boxes, insurance, refait rule, second refait, spares Couleur, insurance rate, and the values
    of a prisoner in first and second prison in a fresh shoe)."""
    refait_rule, second, spares, rate = rule_codes(rules)
    return (len(rules.boxes), rules.insurance, refait_rule, second, spares, rate, *fresh_prisoner(rules))


@numba.njit(cache=True)
def perfect_bet(counts, dead, exact_box, coupled_cards, model, bet_rules, pn, joint, out, values):
    """The perfect counter's view of the next coup from the unseen cards ``counts`` (20, ``dead`` of
    them never dealt): the odds (:func:`~trente_env.counting.evaluate_into`, into ``out``), the
    (4, 3) table of :func:`~trente_env.advantage.box_values_into` into ``values``, and the best bet.

    Returns (method, box, insured, expected gain): stake on ``box`` only if the gain is positive.
    """
    n_boxes, insurance, refait_rule, second, spares, rate, fresh1, fresh2 = bet_rules
    method = evaluate_into(counts, dead, exact_box, coupled_cards, model, pn, joint, out)
    refait, apres, void, decided, edge = odds_summary(out, counts)
    box_values_into(
        refait, apres, void, decided, edge, refait_rule, second, spares, insurance, rate, fresh1, fresh2, values
    )
    box, insured, best = best_bet(values, n_boxes, insurance)
    return method, box, insured, best


@numba.njit(cache=True)
def linear_estimate(seen, unseen, cards, base, tags, estimate):
    """A linear count's (4, 2) estimated expected gains into ``estimate`` from the ``seen`` cards (20
    counts), ``unseen`` cards left of a full shoe of ``cards``: see :class:`~trente_env.removal.LinearCount`."""
    scale = (cards - 1.0) / unseen if unseen > 0 else 0.0
    for b in range(4):
        for i in range(2):
            x = 0.0
            for kind in range(2 * N_VALUES):
                x += seen[kind] * tags[kind, b, i]
            estimate[b, i] = base[b, i] + scale * x


@numba.njit(cache=True)
def _settle_player(box, insured, stake, values, prison, result, couleur, refait_rule, second, spares, rate):
    """Settle one player's stake (on ``box``, 0 for none) and prisoners (``prison``, (4, 2),
    updated) on the coup; returns the money that came back less the stake and premium paid."""
    cash = 0.0
    for b in range(4):
        s = stake if b == box else 0.0
        if s == 0.0 and prison[b, 0] == 0.0 and prison[b, 1] == 0.0:
            continue
        ins = insured and s > 0.0
        to_prison = values[b, PRISONER] > 0.5  # the choice rule: prison when it is worth more than half
        back, p1, p2, _ = _settle_box(
            b, s, ins, prison[b, 0], prison[b, 1], to_prison, result, couleur, refait_rule, second, spares, rate
        )
        cash += back - s - (rate * s if ins else 0.0)
        prison[b, 0] = p1
        prison[b, 1] = p2
    return cash


@numba.njit(cache=True, parallel=True)
def _study(
    seeds, base, full, burn, cut_card, dead_cards, exact_box, coupled_cards, pre_counts, pre_size, pre_total,
    pre_child, pre_n_values, pre_values, node_n, node_ref, wr_corr, wr_removal, cp_corr, cp_removal, rules_for_bets,
    lin_base, lin_tags, chunks,
    expected, realised, bets, lin_expected, lin_realised, lin_bets, coups, left, best_ev, method,
):  # fmt: skip
    """Play shoe ``s`` for every ``s`` (threads take the shoes ``chunks[c]..chunks[c+1]-1``); per-coup
    records go to row ``s`` of ``left``, ``best_ev`` and ``method``. The model of
    :func:`~trente_env.counting.evaluate_into` comes in pieces (a parallel kernel takes no nested tuple)."""
    n_boxes, insurance, refait_rule, second, spares, rate, fresh1, fresh2 = rules_for_bets
    n_cards = base.size
    deal_to = n_cards - dead_cards
    cut = max(cut_card - dead_cards, 0)
    for c in numba.prange(chunks.size - 1):
        prefixes = (pre_counts, pre_size, pre_total, pre_child, pre_n_values, pre_values)
        model = (prefixes, node_n, node_ref, wr_corr, wr_removal, cp_corr, cp_removal)
        pn = np.empty(exact_box)
        joint = np.empty(exact_box * 10)
        out = np.empty(N_OUT)
        values = np.empty((4, 3))
        cards = np.empty(n_cards, np.uint8)
        counts = np.empty(2 * N_VALUES, np.int64)
        seen = np.zeros(2 * N_VALUES, np.int64)
        prison = np.zeros((4, 2))
        lin_prison = np.zeros((4, 2))
        estimate = np.empty((4, 2))
        for s in range(chunks[c], chunks[c + 1]):
            cards[:] = base
            shuffle(cards, seeds[s])
            dealable = cards[:deal_to]
            pos = burn
            seen[:] = 0
            prison[:, :] = 0.0
            lin_prison[:, :] = 0.0
            k = 0
            while True:
                unseen = 0
                for i in range(2 * N_VALUES):
                    counts[i] = full[i] - seen[i]
                    unseen += counts[i]
                how, box, insured, best = perfect_bet(
                    counts, burn + dead_cards, exact_box, coupled_cards, model, rules_for_bets, pn, joint, out, values
                )
                left[s, k] = deal_to - pos
                best_ev[s, k] = best
                method[s, k] = how
                stake = 0.0
                if best > 0.0:
                    stake = 1.0
                    expected[s] += best
                    bets[s] += 1
                linear_estimate(seen, unseen, n_cards, lin_base, lin_tags, estimate)
                lin_box, lin_insured, lin_best = best_bet(estimate, n_boxes, insurance)
                lin_stake = 0.0
                if lin_best > 0.0:
                    lin_stake = 1.0
                    lin_expected[s] += values[lin_box, EV_INSURED if lin_insured else EV]
                    lin_bets[s] += 1
                # the coup
                noir, rouge, middle, end, reshuffle = deal_next(dealable, pos, cut)
                first_black = noir > 0 and _BLACK[cards[pos]]
                result, couleur = _decide(noir, rouge, first_black)
                realised[s] += _settle_player(
                    box, insured, stake, values, prison, result, couleur, refait_rule, second, spares, rate
                )
                lin_realised[s] += _settle_player(
                    lin_box, lin_insured, lin_stake, values, lin_prison, result, couleur, refait_rule, second, spares,
                    rate,
                )  # fmt: skip
                for i in range(pos, end):
                    seen[_KIND[cards[i]]] += 1
                pos = end
                k += 1
                if reshuffle:
                    break
            coups[s] = k
            for b in range(4):  # prisoners left when the shoe is reshuffled: their value in a fresh shoe
                realised[s] += prison[b, 0] * fresh1 + prison[b, 1] * fresh2
                lin_realised[s] += lin_prison[b, 0] * fresh1 + lin_prison[b, 1] * fresh2


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% confidence interval (normal approximation over independent shoes)."""

    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, x: np.ndarray) -> Interval:
        x = np.asarray(x, dtype=float)
        half = 1.959964 * x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else np.inf
        return cls(float(x.mean()), float(x.mean() - half), float(x.mean() + half))


@dataclass(frozen=True)
class ShoeStudy:
    """The perfect and the linear counter over the same dealt shoes (see the module's notes).

    Per shoe: ``expected`` (sum of the expected gains of the perfect counter's stakes), ``realised``,
    ``bets``; the same with ``linear_``. Per coup (row = shoe, ``coups[s]`` columns used): cards left
    to deal before it, the best expected gain on offer, and how its odds were computed (the codes of
    :data:`trente_env.counting.METHODS`).
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
        a, b = self.linear_expected, self.expected
        ratio = a.mean() / b.mean() if b.mean() > 0 else np.nan
        resid = a - ratio * b
        half = 1.959964 * resid.std(ddof=1) / np.sqrt(a.size) / b.mean() if b.mean() > 0 else np.nan
        return Interval(float(ratio), float(ratio - half), float(ratio + half))

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
                "realised_minus_expected": [float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(diff.size))],
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
    dead_cards: int | None = None,
    exact_box: int = EXACT_BOX,
    coupled_cards: int = COUPLED_CARDS,
    count: LinearCount | None = None,
) -> ShoeStudy:
    """Deal ``shoes`` shoes under ``rules`` and play the perfect and the linear counter on them.

    :param dead_cards: the last cards of the shoe that are never dealt: a coup that needs one of them
        is void (every bet returned) and the shoe is reshuffled; the counters never see them. Default:
        the rules' own ``dead_cards`` if they have one, else 0.
    :param exact_box: the odds are exact for shoes of at most this many joint states
        (:func:`trente_env.counting.box_size`), else the fast approximations: coupled rows up to
        ``coupled_cards`` cards, with replacement beyond (see :func:`trente_env.counting.shoe_odds`).
    :param count: the linear count (default: derived from the effects of removal of ``rules``).
    """
    if shoes < 1:
        raise ValueError(f"the number of shoes must be at least 1, got {shoes}")
    if dead_cards is None:
        dead_cards = int(getattr(rules, "dead_cards", 0))
    dead_cards = check_dead_cards(rules, dead_cards)
    check_tiers(exact_box, coupled_cards)
    count = count or linear_count(effects_of_removal(rules))
    seeds = shuffle_seeds(np.random.default_rng(seed), shoes)
    room = (rules.n_cards - rules.burn) // 8 + 2
    per_shoe = [np.zeros(shoes) for _ in range(6)]
    coups = np.zeros(shoes, np.int64)
    left = np.zeros((shoes, room), np.int16)
    best_ev = np.zeros((shoes, room))
    method = np.zeros((shoes, room), np.int8)
    chunks = np.linspace(0, shoes, min(shoes, 64 * numba.get_num_threads()) + 1).astype(np.int64)
    model = nodes().model()
    start = time.perf_counter()
    _study(
        seeds, new_shoe(rules.decks), full_counts(rules.decks), rules.burn, rules.cut_card, dead_cards,
        max(exact_box, 1), coupled_cards, *model[0], *model[1:], bet_rules(rules), count.base, count.tags, chunks,
        *per_shoe, coups, left, best_ev, method,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    return ShoeStudy(
        rules, dead_cards, seed, exact_box, coupled_cards, *per_shoe, coups, left, best_ev, method, seconds
    )


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
    """Compare :func:`~trente_env.counting.approximate_odds` with :func:`~trente_env.counting.exact_odds`
    on ``samples`` shoes shuffled by the dealer, each cut ``cards_left`` cards before its end (seconds
    per sample for deep shoes)."""
    from trente_env.advantage import box_values
    from trente_env.counting import approximate_odds, exact_odds

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

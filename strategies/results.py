"""What a policy's sessions did: :class:`SessionResults`, the one type every play path returns
(:func:`strategies.runner.play`, :func:`~strategies.runner.play_on_env`,
:func:`~strategies.sessions.play_compiled`), with the two numbers every command sets side by side:
the return per unit staked with its interval (:meth:`SessionResults.return_per_unit`) and what exact
odds expect of the very stakes placed (:meth:`SessionResults.expected_return`: given the cards unseen
when each was placed, where the play path computed it, else the stake-weighted edge). The tournament,
``evaluate`` and the fallacy companion read them here, so the same sessions give the same numbers
everywhere.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from trente_env import estimate
from trente_env.estimate import RatioEstimate
from trente_env.odds import first_coup, stake_weighted_edge
from trente_env.rules import RuleSet

#: The per-session results, one array each (one entry per session).
SESSION_FIELDS = (
    "net",
    "staked",
    "square_staked",
    "final_bankroll",
    "coups",
    "ahead",
    "ruined",
    "walked",
    "max_drawdown",
    "longest_losing_run",
    "table_max_hits",
    "bankroll_hits",
)
#: Every array of a :class:`SessionResults`: the per-session ones and the totals over sessions.
RESULT_ARRAYS = (*SESSION_FIELDS, "box_stakes", "rig_staked", "trajectories", "exact_gain", "exact_staked")


@dataclass(frozen=True, eq=False)
class SessionResults(Mapping[str, Any]):
    """The sessions of one policy on one table: per session (arrays of one entry each), then totals.

    It reads as a mapping of its arrays too (``results["net"]``: the names of :data:`RESULT_ARRAYS`),
    which is how the tournament's block files store it.
    """

    net: np.ndarray  #: the net result, units, once every prisoner settled
    staked: np.ndarray  #: the new stakes placed, units (a prisoner is not staked again)
    square_staked: np.ndarray  #: the sum of the squares of the new stakes (the stakes' own noise)
    final_bankroll: np.ndarray  #: units
    coups: np.ndarray  #: coups played
    ahead: np.ndarray  #: bool: the net result is positive
    ruined: np.ndarray  #: bool: the final bankroll is below the table minimum
    walked: np.ndarray  #: bool: the system walked away (stop-win, stop-loss)
    max_drawdown: np.ndarray  #: units below the session's peak, at worst
    longest_losing_run: np.ndarray  #: coups that lost money in a row, at most
    table_max_hits: np.ndarray  #: stakes cut to the table maximum
    bankroll_hits: np.ndarray  #: stakes cut to the money in hand
    box_stakes: np.ndarray  #: (2, 4) uninsured and insured new stakes per box, summed over sessions
    rig_staked: Any  #: Noir units staked right after a coup won by Noir, summed (a rigged table pays them apart)
    trajectories: np.ndarray  #: (kept sessions, coups + 1) float32: the bankroll after every coup
    #: per session, the expected gain of its new stakes given the cards unseen when each was placed
    #: (:class:`strategies.runner.ExactGains`; 0 where it was not computed)
    exact_gain: np.ndarray
    exact_staked: Any  #: the units whose expected gain ``exact_gain`` holds, summed (all of them, or 0)
    rules: RuleSet  #: the table's rules: what the exact expectation is computed at
    to_prison: bool | None = None  #: under the choice rule, what the policy does on a refait (None: unknown)

    @classmethod
    def of(cls, arrays: Mapping[str, Any], rules: RuleSet, to_prison: bool | None = None) -> SessionResults:
        """The results of the arrays ``arrays`` (the names of :data:`RESULT_ARRAYS`, as a block file
        or a tournament's collected sessions hold them) played at ``rules``."""
        return cls(**{name: arrays[name] for name in RESULT_ARRAYS}, rules=rules, to_prison=to_prison)

    def __getitem__(self, name: str) -> Any:
        if name not in RESULT_ARRAYS:
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(RESULT_ARRAYS)

    def __len__(self) -> int:
        return len(RESULT_ARRAYS)

    @property
    def n(self) -> int:
        """The sessions."""
        return int(self.net.size)

    def session_estimate(self, level: float = 0.95) -> RatioEstimate:
        """The return per unit staked, ``sum(net) / sum(staked)``, with the delta-method interval over
        the sessions alone (:func:`trente_env.estimate.ratio_estimate`)."""
        return estimate.ratio_estimate(self.net, self.staked, level)

    def stake_noise(self) -> float:
        """The standard error of the return per unit staked that the stakes themselves imply
        (:func:`trente_env.estimate.stake_noise`; a stake is decided on its coup with the first
        coup's probability, docs/rules.md#reference-numbers)."""
        odds = first_coup(self.rules.decks)
        decided = odds.p_noir + odds.p_rouge
        return estimate.stake_noise(float(np.sum(self.square_staked)), float(np.sum(self.staked)), decided)

    def return_per_unit(self, level: float = 0.95) -> RatioEstimate:
        """The return per unit staked with the lab's one interval: the sessions' (delta method),
        never narrower than the noise the stakes imply (:func:`trente_env.estimate.honest_estimate`)."""
        return estimate.honest_estimate(self.session_estimate(level), self.stake_noise())

    def edge(self) -> float:
        """The exact house edge of the stakes placed, a fraction of the units staked; the Noir edge
        when nothing was staked. Where :attr:`exact_gain` was computed (a policy that reads the
        shoe): minus the expected gain of every stake given the cards
        unseen when it was placed, over the units staked, what a counter's favourable stakes truly
        expect. Otherwise :func:`trente_env.odds.stake_weighted_edge`: each box's edge at the first coup
        of a full shoe weighted by its units, the same in expectation for a policy blind to the cards
        (``tests/test_exact_gains.py``)."""
        exact = float(self.exact_staked)
        if exact > 0:
            return -float(np.sum(self.exact_gain)) / exact
        return stake_weighted_edge(self.rules, self.box_stakes, self.to_prison, self.rig_staked)

    def expected_return(self) -> float:
        """What exact odds expect per unit staked for these stakes: minus :meth:`edge`; 0 when
        nothing was staked."""
        return -self.edge() if float(np.sum(self.box_stakes)) > 0 else 0.0


__all__ = ["RESULT_ARRAYS", "SESSION_FIELDS", "SessionResults"]

"""Every play path returns one typed result, :class:`strategies.results.SessionResults`, whose return per
unit staked and exact expectation are the estimators' and the odds' own numbers."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from strategies.registry import make_strategy
from strategies.results import RESULT_ARRAYS, SESSION_FIELDS, SessionResults
from strategies.runner import play, play_on_env, session_seeds
from strategies.sessions import play_compiled
from trente_env.estimate import honest_return, ratio_estimate
from trente_env.odds import first_coup, stake_weighted_edge
from trente_env.rules import get_rules

SPECS = ("martingale", "fibonacci:to_prison=true", "paroli:box=inverse")


def _played(preset: str = "choice") -> tuple[object, list[object], list[SessionResults]]:
    rules = get_rules(preset)
    policies = [make_strategy(spec, rules) for spec in SPECS]
    return rules, policies, play(policies, rules, 1000.0, 30, session_seeds(4, 25), keep=3)


def test_the_arrays_come_first_and_read_as_a_mapping() -> None:
    names = tuple(f.name for f in dataclasses.fields(SessionResults))
    assert names[: len(RESULT_ARRAYS)] == RESULT_ARRAYS and RESULT_ARRAYS[: len(SESSION_FIELDS)] == SESSION_FIELDS
    _, _, results = _played()
    r = results[0]
    assert set(r) == set(RESULT_ARRAYS) and len(r) == len(RESULT_ARRAYS)
    assert r["net"] is r.net and r.get("rig_staked") is r.rig_staked
    with pytest.raises(KeyError):
        r["rules"]  # noqa: B018
    again = SessionResults.of(dict(r), r.rules, r.to_prison)
    assert all(np.array_equal(again[k], r[k]) for k in RESULT_ARRAYS) and again.edge() == r.edge()


def test_every_play_path_returns_the_same_typed_results() -> None:
    rules, policies, results = _played()
    compiled = play_compiled(policies, rules, 1000.0, 30, session_seeds(4, 25), keep=3)
    on_env = [play_on_env(p, rules, 1000.0, 30, session_seeds(4, 25), keep=3) for p in policies]
    for policy, *paths in zip(policies, results, compiled, on_env, strict=True):
        assert all(type(r) is SessionResults for r in paths)
        assert all(r.rules == rules and r.to_prison == getattr(policy, "to_prison", None) for r in paths)
        for name in RESULT_ARRAYS:
            assert np.array_equal(paths[0][name], paths[1][name]) and np.array_equal(paths[0][name], paths[2][name])


def test_the_return_per_unit_and_the_edge_are_the_estimators_and_the_odds() -> None:
    rules, policies, results = _played()
    odds = first_coup(rules.decks)
    for policy, r in zip(policies, results, strict=True):
        assert r.n == 25
        assert r.session_estimate() == ratio_estimate(r.net, r.staked)
        assert r.return_per_unit() == honest_return(r.net, r.staked, r.square_staked, odds.p_noir + odds.p_rouge)
        edge = stake_weighted_edge(rules, r.box_stakes, getattr(policy, "to_prison", None), r.rig_staked)
        assert r.edge() == edge and r.expected_return() == -edge


def test_nothing_staked_expects_nothing() -> None:
    rules = get_rules("classic")
    (r,) = play([make_strategy("never", rules)], rules, 100.0, 5, session_seeds(0, 3))
    assert r.expected_return() == 0.0 and r.edge() > 0  # the Noir edge stands for an empty stake
    assert np.isnan(r.return_per_unit().ratio)


def test_a_rigged_tables_results_carry_what_its_bonus_needs() -> None:
    rules = get_rules("rigged-classic")
    (r,) = play([make_strategy("flat", rules)], rules, 1000.0, 40, session_seeds(2, 10))
    assert r.rig_staked > 0
    assert r.edge() == stake_weighted_edge(rules, r.box_stakes, None, r.rig_staked)
    fair = dataclasses.replace(r, rules=get_rules("classic"))  # the same stakes judged at a fair table
    assert fair.edge() == stake_weighted_edge(fair.rules, r.box_stakes)

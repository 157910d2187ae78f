"""The compiled session loop gives exactly the numbers of the vector env played by each strategy's ``act``.

The tournament plays built-in systems on :mod:`strategies.sessions` and everything else (models,
plugins) on the native vector env through :func:`strategies.runner.play_on_env`. Both must
agree to the last chip: every per-session figure, the stakes per box and the trajectories. Small
bankrolls and a low table maximum make limits, ruin, prisoners, walk-aways and settling after the
end happen in these few sessions.
"""

from __future__ import annotations

import numpy as np
import pytest

from strategies import LINEUP, make_strategy
from strategies.progressions import Progression
from strategies.runner import play_on_env, session_seed
from strategies.sessions import is_compiled, play_compiled
from trente_env.rules import get_rules

VARIANTS = (
    "martingale:refait=wait,stop_loss=30",
    "labouchere:on_limit=cap,refait=wait,line=1-1-2",
    "oscars-grind:stop_win=12,goal=2",
    "paroli:refait=wait,box=inverse",
    "dalembert:on_limit=cap,base=2",
    "random:p_bet=0.6,boxes=noir-rouge-couleur-inverse,seed=4",
)


def _specs(preset: str) -> list[str]:
    specs = [*LINEUP, *VARIANTS]
    rules = get_rules(preset)
    if rules.insurance:
        specs.append("martingale:insure=true,box=couleur")
    if rules.refait.value == "choice":
        specs.append("fibonacci:to_prison=true")
    return specs


@pytest.mark.parametrize("preset", ["classic", "partage", "choice", "lenient-couleur", "second-prison", "family"])
def test_compiled_sessions_equal_the_vector_env(preset: str) -> None:
    rules = get_rules(preset, table_max=40)
    policies = [make_strategy(spec, rules) for spec in _specs(preset)]
    assert all(is_compiled(p) for p in policies)
    seeds = [session_seed(11, i) for i in range(60)]
    fast = play_compiled(policies, rules, 70.0, 60, seeds, keep=25, threads=2)
    for spec, policy, got in zip(_specs(preset), policies, fast):
        want = play_on_env(policy, rules, 70.0, 60, seeds, keep=25)
        assert set(got) == set(want)
        for key in want:
            assert np.array_equal(got[key], want[key]), (spec, key)
    # the sessions did what these tables are for: ruin, limits, walk-aways and prisoners at the end
    ruined = sum(r["ruined"].sum() for r in fast)
    assert ruined > 0 and sum(r["table_max_hits"].sum() for r in fast) > 0
    assert sum(r["walked"].sum() for r in fast) > 0


def test_running_out_of_shuffle_seeds_changes_nothing() -> None:
    rules = get_rules("classic", table_max=40)
    policies = [make_strategy(spec, rules) for spec in ("martingale", "labouchere", "random")]
    seeds = [session_seed(2, i) for i in range(30)]
    plenty = play_compiled(policies, rules, 100.0, 80, seeds, keep=30)
    starved = play_compiled(policies, rules, 100.0, 80, seeds, keep=30, shuffles=1)  # every session replayed
    for a, b in zip(plenty, starved):
        for key in a:
            assert np.array_equal(a[key], b[key]), key


def test_threads_do_not_change_the_numbers() -> None:
    rules = get_rules("classic")
    policies = [make_strategy(spec, rules) for spec in LINEUP]
    seeds = [session_seed(5, i) for i in range(40)]
    one = play_compiled(policies, rules, 1000.0, 50, seeds, keep=10, threads=1)
    two = play_compiled(policies, rules, 1000.0, 50, seeds, keep=10, threads=2)
    for a, b in zip(one, two):
        for key in a:
            assert np.array_equal(a[key], b[key]), key


def test_models_and_python_hooks_are_not_compiled() -> None:
    class Triple(Progression):  # a plugin's own rule, in Python
        def _update(self, state, win, loss, amount):  # noqa: ANN001
            state.memory["units"][loss] *= 3

    assert is_compiled(make_strategy("martingale"))
    assert not is_compiled(Triple())

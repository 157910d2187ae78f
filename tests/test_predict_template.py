"""SB3's ``predict`` is written once (``strategies.policy.Acting``), a template over each policy's
``act``: every betting system, every counter and a policy adapted to another action form inherit it."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import trente_env  # noqa: F401  (registers the envs)
from strategies import COUNTERS, STRATEGIES, make_strategy
from strategies.base import SessionState
from strategies.policy import Acting, in_form


@pytest.mark.parametrize("cls", [*STRATEGIES.values(), *COUNTERS.values()], ids=lambda c: c.__name__)
def test_no_policy_writes_its_own_predict(cls: type) -> None:
    assert issubclass(cls, Acting) and cls.predict is Acting.predict


def test_predict_is_act_under_sb3_names_and_passes_the_memory_on() -> None:
    venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=4)
    obs, _ = venv.reset(seed=3)
    twin, system = make_strategy("martingale:box=rouge"), make_strategy("martingale:box=rouge")
    state = twin_state = None
    for _ in range(30):
        acted, twin_state = twin.act(obs, twin_state)
        predicted, state = system.predict(obs, state, deterministic=True)
        assert isinstance(state, SessionState)
        np.testing.assert_array_equal(predicted, acted)
        obs, *_ = venv.step(acted)
    fresh, _ = system.predict(obs, "not a memory")  # what SB3 may pass that is not one: start afresh
    np.testing.assert_array_equal(fresh, make_strategy("martingale:box=rouge").act(obs)[0])


def test_a_policy_in_another_form_predicts_in_that_form() -> None:
    venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=3, action_form="discrete")
    obs, _ = venv.reset(seed=1)
    policy = in_form(make_strategy("flat:box=noir"), venv)
    assert type(policy).predict is Acting.predict
    np.testing.assert_array_equal(policy.predict(obs)[0], policy.act(obs)[0])

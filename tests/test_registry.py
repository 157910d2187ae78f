"""The built-in systems register themselves, every one is in the default line-up, and every player is a
Policy: a betting system, a plugin and a trained model alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from strategies import LINEUP, STRATEGIES, Policy, make_strategy, register
from strategies.base import Strategy
from strategies.kernel import Kind
from strategies.model import ModelPolicy
from strategies.patterns import Column
from strategies.progressions import Progression
from strategies.registry import parse_spec


def test_the_catalogue_lists_the_registered_systems_in_order() -> None:
    assert list(STRATEGIES) == [
        "flat", "martingale", "grand-martingale", "reverse-martingale", "paroli", "dalembert", "contra-dalembert",
        "fibonacci", "labouchere", "oscars-grind", "1-3-2-6", "streak", "anti-streak", "random", "never",
    ]  # fmt: skip
    assert all(cls.name == name for name, cls in STRATEGIES.items())


def test_every_built_in_system_plays_in_the_default_line_up_on_the_kernel() -> None:
    lined_up = {parse_spec(spec)[0] for spec in LINEUP}
    assert lined_up == set(STRATEGIES)
    assert all(cls.kind != Kind.HOOKS for cls in STRATEGIES.values())


def test_register_refuses_a_second_system_of_the_same_name_and_what_is_not_a_system() -> None:
    @dataclass(frozen=True)
    class Impostor(Progression):
        name: ClassVar[str] = "martingale"

    with pytest.raises(ValueError, match="two built-in systems are named 'martingale'"):
        register(Impostor)
    assert STRATEGIES["martingale"] is not Impostor
    assert register(STRATEGIES["flat"]) is STRATEGIES["flat"]  # the same class again changes nothing
    with pytest.raises(TypeError):
        register(int)
    with pytest.raises(TypeError):
        register(Strategy)  # no name


def test_the_noir_rouge_column_is_still_written_colour() -> None:
    assert make_strategy("streak:column=colour").column is Column.NOIR_ROUGE
    assert make_strategy("streak:column=couleur").column is Column.COULEUR_INVERSE
    assert make_strategy("anti-streak").spec() == "anti-streak"  # the default column stays implicit
    assert make_strategy("streak:column=couleur").spec() == "streak:column=couleur"


class _NoModel:
    """Stands in for an SB3 model: ModelPolicy's methods exist whatever the model."""


class _Hooks(Progression):
    """A plugin written as Python hooks."""

    name = "hooks-plugin"


class _ActOnly:
    def act(self, observation, state=None, episode_start=None):  # noqa: ANN001, ANN201
        return np.zeros((1, 12), dtype=np.int64), state


def test_strategies_plugins_and_models_are_policies() -> None:
    assert isinstance(make_strategy("martingale"), Policy)
    assert isinstance(_Hooks(), Policy)
    assert isinstance(ModelPolicy.of(_NoModel(), "ppo"), Policy)
    assert not isinstance(_ActOnly(), Policy)  # SB3's predict is part of the protocol


def test_act_and_predict_answer_alike_for_a_strategy() -> None:
    import gymnasium as gym

    import trente_env  # noqa: F401  (registers the ids)

    venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=4)
    obs, _ = venv.reset(seed=1)
    policy: Policy = make_strategy("martingale:base=2")
    acted, _ = policy.act(obs)
    predicted, _ = policy.predict(obs)
    assert acted.shape == (4, 12) and acted[:, 0].tolist() == [2, 2, 2, 2]
    np.testing.assert_array_equal(acted, predicted)

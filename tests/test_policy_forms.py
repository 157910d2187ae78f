"""A policy plays every action form the env offers (:func:`strategies.policy.in_form`): exact for
the bets the discrete form can express, and documented rounding otherwise."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from strategies import in_form, make_strategy
from strategies.policy import discrete_actions
from trente_env.layout import Layout
from trente_env.rules import get_rules
from trente_env.vector import TrenteEtQuaranteVectorEnv


@pytest.mark.parametrize(
    ("preset", "levels"), [("classic", (1, 5, 25, 100)), ("main-bets", (2, 10)), ("partage", (1,))]
)
def test_every_discrete_action_converts_back_to_itself(preset: str, levels: tuple) -> None:
    layout = Layout(get_rules(preset), "discrete", "dict", 10, False, levels)
    every = np.arange(layout.action_table.shape[0])
    np.testing.assert_array_equal(discrete_actions(layout.action_table, layout), every)


def test_what_the_discrete_form_cannot_say_is_rounded_as_documented() -> None:
    layout = Layout(get_rules("classic"), "discrete", "dict", 10, False, (1, 5, 25, 100))
    rows = np.zeros((5, 12))
    rows[0, 0] = 3  # halfway between 1 and 5: the lower level
    rows[1, 1] = 4  # Rouge 4: the level 5
    rows[2, [0, 2]] = [2, 30]  # two boxes: the larger stake's box (Couleur), its nearest level (25)
    rows[3, 0], rows[3, 4] = 100, 1  # insured: the discrete form has no insurance, the stake stays
    # rows[4]: nothing staked, sits out
    levels = 4
    want = [1 + 0 * levels + 0, 1 + 1 * levels + 1, 1 + 2 * levels + 2, 1 + 0 * levels + 3, 0]
    np.testing.assert_array_equal(discrete_actions(rows, layout), want)


@pytest.mark.parametrize("spec", ["flat", "flat:box=couleur", "streak:k=2", "never"])
def test_a_system_the_discrete_form_can_express_plays_it_to_the_same_rewards(spec: str) -> None:
    # a one-unit stake on one box is a discrete action: both forms must give the same coups
    envs = {form: TrenteEtQuaranteVectorEnv(64, action_form=form) for form in ("full", "discrete")}
    policies = {form: in_form(make_strategy(spec), env) for form, env in envs.items()}
    obs = {form: env.reset(seed=3)[0] for form, env in envs.items()}
    state: dict = {"full": None, "discrete": None}
    for _ in range(150):
        rewards = {}
        for form, env in envs.items():
            actions, state[form] = policies[form].act(obs[form], state[form])
            assert actions.shape == ((64, 12) if form == "full" else (64,))
            obs[form], rewards[form], *_ = env.step(actions)
        np.testing.assert_array_equal(rewards["full"], rewards["discrete"])


def test_in_form_needs_a_trente_lab_env() -> None:
    with pytest.raises(TypeError, match="not a trente-lab environment"):
        in_form(make_strategy("flat"), object())


@pytest.mark.needs_rl
def test_sb3_evaluate_policy_scores_a_system_on_the_env_agents_train_on() -> None:
    from stable_baselines3.common.evaluation import evaluate_policy

    from experiments.rl.rig import parse_venue, sb3_env

    # the form `trente-lab train` uses: discrete actions, flat observations, SB3's VecEnv
    venv = sb3_env(parse_venue("classic"), 4, seed=0, action_form="discrete", observation="flat")
    flat = in_form(make_strategy("flat"), venv)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "not wrapped with a Monitor" warning: the env records its sessions
        rewards, lengths = evaluate_policy(flat, venv, n_eval_episodes=4, return_episode_rewards=True)
    assert len(rewards) == 4 and all(n > 0 for n in lengths)
    # one unit on Noir a coup: an episode's reward is a whole or half number of units per coup at most
    assert all(abs(r) <= n for r, n in zip(rewards, lengths))

"""A trained model in the tournament: its fast greedy play picks exactly what SB3's ``predict`` picks."""

from __future__ import annotations

import numpy as np
import pytest

from trente_env.vector import TrenteEtQuaranteVectorEnv

pytestmark = pytest.mark.needs_rl


def _observations(action_form: str, observation: str, tables: int = 64, coups: int = 40) -> list:
    """Observations met at real tables: ``tables`` sessions staking at random for ``coups`` coups (bankrolls,
    scoreboards and prisoners of every kind)."""
    venv = TrenteEtQuaranteVectorEnv(tables, action_form=action_form, observation=observation)
    venv.action_space.seed(0)
    obs, _ = venv.reset(seed=list(range(tables)))
    seen = [obs]
    for _ in range(coups):
        obs, *_ = venv.step(venv.action_space.sample())
        seen.append(obs)
    return seen


@pytest.mark.parametrize(
    ("algo", "action_form", "observation"),
    [
        ("ppo", "discrete", "flat"),
        ("ppo", "factored", "flat"),
        ("ppo", "full", "flat"),
        ("a2c", "full", "dict"),
        ("dqn", "discrete", "flat"),
    ],
)
def test_greedy_play_picks_what_sb3_predict_picks(algo: str, action_form: str, observation: str) -> None:
    import stable_baselines3 as sb3
    import torch

    from strategies.features import LogScaledFlat
    from strategies.model import ModelPolicy
    from strategies.model_file import ALGORITHMS
    from trente_env.wrappers import sb3_vec_env

    venv = sb3_vec_env(num_envs=2, seed=0, action_form=action_form, observation=observation)
    kwargs: dict = {"buffer_size": 1000} if algo == "dqn" else {}
    if observation == "flat":  # the input layer `trente-lab train` gives its models
        kwargs["policy_kwargs"] = {"features_extractor_class": LogScaledFlat}
    kind = "MultiInputPolicy" if observation == "dict" else "MlpPolicy"
    model = getattr(sb3, ALGORITHMS[algo][1])(kind, venv, seed=0, device="cpu", **kwargs)
    policy = ModelPolicy.of(model, algo)
    assert policy._greedy_network is not None  # the fast path is the one under test
    fresh = {name: value.clone() for name, value in model.policy.state_dict().items()}
    # Two networks: SB3's fresh one (its action layer starts near zero: logits almost tied, where a
    # different computation would break ties differently) and one with weights spread wide.
    for scale in (0.0, 3.0):
        noise = torch.Generator().manual_seed(1)
        with torch.no_grad():
            for name, value in model.policy.state_dict().items():
                if value.is_floating_point():
                    value.copy_(fresh[name] + scale * torch.randn(value.shape, generator=noise))
        chosen = []
        for obs in _observations(action_form, observation):
            expected, _ = model.predict(policy.model_observation(obs), deterministic=True)
            actions, _ = policy.act(obs)
            assert np.array_equal(actions, policy.full_actions(expected))
            chosen.append(actions)
        assert len(np.unique(np.concatenate(chosen), axis=0)) > 1  # the comparison is not of one constant bet

"""The shared codes and layouts agree with the environment's spaces."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import trente_env  # noqa: F401  (registers the ids)
from trente_env import codes
from trente_env.codes import Box, Result


@pytest.mark.parametrize("history", [1, 4, 10])
@pytest.mark.parametrize("observe_shoe", [False, True])
def test_flatten_is_gymnasiums_flatten_and_unflatten_its_inverse(history, observe_shoe) -> None:
    envs = gym.make_vec("TrenteEtQuarante-v0", num_envs=5, history=history, observe_shoe=observe_shoe)
    obs, _ = envs.reset(seed=3)
    for _ in range(7):
        obs, *_ = envs.step(envs.action_space.sample())
    flat = codes.flatten(obs)
    single = envs.single_observation_space
    for i in range(5):
        row = {key: value[i] for key, value in obs.items()}
        np.testing.assert_array_equal(flat[i], spaces.flatten(single, row))
    back = codes.unflatten(flat)
    assert set(back) == set(obs)
    for key in obs:
        np.testing.assert_array_equal(back[key].reshape(obs[key].shape), obs[key])
    assert flat.shape[1] == codes.flat_size(history, observe_shoe)
    assert codes.flat_layout(flat.shape[1]) == (history, observe_shoe)


def test_a_shorter_history_keeps_the_most_recent_coups() -> None:
    envs = gym.make_vec("TrenteEtQuarante-v0", num_envs=2, history=6)
    obs, _ = envs.reset(seed=0)
    for _ in range(8):
        obs, *_ = envs.step(envs.action_space.sample())
    short = codes.unflatten(codes.flatten(obs, history=3))
    np.testing.assert_array_equal(short["results"], obs["results"][:, :3])


def test_the_flat_offsets_are_the_envs() -> None:
    for history, shoe in ((10, False), (3, True)):
        env = gym.make("TrenteEtQuarante-v0", observation="flat", history=history, observe_shoe=shoe)
        assert env.unwrapped.layout.offsets == codes.flat_offsets(history, shoe)


def test_a_width_no_layout_has_is_refused() -> None:
    for width in (0, 10, 11, 30):
        with pytest.raises(ValueError, match="not one of"):
            codes.flat_layout(width)


def test_boxes_and_results() -> None:
    assert [b.index for b in Box] == [codes.NOIR, codes.ROUGE, codes.COULEUR, codes.INVERSE] == [0, 1, 2, 3]
    assert tuple(b.value for b in Box) == codes.BOXES
    assert len(Result) == codes.NO_COUP and len(Result) + 1 == codes.RESULT_CODES
    decided = {(r, c): codes.scoreboard_couleur(r, c) for r in Result for c in (False, True)}
    assert decided[(Result.NOIR, True)] == decided[(Result.ROUGE, True)] == codes.COULEUR_WINS
    assert decided[(Result.NOIR, False)] == codes.INVERSE_WINS
    assert {decided[(r, c)] for r in (Result.APRES, Result.REFAIT, Result.VOID) for c in (0, 1)} == {codes.UNDECIDED}
    # each decided coup wins for exactly one of Noir/Rouge and one of Couleur/Inverse; a tie for none
    for r in Result:
        for c in (codes.COULEUR_WINS, codes.INVERSE_WINS, codes.UNDECIDED):
            wins = [codes.box_won(b, r, c) for b in range(4)]
            assert sum(wins[:2]) == (r in (Result.NOIR, Result.ROUGE))
            assert sum(wins[2:]) == (c != codes.UNDECIDED)

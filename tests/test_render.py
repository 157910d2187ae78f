"""The table as a picture: ``render_mode="rgb_array"`` and gymnasium's ``RecordVideo``."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import trente_env  # noqa: F401  (registers the ids)
from trente_env.codes import BOXES
from trente_env.env import TrenteEtQuaranteEnv
from trente_env.render import SIZE


def _flat_bet() -> np.ndarray:
    """5 units on Noir."""
    action = np.zeros(12, dtype=np.int64)
    action[BOXES.index("noir")] = 5
    return action


def test_rgb_array_is_a_picture_of_the_table() -> None:
    env = TrenteEtQuaranteEnv(render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    env.reset(seed=0)
    before = env.render()
    assert before.shape == (SIZE[1], SIZE[0], 3) and before.dtype == np.uint8
    frames = [before]
    for _ in range(5):
        env.step(_flat_bet())
        frames.append(env.render())
    for frame in frames:
        assert frame.shape == before.shape and frame.dtype == np.uint8
        assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10  # drawn on, not one flat colour
    # every coup deals other cards: each frame differs from the one before
    assert all(not np.array_equal(a, b) for a, b in zip(frames, frames[1:], strict=False))
    # the same seed and bets draw the same pictures
    again = TrenteEtQuaranteEnv(render_mode="rgb_array")
    again.reset(seed=0)
    for _ in range(5):
        again.step(_flat_bet())
    assert np.array_equal(again.render(), frames[-1])


def test_the_card_rows_show_red_cards_in_red() -> None:
    """A frame with a heart or a diamond dealt has the red ink of the red suits on a card."""
    env = TrenteEtQuaranteEnv(render_mode="rgb_array")
    env.reset(seed=1)
    from trente_env.cards import is_black
    from trente_env.render import RED

    for _ in range(20):
        env.step(_flat_bet())
        info = env.coup_details()  # the coup drawn (the step's info is empty by default)
        red = any(not is_black(c) for c in info["noir_cards"] + info["rouge_cards"])
        frame = env.render()
        cards = frame[40:175, 90:600]  # where the two rows of cards are drawn
        assert np.all(cards == RED, axis=-1).any() == red


@pytest.mark.skipif(
    importlib.util.find_spec("moviepy") is None, reason="RecordVideo needs moviepy: pip install 'trente-lab[video]'"
)
def test_record_video_films_a_session(tmp_path: Path) -> None:
    from gymnasium.wrappers import RecordVideo

    env = gym.make("TrenteEtQuarante-v0", render_mode="rgb_array", max_episode_steps=8)
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True, disable_logger=True)
    env.reset(seed=0)
    truncated = terminated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, _ = env.step(_flat_bet())
    env.close()
    videos = sorted((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    from moviepy import VideoFileClip

    with VideoFileClip(str(videos[0])) as clip:
        assert tuple(clip.size) == SIZE
        # the reset's frame and one per coup, at render_fps frames a second
        assert clip.duration == pytest.approx(9 / env.metadata["render_fps"], abs=0.6)

"""The PPO benchmark's split of PPO's time (``benchmarks/bench_ppo_vector.py --split``) charges each
part of a rollout to the right place: an env whose every step burns a known CPU time shows that time
in the env's steps, and not in the rest of the collection."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("stable_baselines3")

from benchmarks.bench_ppo_vector import PARTS, SETTINGS, IdleVecEnv, make_venv, split  # noqa: E402

BURN = 0.002  # seconds of CPU time each step of the burning env spends


class BurningVecEnv(IdleVecEnv):
    """The idle env of our spaces, each step spending at least :data:`BURN` seconds of this thread's CPU."""

    def step_wait(self):  # noqa: ANN201
        start = time.thread_time()
        while time.thread_time() - start < BURN:
            pass
        return super().step_wait()


def test_split_charges_the_env_its_own_steps() -> None:
    times = split({"idle": lambda: make_venv("idle", 8), "burning": lambda: BurningVecEnv(make_venv("trente", 8))}, 3)
    burned = 1e3 * BURN * SETTINGS["n_steps"]  # ms a rollout the burning env spends by construction
    assert set(times["idle"]) == {*PARTS, "total"}
    # every step of the burning env is charged to the env's steps ...
    assert times["burning"][PARTS[0]] >= burned
    # ... and to nothing else: the idle env's steps (copies of 8 rows) and the rest of either collection
    # (SB3's buffers and infos for 8 envs) are tens of microseconds a step, far under half the burn
    assert times["idle"][PARTS[0]] < burned / 2
    assert 0 <= times["burning"][PARTS[2]] < burned / 2

"""A behaviour pin: seeded rollouts of the single and the vector environment hash to fixed digests.

Each case plays a few thousand steps with seeded random actions and hashes (sha256) every
observation, reward, termination and truncation (and, under ``SAME_STEP`` autoreset, the final
observations and their mask). The digests were computed before the environments were made faster
(issue 16): any change of what an agent sees (a card dealt differently, a float rounded otherwise,
a scoreboard entry shifted) changes a digest. Re-pin only for a deliberate change of behaviour, and
say why in the commit.
"""

from __future__ import annotations

import hashlib
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from trente_env import env_id
from trente_env.table_kernels import play_parallel, play_serial
from trente_env.tables import PARALLEL_FROM

#: (preset, action_form, observation, extra kwargs): every preset once, both forms, the shoe and a
#: target on some, prisons (classic, choice, second-prison), insurance (classic) and none (family).
CASES: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "classic-full-dict": ("classic", "full", "dict", {}),
    "classic-discrete-flat": ("classic", "discrete", "flat", {}),
    "classic-full-flat-shoe": ("classic", "full", "flat", {"observe_shoe": True, "target": 80.0}),
    "choice-full-dict": ("choice", "full", "dict", {"history": 3}),
    "choice-discrete-flat": ("choice", "discrete", "flat", {}),
    "partage-discrete-dict": ("partage", "discrete", "dict", {"observe_shoe": True}),
    "family-full-flat": ("family", "full", "flat", {}),
    "main-bets-full-dict": ("main-bets", "full", "dict", {"target": 70.0}),
    "lenient-couleur-discrete-flat": ("lenient-couleur", "discrete", "flat", {"history": 1}),
    "exhaustion-full-dict-shoe": ("exhaustion", "full", "dict", {"observe_shoe": True}),
    "second-prison-full-flat": ("second-prison", "full", "flat", {}),
    "second-prison-discrete-dict": ("second-prison", "discrete", "dict", {}),
}
BANKROLL = 50.0  # small, so that sessions end by ruin (and by target) as well as by the step limit
MAX_STEPS = 40


def _actions(rng: np.random.Generator, action_form: str, n: int, nvec: np.ndarray | None) -> np.ndarray:
    """Random actions for ``n`` tables: small stakes on some boxes (zero where the table offers no
    box), random insure and prison flags where offered."""
    if action_form == "discrete":
        return rng.integers(0, nvec, n)
    row = rng.integers(0, 12, (n, 12)) * (rng.random((n, 12)) < 0.4)
    row[:, 4:] = rng.integers(0, 2, (n, 8))
    return np.minimum(row, nvec - 1)


def _add(h: Any, value: Any) -> None:
    if isinstance(value, dict):
        for key in sorted(value):
            h.update(key.encode())
            _add(h, value[key])
        return
    a = np.asarray(value)
    h.update(str(a.dtype).encode() + str(a.shape).encode())
    h.update(np.ascontiguousarray(a).tobytes())


def single_digest(name: str, steps: int = 3000) -> str:
    preset, action_form, observation, kwargs = CASES[name]
    env = gym.make(
        env_id(preset),
        action_form=action_form,
        observation=observation,
        bankroll=BANKROLL,
        max_episode_steps=MAX_STEPS,
        **kwargs,
    )
    space = env.action_space
    nvec = space.n if action_form == "discrete" else space.nvec
    rng = np.random.default_rng(7)
    h = hashlib.sha256()
    obs, _ = env.reset(seed=11)
    _add(h, obs)
    for _ in range(steps):
        action = _actions(rng, action_form, 1, nvec)[0]
        if action_form == "discrete":
            action = int(action)
        obs, reward, terminated, truncated, _ = env.step(action)
        for value in (obs, reward, terminated, truncated):
            _add(h, value)
        if terminated or truncated:
            obs, _ = env.reset()
            _add(h, obs)
    return h.hexdigest()


def vector_digest(
    name: str, mode: AutoresetMode, num_envs: int = 16, steps: int = 250, threads: bool | None = None
) -> str:
    preset, action_form, observation, kwargs = CASES[name]
    venv = gym.make_vec(
        env_id(preset),
        num_envs=num_envs,
        action_form=action_form,
        observation=observation,
        bankroll=BANKROLL,
        max_episode_steps=MAX_STEPS,
        autoreset_mode=mode,
        threads=threads,
        **kwargs,
    )
    space = venv.single_action_space
    nvec = space.n if action_form == "discrete" else space.nvec
    rng = np.random.default_rng(7)
    h = hashlib.sha256()
    obs, _ = venv.reset(seed=11)
    _add(h, obs)
    for _ in range(steps):
        obs, reward, terminated, truncated, info = venv.step(_actions(rng, action_form, num_envs, nvec))
        for value in (obs, reward, terminated, truncated):
            _add(h, value)
        if "_final_obs" in info:
            _add(h, info["_final_obs"])
            _add(h, {key: value for key, value in _rows(info["final_obs"], info["_final_obs"]).items()})
    return h.hexdigest()


def _rows(obs: Any, mask: np.ndarray) -> dict[str, np.ndarray]:
    """The rows of ``obs`` where ``mask`` is set (the only meaningful ones of ``final_obs``)."""
    if isinstance(obs, dict):
        return {key: value[mask] for key, value in obs.items()}
    return {"": obs[mask]}


SINGLE = {
    "choice-discrete-flat": "de2e26421e1249ee856954a51139854702330f3c6485139aded9c8975a2c0105",
    "choice-full-dict": "d7efa8e82649fa4c9f0972f8c3dfd3f43ffeb9fe111c668ec6a13f1824817a83",
    "classic-discrete-flat": "a0bb51089e068d1d530d19a453a23c319405f986aeeaede4062bc73aae70fa58",
    "classic-full-dict": "4367a6d0a97b3b4fd27457ab3b0bd72e2f3f5c8a1ceb9d77d65f8b2947c9becb",
    "classic-full-flat-shoe": "16297ac5acfd052d5786e663367c86796c57711b2b3104e873f5a5ccbe81ad2a",
    "exhaustion-full-dict-shoe": "2b5feb17d6309da28be788fb36a29d53ce8c6182b882d985216bf31f03b70b04",
    "family-full-flat": "6d9aa6b2f972928ceee2bcecd4d3aaa5f5674d889d848913b434aa1eca5ea26f",
    "lenient-couleur-discrete-flat": "b2fc0c597690288140537b3b2a1affa31b85be04cb08b4b4412f8d67aab2c098",
    "main-bets-full-dict": "7595dfb2cf9b4121e7173a9fd3e90e26a65b5c754e8172e9a17ae91fabcee215",
    "partage-discrete-dict": "71ca14a27dc1de4ead835433c1e79736455264d478cb4bc0503c90f055197645",
    "second-prison-discrete-dict": "3509c7a637850ce1d2bef538617012a861db6d4003f94f74036a478bd3fb7be8",
    "second-prison-full-flat": "bfa684481e3c9c57db956fc89659de83b1c1e97cb8fa09ab33b62592a427e595",
}
NEXT_STEP = {
    "choice-discrete-flat": "8d461acd40084bb4ba8d03f8675a028dbebc1ffc970b072c24d548dbc511cbaa",
    "choice-full-dict": "3593374bea23915972391dd48107c4468e52e4385342837e26e65ce41edba4a8",
    "classic-discrete-flat": "0f328e27852251f22bd9bc24d9704a0594ae22e7c3b53dc606512961ac6bfee4",
    "classic-full-dict": "9b89f83907bd69bc9837b19d00a24d7ccac9985ea31eda37d273793372dad0a9",
    "classic-full-flat-shoe": "4a83de7b7279a49363d9021798ef02957af2f47110dc99d16fec8bae45d8a302",
    "exhaustion-full-dict-shoe": "791584f04f03f3f56a48f54a183e946d60e0b5fe72c914b118e5c9997a56a070",
    "family-full-flat": "18fa42a70544bb2ed9989b81527fa4292f527a56c2fbdf643cd5b81e2a20a2ef",
    "lenient-couleur-discrete-flat": "934879b9abbbec90da49c6805a2437db17448554c2d8290753bf3ff4acdbfa26",
    "main-bets-full-dict": "7b47d5467038e21bcd3d08142e34333b05fd1fa9ee0ab00c8c863bf0bf843aa9",
    "partage-discrete-dict": "0fabcad84d7d55bcbc730ecedb0a43bd170644555b984ce513e8f1bb8d972032",
    "second-prison-discrete-dict": "41437323bb722e299f659c6449d308de0ef4ced2b05f2aecf5a787371a00ae80",
    "second-prison-full-flat": "d976630beffbc4804eb135b736e11b20b847a606a67ebb143e77e436661792a8",
}
SAME_STEP = {
    "choice-discrete-flat": "274c8091fccce31fb60a7494e30927e7b599606dfdf4a81f76abebc7caab2d9d",
    "choice-full-dict": "54336d9064e5299e8269e07358b8f1d6f10ab213dea45689104436bba6fd2a4a",
    "classic-discrete-flat": "92c62b2d89149d0307d8b5de5352a80c091afbf238a36ffaa289c8c1cdfbd8f0",
    "classic-full-dict": "3b0a2fba1c034ca351b377a02f211ec677e5c2e3676420b08a13fd39878349be",
    "classic-full-flat-shoe": "99fbd5c335a346028b4b22171427eccd1c991d9d202f2cb7be4637cf54a09988",
    "exhaustion-full-dict-shoe": "d19203455ee6ee05c3700654c40cae70454e3b3f23d33c40050c4ace634dd456",
    "family-full-flat": "e36301b8a3318264145e66abed69c0ec9a810a8a6439a23b5630b31b451c3c31",
    "lenient-couleur-discrete-flat": "068f7b5b9a15bd8c187277bddc08f351134c2bbe03a5fa32c36f24625ae1c201",
    "main-bets-full-dict": "9d49808a3e88eacfccb20cf293cb8ce7c506ebef899e75b34e1b602d65529021",
    "partage-discrete-dict": "0e2fa0d3cecd1c5cde08d487053142b4169ce872e3211d7b5acf94edf7f9513f",
    "second-prison-discrete-dict": "819bf4fe9de764c39f365acfc2ed958f0fa4a5b53fab46a35e2e0f9fa411cf39",
    "second-prison-full-flat": "9e23d075ad4103073e041594bf2c43e3e933a39c8b62ad7cb00674090ce8f0df",
}
PARALLEL = {
    "classic-discrete-flat/NextStep": "0ad94f7c26f5267df60d53ebb8e3ad22b7bb2f18f0784cd8de7d6216f9382943",
    "classic-discrete-flat/SameStep": "55a856f1640f9344f1fc779870e702d2cdc56ad66d327aba5c4a85702784cc57",
    "exhaustion-full-dict-shoe/NextStep": "28772194f4cad4fb2d05d0be545efc145a31292da419cd5e85699a33fc5586ba",
    "exhaustion-full-dict-shoe/SameStep": "e14a0bc3312f80ef4a93d67c4f37390c5cbf44ca3efe73b4d121c3cfc12dad5b",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_single_env_rollout_is_pinned(name: str) -> None:
    assert single_digest(name) == SINGLE[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_vector_env_rollout_is_pinned_next_step(name: str) -> None:
    assert vector_digest(name, AutoresetMode.NEXT_STEP) == NEXT_STEP[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_vector_env_rollout_is_pinned_same_step(name: str) -> None:
    assert vector_digest(name, AutoresetMode.SAME_STEP) == SAME_STEP[name]


@pytest.mark.parametrize("name", ["classic-discrete-flat", "exhaustion-full-dict-shoe"])
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_vector_env_rollout_is_pinned_on_the_threaded_kernel(name: str, mode: AutoresetMode) -> None:
    """Enough tables for the multi-threaded kernels (``tables.PARALLEL_FROM``)."""
    assert PARALLEL_FROM <= 5000
    assert vector_digest(name, mode, num_envs=5000, steps=20) == PARALLEL[f"{name}/{mode.value}"]


def test_threads_on_or_off_play_the_same_rollout() -> None:
    """The ``threads`` option picks the kernel, never the coups: many tables on one thread and a few
    on threads give the pinned digests."""
    mode = AutoresetMode.NEXT_STEP
    many = vector_digest("classic-discrete-flat", mode, num_envs=5000, steps=20, threads=False)
    assert many == PARALLEL[f"classic-discrete-flat/{mode.value}"]
    assert vector_digest("choice-full-dict", mode, threads=True) == NEXT_STEP["choice-full-dict"]
    kernels = {
        threads: gym.make_vec("TrenteEtQuarante-v0", num_envs=3, threads=threads).unwrapped.tables._play_kernel
        for threads in (False, True)
    }
    assert kernels == {False: play_serial, True: play_parallel}

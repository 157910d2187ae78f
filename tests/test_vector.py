"""The native vector environment, the SB3 adapter, and (slow) PPO / DQN training."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import trente_env  # noqa: F401  (registers the ids)
from trente_env.vector import TrenteEtQuaranteVectorEnv


@pytest.mark.parametrize("action_form", ["full", "discrete"])
@pytest.mark.parametrize("observation", ["dict", "flat"])
def test_batched_spaces_contain_what_the_vector_env_returns(action_form: str, observation: str) -> None:
    venv = gym.make_vec(
        "TrenteEtQuarante-Choice-v0",
        num_envs=5,
        action_form=action_form,
        observation=observation,
        observe_shoe=True,
        bankroll=10**7,
        coup_info=True,
    )
    assert isinstance(venv, TrenteEtQuaranteVectorEnv)
    obs, _ = venv.reset(seed=0)
    assert venv.observation_space.contains(obs)
    venv.action_space.seed(0)
    for _ in range(50):
        obs, reward, terminated, truncated, info = venv.step(venv.action_space.sample())
        assert venv.observation_space.contains(obs)
        assert reward.shape == terminated.shape == truncated.shape == (5,)
        assert info["stakes"].shape == (5, 4) and info["_stakes"].all()


def test_table_i_plays_like_a_single_env_seeded_with_seed_plus_i() -> None:
    """The native vector env is a drop-in for gymnasium's SyncVectorEnv of single envs."""
    kwargs = {"action_form": "discrete", "bankroll": 20, "stake_levels": (5, 10)}
    native = gym.make_vec("TrenteEtQuarante-v0", num_envs=3, max_episode_steps=30, **kwargs)
    sync = gym.make_vec("TrenteEtQuarante-v0", num_envs=3, vectorization_mode="sync", max_episode_steps=30, **kwargs)
    assert isinstance(sync, SyncVectorEnv)
    assert data_equivalence(native.reset(seed=42)[0], sync.reset(seed=42)[0])
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):
        action = rng.integers(0, 9, 3)
        a = native.step(action)
        b = sync.step(action)
        assert data_equivalence(a[:4], b[:4])
        ends += int(a[2].sum() + a[3].sum())
    assert ends > 10


def test_tables_have_their_own_shoes() -> None:
    venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=4, action_form="discrete", coup_info=True)
    venv.reset(seed=0)
    totals = np.array([venv.step(np.zeros(4, dtype=np.int64))[4]["noir"] for _ in range(30)])
    assert len({tuple(totals[:, i]) for i in range(4)}) == 4


def test_same_step_autoreset_returns_the_final_observation() -> None:
    venv = TrenteEtQuaranteVectorEnv(
        6, action_form="discrete", observation="flat", max_episode_steps=7, autoreset_mode=AutoresetMode.SAME_STEP
    )
    assert venv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    obs, _ = venv.reset(seed=1)
    start = obs.copy()
    for _ in range(7):
        obs, reward, terminated, truncated, info = venv.step(np.full(6, 2))
    assert truncated.all()
    assert info["_final_obs"].all()
    np.testing.assert_array_equal(obs, start)  # the new sessions' first observations
    assert (info["final_obs"][:, 0] != 1000).any()  # bankrolls after seven coups of 5 units
    obs, reward, *_ = venv.step(np.full(6, 2))
    assert (reward != 0).any()  # no lost step: the next coup is played at once


def test_reset_mask_restarts_only_some_tables() -> None:
    venv = TrenteEtQuaranteVectorEnv(3, action_form="discrete")
    venv.reset(seed=0)
    for _ in range(5):
        venv.step(np.full(3, 4))
    obs, _ = venv.reset(options={"reset_mask": np.array([True, False, False])})
    assert obs["coups"][:, 0].tolist() == [0, 5, 5]
    assert venv.action_masks().shape == (3, 17)


@pytest.mark.needs_rl
def test_sb3_vec_env_adapter_steps_and_reports_terminal_observations() -> None:
    from trente_env.wrappers import sb3_vec_env

    venv = sb3_vec_env(4, seed=3, action_form="discrete", max_episode_steps=5)
    obs = venv.reset()
    assert obs["bankroll"].shape == (4, 1)
    for _ in range(5):
        obs, reward, done, infos = venv.step(np.full(4, 3))
    assert done.all() and reward.dtype == np.float32
    assert all(info["TimeLimit.truncated"] and "terminal_observation" in info for info in infos)
    assert infos[0]["terminal_observation"]["coups"][0] == 5 and obs["coups"][0, 0] == 0
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.shape == (4, 17) and masks.all()


@pytest.mark.slow
@pytest.mark.needs_rl
def test_ppo_and_dqn_train_on_the_discrete_form() -> None:
    import stable_baselines3 as sb3

    from trente_env.wrappers import sb3_vec_env

    env = gym.make("TrenteEtQuarante-v0", action_form="discrete", max_episode_steps=200)
    sb3.PPO("MultiInputPolicy", env, n_steps=256, batch_size=64, seed=0).learn(2048)
    sb3.DQN("MultiInputPolicy", env, learning_starts=256, seed=0).learn(2048)
    venv = sb3_vec_env(8, seed=0, action_form="discrete", observation="flat", max_episode_steps=200)
    model = sb3.A2C("MlpPolicy", venv, seed=0).learn(2048)
    action, _ = model.predict(venv.reset(), deterministic=True)
    assert action.shape == (8,)


@pytest.mark.slow
@pytest.mark.needs_rl
def test_maskable_ppo_trains_with_action_masks() -> None:
    import sb3_contrib as contrib

    from trente_env.wrappers import sb3_vec_env

    venv = sb3_vec_env(4, seed=0, action_form="discrete", observation="flat", bankroll=30, max_episode_steps=100)
    contrib.MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=64, seed=0).learn(1024)


def test_the_multithreaded_kernel_plays_every_table_as_the_serial_one() -> None:
    # From PARALLEL_FROM tables on, Tables plays with numba's parallel loop; it must write every array
    # of every table exactly as the serial kernel does (a write lost in the parallel loop, which numba
    # has done to arrays held in named tuples, would show here), with skips, restarts, insurance and
    # the player's choice of prison, the shoe observed and the scoreboard one-hot.
    from trente_env import table_kernels as kernels
    from trente_env.layout import Layout
    from trente_env.rules import get_rules
    from trente_env.tables import PARALLEL_FROM, Tables

    n = PARALLEL_FROM
    layout = Layout(get_rules("choice"), "full", "flat", 3, True, (1.0,))

    def play(serial: bool) -> tuple[Tables, np.ndarray]:
        tables = layout.new_tables(n, 60.0, 90.0)
        if serial:
            tables._play_kernel, tables._restart_kernel = kernels.play_serial, kernels.restart_serial
        assert (tables._play_kernel is kernels.play_parallel) != serial
        tables.seed([np.random.default_rng(i) for i in range(n)])
        tables.reset_rows()
        rng = np.random.default_rng(0)
        seen = np.zeros(3, dtype=np.int64)  # sessions ended, insured stakes, stakes sent to prison
        for _ in range(40):
            actions = rng.integers(0, 3, (n, 12)) * np.array([5] * 4 + [1] * 8)
            tables.play(actions, rng.random(n) < 0.2)
            seen += tables.terminated.sum(), tables.insured.sum(), (tables.prison > 0).sum()
            tables.reset_rows(tables.terminated | (rng.random(n) < 0.02))
        return tables, seen

    (threaded, events), (serial, serial_events) = play(False), play(True)
    assert layout.new_tables(n - 1, 60.0, 90.0)._play_kernel is kernels.play_serial  # threads from n on
    for name, a, b in zip(
        (*kernels.TableState._fields, *kernels.CoupRecord._fields, "flat"),
        (*threaded.state, *threaded.record, threaded.flat),
        (*serial.state, *serial.record, serial.flat),
    ):
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert np.array_equal(events, serial_events) and (events > 0).all()  # ruin or target, insurance, prison


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_info_is_empty_by_default_and_holds_every_coup_with_coup_info(mode: AutoresetMode) -> None:
    """Cheap by default (only SAME_STEP's final observations); with ``coup_info`` each coup's details
    in Gymnasium's vector convention, masked where a table started a new session instead of playing,
    and equal to what the tables recorded. Both envs play the same coups."""
    kwargs = {"num_envs": 6, "bankroll": 12, "max_episode_steps": 9, "autoreset_mode": mode}
    plain = gym.make_vec("TrenteEtQuarante-v0", **kwargs)
    detailed = gym.make_vec("TrenteEtQuarante-v0", coup_info=True, **kwargs)
    keys = ("noir", "rouge", "result", "couleur", "reshuffle", "clipped", "stakes", "insured", "back")
    plain.reset(seed=3)
    detailed.reset(seed=3)
    rng = np.random.default_rng(0)
    masked = ended = 0
    for _ in range(60):
        actions = rng.integers(0, 8, (6, 12))
        a = plain.step(actions)
        b = detailed.step(actions)
        assert data_equivalence(a[:4], b[:4])
        done = a[2] | a[3]
        ended += int(done.sum())
        extra = {"final_obs", "_final_obs"} if mode is AutoresetMode.SAME_STEP and done.any() else set()
        assert set(a[4]) == extra
        info = b[4]
        assert set(info) == set(keys) | {f"_{k}" for k in keys} | extra
        played = info["_result"]
        assert all(np.array_equal(info[f"_{k}"], played) for k in keys)
        masked += int((~played).sum())
        t = detailed.tables
        assert np.array_equal(info["stakes"][played], t.placed[played])
        assert np.array_equal(info["noir"][played], t.coup[played, 0])
        assert info["stakes"] is not t.placed  # copies: a later step does not change them
    assert ended > 5
    assert (masked > 0) == (mode is AutoresetMode.NEXT_STEP)  # restarting tables skip a step in NEXT_STEP


@pytest.mark.parametrize("observation", ["dict", "flat"])
def test_the_step_returns_the_envs_buffers_unless_asked_for_copies(observation: str) -> None:
    """By default a step returns the env's own arrays, rewritten in place by the next step (as
    ``SyncVectorEnv(copy=False)``); ``copy=True`` returns fresh arrays holding the same numbers."""
    kwargs = {"action_form": "discrete", "observation": observation, "max_episode_steps": 4}
    shared, copied = (TrenteEtQuaranteVectorEnv(3, copy=copy, **kwargs) for copy in (False, True))
    for env in (shared, copied):
        env.reset(seed=5)
    for _ in range(6):
        a, b = (env.step(np.array([1, 5, 9])) for env in (shared, copied))
        for x, y in zip(a[:4], b[:4], strict=True):
            assert data_equivalence(x, y)
    obs, reward = a[0], a[1]
    arrays = list(obs.values()) if isinstance(obs, dict) else [obs]
    owned = (shared.tables.flat, shared.tables.results, shared.tables.couleurs)
    assert all(any(np.shares_memory(x, y) for y in owned) for x in arrays)
    assert shared.step(np.array([2, 2, 2]))[1] is reward  # the same reward array, rewritten
    fresh = list(b[0].values()) if isinstance(b[0], dict) else [b[0]]
    owned = (copied.tables.flat, copied.tables.results, copied.tables.couleurs)
    assert not any(np.shares_memory(x, y) for x in fresh for y in owned)
    assert copied.step(np.array([2, 2, 2]))[1] is not b[1]


def test_discrete_actions_read_in_the_kernel_play_as_their_action_rows() -> None:
    """The vector env hands the kernel the discrete form's row numbers (``choices``); the coups and
    every number recorded are those of the same actions given as full action rows."""
    from trente_env.layout import Layout
    from trente_env.rules import get_rules
    from trente_env.tables import NEXT_STEP

    layout = Layout(get_rules("choice"), "discrete", "flat", 4, True, (1.0, 5.0, 25.0))
    by_choice, by_row = (layout.new_tables(50, 40.0, 60.0) for _ in range(2))
    for tables in (by_choice, by_row):
        tables.seed([np.random.default_rng(i) for i in range(50)])
        tables.reset_rows()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(200):
        choices = rng.integers(0, layout.action_table.shape[0], 50)
        by_choice.step(layout.action_table, layout.choices(choices, 50), autoreset=NEXT_STEP, limit=30)
        by_row.step(layout.actions(choices, 50), autoreset=NEXT_STEP, limit=30)
        ended += int(by_choice.record.pending.sum())
    for a, b in zip((*by_choice.state, *by_choice.record), (*by_row.state, *by_row.record), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(by_choice.flat, by_row.flat)
    assert ended > 50  # sessions did end (ruin, target or 30 coups) and restart


@pytest.mark.needs_rl
def test_the_sb3_adapter_hands_sb3_observations_the_next_step_leaves_alone() -> None:
    """SB3 stores the last observation after the next step: the adapter must not hand it the env's buffer."""
    from trente_env.wrappers import sb3_vec_env

    venv = sb3_vec_env(3, seed=0, action_form="discrete", observation="flat")
    obs = venv.reset()
    kept = obs.copy()
    venv.step(np.full(3, 4))
    np.testing.assert_array_equal(obs, kept)


@pytest.mark.needs_rl
def test_the_sb3_adapter_keeps_each_ended_sessions_last_observation() -> None:
    """Sessions ending together (all cut by the step limit at once): each info holds its own table's
    last observation, untouched by the steps that follow, and the new session's first is returned."""
    from trente_env.vector import TrenteEtQuaranteVectorEnv
    from trente_env.wrappers import sb3_vec_env

    venv = sb3_vec_env(6, seed=2, action_form="discrete", observation="flat", max_episode_steps=4)
    twin = TrenteEtQuaranteVectorEnv(6, action_form="discrete", observation="flat", max_episode_steps=4,
                                     autoreset_mode="SameStep", copy=True)  # fmt: skip
    venv.reset()
    twin.reset(seed=2)
    actions = np.array([0, 3, 5, 7, 9, 16])
    for _ in range(4):
        obs, _, done, infos = venv.step(actions)
        _, _, terminated, truncated, info = twin.step(actions)
    assert done.all()
    kept = [info["terminal_observation"].copy() for info in infos]
    for i in range(6):
        np.testing.assert_array_equal(infos[i]["terminal_observation"], info["final_obs"][i])
        assert infos[i]["TimeLimit.truncated"] == bool(truncated[i] and not terminated[i])
    coups = venv.venv.layout.offsets["coups"]
    assert [info["terminal_observation"][coups] for info in infos] == [4] * 6 and (obs[:, coups] == 0).all()
    for _ in range(4):  # the next sessions end too: the env rewrites its buffer of last observations
        _, _, done, _ = venv.step(actions)
    assert done.all()
    for i in range(6):
        np.testing.assert_array_equal(infos[i]["terminal_observation"], kept[i])


@pytest.mark.parametrize("threads", [False, True])
def test_integer_actions_play_as_the_same_numbers_in_float64(threads: bool) -> None:
    """Full-form int64 actions (what the action space samples and SB3 hands over) go to a kernel
    entry of their own, without the copy into float64; every coup, every number recorded and every
    observation must be those of the same actions converted to float64 first, stakes far outside the
    table's limits, the bankroll and float64's exact integers included."""
    from trente_env.layout import Layout
    from trente_env.rules import get_rules
    from trente_env.tables import NEXT_STEP

    n = 64
    layout = Layout(get_rules("choice"), "full", "flat", 4, True, (1.0,))
    as_int, as_float = (layout.new_tables(n, 60.0, 90.0, threads=threads) for _ in range(2))
    for tables in (as_int, as_float):
        tables.seed([np.random.default_rng(i) for i in range(n)])
        tables.reset_rows()
    extreme = np.array([-(2**63), -1, 0, 1, 4, 5, 59, 61, 2**53 + 1, 2**62, 2**63 - 1], dtype=np.int64)
    rng = np.random.default_rng(2)
    ended = clipped = 0
    for _ in range(150):
        actions = rng.integers(0, 3, (n, 12)) * np.array([5] * 4 + [1] * 8)
        odd = rng.random((n, 12)) < 0.05
        actions = np.where(odd, rng.choice(extreme, (n, 12)), actions)
        assert actions.dtype == np.int64
        as_int.step(actions, autoreset=NEXT_STEP, limit=25)
        as_float.step(actions.astype(np.float64), autoreset=NEXT_STEP, limit=25)
        ended += int(as_int.record.pending.sum())
        clipped += int(as_int.clipped.sum())
    for name, a, b in zip(
        (*as_int.state._fields, *as_int.record._fields, "flat"),
        (*as_int.state, *as_int.record, as_int.flat),
        (*as_float.state, *as_float.record, as_float.flat),
        strict=True,
    ):
        np.testing.assert_array_equal(a, b, err_msg=name)
    dtypes = {key[1] for key in as_int._entries if key[0] is as_int._play_kernel}
    assert dtypes == {np.dtype(np.int64)}  # the int64 entry played, not a float64 copy
    assert ended > 50 and clipped > 50  # sessions ended and restarted; odd stakes were cut

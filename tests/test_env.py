"""The single-table environment: checkers, determinism, money, the house edge, actions and rendering."""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import trente_env
from trente_env import PRESETS, env_id, get_rules
from trente_env.codes import NO_COUP
from trente_env.coup import classify, couleur_wins, decide
from trente_env.dealer import deal_coups
from trente_env.env import TrenteEtQuaranteEnv

FORMS = [(a, o) for a in ("full", "discrete", "factored") for o in ("dict", "flat")]


def rollout(env: gym.Env, seed: int, steps: int, action_seed: int = 1) -> list:
    """Observations, rewards, ends and infos of a random-action rollout, resetting at each end."""
    env.action_space.seed(action_seed)
    obs, _ = env.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        out.append((obs, reward, terminated, truncated, info["noir"], info["rouge"]))
        if terminated or truncated:
            out.append(env.reset()[0])
    return out


def same(a: object, b: object) -> bool:
    from gymnasium.utils.env_checker import data_equivalence

    return data_equivalence(a, b)


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("action_form,observation", FORMS)
def test_gymnasium_check_env_passes_without_warnings(preset: str, action_form: str, observation: str) -> None:
    env = gym.make(env_id(preset), action_form=action_form, observation=observation, observe_shoe=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=True)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("action_form,observation", FORMS)
@pytest.mark.needs_rl
def test_sb3_check_env_passes_without_warnings(preset: str, action_form: str, observation: str) -> None:
    from stable_baselines3.common import env_checker as sb3_checker

    env = gym.make(env_id(preset), action_form=action_form, observation=observation)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_checker.check_env(env.unwrapped, warn=True)
    assert [str(w.message) for w in caught] == []


def test_every_preset_is_registered_with_a_vector_entry_point() -> None:
    for preset, rules in PRESETS.items():
        spec = gym.spec(env_id(preset))
        assert spec.vector_entry_point is not None
        assert spec.max_episode_steps == trente_env.MAX_EPISODE_STEPS
        assert gym.make(env_id(preset)).unwrapped.rules == rules
    assert env_id("main-bets") == "TrenteEtQuarante-MainBets-v0"


@pytest.mark.parametrize("action_form,observation", FORMS)
def test_same_seed_same_rollout_and_different_seeds_differ(action_form: str, observation: str) -> None:
    kwargs = {"action_form": action_form, "observation": observation, "bankroll": 200, "coup_info": True}
    a = rollout(gym.make("TrenteEtQuarante-v0", **kwargs), seed=7, steps=300)
    b = rollout(gym.make("TrenteEtQuarante-v0", **kwargs), seed=7, steps=300)
    c = rollout(gym.make("TrenteEtQuarante-v0", **kwargs), seed=8, steps=300)
    assert same(a, b)
    assert not same(a, c)


def test_the_env_deals_the_coups_of_the_bulk_dealer_for_the_same_seed() -> None:
    rules = get_rules("classic")
    env = TrenteEtQuaranteEnv(rules, action_form="discrete", coup_info=True)
    env.reset(seed=123)
    infos = [env.step(0)[4] for _ in range(200)]  # sitting out: the cards do not care
    coups = deal_coups(rules, 200, 123, keep_cards=True)
    assert [i["noir"] for i in infos] == coups.noir.tolist()
    assert [i["rouge"] for i in infos] == coups.rouge.tolist()
    for k in (0, 57, 199):
        coup = coups.coup(k)
        assert infos[k]["noir_cards"] == coup.noir_cards
        assert infos[k]["rouge_cards"] == coup.rouge_cards


def test_pickle_round_trip_continues_identically() -> None:
    env = gym.make("TrenteEtQuarante-v0", action_form="discrete")
    env.reset(seed=3)
    for _ in range(40):
        env.step(2)
    clone = pickle.loads(pickle.dumps(env))
    for _ in range(60):
        assert same(env.step(5)[:4], clone.step(5)[:4])


def test_make_and_make_vec_with_one_table_give_the_same_rollout() -> None:
    kwargs = {"action_form": "discrete", "bankroll": 30, "stake_levels": (5, 10)}
    env = gym.make("TrenteEtQuarante-v0", max_episode_steps=25, **kwargs)
    venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=1, max_episode_steps=25, **kwargs)
    assert type(venv).__name__ == "TrenteEtQuaranteVectorEnv"
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=11)
    vobs, _ = venv.reset(seed=11)
    ends = 0
    for _ in range(400):
        assert same(obs, {k: v[0] for k, v in vobs.items()})
        action = int(rng.integers(env.action_space.n))
        obs, reward, terminated, truncated, _ = env.step(action)
        vobs, vreward, vterm, vtrunc, _ = venv.step(np.array([action]))
        assert (reward, terminated, truncated) == (vreward[0], vterm[0], vtrunc[0])
        if terminated or truncated:  # the vector env restarts the table on its next step
            ends += 1
            assert same(obs, {k: v[0] for k, v in vobs.items()})
            obs, _ = env.reset()
            vobs, vreward, *_ = venv.step(np.array([0]))
            assert vreward[0] == 0.0
    assert ends >= 5


def test_flat_observation_is_the_flattened_dict_observation() -> None:
    kwargs = {"action_form": "discrete", "observe_shoe": True, "rules": "second-prison"}
    d = TrenteEtQuaranteEnv(observation="dict", **kwargs)
    f = TrenteEtQuaranteEnv(observation="flat", **kwargs)
    do, _ = d.reset(seed=5)
    fo, _ = f.reset(seed=5)
    for step in range(300):
        np.testing.assert_allclose(fo, gym.spaces.flatten(d.observation_space, do))
        do = d.step(step % 9)[0]
        fo = f.step(step % 9)[0]


def test_rewards_sum_to_the_change_in_bankroll_and_prisoners_follow_the_rules() -> None:
    """Random full actions, insurance included, under prison with a second prison (docs/rules.md#en-prison)."""
    env = TrenteEtQuaranteEnv("second-prison", bankroll=5000, history=2, coup_info=True)
    rng = np.random.default_rng(4)
    obs, _ = env.reset(seed=4)
    total = 0.0
    seen = {"refait": 0, "freed": 0, "lost": 0, "second": 0}
    for _ in range(6000):
        action = np.zeros(12, dtype=np.int64)
        action[:4] = rng.integers(0, 4, 4) * rng.integers(0, 2, 4)
        action[4:8] = rng.random(4) < 0.2
        before = obs["prison"].reshape(2, 4).astype(np.float64)  # [level, box]
        obs, reward, terminated, _, info = env.step(action)
        total += reward
        after = obs["prison"].reshape(2, 4)
        stakes, insured, back, result = info["stakes"], info["insured"], info["back"], info["result"]
        jailed = np.where(insured, 0.0, stakes)
        if result == trente_env.Result.REFAIT:
            seen["refait"] += 1
            seen["second"] += int(before[0].sum() > 0)
            np.testing.assert_allclose(after[0], jailed)  # new prisoners; old first-prison ones move on
            np.testing.assert_allclose(after[1], before[0])  # and a second-prison one is lost
            np.testing.assert_allclose(back, np.where(insured, stakes, 0.0))
        elif result == trente_env.Result.APRES:
            np.testing.assert_allclose(after, before)
            np.testing.assert_allclose(back, stakes)
        else:
            won = np.array([result == 0, result == 1, info["couleur"] == 0, info["couleur"] == 1], dtype=np.float64)
            # a win frees the first prisoner (unpaid) and moves the second up; a loss loses both
            np.testing.assert_allclose(back, won * (2 * stakes + before[0]))
            np.testing.assert_allclose(after[0], won * before[1])
            np.testing.assert_allclose(after[1], 0.0)
            seen["freed"] += int((won * before[0]).sum() > 0)
            seen["lost"] += int(((1 - won) * before.sum(axis=0)).sum() > 0)
        premiums = 0.01 * (stakes * insured).sum()
        assert reward == pytest.approx(back.sum() - stakes.sum() - premiums, abs=1e-9)
        assert not terminated
    assert total == pytest.approx(env.bankroll - 5000, abs=1e-6)
    assert min(seen.values()) > 0, seen


def test_reward_per_unit_staked_agrees_with_the_exact_house_edge() -> None:
    """One unit on a random box every coup at 2000 tables for 500 coups (10**6 stakes).

    The tables are independent, so the standard error of the ratio (total reward / total staked)
    comes from the spread of the per-table totals (delta method; every table stakes the same
    amount, so it is the standard error of the mean of the per-table returns). Each unit's outcome
    has a standard deviation near 0.97, so the SE is about 0.001; we allow 4 SE. Prisoners still
    in prison when a session stops count as lost, a bias of about 0.022 * 0.5 / 500 = 2e-5.
    The exact edges (docs/rules.md#house-edges): classic 1.1208%, partage 1.0946%; both differ from 0 by > 10 SE.
    """
    for preset, edge, seed in (("classic", 0.011208, 1), ("partage", 0.010946, 2)):
        n, steps = 2000, 500
        venv = gym.make_vec(env_id(preset), num_envs=n, action_form="discrete", stake_levels=(1,), bankroll=10**6)
        venv.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = np.zeros(n)
        for _ in range(steps):
            _, reward, *_ = venv.step(rng.integers(1, 5, n))
            totals += reward
        per_table = totals / steps
        se = per_table.std(ddof=1) / np.sqrt(n)
        assert abs(per_table.mean() + edge) < 4 * se, (preset, per_table.mean(), se)
        assert per_table.mean() < -4 * se  # no flat bet beats the bank


def test_illegal_stakes_are_made_legal_as_documented() -> None:
    env = TrenteEtQuaranteEnv("main-bets", bankroll=100, coup_info=True)
    env.reset(seed=0)
    action = np.zeros(12, dtype=np.int64)
    action[[0, 1, 2]] = [80, 50, 30]  # Rouge gets only what is left; Couleur is closed
    action[4] = 1  # insure Noir: 80.8 with the premium
    info = env.step(action)[4]
    assert info["stakes"].tolist() == [80, 19, 0, 0]  # floor(100 - 80.8) = 19
    assert info["clipped"]
    env = TrenteEtQuaranteEnv(get_rules("classic", table_min=5, table_max=200), bankroll=1000, coup_info=True)
    env.reset(seed=0)
    action = np.zeros(12, dtype=np.int64)
    action[:4] = [200, 3, 0, 150]
    info = env.step(action)[4]
    assert info["stakes"].tolist() == [200, 0, 0, 150] and info["clipped"]
    info = env.step(np.array([10, 0, 0, 0] + [0] * 8))[4]
    assert not info["clipped"]
    with pytest.raises(ValueError, match="out of range"):
        TrenteEtQuaranteEnv(action_form="discrete").step(99)
    with pytest.raises(ValueError, match="outside the table limits"):
        TrenteEtQuaranteEnv(action_form="discrete", stake_levels=(0.5,))


def test_action_masks_follow_the_bankroll() -> None:
    env = TrenteEtQuaranteEnv(action_form="discrete", bankroll=30, stake_levels=(1, 5, 25, 100))
    env.reset(seed=0)
    mask = env.action_masks()
    assert mask.tolist() == [True] + [True, True, True, False] * 4
    full = TrenteEtQuaranteEnv(bankroll=30)
    full.reset(seed=0)
    mask = full.action_masks()
    assert mask.shape == (int(full.action_space.nvec.sum()),)
    assert mask[:1001].sum() == 31 and mask[30] and not mask[31]


def test_ruin_and_target_end_the_session() -> None:
    env = TrenteEtQuaranteEnv("partage", bankroll=10, action_form="discrete", stake_levels=(10,))
    env.reset(seed=1)
    for _ in range(200):
        obs, reward, terminated, *_ = env.step(1)
        if terminated:
            break
    assert terminated and env.bankroll < 1 and not env.prison.any()
    env = TrenteEtQuaranteEnv("partage", bankroll=10, target=20, action_form="discrete", stake_levels=(10,))
    env.reset(seed=2)
    for _ in range(200):
        *_, terminated, _, _ = env.step(1)
        if terminated:
            break
    assert terminated and (env.bankroll >= 20 or env.bankroll < 1)


def test_observed_shoe_counts_the_unseen_cards() -> None:
    env = TrenteEtQuaranteEnv("family", action_form="discrete", observe_shoe=True, coup_info=True)
    obs, _ = env.reset(seed=9)
    assert obs["shoe"].sum() == 104 and obs["cards_left"][0] == 104
    reshuffles = 0
    for _ in range(120):
        obs, _, _, _, info = env.step(0)
        if info["reshuffle"]:
            reshuffles += 1
            assert obs["shoe"].sum() == 104
            continue
        tables = env._tables
        left = tables.shoes[0, tables.pos[0] :]
        assert obs["cards_left"][0] == left.size
        assert obs["shoe"].sum() == left.size  # no burn in the family preset
        black = np.isin(left // 13, (0, 3))
        values = np.minimum(left % 13 + 1, 10)
        np.testing.assert_array_equal(obs["shoe"][:10], np.bincount(values[black], minlength=11)[1:])
    assert reshuffles >= 3


def test_scoreboard_lists_the_latest_coup_first() -> None:
    env = TrenteEtQuaranteEnv(action_form="discrete", history=3, coup_info=True)
    obs, _ = env.reset(seed=0)
    assert obs["results"].tolist() == [NO_COUP] * 3
    results = []
    for _ in range(5):
        obs, _, _, _, info = env.step(0)
        results.insert(0, info["result"])
        assert obs["results"].tolist() == (results + [NO_COUP] * 3)[:3]
    assert obs["coups"][0] == 5


def test_decide_agrees_with_the_vectorised_rules() -> None:
    totals = np.arange(31, 41)
    noir, rouge = (a.ravel() for a in np.meshgrid(np.r_[0, totals], np.r_[0, totals]))
    for black in (False, True):
        result = classify(noir, rouge)
        for n, r, res in zip(noir.tolist(), rouge.tolist(), result.tolist(), strict=True):
            if n == 0 and r != 0:
                continue
            code, couleur = decide(n, r, black)
            assert code == res
            if res in (0, 1):
                assert couleur == bool(couleur_wins(res, black))


def test_render_ansi_shows_the_croupiers_layout(capsys: pytest.CaptureFixture[str]) -> None:
    env = TrenteEtQuaranteEnv(action_form="discrete", render_mode="ansi")
    env.reset(seed=0)
    assert "Faites vos jeux" in env.render()
    env.step(1)
    text = env.render()
    assert "Noir" in text and "Rouge" in text and any(w in text for w in ("gagne", "perd", "Refait", "Après"))
    human = TrenteEtQuaranteEnv(action_form="discrete", render_mode="human")
    human.reset(seed=0)
    human.step(1)
    assert "Bets: Noir 1" in capsys.readouterr().out


def test_a_pickled_env_plays_on_its_own_arrays() -> None:
    # the step's views and the kernel's held arguments are made again after unpickling: a clone bound
    # to the original's arrays would move the original's table
    env = TrenteEtQuaranteEnv(action_form="discrete", bankroll=10_000)
    env.reset(seed=3)
    for _ in range(5):
        env.step(2)
    clone = pickle.loads(pickle.dumps(env))
    bankroll = env.bankroll
    for _ in range(30):
        obs, *_ = clone.step(2)
    assert env._tables.coups[0] == 5 and env.bankroll == bankroll
    assert obs["coups"][0] == 35 and clone._tables.coups[0] == 35


def test_the_discrete_action_number_plays_its_row_of_the_menu() -> None:
    # the single env plays a discrete action as a row of the menu (Tables.choose_one, the kernel reads
    # the row); the same row given whole (Tables.play_one) must deal, settle and observe the same
    from trente_env.layout import Layout

    layout = Layout(get_rules("choice"), "discrete", "flat", 4, True, (1.0, 5.0, 25.0))
    by_number, by_row = layout.new_tables(1, 40.0, 90.0), layout.new_tables(1, 40.0, 90.0)
    for tables in (by_number, by_row):
        tables.seed([np.random.default_rng(5)])
        tables.reset_rows()
    rng = np.random.default_rng(0)
    sessions = 0
    for _ in range(600):
        k = int(rng.integers(layout.action_table.shape[0]))
        by_number.choose_one(k)
        by_row.play_one(layout.action_table[k : k + 1])
        for a, b in zip(by_number.state + by_number.record, by_row.state + by_row.record, strict=True):
            assert np.array_equal(a, b)
        assert np.array_equal(by_number.flat, by_row.flat)
        if by_number.terminated[0]:
            sessions += 1
            by_number.reset_rows()
            by_row.reset_rows()
    assert sessions >= 2  # ruin or the target came, and the restarted sessions matched too
    with pytest.raises(ValueError, match="outside the menu"):
        by_number.choose_one(layout.action_table.shape[0])


def test_play_one_is_for_a_single_table() -> None:
    from trente_env.tables import Tables

    tables = Tables(get_rules("classic"), 2, 100.0, 2)
    tables.seed([np.random.default_rng(i) for i in range(2)])
    with pytest.raises(ValueError, match="single table"):
        tables.play_one(np.zeros((1, 12)))


def test_info_is_empty_unless_coup_info_and_holds_the_coups_details_with_it() -> None:
    # the same seed and actions with and without coup_info: the same game; the details of each coup
    # (in info with coup_info, from coup_details always) agree with the table's own record and
    # shoe, across shuffles and sessions, and render shows the same either way
    quiet = TrenteEtQuaranteEnv("classic", bankroll=60, render_mode="ansi")
    told = TrenteEtQuaranteEnv("classic", bankroll=60, render_mode="ansi", coup_info=True)
    assert quiet.coup_details() is None and told.coup_details() is None
    for env in (quiet, told):
        env.reset(seed=4)
        env.action_space.seed(2)
    reshuffles = sessions = 0
    for _ in range(600):
        action = quiet.action_space.sample() // 50  # small stakes: long sessions, many shoes
        a, b = quiet.step(action), told.step(action)
        assert a[4] == {} and same(a[:4], b[:4])
        details = quiet.coup_details()
        assert b[4].keys() == details.keys() == told.coup_details().keys()
        assert same(list(b[4].values()), list(details.values()))
        t = told._tables
        start, middle, end = t.coup[0, 4:7].tolist()
        assert details["noir_cards"] == tuple(t.shoes[0, start:middle].tolist())
        assert details["rouge_cards"] == tuple(t.shoes[0, middle:end].tolist())
        assert np.array_equal(details["stakes"], t.placed[0]) and details["stakes"] is not t.placed[0]
        assert quiet.render() == told.render()
        reshuffles += details["reshuffle"]
        if a[2]:
            sessions += 1
            for env in (quiet, told):
                env.reset()
            assert quiet.coup_details() is None and "Faites vos jeux" in quiet.render()
    assert reshuffles >= 3 and sessions >= 1  # the cached cards were read again after shuffles and resets


@pytest.mark.parametrize("rules", ["classic", "choice", "main-bets"])
def test_the_usual_full_action_is_read_as_any_other(rules: str) -> None:
    # the single env takes a numpy array of 12 numbers as it is (Layout.action_row); it must give the
    # same row as Layout.actions, and anything else must go through actions (same rows, same errors)
    from trente_env.layout import Layout

    layout = Layout(get_rules(rules), "full", "dict", 10, False, (1.0,))
    rng = np.random.default_rng(3)
    space = layout.single_action_space
    space.seed(3)
    usual = [space.sample() for _ in range(50)]
    usual += [a.astype(dtype) for a in usual[:5] for dtype in (np.int8, np.uint16, np.float32, np.float64, np.bool_)]
    odd = rng.normal(0, 1e4, (20, 12))
    odd[:, rng.integers(0, 12, 20)] = np.nan
    usual += list(odd) + [np.full(12, -5), np.full(12, np.inf), np.full(12, 1e300), np.full(12, -np.inf)]
    for action in usual:
        assert layout.is_usual_full(action)
        row = layout.action_row(action)
        assert row is action  # taken as it is: no copy, no conversion
        assert np.array_equal(row.reshape(1, 12), layout.actions(action), equal_nan=True)
        assert np.array_equal(row.reshape(1, 12), layout.actions(action.reshape(1, 12)), equal_nan=True)
    others = [action.tolist() for action in usual[:5]] + [usual[0].reshape(1, 12), tuple(usual[1])]
    for action in others:
        assert not layout.is_usual_full(action)
        assert np.array_equal(layout.action_row(action), layout.actions(action))
    bad = [np.zeros(11), np.zeros((2, 12)), np.zeros(12, dtype="U1"), np.array([None] * 12), [[1, 2], [3]], 3, "x"]
    bad += [np.zeros(12, dtype=np.complex128), [0.0] * 13]
    for action in bad:
        assert not layout.is_usual_full(action)
        with pytest.raises(ValueError) as by_row:
            layout.action_row(action)
        with pytest.raises(ValueError) as by_actions:
            layout.actions(action)
        assert str(by_row.value) == str(by_actions.value) and "a full action is 12 numbers" in str(by_row.value)


def test_the_usual_full_action_plays_as_the_same_numbers_given_otherwise() -> None:
    # an int64 array (sample(), SB3), the same numbers as a float list, and as a (1, 12) float array
    # play the same game: the cast to the kernel's float64 row is the same whatever the route
    envs = [TrenteEtQuaranteEnv("choice", bankroll=300, coup_info=True) for _ in range(3)]
    for env in envs:
        env.reset(seed=9)
    envs[0].action_space.seed(1)
    for _ in range(300):
        action = envs[0].action_space.sample() // 40
        outs = [
            envs[0].step(action),
            envs[1].step([float(x) for x in action]),
            envs[2].step(action.astype(np.float64).reshape(1, 12)),
        ]
        for out in outs[1:]:
            assert same(out[:4], outs[0][:4]) and same(list(out[4].values()), list(outs[0][4].values()))
        if outs[0][2]:
            for env in envs:
                env.reset()

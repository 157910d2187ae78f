"""No compiled kernel reads or writes outside its arrays, whatever the public API is given.

Every input that would make a kernel index out of range is refused in Python with one ValueError
line, and the kernels check what only they can see (a state row edited by hand) and raise instead
of reading stale memory. CI runs the whole fast suite with ``NUMBA_BOUNDSCHECK=1`` as well, where
any index out of range is an IndexError; the slow tests run the issue's reproducer at 50,000 and
100,000 tables for 1,000 steps, with and without bounds checking.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import gymnasium as gym
import numpy as np
import pytest

import trente_env  # noqa: F401  (registers the environments)
from experiments.streaks import _tally
from strategies import kernel, make_strategy
from strategies.base import SessionState
from strategies.progressions import Progression
from strategies.sessions import play_compiled
from trente_env.dealer import deal_next, deal_row
from trente_env.rules import get_rules
from trente_env.settle import settle
from trente_env.tables import Tables
from trente_env.vector import TrenteEtQuaranteVectorEnv

RULES = get_rules("classic")


def _tables(n: int = 3, **kwargs) -> Tables:
    tables = Tables(RULES, n, 100.0, 2, **kwargs)
    tables.seed([np.random.default_rng(i) for i in range(n)])
    tables.reset_rows()
    return tables


def test_each_table_shuffles_with_its_own_seed_whatever_the_others_do() -> None:
    # the segfault of issue 11: tables that needed no shuffle read a seed slot left over from an earlier
    # step. Here the tables reshuffle at different coups (restarts at random), and each must still deal
    # the coups of its own generator, as a lone Shoe fed by the same generator deals them.
    from trente_env.dealer import Shoe

    n = 40
    tables = _tables(n)
    shoes = [Shoe(RULES, np.random.default_rng(i)) for i in range(n)]
    rng = np.random.default_rng(0)
    for _ in range(120):
        skip = rng.random(n) < 0.3
        restart = (rng.random(n) < 0.05) & ~skip
        if restart.any():
            tables.reset_rows(restart)
            for i in np.flatnonzero(restart):
                shoes[i].needs_shuffle = True
        tables.play(np.zeros((n, 12)), skip)
        for i in np.flatnonzero(~skip):
            coup = shoes[i].deal()
            noir, rouge = tables.cards(i)
            assert coup.noir_cards == tuple(noir.tolist()) and coup.rouge_cards == tuple(rouge.tolist())


@pytest.mark.parametrize(
    "offsets, width, one_hot, message",
    [
        ({"bankroll": 0, "coups": 1, "prison": 5}, 10, False, "'prison' at 5 does not fit"),
        ({"bankroll": 0, "coups": 1}, 10, False, "places"),
        ({"bankroll": 0, "coups": 1, "prison": 2, "shoe": 10}, 40, False, "shoe with cards_left"),
        ({"bankroll": 0, "coups": 1, "prison": 2}, 40, True, "places"),
        ({"bankroll": -1, "coups": 1, "prison": 2}, 10, False, "'bankroll' at -1"),
        ({"bankroll": 0, "coups": 1, "prison": 2, "hand": 9}, 10, False, "places"),
    ],
)
def test_an_observation_layout_that_does_not_fit_is_refused(offsets, width, one_hot, message) -> None:
    with pytest.raises(ValueError, match=message):
        Tables(RULES, 2, 100.0, 2, offsets=offsets, width=width, one_hot=one_hot)


@pytest.mark.parametrize(
    "actions",
    [np.zeros((3, 11)), np.zeros((4, 12)), np.zeros(36), np.full((3, 12), "x"), np.zeros((3, 12), complex)],
)
def test_tables_refuse_actions_of_another_shape_or_kind(actions) -> None:
    tables = _tables()
    with pytest.raises(ValueError, match="12 numbers per table"):
        tables.play(actions)
    assert (tables.coups == 0).all()


@pytest.mark.parametrize("mask", [np.zeros(2, bool), np.zeros(4, bool), np.zeros(3, int), np.zeros((3, 1), bool)])
def test_tables_refuse_masks_of_another_shape_or_kind(mask) -> None:
    tables = _tables()
    with pytest.raises(ValueError, match="3 booleans"):
        tables.play(np.zeros((3, 12)), mask)
    with pytest.raises(ValueError, match="3 booleans"):
        tables.reset_rows(mask)


def test_tables_play_actions_and_masks_of_any_memory_layout_alike() -> None:
    # the kernels run through compiled entry points made for one type of array: read-only, strided,
    # Fortran-ordered or integer actions and masks must be converted, never handed over as they are
    n, rng = 5, np.random.default_rng(4)
    plain, odd = _tables(n), _tables(n)
    for coup in range(30):
        actions = rng.integers(0, 4, (n, 12)) * np.array([5] * 4 + [1] * 8)
        skip = rng.random(n) < 0.3
        plain.play(actions.astype(np.float64), skip)
        variants = [actions, np.asfortranarray(actions), np.repeat(actions, 2, axis=1)[:, ::2]]
        odd_actions = variants[coup % 3]
        odd_skip = np.repeat(skip, 2)[::2] if coup % 2 else skip.copy()
        odd_actions.flags.writeable = odd_skip.flags.writeable = False
        odd.play(odd_actions, odd_skip)
    for a, b in zip((*plain.state, *plain.record, plain.flat), (*odd.state, *odd.record, odd.flat)):
        np.testing.assert_array_equal(a, b)
    assert (plain.placed > 0).any()


def test_a_bankroll_edited_into_nonsense_stops_the_coup() -> None:
    # Tables' arrays are public; what only the kernel can see, it checks: no coup ends below zero
    for value in (np.nan, -5.0):
        tables = _tables(1)
        tables.bankroll[:] = value
        with pytest.raises(ValueError, match="below 0"):
            tables.play(np.zeros((1, 12)))


@pytest.mark.parametrize("threads", [False, True])
def test_a_table_left_without_a_seed_for_its_shuffle_stops_the_step(threads: bool) -> None:
    # Tables draws every table's seeds before the kernel runs; should a table ever reach a shuffle
    # with its row of seeds used up, the kernel refuses the whole step before playing any table,
    # instead of reading past the row. A skipped table, or one whose seeds are used up but whose
    # shoe needs no shuffle, is no reason to refuse.
    n = 6
    tables = _tables(n, threads=threads)
    tables.play(np.zeros((n, 12)))  # every table shuffled; none needs to now
    size = tables._seeds.shape[1]
    tables._used[:] = size

    def play(skip: np.ndarray | None = None) -> None:
        tables._spent = 0  # so that Tables does not draw: the kernel's guard alone
        tables.play(np.zeros((n, 12)), skip)

    tables.needs_shuffle[:] = False
    play()  # seeds used up, no shuffle due: played
    assert tables.played.all()
    tables.needs_shuffle[2] = True
    play(np.arange(n) == 2)  # the one due is skipped: played
    assert tables.played.sum() == n - 1
    before = [a.copy() for a in (*tables.state, *tables.record)]
    with pytest.raises(ValueError, match="no seed left"):
        play()
    for a, b in zip(before, (*tables.state, *tables.record), strict=True):
        np.testing.assert_array_equal(a, b)  # no table played


def test_tables_need_their_generators_before_playing() -> None:
    with pytest.raises(RuntimeError, match="generators"):
        Tables(RULES, 2, 100.0, 1).play(np.zeros((2, 12)))


@pytest.mark.parametrize(
    "env_kwargs, action",
    [
        ({}, np.zeros(11)),
        ({}, np.zeros((2, 12))),
        ({}, np.zeros((3, 4))),  # twelve numbers, but not a row of them
        ({}, ["1", "2"]),
        ({}, [[1, 2], [3]]),  # ragged
        ({}, np.array([None] * 12)),
        ({"action_form": "discrete"}, 1.0),
        ({"action_form": "discrete"}, np.array([1, 2])),
        ({"action_form": "discrete"}, 99),
        ({"action_form": "discrete"}, -1),
    ],
)
def test_the_env_refuses_actions_of_another_shape_or_kind(env_kwargs, action) -> None:
    env = gym.make("TrenteEtQuarante-v0", **env_kwargs)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(action)


@pytest.mark.parametrize(
    "action",
    [np.zeros((4, 12)), np.zeros((5, 12)), np.zeros((4, 11)), np.zeros(48), np.zeros((4, 12), dtype="U1")],
)
def test_the_vector_env_refuses_actions_of_another_shape_or_kind(action) -> None:
    venv = TrenteEtQuaranteVectorEnv(num_envs=3)
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="12 numbers per table"):
        venv.step(action)
    assert (venv.tables.coups == 0).all()


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize(
    "bad",
    [np.array([0, 17, 1]), np.array([-1, 0, 0]), np.array([2**63 - 1, 0, 0]), np.array([0, 0, 2**64 - 1], np.uint64)],
)
def test_the_vector_env_refuses_discrete_actions_outside_the_menu(bad: np.ndarray, threads: bool) -> None:
    # the range of discrete actions is checked by the kernel before any table plays (not by two
    # passes in Python); the error still names the actions, and nothing is played
    venv = TrenteEtQuaranteVectorEnv(num_envs=3, action_form="discrete", observation="flat", threads=threads)
    venv.reset(seed=0)
    assert venv.single_action_space.n == 17
    venv.step(np.array([0, 16, 3]))
    before = [a.copy() for a in (*venv.tables.state, *venv.tables.record, venv.tables.flat)]
    with pytest.raises(ValueError, match=r"discrete action \[.*\] out of range 0..16"):
        venv.step(bad)
    for a, b in zip(before, (*venv.tables.state, *venv.tables.record, venv.tables.flat), strict=True):
        np.testing.assert_array_equal(a, b)
    venv.step(np.array([1, 2, 3]))
    assert (venv.tables.coups == 2).all()


def test_settle_refuses_stakes_for_boxes_that_do_not_exist() -> None:
    with pytest.raises(ValueError, match="4 numbers"):
        settle(RULES, np.ones((2, 5)), 0, True)
    with pytest.raises(ValueError, match="4 numbers"):
        settle(RULES, np.ones((2, 2, 4)), 0, True)
    with pytest.raises(ValueError, match="result codes"):
        settle(RULES, np.ones(4), 9, True)


def test_deal_row_refuses_positions_and_codes_outside_the_shoe() -> None:
    cards = np.arange(52, dtype=np.uint8)
    assert deal_row(cards, 0)[0] >= 31
    with pytest.raises(ValueError, match="before the start"):
        deal_row(cards, -3)
    with pytest.raises(ValueError, match="not a card code"):
        deal_row(np.full(8, 60, dtype=np.uint8), 0)
    assert deal_row(cards, 52) == (0, 52)  # past the end: the shoe has run out


def test_deal_next_refuses_dead_cards_outside_the_shoe() -> None:
    """deal_next bounds its reads by the live cards (all but the dead ones), not by a slice of the
    shoe: dead cards outside 0..size would move that bound before the shoe or past its end."""
    cards = np.arange(52, dtype=np.uint8)
    for dead in (-1, 53):
        with pytest.raises(ValueError, match="dead cards"):
            deal_next(cards, 0, 10, dead)
    # every card dead: the coup is void at once, the shoe must be shuffled
    assert deal_next(cards, 0, 10, 52) == (0, 0, 0, 0, True)
    assert deal_next(cards, 0, 10, 0)[0] >= 31


def _obs(n: int = 2, **changes) -> dict[str, np.ndarray]:
    obs = {
        "bankroll": np.full((n, 1), 100.0),
        "coups": np.zeros((n, 1)),
        "results": np.full((n, 3), 5),
        "couleur": np.full((n, 3), 2),
        "prison": np.zeros((n, 8)),
    }
    return {**obs, **changes}


def test_a_strategy_refuses_observations_whose_parts_disagree() -> None:
    flat = make_strategy("flat", RULES)
    with pytest.raises(ValueError, match="8 numbers per session"):
        flat.act(_obs(prison=np.zeros((2, 3))))
    with pytest.raises(ValueError, match="disagree"):
        flat.act(_obs(coups=np.zeros((3, 1))))


def test_a_strategy_refuses_the_memory_of_another() -> None:
    _, flat_state = make_strategy("flat", RULES).act(_obs())
    with pytest.raises(ValueError, match="not a memory of labouchere"):
        make_strategy("labouchere", RULES).act(_obs(), flat_state)
    broken = SessionState(2, np.zeros((2, 3), dtype=np.int64), np.zeros(2))
    with pytest.raises(ValueError, match="not a memory of flat"):
        make_strategy("flat", RULES).act(_obs(), broken)


@pytest.mark.parametrize(
    "spec, column, value, message",
    [
        ("paroli", kernel.LEVEL, 99, "sequence step"),
        ("paroli", kernel.LEVEL, -1, "sequence step"),
        ("fibonacci", kernel.LEVEL, 60, "Fibonacci step"),
        ("labouchere", kernel.HI, 10_000, "Labouchère line"),
        ("labouchere", kernel.LO, -4, "Labouchère line"),
    ],
)
def test_a_state_row_edited_by_hand_raises_instead_of_reading_outside_it(spec, column, value, message) -> None:
    strategy = make_strategy(spec, RULES)
    obs = _obs(coups=np.ones((2, 1)))
    _, state = strategy.act(obs)
    state.ints[:, column] = value
    with pytest.raises(ValueError, match=message):
        strategy.act(obs, state)


class WildBox(Progression):
    """A plugin whose hook bets on a box that does not exist."""

    name = "wild-box"

    def _bet(self, state: SessionState) -> tuple[int, np.ndarray]:
        return 7, np.ones(state.n, dtype=np.int64)


def test_a_plugin_betting_on_a_box_that_does_not_exist_is_refused() -> None:
    with pytest.raises(ValueError, match="boxes are -1..3"):
        WildBox(rules=RULES).act(_obs())
    # the kernel itself writes no bet for such a box, even when asked directly
    k, f = make_strategy("flat", RULES).kernel_params()
    state = np.zeros((1, kernel.LINE), dtype=np.int64)
    active, _ = kernel.limit_rows(f, state, np.array([100.0]), np.array([7]), np.array([1]))
    assert not active[0]


def test_the_compiled_loop_refuses_what_it_cannot_play() -> None:
    wild = WildBox(rules=RULES)
    flat = make_strategy("flat", RULES)
    with pytest.raises(ValueError, match="built-in systems only"):
        play_compiled([flat, wild], RULES, 100.0, 5, [1, 2])
    for kwargs, message in (
        ({"shuffles": 0}, "shuffles must be"),
        ({"coups": -1}, "coups must be"),
        ({"keep": -2}, "keep must be"),
        ({"bankroll": 1e13}, "bankroll must be positive"),
    ):
        args = {"bankroll": 100.0, "coups": 5, **kwargs}
        with pytest.raises(ValueError, match=message):
            play_compiled([flat], RULES, args.pop("bankroll"), args.pop("coups"), [1, 2], **args)


def test_the_streak_counter_ignores_sides_that_are_not_sides() -> None:
    counts = np.zeros((2, 4, 2), dtype=np.int64)
    side, run = _tally(np.array([0, 0, 7, -1, 1, -9, 1], dtype=np.int8), 5, -3, counts)
    assert (side, run) == (1, 2) and counts.sum() == 3  # four decided coups, the first with no streak before it
    with pytest.raises(ValueError, match="shape"):
        _tally(np.zeros(3, dtype=np.int8), -1, 0, np.zeros((2, 0, 2), dtype=np.int64))


REPRODUCER = """
    import gymnasium as gym
    import numpy as np
    import trente_env

    n, steps = {n}, {steps}
    env = gym.make_vec("TrenteEtQuarante-v0", num_envs=n, coup_info=True)
    env.reset(seed=0)
    env.action_space.seed(0)
    action = env.action_space.sample()
    for _ in range(steps):
        before = env.bankroll.copy()
        obs, reward, terminated, truncated, info = env.step(action)
        played = info["_stakes"]
        stakes = info["stakes"]
        assert (stakes >= 0).all() and (stakes <= 1000.0).all()
        assert (stakes.sum(axis=1)[played] <= before[played]).all()
        assert (env.bankroll >= 0).all() and (obs["bankroll"] >= 0).all()
        assert np.array_equal(env.bankroll[played] - before[played], reward[played])
    print("ok", n, steps)
"""


@pytest.mark.slow
@pytest.mark.parametrize("n", [50_000, 100_000])
def test_the_issues_reproducer_runs_1000_steps(n: int) -> None:
    namespace: dict = {}
    exec(textwrap.dedent(REPRODUCER.format(n=n, steps=1000)), namespace)  # in this process


@pytest.fixture(scope="module")
def fresh_cache(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("numba-cache"))


@pytest.mark.slow
@pytest.mark.parametrize("n", [50_000, 100_000])
def test_the_issues_reproducer_runs_1000_steps_under_bounds_checking(n: int, fresh_cache: str) -> None:
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": fresh_cache}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(REPRODUCER.format(n=n, steps=1000))],
        env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith(f"ok {n} 1000"), done.stderr[-3000:]

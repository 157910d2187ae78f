"""Money that cannot leave its declared space: a bankroll is never below zero, a stake never above
the money in hand or the table maximum, and amounts the kernels cannot hold are refused at input.

Regression tests for issue 11 (item 7): an insured all-in stake left the bankroll at about -1e-14
(12 of 99,901 cent bankrolls); a bankroll of 9.3e18 or 1e300 and a table maximum of inf made every
system stop betting (int64 overflow); ``oscars-grind:goal=9223372036854775807`` played like flat.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from typer.testing import CliRunner

import trente_env  # noqa: F401  (registers the environments)
from experiments.cli import app
from experiments.errors import TournamentError
from experiments.tournament.config import make_config
from strategies import StrategyError, kernel, make_strategy
from trente_env.croupier import make_legal
from trente_env.rules import MAX_MONEY, RuleSet, get_rules
from trente_env.settle import paid
from trente_env.tables import Tables


def test_every_cent_bankroll_stays_at_zero_or_more_after_an_insured_all_in() -> None:
    # 99,901 tables, table i holding i cents (0.01 .. 999.01), each staking everything on Noir, insured
    rules = get_rules("classic")
    cents = np.arange(1, 99_902)
    tables = Tables(rules, cents.size, 1000.0, 1, offsets={"bankroll": 0, "coups": 1, "prison": 2})
    tables.seed([np.random.default_rng(i) for i in range(cents.size)])
    tables.reset_rows()
    tables.bankroll[:] = cents / 100
    before = tables.bankroll.copy()
    actions = np.zeros((cents.size, 12))
    actions[:, 0] = 10_000  # more than anyone holds: cut to what the bankroll covers
    actions[:, 4] = 1
    tables.play(actions)
    stake = tables.placed[:, 0]
    insured = tables.insured[:, 0]
    cost = stake + 0.01 * stake  # the premium, summed as the bankroll pays it (settle.paid)
    assert np.array_equal(cost[insured], np.array([paid(s, True, 0.01) for s in stake[insured]]))
    assert (before - cost >= 0).all()  # the money left after the stake, never negative
    # the largest whole stake that fits, exactly
    assert np.array_equal(stake, np.floor(stake)) and insured[before >= 1.01].all()
    more = stake + 1
    assert (more + 0.01 * more > before).all()
    lost = tables.coup[:, 2] == 1  # Rouge won: the insured stake and its premium are gone
    assert lost.sum() > 40_000 and (tables.bankroll >= 0).all() and (tables.flat[:, 0] >= 0).all()
    assert np.array_equal(tables.bankroll[lost], before[lost] - cost[lost])
    # the 12 bankrolls of the issue: the old rule (floor of the division, then the product) went below 0
    old = np.floor(before / 1.01)
    assert (before - old * 1.01 < 0).sum() == 12


def test_the_issues_insured_all_in_keeps_the_observation_in_its_space() -> None:
    for seed in range(40):  # every one of these deals, won or lost
        env = gym.make("TrenteEtQuarante-v0", bankroll=96.96, observation="flat", coup_info=True)
        env.reset(seed=seed)
        action = np.zeros(12, dtype=np.int64)
        action[0], action[4] = 1000, 1
        obs, reward, *_, info = env.step(action)
        assert env.observation_space.contains(obs)
        stake = info["stakes"][0]
        assert stake == 96.0 and paid(stake, True, 0.01) <= 96.96 < paid(stake + 1, True, 0.01)
        assert env.unwrapped.bankroll >= 0 and env.unwrapped.bankroll - 96.96 == reward


@pytest.mark.parametrize(
    "want, avail, insure, expected",
    [
        (10.0, 100.0, False, 10.0),
        (np.nan, 100.0, True, 0.0),
        (np.inf, 100.0, False, 100.0),  # cut to the money in hand (the table maximum is 1000)
        (np.inf, 1e6, False, 1000.0),
        (-np.inf, 100.0, False, 0.0),
        (-3.0, 100.0, False, 0.0),
        (50.0, 50.49, True, 49.0),  # 50 insured costs 50.5
        (0.5, 100.0, False, 0.0),  # under the table minimum
        (1.0, 1.0, True, 0.0),  # 1 insured costs 1.01: nothing fits
    ],
)
def test_make_legal_cuts_to_the_table_and_the_money_in_hand(want, avail, insure, expected) -> None:
    stake, insured = make_legal(want, insure, avail, True, True, 0.01, 1.0, 1000.0)
    assert stake == expected and insured == (insure and stake > 0)
    assert paid(stake, insured, 0.01) <= avail


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: gym.make("TrenteEtQuarante-v0", bankroll=9.3e18), "bankroll must be positive, at most 1e\\+12"),
        (lambda: gym.make("TrenteEtQuarante-v0", bankroll=1e300), "at most 1e\\+12"),
        (lambda: gym.make("TrenteEtQuarante-v0", bankroll=float("nan")), "bankroll"),
        (lambda: gym.make_vec("TrenteEtQuarante-v0", num_envs=2, bankroll=float("inf")), "at most 1e\\+12"),
        (lambda: gym.make("TrenteEtQuarante-v0", bankroll=100, target=1e13), "target must be positive"),
        (lambda: RuleSet(table_max=float("inf")), "table_max must be a finite number"),
        (lambda: get_rules("classic", table_max=MAX_MONEY * 10), "at most 1e\\+12"),
        (lambda: make_config(bankroll=9.3e18), "above 1e\\+12 units"),
        (lambda: make_config(bankroll=float("inf")), "above 1e\\+12 units"),
        (
            lambda: make_strategy("oscars-grind:goal=9223372036854775807"),
            "goal must be whole numbers from 1 to 2\\*\\*40",
        ),
        (lambda: make_strategy("labouchere:line=1-2-1099511627777"), "line must be whole numbers from 1 to 2\\*\\*40"),
        (lambda: make_strategy("dalembert:step=1099511627777"), "step must be"),
        (lambda: make_strategy("1-3-2-6:sequence=1-3-2-9999999999999"), "sequence must be"),
        (lambda: make_strategy("streak:k=1099511627777"), "k must be a whole number from 1 to 2\\*\\*40"),
    ],
)
def test_amounts_the_kernels_cannot_hold_are_refused_in_one_line(make, message) -> None:
    with pytest.raises((ValueError, StrategyError, TournamentError), match=message) as caught:
        make()
    assert "\n" not in str(caught.value)


def test_the_tournament_refuses_a_bankroll_the_tables_cannot_count(tmp_path) -> None:
    args = ["tournament", "--bankroll", "9.3e18", "--sessions", "10", "--coups", "5", "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2  # the parser's range says it first
    assert "--bankroll" in result.output and "less than or equal to 1000000000000" in result.output
    assert "Traceback" not in result.output  # make_config refuses it too: see the test above


# -- the kernel holds its arithmetic inside int64 even if the checks above were bypassed --------------


def test_whole_and_times_never_overflow() -> None:
    cap = kernel.STAKE_CAP
    assert [kernel.whole(x) for x in (np.nan, -5.0, 0.0, 7.9, 9.3e18, 1e300, np.inf)] == [0, 0, 0, 7, cap, cap, cap]
    assert kernel.times(3, 4) == 12 and kernel.times(2**31 - 1, 2**31 - 1) == (2**31 - 1) ** 2
    assert kernel.times(2**40, 2**40) == cap and kernel.times(2**63 - 1, 2**63 - 1) == cap
    assert kernel.times(2**40, 3) == 3 * 2**40  # exact below 2**53
    assert kernel.affordable(9.3e18, 0.0) == cap and kernel.affordable(1e300, 0.01) == cap


def _first_stakes(spec: str, bankroll: float, table_max: float, results: list[int], **k_changes: int) -> list[int]:
    """The stakes a built-in system places on Noir over a few coups whose ``results`` are given, with
    its parameters bypassing every check (``table_max`` straight into the float vector, ``k_changes``
    into the int vector)."""
    k, f = (a.copy() for a in make_strategy(spec, get_rules("classic")).kernel_params())
    f[kernel.F_TABLE_MAX] = table_max
    for column, value in k_changes.items():
        k[getattr(kernel, column)] = value
    state = np.zeros((1, kernel.LINE + 16), dtype=np.int64)
    kernel.init_rows(state, k)
    start = np.zeros(1)
    stakes = []
    last = 5  # no coup yet
    for coup, result in enumerate([*results, 5]):
        actions = np.zeros((1, 12), dtype=np.int64)
        seen = (np.array([bankroll]), np.array([coup]), np.array([last]), np.array([2]), np.zeros((1, 8)))
        kernel.act_rows(k, f, state, start, seen, np.array([coup == 0]), np.zeros(1, dtype=np.int64), actions)
        stakes.append(int(actions[0, 0]))
        last = result
    return stakes[:-1]


def test_a_huge_bankroll_or_an_infinite_table_maximum_still_bets() -> None:
    assert _first_stakes("flat", 9.3e18, 1000.0, [0, 1]) == [1, 1]
    assert _first_stakes("flat", 1e300, np.inf, [0, 1]) == [1, 1]
    assert _first_stakes("martingale", 1e300, np.inf, [1, 1, 1]) == [1, 2, 4]


def test_a_huge_oscar_goal_does_not_play_like_flat() -> None:
    # lose, lose, win, win: Oscar keeps the stake after a loss and raises it after each win while the
    # cycle's goal is out of reach; with int64 overflowing, a win that left the cycle behind reset it to 1
    assert _first_stakes("oscars-grind", 1000.0, 1000.0, [1, 1, 0, 0, 0], K_STEP=2**63 - 1) == [1, 1, 1, 2, 3]
    assert _first_stakes("oscars-grind", 1000.0, 1000.0, [1, 1, 0, 0, 0], K_STEP=2**40) == [1, 1, 1, 2, 3]

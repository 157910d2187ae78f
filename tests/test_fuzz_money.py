"""Money at any bankroll the lab accepts, the random system's draws, and the vector env's sizes.

A system's decisions must not depend on how much money is in hand while no ruin is reachable: the
bankroll travels exact (float64) to the stop rules and stake limits, never through the
observation's float32 copy (which loses a unit above 2**24 units). The random system draws by
session, whatever block or batch the session is played in. Sizes and stake levels that mean
nothing are refused in one line.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trente_env  # noqa: F401  (registers the ids)
from strategies.registry import LINEUP, catalogue, make_strategy
from strategies.runner import play_on_env, session_seeds
from strategies.sessions import is_compiled, play_compiled
from trente_env.rules import MAX_MONEY, get_rules
from trente_env.tables import machine_memory, table_bytes

RULES = get_rules("classic")
COUPS = 40
#: Fields that are the system's decisions (what it staked, where, when it stopped), equal at any
#: bankroll while the bankroll binds nothing.
DECISIONS = ("staked", "coups", "walked", "table_max_hits", "bankroll_hits", "box_stakes", "rig_staked")
#: Every built-in system, with stop rules on a flat bet and a progression (the rules money decides).
SYSTEMS = (
    *LINEUP,
    "flat:stop_win=5",
    "flat:stop_loss=3",
    "martingale:stop_win=2,stop_loss=40",
    "dalembert:stop_win=7",
)
#: The least bankroll of the property: more than a session can lose (COUPS coups, four boxes at the
#: table maximum each), so no ruin and no bankroll limit is reachable.
LEAST = 4 * COUPS * RULES.table_max * 2


def test_every_builtin_system_is_in_the_property() -> None:
    """The property below covers every built-in the registry knows that plays compiled."""
    names = {spec.split(":")[0] for spec in SYSTEMS}
    compiled = {name for name in catalogue() if is_compiled(make_strategy(name, RULES))}
    assert compiled <= names


@settings(max_examples=12, deadline=None)
@given(
    bankroll=st.integers(int(LEAST), int(MAX_MONEY) // 10),
    k=st.integers(0, 11),
    seed=st.integers(0, 2**32 - 1),
)
def test_decisions_do_not_depend_on_the_bankroll(bankroll: int, k: int, seed: int) -> None:
    """Bankroll B and B + 10**k (within the lab's limit) play the same bets on the same shoes."""
    more = bankroll + 10**k
    if more > MAX_MONEY:
        more = MAX_MONEY
    systems = [make_strategy(spec, RULES) for spec in SYSTEMS]
    seeds = session_seeds(seed, 6)
    low = play_compiled(systems, RULES, float(bankroll), COUPS, seeds)
    high = play_compiled(systems, RULES, float(more), COUPS, seeds)
    for spec, a, b in zip(SYSTEMS, low, high, strict=True):
        for field in DECISIONS:
            np.testing.assert_array_equal(a[field], b[field], err_msg=f"{spec}: {field}")
        np.testing.assert_array_equal(a["net"], b["net"], err_msg=f"{spec}: net")  # whole units: exact
        np.testing.assert_array_equal(a["final_bankroll"] - float(bankroll), b["final_bankroll"] - float(more))


@pytest.mark.parametrize("bankroll", [1e3, 2.0**24 + 1, 1e9, MAX_MONEY])
def test_stop_win_walks_away_at_any_bankroll_on_the_env_and_the_compiled_loop(bankroll: float) -> None:
    """flat:stop_win=5 walks away in the same sessions at every bankroll (no ruin is reachable in
    40 one-unit coups from 1,000), on the vector env (the observation is float32) as in the loop."""
    system = make_strategy("flat:stop_win=5", RULES)
    seeds = session_seeds(7, 60)
    reference = play_compiled([system], RULES, 1e3, COUPS, seeds)[0]["walked"]
    assert 0 < reference.sum() < reference.size  # the comparison means something
    compiled = play_compiled([system], RULES, bankroll, COUPS, seeds)[0]
    on_env = play_on_env(system, RULES, bankroll, COUPS, seeds)
    np.testing.assert_array_equal(compiled["walked"], reference)
    np.testing.assert_array_equal(on_env["walked"], reference)
    np.testing.assert_array_equal(on_env["net"], compiled["net"])


def test_act_reads_the_exact_money_when_given() -> None:
    """At 2**24 + 1 units a one-unit gain is lost in the float32 observation; ``money`` keeps it."""
    system = make_strategy("flat:stop_win=1", RULES)
    start = 2.0**24
    obs = {
        "bankroll": np.array([[start]], dtype=np.float32),
        "coups": np.zeros((1, 1), np.float32),
        "results": np.full((1, 10), 5, np.int64),
        "couleur": np.full((1, 10), 2, np.int64),
        "prison": np.zeros((1, 8), np.float32),
    }
    _, state = system.act(obs, None, money=np.array([start]))
    obs["bankroll"][:] = np.float32(start + 1)  # rounds back to 2**24
    obs["coups"][:] = 1
    _, state = system.act(obs, state, money=np.array([start + 1]))
    assert state.walked[0]
    assert obs["bankroll"][0, 0] == start  # what the observation alone shows: no gain


@pytest.mark.parametrize("policy", ["random", "random:p_bet=0.5,seed=3"])
def test_random_draws_do_not_depend_on_the_block(policy: str) -> None:
    """The sessions of a run played in blocks of 1, 3, 7 or all 20 (as a tournament's ``block``
    splits them) give the random system the same numbers: its draws are keyed to the session."""
    system = make_strategy(policy, RULES)
    n = 20
    whole = play_compiled([system], RULES, 100.0, COUPS, session_seeds(11, n))[0]
    for block in (1, 3, 7):
        parts = [
            play_compiled([system], RULES, 100.0, COUPS, session_seeds(11, min(block, n - first), first))[0]
            for first in range(0, n, block)
        ]
        for field in ("net", "staked", "coups"):
            np.testing.assert_array_equal(np.concatenate([p[field] for p in parts]), whole[field], err_msg=field)
    on_env = play_on_env(system, RULES, 100.0, COUPS, session_seeds(11, 7, 13))
    np.testing.assert_array_equal(on_env["net"], whole["net"][13:20])  # the env path: the same draws


def test_a_tournament_of_the_random_system_gives_the_same_numbers_at_every_block(tmp_path) -> None:
    """The tournament's ``block`` (sessions per checkpointed task) changes nothing for ``random``."""
    from experiments.tournament.config import make_config
    from experiments.tournament.runner import run_tournament

    specs = "random,random:p_bet=0.3,seed=5"
    docs = [
        run_tournament(make_config(specs, sessions=24, coups=20, seed=4, block=n), tmp_path / str(n), plots=False)
        for n in (24, 1, 5, 9)
    ]
    for doc in docs[1:]:
        assert doc["strategies"] == docs[0]["strategies"]


@pytest.mark.parametrize("num_envs", [2.5, 0, -1, True, "3"])
def test_make_vec_refuses_a_number_of_tables_that_is_not_whole(num_envs: object) -> None:
    with pytest.raises(ValueError, match="num_envs must be a whole number"):
        gym.make_vec("TrenteEtQuarante-v0", num_envs=num_envs, vectorization_mode="vector_entry_point")


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        ([float("nan")], "finite"),
        ([5.0, float("inf")], "finite"),
        ([float("-inf")], "finite"),
        ([-5.0], "outside the table limits"),
        ([5.0, 5.0], "differ"),
    ],
)
def test_meaningless_stake_levels_are_refused(levels: list[float], message: str) -> None:
    for make in (
        lambda: gym.make("TrenteEtQuarante-v0", action_form="discrete", stake_levels=levels),
        lambda: gym.make_vec(
            "TrenteEtQuarante-v0",
            num_envs=2,
            vectorization_mode="vector_entry_point",
            action_form="discrete",
            stake_levels=levels,
        ),  # fmt: skip
    ):
        with pytest.raises(ValueError, match=message):
            make()


def test_a_vector_env_larger_than_the_machine_is_refused_before_allocation() -> None:
    """Twice the tables this machine's memory holds (at the least a table takes, an observation of
    no width), and 10**7 tables where that is more than the machine has: one line saying what
    it would need, raised before any table's array is allocated."""
    have = machine_memory()
    if have is None:
        pytest.skip("this machine's memory cannot be read")
    least = table_bytes(RULES, 10, 0)
    sizes = [2 * (have // least) + 1] + ([10**7] if 10**7 * least > have else [])
    for n in sizes:
        with pytest.raises(ValueError, match=r"tables would need about [\d,.]+ GB of memory; this machine has"):
            gym.make_vec("TrenteEtQuarante-v0", num_envs=int(n), vectorization_mode="vector_entry_point")


UNDER_A_CAP = """
import resource, sys
import gymnasium as gym, trente_env
from trente_env.rules import get_rules
from trente_env.tables import machine_memory, table_bytes

with open("/proc/self/statm") as f:
    mapped = int(f.read().split()[0]) * resource.getpagesize()
cap = mapped + 1_500_000_000  # a process under `ulimit -v`: 1.5 GB more than it maps now
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
n = int(2_500_000_000 // table_bytes(get_rules("classic"), 10, 0)) + 1  # tables of 2.5 GB: past the cap
assert machine_memory() <= cap - mapped, (machine_memory(), cap - mapped)
try:
    gym.make_vec("TrenteEtQuarante-v0", num_envs=n, vectorization_mode="vector_entry_point")
except BaseException as error:
    print("ValueError" if isinstance(error, ValueError) else type(error).__name__, error)
"""


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads the mapped size from /proc (Linux)")
def test_a_vector_env_beyond_the_address_space_limit_is_refused_before_allocation() -> None:
    """Under an address-space limit (``ulimit -v``, a batch system's cap), far below the machine's
    memory, the tables are measured against what the limit leaves: one ValueError, not numpy's
    MemoryError from an allocation the limit refuses."""
    have = machine_memory()
    if have is not None and have < 3_000_000_000:
        pytest.skip("this machine has less memory than the tables asked for: the cap would not be what refuses")
    done = subprocess.run([sys.executable, "-c", UNDER_A_CAP], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.match(r"ValueError [\d,]+ tables would need about 2\.\d GB of memory", done.stdout), done.stdout


def test_the_table_size_estimate_is_not_below_the_arrays() -> None:
    """The estimate covers the arrays a table allocates (counted from a real one) and its generator."""
    from trente_env.vector import TrenteEtQuaranteVectorEnv

    venv = TrenteEtQuaranteVectorEnv(50, observation="flat", history=30)
    tables = venv.tables
    arrays = sum(
        a.nbytes for bundle in (tables.state, tables.record, tables.final) for a in bundle if isinstance(a, np.ndarray)
    )
    arrays += tables.flat.nbytes + tables._seeds.nbytes
    width = tables.flat.shape[1]
    assert table_bytes(RULES, 30, width) * 50 >= arrays


# -- Strategy.act without the exact money ------------------------------------------------------


def _stakes_of_the_readme_loop(monkeypatch, bankroll: float) -> int:
    """The README's strategy loop run as written, on tables started at ``bankroll`` and with a flat
    bet that walks away 5 units up: how many (table, coup) pairs it staked on."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    snippet = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "make_strategy" in b)
    assert '"martingale:base=1"' in snippet
    make_vec, staked = gym.make_vec, []

    def on_tables(*args, **kwargs):
        envs = make_vec(*args, bankroll=bankroll, **kwargs)
        step = envs.step

        def counted(actions):
            staked.append(int(np.any(np.asarray(actions) != 0, axis=1).sum()))
            return step(actions)

        envs.step = counted
        return envs

    with monkeypatch.context() as patch:
        patch.setattr(gym, "make_vec", on_tables)
        exec(snippet.replace('"martingale:base=1"', '"flat:stop_win=5"'), {})  # noqa: S102  (the README's own code)
    return sum(staked)


def test_the_readmes_strategy_loop_stops_at_any_bankroll(monkeypatch):
    """The stop rule fires the same at 1,000 units and at 1e9 (above float32's whole units): the loop
    gives the system the exact money (it placed 50,089 stakes at 1,000 and 99,842 at 1e9 without it)."""
    assert _stakes_of_the_readme_loop(monkeypatch, 1_000.0) == _stakes_of_the_readme_loop(monkeypatch, 1e9)


def test_act_without_the_exact_money_warns_once_above_2_to_the_24(monkeypatch):
    import warnings

    from strategies import base

    monkeypatch.setattr(base, "_warned_rounded_money", False)
    envs = gym.make_vec("TrenteEtQuarante-v0", num_envs=20, vectorization_mode="vector_entry_point", bankroll=1e9)
    flat = make_strategy("flat:stop_win=5")
    obs, _ = envs.reset(seed=0)
    state = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(5):
            actions, state = flat.act(obs, state, money=envs.bankroll)
            obs, *_ = envs.step(actions)
        assert not caught  # the exact money: nothing to say
        for _ in range(5):
            actions, state = flat.act(obs, state)
            obs, *_ = envs.step(actions)
    said = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(said) == 1 and "money=envs.bankroll" in str(said[0].message), [str(w.message) for w in caught]
    assert said[0].filename == __file__  # pointed at the caller's line

"""The compile policy (:mod:`trente_env.jit`): one place for every kernel, caches that cannot outlive
an edit of any kernel source, and a private numba option with a tested fallback.

The subprocess tests compile a few kernels from scratch (a fresh cache folder each): about ten
seconds each on the development machine.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest

from trente_env import jit

ROOT = Path(jit.__file__).resolve().parent.parent
PACKAGES = ("trente_env", "strategies", "experiments")


def _python_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_every_kernel_module_is_in_the_fingerprint() -> None:
    # a module that compiles anything holds kernels: its edits must change the fingerprint
    uses = re.compile(
        r"\bjit\.(kernel|parallel|inline|hot)\b|numba\.(n?jit|prange|c?func|[a-z]*vectorize|stencil)\b|from numba"
    )
    for name in _python_files():
        if uses.search((ROOT / name).read_text()):
            assert name in jit.KERNEL_SOURCES, f"{name} compiles kernels: add it to trente_env.jit.KERNEL_SOURCES"
    assert all((ROOT / name).is_file() for name in jit.KERNEL_SOURCES)


def test_only_the_policy_calls_numba_njit() -> None:
    direct = re.compile(r"numba\.(njit|jit)\b|from numba import .*\b(njit|jit)\b")
    offenders = [
        name for name in _python_files() if name != "trente_env/jit.py" and direct.search((ROOT / name).read_text())
    ]
    assert offenders == [], "compile through trente_env.jit (kernel, parallel, inline, hot)"


def test_every_compiled_function_comes_from_a_fingerprinted_file() -> None:
    # a kernel compiled from another module's plain function (tables compiles coup.decide) ties that file in too
    import importlib

    for name in jit.KERNEL_SOURCES:
        module = importlib.import_module(name.removesuffix(".py").replace("/", "."))
        for value in vars(module).values():
            if isinstance(value, numba.core.registry.CPUDispatcher):
                source = Path(value.py_func.__code__.co_filename).resolve().relative_to(ROOT)
                assert str(source) in jit.KERNEL_SOURCES, (name, value.py_func.__name__)


def test_the_fingerprint_follows_every_kernel_source(tmp_path: Path) -> None:
    for name in jit.KERNEL_SOURCES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    before = jit.fingerprint(tmp_path)
    assert before == jit.fingerprint(ROOT) == jit.FINGERPRINT
    for name in jit.KERNEL_SOURCES:
        original = (tmp_path / name).read_text()
        (tmp_path / name).write_text(original + "\n# an edit\n")
        assert jit.fingerprint(tmp_path) != before, name
        (tmp_path / name).write_text(original)
    assert jit.fingerprint(tmp_path) == before


def test_the_cache_folder_is_a_fingerprint_folder_of_the_users_choice(tmp_path: Path, monkeypatch) -> None:
    assert jit.cache_folder("abc", str(tmp_path)) == tmp_path / "trente-lab-abc"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert jit.cache_folder("abc", "") == tmp_path / "xdg" / "trente-lab" / "numba-abc"
    assert jit.CACHE_DIR is not None and jit.CACHE_DIR.name.endswith(jit.FINGERPRINT)


def test_the_dispatchers_cache_in_the_fingerprint_folder() -> None:
    from trente_env.table_kernels import play_serial

    cache_path = Path(play_serial.stats.cache_path)
    assert jit.CACHE_DIR in cache_path.parents
    assert str(jit.CACHE_DIR) != numba.config.CACHE_DIR  # the user's setting is back once the kernels exist


def _run(script: str, root: Path, cache: Path | None) -> dict:
    """Run ``script`` with the packages of ``root`` (from there: ``python -c`` puts the working folder
    first on the path) and numba's cache in ``cache`` (None: the user's setting); its last line is JSON."""
    environ = {**os.environ, "PYTHONPATH": str(root)}
    if cache is not None:
        environ["NUMBA_CACHE_DIR"] = str(cache)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=root, env=environ, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# A table kernel (croupier.bet_and_settle) settles 10 units on Noir and on Rouge through settle.settle_box,
# which lives in another file; the result of the coup is given (Noir wins).
ONE_BET = """
    import json
    import numpy as np
    from trente_env.croupier import table_rules
    from trente_env.rules import get_rules
    from trente_env.croupier import bet_and_settle

    action = np.zeros(12)
    action[:2] = 10
    prison, placed, insured, back = np.zeros((4, 2)), np.zeros(4), np.zeros(4, np.bool_), np.zeros(4)
    rules = table_rules(get_rules("classic"))
    bet_and_settle(action, 100.0, prison, 0, True, np.full(1, 5), rules, (placed, insured, back))
    hits = sum(bet_and_settle.stats.cache_hits.values())
    print(json.dumps({"noir": back[0], "hits": hits}))
"""

# The same, through the environments' kernel (Tables.play -> table_kernels._play) and the tournament's
# (sessions.play_compiled -> sessions._play_block): flat 10 units on Noir for one coup, which Noir wins.
ONE_COUP = """
    import json
    import numpy as np
    from strategies.sessions import _play_block, play_compiled
    from strategies import make_strategy
    from trente_env.rules import get_rules
    from trente_env.table_kernels import play_serial
    from trente_env.tables import Tables

    rules = get_rules("classic")
    tables = Tables(rules, 1, 100.0, 1)
    tables.seed([np.random.default_rng(3)])
    tables.reset_rows()
    action = np.zeros((1, 12))
    action[0, 0] = 10
    tables.play(action)
    assert int(tables.coup[0, 2]) == 0  # the first coup of seed 3: Noir wins
    net = play_compiled([make_strategy("flat:base=10", rules)], rules, 100.0, 1, [3])[0]["net"][0]
    hits = sum(play_serial.stats.cache_hits.values()) + sum(_play_block.stats.cache_hits.values())
    print(json.dumps({"noir": tables.back[0, 0], "net": net, "hits": hits}))
"""

WIN = "return stake + payout * stake + prison1, prison2, 0.0, premium - payout * stake"
BIGGER_WIN = "return stake + 2 * payout * stake + prison1, prison2, 0.0, premium - 2 * payout * stake"


def _edit_a_rule_and_replay(tmp_path: Path, script: str, packages: tuple[str, ...]) -> tuple[dict, dict, dict]:
    """Run ``script`` on a copy of the packages twice (compiled, then from the cache), then after an edit
    of settle_box's payout of a win (1:1 becomes 2:1) in settle.py; the three results."""
    root = tmp_path / "copy"
    for package in packages:
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    first = _run(script, root, cache)
    again = _run(script, root, cache)
    settle = root / "trente_env" / "settle.py"
    assert WIN in settle.read_text()
    settle.write_text(settle.read_text().replace(WIN, BIGGER_WIN))
    edited = _run(script, root, cache)
    assert len(list(cache.glob("trente-lab-*"))) == 2  # the old rule's caches are still there, unused
    return first, again, edited


def test_an_edited_rule_runs_even_though_the_old_one_was_cached(tmp_path: Path) -> None:
    # numba alone checks bet_and_settle's cache against croupier.py only, which the edit leaves untouched
    first, again, edited = _edit_a_rule_and_replay(tmp_path, ONE_BET, ("trente_env",))
    assert first["hits"] == 0 and first["noir"] == 20.0  # compiled afresh, paid 1:1
    assert again["hits"] > 0 and again["noir"] == 20.0  # the old rule is cached, and used
    assert edited["hits"] == 0 and edited["noir"] == 30.0  # the new rule runs, compiled afresh


@pytest.mark.slow
def test_an_edited_rule_reaches_the_environments_and_the_tournament(tmp_path: Path) -> None:
    first, again, edited = _edit_a_rule_and_replay(tmp_path, ONE_COUP, PACKAGES)
    assert first["hits"] == 0 and again["hits"] == 2  # both kernels compiled, then both loaded
    assert first["noir"] == again["noir"] == 20.0 and first["net"] == again["net"] == 10.0
    assert edited["hits"] == 0 and edited["noir"] == 30.0 and edited["net"] == 20.0


def test_hot_kernels_without_the_private_option_compute_the_same_numbers() -> None:
    # a numba that no longer knows `_nrt` (removed here before trente_env is imported): `hot` falls back
    # to a plain cached kernel, silently (warnings are errors), and every number is the same
    play = """
        import json
        import numpy as np
        from strategies import LINEUP, make_strategy
        from trente_env import jit
        from trente_env.vector import TrenteEtQuaranteVectorEnv

        venv = TrenteEtQuaranteVectorEnv(num_envs=6, rules="choice", bankroll=60.0, observation="flat")
        obs, _ = venv.reset(seed=2)
        policies = [make_strategy(spec, venv.rules) for spec in LINEUP[1:7]]
        states = [None] * len(policies)
        rewards = []
        for coup in range(40):
            j = coup % len(policies)
            actions, states[j] = policies[j].act(obs, states[j])
            actions[:, 4] = coup % 2  # insure Noir on every other coup
            obs, reward, *_ = venv.step(actions)
            rewards.append(reward.tolist())
        print(json.dumps({"options": jit.HOT_OPTIONS, "rewards": rewards, "bankroll": venv.bankroll.tolist()}))
    """
    breaker = """
        import warnings
        warnings.simplefilter("error")
        from numba.core.cpu import CPUTargetOptions
        for cls in CPUTargetOptions.__mro__:
            if "_nrt" in vars(cls):
                delattr(cls, "_nrt")
        assert not hasattr(CPUTargetOptions, "_nrt")
    """
    plain = _run(textwrap.dedent(breaker) + textwrap.dedent(play), ROOT, None)  # cached as usual: its own folder
    usual = _run(play, ROOT, None)
    assert plain["options"] == {} and usual["options"] == jit.HOT_OPTIONS == {"_nrt": False}
    assert plain["rewards"] == usual["rewards"] and plain["bankroll"] == usual["bankroll"]
    assert np.abs(np.array(usual["rewards"])).sum() > 0  # money moved


def test_an_unknown_option_is_refused_without_compiling() -> None:
    assert jit.accepts({"_nrt": False})
    assert not jit.accepts({"_no_such_option": True})


def test_the_entry_point_falls_back_to_the_dispatcher() -> None:
    from trente_env.settle import _paid

    args = (10.0, True, 0.01)
    assert _paid(*args) == 10.0 + 0.01 * 10.0
    entry = jit.entry_point(_paid, args)
    assert entry is not _paid and entry(*args) == _paid(*args)

    def plain(*a: object) -> None:
        return None

    assert jit.entry_point(plain, args) is plain  # not a dispatcher: itself
    assert jit.entry_point(_paid, ("x", "y", "z")) is _paid  # never compiled for these types


def test_a_kernel_compiled_serial_and_parallel_keeps_two_caches() -> None:
    """numba keys cache entries by signature only: the serial and the parallel variants of one
    function must not share a cache file, or whichever was cached first serves both."""
    from trente_env import table_kernels

    pairs = ((table_kernels.play_serial, table_kernels.play_parallel),)
    for serial, threaded in pairs:
        files = {serial._cache._cache_file._index_path, threaded._cache._cache_file._index_path}
        assert len(files) == 2, files
        assert threaded.targetoptions.get("parallel") and not serial.targetoptions.get("parallel")


def test_the_compiled_entry_is_made_without_running_the_kernel() -> None:
    import numpy as np

    from trente_env.rules import get_rules
    from trente_env.table_kernels import hold, play_held
    from trente_env.tables import Tables

    tables = Tables(get_rules("classic"), 1, 100.0, 1)
    tables.seed([np.random.default_rng(0)])
    held = hold(*tables._one_args)
    entry = jit.compiled_entry(play_held, (held,))
    assert entry is not play_held and tables.coups[0] == 0  # compiled (or loaded), nothing played
    tables._draw_seeds()
    entry(held)
    assert tables.coups[0] == 1  # the held arguments are the tables' own arrays
    assert jit.compiled_entry(len, ([],)) is len  # not a dispatcher: itself


def _prefetched_sum(a, b):  # fmt: skip
    """The sum of ``a`` (2-D) and ``b`` (1-D), every row and entry prefetched first."""
    for i in range(a.shape[0]):
        jit.prefetch(a, (i, 0))
        jit.prefetch(a, (i, a.shape[1] - 1))
    for i in range(b.shape[0]):
        jit.prefetch(b, i)
    return a.sum() + b.sum()


def test_a_prefetch_changes_no_value() -> None:
    a, b = np.arange(12.0).reshape(3, 4), np.arange(5, dtype=np.uint8)
    kept = a.copy(), b.copy()
    assert jit.kernel(_prefetched_sum)(a, b) == 66.0 + 10.0
    assert np.array_equal(a, kept[0]) and np.array_equal(b, kept[1])


def test_a_prefetch_out_of_range_is_an_index_error_under_bounds_checking(tmp_path: Path) -> None:
    # a prefetch never faults, so a wrong index would pass silently: bounds checking must see it
    script = tmp_path / "prefetch_bounds.py"
    script.write_text(
        textwrap.dedent("""
            import json
            import numpy as np
            from trente_env import jit

            def touch(a, i, j):
                jit.prefetch(a, (i, j))
                return a[0, 0]

            kernel = jit.kernel(touch)
            a = np.zeros((3, 4))
            outcomes = []
            for i, j in ((2, 3), (3, 0), (0, 4), (-1, 0)):
                try:
                    kernel(a, i, j)
                    outcomes.append("ok")
                except IndexError:
                    outcomes.append("IndexError")
            print(json.dumps(outcomes))
        """)
    )
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, str(script)], env=environ, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["ok", "IndexError", "IndexError", "IndexError"]


def test_the_tables_play_on_tbbs_threads() -> None:
    """A fresh process (no threading layer named by the user) plays a threaded step on numba's
    threads under TBB, the first of :data:`jit.THREADING_LAYERS`: the ``tbb`` package is a
    dependency, and :func:`jit.load_tbb` finds its library wherever pip put it. Never OpenMP, whose
    spinning threads slowed torch and a busy host's neighbours."""
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the tbb package is a dependency on x86-64 only")
    script = textwrap.dedent(
        """
        import gymnasium as gym, numba, numpy as np
        import trente_env
        from trente_env import jit
        from trente_env.table_kernels import play_parallel
        venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=3, threads=True)
        assert venv.unwrapped.tables._play_kernel is play_parallel
        venv.reset(seed=0)
        venv.step(venv.action_space.sample())
        print(numba.threading_layer(), numba.config.THREADING_LAYER_PRIORITY == list(jit.THREADING_LAYERS))
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_THREADING_LAYER")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["tbb", "True"], out.stderr


def test_a_threading_layer_named_by_the_user_is_left_alone(tmp_path: Path) -> None:
    before = (numba.config.THREADING_LAYER, list(numba.config.THREADING_LAYER_PRIORITY))
    for named in ({"NUMBA_THREADING_LAYER": "omp"}, {"NUMBA_THREADING_LAYER_PRIORITY": "omp tbb workqueue"}):
        assert jit.choose_threading_layer(named) is False
        assert (numba.config.THREADING_LAYER, list(numba.config.THREADING_LAYER_PRIORITY)) == before
    assert set(jit.THREADING_LAYERS) == {"tbb", "omp", "workqueue"}  # numba refuses any other priority
    assert jit.THREADING_LAYERS[-1] == "omp"


def test_tbbs_library_is_loaded_from_the_folder_pip_puts_it_in(tmp_path: Path) -> None:
    assert jit.load_tbb([str(tmp_path)]) is None  # no library there
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / jit.TBB_LIBRARIES[0]).write_bytes(b"not a library")
    assert jit.load_tbb([str(tmp_path)]) is None  # one that does not load is passed over
    if platform.machine() not in ("x86_64", "AMD64"):
        return
    found = jit.load_tbb()
    assert found is not None and found.name in jit.TBB_LIBRARIES  # the tbb package, a dependency


# stderr replaced by a terminal look-alike before trente-lab is imported; one table's coup settled.
ANNOUNCED = """
    import io, json, sys

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    sys.stderr = terminal = Terminal() if {tty} else io.StringIO()
    import numpy as np
    from trente_env.croupier import table_rules
    from trente_env.rules import get_rules
    from trente_env.croupier import bet_and_settle

    action = np.zeros(12)
    action[:2] = 10
    prison, placed, insured, back = np.zeros((4, 2)), np.zeros(4), np.zeros(4, np.bool_), np.zeros(4)
    rules = table_rules(get_rules("classic"))
    bet_and_settle(action, 100.0, prison, 0, True, np.full(1, 5), rules, (placed, insured, back))
    print(json.dumps({{"said": sys.stderr.getvalue()}}))
"""


def test_the_first_compile_is_announced_once_on_a_terminal_only(tmp_path: Path) -> None:
    """A fresh cache: one line on a terminal before the kernels compile, none once they are cached,
    none when stderr is not a terminal (a pipe, a file, a test)."""
    first = _run(ANNOUNCED.format(tty=True), ROOT, tmp_path)["said"]
    folder = first.split("load them from ", 1)[-1].split("; ", 1)[0]
    assert first == jit.COMPILING.format(where=folder) + "\n"
    assert "`trente-lab warm`" in first and "half a minute" in first  # how long, once, and how to do it ahead
    assert Path(folder).parent == tmp_path  # the fingerprint folder in the cache given
    assert _run(ANNOUNCED.format(tty=True), ROOT, tmp_path)["said"] == ""  # cached: loaded, not compiled
    assert _run(ANNOUNCED.format(tty=False), ROOT, tmp_path / "other")["said"] == ""

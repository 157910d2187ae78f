"""Every file a command reads goes through one reader (:func:`experiments.files.open_input`): a FIFO,
a device, a folder, an empty or a deeply nested file given where a config, a manifest, a session, a
model or a plugin is read is refused in one line and exit code 2, before a byte is read: never a
hang, never a read that fills memory, never a traceback, never the default run instead."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.errors import LabError, TournamentError
from tests._patience import patience

runner = CliRunner()
posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo") or not hasattr(signal, "SIGALRM"), reason="POSIX only")


#: Seconds a refusal may take: it reads nothing, so any longer is a hang or a read of an endless file.
def one_line(result, code: int = 2) -> str:
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("trente-lab: error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "a = " + "[" * 100_000 + "]" * 100_000


def _make(kind: str, path: Path, deep: str) -> Path:
    """Put a ``kind`` of input at ``path``, and return it."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "deep":
        path.write_text(deep)
    elif kind == "/dev/zero":  # under the name the command expects (a model's .zip): a link to it
        path.symlink_to("/dev/zero")
    return path


#: Each command and option that reads a file: (name of the file, its deep form, the arguments).
READERS = {
    "tournament --config": ("c.toml", DEEP_TOML, lambda p, out: ["tournament", "--config", p, "--out", out]),
    "train --config": ("c.toml", DEEP_TOML, lambda p, out: ["train", "--config", p, "--out", out]),
    "benchmark --config": ("c.toml", DEEP_TOML, lambda p, out: ["benchmark", "--config", p, "--out", out]),
    "sweep": ("s.toml", DEEP_TOML, lambda p, out: ["sweep", p, "--out", out]),
    "train --from": ("m.zip", DEEP_JSON, lambda p, out: ["train", "--from", p, "--out", out]),
    "evaluate": ("m.zip", DEEP_JSON, lambda p, out: ["evaluate", p]),
    "tournament --strategies model": ("m.zip", DEEP_JSON, lambda p, out: ["tournament", "--strategies", f"model:{p}"]),
    "tournament --strategies plugin": (
        "p.py", "x = " + DEEP_JSON, lambda p, out: ["tournament", "--strategies", f"{p}:Triple", "--out", out],
    ),
    "classroom --session": ("s.json", DEEP_JSON, lambda p, out: ["classroom", "--session", p]),
}  # fmt: skip
KINDS = ["fifo", "/dev/zero", "empty", "folder", "deep"]


@pytest.fixture(scope="module", autouse=True)
def _imported():
    """The libraries the commands load, loaded before any command is timed."""
    for name in ("experiments.tournament.runner", "experiments.rl.train", "experiments.rl.benchmark",
                 "experiments.rl.sweep", "experiments.rl.evaluate", "strategies.model"):  # fmt: skip
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


@posix_only
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("reader", READERS)
def test_a_file_that_is_not_a_regular_readable_input_is_one_line(tmp_path, monkeypatch, reader, kind):
    name, deep, args = READERS[reader]
    if reader.startswith("classroom"):
        pytest.importorskip("uvicorn")
        pytest.importorskip("segno")
    if reader in ("train --from", "evaluate", "tournament --strategies model"):
        pytest.importorskip("stable_baselines3")
    monkeypatch.chdir(tmp_path)
    path, out = _make(kind, tmp_path / name, deep), tmp_path / "out"
    with patience():
        line = one_line(runner.invoke(app, args(str(path), str(out))))
    assert "does not exist" not in line, line  # it exists: it is of the wrong kind
    assert not out.exists()  # refused before any work
    if kind in ("fifo", "/dev/zero", "folder"):
        assert {"fifo": "a FIFO (named pipe)", "/dev/zero": "a character device", "folder": "a folder"}[kind] in line


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "empty", "folder", "deep"])
def test_a_manifest_that_is_not_a_regular_readable_json_file_is_one_line(tmp_path, kind):
    folder = tmp_path / "run"
    folder.mkdir()
    _make(kind, folder / "manifest.json", DEEP_JSON)
    with patience():
        line = one_line(runner.invoke(app, ["tournament", "--resume", str(folder)]))
    assert "manifest" in line
    if kind == "deep":
        assert "malformed manifest" in line and "nested too deep" in line


def test_an_empty_config_is_refused_not_the_default_run(tmp_path):
    from experiments.files import read_toml

    path = tmp_path / "empty.toml"
    path.write_text("# only a comment\n\n")
    line = one_line(runner.invoke(app, ["tournament", "--config", str(path), "--out", str(tmp_path / "out")]))
    assert "is empty" in line and not (tmp_path / "out").exists()
    with pytest.raises(TournamentError, match="is empty"):
        read_toml(path, TournamentError)


@posix_only
def test_the_reader_refuses_before_reading(tmp_path):
    from strategies.inputs import open_input, read_json

    os.mkfifo(tmp_path / "fifo")
    for path, kind in (
        (tmp_path / "fifo", "a FIFO"),
        (Path("/dev/zero"), "a character device"),
        (tmp_path, "a folder"),
    ):
        with patience(), pytest.raises(LabError, match=f"is {kind}"):
            open_input(path, "config", 1000, LabError)
    big = tmp_path / "big.json"
    big.write_text(json.dumps(list(range(1000))))
    with pytest.raises(LabError, match="too large for a config"):
        read_json(big, "config", 100, LabError)
    (tmp_path / "link.json").symlink_to(big)  # a link to a regular file is read
    assert read_json(tmp_path / "link.json", "config", 10_000, LabError) == list(range(1000))
    with pytest.raises(LabError, match="it does not exist"):
        open_input(tmp_path / "none", "config", 1000, LabError)


# -- plugins by file, and a plugin that exits -------------------------------------------------------

PLUGIN = '''
from dataclasses import dataclass

from strategies.progressions import Progression


@dataclass(frozen=True)
class Triple(Progression):
    """Triple the stake after a loss, back to one unit after a win."""

    def _update(self, state, win, loss, amount):
        state.memory["units"][win] = 1
        state.memory["units"][loss] *= 3


@dataclass(frozen=True)
class Exits(Progression):
    """Ends the program from inside a coup."""

    code = 0

    def _update(self, state, win, loss, amount):
        raise SystemExit(self.code)


@dataclass(frozen=True)
class Closes(Progression):
    """Raises GeneratorExit (a BaseException, as SystemExit is) from inside a coup, or when made."""

    when = "playing"

    def __post_init__(self):
        if self.when == "made":
            raise GeneratorExit("closed")

    def _update(self, state, win, loss, amount):
        raise GeneratorExit("closed")
'''


@pytest.fixture
def plugin_file(tmp_path, monkeypatch):
    folder = tmp_path / "my.dir"
    folder.mkdir()
    (folder / "myplugins.py").write_text(PLUGIN)
    monkeypatch.chdir(tmp_path)
    return folder / "myplugins.py"


@pytest.mark.parametrize(
    "form", ["my.dir/myplugins.py", "./my.dir/myplugins.py", "absolute", "my.dir/../my.dir/myplugins.py"]
)
def test_a_plugin_named_by_its_file_plays(plugin_file, form):
    from strategies.registry import make_strategy, strategy_class

    path = str(plugin_file) if form == "absolute" else form
    policy = make_strategy(f"{path}:Triple:base=2,box=rouge")
    assert type(policy).__name__ == "Triple" and policy.params()["base"] == 2
    assert strategy_class(f"{plugin_file}:Triple") is type(policy)  # one class however the file is named
    assert policy.spec().startswith(f"{plugin_file}:Triple")  # its spec names the file, for workers and resumes
    args = ["tournament", "--strategies", f"flat,{path}:Triple", "-n", "40", "-m", "10", "--no-plots", "--json"]
    result = runner.invoke(app, [*args, "--out", "out"])
    assert result.exit_code == 0, result.output
    assert list(json.loads(result.stdout)["strategies"]) == ["flat", f"{path}:Triple"]


def test_a_plugin_file_that_is_missing_or_no_python_is_one_line(plugin_file):
    line = one_line(runner.invoke(app, ["strategies", "my.dir/none.py:Triple"]))
    assert "plugin file" in line and "does not exist" in line
    (plugin_file.parent / "bad.py").write_text("def (:\n")
    line = one_line(runner.invoke(app, ["strategies", "my.dir/bad.py:Triple"]))
    assert "cannot load plugin file 'my.dir/bad.py': SyntaxError" in line


@pytest.mark.parametrize("code", [0, 1, "bye"])
def test_a_plugin_that_exits_while_playing_is_one_line_and_fails(plugin_file, code):
    plugin_file.write_text(PLUGIN.replace("code = 0", f"code = {code!r}"))
    args = ["tournament", "--strategies", "flat,my.dir/myplugins.py:Exits", "-n", "40", "-m", "10", "--no-plots"]
    line = one_line(runner.invoke(app, [*args, "--out", "out"]))
    assert "myplugins.py:Exits' exited while playing" in line and f"SystemExit({code!r})" in line


@pytest.mark.parametrize("when", ["playing", "made"])
@pytest.mark.parametrize("command", ["tournament", "evaluate"])
def test_a_plugin_raising_another_base_exception_is_one_line(plugin_file, when, command):
    plugin_file.write_text(PLUGIN.replace('when = "playing"', f"when = {when!r}"))
    spec = "my.dir/myplugins.py:Closes"
    args = {
        "tournament": ["tournament", "--strategies", f"flat,{spec}", "-n", "40", "-m", "9", "--no-plots", "-o", "out"],
        "evaluate": ["evaluate", spec, "-n", "3", "--coups", "10"],
    }[command]  # fmt: skip
    with patience():
        line = one_line(runner.invoke(app, args))
    verb = "playing" if when == "playing" else "being made"
    assert f"myplugins.py:Closes' failed while {verb}: GeneratorExit: closed" in line


@pytest.mark.parametrize(
    ("exc", "tail"),
    [
        (MemoryError(), "MemoryError"),
        (RecursionError("deep"), "RecursionError: deep"),
        (ValueError("\n  x\n"), "ValueError: x"),
    ],
)
def test_a_plugin_failure_says_its_exception_without_an_empty_message(exc, tail):
    from strategies.registry import plugin_failure

    class Odd:  # a plugin of no known kind: named by its class path
        pass

    line = str(plugin_failure(Odd, exc, "playing"))
    assert line.endswith(f"failed while playing: {tail}") and "\n" not in line


# -- train: its --out held as a tournament's, and nothing left behind -------------------------------

from tests.test_fuzz_models import TINY  # noqa: E402  (the smallest training run, one home)

HOLD = """
import sys
from pathlib import Path
from experiments.files import claim_folder

with claim_folder(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.readline()
"""


@pytest.mark.needs_rl
def test_a_second_train_on_a_held_out_is_one_line_and_writes_nothing(tmp_path):
    import subprocess
    import sys

    config, out = tmp_path / "tiny.toml", tmp_path / "out"
    config.write_text(TINY)
    root = Path(__file__).resolve().parent.parent
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(out)], env={**os.environ, "PYTHONPATH": str(root)},
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        args = ["train", "--timesteps", "64", "--config", str(config), "--out", str(out)]
        line = one_line(runner.invoke(app, args))
        assert f"{str(out)!r} is in use by another training run (pid {holder.pid})" in line
        assert sorted(p.name for p in out.iterdir()) == [".lock"]  # the holder's: no model, curve or description
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.needs_rl
def test_a_finished_train_leaves_no_lock_and_no_temporary_folder(tmp_path, monkeypatch):
    import tempfile

    from experiments.rl.train import train_agent

    config, scratch = tmp_path / "tiny.toml", tmp_path / "scratch"
    config.write_text(TINY)
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # the system's temporary folder, as SB3 finds it
    train_agent("ppo", 64, out_dir=tmp_path / "out", config_path=config)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["curve.csv", "curve.png", "model.json", "model.zip"]
    assert [p.name for p in scratch.iterdir() if p.name.startswith("SB3-")] == []  # no empty SB3-<date> folder


def test_a_finished_tournament_leaves_no_lock(tmp_path):
    args = ["tournament", "--strategies", "flat", "-n", "10", "-m", "5", "--no-plots", "--out", str(tmp_path / "out")]
    assert runner.invoke(app, args).exit_code == 0
    assert ".lock" not in {p.name for p in (tmp_path / "out").iterdir()}
    assert runner.invoke(app, ["tournament", "--resume", str(tmp_path / "out")]).exit_code == 0  # nor a resume
    assert ".lock" not in {p.name for p in (tmp_path / "out").iterdir()}


# -- the README says how much of the default run's table it shows -----------------------------------


def test_the_readme_says_how_many_rows_of_the_default_table_it_shows():
    import re

    from experiments.tournament.config import make_config

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The tournament", 1)[1]
    table = section.split("```", 2)[1].splitlines()
    shown = [m[1] for line in table if (m := re.match(r"\s*(\S+)\s+(?:[-+]?\d+\.\d\d% ±|no stakes)", line))]
    said = re.search(r"Above are (\d+) of the (\d+) rows it prints", " ".join(section.split()))
    printed = make_config().strategies  # the default run prints one row per system of its line-up
    assert said, "the README no longer says how much of the default table it shows"
    assert (int(said[1]), int(said[2])) == (len(shown), len(printed))
    assert set(shown) <= set(printed)


# -- runaways: sizes checked before they are allocated ----------------------------------------------


def test_risk_of_a_labouchere_at_huge_sizes_is_refused_within_its_memory_bound(monkeypatch):
    import tracemalloc

    import strategies.risk as risk
    from experiments.rules import load_rules
    from strategies.registry import make_strategy

    monkeypatch.setattr(risk, "MAX_BYTES", 64 * 2**20)  # the bound, small here so the test is quick
    rules = load_rules("classic")
    tracemalloc.start()
    try:
        with patience(120), pytest.raises(risk.RiskError, match=r"would need about .* GB .* not a finite-state"):
            risk.exact_risk(make_strategy("labouchere", rules), rules, 1e12, 100_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * risk.MAX_BYTES, peak  # numpy's arrays are traced: nothing near the old gigabytes


def test_risk_target_ruin_out_of_its_open_range_is_refused_by_the_parser(monkeypatch):
    import experiments.risk

    def no_work(*args, **kwargs):
        raise AssertionError("the chain ran before the target was checked")

    monkeypatch.setattr(experiments.risk, "exact", no_work)
    for target in ("0", "1", "nan", "-0.1"):
        line = one_line(runner.invoke(app, ["risk", "flat", "--target-ruin", target, "--coups", "100000"]))
        assert "Invalid value for '--target-ruin'" in line
        assert target not in ("0", "1") or "above 0 and below 1" in line  # the ends the closed range admits
    with pytest.raises(LabError, match="between 0 and 1"):
        experiments.risk.risk_report("flat", "classic", 1000, 10, target_ruin=0)  # the library checks first too
    help_text = runner.invoke(app, ["risk", "--help"], env={"COLUMNS": "200"}).output
    assert "[0<=x<=1]" not in help_text and "[0<x<1]" in help_text


def test_the_tournament_bankroll_range_starts_at_the_table_minimum():
    line = one_line(runner.invoke(app, ["tournament", "--bankroll", "0"]))
    assert "Invalid value for '--bankroll'" in line
    help_text = runner.invoke(app, ["tournament", "--help"], env={"COLUMNS": "200"}).output
    assert "[1<=x<=1000000000000]" in next(line for line in help_text.splitlines() if "--bankroll" in line)


def _huge_description(lab_model: Path, where: Path) -> Path:
    import shutil

    where.mkdir()
    shutil.copy(lab_model, where / "model.zip")
    meta = json.loads(lab_model.with_suffix(".json").read_text())
    meta["network"]["net_arch"] = {"pi": [4096] * 16, "vf": [4096] * 16}
    (where / "model.json").write_text(json.dumps(meta))
    return where / "model.zip"


@pytest.mark.needs_rl
def test_a_description_far_larger_than_the_weights_is_refused_before_the_network_is_built(tmp_path, monkeypatch):
    import strategies.model as model_module
    from experiments.rl.train import train_agent

    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    lab = Path(train_agent("ppo", 64, out_dir=tmp_path / "lab", config_path=config)["files"]["model"])
    huge = _huge_description(lab, tmp_path / "huge")

    def never(*args, **kwargs):
        raise AssertionError("the network was built")

    monkeypatch.setattr(model_module, "rebuild", never)
    with patience(60):
        line = one_line(runner.invoke(app, ["evaluate", str(huge), "--episodes", "2", "--coups", "5"]))
    assert "describes a network of at least" in line and "bytes of weights" in line
    monkeypatch.undo()
    assert runner.invoke(app, ["evaluate", str(lab), "--episodes", "2", "--coups", "5"]).exit_code == 0  # its own


# -- the env's own checks: a bankroll or threads of the wrong type -----------------------------------


@pytest.mark.parametrize("bankroll", ["1000", None, [1000], 1 + 0j, True, "abc"])
def test_a_bankroll_that_is_no_number_is_the_envs_own_one_line(bankroll):
    import gymnasium as gym

    import trente_env  # noqa: F401  (registers the env)

    with pytest.raises(ValueError, match="the starting bankroll must be a number of units") as error:
        gym.make("TrenteEtQuarante-v0", bankroll=bankroll)
    assert "not supported between" not in str(error.value)
    with pytest.raises(ValueError, match="the starting bankroll must be a number of units"):
        gym.make_vec("TrenteEtQuarante-v0", num_envs=2, vectorization_mode="vector_entry_point", bankroll=bankroll)


@pytest.mark.parametrize("threads", ["yes", -1, 1, 0, 2.0])
def test_threads_other_than_true_false_or_none_are_refused(threads):
    import gymnasium as gym

    import trente_env  # noqa: F401

    with pytest.raises(ValueError, match="threads must be True, False or None"):
        gym.make_vec("TrenteEtQuarante-v0", num_envs=2, vectorization_mode="vector_entry_point", threads=threads)
    for fine in (True, False, None):
        envs = gym.make_vec("TrenteEtQuarante-v0", num_envs=2, vectorization_mode="vector_entry_point", threads=fine)
        envs.reset(seed=0)
        envs.close()


def test_report_of_a_folder_that_does_not_exist_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_line(runner.invoke(app, ["report", "nonexist", "--coups", "1000", "--sessions", "0"]))
    assert "nonexist" in line
    assert list(tmp_path.iterdir()) == []


#: Each file ``report DIR`` reads, and the kinds of bad input it refuses there: JSON is read whole and
#: parsed, so an empty or deep one is refused too; a CSV or a plot is text or bytes of any shape.
REPORT_FILES = {
    "results.json": KINDS,
    "fallacy.json": KINDS,
    "classroom.json": KINDS,
    "manifest.json": KINDS,
    "results.csv": ["fifo", "/dev/zero", "folder"],
    "final_bankroll.png": ["fifo", "/dev/zero", "folder"],
}


@posix_only
@pytest.mark.parametrize(("name", "kind"), [(name, kind) for name, kinds in REPORT_FILES.items() for kind in kinds])
def test_report_of_a_folder_holding_a_file_that_is_not_a_regular_readable_input_is_one_line(tmp_path, name, kind):
    """Every file of the folder goes through the one reader: one line, exit 2, no page, before the fallacy run."""
    folder = tmp_path / "run"
    folder.mkdir()
    _make(kind, folder / name, DEEP_JSON)
    with patience():
        line = one_line(runner.invoke(app, ["report", str(folder), "--coups", "1000", "--sessions", "0"]))
    assert name in line, line
    assert not (folder / "report.html").exists()
    if kind in ("fifo", "/dev/zero", "folder"):
        assert {"fifo": "a FIFO (named pipe)", "/dev/zero": "a character device", "folder": "a folder"}[kind] in line
    if kind == "deep":
        assert "nested too deep" in line, line


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "empty", "deep"])
def test_a_strategies_config_that_is_not_a_regular_readable_file_is_refused(tmp_path, kind):
    from strategies import StrategyError, strategies_from_config

    for name in ("s.json", "s.toml"):
        path = _make(kind, tmp_path / name, DEEP_JSON if name.endswith(".json") else DEEP_TOML)
        with patience(), pytest.raises(StrategyError, match=name):
            strategies_from_config(path)


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "folder"])
@pytest.mark.parametrize("option", ["--ssl-keyfile", "--ssl-certfile"])
def test_a_tls_file_that_is_not_a_regular_file_is_named_so(tmp_path, monkeypatch, option, kind):
    """It exists: never "no such file"; a FIFO is refused before the server would wait on it."""
    pytest.importorskip("uvicorn")
    pytest.importorskip("segno")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cert.pem").write_text("not a certificate")
    path = _make(kind, tmp_path / "tls.pem", "")
    other = "--ssl-certfile" if option == "--ssl-keyfile" else "--ssl-keyfile"
    args = ["classroom", "--new", "--session", str(tmp_path / "s.json"), option, str(path), other, "cert.pem"]
    with patience():
        line = one_line(runner.invoke(app, args))
    said = {"fifo": "a FIFO (named pipe)", "/dev/zero": "a character device", "folder": "a folder"}[kind]
    assert f"{option} {str(path)!r} is {said}, not a regular file" in line
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize(
    ("exc", "tail"), [(ValueError("bad\nmore"), "ValueError: bad"), (MemoryError(), "MemoryError")]
)
def test_a_plugin_that_cannot_load_says_its_exception_once(exc, tail):
    from strategies.registry import StrategyError, _load

    def load():
        raise exc

    with pytest.raises(StrategyError) as caught:
        _load(load, "plugin file 'p.py'")
    assert str(caught.value) == f"cannot load plugin file 'p.py': {tail}"

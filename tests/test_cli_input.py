"""Bad input at the command line, for every command: number options bounded by the parser, one line
and exit code 2 for each refusal (exit 1 when the machine fails: a full disk), one line and exit
code 130 for Ctrl-C, nothing written when a run is refused, nothing half-written when it fails."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

import experiments.files
from experiments.cli import INTERRUPTED, app
from experiments.limits import MAX_SEED
from trente_env.rules import MAX_MONEY

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
COMMANDS = typer.main.get_command(app).commands


def one_line(result, code: int = 2) -> str:
    """The single line a refused command prints on stderr (nothing on stdout, no traceback)."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.stdout == "", result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("trente-lab: error: "), lines[0]
    assert "Traceback" not in result.output
    return lines[0]


# -- every number option has bounds, checked by the parser ----------------------------------------


def number_kind(param) -> type | None:
    """``int`` or ``float`` for a number option, else None: from Typer's type descriptor, or from the
    Click type that older Typer releases build."""
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if annotation in (int, float):
        return annotation
    click_name = getattr(getattr(param, "type", None), "name", "")
    return {"integer": int, "integer range": int, "float": float, "float range": float}.get(click_name)


def bounds(param) -> tuple[float | None, float | None]:
    source = param if hasattr(param, "min") else getattr(param, "type", None)
    return getattr(source, "min", None), getattr(source, "max", None)


def number_options(commands) -> list[tuple[str, object, type]]:
    return [(name, p, kind) for name, cmd in commands.items() for p in cmd.params if (kind := number_kind(p))]


def unbounded(commands) -> list[str]:
    return [f"{name} {p.opts[0]}" for name, p, _ in number_options(commands) if None in bounds(p)]


def test_every_number_option_has_a_least_and_a_most_value() -> None:
    found = {(name, p.opts[0]) for name, p, _ in number_options(COMMANDS)}
    assert {("deal", "--seed"), ("tournament", "--bankroll"), ("evaluate", "--episodes"), ("play", "--delay")} <= found
    assert len(found) >= 30  # the walk sees the options (a walk that finds nothing would prove nothing)
    assert unbounded(COMMANDS) == []


def test_the_walk_notices_a_number_option_without_bounds() -> None:
    toy = typer.Typer()

    @toy.command("toy")
    def _toy(n: Annotated[int, typer.Option("--n")] = 1, k: Annotated[int, typer.Option("--k", min=0, max=9)] = 1):
        """A command with one unbounded option."""

    @toy.command("other")
    def _other(x: Annotated[float, typer.Option("--x", min=0)] = 1.0) -> None:
        """Another, bounded below only."""

    assert unbounded(typer.main.get_command(toy).commands) == ["toy --n", "other --x"]


def test_seeds_and_money_have_the_documented_bounds() -> None:
    for name, p, _ in number_options(COMMANDS):
        if p.name == "seed":
            assert bounds(p) == (0, MAX_SEED if name not in ("train", "control") else 2**32 - 1), name  # SB3 seeds
        if p.name in ("bankroll", "unit"):
            assert bounds(p)[1] == MAX_MONEY, name


def _bad_values(kind: type, low: float, high: float) -> list[str]:
    """Below the least, above the most, not a number, and what each kind of number gets wrong."""
    values = [str(low - 1), str(high + 1) if kind is int else repr(float(high) * 2), "abc"]
    if kind is int:
        return [*values, "1.5", "9" * 30, "9" * 5000]  # 5000 digits: past Python's int-from-text limit
    return [*values, "nan", "inf", "-inf"]


CASES = [
    pytest.param(name, p.opts[0], value, id=f"{name} {p.opts[0]} {value[:12]!r}")
    for name, p, kind in number_options(COMMANDS)
    for value in _bad_values(kind, *bounds(p))
]


@pytest.mark.parametrize(("command", "option", "value"), CASES)
def test_every_number_option_refuses_bad_values_in_one_line(command: str, option: str, value: str) -> None:
    required = ["model.zip" for p in COMMANDS[command].params if p.required]  # evaluate's MODEL
    line = one_line(runner.invoke(app, [command, *required, option, value]))
    assert f"'{option}'" in line


# -- Ctrl-C: one line, exit code 130, in every command ----------------------------------------------

#: For each command, a function it calls once it has started (where a Ctrl-C lands).
INNER = {
    "edge": "experiments.game.edge.edge_report",
    "simulate": "experiments.game.simulate.simulation_report",
    "deal": "experiments.game.deal.deal_coups_from_shoe",
    "presets": "experiments.game.listings.preset_table",
    "strategies": "experiments.game.listings.strategy_list",
    "fallacy": "experiments.teaching.fallacy.fallacy_report",
    "play": "experiments.teaching.play.play_session",
    "report": "experiments.teaching.report.build_report",
    "tournament": "experiments.tournament.runner.run_tournament",
    "train": "experiments.rl.train.train_agent",
    "evaluate": "experiments.rl.evaluate.evaluate_model",
    "sweep": "experiments.rl.sweep.run_sweep",
    "control": "experiments.rl.control.run_control",
    "benchmark": "experiments.rl.benchmark.run_benchmark",
    "configs": "experiments.game.listings.config_listing",
    "count": "experiments.game.count.count_report",
    "classroom": "experiments.classroom.serve.serve",
    "risk": "experiments.risk.risk_report",
    "warm": "experiments.warm.main",
}


def _ctrl_c(*args, **kwargs):
    raise KeyboardInterrupt


def test_every_command_has_a_ctrl_c_case() -> None:
    assert set(INNER) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(INNER))
def test_ctrl_c_prints_one_line_and_exits_130(command: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if command == "classroom":  # its module needs the classroom extra (the command itself refuses in one line)
        pytest.importorskip("starlette", reason="the classroom extra is not installed")
    monkeypatch.setattr(INNER[command], _ctrl_c)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sweep.toml").write_text("[sweep]\ntimesteps = 10\n")
    extra = {"evaluate": ["model.zip"], "sweep": ["sweep.toml"], "risk": ["flat"]}
    if command == "classroom":  # the command checks its port before serving: one free, not the default 8000
        from tests._classroom import free_port

        extra["classroom"] = ["--port", str(free_port())]
    result = runner.invoke(app, [command, *extra.get(command, [])])
    assert result.exit_code == 130, result.output
    assert result.stderr == INTERRUPTED + "\n"
    assert "Traceback" not in result.output


def _start(*args: str) -> subprocess.Popen:
    code = "import sys; from experiments.cli import app; sys.argv[0] = 'trente-lab'; app()"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env, cwd=ROOT, start_new_session=True,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "started"),
    [
        (["deal", "--coups", str(10**12)], b"Coup 1"),  # deal prints each coup as it is dealt
        (["deal", "--coups", str(10**12), "--json"], b"["),
        (["play", "--seed", "1"], b"You sit down"),  # waits at the prompt
    ],
)
def test_sigint_in_a_real_process(args: list[str], started: bytes) -> None:
    process = _start(*args)
    try:
        line = b"-"
        while line and started not in line:  # the command runs once it has printed this
            line = process.stdout.readline()
        assert started in line
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: the whole process group
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130
    assert stderr.decode() == INTERRUPTED + "\n"


# -- sizes: huge but valid requests stream instead of piling up ---------------------------------


@pytest.mark.parametrize("coups", [0, 1, 3])
def test_deal_streams_the_same_json_document(coups: int) -> None:
    from experiments.files import json_default
    from experiments.game.deal import coup_record, deal_coups_from_shoe

    result = runner.invoke(app, ["deal", "--coups", str(coups), "--json", "--seed", "7"])
    assert result.exit_code == 0, result.output
    whole = [coup_record(c) for c in deal_coups_from_shoe(n_coups=coups, seed=7)]
    # byte for byte what printing the whole list at once gives
    assert result.stdout == json.dumps(whole, indent=2, ensure_ascii=False, default=json_default) + "\n"
    assert len(json.loads(result.stdout)) == coups


def test_deal_refuses_a_count_past_its_bound() -> None:
    assert "'--coups'" in one_line(runner.invoke(app, ["deal", "--coups", str(10**30)]))


# -- output paths of the wrong kind, refused before any work --------------------------------------


@pytest.fixture()
def places(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "a-file").write_text("not a folder")
    (tmp_path / "a-folder").mkdir()
    return {"file": tmp_path / "a-file", "under_file": tmp_path / "a-file" / "sub", "folder": tmp_path / "a-folder"}


@pytest.mark.parametrize(
    ("args", "place", "fragment"),
    [
        (["fallacy", "--coups", "100", "--sessions", "0", "--out"], "file", "is a file, not a folder"),
        (["fallacy", "--coups", "100", "--sessions", "0", "--out"], "under_file", "is a file, not a folder"),
        (["report", "--coups", "100", "--sessions", "0", "--output"], "folder", "is a folder"),
        (["report", "--coups", "100", "--sessions", "0", "--output"], "under_file", "is a file, not a folder"),
        (["train", "--out"], "file", "is a file, not a folder"),
        (["train", "--out"], "under_file", "is a file, not a folder"),
        (["tournament", "-n", "2", "-m", "2", "--out"], "file", ""),
        (["tournament", "-n", "2", "-m", "2", "--out"], "under_file", ""),
    ],
)
def test_an_output_path_of_the_wrong_kind_is_one_line(args, place, fragment, places) -> None:
    line = one_line(runner.invoke(app, [*args, str(places[place])]))
    assert fragment in line and ("a-file" in line or "a-folder" in line)
    assert places["file"].read_text() == "not a folder" and not any(places["folder"].iterdir())


def test_report_writes_into_a_new_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "page.html"
    result = runner.invoke(app, ["report", "--coups", "1000", "--sessions", "0", "--output", str(path)])
    assert result.exit_code == 0, result.output
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# -- config files: binary or wrongly typed -------------------------------------------------------


@pytest.mark.parametrize("command", ["tournament", "train"])
def test_a_binary_config_is_one_line(command: str, tmp_path: Path) -> None:
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\xff\xfe\x00\x01PK\x03\x04")
    line = one_line(runner.invoke(app, [command, "--config", str(path), "--out", str(tmp_path / "out")]))
    assert "is not a text file" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[tournament]\nbankroll = true\n", "bankroll must be a number, got True"),
        ("[tournament]\nbankroll = nan\n", "bankroll must be at least 0"),
        ("[tournament]\nstrategies = 5\n", "strategies must be a list of specs"),
        ("[tournament]\nrules = 5\n", "rules must be the name of a preset"),
        ("[tournament]\nseed = 99999999999999999999\n", "seed must be at most 9,223,372,036,854,775,807"),
        ("[tournament]\nunit = 1e20\n", "unit must be a whole number"),
        ("[tournament]\nsessions = 2000000000\n", "sessions must be at most 1,000,000,000"),
        ('[tournament]\nworkers = "all"\n', "workers must be a whole number"),
    ],
)
def test_a_wrongly_typed_tournament_config_is_one_line(text: str, fragment: str, tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    assert fragment in one_line(runner.invoke(app, ["tournament", "--config", str(path), "--out", str(tmp_path / "o")]))
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[train]\nnet_arch = "x"\n', "net_arch must be a list of layer widths"),
        ("[train]\nnet_arch = [64, 0]\n", "net_arch must be a list of layer widths"),
        ("[train]\nstake_levels = 5\n", "stake_levels must be a list of positive stakes"),
        ('[train]\nstake_levels = [1, "a"]\n', "stake_levels must be a list of positive stakes"),
        ("[train]\nreward_scale = nan\n", "reward_scale must be positive"),
        ("ppo = 5\n", "must be tables"),
    ],
)
def test_a_wrongly_typed_train_config_is_one_line_and_creates_nothing(text: str, fragment: str, tmp_path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    assert fragment in one_line(runner.invoke(app, ["train", "--config", str(path), "--out", str(tmp_path / "o")]))
    assert not (tmp_path / "o").exists()


# -- model files: the file is checked before the library; model.json's values are checked --------


def _hide_sb3(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make stable-baselines3 and sb3-contrib unimportable, as on a machine without the rl extra."""
    for name in ("stable_baselines3", "sb3_contrib"):
        monkeypatch.setitem(sys.modules, name, None)


def test_train_without_the_rl_extra_is_one_line_and_creates_nothing(monkeypatch, tmp_path: Path) -> None:
    _hide_sb3(monkeypatch)
    line = one_line(runner.invoke(app, ["train", "--out", str(tmp_path / "new")]))
    assert "needs stable-baselines3" in line and "pip install" in line
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("hide", [True, False], ids=["without-sb3", "with-what-is-installed"])
def test_a_missing_model_file_is_said_before_the_missing_library(hide: bool, monkeypatch, tmp_path: Path) -> None:
    if hide:
        _hide_sb3(monkeypatch)
    missing = str(tmp_path / "none.zip")
    assert "does not exist" in one_line(runner.invoke(app, ["evaluate", missing]))
    assert "does not exist" in one_line(runner.invoke(app, ["tournament", "--strategies", f"model:{missing}"]))
    assert "does not exist" in one_line(runner.invoke(app, ["strategies", missing]))
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    assert "not a zip file" in one_line(runner.invoke(app, ["evaluate", str(junk)]))


def _zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", "{}")
    return path


@pytest.mark.parametrize(
    ("meta", "fragment"),
    [
        ({"bankroll": "lots"}, "bankroll must be a number above 0"),
        ({"bankroll": 1e300}, "bankroll must be a number above 0"),
        ({"table": 5}, "table must be the name of a table"),
        ({"payout": "x"}, "payout must be null or a payout"),
        ({"payout": 0.5}, "payout must be null or a payout"),
        ({"boxes": 3}, "boxes must be 2 or 4"),
        ({"algo": 7}, "algo must be one of"),
        ({"env": 5}, "env must be a JSON object"),
        ({"env": {"history": "x"}}, "env.history must be a whole number"),
        ({"env": {"stake_levels": 5}}, "env.stake_levels must be a list of positive stakes"),
        ({"env": {"observe_shoe": "yes"}}, "env.observe_shoe must be true or false"),
    ],
)
def test_a_model_description_with_bad_values_is_one_line(meta: dict, fragment: str, tmp_path: Path) -> None:
    model = _zip(tmp_path / "model.zip")
    model.with_suffix(".json").write_text(json.dumps(meta))
    for args in (["evaluate", str(model)], ["tournament", "--strategies", f"flat,model:{model}"]):
        line = one_line(runner.invoke(app, [*args, "--out", str(tmp_path / "o")] if "tournament" in args else args))
        assert "model.json" in line and fragment in line


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PPO model saved with a model.json, as `trente-lab train` writes them (128 steps)."""
    from stable_baselines3 import PPO

    from experiments.rl.rig import parse_venue, sb3_env
    from strategies.features import LogScaledFlat

    folder = tmp_path_factory.mktemp("tiny")
    venv = sb3_env(parse_venue("classic"), 2, 0, action_form="discrete", observation="flat")
    kwargs = {"net_arch": [64, 64], "features_extractor_class": LogScaledFlat}
    model = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, seed=0, device="cpu", policy_kwargs=kwargs)
    model.learn(128).save(folder / "model.zip")
    meta = {"algo": "ppo", "table": "classic", "boxes": 4, "bankroll": 1000.0}
    meta["env"] = {"action_form": "discrete", "observation": "flat", "history": 10, "stake_levels": [1, 5, 25, 100]}
    meta["network"] = {"policy": "MlpPolicy", "features": "LogScaledFlat", "net_arch": [64, 64]}
    (folder / "model.json").write_text(json.dumps(meta))
    return folder / "model.zip"


@pytest.mark.needs_rl
@pytest.mark.parametrize(
    "change", [{"history": 3}, {"observe_shoe": True}, {"stake_levels": [1, 2]}, {"boxes": 2}], ids=str
)
def test_a_model_description_that_does_not_fit_the_model_is_one_line(change: dict, tiny_model: Path, tmp_path) -> None:
    model = tmp_path / "model.zip"
    model.write_bytes(tiny_model.read_bytes())
    meta = json.loads(tiny_model.with_suffix(".json").read_text())
    if "boxes" in change:
        meta.update(change)
    else:
        meta["env"].update(change)
    model.with_suffix(".json").write_text(json.dumps(meta))
    assert "does not describe" in one_line(runner.invoke(app, ["evaluate", str(model), "-n", "2", "--coups", "3"]))
    model.with_suffix(".json").write_text(tiny_model.with_suffix(".json").read_text())
    assert runner.invoke(app, ["evaluate", str(model), "-n", "2", "--coups", "3"]).exit_code == 0


@pytest.mark.needs_rl
def test_train_writes_model_zip_atomically(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    written = []
    real = experiments.files.atomic_write

    def spy(path, write):
        written.append(Path(path).name)
        real(path, write)

    monkeypatch.setattr("experiments.rl.train.atomic_write", spy)
    args = ["train", "--timesteps", "64", "--n-envs", "2", "--eval-every", "64", "--out", str(tmp_path), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert written == ["model.zip"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.csv", "curve.png", "model.json", "model.zip"]
    assert zipfile.is_zipfile(tmp_path / "model.zip")


# -- a full disk: one line, a non-zero exit, no half-written file ----------------------------------


@pytest.fixture()
def full_disk(monkeypatch: pytest.MonkeyPatch):
    """Every atomic write runs, writes a little, then meets ENOSPC (as a full disk does)."""
    real = experiments.files.atomic_write

    def write_until_full(path, write, private=False):
        def fill(f):
            f.write(b"the first bytes")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        real(path, fill, private)

    monkeypatch.setattr(experiments.files, "atomic_write", write_until_full)


@pytest.mark.parametrize(
    ("args", "first", "last"),
    [
        (["fallacy", "--coups", "1000", "--sessions", "0", "--out", "{out}"], "fallacy.json", "fallacy.png"),
        # the report draws the fallacy plots in a temporary folder first: that write meets the full disk
        (["report", "--coups", "1000", "--sessions", "0", "--output", "{out}/page.html"], "", "page.html"),
        (["tournament", "-n", "2", "-m", "2", "--strategies", "flat", "--out", "{out}"], "", "results.json"),
    ],
)
def test_a_full_disk_is_one_line_and_leaves_no_partial_file(args, first, last, full_disk, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    line = one_line(runner.invoke(app, [a.replace("{out}", str(out)) for a in args]), code=1)
    assert "No space left on device" in line and "disk full" in line
    if first:  # the file being written is named
        assert str(out / first) in line and not (out / first).exists()
    assert not (out / last).exists()
    assert [p.name for p in out.rglob("*") if p.name.endswith(".tmp")] == []


# -- Python version and CI ---------------------------------------------------------------------------


def test_python_311_is_required_everywhere() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["requires-python"] == ">=3.11"
    assert project["tool"]["ruff"]["target-version"] == "py311"
    assert "Python 3.11 or newer" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_ci_runs_the_readme_test_command_in_a_fresh_venv_first() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extract = next(line for line in ci.splitlines() if line.startswith("readme_test="))
    command = subprocess.run(
        ["bash", "-c", f'{extract}\nprintf %s "$readme_test"'], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert command and command in quick_start and "pytest" in command and "[dev]" in command
    fresh = ci.index('python -m venv "$fresh/venv"')
    assert fresh < ci.index('eval "$readme_test"') < ci.index("pip install -q -e")  # before anything else
    assert ci.count('eval "$readme_test"') == 2  # fresh, then again with the rl extra

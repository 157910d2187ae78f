"""The install's compile step (experiments/warm.py, build_backend/trente_build.py): after it, a
newcomer's first commands find their kernels cached."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from experiments import warm

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """numba's cache in a new empty folder, for the subprocesses started here."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.timeout(600)
def test_after_the_compile_step_the_first_step_compiles_nothing(empty_cache: Path) -> None:
    seconds = warm.warm(["env"])
    assert set(seconds) == {"env"}
    assert warm.still_compiled("env") == []


@pytest.mark.slow  # every first command twice on an empty cache: a minute or two
@pytest.mark.timeout(1800)
def test_every_first_command_finds_its_kernels_after_the_compile_step(empty_cache: Path) -> None:
    assert len(warm.still_compiled("env")) > 0  # the count sees compiles: an empty cache compiles
    warm.warm()
    assert {name: warm.still_compiled(name) for name in warm.FIRST_COMMANDS} == dict.fromkeys(warm.FIRST_COMMANDS, [])


def test_a_failing_command_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(warm.FIRST_COMMANDS, "broken", ("a command that fails", "raise ValueError('no table')"))
    with pytest.raises(RuntimeError, match=r"^broken: ValueError: no table$"):
        warm.warm(["broken"])
    with pytest.raises(RuntimeError, match=r"^broken: ValueError: no table$"):
        warm.still_compiled("broken")


def test_bad_arguments_are_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "experiments.warm", "--nope"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0 and done.stderr.strip() == "usage: python -m experiments.warm [--check]"


def _backend():
    pytest.importorskip("setuptools", reason="the build backend wraps setuptools'")
    spec = importlib.util.spec_from_file_location("trente_build", ROOT / "build_backend" / "trente_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_build_backend_is_the_projects() -> None:
    system = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    assert system["build-backend"] == "trente_build" and system["backend-path"] == ["build_backend"]


def test_an_editable_build_needs_the_projects_dependencies_unless_told_not_to_compile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    backend = _backend()
    # setuptools' own answer stands in: the installed setuptools may be older than the build's (>= 77)
    monkeypatch.setattr(backend._setuptools, "get_requires_for_build_editable", lambda config_settings=None: ["wheel"])
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    monkeypatch.delenv("TRENTE_LAB_NO_PRECOMPILE", raising=False)
    assert backend.get_requires_for_build_editable() == ["wheel", *dependencies]
    monkeypatch.setenv("TRENTE_LAB_NO_PRECOMPILE", "1")
    assert backend.get_requires_for_build_editable() == ["wheel"]


@pytest.mark.parametrize(("returncode", "said"), [(0, "done in 1.0 s"), (1, "experiments.warm: env: boom")])
def test_an_editable_build_runs_the_compile_step_and_never_fails_for_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], returncode: int, said: str
) -> None:
    backend = _backend()
    calls = []
    monkeypatch.delenv("TRENTE_LAB_NO_PRECOMPILE", raising=False)
    monkeypatch.setattr(backend._setuptools, "build_editable", lambda *a, **k: "trente_lab-0.1.0-py3-none-any.whl")

    def run(args, **kwargs):
        calls.append((args, kwargs["cwd"]))
        return subprocess.CompletedProcess(args, returncode, stdout="", stderr=said + "\n")

    monkeypatch.setattr(backend.subprocess, "run", run)
    assert backend.build_editable("dist") == "trente_lab-0.1.0-py3-none-any.whl"
    assert calls == [([sys.executable, "-m", "experiments.warm"], ROOT)]
    assert f"trente-lab: {said}" in capsys.readouterr().err
    monkeypatch.setenv("TRENTE_LAB_NO_PRECOMPILE", "1")
    assert backend.build_editable("dist") == "trente_lab-0.1.0-py3-none-any.whl"
    assert len(calls) == 1


def test_trente_lab_warm_runs_the_warm_module(monkeypatch):
    """``trente-lab warm --check`` is ``python -m experiments.warm --check`` (what CI runs) under the
    command line: the same check, the same line."""
    from typer.testing import CliRunner

    from experiments import warm
    from experiments.cli import app

    asked = []
    monkeypatch.setattr(warm, "still_compiled", lambda name: asked.append(name) or [])
    result = CliRunner().invoke(app, ["warm", "--check"])
    assert result.exit_code == 0, result.output
    assert "every first command's kernels are cached" in result.stdout and asked == list(warm.FIRST_COMMANDS)
    ran = []
    monkeypatch.setattr(warm, "warm", lambda: ran.append(True) or {"env": 1.0})
    result = CliRunner().invoke(app, ["warm"])
    assert result.exit_code == 0 and ran == [True] and "done in" in result.stdout

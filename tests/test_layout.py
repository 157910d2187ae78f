"""The layout of experiments/ keeps its promises: the command line's help loads no engine, only the
command line prints errors (a library's refusal is one line, a bug is not hidden), one home for the
atomic writes and the normal quantile, and the few engine values written out for the help agree
with the engine's."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.errors import LabError

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
runner = CliRunner()


def _sources(*skip: str) -> dict[str, str]:
    """Every module of experiments/ (path relative to it -> text), but those in ``skip``."""
    return {
        path.relative_to(EXPERIMENTS).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(EXPERIMENTS.rglob("*.py"))
        if path.relative_to(EXPERIMENTS).as_posix() not in skip
    }


# -- the help ---------------------------------------------------------------------------------------

HEAVY = ("numpy", "numba", "matplotlib", "torch", "stable_baselines3", "gymnasium", "trente_env", "strategies")


@pytest.mark.parametrize(
    "entry",
    [
        "from experiments.cli import app; app()",
        "import runpy; runpy.run_module('experiments.cli', run_name='__main__')",
    ],
)
def test_the_help_loads_no_engine(entry: str) -> None:
    # what `trente-lab --help` and `python -m experiments.cli --help` import: none of the heavy packages
    code = f"""
import sys
sys.argv = ["trente-lab", "--help"]
try:
    {entry}
except SystemExit as exit:
    assert exit.code == 0, exit.code
loaded = sorted({{m.split(".")[0] for m in sys.modules}} & set({HEAVY!r}))
print("loaded:", ",".join(loaded))
"""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "Usage: trente-lab" in result.stdout  # the help itself, under the command's name
    assert result.stdout.strip().splitlines()[-1] == "loaded:", result.stdout


def test_the_values_the_help_writes_out_are_the_engines() -> None:
    from experiments.cli.train import Form
    from experiments.limits import MAX_CARDS, MAX_MONEY
    from experiments.rl.algorithms import TRAINABLE
    from strategies.model import ALGORITHMS
    from trente_env.cards import CARDS_PER_DECK
    from trente_env.layout import ACTION_FORMS
    from trente_env.rules import MAX_MONEY as ENGINE_MAX_MONEY

    assert MAX_MONEY == ENGINE_MAX_MONEY
    assert MAX_CARDS == 8 * CARDS_PER_DECK
    assert {form.value for form in Form} == set(ACTION_FORMS)
    assert set(TRAINABLE) <= set(ALGORITHMS)  # a selection of the one list of algorithms
    shipped = tomllib.loads((EXPERIMENTS / "configs" / "rl.toml").read_text(encoding="utf-8"))
    assert set(TRAINABLE) == set(shipped) - {"train"}  # each with its hyper-parameters


# -- errors: the libraries raise, the command line prints ----------------------------------------


def test_only_the_command_line_uses_typer() -> None:
    for name, text in _sources().items():
        if not name.startswith("cli/"):
            assert not re.search(r"^\s*(import typer|from typer)", text, re.MULTILINE), name


@pytest.mark.parametrize(
    "error", [LabError("no table called vegas"), pytest.param("strategy", id="StrategyError")], ids=str
)
def test_a_librarys_refusal_is_one_line_and_exit_2(error, monkeypatch) -> None:
    if error == "strategy":
        from strategies.registry import StrategyError

        error = StrategyError("no table called vegas")

    def refuse(*args, **kwargs):
        raise error

    monkeypatch.setattr("experiments.game.edge.edge_report", refuse)
    result = runner.invoke(app, ["edge"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == "trente-lab: error: no table called vegas\n"


def test_a_bug_is_not_dressed_up_as_bad_input(monkeypatch) -> None:
    def bug(*args, **kwargs):
        raise ValueError("an index the code got wrong")

    monkeypatch.setattr("experiments.game.edge.edge_report", bug)
    result = runner.invoke(app, ["edge"])
    assert result.exit_code == 1 and isinstance(result.exception, ValueError)
    assert "trente-lab: error" not in result.output


# -- one home for what must not be written twice -----------------------------------------------------


def test_every_file_is_written_by_the_atomic_writer() -> None:
    # no hand-rolled write-then-rename, no figure saved straight to its path
    for name, text in _sources("files.py").items():
        for pattern in (r"os\.replace\(", r"\.replace\((tmp|figure|path)", r"\.savefig\(", r"os\.rename\("):
            assert not re.search(pattern, text), f"{name}: {pattern}"


def test_the_normal_quantile_has_one_home() -> None:
    for name, text in _sources("stats.py").items():
        assert not re.search(r"1\.9599|1\.96\b|NormalDist", text), name

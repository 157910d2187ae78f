"""What a command-line user expects: shell completion, the shipped configuration files listed and
printed, and every betting system's parameters explained where they are listed."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.game.listings import config_listing
from strategies.registry import COUNTERS, STRATEGIES, describe

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def _complete(words: str) -> list[str]:
    """What bash completion offers for the command line ``words`` (the last word being typed)."""
    env = {
        **os.environ, "PYTHONPATH": str(ROOT), "_TRENTE_LAB_COMPLETE": "complete_bash",
        "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1),
    }  # fmt: skip
    code = "import sys; from experiments.cli import app; sys.argv[0] = 'trente-lab'; app()"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    return result.stdout.split()


@pytest.mark.parametrize(
    ("words", "offered"),
    [
        ("trente-lab tou", ["tournament"]),
        ("trente-lab tournament --bac", ["--backend"]),
        ("trente-lab con", ["configs", "control"]),
    ],
)
def test_bash_completion_completes_commands_and_options(words: str, offered: list[str]) -> None:
    assert sorted(_complete(words)) == offered


def test_the_completion_script_is_shown_for_bash() -> None:
    code = "import sys; from experiments.cli import app; sys.argv[0] = 'trente-lab'; app()"
    # the shell is named rather than detected from the parent process (pytest's may be none)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code, "--show-completion", "bash"], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and "_TRENTE_LAB_COMPLETE=complete_bash" in result.stdout


def test_every_shipped_config_is_listed_with_its_use_and_is_valid_toml() -> None:
    listing = config_listing()
    names = {entry["name"] for entry in listing}
    assert {"quick", "classroom", "partage", "rl", "sweep-seeds"} <= names
    for entry in listing:
        assert entry["about"] and entry["use"].startswith("trente-lab ")
        tomllib.loads(Path(entry["path"]).read_text())
    result = runner.invoke(app, ["configs"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and all(name in result.output for name in names)


def test_a_shipped_config_prints_as_it_is_and_works_as_named() -> None:
    from experiments.rl.sweep import load_sweep
    from experiments.tournament.config import file_options

    text = runner.invoke(app, ["configs", "quick"]).output
    assert text == next(Path(e["path"]) for e in config_listing() if e["name"] == "quick").read_text()
    assert file_options("quick")  # what `tournament --config quick` reads
    load_sweep("sweep-seeds")  # what `sweep sweep-seeds` reads


def test_an_unknown_config_is_one_line() -> None:
    result = runner.invoke(app, ["configs", "nope"])
    assert result.exit_code == 2 and result.stderr.startswith("trente-lab: error: no shipped configuration 'nope'")


@pytest.mark.parametrize("name", sorted([*STRATEGIES, *COUNTERS]))
def test_every_parameter_of_every_system_is_explained(name: str) -> None:
    params = describe({**STRATEGIES, **COUNTERS}[name])["params"]
    assert all(p["help"] for p in params), [p["name"] for p in params if not p["help"]]
    shown = runner.invoke(app, ["strategies", name], env={"COLUMNS": "250"}).output
    assert all(p["help"] in shown for p in params)
    assert "``" not in shown and ":class:" not in shown  # the manual without reST markup

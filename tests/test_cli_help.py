"""What ``trente-lab --help`` and every command's ``--help`` show a person: the version, no stray
reST or rich markup, and only names of options and arguments the command has."""

from __future__ import annotations

import re

import pytest
from rich.text import Text
from typer.main import get_command
from typer.testing import CliRunner

from experiments import version
from experiments.cli import app

runner = CliRunner()
COMMANDS = get_command(app).commands
#: Placeholders a help text may use for a command's argument: each must be one of its arguments.
PLACEHOLDERS = ("DIR", "FILE", "FOLDER", "SPEC", "MODEL", "MODEL_OR_SPEC", "NAME")


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith(f"trente-lab {version()} (Python 3.")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_shows_what_the_command_has_and_no_markup(name):
    command = COMMANDS[name]
    result = runner.invoke(app, [name, "--help"], terminal_width=160)
    assert result.exit_code == 0, result.output
    shown = result.stdout
    assert not re.search(r"``|:(func|mod|class|data|meth|attr):`", shown)  # reST in a docstring or help
    texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
    for text in texts:  # rich would read "[default: ...]" as a style and drop it from the screen
        assert Text.from_markup(text).plain == text, text
    options = {o for p in command.params for o in [*getattr(p, "opts", []), *getattr(p, "secondary_opts", [])]}
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", " ".join(texts)))
    assert named <= options | {"--help"}, named - options  # an option named in a help text exists
    usage = next(line for line in shown.splitlines() if "Usage:" in line)
    for word in set(re.findall(r"\b[A-Z][A-Z_]{2,}\b", " ".join(texts))) & set(PLACEHOLDERS):
        assert word in usage, (word, usage)  # "when DIR has no ..." names an argument shown as DIR


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_reads_as_sentences_with_no_type_beside_a_flag(name):
    """A flag takes no value, so its help shows no type (Typer's own help writes "<bool>"); and each
    paragraph of the command's help is one paragraph on screen, not cut where the source wraps it."""
    result = runner.invoke(app, [name, "--help"], terminal_width=400)
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.stdout
    command = COMMANDS[name]
    for paragraph in (command.help or "").split("\n\n"):
        assert "\n" not in paragraph, paragraph
        assert paragraph[:60] in result.stdout  # on one line of a wide screen

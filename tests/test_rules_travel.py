"""The table travels as one object: a command resolves its ``--rules`` once (``experiments.rules.load_rules``)
and hands the :class:`~trente_env.rules.RuleSet` down; no library function below ``experiments/cli``
takes a preset's name. Every function and dataclass field of the libraries is read with ``ast``; the
converted libraries are also called with a rule set no preset has."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from trente_env.rules import get_rules

ROOT = Path(__file__).resolve().parent.parent
#: Where a name is resolved: the commands, and the resolving itself.
RESOLVERS = ("experiments/cli/", "experiments/rules.py")
#: A parameter or field holding a table's name (a preset, a venue) rather than a RuleSet.
NAMES = ("preset", "rules", "table")

#: Libraries that still take a name, each with its reason (the list only shrinks).
ALLOWED: set[tuple[str, str]] = set()


def _takes_a_name(annotation: ast.expr | None, name: str) -> bool:
    text = ast.unparse(annotation) if annotation is not None else ""
    return name == "preset" or (name in NAMES and text.split("|")[0].strip() == "str")


def names_taken(source: str) -> list[str]:
    """``function.parameter`` and ``Class.field`` of ``source`` that hold a table's name."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = child.args
                for arg in args.posonlyargs + args.args + args.kwonlyargs:
                    if _takes_a_name(arg.annotation, arg.arg):
                        found.append(f"{prefix}{child.name}.{arg.arg}")
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                for item in child.body:
                    named = isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                    if named and _takes_a_name(item.annotation, item.target.id):
                        found.append(f"{prefix}{child.name}.{item.target.id}")
                visit(child, f"{prefix}{child.name}.")

    visit(ast.parse(source), "")
    return found


def test_no_library_below_the_commands_takes_a_preset_name() -> None:
    found = set()
    for path in sorted((ROOT / "experiments").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if not name.startswith(RESOLVERS):
            found.update((name, where) for where in names_taken(path.read_text(encoding="utf-8")))
    assert found - ALLOWED == set()
    assert ALLOWED - found == set(), "an entry of ALLOWED is no longer needed: delete it"


def test_the_scan_sees_a_name_passed_down() -> None:
    source = (
        "def edge_report(preset: str = 'classic'): ...\n"
        "def f(rules: str | None = None, table: RuleSet = X): ...\n"
        "class C:\n    rules: str\n    def m(self, rules: RuleSet, name: str): ...\n"
    )
    assert names_taken(source) == ["edge_report.preset", "f.rules", "C.rules"]


CUSTOM = get_rules("classic", decks=4)  # no preset's rules: the libraries call it "custom"


def test_the_libraries_take_the_rule_set_and_name_it() -> None:
    from experiments.classroom.state import Classroom
    from experiments.game.deal import deal_coups_from_shoe
    from experiments.game.edge import all_presets, edge_report
    from experiments.game.listings import strategy_detail

    assert edge_report(CUSTOM)["rules"] == "custom" and edge_report(CUSTOM, name="mine")["rules"] == "mine"
    assert edge_report(get_rules("partage"), decks=1)["decks"] == 1
    assert edge_report(get_rules("classic")) == all_presets()["classic"]
    assert strategy_detail("flat", CUSTOM)["rules"] == "custom"
    assert len(list(deal_coups_from_shoe(CUSTOM, 3, seed=1))) == 3
    shown = Classroom(CUSTOM, seed=1).public()
    assert shown["preset"] == "custom" and "a 4-deck shoe" in shown["exact"]["model"]


def test_a_tournament_takes_the_rule_set_and_records_its_name() -> None:
    from experiments.tournament.config import make_config

    custom = make_config("flat", sessions=2, coups=2, rules=CUSTOM)
    assert custom.ruleset() == CUSTOM and custom.as_dict()["rules"] == "custom" and custom.rules_name() == "custom"
    # the manifest and results.json still record the preset's name; the printed name says what changed
    named = make_config("flat", sessions=2, coups=2, rules=get_rules("partage"), rule_changes={"table_max": 500})
    assert named.as_dict()["rules"] == "partage" and named.rules_name() == "partage with table_max=500"


def test_evaluate_takes_the_venue() -> None:
    from experiments.rl.evaluate import evaluate_model
    from experiments.rl.rig import Venue
    from trente_env.plan import EvalPlan

    report = evaluate_model("flat", EvalPlan(2, 5, 1), Venue("custom", CUSTOM))
    assert report["table"] == "custom" and report["rules"] == CUSTOM.describe() and report["sessions"] == 2


@pytest.mark.parametrize("command", ["edge", "fallacy"])
def test_edge_and_fallacy_resolve_their_rules_once(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command resolves ``--rules`` (one name resolved, through load_rules), the library never."""
    from typer.testing import CliRunner

    from experiments import rules
    from experiments.cli import app

    calls = []
    real = rules.get_rules  # what load_rules calls, wherever it was imported
    monkeypatch.setattr(rules, "get_rules", lambda preset, **kw: calls.append(preset) or real(preset, **kw))
    # the paths that resolved the name twice: the companion run (fallacy), another deck count (edge)
    extra = (
        ["--coups", "1000", "--sessions", "10", "--session-coups", "10"] if command == "fallacy" else ["--decks", "2"]
    )
    result = CliRunner().invoke(app, [command, "--rules", "classic", "--json", *extra])
    assert result.exit_code == 0, result.output
    assert [preset for preset in calls if isinstance(preset, str)] == ["classic"]

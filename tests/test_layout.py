"""The layout of experiments/ keeps its promises: the command line's help loads no engine, only the
command line prints errors (a library's refusal is one line, a bug is not hidden), one home for the
atomic writes and the normal quantile, and the few engine values written out for the help agree
with the engine's."""

from __future__ import annotations

import ast
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
    from strategies.model_file import ALGORITHMS
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


# -- the shape of the code: signatures, private names, module sizes ----------------------------------

PACKAGES = ("trente_env", "strategies", "experiments", "benchmarks")
MAX_LINES = 600  #: no source module longer
MAX_POSITIONAL = 8  #: no function with more required positional parameters

#: Modules allowed over :data:`MAX_LINES`, each with its reason.
LONG_MODULES: dict[str, str] = {}

#: Functions allowed more than :data:`MAX_POSITIONAL` required positionals, each with its reason.
LONG_SIGNATURES: dict[str, str] = {}

#: Private names (a leading underscore) used by another module, each with its reason.
PRIVATE_CROSSINGS = {
    "trente_env/croupier.py -> trente_env.settle._paid": "compiled twin of settle.paid (the croupier's legal stake)",
    "trente_env/croupier.py -> trente_env.settle._rig_payout": "compiled twin of settle.rig_payout",
    "trente_env/croupier.py -> trente_env.settle._settle_box": "compiled twin of settle.settle_box",
    "strategies/sessions.py -> trente_env.settle._rig_payout": "compiled twin of settle.rig_payout",
    "benchmarks/bench_croupier.py -> trente_env.dealer._fresh_shoe": "the benchmark times this inner kernel",
}


def _package_sources() -> dict[str, ast.Module]:
    """Every module of the packages (path relative to the root -> its syntax tree)."""
    return {
        path.relative_to(ROOT).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def _module_name(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _crossings(path: str, tree: ast.Module) -> set[str]:
    """The private names of the packages' other modules that ``path`` imports or reads as attributes."""
    here = _module_name(path)
    package = here.split(".") if path.endswith("__init__.py") else here.split(".")[:-1]
    found, aliases = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                if _private(alias.name) and base != here and base.split(".")[0] in PACKAGES:
                    found.add(f"{base}.{alias.name}")
                aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain, value = [], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in aliases:
                module = ".".join([aliases[value.id], *reversed(chain)])
                if module != here and module.split(".")[0] in PACKAGES:
                    found.add(f"{module}.{node.attr}")
    return found


def _long_signatures(path: str, tree: ast.Module) -> dict[str, int]:
    """Every function of ``path`` with more than :data:`MAX_POSITIONAL` required positionals
    (``self`` and ``cls`` not counted) -> that number."""
    found = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                args = child.args.posonlyargs + child.args.args
                required = len(args) - len(child.args.defaults) - (bool(args) and args[0].arg in ("self", "cls"))
                if required > MAX_POSITIONAL:
                    found[f"{path}:{prefix}{child.name}"] = required
                walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def test_no_module_is_over_600_lines() -> None:
    lengths = {path: len((ROOT / path).read_text(encoding="utf-8").splitlines()) for path in _package_sources()}
    long = {path: n for path, n in lengths.items() if n > MAX_LINES}
    assert set(long) == set(LONG_MODULES), long


def test_no_function_takes_more_than_8_required_positionals() -> None:
    long = {}
    for path, tree in _package_sources().items():
        long |= _long_signatures(path, tree)
    assert set(long) == set(LONG_SIGNATURES), {name: n for name, n in long.items() if name not in LONG_SIGNATURES}


def test_no_private_name_crosses_a_module() -> None:
    crossings = {f"{path} -> {name}" for path, tree in _package_sources().items() for name in _crossings(path, tree)}
    assert crossings == set(PRIVATE_CROSSINGS), crossings ^ set(PRIVATE_CROSSINGS)


def test_the_report_resolves_its_preset_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the command line turns --rules into a RuleSet once; below it only the rule set travels
    import experiments.rules

    names = []
    resolve = experiments.rules.get_rules

    def counted(preset, **changes):
        if isinstance(preset, str):
            names.append(preset)
        return resolve(preset, **changes)

    monkeypatch.setattr(experiments.rules, "get_rules", counted)
    page = tmp_path / "page.html"
    args = ["report", "-o", str(page), "--rules", "partage", "--coups", "1000", "--sessions", "0"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert names == ["partage"]
    assert "rules partage" in page.read_text(encoding="utf-8")


#: Hand-written whole-number checks left, each with its reason (every other goes through trente_env.whole).
WHOLE_CHECKS_LEFT: dict[str, str] = {}


def test_whole_numbers_are_checked_in_one_place() -> None:
    # "a bool is not a number, an int is": written once, in trente_env/whole.py
    copy = re.compile(
        r"isinstance\((\S+), bool\) or not isinstance\(\1, \(?int\b(?!, float)"
        r"|isinstance\((\S+), int\) and not isinstance\(\2, bool\)"
        r"|not isinstance\((\S+), int\) or isinstance\(\3, bool\)"
    )
    found = {
        path
        for package in PACKAGES
        for file in (ROOT / package).rglob("*.py")
        if copy.search(file.read_text(encoding="utf-8"))
        and (path := file.relative_to(ROOT).as_posix()) != "trente_env/whole.py"
    }
    assert found == set(WHOLE_CHECKS_LEFT), found ^ set(WHOLE_CHECKS_LEFT)

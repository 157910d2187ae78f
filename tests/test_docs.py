"""The shipped documentation cannot rot: the "rule -> where it is implemented" index of docs/rules.md
names code that exists, and every link to a section of the rules page lands on one of its headings."""

import importlib
import os
import re
import shlex
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
INDEX_HEADING = "## Where each rule is implemented"
#: a row of the index: | rule | `module` | `name` |
ROW = re.compile(r"^\|(?P<rule>[^|]+)\|\s*`(?P<module>[\w.]+)`\s*\|\s*`(?P<name>[\w.]+)`\s*\|\s*$")
LINK = re.compile(r"docs/rules\.md#([\w-]+)")


def index_rows() -> list[tuple[str, str, str]]:
    text = RULES.read_text(encoding="utf-8")
    assert INDEX_HEADING in text, "docs/rules.md lost its index section"
    section = text.split(INDEX_HEADING, 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("|")][2:]  # header and rule line
    rows = []
    for line in table:
        match = ROW.match(line)
        assert match, f"docs/rules.md: an index row not of the form | rule | `module` | `name` |: {line}"
        rows.append((match["rule"].strip(), match["module"], match["name"]))
    return rows


def mkdocs_slug(heading: str) -> str:
    """The anchor MkDocs (Python-Markdown's toc) gives a heading: accents dropped, punctuation out."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation out, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings() -> list[str]:
    lines = RULES.read_text(encoding="utf-8").splitlines()
    return [line.lstrip("#").strip() for line in lines if re.match(r"^#{1,6} ", line)]


def test_the_index_is_a_table_of_every_rule():
    rows = index_rows()
    assert len(rows) >= 30
    rules = {rule for rule, _, _ in rows}
    for words in ("refait", "prison", "après", "insurance", "cut card", "Couleur", "table minimum", "presets"):
        assert any(words in rule for rule in rules), words


@pytest.mark.parametrize(("rule", "module", "name"), index_rows())
def test_every_function_the_index_names_exists(rule, module, name):
    obj = importlib.import_module(module)
    for part in name.split("."):
        assert hasattr(obj, part), f"docs/rules.md: {rule!r} points at {module}.{name}, which does not exist"
        obj = getattr(obj, part)


def test_every_heading_has_the_same_anchor_on_github_and_on_the_site():
    for heading in headings():
        assert mkdocs_slug(heading) == github_slug(heading), heading


def cited_anchors() -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    for folder in ("trente_env", "strategies", "experiments", "tests", "benchmarks", "examples", "docs"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".md", ".toml") and path.is_file():
                for anchor in LINK.findall(path.read_text(encoding="utf-8")):
                    cited.setdefault(anchor, []).append(str(path.relative_to(ROOT)))
    for anchor in LINK.findall((ROOT / "README.md").read_text(encoding="utf-8")):
        cited.setdefault(anchor, []).append("README.md")
    return cited


def test_every_link_to_the_rules_lands_on_a_heading():
    anchors = {mkdocs_slug(heading) for heading in headings()}
    cited = cited_anchors()
    assert len(cited) >= 10  # the code cites the rules page in many places; a broken scan finds none
    missing = {anchor: where for anchor, where in cited.items() if anchor not in anchors}
    assert not missing, f"links to sections docs/rules.md does not have: {missing}"


def test_the_repository_cites_no_unshipped_spec():
    pattern = re.compile(r"\bSPEC(\.md)?`?\s+(section\s+)?\d")
    for folder in ("trente_env", "strategies", "experiments", "tests", "benchmarks", "examples"):
        for path in (ROOT / folder).rglob("*.py"):
            assert not pattern.search(path.read_text(encoding="utf-8")), path
    assert not pattern.search((ROOT / "README.md").read_text(encoding="utf-8"))


def teaching_commands() -> list[str]:
    """The commands of the README's "Teaching with trente-lab" code block, comments dropped."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Teaching with trente-lab", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.split("#", 1)[0].strip()]


@pytest.mark.slow  # the README gives no small sizes: two million coups for the fallacy table
def test_the_readme_teaching_sequence_runs_as_written(tmp_path):
    commands = teaching_commands()
    assert len(commands) >= 3 and all(c.startswith("trente-lab ") for c in commands), commands
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command in commands:  # as a user types them, one after the other in one folder; no input for play
        argv = [sys.executable, "-m", "experiments.cli", *shlex.split(command)[1:]]
        done = subprocess.run(
            argv, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"{command!r} exited {done.returncode}: {done.stderr.strip()}"


def test_the_rules_page_lists_every_preset_as_the_code_describes_it():
    """docs/rules.md's preset table is trente_env.rules.PRESET_NOTES, row for row and word for word."""
    from trente_env.rules import PRESET_NOTES

    section = RULES.read_text(encoding="utf-8").split("## Rule presets", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    listed = {}
    for line in rows:
        name, note = (cell.strip() for cell in line.strip("|").split("|"))
        listed[name.split("`")[1]] = note
    assert listed == PRESET_NOTES


def test_the_readme_manual_opens_after_a_plain_import():
    """The README sends readers to ``help(trente_env.env.TrenteEtQuaranteEnv)`` after ``import trente_env``."""
    assert "help(trente_env.env.TrenteEtQuaranteEnv)" in (ROOT / "README.md").read_text(encoding="utf-8")
    script = "import pydoc, trente_env; print(pydoc.render_doc(trente_env.env.TrenteEtQuaranteEnv)[:200])"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "TrenteEtQuaranteEnv" in done.stdout

"""docs/architecture.md is drawn from the code: every file and folder its maps name exists, every module
of the three packages is named there, and every module path the page writes (``trente_env.settle``,
``strategies.runner.play``) is a module, or a name a module defines."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = ("trente_env", "strategies", "experiments")
ENTRY = re.compile(r"^  (\S.*?)(?:\s{2,}(.*))?$")  #: a map's entry: its files or folder, then what it is


def maps(page: str) -> dict[str, dict[str, str]]:
    """Each package's map: entry (``x.py``, ``x.py, y.py`` or ``sub/``) -> its text, continuation lines included."""
    found: dict[str, dict[str, str]] = {}
    package, entry = None, None
    for block in re.findall(r"```\n(.*?)```", page, flags=re.S):
        for line in block.splitlines():
            if line.endswith("/") and not line.startswith(" "):
                package = line[:-1]
                found[package] = {}
            elif package and (match := ENTRY.match(line)):
                entry = match.group(1)
                found[package][entry] = match.group(2) or ""
            elif package and entry and line.startswith("   "):
                found[package][entry] += " " + line.strip()
    return found


def missing(page: str) -> list[str]:
    """The files and folders the maps name that do not exist."""
    gone = []
    for package, entries in maps(page).items():
        for entry in entries:
            for name in re.split(r",\s*", entry):
                if not (ROOT / package / name).exists():
                    gone.append(f"{package}/{name}")
    return gone


def unnamed(page: str) -> list[str]:
    """The modules the maps do not name: a top-level module by its file name, a subpackage's modules
    by name in its folder's entry."""
    left = []
    for package, entries in maps(page).items():
        files = {name for entry in entries for name in re.split(r",\s*", entry)}
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT / package).parts
            if len(parts) == 1:
                if parts[0] != "__init__.py" and parts[0] not in files:
                    left.append(f"{package}/{parts[0]}")
                continue
            folder = f"{parts[0]}/"
            text = entries.get(folder)
            if text is None:
                left.append(f"{package}/{folder}")
            elif path.stem != "__init__" and not re.search(rf"(?<![\w.]){re.escape(path.stem)}(?!\w)", text):
                left.append(path.relative_to(ROOT).as_posix())
    return left


PAGE = DOC.read_text(encoding="utf-8")


def test_the_maps_cover_the_three_packages() -> None:
    assert set(maps(PAGE)) == set(PACKAGES)


def test_every_file_and_folder_the_maps_name_exists() -> None:
    assert missing(PAGE) == []


def test_every_module_is_named() -> None:
    assert unnamed(PAGE) == []


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:cut])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if not module.is_file():
            continue
        rest = parts[cut:]
        if not rest:
            return True
        text = module.read_text(encoding="utf-8")
        return len(rest) <= 2 and all(re.search(rf"\b{re.escape(name)}\b", text) for name in rest)
    return False


def test_every_module_path_of_the_page_is_one() -> None:
    dotted = set(re.findall(rf"`((?:{'|'.join(PACKAGES)})(?:\.\w+)+)", PAGE))
    assert dotted, "the page names modules"
    assert sorted(d for d in dotted if not _resolves(d)) == []


def test_the_checks_see_a_renamed_module_and_an_unnamed_one() -> None:
    page = PAGE.replace("  whole.py ", "  whole_gone.py ").replace("expectations (rig)", "expectations")
    assert missing(page) == ["trente_env/whole_gone.py"]
    assert unnamed(page) == ["trente_env/odds/rig.py", "trente_env/whole.py"]
    assert not _resolves("trente_env.settle.no_such_name") and _resolves("trente_env.settle.refait_words")

"""What a tournament shows a person: the verdict table in an 80-column terminal (compact) and with
``--wide``, every cell whole."""

from __future__ import annotations

import pytest
from rich.console import Console
from typer.testing import CliRunner

from experiments.cli import app
from experiments.tournament.config import make_config
from experiments.tournament.output import TABLE_COLUMNS, print_table, table_cells
from experiments.tournament.runner import run_tournament


@pytest.fixture(scope="module")
def lineup(tmp_path_factory):
    """A short run of the default line-up (its labels are the longest a user meets by default)."""
    out = tmp_path_factory.mktemp("lineup")
    return run_tournament(make_config(None, sessions=40, coups=20), out, plots=False)


def _shown(document: dict, wide: bool, width: int) -> list[str]:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115 (closed with the console)
    print_table(document, wide, console)
    return console.export_text().splitlines()


@pytest.mark.parametrize(("wide", "width"), [(False, 80), (True, 150)])
def test_every_cell_is_whole_on_its_row(lineup, wide, width):
    lines = _shown(lineup, wide, width)
    assert max(len(line) for line in lines) <= width
    assert not any("…" in line for line in lines)  # rich's mark of a cut cell
    shown = [i for i, (_, _, compact) in enumerate(TABLE_COLUMNS) if wide or compact]
    for name, _, _ in (TABLE_COLUMNS[i] for i in shown):
        for word in name.split():  # headings may take two lines, never a word cut in two
            assert any(word in line for line in lines), word
    for label in lineup["order"]:
        cells = [label, *table_cells(lineup["strategies"][label])]
        rows = [line for line in lines if line.startswith(" ") and line.split()[:1] == [label]]
        assert len(rows) == 1, label  # one line per system: nothing wrapped onto a second line
        row = rows[0]
        at = 0
        for i in shown:  # every cell of the row, whole, in the order of the columns
            found = row.find(cells[i], at)
            assert found >= 0, (label, cells[i], row)
            at = found + len(cells[i])


def test_compact_by_default_and_wide_on_request(tmp_path):
    args = ["tournament", "--strategies", "flat,never", "--sessions", "20", "--coups", "10", "--no-plots"]
    compact = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "a")])
    wide = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "b"), "--wide"])
    assert compact.exit_code == 0 and wide.exit_code == 0, compact.output + wide.output
    assert "return/unit" in compact.stdout and "(ruin)" in compact.stdout and "max hits" not in compact.stdout
    assert max(len(line) for line in compact.stdout.splitlines()) <= 80
    assert "max hits" in wide.stdout and "median" in wide.stdout

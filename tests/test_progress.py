"""Long waits say how far they are: the odds-cache rebuild and the benchmarks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trente_env.odds import first as odds


def test_the_odds_cache_rebuild_reports_each_deck_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``write_cache`` tells its caller each deck count as soon as it is computed, and writes what it computed
    (the odds themselves are stood in for by the cached ones: computing them takes minutes)."""
    cached = {d: odds.first_coup(d) for d in (1, 2, 3)}
    computed: list[int] = []

    def coup_odds(shoe):
        decks = int(shoe.sum()) // 52
        computed.append(decks)
        return cached[decks]

    monkeypatch.setattr(odds, "coup_odds", coup_odds)
    monkeypatch.setattr(odds, "CACHE", tmp_path / "first_coup.json")
    told: list[tuple[int, list[int]]] = []
    table = odds.write_cache(range(1, 4), done=lambda d: told.append((d, list(computed))))
    assert told == [(1, [1]), (2, [1, 2]), (3, [1, 2, 3])]  # each one told once it is computed, not before
    assert json.loads((tmp_path / "first_coup.json").read_text()) == table
    assert table == {str(d): cached[d].to_dict() for d in (1, 2, 3)}


@pytest.mark.parametrize("stdout_is_terminal", [False, True])
def test_a_status_line_keeps_what_is_printed_meanwhile_where_it_belongs(
    stdout_is_terminal: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The status line is drawn on stderr; a line printed meanwhile (a benchmark's table row) goes to stdout's
    file when stdout is redirected, and above the status line when both are the same terminal."""
    import io

    from rich.console import Console

    from experiments import console

    screen = io.StringIO()
    monkeypatch.setattr(console, "err", Console(file=screen, force_terminal=True, width=80))
    monkeypatch.setattr(console, "out", Console(file=io.StringIO(), force_terminal=stdout_is_terminal))
    with console.status(True) as doing:
        doing("measuring the single env")
        print("| a table row |")
    assert "measuring the single env" in screen.getvalue()
    printed = capsys.readouterr().out
    if stdout_is_terminal:
        assert printed == "" and "| a table row |" in screen.getvalue()
    else:
        assert printed == "| a table row |\n" and "| a table row |" not in screen.getvalue()

"""``trente-lab report``: one self-contained HTML page, read defensively from a tournament folder, and
rendered by a real headless Chromium (screenshot, no console errors, every image decoded)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.teaching.page import glossary, rules_text
from experiments.teaching.report import build_report
from trente_env.odds import house_edges
from trente_env.rules import get_rules

runner = CliRunner()
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed here (apt-get install chromium); CI installs it"
)


def _png(path: Path, colour: str = "#b3261e") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2], [1, 0, 1], color=colour)
    fig.savefig(path)
    plt.close(fig)


@pytest.fixture
def tournament(tmp_path: Path) -> Path:
    """A folder shaped like `trente-lab tournament --out`: results.json (a subset of the fields, one
    strategy with fields missing), results.csv, manifest.json, plots, and a file that is not a PNG."""
    folder = tmp_path / "run"
    folder.mkdir()
    results = {
        "schema": "trente-lab/tournament-results/1",
        "rules": "classic",
        "description": "6 decks, cut card 52 from the end",
        "sessions": 200,
        "coups": 100,
        "bankroll": 1000,
        "seed": 0,
        "house_edge": 0.011208,
        "conclusion": "No system beats the edge <script>alert(1)</script>.",
        "correction": {"method": "holm", "family_size": 2, "level": 0.05},
        "order": ["martingale", "flat"],
        "strategies": {
            "flat": {"spec": "flat", "return_per_unit": -0.0112, "ci_low": -0.02, "ci_high": -0.002,
                     "expected_return": -0.011208, "verdict": "on the edge", "consistent_with_edge": True,
                     "p_ahead": 0.41, "p_ruin": 0.0, "mean_final_bankroll": 998.8, "median_final_bankroll": 998.0,
                     "longest_losing_run": 9, "table_max_hits": 0},
            "martingale": {"spec": "martingale", "return_per_unit": "not a number", "verdict": "on the edge"},
        },
    }  # fmt: skip
    (folder / "results.json").write_text(json.dumps(results))
    (folder / "results.csv").write_text("strategy,return_per_unit\nflat,-0.0112\n")
    (folder / "manifest.json").write_text("{}")
    for name in ("final_bankroll.png", "trajectories.png", "extra_plot.png"):
        _png(folder / name)
    (folder / "broken.png").write_text("not a png")
    return folder


def test_a_report_from_a_tournament_folder(tournament: Path) -> None:
    path = build_report(tournament, coups=100_000, sessions=0)
    assert path == tournament / "report.html"
    page = path.read_text(encoding="utf-8")
    for text in ["The tournament", "No system beats the edge", "martingale", "-1.12%", "on the edge",
                 "How often Rouge wins after k decided coups", "How often Couleur wins", "The rules",
                 "Glossary", "Français", "house edge, Noir/Rouge", "1.1208%"]:  # fmt: skip
        assert text in page, text
    for term, english, french in glossary(get_rules("classic")):
        assert f"<td>{html.escape(term)}</td><td>{html.escape(english)}</td><td lang='fr'>{html.escape(french)}" in page
    assert "<script>alert(1)</script>" not in page  # the tournament's text is escaped
    images = re.findall(r'<img src="([^"]*)"', page)
    assert len(images) == 4  # three plots from the folder (broken.png skipped) + the fallacy plot
    assert all(src.startswith("data:image/png;base64,") for src in images)
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched from a network


def test_fallacy_json_in_the_folder_is_used(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["fallacy", "-n", "50000", "--sessions", "50", "--session-coups", "40", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    page = build_report(tmp_path, tmp_path / "r.html", coups=1).read_text(encoding="utf-8")
    assert "from fallacy.json" in page and "50,000 coups" in page
    assert "Same shoes, three ways to bet" in page
    assert page.count("<img ") == 2  # fallacy.png and systems.png from the folder, not drawn twice


@pytest.mark.parametrize("content", ["[1, 2]", json.dumps({"strategies": [{"spec": "flat"}]})])
def test_results_json_of_another_shape_does_not_break_the_page(tournament: Path, content: str) -> None:
    (tournament / "results.json").write_text(content)
    page = build_report(tournament, coups=20_000, sessions=0).read_text(encoding="utf-8")
    assert "The gambler&#x27;s fallacy" in page and "Glossary" in page


@pytest.mark.parametrize("name", ["results.json", "fallacy.json", "classroom.json", "manifest.json"])
def test_a_file_of_the_folder_that_is_not_json_is_refused_in_one_line(tournament: Path, name: str) -> None:
    """Not JSON where JSON is read: bad input like a malformed config, refused before the page is written."""
    (tournament / name).write_text("{not json")
    result = runner.invoke(app, ["report", str(tournament), "--coups", "1000", "--sessions", "0"])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [result.stderr.strip()] and "malformed" in result.stderr, result.stderr
    assert name in result.stderr and not (tournament / "report.html").exists()


def test_cli_report_without_a_folder_and_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    result = runner.invoke(app, ["report", "-o", str(out), "--coups", "30000", "--sessions", "100"])
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and out.stat().st_size > 10_000
    result = runner.invoke(app, ["report", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "is not a folder" in result.output
    result = runner.invoke(app, ["report", "-o", str(out), "--rules", "nope"])
    assert result.exit_code == 2 and "unknown rules preset" in result.output


# -- the real browser ------------------------------------------------------------------------------


def _chromium(tmp_path: Path, page: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
        "--hide-scrollbars", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", *args,
        page.resolve().as_uri(),
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def _console_messages(stderr: str) -> list[str]:
    """Everything the page wrote to the console: errors, uncaught exceptions, blocked requests."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


@needs_chromium
def test_the_page_renders_in_headless_chromium(tournament: Path, tmp_path: Path) -> None:
    page = build_report(tournament, coups=100_000, sessions=200)
    dom = _chromium(tmp_path, page, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert _console_messages(dom.stderr) == []
    # the page's own script ran after load and found every embedded image decoded
    check = re.search(r'<body data-images-decoded="(\d+)" data-images-total="(\d+)" data-images-ok="(\w+)"', dom.stdout)
    assert check, dom.stdout[-2000:]
    assert check.group(3) == "yes" and check.group(1) == check.group(2) == "5"
    assert "render check" not in dom.stdout  # the check is for the test, not a line on the page
    assert "How often Rouge wins" in dom.stdout and "tailleur" in dom.stdout
    shot = tmp_path / "report.png"
    result = _chromium(tmp_path, page, "--window-size=1200,3000", f"--screenshot={shot}")
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    from PIL import Image

    with Image.open(shot) as image:
        assert image.size == (1200, 3000)
        colours = image.convert("RGB").resize((120, 300)).getcolors(maxcolors=100_000)
    assert colours is not None and len(colours) > 50  # text, tables and plots, not a blank page


@needs_chromium
def test_the_browser_check_catches_a_broken_page(tmp_path: Path) -> None:
    # The control: the same checks on a page with a broken image and a script error must fail.
    from experiments.teaching.page import CHECK_SCRIPT

    page = tmp_path / "broken.html"
    page.write_text(
        '<html><body><img src="data:image/png;base64,AAAA">'
        f"<script>{CHECK_SCRIPT}</script><script>undefinedFunction();</script></body></html>"
    )
    dom = _chromium(tmp_path, page, "--dump-dom")
    assert any("undefinedFunction" in line for line in _console_messages(dom.stderr))
    assert 'data-images-decoded="0" data-images-total="1" data-images-ok="no"' in dom.stdout


def test_the_page_lists_the_files_of_the_run_with_their_sizes(tournament: Path) -> None:
    manifest = {"files": ["manifest.json", "results.json", "sessions.parquet"], "blocks_kept": False,
                "sizes": {"results.json": 25_469, "sessions.parquet": 1_999_218}}  # fmt: skip
    (tournament / "manifest.json").write_text(json.dumps(manifest))
    page = build_report(tournament, coups=1000, sessions=0).read_text(encoding="utf-8")
    assert (
        "Files of the run: manifest.json, results.json (25.5 kB), sessions.parquet (2.0 MB); "
        "block files removed once complete." in page
    )


# -- what a newcomer reads ---------------------------------------------------------------------------


def test_the_multiple_comparisons_line_is_a_sentence(tournament: Path) -> None:
    page = build_report(tournament, coups=1000, sessions=0).read_text(encoding="utf-8")
    assert (
        "Multiple comparisons: the verdicts use Holm&#x27;s step-down correction over the 2 systems that staked: "
        "the chance that any honest system is flagged is at most 5%." in page
    )
    assert "family size" not in page and "method holm" not in page


def test_a_system_that_stakes_nothing_shows_no_edge(tournament: Path) -> None:
    results = json.loads((tournament / "results.json").read_text())
    results["order"].append("never")
    results["strategies"]["never"] = {"spec": "never", "return_per_unit": float("nan"), "expected_return": -0.011208,
                                      "total_staked": 0.0, "verdict": "no bets", "p_ahead": 0.0}  # fmt: skip
    (tournament / "results.json").write_text(json.dumps(results))
    page = build_report(tournament, coups=1000, sessions=0).read_text(encoding="utf-8")
    row = re.search(r'<tr><td class="l">never</td>(.*?)</tr>', page)
    assert row, page[-3000:]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))
    assert cells[0] == "–" and cells[2] == "–"  # return per unit staked, exact −edge
    assert "-1.12%" in page  # the systems that staked still show theirs


def test_report_says_what_it_could_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder without a tournament, a fallacy.json without tables: one line each, and the page says where its
    fallacy section came from and that its sizes are not fallacy's defaults."""
    from experiments.teaching import report

    said: list[str] = []
    monkeypatch.setattr(report, "say", said.append)
    (tmp_path / "fallacy.json").write_text('{"tables": "none"}')
    page = build_report(tmp_path, coups=20_000, sessions=0).read_text(encoding="utf-8")
    assert len(said) == 2, said
    assert any("holds no tournament (no results.json or results.csv)" in line for line in said)
    assert any("fallacy.json could not be used (it holds no fallacy tables" in line and "run made now" in line
               for line in said)  # fmt: skip
    assert "because fallacy.json could not be used" in page
    assert "a run made for this report (20,000 coups; trente-lab fallacy plays 2,000,000 coups" in page


def test_the_systems_legend_covers_no_interval() -> None:
    """systems.png: the legend sits outside the plotting area, so no interval is under it."""
    from experiments.teaching.fallacy import systems_figure

    rows = [{"spec": s, "return_per_unit": r, "low": r - 0.004, "high": r + 0.004, "minus_edge": -0.0112}
            for s, r in (("streak:k=3", -0.012), ("anti-streak:k=3", -0.010), ("flat:box=rouge", -0.011))]  # fmt: skip
    fig = systems_figure({"sessions": 100, "coups": 50, "systems": rows})
    fig.canvas.draw()
    legend = fig.legends[0].get_window_extent() if fig.legends else fig.axes[0].get_legend().get_window_extent()
    plotting_area = fig.axes[0].get_window_extent()
    assert not legend.overlaps(plotting_area)
    figure_box = fig.bbox
    assert figure_box.x0 <= legend.x0 and legend.x1 <= figure_box.x1 and figure_box.y0 <= legend.y0  # not cut
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_deal_aligns_the_totals_whatever_the_cards_in_each_row() -> None:
    from experiments.game.deal import deal_coups_from_shoe, render_coup

    coups = list(deal_coups_from_shoe(n_coups=40, seed=3))
    uneven = [c for c in coups if len(c.noir_cards) != len(c.rouge_cards)]
    assert uneven
    for coup in uneven:
        lines = render_coup(coup).plain.splitlines()
        assert lines[0].index("=") == lines[1].index("="), lines


def test_fallacy_marks_a_missed_interval_in_text_too() -> None:
    """A missed interval carries a * (readable when piped or printed), not only the colour red."""
    import io

    from rich.console import Console

    from experiments.teaching.fallacy import render_tables

    cell = {"occasions": 100, "wins": 70, "frequency": 0.7, "low": 0.6, "high": 0.78}
    table = {"event": "rouge", "other": "noir", "exact": 0.5, "rows": [
        {"k": 0, "after_rouge": cell, "after_noir": cell},
        {"k": 1, "after_rouge": {**cell, "contains_exact": False},
         "after_noir": {**cell, "frequency": 0.5, "low": 0.4, "high": 0.6, "contains_exact": True}},
    ]}  # fmt: skip
    console = Console(file=io.StringIO(), width=100, color_system=None)
    for view in render_tables({"tables": [table]}):
        console.print(view)
    text = console.file.getvalue()
    assert "70.00%*" in text and "50.00%*" not in text
    assert "* (in red): the interval misses the exact value" in " ".join(text.split())


def test_a_class_export_in_the_folder_gets_its_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """classroom.json (the classroom's JSON export): the class's table and streak trap, computed as the
    projector computes them; a broken one is one line and a box on the page."""
    from experiments.classroom.state import Classroom
    from experiments.teaching import report
    from trente_env.rules import get_rules

    room = Classroom(get_rules("classic"), seed=4)
    students = [room.join(f"s{i}", room.join_code) for i in range(4)]
    for n in range(30):
        for i, s in enumerate(students):
            room.predict(s.key, "noir" if (n * i) % 3 else "rouge")
        room.deal()
    (tmp_path / "classroom.json").write_text(json.dumps(room.export()))
    page = build_report(tmp_path, coups=1000, sessions=0).read_text(encoding="utf-8")
    assert "Your class: predictions before each coup" in page and "30 coups, 4 students, 120 predictions" in page
    pooled = {(r["side"], r["k"]): r for r in room.public()["pooled"]}
    first = pooled["noir", 1]
    assert f"<td class='l'>1 Noir</td><td>{first['occasions']}</td>" in page
    trap = room.streak_trap()[0]
    assert f"({trap['right']}/{trap['occasions']})" in page
    said: list[str] = []
    monkeypatch.setattr(report, "say", said.append)
    (tmp_path / "classroom.json").write_text('{"coups": [], "predictions": [[]]}')
    page = build_report(tmp_path, coups=1000, sessions=0).read_text(encoding="utf-8")
    assert any("classroom.json could not be read" in line for line in said)
    assert "classroom.json could not be read" in page


def test_the_rules_section_describes_the_table_the_tournament_played(tmp_path: Path) -> None:
    """A tournament on the classic preset with its refait overridden to half: the page names that
    game and lists the half rule and its edge, not the classic preset's prison."""
    from experiments.tournament.config import make_config
    from experiments.tournament.runner import run_tournament
    from trente_env.odds import first_coup, house_edges
    from trente_env.rules import Refait, get_rules

    folder = tmp_path / "run"
    run_tournament(make_config("flat", sessions=20, coups=10, rule_changes={"refait": "half"}), folder, plots=False)
    page = build_report(folder, output=tmp_path / "report.html", coups=20_000, sessions=0).read_text()
    rules = page.split('id="rules"', 1)[1]
    assert "This table: classic with refait=half (the partage preset)" in html.unescape(rules)
    assert '<td class="l">refait rule</td><td>half</td>' in rules
    half = house_edges(get_rules("classic", refait=Refait.HALF), first_coup(6)).noir
    assert f"{half:.4%}" in rules and f"{house_edges(get_rules('classic'), first_coup(6)).noir:.4%}" not in rules


@pytest.mark.parametrize("preset", ["classic", "partage", "quarter-partage", "choice"])
def test_the_glossary_and_the_rules_say_what_a_refait_costs_at_this_table(preset):
    """The texts read the rule: a table where the refait takes a quarter never tells students it takes
    half or sends the stake to prison, and the edge printed is the table's exact one."""
    rules = get_rules(preset) if preset != "quarter-partage" else get_rules("partage").replace(refait="quarter")
    words = {term: (english, french) for term, english, french in glossary(rules)}
    english, french = words["refait"]
    said = " ".join(rules_text(rules))
    assert f"{house_edges(rules).noir:.2%}" in said
    if preset == "classic":
        assert "prison" in english and "prison" in french and "half" not in english
    elif preset == "quarter-partage":
        assert "a quarter" in english and "le quart" in french and "prison" not in english
        assert "a quarter" in said and "half" not in said and "prison" not in said
    elif preset == "partage":
        assert "half" in english and "la moitié" in french and "prison" not in english
    else:
        assert "prison" in english and "half" in english

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
from experiments.teaching.page import GLOSSARY
from experiments.teaching.report import build_report

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
    for term, english, french in GLOSSARY:
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


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", json.dumps({"strategies": [{"spec": "flat"}]})])
def test_unusable_results_json_does_not_break_the_page(tournament: Path, content: str) -> None:
    (tournament / "results.json").write_text(content)
    page = build_report(tournament, coups=20_000, sessions=0).read_text(encoding="utf-8")
    assert "The gambler&#x27;s fallacy" in page and "Glossary" in page


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
    check = re.search(r'<p id="render-check" data-images-ok="(\w+)">render check: (\d+) of (\d+)', dom.stdout)
    assert check, dom.stdout[-2000:]
    assert check.group(1) == "yes" and check.group(2) == check.group(3) == "5"
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
        '<html><body><img src="data:image/png;base64,AAAA"><p id="render-check">not run</p>'
        f"<script>{CHECK_SCRIPT}</script><script>undefinedFunction();</script></body></html>"
    )
    dom = _chromium(tmp_path, page, "--dump-dom")
    assert any("undefinedFunction" in line for line in _console_messages(dom.stderr))
    assert 'data-images-ok="no"' in dom.stdout and "render check: 0 of 1" in dom.stdout


def test_the_page_lists_the_files_of_the_run_with_their_sizes(tournament: Path) -> None:
    manifest = {"files": ["manifest.json", "results.json", "sessions.parquet"], "blocks_kept": False,
                "sizes": {"results.json": 25_469, "sessions.parquet": 1_999_218}}  # fmt: skip
    (tournament / "manifest.json").write_text(json.dumps(manifest))
    page = build_report(tournament, coups=1000, sessions=0).read_text(encoding="utf-8")
    assert (
        "Files of the run: manifest.json, results.json (25.5 kB), sessions.parquet (2.0 MB); "
        "block files removed once complete." in page
    )

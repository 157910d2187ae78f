"""What a tournament shows a person: the verdict table in an 80-column terminal (compact) and with
``--wide``, every cell whole."""

from __future__ import annotations

import pytest
from rich.console import Console
from typer.testing import CliRunner

from experiments.cli import app
from experiments.tournament.config import make_config
from experiments.tournament.exact import add_exact_risks
from experiments.tournament.output import TABLE_COLUMNS, TABLE_WIDTH, print_table, table_cells
from experiments.tournament.runner import run_tournament


@pytest.fixture(scope="module")
def lineup(tmp_path_factory):
    """A short run of the default line-up (its labels are the longest a user meets by default)."""
    out = tmp_path_factory.mktemp("lineup")
    document = run_tournament(make_config(None, sessions=40, coups=20), out, plots=False)  # the per-session table too
    return add_exact_risks(document, progress=False)  # the wide table's exact columns filled in


def _shown(document: dict, wide: bool, width: int) -> list[str]:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115 (closed with the console)
    print_table(document, wide, console)
    return console.export_text().splitlines()


@pytest.mark.parametrize(("wide", "width"), [(False, 80), (True, TABLE_WIDTH[True])])
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
    assert "Markov chain" in wide.stdout and "Markov chain" not in compact.stdout


def test_the_exact_columns_are_the_chains_and_say_what_they_refuse(lineup):
    """Each exact figure is the chain's for the run's session (bankroll, coups, rules); a system whose
    state grows without bound is named as refused, its exact cells empty, never a made-up number."""
    from strategies.registry import make_strategy
    from strategies.risk import exact_risk
    from trente_env.rules import RuleSet

    rules = RuleSet(**lineup["rule_values"])
    row = lineup["strategies"]["martingale"]
    risk = exact_risk(make_strategy(row["spec"], rules), rules, lineup["bankroll"], lineup["coups"])
    assert (row["exact_p_ruin"], row["exact_p_ahead"]) == (risk.p_ruin, risk.p_ahead)
    assert "random" in lineup["order"] and lineup["strategies"]["random"]["exact_p_ahead"] is not None
    for label, reason in lineup["exact_risk"]["refused"].items():
        assert lineup["strategies"][label]["exact_p_ruin"] is None and reason
    assert "independent coups" in lineup["exact_risk"]["model"]


# -- the plots -----------------------------------------------------------------------------------


def test_percent_ticks_show_the_true_value_of_every_tick():
    from experiments.files import pyplot
    from experiments.plotting import percent_axis

    plt = pyplot()
    for low, high in ((-0.0205, 0.001), (-0.0181, -0.0049), (0.0, 1.0), (-0.3, 0.2), (0.0, 0.00012)):
        fig, ax = plt.subplots()
        ax.set_xlim(low, high)
        percent_axis(ax.xaxis)
        fig.canvas.draw()
        ticks = [(t.get_loc(), t.label1.get_text()) for t in ax.xaxis.get_major_ticks() if low <= t.get_loc() <= high]
        assert len(ticks) >= 3
        for loc, text in ticks:  # the label, read back, is the tick's value (to 1e-9 of a percent)
            assert text.endswith("%") and abs(float(text[:-1].replace("\N{MINUS SIGN}", "-")) - 100 * loc) < 1e-9
        plt.close(fig)


def test_no_double_minus_before_the_house_edge_anywhere():
    import re
    from pathlib import Path

    from experiments.plotting import edge_label

    assert edge_label(0.011213) == "exact expected return \N{MINUS SIGN}1.12% (house edge 1.12%)"
    root = Path(__file__).resolve().parents[1]
    for path in [*root.glob("experiments/**/*.py"), *root.glob("benchmarks/*.py")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""["'f][-\N{MINUS SIGN}]house edge""", text), path  # a label "-house edge (-1.12%)"


def test_final_bankroll_panels_have_their_own_range_and_labels(lineup, tmp_path):
    from experiments.tournament.output import read_sessions
    from experiments.tournament.plots import ahead_vs_return_figure, final_bankroll_figure

    sessions = read_sessions(lineup["out"])
    fig = final_bankroll_figure(lineup, sessions, lineup["order"])
    axes = [ax for ax in fig.axes if ax.axison]
    assert len(axes) == len(lineup["order"])
    for ax, label in zip(axes, lineup["order"]):
        final = sessions[label]["final_bankroll"]
        low, high = ax.get_xlim()
        assert low <= min(final.min(), 1000) and high >= max(final.max(), 1000)  # every session and the start
        assert high - low <= max(final.max(), 1000) - min(final.min(), 1000) + 2  # and no more: its own range
        assert ax.get_title().startswith(label + "\n")
    assert fig.get_supxlabel().startswith("final bankroll (units)") and fig.get_supylabel().startswith("sessions")
    table = lineup["strategies"]
    fig = ahead_vs_return_figure(lineup, lineup["order"])
    shown = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    bettors = [k for k in lineup["order"] if table[k]["return_per_unit"] is not None]
    assert shown == sorted(bettors, key=lambda k: table[k]["return_per_unit"])  # one labelled row per system


def test_every_step_after_the_last_coup_is_said_on_the_status_line(tmp_path, monkeypatch):
    import contextlib

    import experiments.tournament.runner as tournament
    from experiments.tournament.output import sessions_file
    from experiments.tournament.plots import PLOT_FILES

    said: list[str] = []

    @contextlib.contextmanager
    def recorded(enabled=True):
        yield said.append

    monkeypatch.setattr(tournament, "status", recorded)
    config = make_config("flat,martingale", sessions=20, coups=10, block=10)
    run_tournament(config, tmp_path, progress=True)
    files = ["results.json", "results.csv", sessions_file(), "trajectories.csv"]
    assert said == [
        "putting the blocks together",  # the blocks just played, kept in memory
        "summing up: intervals, verdicts, risk",
        *(f"writing {name}" for name in files),
        "drawing the plots (loading matplotlib)",
        *(f"drawing {name}" for name in PLOT_FILES),
        "removing the block files (--keep-blocks keeps them)",
    ]


def test_the_status_line_is_silent_off_a_terminal(capsys):
    from experiments.console import status

    with status(True) as doing:  # pytest's stderr is not a terminal
        doing("drawing final_bankroll.png")
    assert capsys.readouterr().err == ""


def test_plots_drawn_by_other_processes_are_the_plots_drawn_here(tmp_path, monkeypatch):
    # A large run's plots are drawn by Drawers' processes while the files are written: the same
    # function on the same numbers, so the same bytes, and the manifest lists them the same way.
    import json

    import experiments.tournament.runner as runner
    from experiments.tournament.drawing import PLOT_FILES, Drawers

    used: list[Drawers] = []

    class Recorded(Drawers):
        def __init__(self) -> None:
            super().__init__()
            used.append(self)

    config = make_config("flat,martingale,never", sessions=60, coups=30, block=20)
    run_tournament(config, tmp_path / "here")
    monkeypatch.setattr(runner, "Drawers", Recorded)
    monkeypatch.setattr(runner, "DRAW_APART_FROM", config.sessions * config.coups * len(config.specs))
    run_tournament(config, tmp_path / "apart")
    assert len(used) == 1 and set(used[0].cpu_seconds) == set(PLOT_FILES)  # each drawn over there
    for name in PLOT_FILES:
        assert (tmp_path / "apart" / name).read_bytes() == (tmp_path / "here" / name).read_bytes(), name
    manifests = [json.loads((tmp_path / k / "manifest.json").read_text()) for k in ("here", "apart")]
    assert manifests[0]["files"] == manifests[1]["files"] and manifests[1]["complete"]
    assert not list((tmp_path / "apart").glob(".*.tmp"))


def test_a_script_without_a_main_guard_gets_its_plots_drawn_apart(tmp_path):
    # The drawing processes are fresh interpreters, not multiprocessing's: a caller's script that is
    # not guarded by `if __name__ == "__main__"` is not run again in them (it would play its
    # tournament again there, and the folder is locked); and they import this code, not another
    # checkout of trente-lab in the working folder.
    import subprocess
    import sys

    script = tmp_path / "script.py"
    out = tmp_path / "run"
    script.write_text(
        "import experiments.tournament.runner as runner\n"
        "from experiments.tournament.config import make_config\n"
        "runner.DRAW_APART_FROM = 0\n"
        f"runner.run_tournament(make_config('flat,never', sessions=20, coups=10, block=10), {str(out)!r})\n"
    )
    elsewhere = tmp_path / "elsewhere" / "experiments" / "tournament"  # another trente-lab, where it is run
    elsewhere.mkdir(parents=True)
    for folder in (elsewhere, elsewhere.parent):
        (folder / "__init__.py").write_text("")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=elsewhere.parent.parent
    )
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    assert {"final_bankroll.png", "trajectories.png", "ahead_vs_return.png"} <= {
        p.name for p in (tmp_path / "run").iterdir()
    }


def test_a_drawing_process_that_fails_is_named_with_its_error(tmp_path):
    from experiments.tournament.drawing import Drawers
    from experiments.tournament.output import trajectory_bands
    from experiments.tournament.runner import collect

    config = make_config("flat,never", sessions=20, coups=10, block=10)
    document = run_tournament(config, tmp_path / "run", plots=False, keep_blocks=True)
    sessions = collect(config, tmp_path / "run")
    with Drawers() as drawers:  # into a folder that does not exist: no plot can be written
        drawers.draw(tmp_path / "missing", document, sessions, trajectory_bands(sessions))
        assert drawers.wait([]) == []
    assert set(drawers.failures) == {"final_bankroll.png", "trajectories.png", "ahead_vs_return.png"}
    assert all(error.startswith("FileNotFoundError") for error in drawers.failures.values()), drawers.failures


def test_the_plots_of_a_failed_drawing_process_are_drawn_here(tmp_path, monkeypatch):
    # A drawing process that dies (here: one that cannot start its work) costs no plot: this process
    # draws them after the files, the same bytes as a run that draws them here from the start.
    import experiments.tournament.drawing as drawing
    import experiments.tournament.runner as runner
    import experiments.workers as workers

    config = make_config("flat,martingale,never", sessions=60, coups=30, block=20)
    run_tournament(config, tmp_path / "here")
    monkeypatch.setattr(workers, "SERVE", "import sys; sys.exit('no drawing today')")
    monkeypatch.setattr(runner, "DRAW_APART_FROM", 0)
    run_tournament(config, tmp_path / "apart")
    for name in drawing.PLOT_FILES:
        assert (tmp_path / "apart" / name).read_bytes() == (tmp_path / "here" / name).read_bytes(), name


def test_the_drawing_processes_do_not_import_the_callers_stray_files(tmp_path, monkeypatch):
    # A folder on this process's sys.path (a script's folder, or the working folder of `python -m`)
    # holding a file named like a standard module (`nt.py`, which pathlib looks for) is not on the
    # drawing processes' path: they import trente-lab's folder first, then the standard library.
    import sys

    import experiments.tournament.runner as runner
    from experiments.tournament.drawing import PLOT_FILES, Drawers

    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "nt.py").write_text("raise SystemExit('the stray nt.py was imported')\n")
    monkeypatch.setattr(sys, "path", [str(stray), *sys.path])
    used: list[Drawers] = []

    class Recorded(Drawers):
        def __init__(self) -> None:
            super().__init__()
            used.append(self)

    monkeypatch.setattr(runner, "Drawers", Recorded)
    monkeypatch.setattr(runner, "DRAW_APART_FROM", 0)
    run_tournament(make_config("flat,never", sessions=20, coups=10, block=10), tmp_path / "run")
    assert len(used) == 1 and not used[0].failures and set(used[0].cpu_seconds) == set(PLOT_FILES)

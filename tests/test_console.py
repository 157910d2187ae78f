"""The terminal helpers: the progress of a long job where no bar can be drawn."""

import re

import pytest
from typer.testing import CliRunner

import experiments.console as console
from experiments.cli import app
from experiments.console import duration, progress_bar, progress_line


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0 s"), (40.4, "40 s"), (59.6, "1 min 00 s"), (310, "5 min 10 s"), (7500, "2 h 05 min")]
)
def test_a_duration_reads_as_people_say_it(seconds, text):
    assert duration(seconds) == text


def test_a_progress_line_says_what_is_known():
    assert progress_line("dealing", 45, 100, 70) == "trente-lab: dealing: 45% (45 of 100), about 1 min 10 s left"
    assert progress_line("dealing", 45, 100, None) == "trente-lab: dealing: 45% (45 of 100)"
    assert progress_line("training", 2_048, None, None) == "trente-lab: training: 2,048 done"


def test_a_long_job_on_a_stderr_that_is_no_terminal_prints_a_line_now_and_then(capsys):
    # a log or a CI job's stderr: no bar, but a line every LINE_EVERY seconds with the time left,
    # none before the first LINE_EVERY nor once the job is done (a clock of our own: no sleeping)
    from rich.progress import Progress

    now = [100.0]
    with console._progress_lines(Progress, 60.0, lambda: now[0]) as bar:
        task = bar.add_task("dealing", total=5)
        for step in (59, 2, 30, 40, 40):  # lines at 161 s and 231 s; the last advance ends the job
            now[0] += step
            bar.advance(task)
    lines = capsys.readouterr().err.splitlines()
    assert [line.rpartition(", about")[0] for line in lines] == [
        "trente-lab: dealing: 40% (2 of 5)",
        "trente-lab: dealing: 80% (4 of 5)",
    ]
    assert all(re.fullmatch(r".*, about \d+ s left", line) for line in lines)


def test_progress_bar_is_the_lines_where_stderr_is_no_terminal(monkeypatch, capsys):
    monkeypatch.setattr(console, "LINE_EVERY", 0.0)  # pytest's stderr is a file
    with progress_bar(True) as bar:
        task = bar.add_task("counting", total=2)
        bar.advance(task)
        bar.advance(task)
    assert capsys.readouterr().err.startswith("trente-lab: counting: 50% (1 of 2)")


def test_a_job_whose_bar_is_turned_off_prints_nothing(monkeypatch, capsys):
    monkeypatch.setattr(console, "LINE_EVERY", 0.0)
    with progress_bar(False) as bar:
        task = bar.add_task("dealing", total=4)
        bar.advance(task)
    assert capsys.readouterr().err == ""


def test_simulate_into_a_log_tells_how_far_it_is(monkeypatch):
    # the whole command: its stderr a file, its shards each advance the job; JSON output draws nothing
    monkeypatch.setattr(console, "LINE_EVERY", 0.0)
    runner = CliRunner()
    shown = runner.invoke(app, ["simulate", "--coups", "5000000"])
    assert shown.exit_code == 0, shown.output
    assert "trente-lab: dealing (shards of 2,000,000 coups): 33% (1 of 3)" in shown.stderr
    quiet = runner.invoke(app, ["simulate", "--coups", "5000000", "--json"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_evaluate_into_a_log_tells_how_far_it_is(monkeypatch):
    # evaluate plays its sessions coup by coup: its bar (lines off a terminal) counts the coups
    from experiments.rl.evaluate import TELL_EVERY

    monkeypatch.setattr(console, "LINE_EVERY", 0.0)
    runner = CliRunner()
    shown = runner.invoke(app, ["evaluate", "flat", "--episodes", "3", "--coups", str(3 * TELL_EVERY)])
    assert shown.exit_code == 0, shown.output
    lines = [line for line in shown.stderr.splitlines() if line.startswith("trente-lab: playing")]
    assert [line.split(", about")[0] for line in lines][:3] == [  # every update a line: LINE_EVERY is 0
        f"trente-lab: playing 3 sessions with flat: 0% (0 of {3 * TELL_EVERY})",
        f"trente-lab: playing 3 sessions with flat: 33% ({TELL_EVERY} of {3 * TELL_EVERY})",
        f"trente-lab: playing 3 sessions with flat: 67% ({2 * TELL_EVERY} of {3 * TELL_EVERY})",
    ]
    quiet = runner.invoke(app, ["evaluate", "flat", "--episodes", "3", "--coups", str(3 * TELL_EVERY), "--json"])
    assert quiet.exit_code == 0 and quiet.stderr == ""

"""The one local process pool (:class:`experiments.workers.Workers`) of ``trente-lab tournament``,
``sweep``, ``benchmark`` and the tournament's drawing processes, and :func:`~experiments.workers.run_in_processes`
on it: what ended is kept, what was queued never starts, the first error is the one reported, in one
line; its processes are fresh interpreters, so a caller's script needs no main guard."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from experiments.workers import ROOT, WorkerDied, Workers, run_in_processes


def _play(key: str, seconds: float) -> str:
    """A task (top level: the pool's processes are spawned and import it): wait, then return its key."""
    time.sleep(seconds)
    if key == "broken":
        raise ValueError("the task failed")
    if key == "long story":
        raise ValueError("the first line\nand more lines of detail")
    if key == "dies":
        os._exit(3)
    return key


def _nothing() -> None:
    """An initializer that does nothing (no parent to follow in these short runs)."""


@pytest.mark.timeout(120)
def test_every_result_reaches_done_with_its_key() -> None:
    kept: dict[str, str] = {}
    tasks = ((f"task {i}", (f"task {i}", 0.0)) for i in range(7))
    run_in_processes(_play, tasks, kept.__setitem__, workers=2, initializer=_nothing)
    assert kept == {f"task {i}": f"task {i}" for i in range(7)}


@pytest.mark.timeout(120)
def test_after_an_error_in_done_the_task_in_play_is_kept_and_the_first_error_raised() -> None:
    # "quick" ends at once and its done fails (a full disk); "slow" is in play then (2 s: the order
    # cannot turn, the two tasks being taken in order), ends, and is handed to done, whose own failure
    # must not hide the first; "queued" never starts (two processes, one task each at a time).
    calls: list[str] = []

    def done(key: str, result: str) -> None:
        calls.append(result)
        raise OSError(f"disk full while saving {key}")

    tasks = iter([("quick", ("quick", 0.0)), ("slow", ("slow", 2.0)), ("queued", ("queued", 0.0))])
    with pytest.raises(OSError, match="saving quick"):
        run_in_processes(_play, tasks, done, workers=2, initializer=_nothing)
    assert calls == ["quick", "slow"]
    assert next(tasks) == ("queued", ("queued", 0.0))  # never taken from the queue


@pytest.mark.timeout(120)
def test_a_failed_task_is_raised_and_the_others_ended_are_kept() -> None:
    kept: dict[str, str] = {}
    tasks = iter([("broken", ("broken", 0.0)), ("slow", ("slow", 2.0))])
    with pytest.raises(ValueError, match="the task failed"):
        run_in_processes(_play, tasks, kept.__setitem__, workers=2, initializer=_nothing)
    assert kept == {"slow": "slow"}


@pytest.mark.timeout(120)
def test_a_workers_error_comes_back_as_its_exception_and_one_line() -> None:
    with Workers(1, _nothing) as pool:
        pool.submit(_play, ("long story", 0.0))
        answer = pool.answer()
        assert not answer.ok and isinstance(answer.value, ValueError)
        assert answer.line == "ValueError: the first line"
        pool.submit(_play, ("fine", 0.0))  # the process serves on
        assert pool.answer()[1:3] == (True, "fine")


@pytest.mark.timeout(120)
def test_a_worker_that_dies_is_one_line_and_the_run_stops() -> None:
    tasks = iter([("dies", ("dies", 0.0)), ("after", ("after", 0.0))])
    with pytest.raises(WorkerDied, match=r"^a worker process ended before its task did \(exit code 3\)$"):
        run_in_processes(_play, tasks, lambda *_: None, workers=1, initializer=_nothing)
    assert next(tasks)[0] == "after"  # never started


@pytest.mark.timeout(300)
def test_a_script_without_a_main_guard_runs_its_tasks_in_the_pool(tmp_path: Path) -> None:
    # multiprocessing's spawn would run the script again in each process (and refuse to start a pool
    # there); the pool's processes are fresh interpreters that import the task's module by name.
    (tmp_path / "tasks.py").write_text("def square(x):\n    return x * x\n")
    script = tmp_path / "script.py"
    script.write_text(
        "from experiments.workers import run_in_processes\n"
        "from tasks import square\n"
        "got = {}\n"
        "run_in_processes(square, ((i, (i,)) for i in range(5)), got.__setitem__, workers=2)\n"
        "print(sorted(got.items()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    assert done.stdout.strip() == str([(i, i * i) for i in range(5)])


DYING_PLUGIN = """
import os
import signal
from dataclasses import dataclass
from typing import ClassVar

from strategies.progressions import Progression


@dataclass(frozen=True)
class Dying(Progression):
    \"\"\"Flat betting whose process ends on its first stake: by os._exit(1), or SIGKILL (as the
    system's out-of-memory killer ends a process).\"\"\"

    name: ClassVar[str] = "dying"

    def _bet(self, state):
        if os.environ.get("DYING_BY") == "SIGKILL":
            os.kill(os.getpid(), signal.SIGKILL)
        os._exit(1)
"""


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("by", "ending"), [("exit", "exit code 1"), ("SIGKILL", "killed by SIGKILL")])
def test_a_worker_that_dies_under_a_command_is_one_line_and_exit_code_1(tmp_path: Path, by: str, ending: str) -> None:
    """A tournament whose plugin's worker process dies: one line on stderr, no traceback, exit code 1
    (the machine failed, not the input: 2 is for input refused)."""
    (tmp_path / "dying.py").write_text(DYING_PLUGIN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)]), "DYING_BY": by}
    command = [sys.executable, "-m", "experiments.cli", "tournament", "--strategies", "dying:Dying,flat"]
    options = ["--sessions", "4", "--coups", "3", "--workers", "2", "--out", str(tmp_path / "out"), "--no-plots"]
    done = subprocess.run(command + options, capture_output=True, text=True, timeout=240, env=env, cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1, done.stderr
    assert lines == [f"trente-lab: error: a worker process ended before its task did ({ending})"], done.stderr

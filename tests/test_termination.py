"""SIGTERM and a killed parent: no worker process computes on as an orphan.

``kill PID`` (or ``timeout``, a job scheduler) reaches the ``trente-lab`` process only, not its
process group as Ctrl-C does: the command stops as Ctrl-C stops it, its workers included, and exits
143. A worker whose parent died (even by SIGKILL) leaves by itself
(:func:`experiments.backends.follow_parent`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and process groups")


def _wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.2)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped has stopped computing)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state != "Z"


def _group(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (read from /proc)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
@pytest.mark.timeout(300)
def test_sigterm_stops_a_sweep_and_its_training_workers(tmp_path: Path) -> None:
    pytest.importorskip("stable_baselines3", reason="the rl extra is not installed")
    scratch = tmp_path / "tmp"  # where the workers train (their scratch folders)
    scratch.mkdir()
    sweep = '[sweep]\nalgos = ["ppo"]\ntables = ["classic"]\nseeds = "0..3"\ntimesteps = 10000000\n'
    (tmp_path / "sweep.toml").write_text(sweep)  # four runs for two workers: two wait their turn
    args = ["sweep", "sweep.toml", "--workers", "2", "--out", "out"]
    code = "import sys; from experiments.cli import app; sys.argv[0] = 'trente-lab'; app()"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(scratch)}
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path,
        start_new_session=True,
    )  # fmt: skip
    try:
        # two runs are training once each has its folder in its worker's scratch folder
        _wait_for(lambda: len(list(scratch.glob("trente-lab-sweep-*/*"))) == 2, 240, "two runs training")
        assert len(_group(process.pid)) >= 3  # the command and its two workers
        os.kill(process.pid, signal.SIGTERM)  # the process only, not its group: what `kill` sends
        _, stderr = process.communicate(timeout=120)
        _wait_for(lambda: not _group(process.pid), 30, "the workers to stop")
    finally:
        if process.poll() is None or _group(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 143
    assert stderr.decode().splitlines()[-1] == "trente-lab: interrupted", stderr.decode()
    assert "Traceback" not in stderr.decode()
    assert not list(scratch.glob("trente-lab-sweep-*"))  # the workers stopped as Ctrl-C stops them
    assert not (tmp_path / "out" / "sweep.json").exists()  # no table of runs that did not end


@pytest.mark.timeout(120)
def test_a_worker_leaves_when_its_parent_is_killed(tmp_path: Path) -> None:
    script = (
        "import multiprocessing, time\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from experiments.backends import follow_parent\n"
        "context = multiprocessing.get_context('spawn')\n"
        "pool = ProcessPoolExecutor(1, mp_context=context, initializer=follow_parent, initargs=(1.0,))\n"
        "task = pool.submit(time.sleep, 600)\n"  # a task that would outlive the test
        "while not task.running():\n"
        "    time.sleep(0.05)\n"
        "print(*[child.pid for child in multiprocessing.active_children()], flush=True)\n"
        "time.sleep(600)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, env=env, cwd=tmp_path, start_new_session=True
    )
    workers: list[int] = []
    try:
        workers += [int(pid) for pid in parent.stdout.readline().split()]
        assert workers and all(_running(pid) for pid in workers)
        os.kill(parent.pid, signal.SIGKILL)  # no handler runs: only the worker's own watch can see it
        parent.wait(timeout=30)
        # the worker checks its parent twice a second, then has 1 s (the grace given) to stop
        _wait_for(lambda: not any(_running(pid) for pid in workers), 30, "the orphaned worker to leave")
    finally:
        if parent.poll() is None:
            os.killpg(parent.pid, signal.SIGKILL)
        parent.stdout.close()
        parent.wait(timeout=30)
        for pid in workers:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)

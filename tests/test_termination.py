"""SIGTERM and a killed parent: no worker process computes on as an orphan.

``kill PID`` (or ``timeout``, a job scheduler) reaches the ``trente-lab`` process only, not its
process group as Ctrl-C does: the command stops as Ctrl-C stops it, its workers included, and exits
143. A worker whose parent died (even by SIGKILL) leaves by itself
(:func:`experiments.workers.follow_parent`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests._processes import ROOT, start_cli, wait_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and process groups")


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
    process = start_cli(args, tmp_path, TMPDIR=str(scratch))
    try:
        # two runs are training once each has its folder in its worker's scratch folder
        wait_for(lambda: len(list(scratch.glob("trente-lab-sweep-*/*"))) == 2, 240, "two runs training")
        assert len(_group(process.pid)) >= 3  # the command and its two workers
        os.kill(process.pid, signal.SIGTERM)  # the process only, not its group: what `kill` sends
        _, stderr = process.communicate(timeout=120)
        wait_for(lambda: not _group(process.pid), 30, "the workers to stop")
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
    script = (  # the pool's worker: follow_parent (its default initializer), with 1 s of grace
        "import functools, time\n"
        "from experiments.workers import Workers, follow_parent, worker_pids\n"
        "pool = Workers(1, functools.partial(follow_parent, 1.0))\n"
        "pool.submit(time.sleep, (600,))\n"  # a task that would outlive the test
        "time.sleep(3)\n"
        "print(*worker_pids(), flush=True)\n"
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
        wait_for(lambda: not any(_running(pid) for pid in workers), 30, "the orphaned worker to leave")
    finally:
        if parent.poll() is None:
            os.killpg(parent.pid, signal.SIGKILL)
        parent.stdout.close()
        parent.wait(timeout=30)
        for pid in workers:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)

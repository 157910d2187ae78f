"""The Dask backend of the tournament: the same files to the byte as a local run, whatever the
workers, after a resume on another backend and after a worker dies; bad input in one line.

Everything runs on loopback (127.0.0.1). The slow test starts ``dask scheduler`` and two ``dask
worker`` processes, and stops each by its process id in a ``finally``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the Dask backend needs the distributed extra")

from typer.testing import CliRunner  # noqa: E402

from experiments.backends import Backend, check_versions, parse_backend, worker_versions  # noqa: E402
from experiments.cli import app  # noqa: E402
from experiments.errors import TournamentError  # noqa: E402
from experiments.tournament.config import make_config  # noqa: E402
from experiments.tournament.output import sessions_file  # noqa: E402
from experiments.tournament.runner import TournamentInterrupted, resume_tournament, run_tournament  # noqa: E402
from tests._processes import start_cli, wait_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
#: The files of a run that must not depend on where it was played.
RESULT_FILES = ("results.json", "results.csv", sessions_file(), "trajectories.csv")


#: A line-up with progressions and a scoreboard reader, in 6 blocks of 40 sessions.
SMALL = {"strategies": "flat,martingale,streak,labouchere", "sessions": 240, "coups": 60, "block": 40}


def _config(**changes):
    return make_config(**{**SMALL, **changes})


def _files(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in RESULT_FILES}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("local") / "run"
    run_tournament(_config(), out, workers=1, plots=False)
    return _files(out)


# -- the backend's name -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "backend"),
    [
        ("local", Backend("local")),
        ("dask", Backend("dask")),
        ("dask://127.0.0.1:8786", Backend("dask", address="tcp://127.0.0.1:8786")),
        ("tcp://scheduler.lab:8786", Backend("dask", address="tcp://scheduler.lab:8786")),
    ],
)
def test_backends_by_name(text: str, backend: Backend) -> None:
    assert parse_backend(text) == backend
    assert parse_backend(backend.spec) == backend  # the manifest's record names it again


def test_a_scheduler_file_must_exist(tmp_path: Path) -> None:
    path = tmp_path / "scheduler.json"
    with pytest.raises(TournamentError, match="no scheduler file"):
        parse_backend(f"dask-scheduler-file:{path}")
    path.write_text("{}")
    assert parse_backend(f"dask-scheduler-file:{path}") == Backend("dask", scheduler_file=str(path))


@pytest.mark.parametrize("text", ["dask://", "dask://host", "dask://host:0", "dask://host:99999", "cluster", ""])
def test_malformed_backends_are_refused(text: str) -> None:
    with pytest.raises(TournamentError, match="--backend"):
        parse_backend(text)


def test_a_worker_with_other_code_is_refused_in_one_line() -> None:
    here = worker_versions()
    check_versions(here, {"tcp://127.0.0.1:1": dict(here)})  # the same: accepted
    other = {**here, "numba": "0.1.0"}
    refusal = r"^worker tcp://127\.0\.0\.1:2 cannot play this run.*numba 0\.1\.0"
    with pytest.raises(TournamentError, match=refusal) as exc:
        check_versions(here, {"tcp://127.0.0.1:1": dict(here), "tcp://127.0.0.1:2": other})
    assert "\n" not in str(exc.value)
    with pytest.raises(TournamentError, match="source files differ"):
        check_versions(here, {"tcp://127.0.0.1:1": {**here, "sources": "0" * 64}})


@pytest.mark.parametrize(
    ("backend", "message"),
    [
        ("dask://127.0.0.1:1", "cannot reach tcp://127.0.0.1:1"),  # nothing listens on port 1
        ("dask-scheduler-file:/nonexistent/scheduler.json", "no scheduler file"),
        ("dask://", "unknown --backend"),
    ],
)
def test_bad_backends_on_the_command_line(backend: str, message: str, tmp_path: Path) -> None:
    args = ["tournament", "-n", "10", "-m", "5", "--strategies", "flat", "--no-plots", "--out", str(tmp_path / "o")]
    started = time.monotonic()
    result = runner.invoke(app, [*args, "--backend", backend])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert "Traceback" not in result.output
    assert time.monotonic() - started < 30  # no endless retry: the connection gives up after 5 s


# -- a local cluster ----------------------------------------------------------------------------


@pytest.mark.timeout(300)
def test_a_local_cluster_gives_the_same_files_to_the_byte(tmp_path: Path, local_run: dict[str, bytes]) -> None:
    out = tmp_path / "dask"
    document = run_tournament(_config(), out, workers=2, plots=False, backend=Backend("dask"))
    assert _files(out) == local_run
    assert document["workers_warm_up"]["workers"] == 2 and document["workers_warm_up"]["seconds"] > 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["backend"] == "dask" and manifest["complete"]
    assert not [p for p in out.iterdir() if p.name.startswith(".dask-")]  # its scratch folder is gone


@pytest.mark.timeout(300)
def test_a_run_begun_locally_is_finished_on_a_cluster_with_the_same_files(
    tmp_path: Path, local_run: dict[str, bytes]
) -> None:
    out = tmp_path / "resumed"
    with pytest.raises(TournamentInterrupted):
        run_tournament(_config(), out, workers=1, plots=False, max_tasks=5)
    resume_tournament(out, workers=2, plots=False, backend=Backend("dask"))
    assert _files(out) == local_run


# -- a cluster started from the command line, one of whose workers dies -------------------------


def _spawn(*args: str, log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DASK_TEMPORARY_DIRECTORY": str(log.parent)}
    with log.open("wb") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]],
            stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=log.parent, start_new_session=True,
        )  # fmt: skip


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_command_line_cluster_survives_a_dead_worker_with_the_same_files(
    tmp_path: Path, local_run: dict[str, bytes]
) -> None:
    scheduler_file = tmp_path / "scheduler.json"
    processes: list[subprocess.Popen] = []
    try:
        processes.append(
            _spawn("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                   "--scheduler-file", str(scheduler_file), log=tmp_path / "scheduler.log")
        )  # fmt: skip
        wait_for(scheduler_file.exists, 60, "the scheduler file")
        for n in range(2):
            processes.append(
                _spawn("worker", "--scheduler-file", str(scheduler_file), "--nthreads", "1", "--no-dashboard",
                       "--no-nanny", "--local-directory", str(tmp_path / f"w{n}"), log=tmp_path / f"worker{n}.log")
            )  # fmt: skip
        backend = parse_backend(f"dask-scheduler-file:{scheduler_file}")

        # a whole run through the cluster
        out = tmp_path / "cluster"
        run_tournament(_config(), out, workers=1, plots=False, backend=backend)
        assert _files(out) == local_run

        # the same run, with one worker killed once the first blocks are saved: Dask plays its
        # tasks on the other worker, and the files do not change
        out = tmp_path / "killed"
        values = {**SMALL, "sessions": 2_000}  # 50 blocks: the kill lands mid-run
        reference = tmp_path / "reference"
        run_tournament(make_config(**values), reference, workers=1, plots=False)
        script = (
            "from experiments.tournament.runner import run_tournament; "
            "from experiments.backends import parse_backend; "
            "from experiments.tournament.config import make_config; "
            f"run_tournament(make_config(**{values!r}), {str(out)!r}, plots=False, "
            f"backend=parse_backend({backend.spec!r}))"
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        client = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=ROOT, start_new_session=True)
        processes.append(client)
        wait_for(lambda: len(list((out / "blocks").glob("*"))) >= 4, 300, "the first blocks")
        os.kill(processes[1].pid, signal.SIGKILL)  # the first worker dies mid-run...
        # ...which was not over: a file per block and system, 50 x 4 (not 50: the files, not the blocks)
        files = make_config(**values).n_blocks * len(make_config(**values).specs)
        assert client.poll() is None and len(list((out / "blocks").glob("*"))) < files
        assert client.wait(timeout=300) == 0
        assert _files(out) == _files(reference)
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=60)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_ctrl_c_on_a_local_cluster_is_one_line_and_leaves_no_process(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["tournament", "-n", "40000", "-m", "200", "--no-plots", "--backend", "dask", "-w", "2", "--out", str(out)]
    process = start_cli(args, tmp_path, DASK_TEMPORARY_DIRECTORY=str(tmp_path))
    try:
        wait_for(lambda: any((out / "blocks").glob("*.npz")), 300, "the first block")
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: the whole group, workers included
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130
    assert stderr.decode().startswith("trente-lab: interrupted: ") and stderr.decode().count("\n") == 1
    manifest = json.loads((out / "manifest.json").read_text())
    assert not manifest["complete"] and manifest["backend"] == "dask"

    def group_gone() -> bool:
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_for(group_gone, 30, "the cluster's processes to stop")


# -- simulate, fallacy and count: shards -------------------------------------------------------


def test_a_shard_is_seeded_from_the_root_seed_and_its_index_only() -> None:
    import numpy as np

    from experiments.backends import shard_generator, shard_sizes

    assert shard_sizes(10, 4) == [4, 4, 2] and shard_sizes(8, 4) == [4, 4] and shard_sizes(0, 4) == []
    # shard 0 is the root seed's own stream: a job of one shard deals what it always dealt
    assert shard_generator(5, 0).random() == np.random.default_rng(5).random()
    draws = {(seed, i): shard_generator(seed, i).integers(2**62) for seed in (5, 6) for i in range(4)}
    assert len(set(draws.values())) == len(draws)  # every shard of every seed its own stream
    assert all(shard_generator(seed, i).integers(2**62) == x for (seed, i), x in draws.items())


def _without_timing(value):
    """A report with its timings taken out: the only numbers that may change from run to run."""
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in ("seconds", "coups_per_second")}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


def _json_on(backend: str, *args: str) -> dict:
    result = runner.invoke(app, [*args, "--json", "--backend", backend, "--workers", "2"])
    assert result.exit_code == 0, result.output
    return _without_timing(json.loads(result.stdout))


@pytest.mark.timeout(600)  # the count's workers load many kernels: slow on a busy machine
@pytest.mark.parametrize(
    ("module", "attribute", "size", "args"),
    [
        # small shards, so that each run is cut into several, joined in order
        ("experiments.game.simulate", "SHARD", 30_000, ("simulate", "--coups", "100000", "--seed", "4")),
        ("experiments.teaching.fallacy", "SHARD", 30_000, ("fallacy", "-n", "100000", "-k", "5", "--sessions", "50")),
        ("experiments.game.count", "BATCH", 2, ("count", "--shoes", "5", "--stop", "exhaustion")),
    ],
)
def test_each_command_gives_the_same_json_on_a_local_cluster(
    module: str, attribute: str, size: int, args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib

    monkeypatch.setattr(importlib.import_module(module), attribute, size)
    monkeypatch.setenv("DASK_TEMPORARY_DIRECTORY", str(tmp_path))
    local = _json_on("local", *args)
    assert _json_on("dask", *args) == local


@pytest.mark.parametrize("command", ["simulate", "fallacy", "count"])
def test_a_bad_backend_of_each_command_is_one_line(command: str) -> None:
    result = runner.invoke(app, [command, "--backend", "dask://nowhere"])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "unknown --backend 'dask://nowhere'" in result.stderr


_WARM = """
import json, numba.core.event as event
from experiments.backends import warm_worker
with event.install_recorder("numba:compile") as recorder:
    warm_worker()
print(json.dumps(sum(1 for _, e in recorder.buffer if e.is_start)))
"""


@pytest.mark.slow  # a fresh cache: the session loop compiled once (seconds to a minute on a busy machine)
@pytest.mark.timeout(600)
def test_the_workers_of_one_machine_compile_the_session_loop_once(tmp_path: Path) -> None:
    """Two worker processes of one machine start together on an empty cache: one compiles the kernels,
    the other waits for the machine's lock and loads them from the cache (no compile of its own)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    workers = [subprocess.Popen([sys.executable, "-c", _WARM], stdout=subprocess.PIPE, env=env) for _ in range(2)]
    compiles = sorted(int(w.communicate(timeout=540)[0]) for w in workers)
    assert compiles[0] == 0 and compiles[1] > 0, compiles

"""The output folder belongs to one run at a time: a lock on ``OUT/.lock`` taken before the manifest
is read and held to the end, dropped by the system when the process ends however it ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import experiments.tournament.folder as folder
import experiments.tournament.runner as tournament
from experiments.cli import app
from experiments.errors import TournamentError
from experiments.tournament.config import make_config
from experiments.tournament.folder import claim_folder
from experiments.tournament.runner import resume_tournament, run_tournament

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
SMALL = make_config("flat,paroli", sessions=8, coups=5, block=4)


def _python(*args: str, path: Path | None = None, **kwargs) -> subprocess.Popen:
    """Another Python process running this checkout (and the folder ``path``, for plugins)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (ROOT, path) if p)}
    return subprocess.Popen(
        [sys.executable, *args], env=env, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, **kwargs,
    )  # fmt: skip


HOLD = """
import sys
from pathlib import Path
from experiments.tournament.folder import claim_folder

with claim_folder(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.readline()
"""


def _one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trente-lab: error:"), result.output
    for fragment in fragments:
        assert fragment in lines[0]


def test_a_folder_another_process_holds_is_refused_until_it_ends(tmp_path):
    out = tmp_path / "out"
    holder = _python("-c", HOLD, str(out))
    try:
        assert holder.stdout.readline().strip() == "held", holder.stderr.read()
        busy = f"{str(out)!r} is in use by another tournament (pid {holder.pid})"
        with pytest.raises(TournamentError) as error:
            run_tournament(SMALL, out, plots=False)
        assert str(error.value).startswith(busy) and "\n" not in str(error.value)
        _one_line_error(runner.invoke(app, ["tournament", "--strategies", "flat", "--out", str(out)]), busy)
        assert not (out / "manifest.json").exists() and not (out / "blocks").exists()
    finally:
        holder.kill()  # no clean exit: the system drops the lock
        holder.wait()
    run_tournament(SMALL, out, plots=False)
    assert json.loads((out / "manifest.json").read_text())["complete"] is True


def test_resume_of_a_held_folder_is_refused(tmp_path):
    run_tournament(SMALL, tmp_path, plots=False)
    with claim_folder(tmp_path):
        with pytest.raises(TournamentError, match=rf"is in use by another tournament \(pid {os.getpid()}\)"):
            resume_tournament(tmp_path, plots=False)
        _one_line_error(runner.invoke(app, ["tournament", "--resume", str(tmp_path)]), "is in use")


def test_the_folder_is_held_from_the_manifest_check_to_the_last_file(tmp_path, monkeypatch):
    # Each step of the run tries to claim the folder again (another open file: flock refuses it).
    refused = []

    def try_claim() -> None:
        with pytest.raises(TournamentError, match="in use") as error, claim_folder(tmp_path):
            pass
        refused.append(str(error.value))

    real_read, real_task, real_outputs = tournament.read_manifest, tournament.run_task, tournament.write_outputs
    monkeypatch.setattr(tournament, "read_manifest", lambda *a: (try_claim(), real_read(*a))[1])
    monkeypatch.setattr(tournament, "run_task", lambda *a: (try_claim(), real_task(*a))[1])
    monkeypatch.setattr(tournament, "write_outputs", lambda *a: (real_outputs(*a), try_claim())[0])
    run_tournament(SMALL, tmp_path, plots=False, keep_blocks=True)  # a fresh folder: no manifest to check
    assert len(refused) == 2 + 1
    run_tournament(SMALL, tmp_path, plots=False)  # again: the manifest is checked under the lock
    assert len(refused) == 3 + 2  # the manifest, the files (every block is saved already)
    assert all(f"(pid {os.getpid()})" in message for message in refused)
    with claim_folder(tmp_path):  # released at the end
        pass


WAITING_PLUGIN = '''
import sys
from dataclasses import dataclass
from typing import ClassVar

from strategies.progressions import Progression

WAITED = []


@dataclass(frozen=True)
class Waiting(Progression):
    """Flat betting that, before its first stake, says so on stderr and waits for a line on stdin."""

    name: ClassVar[str] = "waiting"

    def _bet(self, state):
        if not WAITED:
            print("playing", file=sys.stderr, flush=True)
            sys.stdin.readline()
            WAITED.append(True)
        return super()._bet(state)
'''


def test_two_tournaments_started_on_the_same_folder(tmp_path, monkeypatch):
    """The race of the issue: two runs on one --out. While the first plays, a second one is refused,
    with the same configuration (once taken for a resume) or another; the first ends with its own
    results only."""
    (tmp_path / "waiting.py").write_text(textwrap.dedent(WAITING_PLUGIN))
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "out"
    options = ["--sessions", "3", "--coups", "4", "--out", str(out), "--no-plots", "--json"]
    first = _python(
        "-c", "from experiments.cli import app; app()", "tournament", "--strategies", "waiting:Waiting", *options,
        path=tmp_path,
    )  # fmt: skip
    try:
        line = first.stderr.readline()
        while line and "playing" not in line:
            line = first.stderr.readline()
        assert "playing" in line, first.stderr.read()
        for strategies in ("waiting:Waiting", "flat"):
            second = runner.invoke(app, ["tournament", "--strategies", strategies, *options], input="go\n")
            _one_line_error(second, f"is in use by another tournament (pid {first.pid})")
        stdout, stderr = first.communicate("go\n", timeout=120)
    finally:
        first.kill()
        first.wait()
    assert first.returncode == 0, stderr
    document = json.loads(stdout)
    assert list(document["strategies"]) == ["waiting:Waiting"]
    assert json.loads((out / "results.json").read_text())["strategies"] == document["strategies"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["specs"] == ["waiting:Waiting"] and manifest["complete"] is True


def test_runs_started_in_the_same_second_get_their_own_default_folder(tmp_path, monkeypatch):
    from datetime import datetime

    class Frozen(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime(2024, 1, 2, 3, 4, 5, tzinfo=tz)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(folder, "datetime", Frozen)
    first, second = folder.default_out_dir(), folder.default_out_dir()
    assert (first.name, second.name) == ("tournament-20240102-030405", "tournament-20240102-030405-2")
    assert first.is_dir() and second.is_dir()
    doc = run_tournament(SMALL, plots=False)
    assert doc["out"] == str(Path("runs") / "tournament-20240102-030405-3")

"""Every file a command reads goes through one reader (:func:`experiments.files.open_input`): a FIFO,
a device, a folder, an empty or a deeply nested file given where a config, a manifest, a session, a
model or a plugin is read is refused in one line and exit code 2, before a byte is read: never a
hang, never a read that fills memory, never a traceback, never the default run instead."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.errors import LabError, TournamentError
from experiments.files import open_input, read_json, read_toml

runner = CliRunner()
posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo") or not hasattr(signal, "SIGALRM"), reason="POSIX only")

#: Seconds a refusal may take: it reads nothing, so any longer is a hang or a read of an endless file.
PATIENCE = 10


class Hung(BaseException):
    """A command still running after :data:`PATIENCE` seconds (a BaseException: no handler of the
    command turns it into a line)."""


@contextlib.contextmanager
def patience(seconds: int = PATIENCE):
    def stop(signum, frame):
        raise Hung(f"still running after {seconds} s")

    before = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def one_line(result, code: int = 2) -> str:
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("trente-lab: error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "a = " + "[" * 100_000 + "]" * 100_000


def _make(kind: str, path: Path, deep: str) -> Path:
    """Put a ``kind`` of input at ``path`` (``/dev/zero`` is itself); return the path to give."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "deep":
        path.write_text(deep)
    elif kind == "/dev/zero":
        return Path("/dev/zero")
    return path


#: Each command and option that reads a file: (name of the file, its deep form, the arguments).
READERS = {
    "tournament --config": ("c.toml", DEEP_TOML, lambda p, out: ["tournament", "--config", p, "--out", out]),
    "train --config": ("c.toml", DEEP_TOML, lambda p, out: ["train", "--config", p, "--out", out]),
    "benchmark --config": ("c.toml", DEEP_TOML, lambda p, out: ["benchmark", "--config", p, "--out", out]),
    "sweep": ("s.toml", DEEP_TOML, lambda p, out: ["sweep", p, "--out", out]),
    "train --from": ("m.zip", DEEP_JSON, lambda p, out: ["train", "--from", p, "--out", out]),
    "evaluate": ("m.zip", DEEP_JSON, lambda p, out: ["evaluate", p]),
    "tournament --strategies model": ("m.zip", DEEP_JSON, lambda p, out: ["tournament", "--strategies", f"model:{p}"]),
    "tournament --strategies plugin": (
        "p.py", "x = " + DEEP_JSON, lambda p, out: ["tournament", "--strategies", f"{p}:Triple", "--out", out],
    ),
    "classroom --session": ("s.json", DEEP_JSON, lambda p, out: ["classroom", "--session", p]),
}  # fmt: skip
KINDS = ["fifo", "/dev/zero", "empty", "folder", "deep"]


@pytest.fixture(scope="module", autouse=True)
def _imported():
    """The libraries the commands load, loaded before any command is timed."""
    for name in ("experiments.tournament.runner", "experiments.rl.train", "experiments.rl.benchmark",
                 "experiments.rl.sweep", "experiments.rl.evaluate", "strategies.model"):  # fmt: skip
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


@posix_only
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("reader", READERS)
def test_a_file_that_is_not_a_regular_readable_input_is_one_line(tmp_path, monkeypatch, reader, kind):
    name, deep, args = READERS[reader]
    if reader.startswith("classroom"):
        pytest.importorskip("uvicorn")
        pytest.importorskip("segno")
    if reader in ("train --from", "evaluate", "tournament --strategies model"):
        pytest.importorskip("stable_baselines3")
    monkeypatch.chdir(tmp_path)
    path, out = _make(kind, tmp_path / name, deep), tmp_path / "out"
    with patience():
        line = one_line(runner.invoke(app, args(str(path), str(out))))
    assert "does not exist" not in line, line  # it exists: it is of the wrong kind
    assert not out.exists()  # refused before any work
    if kind in ("fifo", "/dev/zero", "folder"):
        assert {"fifo": "a FIFO (named pipe)", "/dev/zero": "a character device", "folder": "a folder"}[kind] in line


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "empty", "folder", "deep"])
def test_a_manifest_that_is_not_a_regular_readable_json_file_is_one_line(tmp_path, kind):
    folder = tmp_path / "run"
    folder.mkdir()
    _make(kind, folder / "manifest.json", DEEP_JSON)
    with patience():
        line = one_line(runner.invoke(app, ["tournament", "--resume", str(folder)]))
    assert "manifest" in line
    if kind == "deep":
        assert "malformed manifest" in line and "nested too deep" in line


def test_an_empty_config_is_refused_not_the_default_run(tmp_path):
    path = tmp_path / "empty.toml"
    path.write_text("# only a comment\n\n")
    line = one_line(runner.invoke(app, ["tournament", "--config", str(path), "--out", str(tmp_path / "out")]))
    assert "is empty" in line and not (tmp_path / "out").exists()
    with pytest.raises(TournamentError, match="is empty"):
        read_toml(path, TournamentError)


@posix_only
def test_the_reader_refuses_before_reading(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    for path, kind in ((tmp_path / "fifo", "a FIFO"), (Path("/dev/zero"), "a character device"), (tmp_path, "a folder")):
        with patience(), pytest.raises(LabError, match=f"is {kind}"):
            open_input(path, "config", 1000)
    big = tmp_path / "big.json"
    big.write_text(json.dumps(list(range(1000))))
    with pytest.raises(LabError, match="too large for a config"):
        read_json(big, "config", 100)
    (tmp_path / "link.json").symlink_to(big)  # a link to a regular file is read
    assert read_json(tmp_path / "link.json", "config", 10_000) == list(range(1000))
    with pytest.raises(LabError, match="it does not exist"):
        open_input(tmp_path / "none", "config", 1000)

"""The one writer's append mode (:func:`experiments.files.append_line`), for a private journal: created
0600, one line at a time, flushed to the disk, and never into anything that is not a regular file (a
FIFO would block or feed another process, a device swallow the journal, a link write elsewhere)."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
from pathlib import Path

import pytest

from experiments.errors import LabError
from experiments.files import append_line
from tests._patience import patience

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo") or not hasattr(signal, "SIGALRM"), reason="POSIX only")


@contextlib.contextmanager
def umask(mask: int):
    before = os.umask(mask)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_journal_is_private_and_gets_each_line_once(tmp_path: Path) -> None:
    path = tmp_path / "class.journal"
    with umask(0o022):
        append_line(path, '{"event": "join"}\n')
        append_line(path, '{"event": "deal"}')  # the newline is added when missing
    assert path.read_text(encoding="utf-8") == '{"event": "join"}\n{"event": "deal"}\n'
    assert mode(path) == 0o600


def test_an_existing_journal_readable_by_others_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "old.journal"
    path.write_text("first\n")
    path.chmod(0o644)
    append_line(path, "second")
    assert path.read_text() == "first\nsecond\n" and mode(path) == 0o600


def test_a_journal_that_is_not_private_keeps_the_umask_mode(tmp_path: Path) -> None:
    path = tmp_path / "open.log"
    with umask(0o022):
        append_line(path, "line", private=False)
    assert mode(path) == 0o644


def test_each_line_reaches_the_disk_before_the_call_returns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An fsync after each line is written (what the file held at each fsync is recorded)."""
    import experiments.files

    path = tmp_path / "j"
    held: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        held.append(path.read_text())
        real(fd)

    monkeypatch.setattr(experiments.files.os, "fsync", fsync)
    append_line(path, "a")
    append_line(path, "b")
    assert held == ["a\n", "a\nb\n"]


def test_a_line_break_inside_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j"
    for text in ("two\nlines", "carriage\rreturn"):
        with pytest.raises(LabError, match="one line at a time"):
            append_line(path, text)
    assert not path.exists()


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "fifo with a reader", "/dev/null", "link to /dev/null", "folder", "link"])
def test_anything_but_a_regular_file_is_refused_without_blocking(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "class.journal"
    target = tmp_path / "elsewhere.txt"
    reader = None
    if kind.startswith("fifo"):
        os.mkfifo(path)
        if kind == "fifo with a reader":  # a FIFO someone listens on: the line would go to them
            reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    elif kind == "/dev/null":
        path = Path("/dev/null")
    elif kind == "link to /dev/null":
        path.symlink_to("/dev/null")
    elif kind == "folder":
        path.mkdir()
    elif kind == "link":  # even to a regular file: the line would be written somewhere else
        target.write_text("")
        path.symlink_to(target)
    expected = {"fifo": "a FIFO", "/dev/null": "a character device", "folder": "a folder"}
    try:
        with patience(), pytest.raises(LabError, match=f"is {expected.get(kind.split()[0], 'a symbolic link')}"):
            append_line(path, "secret key")
        if reader is not None:
            assert os.read(reader, 100) == b""  # nothing was written into the pipe (no writer: end of file)
    finally:
        if reader is not None:
            os.close(reader)
    if kind == "link":
        assert target.read_text() == ""

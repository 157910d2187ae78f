"""The classroom's session file and journal (:mod:`experiments.classroom.store`) and the table the room
takes: a rule set, recorded in the session file, a resumed session at its own table only; a journal
that is not a regular file refused in one line, read back by the one reader, never longer than the
reader takes. Without the classroom extra (the room is plain Python)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiments.classroom import store
from experiments.classroom.state import Classroom, ClassroomError
from experiments.cli import app
from tests._classroom import free_port
from tests._patience import patience
from trente_env.rules import get_rules

CLASSIC = get_rules("classic")


def test_a_journal_line_torn_inside_a_character_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    room, _ = Classroom.open(path, CLASSIC)
    a = room.join("Zoë", room.join_code)
    room.predict(a.key, "noir", 2)
    with open(room.journal, "ab") as f:  # a kill in the middle of the "ë" of a name being journaled
        f.write('{"e": "join", "name": "Zoë'.encode()[:-1])
    again = Classroom.load(path)
    assert again.open_round == {0: ("noir", 2)} and [s.name for s in again.students] == ["Zoë"]


def test_a_long_journal_is_folded_into_the_session_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal never grows past JOURNAL_LINES lines (then the whole session is written): a restart
    reads it back within the one reader's size limit, and loses nothing."""
    monkeypatch.setattr(store, "JOURNAL_LINES", 3)
    path = tmp_path / "s.json"
    room, _ = Classroom.open(path, CLASSIC, 2)
    students = [room.join(f"s{i}", room.join_code) for i in range(4)]
    for i, s in enumerate(students):
        room.predict(s.key, "noir" if i % 2 else "rouge", 1 + i % 3)
        assert len(room.journal.read_text().splitlines()) <= 3
    again = Classroom.load(path)
    assert again.open_round == room.open_round and [s.key for s in again.students] == [s.key for s in students]


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not hasattr(signal, "SIGALRM"), reason="POSIX only")
@pytest.mark.parametrize("kind", ["FIFO", "symbolic link"])
def test_a_journal_that_is_not_a_regular_file_is_refused_in_one_line(tmp_path: Path, kind: str) -> None:
    """A FIFO in the journal's place would block the server forever, a link would write the students'
    keys elsewhere: either is refused in one line, new session or resumed, before a byte is written."""
    path = tmp_path / "s.json"
    journal = tmp_path / "s.json.journal"
    elsewhere = tmp_path / "elsewhere"

    def plant() -> None:
        journal.unlink(missing_ok=True)
        os.mkfifo(journal) if kind == "FIFO" else journal.symlink_to(elsewhere)

    with patience():  # a refusal reads and writes nothing: any longer is a hang
        plant()
        with pytest.raises(ClassroomError, match=f"s.json.journal is a {kind}.*, not a regular file"):
            Classroom.open(path, CLASSIC)
        journal.unlink()
        room, _ = Classroom.open(path, CLASSIC)
        plant()
        with pytest.raises(ClassroomError, match="not a regular file"):
            room.join("Ann", room.join_code)  # journaled
        with pytest.raises(ClassroomError, match="not a regular file"):
            Classroom.load(path)  # resumed: the journal is read back
    assert not elsewhere.exists()


def test_the_journal_writer_refuses_a_device() -> None:
    device = Path(os.devnull)
    for write in (lambda: store.append_private(device, "x\n"), lambda: store.empty_private(device)):
        with pytest.raises(ClassroomError, match="is a character device, not a regular file"):
            write()


def test_the_room_takes_a_table_and_its_session_file_keeps_it(tmp_path: Path) -> None:
    """The room takes the rule set itself, one no preset has included; the session file records it
    (every rule) and its name, and a resumed session is at the same table."""
    custom = get_rules("classic", decks=4)
    path = tmp_path / "s.json"
    room, resumed = Classroom.open(path, custom, 3)
    assert not resumed and room.rules is custom and room.rules_name == "custom"
    assert room.public()["preset"] == "custom" and room.public()["exact"]["model"].startswith("first coup of a 4-deck")
    room.deal()
    again, resumed = Classroom.open(path, None)
    assert resumed and again.rules == custom and again.rules_name == "custom" and again.coups == room.coups
    named, _ = Classroom.open(tmp_path / "p.json", get_rules("partage"), rules_name="partage")
    assert json.loads((tmp_path / "p.json").read_text())["preset"] == "partage" == named.export()["preset"]


def test_a_session_written_before_its_rules_were_recorded_is_read_by_its_name(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    room, _ = Classroom.open(path, get_rules("partage"), 4)
    room.deal()
    data = json.loads(path.read_text())
    del data["rule_values"]  # an older session file: the preset's name only
    path.write_text(json.dumps(data))
    again = Classroom.load(path)
    assert again.rules == get_rules("partage") and again.rules_name == "partage" and again.coups == room.coups
    data["preset"] = "no-such-table"
    path.write_text(json.dumps(data))
    with pytest.raises(ClassroomError, match="cannot read this classroom session"):
        Classroom.load(path)


def test_a_session_at_another_table_than_the_one_asked_is_refused_in_one_line(tmp_path: Path) -> None:
    session = tmp_path / "s.json"
    Classroom.open(session, CLASSIC, 1)
    room = Classroom.load(session)
    room.join("Ann", room.join_code)  # journaled
    written = session.read_bytes(), room.journal.read_bytes()
    with pytest.raises(ClassroomError, match="played at the classic table, not at the partage table") as refused:
        Classroom.open(session, get_rules("partage"), rules_name="partage")
    assert "\n" not in str(refused.value)
    assert (session.read_bytes(), room.journal.read_bytes()) == written  # refused before anything is written
    assert Classroom.open(session, CLASSIC)[1]  # the same table asked again: resumed


def test_the_command_refuses_another_table_than_the_sessions_in_one_line(tmp_path: Path) -> None:
    for extra in ("segno", "starlette", "uvicorn"):
        pytest.importorskip(extra, reason="the classroom command needs the classroom extra")
    session = tmp_path / "s.json"
    Classroom.open(session, CLASSIC, 1)
    args = ["classroom", "--session", str(session), "--resume", "--port", str(free_port())]
    result = CliRunner().invoke(app, [*args, "--rules", "partage"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "played at the classic table, not at the partage table" in lines[0]

"""The file that keeps a classroom across a restart, and its journal.

The room (:class:`~experiments.classroom.state.Classroom`) either journals a change (a join, a
prediction, a kick: one JSON line appended to ``<session>.journal``, :func:`append_private`) or writes
the whole session atomically (a deal, a reset, a teacher's switch, or a journal grown to
:data:`JOURNAL_LINES` lines: :func:`write_private`), then empties the journal. A restart reads the
session file (:func:`read_session`) and the journal's lines after it (:func:`read_journal`), so a
process killed at any moment loses nothing it had acknowledged; a torn last line (the process killed
while writing it) is skipped.

Both files hold secrets (the teacher's token, the students' keys): they are readable by their owner
only from their first byte. Both are read through the one reader (:mod:`strategies.inputs`), and a
path that is not a regular file (a symbolic link, a FIFO, a device, a folder) is refused in one line,
read or written, before anything blocks on it.

The session file records its table twice: the rules' name (``preset``, what the pages print) and every
rule (``rule_values``); a session written before the rules were recorded is read by its name.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.classroom.roster import Student
from experiments.classroom.systems import SYSTEMS
from experiments.errors import ClassroomError, LabError
from experiments.files import append_line, atomic_write_json
from strategies.inputs import SESSION_BYTES, input_kind, read_input, read_json
from trente_env.rules import RuleSet, get_rules
from trente_env.whole import is_whole

if TYPE_CHECKING:
    from experiments.classroom.state import Classroom

SESSION_VERSION = 1
#: Changes journaled between two writes of the whole session: a longer journal is folded into the
#: session file, so it stays far below what the reader takes (:data:`strategies.inputs.SESSION_BYTES`).
JOURNAL_LINES = 10_000


def journal_of(path: Path) -> Path:
    """The journal beside the session file ``path``."""
    return path.with_name(path.name + ".journal")


def refuse_special(path: Path) -> None:
    """Refuse, in one line, a ``path`` that exists and is not a regular file (a symbolic link, a FIFO,
    a device, a folder): a session is kept in regular files only."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise ClassroomError(f"{path} is {input_kind(mode)}, not a regular file; choose another session name")


def write_private(path: Path, document: Any) -> None:
    """``document`` as JSON in ``path``, atomically and readable by its owner only from the first byte
    (:func:`experiments.files.atomic_write_json`). Only a regular file is replaced."""
    refuse_special(path)
    atomic_write_json(path, document, private=True)


def _open_private(path: Path, flags: int) -> int:
    """A descriptor on the regular file ``path`` (created readable by its owner only), opened with
    ``flags``; anything else is refused in one line. A link or a FIFO put there after the check is
    refused too, and never blocks (no link followed, no wait for a FIFO's reader)."""
    refuse_special(path)
    extra = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | os.O_CREAT | extra, 0o600)
    except OSError as exc:
        raise ClassroomError(f"{path}: cannot write it ({exc.strerror or exc}); choose another session name") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ClassroomError(f"{path} is {input_kind(mode)}, not a regular file; choose another session name")
    os.set_blocking(fd, True)
    os.fchmod(fd, 0o600)
    return fd


def append_private(path: Path, line: str) -> None:
    """Append ``line`` to ``path``, a regular file created readable by its owner only (it holds
    students' keys), through the one writer's append mode (:func:`experiments.files.append_line`); a
    path that is anything else is refused in one line."""
    refuse_special(path)
    try:
        append_line(path, line, private=True)
    except LabError as exc:  # something other than a regular file put there after the check
        raise ClassroomError(f"{exc}; choose another session name") from None


def empty_private(path: Path) -> None:
    """Empty the regular file ``path`` (created readable by its owner only if missing)."""
    os.close(_open_private(path, os.O_WRONLY | os.O_TRUNC))


def session_document(room: Classroom) -> dict[str, Any]:
    """The whole session of ``room`` as the session file keeps it."""
    return {
        "trente_lab_classroom": SESSION_VERSION,
        "preset": room.rules_name,
        "rule_values": {
            f.name: value.value if isinstance(value := getattr(room.rules, f.name), Enum) else value
            for f in dataclasses.fields(room.rules)
        },
        "seed": room.seed,
        "table": room.table,
        "join_code": room.join_code,
        "token": room.token,
        "seq": room.seq,
        "paused": room.paused,
        "show_names": room.show_names,
        "locked": room.locked,
        "hide_split": room.hide_split,
        "lang": room.lang,
        "students": [
            {"name": s.name, "key": s.key, "kicked": s.kicked, "joined": s.joined, "removed": s.removed}
            for s in room.students
        ],
        "coups": room.coups,
        "coup_times": room.coup_times,
        "predictions": [[[i, side, sure] for i, (side, sure) in p.items()] for p in room.predictions],
        "times": [[[i, at] for i, at in p.items()] for p in room.times],
        "open_round": [[i, side, sure] for i, (side, sure) in room.open_round.items()],
        "open_times": [[i, at] for i, at in room.open_times.items()],
        "tables": room.tables,
        "systems": [[i, seat.system, seat.start] for i, seat in room.books.seats.items()],
        "fast": room.fast if room.fast is None or "done" in room.fast else None,
    }


def _rules_of(data: dict[str, Any]) -> RuleSet:
    """The table a session file records: its rules, or, in a file written before they were recorded,
    the preset it names."""
    values = data.get("rule_values")
    if values is None:
        return get_rules(str(data["preset"]))
    if not isinstance(values, dict):
        raise ValueError("rule_values: not a table")
    return RuleSet(**values)


def read_session(path: Path) -> tuple[dict[str, Any], dict[int, tuple[str, int]]]:
    """The session file ``path``, read: the room's fields (``Classroom(path=path, **fields)``) and the
    students' systems (student -> (system, the coup it sat down at)). A file that is not a session
    is refused in one line (by the one reader when it is not a regular file: a link is followed, to
    say what it leads to, and refused when the session is written)."""
    data = read_json(path, "classroom session", SESSION_BYTES, ClassroomError)
    try:
        if not isinstance(data, dict) or data.get("trente_lab_classroom") != SESSION_VERSION:
            raise ValueError("not a classroom session")
        students = [Student(i, s["name"], s["key"], bool(s["kicked"]), float(s.get("joined", 0)),
                            None if s.get("removed") is None else float(s["removed"]))
                    for i, s in enumerate(data["students"])]  # fmt: skip
        fields = dict(
            rules=_rules_of(data), rules_name=str(data["preset"]), seed=int(data["seed"]),
            join_code=data["join_code"], token=data["token"], table=int(data["table"]), students=students,
            coups=list(data["coups"]),
            predictions=[{int(i): (side, int(sure)) for i, side, sure in p} for p in data["predictions"]],
            open_round={int(i): (side, int(sure)) for i, side, sure in data["open_round"]},
            paused=bool(data["paused"]), show_names=bool(data["show_names"]), fast=data.get("fast"),
            seq=int(data["seq"]), locked=bool(data.get("locked", False)),
            hide_split=bool(data.get("hide_split", True)), lang=str(data.get("lang", "")),
            coup_times=[float(x) for x in data.get("coup_times", [0.0] * len(data["coups"]))],
            times=[{int(i): float(at) for i, at in p} for p in data.get("times", [[] for _ in data["coups"]])],
            open_times={int(i): float(at) for i, at in data.get("open_times", [])},
            tables=list(data.get("tables", [])),
        )  # fmt: skip
        picks = read_picks(data.get("systems", []), students, len(fields["coups"]))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ClassroomError(f"{path}: cannot read this classroom session ({exc})") from None
    return fields, picks


def read_picks(entries: object, students: list[Student], coups: int) -> dict[int, tuple[str, int]]:
    """The session file's ``systems``: ``[student, system, coup it sat down at]`` each, checked (a
    ValueError names what is wrong): a present student once, a system of the list, a coup dealt."""
    if not isinstance(entries, list):
        raise ValueError("systems: not a list")
    picks: dict[int, tuple[str, int]] = {}
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) == 3):
            raise ValueError("systems: an entry is not [student, system, coup]")
        student, system, start = entry
        if not is_whole(student, 0, len(students) - 1, numpy=False):
            raise ValueError(f"systems: no student {student!r}")
        if students[student].kicked:
            raise ValueError(f"systems: no student {student!r}")
        if student in picks:
            raise ValueError(f"systems: student {student} twice")
        if system not in SYSTEMS:
            raise ValueError("systems: unknown system")
        if not is_whole(start, 0, coups, numpy=False):
            raise ValueError(f"systems: coup {start!r} was not dealt")
        picks[student] = (system, start)
    return picks


def read_journal(path: Path) -> list[dict[str, Any]]:
    """The changes journaled beside the session file ``path``, oldest first (none if there is no
    journal), read by the one reader; a line that is not a JSON object (torn by a kill: it was never
    acknowledged) is skipped. A journal that is a link is refused before it is read: its lines would be
    replayed from elsewhere."""
    journal = journal_of(path)
    refuse_special(journal)
    if not journal.exists():
        return []
    events = []
    for line in read_input(journal, "classroom journal", SESSION_BYTES, ClassroomError).split(b"\n"):
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # a torn line, cut anywhere, even inside a character
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


__all__ = [
    "JOURNAL_LINES",
    "SESSION_VERSION",
    "append_private",
    "empty_private",
    "journal_of",
    "read_journal",
    "read_picks",
    "read_session",
    "refuse_special",
    "session_document",
    "write_private",
]

"""The classroom's state, without a web server: the students, their predictions, the coups dealt,
the class's tables, and the file that keeps it all across a restart.

Every change goes through one method of :class:`Classroom`, which validates its input (a
:class:`ClassroomError`, one line, on anything out of bounds) and either journals the change (a
join, a prediction, a kick: one JSON line appended to ``<session>.journal``) or writes the whole
session atomically (a deal, a reset, a teacher's switch: :func:`experiments.files.atomic_write_json`,
then the journal is emptied). A restart reads the session file and replays the journal's lines
after it, so a process killed at any moment loses nothing it had acknowledged; a torn last line (the
process killed while writing it) is skipped.

**The coups** come from the lab's one dealer: a :class:`trente_env.dealer.Shoe` seeded by the
session's seed and table number, the shoe the environment deals from. The session file keeps
every coup; on a restart the shoe is dealt again up to where it was and checked against them.

**What counts** and **the streak trap**: :mod:`experiments.streaks`.

**Betting systems** (:mod:`experiments.classroom.systems`): a student may pick a system of
:data:`~experiments.classroom.systems.SYSTEMS`; it plays every coup dealt from then on with its own
bankroll, and the session file keeps the pick and the coup it sat down at (the money is played again
from the coups on a restart).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.classroom.systems import SYSTEMS, Books
from experiments.errors import LabError
from experiments.files import atomic_write_json
from experiments.rules import load_rules
from experiments.streaks import (
    MAX_STREAK,
    SIDES,
    TRAP_K,
    after_run,
    expected_share,
    hit_sequence,
    pooled_table,
    side_of,
    streak_trap,
    streaks_before,
)
from trente_env.seeding import table_generator
from trente_env.whole import is_whole

SURE = (1, 2, 3)  #: how sure: a guess, fairly sure, certain
MAX_NAME = 24  #: characters in a student's name
MAX_STUDENTS = 300  #: students in one session
MAX_LIVE_COUPS = 5000  #: coups dealt live in one session (a reset starts another)
FAST_COUPS = (10_000, 1_000_000)  #: what the fast-forward may deal at once
SESSION_VERSION = 1


class ClassroomError(LabError):
    """Input the classroom refuses: one line, shown to whoever sent it."""


def clean_name(name: object) -> str:
    """A student's name, stripped, 1 to :data:`MAX_NAME` printable characters; it is shown as text
    everywhere, never as HTML, so any printable character is allowed."""
    if not isinstance(name, str):
        raise ClassroomError("the name must be text")
    name = " ".join(name.split())
    if not name:
        raise ClassroomError("type a name")
    if len(name) > MAX_NAME:
        raise ClassroomError(f"a name has at most {MAX_NAME} characters")
    if not name.isprintable():
        raise ClassroomError("the name holds characters that cannot be shown")
    return name


@dataclass
class Student:
    """A student: the secret key their browser keeps (a reload rejoins with it) and their name."""

    index: int
    name: str
    key: str
    kicked: bool = False


@dataclass
class Classroom:
    """One class at one table. Build with :meth:`open` (a new session or the one in ``path``).

    :param preset: the rules preset; :param seed: the shoe's seed (shown on the projector).
    :param path: the session file (None: nothing kept, for tests).
    """

    preset: str = "classic"
    seed: int = 0
    path: Path | None = None
    join_code: str = field(default_factory=lambda: "".join(secrets.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
                                                             for _ in range(6)))  # fmt: skip
    token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    table: int = 0  #: how many resets: the shoe of table t is seeded by (seed, t)
    students: list[Student] = field(default_factory=list)
    coups: list[dict[str, Any]] = field(default_factory=list)
    predictions: list[dict[int, tuple[str, int]]] = field(default_factory=list)  #: per coup: student -> guess
    open_round: dict[int, tuple[str, int]] = field(default_factory=dict)  #: the predictions for the next coup
    paused: bool = False
    show_names: bool = False
    fast: dict[str, Any] | None = None  #: the last fast-forward's table
    seq: int = 0  #: the last change's number (journal and session file)
    version: int = 0  #: bumped on every change: the projector's view is sent again
    shared: int = 0  #: bumped on a change every student sees (a deal, a pause, a reset, a kick)

    def __post_init__(self) -> None:
        self.rules = load_rules(self.preset)
        self._by_key = {s.key: s for s in self.students}
        self._by_name = {s.name.casefold(): s for s in self.students if not s.kicked}
        self._lock = threading.RLock()
        self.touched: set[int] = set()  #: students whose own view changed since :meth:`take_touched`
        self._shoe = self._new_shoe()
        from trente_env.odds import first_coup

        self._odds = first_coup(self.rules.decks)
        self.books = Books(self.rules)  #: the students' betting systems

    # -- the dealer ------------------------------------------------------------------------------

    def _new_shoe(self) -> Any:
        from trente_env.dealer import Shoe

        return Shoe(self.rules, table_generator(self.seed, self.table))

    def deal(self) -> dict[str, Any]:
        """Deal the next coup from the table's shoe; the open predictions are kept with it."""
        from experiments.game.deal import coup_record

        with self._lock:
            if self.paused:
                raise ClassroomError("the table is paused")
            if len(self.coups) >= MAX_LIVE_COUPS:
                raise ClassroomError(f"{MAX_LIVE_COUPS:,} coups dealt: reset the table to go on")
            record = coup_record(self._shoe.deal())
            self.coups.append(record)
            self.books.step(record)
            self.predictions.append(self.open_round)
            self.open_round = {}
            self._changed(snapshot=True)
            return record

    # -- students --------------------------------------------------------------------------------

    def join(self, name: object, code: object, key: object = None) -> Student:
        """A student joins with the join code, or rejoins with their key (their record kept)."""
        with self._lock:
            if isinstance(key, str) and key in self._by_key:
                student = self._by_key[key]
                if student.kicked:
                    raise ClassroomError("the teacher removed this name")
                return student
            if not isinstance(code, str) or not secrets.compare_digest(code.strip().upper(), self.join_code):
                raise ClassroomError("wrong join code")
            name = clean_name(name)
            if name.casefold() in self._by_name:
                raise ClassroomError("that name is taken: choose another")
            if len(self.students) >= MAX_STUDENTS:
                raise ClassroomError(f"the class is full ({MAX_STUDENTS} students)")
            student = Student(len(self.students), name, secrets.token_urlsafe(18))
            self._add(student)
            self._changed(event={"e": "join", "name": name, "key": student.key, "i": student.index})
            return student

    def _add(self, student: Student) -> None:
        self.students.append(student)
        self._by_key[student.key] = student
        self._by_name[student.name.casefold()] = student

    def student(self, key: object) -> Student:
        """The student of ``key``; refused if unknown or removed."""
        student = self._by_key.get(key) if isinstance(key, str) else None
        if student is None:
            raise ClassroomError("unknown student: join again")
        if student.kicked:
            raise ClassroomError("the teacher removed this name")
        return student

    def predict(self, key: object, side: object, sure: object = 1) -> None:
        """A student's prediction for the next coup (they may change it until the deal)."""
        with self._lock:
            student = self.student(key)
            if side not in SIDES:
                raise ClassroomError("predict noir or rouge")
            if isinstance(sure, bool) or sure not in SURE:
                raise ClassroomError("how sure: 1, 2 or 3")
            if self.paused:
                raise ClassroomError("the table is paused")
            self.open_round[student.index] = (side, int(sure))
            self._changed(event={"e": "predict", "i": student.index, "side": side, "sure": int(sure)})

    def pick_system(self, key: object, system: object) -> None:
        """A student's betting system (None: none): it sits down afresh, with its own bankroll, on the
        next coup dealt. Only the names of :data:`~experiments.classroom.systems.SYSTEMS` are taken."""
        with self._lock:
            student = self.student(key)
            if system is not None and (not isinstance(system, str) or system not in SYSTEMS):
                raise ClassroomError(f"choose a system: {', '.join(SYSTEMS)} (or none)")
            try:
                self.books.sit(student.index, system)
            except ValueError as exc:  # the registry's StrategyError: a system these rules cannot play
                raise ClassroomError(str(exc).splitlines()[0]) from None
            self._changed(event={"e": "system", "i": student.index, "system": system})

    def kick(self, name: object) -> None:
        """Remove a name: its key no longer works and the name is free; its past predictions stay."""
        with self._lock:
            student = self._by_name.get(name.casefold()) if isinstance(name, str) else None
            if student is None:
                raise ClassroomError("no student of that name")
            student.kicked = True
            del self._by_name[student.name.casefold()]
            self.open_round.pop(student.index, None)
            self.books.stand(student.index)
            self._changed(event={"e": "kick", "i": student.index})

    # -- the teacher's switches ------------------------------------------------------------------

    def set_paused(self, paused: bool) -> None:
        with self._lock:
            self.paused = bool(paused)
            self._changed(snapshot=True)

    def set_show_names(self, show: bool) -> None:
        with self._lock:
            self.show_names = bool(show)
            self._changed(snapshot=True)

    def reset(self) -> Path | None:
        """A new table (the next shoe seed): coups and predictions cleared, the students kept. The
        session as it was is written beside the session file first; its path is returned."""
        with self._lock:
            kept = None
            if self.path is not None and self.coups:
                kept = self.path.with_name(f"{self.path.stem}.table-{self.table}.json")
                atomic_write_json(kept, self.to_dict())
            self.table += 1
            self.coups, self.predictions, self.open_round, self.fast = [], [], {}, None
            self._shoe = self._new_shoe()
            picks, self.books = self.books.seats, Books(self.rules)
            for student, seat in picks.items():  # every system sits down afresh at the new table
                self.books.sit(student, seat.system)
            self._changed(snapshot=True)
            return kept

    def set_fast(self, fast: dict[str, Any] | None) -> None:
        with self._lock:
            self.fast = fast
            self._changed(snapshot=fast is None or "done" in fast)

    # -- persistence -----------------------------------------------------------------------------

    def index_of(self, key: object) -> int | None:
        """The index of the student of ``key`` (None if unknown)."""
        student = self._by_key.get(key) if isinstance(key, str) else None
        return None if student is None else student.index

    def take_touched(self) -> set[int]:
        """The students whose own view changed since the last call (and forget them)."""
        with self._lock:
            touched, self.touched = self.touched, set()
            return touched

    def _changed(self, event: dict[str, Any] | None = None, snapshot: bool = False) -> None:
        self.seq += 1
        self.version += 1
        if event is None or event.get("e") == "kick":
            self.shared += 1
        elif "i" in event:
            self.touched.add(event["i"])
        if self.path is None:
            return
        if snapshot or event is None:
            self.save()
        else:
            event["seq"] = self.seq
            with open(self.journal, "a", encoding="utf-8") as f:
                f.write(json.dumps(event, ensure_ascii=False) + "\n")

    @property
    def journal(self) -> Path:
        assert self.path is not None
        return self.path.with_name(self.path.name + ".journal")

    def save(self) -> None:
        """Write the whole session atomically (readable by its owner only: it holds the teacher's token),
        then empty the journal."""
        if self.path is None:
            return
        with self._lock:
            atomic_write_json(self.path, self.to_dict())
            with contextlib.suppress(OSError):
                os.chmod(self.path, 0o600)
            with open(self.journal, "w", encoding="utf-8"):
                pass

    def to_dict(self) -> dict[str, Any]:
        return {
            "trente_lab_classroom": SESSION_VERSION,
            "preset": self.preset,
            "seed": self.seed,
            "table": self.table,
            "join_code": self.join_code,
            "token": self.token,
            "seq": self.seq,
            "paused": self.paused,
            "show_names": self.show_names,
            "students": [{"name": s.name, "key": s.key, "kicked": s.kicked} for s in self.students],
            "coups": self.coups,
            "predictions": [[[i, side, sure] for i, (side, sure) in p.items()] for p in self.predictions],
            "open_round": [[i, side, sure] for i, (side, sure) in self.open_round.items()],
            "systems": [[i, seat.system, seat.start] for i, seat in self.books.seats.items()],
            "fast": self.fast if self.fast is None or "done" in self.fast else None,
        }

    @classmethod
    def open(cls, path: Path | None, preset: str = "classic", seed: int = 0) -> tuple[Classroom, bool]:
        """The session in ``path`` if it exists (resumed: True), else a new one written there."""
        if path is None or not path.exists():
            room = cls(preset=preset, seed=seed, path=path)
            room.save()
            return room, False
        return cls.load(path), True

    @classmethod
    def load(cls, path: Path) -> Classroom:
        """Read a session file and replay its journal; a file that is not a session is refused."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("trente_lab_classroom") != SESSION_VERSION:
                raise ValueError("not a classroom session")
            students = [Student(i, s["name"], s["key"], bool(s["kicked"])) for i, s in enumerate(data["students"])]
            room = cls(
                preset=data["preset"], seed=int(data["seed"]), path=path, join_code=data["join_code"],
                token=data["token"], table=int(data["table"]), students=students, coups=list(data["coups"]),
                predictions=[{int(i): (side, int(sure)) for i, side, sure in p} for p in data["predictions"]],
                open_round={int(i): (side, int(sure)) for i, side, sure in data["open_round"]},
                paused=bool(data["paused"]), show_names=bool(data["show_names"]), fast=data.get("fast"),
                seq=int(data["seq"]),
            )  # fmt: skip
            picks = _read_picks(data.get("systems", []), room.students, len(room.coups))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ClassroomError(f"{path}: cannot read this classroom session ({exc})") from None
        from experiments.game.deal import coup_record

        for i, coup in enumerate(room.coups):  # the shoe dealt again up to where it was, the systems played again
            if coup_record(room._shoe.deal()) != coup:
                raise ClassroomError(f"{path}: coup {i + 1} is not what seed {room.seed} deals: the file was edited")
            room._sit_picks(picks, i)
            room.books.step(coup)
        room._sit_picks(picks, len(room.coups))
        room._replay()
        return room

    def _sit_picks(self, picks: dict[int, tuple[str, int]], coup: int) -> None:
        for student, (system, start) in picks.items():
            if start == coup:
                self.books.sit(student, system)

    def _replay(self) -> None:
        if not self.journal.exists():
            return
        lines = self.journal.read_text(encoding="utf-8").splitlines()
        path, self.path = self.path, None  # replaying journals nothing
        try:
            for line in lines:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue  # a line torn by a kill: it was never acknowledged
                if not isinstance(event, dict) or event.get("seq", 0) <= self.seq:
                    continue
                kind = event.get("e")
                if kind == "join":
                    self._add(Student(len(self.students), clean_name(event["name"]), str(event["key"])))
                    self.seq += 1
                elif kind == "predict":
                    self.predict(self.students[int(event["i"])].key, event["side"], event["sure"])
                elif kind == "system":
                    self.pick_system(self.students[int(event["i"])].key, event["system"])
                elif kind == "kick":
                    self.kick(self.students[int(event["i"])].name)
                self.seq = int(event["seq"])
        finally:
            self.path = path
        self.save()

    # -- what the pages show -----------------------------------------------------------------------

    @property
    def results(self) -> list[str]:
        return [c["result"] for c in self.coups]

    def record(self, student: Student) -> dict[str, Any]:
        """One student's record: predictions, right, wrong, their own streak-trap rows."""
        results = self.results
        hits = hit_sequence(results, self.predictions, student.index)
        made = sum(student.index in p for p in self.predictions)
        run = 0
        for hit in reversed(hits):
            if not hit:
                break
            run += 1
        trap = []
        for k in TRAP_K:
            occasions, right = after_run(hits, k)
            trap.append({"k": k, "occasions": occasions, "right": right})
        return {
            "name": student.name,
            "predicted": made,
            "decided": len(hits),
            "right": sum(hits),
            "wrong": len(hits) - sum(hits),
            "run": run,
            "trap": trap,
            "guess": self.open_round.get(student.index),
            "system": self.books.seat_view(student.index),
        }

    def streak_trap(self) -> list[dict[str, Any]]:
        """The class's streak trap (:func:`experiments.streaks.streak_trap`)."""
        return streak_trap(self.results, self.predictions, [s.index for s in self.students])

    def student_public(self) -> dict[str, Any]:
        """The part of :meth:`public` a student's page reads."""
        with self._lock:
            return {"coups": len(self.coups), "paused": self.paused, "last": self.coups[-1] if self.coups else None,
                    "systems": self.books.summary()}  # fmt: skip

    def public(self) -> dict[str, Any]:
        """What every page may know (no keys, no token; names only when the teacher shows them)."""
        with self._lock:
            odds = self._odds
            results = self.results
            side, run = streaks_before([*results, "void"])[-1]
            key = (self.table, len(self.coups), len(self.students))  # what the two tables depend on
            if getattr(self, "_tables_key", None) != key:
                self._tables = (pooled_table(results, self.predictions), self.streak_trap())
                self._tables_key = key
            pooled, trap = self._tables
            guesses = list(self.open_round.values())
            active = [s for s in self.students if not s.kicked]
            board = None
            if self.show_names:
                records = [self.record(s) for s in active]
                board = [{"name": r["name"], "right": r["right"], "decided": r["decided"]} for r in records]
                board = sorted(board, key=lambda r: (-r["right"], r["name"].casefold()))[:12]
            systems = self.books.summary()
            if self.show_names:  # each student's bankroll, by name: only when the teacher shows names
                seats = [{"name": self.students[i].name, **self.books.seat_view(i)} for i in self.books.seats]
                systems["seats"] = sorted(seats, key=lambda r: (-r["bankroll"], r["name"].casefold()))[:12]
            return {
                "preset": self.preset,
                "rules": self.rules.describe(),
                "seed": self.seed,
                "table": self.table,
                "paused": self.paused,
                "show_names": self.show_names,
                "students": len(active),
                "coups": len(self.coups),
                "last": self.coups[-1] if self.coups else None,
                "scoreboard": results[-40:],
                "streak": {"side": side, "run": run},
                "round": {
                    "predicted": len(guesses),
                    "noir": sum(g[0] == "noir" for g in guesses),
                    "rouge": sum(g[0] == "rouge" for g in guesses),
                },
                "counts": {r: results.count(r) for r in ("noir", "rouge", "apres", "refait", "void")},
                "exact": {
                    "noir": odds.p_noir,
                    "rouge": odds.p_rouge,
                    "apres": odds.p_apres,
                    "refait": odds.p_refait,
                    "decided_half": 0.5,
                    "model": f"first coup of a {self.rules.decks}-deck shoe, exact; of the decided coups each "
                    "side wins exactly half whatever came before",
                },
                "pooled": pooled,
                "trap": trap,
                "leaders": board,
                "systems": systems,
                "fast": self.fast,
            }

    def export(self) -> dict[str, Any]:
        """The class's coups and predictions (names, not keys), for the teacher's download."""
        with self._lock:
            return {
                "preset": self.preset,
                "seed": self.seed,
                "table": self.table,
                "coups": self.coups,
                "predictions": [
                    [{"name": self.students[i].name, "side": side, "sure": sure} for i, (side, sure) in p.items()]
                    for p in self.predictions
                ],
                "systems": [{"name": self.students[i].name, **self.books.seat_view(i)} for i in self.books.seats],
            }

    def export_csv(self) -> str:
        """One line per prediction: coup, result, name, side, sure, right (empty on a tie)."""
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["coup", "result", "noir", "rouge", "name", "predicted", "sure", "right"])
        with self._lock:
            for n, (coup, preds) in enumerate(zip(self.coups, self.predictions), 1):
                won = side_of(coup["result"])
                if not preds:
                    writer.writerow([n, coup["result"], coup["noir"], coup["rouge"], "", "", "", ""])
                for i, (side, sure) in preds.items():
                    name = self.students[i].name
                    if name[:1] in "=+-@\t\r":  # a spreadsheet must not read a name as a formula
                        name = "'" + name
                    right = "" if won is None else int(side == won)
                    writer.writerow([n, coup["result"], coup["noir"], coup["rouge"], name, side, sure, right])
        return buffer.getvalue()


def _read_picks(entries: object, students: list[Student], coups: int) -> dict[int, tuple[str, int]]:
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


__all__ = [
    "Classroom",
    "ClassroomError",
    "FAST_COUPS",
    "MAX_NAME",
    "MAX_STREAK",
    "SIDES",
    "Student",
    "after_run",
    "clean_name",
    "expected_share",
    "hit_sequence",
    "pooled_table",
    "streaks_before",
]

"""The classroom's state, without a web server: the students, their predictions, the coups dealt,
the class's tables, and the file that keeps it all across a restart.

Every change goes through one method of :class:`Classroom`, which validates its input (a
:class:`ClassroomError`, one line, on anything out of bounds) and either journals the change (a
join, a prediction, a kick: one JSON line appended to ``<session>.journal``) or writes the whole
session atomically (a deal, a reset, a teacher's switch: :func:`write_private`, owner-only like the journal,
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

import json
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.classroom.systems import SYSTEMS, Books
from experiments.errors import LabError
from experiments.files import SESSION_BYTES, atomic_write_json, read_json
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
MAX_STUDENTS = 300  #: students present at once (a removed student frees a place)
MAX_LIVE_COUPS = 5000  #: coups dealt live in one session (a reset starts another)
FAST_COUPS = (10_000, 1_000_000)  #: what the fast-forward may deal at once
SESSION_VERSION = 1
MAX_COUNTDOWN = 120  #: seconds a countdown may last


def fresh_seed() -> int:
    """A seed nobody can know in advance: 63 bits from the operating system."""
    return secrets.randbits(63)


def _skeleton(name: str) -> str:
    """The name as it looks: each character that has a Latin look-alike replaced by it, case folded
    (Cyrillic "А" and Latin "A" give the same skeleton). Without the ``confusable-homoglyphs`` package
    (the classroom extra), the name case folded."""
    try:
        from confusable_homoglyphs import confusables
    except ImportError:
        return name.casefold()
    out = []
    for char in name:
        found = None if char.isascii() else confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"])
        out.append(found[0]["homoglyphs"][0]["c"] if found and found[0]["homoglyphs"] else char)
    return "".join(out).casefold()


def _looks_mixed(name: str) -> bool:
    """True if ``name`` mixes alphabets with characters that look alike (Latin "Alice" with a Cyrillic
    "А"): a look-alike of a name, refused."""
    try:
        from confusable_homoglyphs import confusables
    except ImportError:
        return False
    return bool(confusables.is_dangerous(name))


def write_private(path: Path, document: Any) -> None:
    """``document`` as JSON in ``path``, atomically and readable by its owner only from the first byte
    (:func:`experiments.files.atomic_write_json`). Only a regular file is replaced."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ClassroomError(f"{path}: not a regular file; choose another session name")
    atomic_write_json(path, document, private=True)


def append_private(path: Path, line: str) -> None:
    """Append ``line`` to ``path``, created readable by its owner only (it holds students' keys)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(line)


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
    joined: float = 0.0  #: when (seconds since the epoch)
    removed: float | None = None  #: when the teacher removed the name

    @property
    def id(self) -> int:
        """The student's number in exports: 1, 2, ... in order of joining; two students of one name keep
        two numbers."""
        return self.index + 1


@dataclass
class Classroom:
    """One class at one table. Build with :meth:`open` (a new session or the one in ``path``).

    :param preset: the rules preset; :param seed: the shoe's seed (default: a fresh one from the
        operating system; shown only in the exports, after the lesson).
    :param path: the session file (None: nothing kept, for tests).
    """

    preset: str = "classic"
    seed: int = field(default_factory=fresh_seed)
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
    locked: bool = False  #: the room locked: no new name joins (a student with their key still does)
    hide_split: bool = True  #: the class's Noir/Rouge split shown only after the deal
    lang: str = ""  #: the teacher's language once switched, followed by the phones ("": each phone's browser's)
    coup_times: list[float] = field(default_factory=list)  #: when each coup was dealt
    times: list[dict[int, float]] = field(default_factory=list)  #: per coup: student -> when they predicted
    open_times: dict[int, float] = field(default_factory=dict)
    closes_at: float | None = None  #: the countdown: predictions for the next coup close at this time
    tables: list[dict[str, Any]] = field(default_factory=list)  #: the tables before each reset (their export)
    fast: dict[str, Any] | None = None  #: the last fast-forward's table
    seq: int = 0  #: the last change's number (journal and session file)
    version: int = 0  #: bumped on every change: the projector's view is sent again
    shared: int = 0  #: bumped on a change every student sees (a deal, a pause, a reset, a kick)

    def __post_init__(self) -> None:
        self.rules = load_rules(self.preset)
        self._by_key = {s.key: s for s in self.students}
        self._by_name = {s.name.casefold(): s for s in self.students if not s.kicked}
        self.rejoins: dict[str, dict[str, Any]] = {}  #: a student who lost their key asks: request -> state
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

    def warm(self) -> None:
        """Deal once from a throwaway shoe: the dealer's kernels are compiled (a first deal on a fresh
        install takes seconds) before the teacher's first Deal."""
        from experiments.game.deal import coup_record
        from trente_env.dealer import Shoe

        coup_record(Shoe(self.rules, table_generator(0, 0)).deal())

    def deal(self, coup: object = None) -> dict[str, Any]:
        """Deal coup number ``coup`` (None: the next) from the table's shoe; the open predictions are
        kept with it. Asking again for the coup just dealt (a double-click) returns it without dealing
        another."""
        from experiments.game.deal import coup_record

        with self._lock:
            if coup is not None:
                if not is_whole(coup, 1, MAX_LIVE_COUPS, numpy=False):
                    raise ClassroomError("coup: a coup number")
                if coup == len(self.coups) and self.coups:
                    return self.coups[-1]
                if coup != len(self.coups) + 1:
                    raise ClassroomError(f"coup {coup} is not the next one (coup {len(self.coups) + 1})")
            if self.paused:
                raise ClassroomError("the table is paused")
            if len(self.coups) >= MAX_LIVE_COUPS:
                raise ClassroomError(f"{MAX_LIVE_COUPS:,} coups dealt: reset the table to go on")
            record = coup_record(self._shoe.deal())
            self.coups.append(record)
            self.coup_times.append(round(time.time(), 3))
            self.books.step(record)
            self.predictions.append(self.open_round)
            self.times.append(self.open_times)
            self.open_round, self.open_times, self.closes_at = {}, {}, None
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
            if _looks_mixed(name):
                raise ClassroomError("that name mixes alphabets whose letters look alike: type it in one alphabet")
            look = _skeleton(name)
            if any(_skeleton(s.name) == look for s in self._by_name.values()):
                raise ClassroomError("that name looks like one taken: choose another")
            if self.locked:
                raise ClassroomError("the teacher locked the room")
            if self.present >= MAX_STUDENTS:
                raise ClassroomError(f"the class is full ({MAX_STUDENTS} students)")
            student = Student(len(self.students), name, secrets.token_urlsafe(18), joined=round(time.time(), 3))
            self._add(student)
            self._changed(event={"e": "join", "name": name, "key": student.key, "i": student.index,
                                 "t": student.joined})  # fmt: skip
            return student

    @property
    def present(self) -> int:
        """Students present: joined and not removed."""
        return len(self._by_name)

    def ask_rejoin(self, name: object, code: object) -> str:
        """A student whose browser lost its key asks for their name back: a request the teacher confirms
        (:meth:`admit`); its id is returned, the phone asks with it until the teacher answers."""
        with self._lock:
            if not isinstance(code, str) or not secrets.compare_digest(code.strip().upper(), self.join_code):
                raise ClassroomError("wrong join code")
            name = clean_name(name)
            student = self._by_name.get(name.casefold())
            if student is None:
                raise ClassroomError("no student of that name: join with it")
            if sum(r["key"] is None for r in self.rejoins.values()) >= 20:
                raise ClassroomError("too many requests wait for the teacher: try again in a moment")
            request = secrets.token_urlsafe(12)
            self.rejoins[request] = {"i": student.index, "key": None, "at": time.time()}
            self.version += 1
            return request

    def rejoin_status(self, request: object) -> str | None:
        """The key of an admitted request (once), None while the teacher has not answered."""
        with self._lock:
            entry = self.rejoins.get(request) if isinstance(request, str) else None
            if entry is None:
                raise ClassroomError("no such request: ask again")
            if entry["key"] is None:
                return None
            del self.rejoins[request]
            return entry["key"]

    def admit(self, request: object) -> None:
        """The teacher confirms a rejoin: the student gets a new key (the old one stops working), their
        record goes on."""
        with self._lock:
            entry = self.rejoins.get(request) if isinstance(request, str) else None
            if entry is None or entry["key"] is not None:
                raise ClassroomError("no such request")
            student = self.students[entry["i"]]
            if student.kicked:
                raise ClassroomError("the teacher removed this name")
            del self._by_key[student.key]
            student.key = secrets.token_urlsafe(18)
            self._by_key[student.key] = student
            entry["key"] = student.key
            for other, e in list(self.rejoins.items()):  # the other requests for this name are void
                if e["i"] == student.index and e["key"] is None:
                    del self.rejoins[other]
            self._changed(event={"e": "rekey", "i": student.index, "key": student.key})

    def deny(self, request: object) -> None:
        with self._lock:
            if not isinstance(request, str) or self.rejoins.pop(request, None) is None:
                raise ClassroomError("no such request")
            self.version += 1

    def pending_rejoins(self) -> list[dict[str, Any]]:
        with self._lock:
            return [{"request": r, "name": self.students[e["i"]].name} for r, e in self.rejoins.items()
                    if e["key"] is None]  # fmt: skip

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

    def predict(self, key: object, side: object, sure: object = 1, coup: object = None, at: float | None = None) -> int:
        """A student's prediction for coup number ``coup`` (None: the next), which they may change until
        the deal or the countdown's end; a prediction for a coup already dealt is refused. Returns the
        coup number."""
        with self._lock:
            student = self.student(key)
            if side not in SIDES:
                raise ClassroomError("predict noir or rouge")
            if isinstance(sure, bool) or sure not in SURE:
                raise ClassroomError("how sure: 1, 2 or 3")
            following = len(self.coups) + 1
            if coup is not None:
                if not is_whole(coup, 1, MAX_LIVE_COUPS + 1, numpy=False):
                    raise ClassroomError("coup: a coup number")
                if coup < following:
                    raise ClassroomError(f"too late: coup {coup} was dealt")
                if coup > following:
                    raise ClassroomError(f"coup {coup} is not open yet: predict coup {following}")
            if self.paused:
                raise ClassroomError("the table is paused")
            now = time.time() if at is None else at
            if self.closes_at is not None and now > self.closes_at and at is None:
                raise ClassroomError(f"time is up: predictions for coup {following} are closed")
            self.open_round[student.index] = (side, int(sure))
            self.open_times[student.index] = round(now, 3)
            self._changed(event={"e": "predict", "i": student.index, "side": side, "sure": int(sure),
                                 "t": self.open_times[student.index]})  # fmt: skip
            return following

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
            student.removed = round(time.time(), 3)
            del self._by_name[student.name.casefold()]
            self.open_round.pop(student.index, None)
            self.open_times.pop(student.index, None)
            self.books.stand(student.index)
            self._changed(event={"e": "kick", "i": student.index, "t": student.removed})

    # -- the teacher's switches ------------------------------------------------------------------

    def set_paused(self, paused: bool) -> None:
        with self._lock:
            self.paused = bool(paused)
            self._changed(snapshot=True)

    def set_show_names(self, show: bool) -> None:
        with self._lock:
            self.show_names = bool(show)
            self._changed(snapshot=True)

    def set_locked(self, locked: bool) -> None:
        with self._lock:
            self.locked = bool(locked)
            self._changed(snapshot=True)

    def set_hide_split(self, hide: bool) -> None:
        with self._lock:
            self.hide_split = bool(hide)
            self._changed(snapshot=True)

    def set_lang(self, lang: object) -> None:
        if lang not in ("en", "fr"):
            raise ClassroomError("lang: en or fr")
        with self._lock:
            self.lang = str(lang)
            self._changed(snapshot=True)

    def countdown(self, seconds: object) -> None:
        """Close the predictions for the next coup in ``seconds`` (0 or None: no countdown)."""
        if seconds is not None and not is_whole(seconds, 0, MAX_COUNTDOWN, numpy=False):
            raise ClassroomError(f"countdown: 0 to {MAX_COUNTDOWN} seconds")
        with self._lock:
            self.closes_at = time.time() + seconds if seconds else None
            self._changed(snapshot=True)

    def reset(self) -> Path | None:
        """A new table (the next shoe seed): coups and predictions cleared, the students kept. The
        session as it was is written beside the session file first; its path is returned."""
        with self._lock:
            kept = None
            if self.coups:
                self.tables.append(self.export())
                if self.path is not None:
                    kept = self.path.with_name(f"{self.path.stem}.table-{self.table}.json")
                    write_private(kept, self.to_dict())
            self.table += 1
            self.coups, self.predictions, self.open_round, self.fast = [], [], {}, None
            self.coup_times, self.times, self.open_times, self.closes_at = [], [], {}, None
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
            append_private(self.journal, json.dumps(event, ensure_ascii=False) + "\n")

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
            write_private(self.path, self.to_dict())
            fd = os.open(self.journal, os.O_WRONLY | os.O_TRUNC | os.O_CREAT, 0o600)
            os.fchmod(fd, 0o600)
            os.close(fd)

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
            "locked": self.locked,
            "hide_split": self.hide_split,
            "lang": self.lang,
            "students": [
                {"name": s.name, "key": s.key, "kicked": s.kicked, "joined": s.joined, "removed": s.removed}
                for s in self.students
            ],  # fmt: skip
            "coups": self.coups,
            "coup_times": self.coup_times,
            "predictions": [[[i, side, sure] for i, (side, sure) in p.items()] for p in self.predictions],
            "times": [[[i, at] for i, at in p.items()] for p in self.times],
            "open_round": [[i, side, sure] for i, (side, sure) in self.open_round.items()],
            "open_times": [[i, at] for i, at in self.open_times.items()],
            "tables": self.tables,
            "systems": [[i, seat.system, seat.start] for i, seat in self.books.seats.items()],
            "fast": self.fast if self.fast is None or "done" in self.fast else None,
        }

    @classmethod
    def open(cls, path: Path | None, preset: str = "classic", seed: int | None = None) -> tuple[Classroom, bool]:
        """The session in ``path`` if it exists (resumed: True), else a new one written there (seed
        None: a fresh one)."""
        if path is None or not path.exists():
            room = cls(preset=preset, seed=fresh_seed() if seed is None else seed, path=path)
            room.save()
            return room, False
        return cls.load(path), True

    @classmethod
    def load(cls, path: Path) -> Classroom:
        """Read a session file and replay its journal; a file that is not a session is refused."""
        data = read_json(path, "classroom session", SESSION_BYTES, ClassroomError)
        try:
            if not isinstance(data, dict) or data.get("trente_lab_classroom") != SESSION_VERSION:
                raise ValueError("not a classroom session")
            students = [Student(i, s["name"], s["key"], bool(s["kicked"]), float(s.get("joined", 0)),
                                None if s.get("removed") is None else float(s["removed"]))
                        for i, s in enumerate(data["students"])]  # fmt: skip
            room = cls(
                preset=data["preset"], seed=int(data["seed"]), path=path, join_code=data["join_code"],
                token=data["token"], table=int(data["table"]), students=students, coups=list(data["coups"]),
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
                    self._add(Student(len(self.students), clean_name(event["name"]), str(event["key"]),
                                      joined=float(event.get("t", 0))))  # fmt: skip
                    self.seq += 1
                elif kind == "predict":
                    self.predict(self.students[int(event["i"])].key, event["side"], event["sure"],
                                 at=float(event.get("t", 0)))  # fmt: skip
                elif kind == "rekey":
                    student = self.students[int(event["i"])]
                    del self._by_key[student.key]
                    student.key = str(event["key"])
                    self._by_key[student.key] = student
                elif kind == "system":
                    self.pick_system(self.students[int(event["i"])].key, event["system"])
                elif kind == "kick":
                    self.kick(self.students[int(event["i"])].name)
                    self.students[int(event["i"])].removed = event.get("t")
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
        last = None
        if self.coups:  # the last coup: what the student said and whether it was right
            guess = self.predictions[-1].get(student.index)
            won = side_of(results[-1])
            verdict = None if guess is None else "tie" if won is None else "right" if guess[0] == won else "wrong"
            last = {"coup": len(self.coups), "said": None if guess is None else guess[0], "verdict": verdict}
        return {
            "name": student.name,
            "id": student.id,
            "last": last,
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
                    "systems": self.books.summary(), "lang": self.lang, "closes_in": self.closes_in()}  # fmt: skip

    def closes_in(self) -> float | None:
        """Seconds until the countdown closes the predictions (0: closed; None: no countdown)."""
        return None if self.closes_at is None else round(max(0.0, self.closes_at - time.time()), 2)

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
            said = list(self.predictions[-1].values()) if self.predictions else []
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
            fast = self.fast if self.fast is None else {**self.fast, "seed": str(self.fast.get("seed", ""))}
            split = {"noir": sum(g[0] == "noir" for g in guesses), "rouge": sum(g[0] == "rouge" for g in guesses)}
            return {
                "preset": self.preset,
                "rules": self.rules.describe(),
                "table": self.table,
                "paused": self.paused,
                "show_names": self.show_names,
                "locked": self.locked,
                "hide_split": self.hide_split,
                "lang": self.lang,
                "closes_in": self.closes_in(),
                "students": len(active),
                "coups": len(self.coups),
                "last": self.coups[-1] if self.coups else None,
                "scoreboard": results[-40:],
                "streak": {"side": side, "run": run},
                "round": {"predicted": len(guesses), **({} if self.hide_split else split)},
                "last_split": {"noir": sum(g[0] == "noir" for g in said), "rouge": sum(g[0] == "rouge" for g in said)},
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
                "fast": fast,
            }

    def roster(self) -> list[dict[str, Any]]:
        """Every student who joined: id, name, when they joined, whether and when they were removed."""
        return [{"id": s.id, "name": s.name, "joined": _iso(s.joined), "removed": s.kicked,
                 "removed_at": _iso(s.removed)} for s in self.students]  # fmt: skip

    def export(self) -> dict[str, Any]:
        """The table's coups and predictions (student ids and names, not keys), the roster, the seed
        (shown only here, after the lesson), the fast-forward, and the tables before each reset."""
        with self._lock:
            coups = [{**c, "at": _iso(t)} for c, t in zip(self.coups, self.coup_times, strict=False)]
            return {
                "preset": self.preset,
                "seed": str(self.seed),
                "table": self.table,
                "roster": self.roster(),
                "coups": coups,
                "predictions": [
                    [
                        {
                            "id": self.students[i].id,
                            "name": self.students[i].name,
                            "side": side,
                            "sure": sure,
                            "at": _iso(t.get(i)),
                        }
                        for i, (side, sure) in p.items()
                    ]
                    for p, t in zip(self.predictions, self.times, strict=False)
                ],  # fmt: skip
                "systems": [
                    {"id": i + 1, "name": self.students[i].name, **self.books.seat_view(i)} for i in self.books.seats
                ],  # fmt: skip
                "fast": None if self.fast is None else {**self.fast, "seed": str(self.fast.get("seed", ""))},
                "earlier_tables": [t.get("table") for t in self.tables],
            }

    def export_table(self, table: object) -> dict[str, Any]:
        """The export of table ``table``: an earlier one (kept at its reset) or the current one."""
        with self._lock:
            if table is None or table == self.table:
                return self.export()
            for kept in self.tables:
                if kept.get("table") == table:
                    return kept
            raise ClassroomError(f"no table {table!r} in this session")

    def export_csv(self, sep: str = ",", table: object = None) -> str:
        """One line per prediction: coup, when dealt, result, student id and name, side, sure, when
        predicted, right (empty on a tie); with a byte-order mark (a spreadsheet reads UTF-8) and
        ``sep`` between fields (``;`` for a French spreadsheet)."""
        import csv
        import io

        if sep not in (",", ";", "\t"):
            raise ClassroomError("sep: , or ; or a tab")
        document = self.export_table(table)
        buffer = io.StringIO()
        buffer.write("\ufeff")
        writer = csv.writer(buffer, delimiter=sep, lineterminator="\r\n")
        writer.writerow(["table", "coup", "dealt_at", "result", "noir", "rouge", "student", "name", "predicted", "sure",
                         "predicted_at", "right"])  # fmt: skip
        t = document["table"]
        for n, (coup, preds) in enumerate(zip(document["coups"], document["predictions"]), 1):
            won = side_of(coup["result"])
            head = [t, n, coup.get("at") or "", coup["result"], coup["noir"], coup["rouge"]]
            if not preds:
                writer.writerow([*head, "", "", "", "", "", ""])
            for p in preds:
                name = p["name"]
                if name[:1] in "=+-@\t\r":  # a spreadsheet must not read a name as a formula
                    name = "'" + name
                right = "" if won is None else int(p["side"] == won)
                writer.writerow([*head, p.get("id", ""), name, p["side"], p["sure"], p.get("at") or "", right])
        return buffer.getvalue()


def _iso(at: float | None) -> str | None:
    """A time as ISO 8601 in UTC to the millisecond (None, or 0 for a session older than the times: None)."""
    if not at:
        return None
    from datetime import UTC, datetime

    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds")


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

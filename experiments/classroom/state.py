"""The classroom's room, without a web server: one class at one table, the coups dealt, the
predictions made for each, the teacher's switches.

Every change goes through one method of :class:`Classroom`, which validates its input (a
:class:`~experiments.errors.ClassroomError`, one line, on anything out of bounds) and then either
journals the change or writes the whole session (:mod:`experiments.classroom.store`: the session file
and its journal, which a restart reads back, losing nothing acknowledged).

The room's parts each have their module: who is in the room (:mod:`~experiments.classroom.roster`),
what the pages show (:mod:`~experiments.classroom.views`), what the teacher downloads
(:mod:`~experiments.classroom.exports`), and the students' betting systems
(:mod:`~experiments.classroom.systems`: a student's pick plays every coup dealt from then on with its
own bankroll; the session file keeps the pick and the coup it sat down at, and the money is played
again from the coups on a restart). **What counts** and **the streak trap**: :mod:`experiments.streaks`.

**The table** is a :class:`~trente_env.rules.RuleSet`, resolved once by the command line and handed
to :meth:`Classroom.open`; the room never resolves a preset's name. **The coups** come from the lab's
one dealer: a :class:`trente_env.dealer.Shoe` seeded by the session's seed and table number, the shoe
the environment deals from. The session file keeps every coup; on a restart the shoe is dealt again
up to where it was and checked against them.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from experiments.classroom import exports, store, views
from experiments.classroom.roster import Roster, Student, clean_name
from experiments.classroom.systems import SYSTEMS, Books
from experiments.errors import ClassroomError
from experiments.rules import table_name
from experiments.streaks import SIDES, pooled_table, streak_trap
from trente_env.rules import RuleSet
from trente_env.seeding import table_generator
from trente_env.whole import is_whole

SURE = (1, 2, 3)  #: how sure: a guess, fairly sure, certain
MAX_LIVE_COUPS = 5000  #: coups dealt live in one session (a reset starts another)
FAST_COUPS = (10_000, 1_000_000)  #: what the fast-forward may deal at once
MAX_COUNTDOWN = 120  #: seconds a countdown may last


def fresh_seed() -> int:
    """A seed nobody can know in advance: 63 bits from the operating system."""
    return secrets.randbits(63)


def _join_code() -> str:
    return "".join(secrets.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))


@dataclass
class Classroom:
    """One class at one table. Build with :meth:`open` (a new session or the one in ``path``).

    :param rules: the table; :param rules_name: what the pages call it (default: the preset's name
        when they are exactly a preset's rules, else "custom").
    :param seed: the shoe's seed (default: a fresh one from the operating system; shown only in the
        exports, after the lesson).
    :param path: the session file (None: nothing kept, for tests).
    """

    rules: RuleSet
    rules_name: str = ""
    seed: int = field(default_factory=fresh_seed)
    path: Path | None = None
    join_code: str = field(default_factory=_join_code)
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
        from trente_env.odds import first_coup

        self.rules_name = self.rules_name or table_name(self.rules)
        self.roster = Roster(self.students)  #: who is in the room (the same list of students)
        self._lock = threading.RLock()
        self.touched: set[int] = set()  #: students whose own view changed since :meth:`take_touched`
        self._journaled = 0  # lines in the journal since the session file was written whole
        self._tables: tuple[Any, Any] | None = None
        self._tables_key: tuple[int, int, int] | None = None
        self._shoe = self._new_shoe()
        self.odds = first_coup(self.rules.decks)  #: the exact odds of a shoe's first coup
        self.books = Books(self.rules)  #: the students' betting systems

    # -- the dealer ------------------------------------------------------------------------------

    def _new_shoe(self) -> Any:
        from trente_env.dealer import Shoe

        return Shoe(self.rules, table_generator(self.seed, self.table))

    def warm(self) -> None:
        """Deal once from a throwaway shoe and ask the ruin rule once: the dealer's kernels and the
        ruin rule's are compiled (a first deal on a fresh install takes seconds) before the teacher's
        first Deal."""
        from experiments.game.deal import coup_record
        from trente_env.croupier import is_ruined
        from trente_env.dealer import Shoe

        coup_record(Shoe(self.rules, table_generator(0, 0)).deal())
        is_ruined(0.0, self.rules.table_min, np.zeros((4, 2)))

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

    def _check_code(self, code: object) -> None:
        if not isinstance(code, str) or not secrets.compare_digest(code.strip().upper(), self.join_code):
            raise ClassroomError("wrong join code")

    def join(self, name: object, code: object, key: object = None) -> Student:
        """A student joins with the join code, or rejoins with their key (their record kept)."""
        with self._lock:
            known = self.roster.with_key(key)
            if known is not None:
                if known.kicked:
                    raise ClassroomError("the teacher removed this name")
                return known
            self._check_code(code)
            student = self.roster.enrol(name, round(time.time(), 3), self.locked)
            self._changed(event={"e": "join", "name": student.name, "key": student.key, "i": student.index,
                                 "t": student.joined})  # fmt: skip
            return student

    @property
    def present(self) -> int:
        """Students present: joined and not removed."""
        return self.roster.present

    def ask_rejoin(self, name: object, code: object) -> str:
        """A student whose browser lost its key asks for their name back: a request the teacher confirms
        (:meth:`admit`); its id is returned, the phone asks with it until the teacher answers."""
        with self._lock:
            self._check_code(code)
            request = self.roster.ask(name, time.time())
            self.version += 1
            return request

    def rejoin_status(self, request: object) -> str | None:
        """The key of an admitted request (once), None while the teacher has not answered."""
        with self._lock:
            return self.roster.answer(request)

    def admit(self, request: object) -> None:
        """The teacher confirms a rejoin: the student gets a new key (the old one stops working), their
        record goes on."""
        with self._lock:
            student = self.roster.admit(request)
            self._changed(event={"e": "rekey", "i": student.index, "key": student.key})

    def deny(self, request: object) -> None:
        with self._lock:
            self.roster.deny(request)
            self.version += 1

    def pending_rejoins(self) -> list[dict[str, Any]]:
        with self._lock:
            return self.roster.pending()

    def student(self, key: object) -> Student:
        """The student of ``key``; refused if unknown or removed."""
        return self.roster.student(key)

    def index_of(self, key: object) -> int | None:
        """The index of the student of ``key`` (None if unknown)."""
        student = self.roster.with_key(key)
        return None if student is None else student.index

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
            student = self.roster.named(name)
            if student is None:
                raise ClassroomError("no student of that name")
            self.roster.remove(student, round(time.time(), 3))
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
                    store.write_private(kept, store.session_document(self))
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
        if snapshot or event is None or self._journaled >= store.JOURNAL_LINES:
            self.save()
        else:
            event["seq"] = self.seq
            store.append_private(self.journal, json.dumps(event, ensure_ascii=False) + "\n")
            self._journaled += 1

    @property
    def journal(self) -> Path:
        assert self.path is not None
        return store.journal_of(self.path)

    def save(self) -> None:
        """Write the whole session atomically (readable by its owner only: it holds the teacher's token),
        then empty the journal."""
        if self.path is None:
            return
        with self._lock:
            store.write_private(self.path, store.session_document(self))
            store.empty_private(self.journal)
            self._journaled = 0

    @classmethod
    def open(
        cls, path: Path | None, rules: RuleSet | None, seed: int | None = None, rules_name: str = ""
    ) -> tuple[Classroom, bool]:
        """The session in ``path`` if it exists (resumed: True), else a new one written there at the
        table ``rules`` (seed None: a fresh one).

        :param rules: the table asked for. A session resumed keeps its own table: None takes it
            whatever it is, a table that differs from it is refused in one line. A new session needs it.
        :param rules_name: what the pages call a new session's table (default: :func:`~experiments.rules.table_name`).
        """
        if path is not None and path.exists():
            return cls.load(path, rules, rules_name), True
        if rules is None:
            raise ClassroomError(f"{path}: no session there to resume; give the rules of a new one")
        room = cls(rules=rules, rules_name=rules_name, seed=fresh_seed() if seed is None else seed, path=path)
        room.save()
        return room, False

    @classmethod
    def load(cls, path: Path, rules: RuleSet | None = None, rules_name: str = "") -> Classroom:
        """Read a session file and replay its journal; a file that is not a session is refused, and so
        is a session at another table than ``rules`` (if given; named ``rules_name``), before anything
        is written."""
        fields, picks = store.read_session(path)
        if rules is not None and rules != fields["rules"]:
            raise ClassroomError(f"{path}: this session was played at the {fields['rules_name']} table, not at "
                                 f"the {rules_name or table_name(rules)} table asked for; leave out --rules to "
                                 "resume it, or give another --session for a new class")  # fmt: skip
        try:
            room = cls(path=path, **fields)
        except (ValueError, TypeError) as exc:
            raise ClassroomError(f"{path}: cannot read this classroom session ({exc})") from None
        from experiments.game.deal import coup_record

        for i, coup in enumerate(room.coups):  # the shoe dealt again up to where it was, the systems played again
            if coup_record(room._shoe.deal()) != coup:
                raise ClassroomError(f"{path}: coup {i + 1} is not what seed {room.seed} deals: the file was edited")
            room._sit_picks(picks, i)
            room.books.step(coup)
        room._sit_picks(picks, len(room.coups))
        room._replay(store.read_journal(path))
        return room

    def _sit_picks(self, picks: dict[int, tuple[str, int]], coup: int) -> None:
        for student, (system, start) in picks.items():
            if start == coup:
                self.books.sit(student, system)

    def _replay(self, events: list[dict[str, Any]]) -> None:
        """Make again the changes journaled after the session file was written, then write it whole."""
        path, self.path = self.path, None  # replaying journals nothing
        try:
            for event in events:
                if event.get("seq", 0) <= self.seq:
                    continue
                kind = event.get("e")
                if kind == "join":
                    self.roster.add(Student(len(self.students), clean_name(event["name"]), str(event["key"]),
                                            joined=float(event.get("t", 0))))  # fmt: skip
                    self.seq += 1
                elif kind == "predict":
                    self.predict(self.students[int(event["i"])].key, event["side"], event["sure"],
                                 at=float(event.get("t", 0)))  # fmt: skip
                elif kind == "rekey":
                    self.roster.rekey(self.students[int(event["i"])], str(event["key"]))
                elif kind == "system":
                    self.pick_system(self.students[int(event["i"])].key, event["system"])
                elif kind == "kick":
                    self.kick(self.students[int(event["i"])].name)
                    self.students[int(event["i"])].removed = event.get("t")
                self.seq = int(event["seq"])
        finally:
            self.path = path
        self.save()

    # -- what the pages show (:mod:`~experiments.classroom.views`) -----------------------------------

    @property
    def results(self) -> list[str]:
        return [c["result"] for c in self.coups]

    def record(self, student: Student) -> dict[str, Any]:
        """One student's record (:func:`~experiments.classroom.views.record`)."""
        return views.record(self, student)

    def streak_trap(self) -> list[dict[str, Any]]:
        """The class's streak trap (:func:`experiments.streaks.streak_trap`)."""
        return streak_trap(self.results, self.predictions, [s.index for s in self.students])

    def class_tables(self) -> tuple[Any, Any]:
        """The class's pooled table and streak trap, computed again only when what they depend on changed."""
        key = (self.table, len(self.coups), len(self.students))
        if self._tables is None or self._tables_key != key:
            self._tables = (pooled_table(self.results, self.predictions), self.streak_trap())
            self._tables_key = key
        return self._tables

    def student_public(self) -> dict[str, Any]:
        """What a student's page reads (:func:`~experiments.classroom.views.student_public`)."""
        with self._lock:
            return views.student_public(self)

    def closes_in(self) -> float | None:
        """Seconds until the countdown closes the predictions (0: closed; None: no countdown)."""
        return None if self.closes_at is None else round(max(0.0, self.closes_at - time.time()), 2)

    def public(self) -> dict[str, Any]:
        """What every page may know (:func:`~experiments.classroom.views.public`)."""
        with self._lock:
            return views.public(self)

    # -- what the teacher downloads (:mod:`~experiments.classroom.exports`) ---------------------------

    def export(self) -> dict[str, Any]:
        """The current table's export (:func:`~experiments.classroom.exports.table_document`)."""
        with self._lock:
            return exports.table_document(self)

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
        """Table ``table``'s predictions as CSV, ``sep`` between fields
        (:func:`~experiments.classroom.exports.csv_text`)."""
        if sep not in exports.SEPARATORS:
            raise ClassroomError("sep: , or ; or a tab")
        return exports.csv_text(self.export_table(table), sep)


#: ``ClassroomError`` is :mod:`experiments.errors`'s, named here for the web app and the server.
__all__ = ["FAST_COUPS", "MAX_COUNTDOWN", "MAX_LIVE_COUPS", "SURE", "Classroom", "ClassroomError", "fresh_seed"]

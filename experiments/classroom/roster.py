"""The classroom's roster: who joined, under which name and secret key, who was removed, and the
requests of students who lost their key and ask for their name back.

A name is checked here (:func:`clean_name`), and refused when it is taken, when it mixes alphabets
whose letters look alike (Latin "Alice" with a Cyrillic "А"), or when it looks like a name taken
(:func:`skeleton`; both with the ``confusable-homoglyphs`` package of the classroom extra). A removed
student frees their name and their place; their past predictions stay, under their own id.

The roster changes nothing on disk: the room (:class:`~experiments.classroom.state.Classroom`)
journals each change it makes through it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from experiments.errors import ClassroomError, TooMany

MAX_NAME = 24  #: characters in a student's name
MAX_STUDENTS = 300  #: students present at once (a removed student frees a place)
MAX_WAITING = 20  #: requests for a name back waiting for the teacher at once


def new_key() -> str:
    """A student's secret key: what their browser keeps to rejoin."""
    return secrets.token_urlsafe(18)


def skeleton(name: str) -> str:
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


def looks_mixed(name: str) -> bool:
    """True if ``name`` mixes alphabets with characters that look alike (Latin "Alice" with a Cyrillic
    "А"): a look-alike of a name, refused."""
    try:
        from confusable_homoglyphs import confusables
    except ImportError:
        return False
    return bool(confusables.is_dangerous(name))


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


class Roster:
    """Every student who joined a classroom (``students``, in order of joining: a student's index is
    their place in it), found by key or by name, and the requests for a name back (``rejoins``:
    request -> ``{"i": student, "key": None until admitted, "at": when}``)."""

    def __init__(self, students: list[Student]) -> None:
        self.students = students
        self._by_key = {s.key: s for s in students}
        self._by_name = {s.name.casefold(): s for s in students if not s.kicked}
        self.rejoins: dict[str, dict[str, Any]] = {}

    @property
    def present(self) -> int:
        """Students present: joined and not removed."""
        return len(self._by_name)

    def with_key(self, key: object) -> Student | None:
        """The student of ``key`` (removed or not), None if unknown."""
        return self._by_key.get(key) if isinstance(key, str) else None

    def student(self, key: object) -> Student:
        """The student of ``key``; refused if unknown or removed."""
        student = self.with_key(key)
        if student is None:
            raise ClassroomError("unknown student: join again")
        if student.kicked:
            raise ClassroomError("the teacher removed this name")
        return student

    def named(self, name: object) -> Student | None:
        """The present student called ``name`` (any case), None if none."""
        return self._by_name.get(name.casefold()) if isinstance(name, str) else None

    def add(self, student: Student) -> None:
        self.students.append(student)
        self._by_key[student.key] = student
        self._by_name[student.name.casefold()] = student

    def enrol(self, name: object, at: float, locked: bool) -> Student:
        """A new student called ``name`` (joining at ``at``), with a new key; refused if the name is
        taken or looks like one taken, if the room is ``locked`` or full."""
        name = clean_name(name)
        if name.casefold() in self._by_name:
            raise ClassroomError("that name is taken: choose another")
        if looks_mixed(name):
            raise ClassroomError("that name mixes alphabets whose letters look alike: type it in one alphabet")
        look = skeleton(name)
        if any(skeleton(s.name) == look for s in self._by_name.values()):
            raise ClassroomError("that name looks like one taken: choose another")
        if locked:
            raise ClassroomError("the teacher locked the room")
        if self.present >= MAX_STUDENTS:
            raise ClassroomError(f"the class is full ({MAX_STUDENTS} students)")
        student = Student(len(self.students), name, new_key(), joined=at)
        self.add(student)
        return student

    def remove(self, student: Student, at: float | None) -> None:
        """``student`` removed at ``at``: their key no longer works and their name and place are free."""
        student.kicked = True
        student.removed = at
        self._by_name.pop(student.name.casefold(), None)

    def rekey(self, student: Student, key: str) -> None:
        """``student``'s key is now ``key`` (the old one stops working)."""
        del self._by_key[student.key]
        student.key = key
        self._by_key[key] = student

    # -- a name asked back -----------------------------------------------------------------------

    def ask(self, name: object, at: float) -> str:
        """A request for the present name ``name`` back (its id): the teacher answers it."""
        student = self.named(clean_name(name))
        if student is None:
            raise ClassroomError("no student of that name: join with it")
        if sum(r["key"] is None for r in self.rejoins.values()) >= MAX_WAITING:
            raise TooMany("too many requests wait for the teacher: try again in a moment")
        request = secrets.token_urlsafe(12)
        self.rejoins[request] = {"i": student.index, "key": None, "at": at}
        return request

    def answer(self, request: object) -> str | None:
        """The key of an admitted request (once), None while the teacher has not answered."""
        entry = self.rejoins.get(request) if isinstance(request, str) else None
        if entry is None:
            raise ClassroomError("no such request: ask again")
        if entry["key"] is None:
            return None
        del self.rejoins[request]
        return entry["key"]

    def admit(self, request: object) -> Student:
        """The teacher confirms a request: its student gets a new key, their record goes on; the other
        requests for the name are void."""
        entry = self.rejoins.get(request) if isinstance(request, str) else None
        if entry is None or entry["key"] is not None:
            raise ClassroomError("no such request")
        student = self.students[entry["i"]]
        if student.kicked:
            raise ClassroomError("the teacher removed this name")
        self.rekey(student, new_key())
        entry["key"] = student.key
        for other, e in list(self.rejoins.items()):
            if e["i"] == student.index and e["key"] is None:
                del self.rejoins[other]
        return student

    def deny(self, request: object) -> None:
        if not isinstance(request, str) or self.rejoins.pop(request, None) is None:
            raise ClassroomError("no such request")

    def pending(self) -> list[dict[str, Any]]:
        """The requests waiting for the teacher: their id and the name asked."""
        return [{"request": r, "name": self.students[e["i"]].name} for r, e in self.rejoins.items()
                if e["key"] is None]  # fmt: skip


__all__ = ["MAX_NAME", "MAX_STUDENTS", "Roster", "Student", "clean_name", "looks_mixed", "new_key", "skeleton"]

"""What the pages show of a classroom: a student's own record (their predictions, right and wrong,
their run and their own streak-trap rows), what a phone reads of the table, and what every page may
know (:func:`public`: no keys, no token; names only when the teacher shows them), with the exact odds
beside the class's counts.

Each reads a :class:`~experiments.classroom.state.Classroom` and changes nothing; the room holds its
lock around them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from experiments.classroom.roster import Student
from experiments.streaks import TRAP_K, after_run, hit_sequence, side_of, streaks_before

if TYPE_CHECKING:
    from experiments.classroom.state import Classroom

LEADERS = 12  #: names on the projector's boards when the teacher shows them


def _split(guesses: list[tuple[str, int]]) -> dict[str, int]:
    return {"noir": sum(g[0] == "noir" for g in guesses), "rouge": sum(g[0] == "rouge" for g in guesses)}


def record(room: Classroom, student: Student) -> dict[str, Any]:
    """One student's record: predictions, right, wrong, their run, their own streak-trap rows, what
    they said on the last coup and whether it was right, their open guess and their system."""
    results = room.results
    hits = hit_sequence(results, room.predictions, student.index)
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
    if room.coups:  # the last coup: what the student said and whether it was right
        guess = room.predictions[-1].get(student.index)
        won = side_of(results[-1])
        verdict = None if guess is None else "tie" if won is None else "right" if guess[0] == won else "wrong"
        last = {"coup": len(room.coups), "said": None if guess is None else guess[0], "verdict": verdict}
    return {
        "name": student.name,
        "id": student.id,
        "last": last,
        "predicted": sum(student.index in p for p in room.predictions),
        "decided": len(hits),
        "right": sum(hits),
        "wrong": len(hits) - sum(hits),
        "run": run,
        "trap": trap,
        "guess": room.open_round.get(student.index),
        "system": room.books.seat_view(student.index),
    }


def student_public(room: Classroom) -> dict[str, Any]:
    """The part of :func:`public` a student's page reads."""
    return {"table": room.table, "coups": len(room.coups), "paused": room.paused,
            "last": room.coups[-1] if room.coups else None, "systems": room.books.summary(), "lang": room.lang,
            "closes_in": room.closes_in()}  # fmt: skip


def _boards(room: Classroom) -> tuple[list[dict[str, Any]] | None, dict[str, Any]]:
    """The leaders' board (None unless the teacher shows names) and the class's systems (each
    student's bankroll by name only when the teacher shows names)."""
    systems = room.books.summary()
    if not room.show_names:
        return None, systems
    records = [record(room, s) for s in room.students if not s.kicked]
    board = [{"name": r["name"], "right": r["right"], "decided": r["decided"]} for r in records]
    board = sorted(board, key=lambda r: (-r["right"], r["name"].casefold()))[:LEADERS]
    seats = [{"name": room.students[i].name, **room.books.seat_view(i)} for i in room.books.seats]
    systems["seats"] = sorted(seats, key=lambda r: (-r["bankroll"], r["name"].casefold()))[:LEADERS]
    return board, systems


def public(room: Classroom) -> dict[str, Any]:
    """What every page may know (no keys, no token; names only when the teacher shows them)."""
    odds = room.odds
    results = room.results
    side, run = streaks_before([*results, "void"])[-1]
    pooled, trap = room.class_tables()
    guesses = list(room.open_round.values())
    said = list(room.predictions[-1].values()) if room.predictions else []
    board, systems = _boards(room)
    fast = room.fast if room.fast is None else {**room.fast, "seed": str(room.fast.get("seed", ""))}
    return {
        "preset": room.rules_name,
        "rules": room.rules.describe(),
        "table": room.table,
        "paused": room.paused,
        "show_names": room.show_names,
        "locked": room.locked,
        "hide_split": room.hide_split,
        "lang": room.lang,
        "closes_in": room.closes_in(),
        "students": sum(not s.kicked for s in room.students),
        "coups": len(room.coups),
        "last": room.coups[-1] if room.coups else None,
        "scoreboard": results[-40:],
        "streak": {"side": side, "run": run},
        "round": {"predicted": len(guesses), **({} if room.hide_split else _split(guesses))},
        "last_split": _split(said),
        "counts": {r: results.count(r) for r in ("noir", "rouge", "apres", "refait", "void")},
        "exact": {
            "noir": odds.p_noir,
            "rouge": odds.p_rouge,
            "apres": odds.p_apres,
            "refait": odds.p_refait,
            "decided_half": 0.5,
            "model": f"first coup of a {room.rules.decks}-deck shoe, exact; of the decided coups each "
            "side wins exactly half whatever came before",
        },
        "pooled": pooled,
        "trap": trap,
        "leaders": board,
        "systems": systems,
        "fast": fast,
    }


__all__ = ["LEADERS", "public", "record", "student_public"]

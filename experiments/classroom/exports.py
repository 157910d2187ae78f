"""What a teacher downloads after the lesson: a table's coups and predictions as one JSON document
(student ids and names, never keys; the roster; the seed, shown only here; the fast-forward) and the
same predictions as a spreadsheet's CSV, one line each.

``trente-lab report`` reads the JSON document (:mod:`experiments.teaching.report`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from experiments.classroom.roster import Student
from experiments.streaks import side_of

if TYPE_CHECKING:
    from experiments.classroom.state import Classroom

#: The CSV's separators: a comma, a semicolon (a French spreadsheet reads ``;``) or a tab.
SEPARATORS = (",", ";", "\t")


def iso(at: float | None) -> str | None:
    """A time as ISO 8601 in UTC to the millisecond (None, or 0 for a session older than the times: None)."""
    if not at:
        return None
    from datetime import UTC, datetime

    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds")


def roster_rows(students: list[Student]) -> list[dict[str, Any]]:
    """Every student who joined: id, name, when they joined, whether and when they were removed."""
    return [{"id": s.id, "name": s.name, "joined": iso(s.joined), "removed": s.kicked,
             "removed_at": iso(s.removed)} for s in students]  # fmt: skip


def table_document(room: Classroom) -> dict[str, Any]:
    """The export of ``room``'s current table: its coups and predictions (student ids and names, not
    keys), the roster, the seed, the systems, the fast-forward, and which earlier tables were kept."""
    students = room.students
    fast = room.fast
    return {
        "preset": room.rules_name,
        "seed": str(room.seed),
        "table": room.table,
        "roster": roster_rows(students),
        "coups": [{**c, "at": iso(t)} for c, t in zip(room.coups, room.coup_times, strict=False)],
        "predictions": [
            [
                {"id": students[i].id, "name": students[i].name, "side": side, "sure": sure, "at": iso(t.get(i))}
                for i, (side, sure) in p.items()
            ]
            for p, t in zip(room.predictions, room.times, strict=False)
        ],
        "systems": [{"id": i + 1, "name": students[i].name, **room.books.seat_view(i)} for i in room.books.seats],
        "fast": None if fast is None else {**fast, "seed": str(fast.get("seed", ""))},
        "earlier_tables": [t.get("table") for t in room.tables],
    }


def csv_text(document: dict[str, Any], sep: str) -> str:
    """One line per prediction of an export ``document`` (:func:`table_document`): coup, when dealt,
    result, student id and name, side, sure, when predicted, right (empty on a tie); with a byte-order
    mark (a spreadsheet reads UTF-8) and ``sep`` (one of :data:`SEPARATORS`) between fields."""
    import csv
    import io

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


__all__ = ["SEPARATORS", "csv_text", "iso", "roster_rows", "table_document"]

"""The ruin rule, "money below the table minimum, nothing in prison", is written once
(``trente_env.croupier.is_ruined``) and every session loop calls it: the environment's tables, the
compiled sessions, both exact risk chains, the teaching table and the classroom's systems. A statement
that compares money with ``table_min`` and looks at the prisoners elsewhere is a second home of the rule."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from trente_env.croupier import is_ruined

ROOT = Path(__file__).resolve().parent.parent
#: Copies left, each with its reason (the list only shrinks).
ALLOWED: set[str] = set()


def _mentions_prison(node: ast.AST) -> bool:
    names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    names += [n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)]
    return any("prison" in name or name == "is_free" for name in names)


def _below_table_min(node: ast.AST) -> bool:
    for compare in (n for n in ast.walk(node) if isinstance(n, ast.Compare)):
        for op, right in zip(compare.ops, compare.comparators):
            name = right.attr if isinstance(right, ast.Attribute) else getattr(right, "id", "")
            if isinstance(op, ast.Lt) and name == "table_min":
                return True
    return False


def copies_of_the_rule(source: str) -> list[int]:
    """The lines of ``source`` whose statement writes the ruin rule out (outside ``is_ruined``)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "is_ruined":
            node.body = []  # the rule's home
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.Assign, ast.AugAssign, ast.Return, ast.While)):
            head = node.test if isinstance(node, (ast.If, ast.While)) else node
            if _below_table_min(head) and _mentions_prison(node):
                found.append(node.lineno)
    return found


def test_the_ruin_rule_is_written_once() -> None:
    copies = {}
    for package in ("trente_env", "strategies", "experiments"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            lines = copies_of_the_rule(path.read_text(encoding="utf-8"))
            if lines and name not in ALLOWED:
                copies[name] = lines
    assert copies == {}


def test_the_scan_finds_the_rule_written_out() -> None:
    assert copies_of_the_rule("if money < rules.table_min:\n    if is_free(prison):\n        stop()\n") == [1]
    assert copies_of_the_rule("ruined = (m < r.table_min) & (self.prison.sum() == 0)\n") == [1]
    assert copies_of_the_rule("if is_ruined(m, r.table_min, prison):\n    stop()\n") == []


@pytest.mark.parametrize(
    ("money", "prisoner", "ruined"),
    [(4.0, 0.0, True), (4.0, 5.0, False), (5.0, 0.0, False), (0.0, 0.0, True), (4.999, 0.0, True)],
)
def test_ruined_below_the_minimum_with_nothing_in_prison(money: float, prisoner: float, ruined: bool) -> None:
    prison = np.zeros((4, 2))
    prison[2, 1] = prisoner  # a prisoner anywhere, second prison included, keeps the session going
    assert is_ruined(money, 5.0, prison) is ruined


def test_a_seat_below_the_minimum_with_a_prisoner_pending_is_not_ruined_as_the_engine_says() -> None:
    """The room's ruin is the engine's rule (``trente_env.croupier.is_ruined``): a system whose money fell
    below the table minimum while its stake waits in prison plays on; on every coup after, the room's
    verdict is the engine's (a ruined seat stays ruined)."""
    from experiments.classroom.systems import Books
    from experiments.game.deal import coup_record
    from trente_env.dealer import Shoe
    from trente_env.rules import get_rules
    from trente_env.seeding import table_generator

    rules = get_rules("classic")
    shoe = Shoe(rules, table_generator(3, 0))
    coups = [coup_record(shoe.deal()) for _ in range(400)]
    refait = next(i for i, c in enumerate(coups) if c["result"] == "refait")
    books = Books(rules)
    for coup in coups[:refait]:
        books.step(coup)
    books.sit(0, "flat")
    books.money[0] = rules.table_min  # one stake left, which the flat system stakes on the refait
    books.step(coups[refait])
    assert books.money[0] < rules.table_min and books.prison[0].sum() == rules.table_min  # the edge case
    assert not books.ruined[0] and not is_ruined(books.money[0], rules.table_min, books.prison[0])
    for coup in coups[refait + 1 :]:
        was = bool(books.ruined[0])
        books.step(coup)
        assert books.ruined[0] == (was or is_ruined(books.money[0], rules.table_min, books.prison[0]))
    assert books.ruined[0]  # on these coups (seed 3) the prisoner is lost: nothing left, ruined

"""One home for the odds: every calculator of a coup's odds in ``trente_env/odds/``, on one walk over the
prefix states; the card counters in ``trente_env/counting/`` read them through public names only."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import numpy as np

from trente_env import odds
from trente_env.cards import composition
from trente_env.odds.first import row_odds
from trente_env.odds.prefixes import prefix_states, walk
from trente_env.odds.rows import noir_rows

ROOT = Path(odds.__file__).resolve().parent.parent.parent
PACKAGES = ("trente_env/odds", "trente_env/counting")
MAX_LINES = 600


def modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).glob("*.py"))


def test_no_module_of_the_odds_or_the_counters_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in modules() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_no_private_name_crosses_a_module_of_the_odds_or_the_counters():
    # compiled code included: a kernel another module calls has a public name
    crossing = []
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("trente_env"):
                crossing += [f"{path.name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    assert crossing == []


def test_one_function_is_called_shoe_odds():
    defined = [
        str(p.relative_to(ROOT))
        for package in ("trente_env", "strategies", "experiments")
        for p in (ROOT / package).rglob("*.py")
        if "def shoe_odds(" in p.read_text()
    ]
    assert defined == ["trente_env/odds/fast.py"]


def test_the_calculators_read_the_same_walk_bit_for_bit():
    # the first coup's calculator and the rows method of the exact odds take the same walk: the same
    # Noir rows with the same chances, to the last bit (so neither can drift from the other)
    pre = prefix_states()
    for shoe in (composition(1), np.array([1, 0, 2, 1, 0, 3, 1, 0, 2, 6])):
        row_p = np.zeros(len(pre.rows))
        totals = np.zeros(12)
        row_odds(shoe, pre.walked(), pre.row_total, row_p, totals)
        rows_p = np.zeros(len(pre.rows))
        void = noir_rows(shoe, int(shoe.sum()), pre.walked(), rows_p, np.zeros((len(pre.rows), 10)))
        assert rows_p.tobytes() == row_p.tobytes()
        assert void == totals[11]
        chance = np.empty(len(pre.counts))
        assert walk(shoe, int(shoe.sum()), pre.walked(), chance) == void


def test_every_row_of_a_full_shoe_ends():
    pre = prefix_states()
    row_p = np.zeros(len(pre.rows))
    totals = np.zeros(12)
    row_odds(composition(6), pre.walked(), pre.row_total, row_p, totals)
    # a full shoe never runs out during a row: every row ends, the rounding of ~63,000 terms aside
    assert totals[11] == 0.0
    assert abs(row_p.sum() - 1.0) < 1e-13 and abs(totals[:10].sum() - 1.0) < 1e-13


def test_the_rebuild_of_the_first_coup_cache_is_a_module_of_the_package():
    main = importlib.import_module("trente_env.odds.__main__")  # python -m trente_env.odds
    assert main.CACHE == odds.CACHE and callable(main.rebuild_cache)

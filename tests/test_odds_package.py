"""One home for the odds: every calculator of a coup's odds in ``trente_env/odds/``, on one walk over the
prefix states; the card counters in ``trente_env/counting/`` read them through public names only."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import numpy as np

from trente_env import odds
from trente_env.cards import composition
from trente_env.coup import REFAIT_TOTAL
from trente_env.odds.prefixes import end_rows, prefix_states, walk

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


def test_the_calculators_read_the_rows_that_end_from_one_kernel():
    # the first coup's calculator and the rows method of the exact odds read the rows that end from
    # end_rows, each asking for its own outputs: asking for more changes none of the others by a bit
    for module in ("first", "rows"):
        source = (ROOT / "trente_env/odds" / f"{module}.py").read_text()
        assert "end_rows(" in source and "walk(" not in source
    pre = prefix_states()
    n_rows = len(pre.rows)
    for shoe in (composition(1), np.array([1, 0, 2, 1, 0, 3, 1, 0, 2, 6])):
        deal = int(shoe.sum())
        alone = [np.zeros(n_rows), np.zeros((n_rows, 10)), np.zeros(12)]
        voids = [
            end_rows(shoe, deal, pre.walked(), pre.row_total, alone[0], np.zeros((0, 10)), np.zeros(0)),
            end_rows(shoe, deal, pre.walked(), pre.row_total, np.zeros(0), alone[1], np.zeros(0)),
            end_rows(shoe, deal, pre.walked(), pre.row_total, np.zeros(0), np.zeros((0, 10)), alone[2]),
        ]
        together = [np.zeros(n_rows), np.zeros((n_rows, 10)), np.zeros(12)]
        void = end_rows(shoe, deal, pre.walked(), pre.row_total, *together)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(alone, together, strict=True))
        assert voids == [void] * 3 and together[2][11] == 0.0  # the void is returned, not written
        chance = np.empty(len(pre.counts))
        assert walk(shoe, deal, pre.walked(), chance) == void
        # the outputs agree with one another: a row's chance is the sum over its first cards, and
        # the totals are the rows' chances gathered by total
        assert np.allclose(together[1].sum(1), together[0], rtol=1e-12, atol=0)
        by_total = np.bincount(pre.row_total - REFAIT_TOTAL, weights=together[0], minlength=10)
        assert np.allclose(by_total, together[2][:10], rtol=1e-12, atol=1e-300)
        cards = (together[0] * pre.rows.sum(1)).sum()
        assert abs(cards - together[2][10]) < 1e-12 * cards


def test_every_row_of_a_full_shoe_ends():
    pre = prefix_states()
    row_p = np.zeros(len(pre.rows))
    totals = np.zeros(12)
    shoe = composition(6)
    void = end_rows(shoe, int(shoe.sum()), pre.walked(), pre.row_total, row_p, np.zeros((0, 10)), totals)
    # a full shoe never runs out during a row: every row ends, the rounding of ~63,000 terms aside
    assert void == 0.0
    assert abs(row_p.sum() - 1.0) < 1e-13 and abs(totals[:10].sum() - 1.0) < 1e-13


def test_the_rebuild_of_the_first_coup_cache_is_a_module_of_the_package():
    main = importlib.import_module("trente_env.odds.__main__")  # python -m trente_env.odds
    assert main.CACHE == odds.CACHE and callable(main.rebuild_cache)

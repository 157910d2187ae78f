"""The gambler's fallacy table: streak counting, Wilson intervals, the seeded table against the exact
odds (with a count of misses that chance allows), the companion run of betting systems, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.stats import binomial_quantile, wilson
from experiments.streaks import _tally
from experiments.teaching.fallacy import compare_systems, fallacy_report, streak_table
from trente_env.odds import first_coup, house_edges
from trente_env.rules import get_rules

runner = CliRunner()


def _counts(sides: list[int], max_streak: int = 4) -> tuple[np.ndarray, tuple[int, int]]:
    counts = np.zeros((2, max_streak + 2, 2), dtype=np.int64)
    state = _tally(np.array(sides, dtype=np.int8), -1, 0, counts)
    return counts, state


def test_ties_neither_extend_nor_break_a_streak() -> None:
    # 0 0 (tie) 0 1: the third 0 comes after a streak of two 0s (the tie in between is skipped),
    # the 1 after a streak of three 0s; the first coup has no streak before it.
    counts, state = _counts([0, 0, -1, 0, 1])
    assert counts[0, 1, 0] == 1  # after one 0: a 0
    assert counts[0, 2, 0] == 1  # after two 0s (across the tie): a 0
    assert counts[0, 3, 1] == 1  # after three 0s: a 1
    assert counts.sum() == 3  # four decided coups, the first has no streak before it
    assert state == (1, 1)


def test_long_streaks_fall_in_the_last_bucket_and_state_carries_over() -> None:
    counts, _ = _counts([1] * 10, max_streak=3)
    assert counts[1, 1:4, 1].tolist() == [1, 1, 1] and counts[1, 4, 1] == 6
    rng = np.random.default_rng(0)
    sides = rng.integers(-1, 2, size=5000).astype(np.int8)
    whole = np.zeros((2, 7, 2), dtype=np.int64)
    _tally(sides, -1, 0, whole)
    split = np.zeros((2, 7, 2), dtype=np.int64)
    state = _tally(sides[:1234], -1, 0, split)
    _tally(sides[1234:], *state, split)
    assert np.array_equal(whole, split)


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)  # textbook value: 0.4038 to 0.5962
    assert low == pytest.approx(0.40383, abs=1e-5) and high == pytest.approx(0.59617, abs=1e-5)
    low, high = wilson(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12) and 0 < high < 0.31
    assert binomial_quantile(32, 0.05, 0.999) == 6  # P(X <= 5) = 0.99540, P(X <= 6) = 0.99913


def test_the_exact_column_is_one_half() -> None:
    odds = first_coup(6)
    assert odds.p_rouge / (odds.p_rouge + odds.p_noir) == pytest.approx(0.5, abs=1e-12)
    assert odds.p_rouge == pytest.approx(0.44520054, abs=1e-8)


def _misses(report: dict) -> int:
    return report["misses"]["missed"]


def test_seeded_table_misses_the_exact_value_only_as_often_as_chance_allows() -> None:
    # 2 families x 2 sides x K = 8 streak lengths: m = 32 intervals at 95%. The rows are disjoint sets
    # of coups and each outcome is independent of the streak that selects it, so the number of
    # misses is (close to) Binomial(32, 0.05): mean 1.6, and P(misses > 6) = 0.0009. An honest table
    # fails this test about once in a thousand seeds; a table with any real streak effect fails it
    # (see the next test).
    report = fallacy_report(get_rules("classic"), 1_000_000, 8, seed=2024, sessions=0)
    misses = report["misses"]
    assert misses["intervals"] == 32
    assert misses["limit_999"] == 6
    assert _misses(report) <= misses["limit_999"]
    for table in report["tables"]:
        assert table["exact"] == pytest.approx(0.5, abs=1e-12)
        base = table["rows"][0][f"after_{table['event']}"]
        # the baseline: ~890,000 decided coups, standard error 0.00053; 4 SE
        assert abs(base["frequency"] - 0.5) < 4 * 0.5 / np.sqrt(base["occasions"])
        for row in table["rows"][1:]:
            # a streak of exactly k of one side is followed by a decided coup about n / 2^(k+1) times
            n = row[f"after_{table['event']}"]["occasions"]
            assert n == pytest.approx(report["decided"] / 2 ** (row["k"] + 1), rel=0.15)


def test_the_miss_count_catches_a_streaky_game() -> None:
    # A game with memory: the side that won last wins again with probability 0.53. Fed the same
    # counting and intervals, the table misses 1/2 far more often than chance allows.
    rng = np.random.default_rng(1)
    n = 900_000
    flips = rng.random(n) < 0.47
    sides = np.zeros(n, dtype=np.int8)
    for i in range(1, n):  # a plain loop: 1 s
        sides[i] = sides[i - 1] ^ flips[i]
    counts = np.zeros((2, 10, 2), dtype=np.int64)
    _tally(sides, -1, 0, counts)
    table = streak_table(counts[::-1, :, ::-1], 8, "rouge", "noir", 0.5)  # side 0 is the event's side
    cells = [row[key] for row in table["rows"][1:] for key in ("after_rouge", "after_noir")]
    missed = sum(not c["contains_exact"] for c in cells)
    assert missed > binomial_quantile(len(cells), 0.05, 0.999)


def test_systems_on_the_same_shoes_lose_the_same_fraction() -> None:
    # 1,500 sessions of 300 coups; the flat bettor stakes ~450,000 coups (SE ~0.0015), the streak
    # players ~110,000 each (SE ~0.003). Each within 4 standard errors of -edge (a fair test fails
    # about 1 run in 5,000 per system).
    result = compare_systems(get_rules("classic"), sessions=1500, coups=300, seed=3)
    edge = house_edges(get_rules()).noir
    by_name = {s["spec"].split(":")[0]: s for s in result["systems"]}
    assert set(by_name) == {"streak", "anti-streak", "flat"}
    for s in result["systems"]:
        assert s["minus_edge"] == pytest.approx(-edge)
        assert abs(s["return_per_unit"] + edge) < 4 * s["se"]
        assert s["return_per_unit"] < 0
    # following and opposing the streak bet one unit on the very same coups; flat bets every coup
    assert by_name["streak"]["mean_staked"] == by_name["anti-streak"]["mean_staked"]
    assert by_name["flat"]["mean_staked"] == 300


def test_cli_json_and_plots(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "fallacy",
            "--coups",
            "200000",
            "--sessions",
            "200",
            "--session-coups",
            "50",
            "--json",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [t["event"] for t in doc["tables"]] == ["rouge", "couleur"]
    assert len(doc["tables"][0]["rows"]) == 9 and doc["systems"]["sessions"] == 200
    assert "decided" in doc["definition"]
    for name in ("fallacy.png", "systems.png", "fallacy.json"):
        assert (tmp_path / name).stat().st_size > 1000
    assert (tmp_path / "fallacy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_table_and_explanation() -> None:
    result = runner.invoke(app, ["fallacy", "--coups", "100000", "--max-streak", "4", "--sessions", "0"])
    assert result.exit_code == 0, result.output
    assert "How often Rouge wins" in result.output and "How often Couleur wins" in result.output
    assert "no memory" in result.output


def test_main_bets_has_no_couleur_table() -> None:
    report = fallacy_report(get_rules("main-bets"), 50_000, 3, seed=0, sessions=0)
    assert [t["event"] for t in report["tables"]] == ["rouge"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--coups", "0"], "'--coups' / '-n': Input should be greater than or equal to 1"),
        (["--max-streak", "0"], "'--max-streak' / '-k': Input should be greater than or equal to 1"),
        (["--rules", "nope"], "unknown rules preset"),
        (["--coups", "ten"], "valid integer"),
        (["--sessions", "-1"], "'--sessions': Input should be greater than or equal to 0"),
    ],
)
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["fallacy", *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("n_coups", "shard"), [(300, 1), (3_000, 7), (20_000, 3_000), (20_000, 20_000)])
def test_shards_joined_in_order_count_the_streaks_of_one_walk(n_coups: int, shard: int) -> None:
    # the reference walks every shard's coups in one go, the streak running on from one shard into
    # the next; the join must give the very same counts (shards of one coup: every shard's first
    # streak is all of it; of 7: streaks often span several shards)
    from experiments.backends import shard_generator, shard_sizes
    from experiments.streaks import FAMILIES, count_streaks
    from trente_env.codes import Result
    from trente_env.dealer import deal_coups

    rules, k = get_rules(), 4
    counts, decided, void = count_streaks(rules, n_coups, k, 9, shard=shard)
    walk = {event: np.zeros((2, k + 2, 2), dtype=np.int64) for event, _ in FAMILIES}
    state = {event: (-1, 0) for event, _ in FAMILIES}
    for i, n in enumerate(shard_sizes(n_coups, shard)):
        coups = deal_coups(rules, n, shard_generator(9, i))
        won = coups.result <= Result.ROUGE
        sides = {
            "rouge": np.where(won, coups.result == Result.NOIR.value, -1).astype(np.int8),
            "couleur": np.where(won, ~coups.couleur, -1).astype(np.int8),
        }
        for event, _ in FAMILIES:
            state[event] = _tally(sides[event], *state[event], walk[event])
    for event, _ in FAMILIES:
        assert np.array_equal(counts[event], walk[event]), event
        assert counts[event].sum() == decided - 1  # every decided coup but the first follows a streak
    assert void == 0

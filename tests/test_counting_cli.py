"""``trente-lab count``: every table in one JSON document, plots on request, bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.cli.count import Stop
from experiments.errors import LabError
from experiments.game.count import STOP_RULES, count_report
from trente_env.counting.counters import study_shoes
from trente_env.counting.removal import effects_of_removal
from trente_env.rules import get_rules

runner = CliRunner()


def test_the_command_line_offers_the_librarys_stop_rules():
    assert [s.value for s in Stop] == [s.value for s in STOP_RULES]


def test_the_json_document_holds_every_table_and_the_studys_numbers():
    result = runner.invoke(app, ["count", "--shoes", "30", "--seed", "4", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["removal"] == json.loads(json.dumps(effects_of_removal(get_rules("classic")).to_dict()))
    assert list(doc["stop_rules"]) == ["cut-card", "exhaustion", "dead-cards"]
    for name, rules in (("cut-card", "classic"), ("exhaustion", "exhaustion"), ("dead-cards", "dead-cards")):
        table = doc["stop_rules"][name]
        assert table["shoes"] == 30 and table["dead_cards"] == get_rules(rules).dead_cards
        # 30 shoes are one batch: the study of the batch's seed under the stop rule's rules, unchanged
        seed = int(np.random.SeedSequence(4).generate_state(1, np.uint64)[0])
        study = study_shoes(get_rules(rules), 30, seed)
        assert table["perfect"]["expected_gain_per_shoe"]["mean"] == pytest.approx(study.gain().mean, abs=1e-15)
        assert sum(table["depth"]["coups"]) == study.coups.sum()
    assert set(doc) >= {"rules", "description", "shoes", "seed", "dead_cards", "linear_count", "seconds"}


def test_shoes_dealt_to_the_end_give_the_counter_more_than_the_cut_card():
    # with 200 shoes the two 95% intervals (normal, over shoes) are far apart: the cut card leaves
    # the counter about 1e-4 a shoe, exhaustion about 8e-3 (phase A's 100,000-shoe figures)
    report = count_report(get_rules("classic"), 200, 1, stops=STOP_RULES[:2])
    cut, end = (report["stop_rules"][s]["perfect"]["expected_gain_per_shoe"] for s in ("cut-card", "exhaustion"))
    assert end["low"] > cut["high"]
    assert report["stop_rules"]["exhaustion"]["depth"]["favourable"][-1] == 0.0  # a full shoe: never


def test_the_same_seed_gives_the_same_numbers():
    # 260 shoes: two batches of the progress bar, each with its own seed of the seed sequence
    a, b = (
        count_report(get_rules("classic"), 260, 7, stops=(STOP_RULES[1],))["stop_rules"]["exhaustion"] for _ in range(2)
    )
    assert a.pop("seconds") > 0 and b.pop("seconds") > 0
    assert a == b and a["shoes"] == 260


def test_out_writes_the_document_and_two_plots(tmp_path: Path):
    result = runner.invoke(app, ["count", "--shoes", "20", "--stop", "exhaustion", "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    assert "Effects of removing one card" in result.stdout and "Gain per shoe" in result.stdout
    assert json.loads((tmp_path / "c" / "count.json").read_text())["shoes"] == 20
    for name in ("best-ev.png", "gain.png"):
        assert (tmp_path / "c" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dead-cards", "400"], "leave no cards"),
        (["--stop", "sometimes"], "sometimes"),
        (["--rules", "vegas"], "unknown rules preset"),
        (["--shoes", "0"], "--shoes"),
        (["--rules", "classic", "--dead-cards", "-1"], "--dead-cards"),
    ],
)
def test_bad_input_gets_one_line_and_exit_code_2(args: list[str], message: str):
    result = runner.invoke(app, ["count", *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and result.stderr.count("\n") == 1
    assert "Traceback" not in result.output


def test_a_table_minimum_above_one_unit_is_refused():
    with pytest.raises(ValueError, match="table minimum"):
        study_shoes(get_rules("classic", table_min=5), 1, 0)
    with pytest.raises(LabError, match="at least one stop rule"):
        count_report(get_rules("classic"), 1, 0, stops=())

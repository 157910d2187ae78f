"""``trente-lab strategies``: the list, one strategy in full, --json, and one-line errors."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from experiments.cli import app
from strategies import COUNTERS, STRATEGIES

runner = CliRunner()


def test_the_list_names_every_strategy() -> None:
    result = runner.invoke(app, ["strategies"])
    assert result.exit_code == 0, result.output
    for name in [*STRATEGIES, *COUNTERS]:
        assert name in result.stdout
    assert "double after a loss" in result.stdout


def test_the_json_list_has_descriptions_and_parameters() -> None:
    result = runner.invoke(app, ["strategies", "--json"])
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert set(doc["strategies"]) == set(STRATEGIES) | {"counter", "linear-counter"}
    assert doc["plugin_group"] == "trente_lab.strategies"
    labouchere = doc["strategies"]["labouchere"]
    params = {p["name"]: p for p in labouchere["params"]}
    assert params["line"]["default"] == [1, 2, 3, 4] and params["box"]["default"] == "noir"
    assert "refait" in params and "rules" not in params
    assert all(row["summary"] and row["doc"] for row in doc["strategies"].values())


def test_one_strategy_from_its_spec() -> None:
    result = runner.invoke(app, ["strategies", "martingale:base=2,box=rouge", "--json"])
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["spec"] == "martingale:base=2,box=rouge"
    assert doc["values"]["base"] == 2 and doc["values"]["box"] == "rouge"
    human = runner.invoke(app, ["strategies", "paroli"])
    assert human.exit_code == 0 and "let it ride" in human.stdout and "steps" in human.stdout


def test_a_bad_spec_is_one_line_and_exit_2() -> None:
    for args in (
        ["strategies", "martingle"],
        ["strategies", "martingale:bse=2"],
        ["strategies", "flat:base=abc"],
        ["strategies", "flat:box=couleur", "--rules", "main-bets"],
        ["strategies", "missing.zip"],
        ["strategies", "flat", "--rules", "nope"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("trente-lab: error:"), (args, result.output)
        assert "Traceback" not in result.output

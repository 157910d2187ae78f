"""``trente-lab tournament`` through the CLI: every option, the JSON document, resume, one-line errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.tournament.config import make_config
from experiments.tournament.runner import run_tournament
from trente_env.odds import house_edges
from trente_env.rules import get_rules

runner = CliRunner()
SMALL = ["--sessions", "20", "--coups", "10"]


def _invoke(*args: str):
    return runner.invoke(app, ["tournament", *args])


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_document(tmp_path):
    doc = _json(_invoke("--strategies", "flat,martingale:base=2,box=rouge", *SMALL, "--out", str(tmp_path), "--json"))
    assert list(doc["strategies"]) == ["flat", "martingale:base=2,box=rouge"]
    for row in doc["strategies"].values():
        assert {"return_per_unit", "ci_low", "ci_high", "edge"} <= set(row)
        assert row["ci_low"] <= row["return_per_unit"] <= row["ci_high"]
    assert doc["house_edge"] == pytest.approx(house_edges(get_rules("classic")).noir)
    assert doc["seed"] == 0 and doc["rules"] == "classic" and doc["rule_values"]["decks"] == 6
    assert doc["strategies"]["martingale:base=2,box=rouge"]["spec"] == "martingale:base=2,box=rouge"


def test_table_and_conclusion(tmp_path):
    result = _invoke("--strategies", "flat,never", *SMALL, "--out", str(tmp_path), "--no-plots")
    assert result.exit_code == 0, result.output
    assert "return/unit" in result.stdout and "flat" in result.stdout and "never" in result.stdout
    assert "Every system played the same 20 sessions" in result.stdout
    assert "Holm" in result.stdout
    assert not (tmp_path / "final_bankroll.png").exists()
    assert (tmp_path / "results.json").exists()


def test_every_option_reaches_the_run(tmp_path):
    doc = _json(
        _invoke(
            "--strategies",
            "flat",
            "--sessions",
            "12",
            "--coups",
            "7",
            "--bankroll",
            "50",
            "--unit",
            "2",
            "--rules",
            "partage",
            "--seed",
            "42",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "o"),
            "--json",
        )  # fmt: skip
    )
    assert doc["sessions"] == 12 and doc["coups"] == 7 and doc["bankroll"] == 50 and doc["unit"] == 2
    assert doc["rules"] == "partage" and doc["seed"] == 42
    assert doc["strategies"]["flat"]["spec"] == "flat:base=2"
    assert doc["strategies"]["flat"]["total_staked"] == 12 * 7 * 2
    assert doc["house_edge"] == pytest.approx(house_edges(get_rules("partage")).noir)
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["config"]["seed"] == 42 and manifest["workers"] == 1


def test_same_numbers_as_the_plain_function(tmp_path):
    doc = _json(_invoke("--strategies", "paroli", *SMALL, "--seed", "3", "--out", str(tmp_path / "cli"), "--json"))
    plain = run_tournament(make_config("paroli", sessions=20, coups=10, seed=3), tmp_path / "fn", plots=False)
    assert doc["strategies"] == plain["strategies"]


def test_workers_option_gives_the_same_numbers(tmp_path):
    one = _json(
        _invoke("--strategies", "flat,paroli", *SMALL, "--workers", "1", "--out", str(tmp_path / "1"), "--json")
    )
    two = _json(
        _invoke("--strategies", "flat,paroli", *SMALL, "--workers", "2", "--out", str(tmp_path / "2"), "--json")
    )
    assert one["strategies"] == two["strategies"]


def test_config_file_and_cli_override(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text('[tournament]\nstrategies = "flat,paroli"\nsessions = 9\ncoups = 5\nseed = 8\n')
    doc = _json(_invoke("--config", str(path), "--coups", "6", "--out", str(tmp_path / "o"), "--json"))
    assert list(doc["strategies"]) == ["flat", "paroli"]
    assert doc["sessions"] == 9 and doc["coups"] == 6 and doc["seed"] == 8


def test_shipped_config_by_name(tmp_path):
    doc = _json(_invoke("--config", "quick", "--sessions", "10", "--coups", "5", "--out", str(tmp_path), "--json"))
    assert "martingale" in doc["strategies"] and doc["sessions"] == 10


def test_resume_option(tmp_path):
    config = make_config("flat,paroli", sessions=20, coups=10, block=5)
    whole = run_tournament(config, tmp_path / "whole", plots=False)
    from experiments.tournament.runner import TournamentInterrupted

    with pytest.raises(TournamentInterrupted):
        run_tournament(config, tmp_path / "cut", plots=False, max_tasks=3)
    doc = _json(_invoke("--resume", str(tmp_path / "cut"), "--no-plots", "--json"))
    assert doc["strategies"] == whole["strategies"]


def _one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("trente-lab: error:")
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--strategies", "martingail"], ("unknown strategy", "martingale")),
        (["--strategies", "flat:bogus=1"], ("no parameter",)),
        (["--sessions", "0"], ("--sessions", "greater than or equal to 1")),
        (["--sessions", "-5"], ("sessions",)),
        (["--sessions", "many"], ("--sessions",)),
        (["--coups", "0"], ("--coups", "greater than or equal to 1")),
        (["--bankroll", "0.5"], ("Invalid value for '--bankroll'", "greater than or equal to 1")),
        (["--bankroll", "abc"], ("--bankroll",)),
        (["--unit", "0"], ("unit",)),
        (["--rules", "vegas"], ("unknown rules preset",)),
        (["--seed", "-1"], ("seed",)),
        (["--workers", "0"], ("workers",)),
        (["--config", "no-such-config"], ("no config file",)),
        (["--strategies", "agent.zip"], ("model file", "does not exist")),
        (["--strategies", "model:missing.zip"], ("model file", "does not exist")),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, fragments):
    _one_line_error(_invoke(*args, "--out", str(tmp_path / "o")), *fragments)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[tournament\nsessions = ", "malformed config"),
        ("[tournament]\nsessions = 0\n", "sessions must be at least 1"),
        ("[tournament]\nspeed = 3\n", "unknown key"),
        ('[tournament]\nstrategies = ["nope"]\n', "unknown strategy"),
        ("[tournament]\nbankroll = 0.1\n", "below the table minimum"),
        ('[tournament]\nsessions = "ten"\n', "sessions must be a whole number"),
        ("[tournament]\nstrategies = [3]\n", "a strategy is a spec string"),
        ("[tournament]\nworkers = 0\n", "workers must be"),
        ("[tournament.table]\ndecks = 0\n", "decks must be between 1 and 8"),
        ("[tournament.table]\nwheels = 2\n", "wheels"),
        ('[[strategy]]\nname = "martingail"\n', "unknown strategy"),
    ],
)
def test_bad_config_file_is_one_line_and_exit_2(tmp_path, text, fragment):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    _one_line_error(_invoke("--config", str(path), "--out", str(tmp_path / "o")), fragment)


def test_resume_errors(tmp_path):
    _one_line_error(_invoke("--resume", str(tmp_path / "nothing")), "nothing to resume")
    run_tournament(make_config("flat", sessions=3, coups=3), tmp_path / "done", plots=False)
    _one_line_error(_invoke("--resume", str(tmp_path / "done"), "--sessions", "5"), "drop --sessions")


def test_out_holding_another_run_is_refused(tmp_path):
    assert _invoke("--strategies", "flat", *SMALL, "--out", str(tmp_path), "--no-plots").exit_code == 0
    _one_line_error(_invoke("--strategies", "paroli", *SMALL, "--out", str(tmp_path)), "another tournament")


def test_help_lists_the_options():
    result = runner.invoke(app, ["tournament", "--help"])
    assert result.exit_code == 0
    for option in ("--strategies", "--sessions", "--coups", "--bankroll", "--unit", "--rules", "--seed",
                   "--workers", "--out", "--json", "--config", "--resume"):  # fmt: skip
        assert option in result.stdout


def test_ctrl_c_says_how_to_resume(tmp_path, monkeypatch):
    import experiments.tournament.runner as tournament

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament, "run_task", interrupted)
    result = _invoke("--strategies", "flat", *SMALL, "--out", str(tmp_path / "o"))
    assert result.exit_code == 130
    assert "interrupted" in result.output and f"--resume {tmp_path / 'o'}" in result.output
    assert "Traceback" not in result.output

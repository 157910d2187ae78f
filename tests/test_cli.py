"""The command line: machine-readable output that later tools parse, and one-line errors."""

import json

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from trente_env.codes import Result
from trente_env.rules import PRESETS, get_rules

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def run_json(*args: str):
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_no_arguments_shows_help():
    result = run()
    assert result.exit_code == 0
    for command in ("edge", "simulate", "deal", "presets"):
        assert command in result.output


def test_edge_json_has_the_documented_keys_as_fractions():
    doc = run_json("edge")
    assert list(doc["p_total"]) == [str(t) for t in range(31, 41)]
    assert abs(doc["p_total"]["31"] - 0.14805778) < 1e-7
    assert abs(doc["p_refait"] - 0.02189137) < 1e-7
    assert abs(doc["p_apres"] - 0.08770754) < 1e-7
    assert set(doc["house_edge"]) == {"noir", "rouge", "couleur", "inverse"}
    assert abs(doc["house_edge"]["noir"] - 0.011208) < 5e-7
    assert abs(doc["insured_edge"] - 0.01) < 1e-9


def test_edge_follows_the_rules_and_deck_options():
    assert abs(run_json("edge", "--rules", "partage")["house_edge"]["rouge"] - 0.010946) < 5e-7
    assert set(run_json("edge", "--rules", "main-bets")["house_edge"]) == {"noir", "rouge"}
    two = run_json("edge", "--decks", "2")
    assert two["decks"] == 2 and two["p_refait"] != run_json("edge")["p_refait"]
    assert run_json("edge", "--rules", "family")["insured_edge"] is None


def test_edge_table_for_every_preset():
    result = run("edge", "--rules", "all")
    assert result.exit_code == 0
    for name in PRESETS:
        assert name in result.stdout
    assert "1.1208%" in result.stdout and "1.0946%" in result.stdout
    assert set(run_json("edge", "--rules", "all")) == set(PRESETS)


def test_edge_human_output_shows_the_edges():
    result = run("edge")
    assert result.exit_code == 0
    assert "refait (31-31)" in result.stdout and "1.1208%" in result.stdout and "insured stake" in result.stdout


def test_simulate_reports_observed_beside_exact_with_z_scores():
    doc = run_json("simulate", "--coups", "20000", "--seed", "3")
    assert doc["coups"] == 20_000 and doc["seed"] == 3 and doc["coups_per_second"] > 0
    refait = doc["first_coups"]["refait"]  # the first coups of shoes beside the first coup's exact odds
    assert abs(refait["exact"] - 0.02189137) < 1e-7
    assert refait["z"] == pytest.approx((refait["observed"] - refait["exact"]) / refait["se"])
    whole = doc["frequencies"]["refait"]  # whole shoes beside the rates expected over whole shoes
    both = (whole["se"] ** 2 + whole["expected_se"] ** 2) ** 0.5
    assert whole["z"] == pytest.approx((whole["observed"] - whole["expected"]) / both)
    # same seed, same coups
    assert run_json("simulate", "--coups", "20000", "--seed", "3")["frequencies"] == doc["frequencies"]


def test_simulate_adds_up_its_shards_each_dealt_from_its_own_stream(monkeypatch):
    from experiments.backends import shard_generator
    from experiments.game import simulate
    from trente_env.dealer import TALLY_RESULTS, tally_coups

    rules = get_rules("exhaustion")
    one, void = simulate.count_outcomes(rules, 25_000, 6)  # one shard: the root seed's stream, as ever
    assert one["refait"] + one["après"] + one["noir wins"] + one["rouge wins"] + void == 25_000
    assert void == tally_coups(rules, 25_000, 6)[TALLY_RESULTS + 2 * Result.VOID]
    monkeypatch.setattr(simulate, "SHARD", 10_000)  # three shards: 10,000, 10,000 and 5,000 coups
    three, void = simulate.count_outcomes(rules, 25_000, 6)
    tallies = sum(tally_coups(rules, n, shard_generator(6, i)) for i, n in enumerate((10_000, 10_000, 5_000)))
    assert void == tallies[TALLY_RESULTS + 2 * Result.VOID]
    assert three["refait"] == tallies[TALLY_RESULTS + 2 * Result.REFAIT] and three != one


def test_simulate_counts_void_coups_when_dealt_to_exhaustion():
    doc = run_json("simulate", "--rules", "exhaustion", "--coups", "10000")
    assert doc["void_coups"] > 0
    human = run("simulate", "--coups", "5000")
    assert human.exit_code == 0 and "coups per second" in human.stdout


def test_deal_shows_the_croupiers_layout_and_json():
    result = run("deal", "--coups", "3", "--seed", "1")
    assert result.exit_code == 0
    assert result.stdout.count("Noir") == 3 and "«" in result.stdout
    coups = run_json("deal", "--coups", "3", "--seed", "1")
    assert len(coups) == 3
    for coup in coups:
        assert coup["result"] in {"noir", "rouge", "apres", "refait"}
        assert coup["announcement"] in result.stdout
        assert len(coup["noir_cards"]) >= 4 and coup["noir_cards"][0][-1] in "♠♥♦♣"


def test_presets_lists_every_preset():
    doc = run_json("presets")
    assert set(doc) == set(PRESETS) | {f"rigged-{name}" for name in PRESETS}
    assert not any(doc[name]["positive_control"] for name in PRESETS)
    assert doc["rigged-classic"]["positive_control"] and "POSITIVE CONTROL" in doc["rigged-classic"]["note"]
    assert doc["rigged-classic"]["options"]["noir_after_noir"] == 1.5
    assert doc["family"]["options"]["decks"] == 2
    assert "lenient-couleur" in run("presets").stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("edge", "--rules", "vegas"), "unknown rules preset 'vegas'"),
        (("edge", "--decks", "0"), "'--decks': Input should be greater than or equal to 1"),
        (("edge", "--decks", "9"), "'--decks': Input should be less than or equal to 8"),
        (("simulate", "--coups", "-5"), "'--coups' / '-n': Input should be greater than or equal to 1"),
        (("simulate", "--coups", "lots"), "--coups"),
        (("deal", "--coups", "-1"), "'--coups' / '-n': Input should be greater than or equal to 0"),
        (("deal", "--rules", "nope"), "unknown rules preset"),
        (("simulate", "--frobnicate"), "No such option"),
        (("simulate", "--cut-card", "400"), "cut card 400 and burn 0 leave no cards to deal from a 312-card shoe"),
        (("deal", "--decks", "1"), "cut card 52 and burn 0 leave no cards to deal from a 52-card shoe"),
        (("simulate", "--cut-card", "-3"), "'--cut-card': Input should be greater than or equal to 0"),
    ],
)
def test_bad_input_gets_one_line_and_exit_code_2(args, message):
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_deck_and_cut_card_options_change_the_shoe():
    coups = run_json("deal", "--decks", "1", "--cut-card", "10", "--coups", "4")
    assert any(c["reshuffle_after"] for c in coups)  # 42 cards to deal: the cut card comes out by coup 4
    assert run_json("simulate", "--decks", "2", "--cut-card", "0", "--coups", "2000")["void_coups"] > 0


def test_the_script_is_the_app_with_fewer_full_collections_and_an_exit_that_skips_them(monkeypatch, capsys):
    # `trente-lab` (and `python -m experiments.cli`) call `run`: the app's own output and exit code,
    # with the process's thresholds set and every object frozen at the end, so that the interpreter's
    # exit does not walk numba's registries again (benchmarks/bench_startup.py measures the gain)
    import gc
    import sys
    import tomllib
    from pathlib import Path

    from experiments.cli import GC_THRESHOLDS
    from experiments.cli import run as script

    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["trente-lab"] == "experiments.cli:run"
    thresholds = gc.get_threshold()
    try:
        for argv, code in ((["edge", "--json"], 0), (["edge", "--decks", "0"], 2)):
            monkeypatch.setattr(sys, "argv", ["trente-lab", *argv])
            gc.unfreeze()
            with pytest.raises(SystemExit) as exited:
                script()
            assert exited.value.code == code
            assert gc.get_threshold() == GC_THRESHOLDS
            assert gc.get_freeze_count() > 0
            out = capsys.readouterr()
            if code == 0:
                assert json.loads(out.out)["decks"] == 6
            else:
                assert out.out == "" and out.err.startswith("trente-lab: error:")
    finally:  # the test process's collector as it was
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_simulate_as_json_never_loads_rich():
    # `simulate --json` draws nothing: rich (the tables, the progress bar) is loaded only to draw
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys; from experiments.cli import app; sys.argv = ['trente-lab', 'simulate', '-n', '3000', '--json']\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.partition('.')[0] == 'rich'), file=sys.stderr)"
    )
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert json.loads(done.stdout)["coups"] == 3000, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == "[]"
    assert "Dealt" in run("simulate", "--coups", "3000").output  # the table and its lines still drawn


@pytest.mark.parametrize(
    ("preset", "digest"),
    [
        ("classic", "f265070f7c291a8a9246d3b4dfbfa4ea6c5491464b3256fa37914e8e38f9f646"),
        ("dead-cards", "5b38b4de5ec6586d678a0bbea5b0e613e55c016d7de08c4eed47167dd99e26eb"),
    ],
)
def test_simulate_counts_the_same_coups_as_before_its_dealer_was_made_faster(monkeypatch, preset, digest):
    # digests of (counts, void coups) written by the code before issue 16's changes to the tally
    # (per-shoe rows summed by numpy): 250,000 coups in four shards of 70,000, seed 7
    import hashlib

    from experiments.game import simulate
    from experiments.rules import load_rules

    monkeypatch.setattr(simulate, "SHARD", 70_000)
    counts = simulate.count_outcomes(load_rules(preset), 250_000, 7)
    assert hashlib.sha256(json.dumps(list(counts), sort_keys=True, ensure_ascii=False).encode()).hexdigest() == digest

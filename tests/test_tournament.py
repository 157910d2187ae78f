"""The tournament runner: hand-checkable totals, common random numbers, determinism, workers, resume."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest

from experiments.errors import TournamentError
from experiments.tournament.checkpoints import Checkpoints, DamagedBlock, run_identity, task_path
from experiments.tournament.config import make_config, read_config_file, shipped_configs, split_strategies
from experiments.tournament.output import RUN_KEYS, read_sessions, sessions_file
from experiments.tournament.runner import TournamentInterrupted, collect, resume_tournament, run_tournament
from strategies.registry import LINEUP
from strategies.runner import SESSION_FIELDS, session_seed
from trente_env.env import TrenteEtQuaranteEnv
from trente_env.odds import house_edges
from trente_env.rules import get_rules

TIMING_KEYS = ("seconds", "session_coups_per_second", "out")


def _numbers(document: dict) -> dict:
    """A results document without what legitimately differs between runs (timings, folder)."""
    return {k: v for k, v in document.items() if k not in TIMING_KEYS}


def _sessions_bytes(folder: Path) -> bytes:
    """The bytes of the per-session table (Parquet or gzip-compressed CSV, as installed)."""
    return (folder / sessions_file()).read_bytes()


def _reference_session(seed: int, coups: int, stake: int = 1, box: int = 0, bankroll: float = 1000.0) -> dict:
    """One session of flat betting played by hand on the single environment, prisoners settled after."""
    env = TrenteEtQuaranteEnv(bankroll=bankroll, coup_info=True)
    obs, _ = env.reset(seed=seed)
    action = np.zeros(12, dtype=np.int64)
    action[box] = stake
    rewards, staked = [], 0.0
    for _ in range(coups):
        obs, reward, terminated, _, info = env.step(action)
        rewards.append(reward)
        staked += float(info["stakes"].sum())
        if terminated:
            break
    while np.asarray(obs["prison"]).any():  # the prisoner settles, no new stake
        obs, reward, *_ = env.step(np.zeros(12, dtype=np.int64))
        rewards.append(reward)
    money = bankroll + np.cumsum(rewards)
    drawdown = float(
        np.max(np.maximum.accumulate(np.concatenate([[bankroll], money])) - np.concatenate([[bankroll], money]))
    )
    run = longest = 0
    for r in rewards:
        run = run + 1 if r < 0 else (0 if r > 0 else run)
        longest = max(longest, run)
    return {"net": float(sum(rewards)), "staked": staked, "drawdown": drawdown, "longest": longest}


def test_flat_noir_totals_match_the_env_by_hand(tmp_path):
    config = make_config("flat,never", sessions=3, coups=5, seed=11, block=2)
    doc = run_tournament(config, tmp_path, plots=False)
    sessions = read_sessions(tmp_path)
    flat = sessions["flat"]
    expected = [_reference_session(session_seed(11, i), 5) for i in range(3)]
    assert flat["net"].tolist() == pytest.approx([e["net"] for e in expected])
    assert flat["staked"].tolist() == [5.0, 5.0, 5.0] == [e["staked"] for e in expected]
    assert flat["coups"].tolist() == [5, 5, 5]
    assert flat["max_drawdown"].tolist() == pytest.approx([e["drawdown"] for e in expected])
    assert flat["longest_losing_run"].tolist() == [e["longest"] for e in expected]
    assert flat["final_bankroll"].tolist() == pytest.approx([1000 + e["net"] for e in expected])
    row = doc["strategies"]["flat"]
    total_net = sum(e["net"] for e in expected)
    assert row["total_staked"] == 15.0
    assert row["net"] == pytest.approx(total_net)
    assert row["return_per_unit"] == pytest.approx(total_net / 15.0)
    assert row["edge"] == pytest.approx(house_edges(get_rules("classic")).noir)
    never = doc["strategies"]["never"]
    assert never["total_staked"] == 0 and never["net"] == 0 and never["return_per_unit"] is None
    assert never["verdict"] == "no stakes" and never["p_ahead"] == 0.0 and never["mean_final_bankroll"] == 1000.0


def test_session_seed_is_the_spawned_child():
    children = np.random.SeedSequence(5).spawn(4)
    for i, child in enumerate(children):
        words = child.generate_state(2, np.uint64)
        assert session_seed(5, i) == int(words[0]) | (int(words[1]) << 64)
    assert len({session_seed(5, i) for i in range(100)}) == 100


def test_common_random_numbers_noir_and_rouge_mirror_each_other(tmp_path):
    # Same shoes: on every decided coup Noir wins what Rouge loses, so the two flat bettors' nets
    # add up to minus what the refaits took (never positive), and to exactly 0 without a refait.
    config = make_config("flat,flat:box=rouge", sessions=200, coups=30, seed=3)
    run_tournament(config, tmp_path, plots=False)
    s = read_sessions(tmp_path)
    total = s["flat"]["net"] + s["flat:box=rouge"]["net"]
    assert (total <= 1e-9).all()
    assert (np.abs(total) < 1e-9).mean() > 0.3  # P(no refait in 30 coups) = 0.978^30 ~ 0.51
    assert (total < 0).any()
    assert np.array_equal(s["flat"]["staked"], s["flat:box=rouge"]["staked"])


def test_martingale_books_table_max_hits_and_bankroll_limits(tmp_path):
    # A table maximum of 8 units stops a base-1 martingale after 4 losses in a row.
    config = make_config("martingale", sessions=300, coups=60, seed=1, rule_changes={"table_max": 8})
    doc = run_tournament(config, tmp_path, plots=False)
    row = doc["strategies"]["martingale"]
    assert row["table_max_hits"] > 0 and 0 < row["sessions_with_table_max_hit"] < 1
    s = read_sessions(tmp_path)["martingale"]
    assert row["table_max_hits"] == int(s["table_max_hits"].sum())
    assert (s["staked"] <= 8 * s["coups"]).all()


def test_ruin_ends_the_session(tmp_path):
    # 20 units and a grand martingale: many sessions are ruined before 200 coups.
    config = make_config("grand-martingale", sessions=200, coups=200, bankroll=20, seed=2)
    doc = run_tournament(config, tmp_path, plots=False)
    s = read_sessions(tmp_path)["grand-martingale"]
    ruined = s["ruined"]
    assert ruined.any() and doc["strategies"]["grand-martingale"]["p_ruin"] == pytest.approx(ruined.mean())
    assert (s["final_bankroll"][ruined] < 1).all()
    assert (s["coups"][ruined] < 200).any()
    assert (s["final_bankroll"] >= 0).all()


def test_walk_away_ends_the_session(tmp_path):
    config = make_config("flat:stop_win=3,stop_loss=3", sessions=100, coups=400, seed=4)
    doc = run_tournament(config, tmp_path, plots=False)
    s = read_sessions(tmp_path)["flat:stop_win=3,stop_loss=3"]
    assert s["walked"].mean() > 0.9 and doc["strategies"]["flat:stop_win=3,stop_loss=3"]["p_walked"] > 0.9
    assert (s["coups"][s["walked"]] < 400).all()
    assert (np.abs(s["net"][s["walked"]]) >= 3).all()


def test_same_seed_same_numbers_and_block_size_does_not_matter(tmp_path):
    specs = "flat,martingale,labouchere,streak,never"
    a = run_tournament(make_config(specs, sessions=40, coups=25, seed=9, block=40), tmp_path / "a", plots=False)
    b = run_tournament(make_config(specs, sessions=40, coups=25, seed=9, block=40), tmp_path / "b", plots=False)
    c = run_tournament(make_config(specs, sessions=40, coups=25, seed=9, block=7), tmp_path / "c", plots=False)
    d = run_tournament(make_config(specs, sessions=40, coups=25, seed=10, block=40), tmp_path / "d", plots=False)
    assert _numbers(a) == _numbers(b)
    assert a["strategies"] == c["strategies"]
    assert _sessions_bytes(tmp_path / "a") == _sessions_bytes(tmp_path / "b")
    assert _sessions_bytes(tmp_path / "a") == _sessions_bytes(tmp_path / "c")
    assert a["strategies"]["flat"]["net"] != d["strategies"]["flat"]["net"]


def test_workers_1_and_2_give_identical_numbers(tmp_path):
    config = make_config("flat,martingale,random,paroli", sessions=60, coups=30, seed=5, block=15)
    one = run_tournament(config, tmp_path / "one", workers=1, plots=False)
    two = run_tournament(config, tmp_path / "two", workers=2, plots=False)
    assert _numbers(one) == _numbers(two)
    assert _sessions_bytes(tmp_path / "one") == _sessions_bytes(tmp_path / "two")
    for name in ("results.csv", "trajectories.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_resume_after_an_interruption_equals_an_uninterrupted_run(tmp_path):
    config = make_config("flat,martingale,random", sessions=50, coups=20, seed=6, block=10)
    whole = run_tournament(config, tmp_path / "whole", plots=False)
    with pytest.raises(TournamentInterrupted) as stop:
        run_tournament(config, tmp_path / "cut", plots=False, max_tasks=2)
    assert stop.value.done == 2 and stop.value.total == 5  # 5 blocks of the 3 systems, played together
    manifest = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["tasks_done"] == 2
    assert not (tmp_path / "cut" / "results.json").exists()
    with pytest.raises(TournamentInterrupted) as stop:  # a second interruption, then the end
        resume_tournament(tmp_path / "cut", plots=False, max_tasks=2)
    assert stop.value.done == 4
    done = resume_tournament(tmp_path / "cut", plots=False)
    assert _numbers(done) == _numbers(whole)
    assert _sessions_bytes(tmp_path / "cut") == _sessions_bytes(tmp_path / "whole")
    assert json.loads((tmp_path / "cut" / "manifest.json").read_text())["complete"] is True


def test_a_damaged_checkpoint_is_played_again(tmp_path):
    config = make_config("flat", sessions=20, coups=10, seed=2, block=10)
    whole = run_tournament(config, tmp_path, plots=False, keep_blocks=True)
    task_path(tmp_path, 1, 0).write_bytes(b"not a zip file")
    with pytest.raises(DamagedBlock, match="cannot be read"):
        Checkpoints(tmp_path, config, run_identity(config)).load(1, 0)
    again = resume_tournament(tmp_path, plots=False)
    assert _numbers(again) == _numbers(whole)


def test_out_holding_another_tournament_is_refused(tmp_path):
    run_tournament(make_config("flat", sessions=5, coups=5), tmp_path, plots=False)
    with pytest.raises(TournamentError, match="another tournament"):
        run_tournament(make_config("flat", sessions=6, coups=5), tmp_path, plots=False)


def test_files_and_their_schema(tmp_path):
    config = make_config("flat,martingale,never", sessions=30, coups=15, seed=1, trajectories=10)
    doc = run_tournament(config, tmp_path)
    names = {p.name for p in tmp_path.iterdir()}
    expected = {"manifest.json", "results.json", "results.csv", sessions_file(), "trajectories.csv"}
    assert expected | {"final_bankroll.png", "ahead_vs_return.png", "trajectories.png"} <= names
    assert "blocks" not in names  # removed once the run is complete
    assert not [n for n in names if n.endswith(".tmp")]
    for png in ("final_bankroll.png", "ahead_vs_return.png", "trajectories.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = json.loads((tmp_path / "results.json").read_text())
    # the run's time and folder are the manifest's: results.json is the same wherever it was played
    assert results == json.loads(json.dumps({k: v for k, v in doc.items() if k not in RUN_KEYS}))
    assert not set(RUN_KEYS) & set(results) and set(RUN_KEYS) <= set(doc)
    for key in ("rules", "seed", "house_edge", "house_edges", "strategies", "order", "conclusion", "correction"):
        assert key in results
    for row in results["strategies"].values():
        for key in ("return_per_unit", "ci_low", "ci_high", "edge", "verdict", "p_ahead", "p_ruin", "table_max_hits"):
            assert key in row
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["complete"] and manifest["config"]["seed"] == 1 and "git_commit" in manifest
    assert manifest["seconds"] == doc["seconds"] and manifest["backend"] == "local"
    assert set(manifest["files"]) == names - {".lock"}  # every file, and only files, listed
    assert manifest["sizes"] == {n: (tmp_path / n).stat().st_size for n in manifest["files"] if n != "manifest.json"}
    assert manifest["blocks_kept"] is False
    assert manifest["config"]["rule_values"]["decks"] == 6
    sessions = read_sessions(tmp_path)
    assert list(sessions) == ["flat", "martingale", "never"]
    assert all(set(s) == set(SESSION_FIELDS) and s["net"].size == 30 for s in sessions.values())
    trajectories = (tmp_path / "trajectories.csv").read_text().splitlines()
    assert len(trajectories) == 1 + 3 * 16
    results_csv = (tmp_path / "results.csv").read_text().splitlines()
    assert results_csv[0].startswith("strategy,spec,") and len(results_csv) == 4


def test_keep_blocks_keeps_them_and_a_resume_checks_them(tmp_path):
    config = make_config("flat,martingale", sessions=30, coups=15, seed=1, trajectories=10, block=10)
    doc = run_tournament(config, tmp_path, plots=False, keep_blocks=True)
    assert sorted(p.name for p in (tmp_path / "blocks").iterdir()) == [
        task_path(tmp_path, b, s).name for b in range(3) for s in range(2)
    ]
    assert json.loads((tmp_path / "manifest.json").read_text())["blocks_kept"] is True
    assert collect(config, tmp_path)["flat"]["trajectories"].shape == (10, 16)
    assert _numbers(resume_tournament(tmp_path, plots=False, keep_blocks=True)) == _numbers(doc)


def test_resume_of_a_complete_run_without_blocks_says_so_in_one_line(tmp_path, capsys):
    config = make_config("flat,martingale", sessions=20, coups=10, seed=3, block=10)
    doc = run_tournament(config, tmp_path, plots=False)
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir() if p.name != ".lock"}
    capsys.readouterr()
    again = resume_tournament(tmp_path, plots=False)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and "complete run whose block files were removed" in lines[0] and "results.json" in lines[0]
    assert again == json.loads(json.dumps(doc))  # its results.json, as written
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir() if p.name != ".lock"} == before  # untouched
    (tmp_path / "results.json").write_text(json.dumps({**doc, "seed": 4}))
    with pytest.raises(TournamentError, match="not the results of the run its manifest describes"):
        resume_tournament(tmp_path, plots=False)


def test_a_resume_judges_with_the_runs_own_delta_unless_told_and_refuses_a_new_one_without_blocks(tmp_path):
    # the margin changes only the verdicts: a resume without --delta keeps the run's own; a complete run whose
    # blocks are gone cannot be judged again, so another margin is refused instead of silently ignored
    config = make_config("flat,martingale", sessions=20, coups=10, seed=3, block=10)
    kept = run_tournament(config, tmp_path / "kept", plots=False, keep_blocks=True, delta=0.02)
    assert json.loads((tmp_path / "kept" / "manifest.json").read_text())["delta"] == 0.02
    assert resume_tournament(tmp_path / "kept", plots=False, keep_blocks=True)["correction"]["delta"] == 0.02
    assert kept["correction"]["delta"] == 0.02
    again = resume_tournament(tmp_path / "kept", plots=False, keep_blocks=True, delta=0.03)
    assert again["correction"]["delta"] == 0.03
    estimates = [{k: (row["return_per_unit"], row["se"]) for k, row in d["strategies"].items()} for d in (again, kept)]
    assert estimates[0] == estimates[1]  # the same sessions, judged at another margin
    run_tournament(config, tmp_path / "gone", plots=False, delta=0.02)
    assert resume_tournament(tmp_path / "gone", plots=False, delta=0.02)["correction"]["delta"] == 0.02
    with pytest.raises(TournamentError, match="judged with --delta 2.00%.*cannot be judged again with --delta 3.00%"):
        resume_tournament(tmp_path / "gone", plots=False, delta=0.03)


def test_the_per_session_table_is_the_same_in_parquet_and_in_gzip_csv(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow")
    from experiments.tournament import output

    config = make_config("flat,martingale:box=rouge,never", sessions=25, coups=12, seed=7)
    run_tournament(config, tmp_path / "parquet", plots=False)
    monkeypatch.setattr(output, "sessions_file", lambda: output.CSV_GZ)  # as without pyarrow
    run_tournament(config, tmp_path / "csv", plots=False)
    assert (tmp_path / "parquet" / output.PARQUET).is_file() and (tmp_path / "csv" / output.CSV_GZ).is_file()
    parquet, text = read_sessions(tmp_path / "parquet"), read_sessions(tmp_path / "csv")
    assert list(parquet) == list(text) == list(config.strategies)
    for label in parquet:
        for name in SESSION_FIELDS:
            assert parquet[label][name].dtype == text[label][name].dtype, name
            np.testing.assert_allclose(parquet[label][name], text[label][name], rtol=0, atol=5e-7)  # CSV: 6 decimals
    with gzip.open(tmp_path / "csv" / output.CSV_GZ, "rt") as f:
        header = f.readline().strip()
    assert header == "strategy,session," + ",".join(SESSION_FIELDS)


def test_unit_is_the_default_base(tmp_path):
    config = make_config("flat,flat:base=3", sessions=4, coups=5, unit=2)
    assert config.specs == ("flat:base=2", "flat:base=3")
    doc = run_tournament(config, tmp_path, plots=False)
    assert doc["strategies"]["flat"]["total_staked"] == 4 * 5 * 2
    assert doc["strategies"]["flat:base=3"]["total_staked"] == 4 * 5 * 3


def test_edge_follows_the_rules_and_the_boxes(tmp_path):
    config = make_config("flat,flat:box=couleur", sessions=10, coups=10, rules=get_rules("lenient-couleur"))
    doc = run_tournament(config, tmp_path, plots=False)
    edges = house_edges(get_rules("lenient-couleur"))
    assert doc["strategies"]["flat"]["edge"] == pytest.approx(edges.noir)
    assert doc["strategies"]["flat:box=couleur"]["edge"] == pytest.approx(edges.couleur)
    assert doc["house_edge"] == pytest.approx(edges.noir)


def test_split_strategies():
    assert split_strategies("flat,martingale:base=2,box=rouge,paroli") == [
        "flat",
        "martingale:base=2,box=rouge",
        "paroli",
    ]
    assert split_strategies("all") == list(LINEUP)
    assert split_strategies("flat; streak:k=3") == ["flat", "streak:k=3"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"strategies": "nope"}, "unknown strategy"),
        ({"sessions": 0}, "sessions must be at least 1"),
        ({"coups": 0}, "coups must be at least 1"),
        ({"bankroll": 0.5}, "below the table minimum"),
        ({"unit": 0}, "unit must be"),
        ({"unit": 5000}, "outside the table limits"),
        ({"rules": "vegas"}, "rules must be a rule set"),  # a name is resolved by the command, once
        ({"name": "vegas"}, "rules must be named by a preset .or custom., got 'vegas'"),
        ({"strategies": "flat,flat"}, "listed twice"),
        ({"strategies": ""}, "no strategies"),
        ({"rule_changes": {"decks": 0}}, "decks"),
    ],
)
def test_bad_configurations_are_one_line_errors(kwargs, message):
    with pytest.raises(TournamentError, match=message) as error:
        make_config(**kwargs)
    assert "\n" not in str(error.value)


def test_config_file(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text(
        """
[tournament]
strategies = ["flat"]
sessions = 7
coups = 9
seed = 3
workers = 1

[tournament.table]
table_max = 50

[[strategy]]
name = "labouchere"
line = [1, 2, 3]
"""
    )
    options = read_config_file(path)
    assert options["workers"] == 1
    options.pop("workers")
    preset = options.pop("rules", "classic")
    config = make_config(**options, rules=get_rules(preset), name=preset)
    assert config.strategies == ("flat", "labouchere:line=1-2-3")
    assert config.sessions == 7 and config.coups == 9 and config.seed == 3
    assert config.rule_values["table_max"] == 50


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tournament\n", "malformed config"),
        ("[tournament]\nsesions = 3\n", "unknown key 'sesions'"),
        ("[other]\n", "unknown section"),
        ("[tournament]\ntable = 3\n", "must be a table"),
    ],
)
def test_bad_config_files(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(TournamentError, match=message):
        read_config_file(path)


def test_missing_config_file(tmp_path):
    with pytest.raises(TournamentError, match="cannot read config"):
        read_config_file(tmp_path / "none.toml")


def test_shipped_configs_are_valid():
    configs = shipped_configs()
    assert {"quick", "classroom", "partage"} <= set(configs)
    for path in configs.values():
        options = read_config_file(path)
        options.pop("workers", None)
        preset = options.pop("rules", "classic")  # the command resolves the name once
        make_config(**options, rules=get_rules(preset), name=preset)


def test_resume_needs_a_manifest(tmp_path):
    with pytest.raises(TournamentError, match="nothing to resume"):
        resume_tournament(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(TournamentError, match="malformed manifest"):
        resume_tournament(tmp_path)


def test_default_config_is_the_lineup():
    config = make_config()
    assert config.strategies == LINEUP
    assert config.sessions * config.coups >= 3_000_000  # enough for every interval to exclude 0 (see slow test)


@pytest.mark.slow
def test_default_run_every_interval_excludes_zero(tmp_path):
    """The default run (README quick start): every system's 95% interval lies below 0."""
    doc = run_tournament(make_config(), tmp_path, workers=2, plots=False)
    for label, row in doc["strategies"].items():
        if row["total_staked"]:
            assert row["ci_high"] < 0, label
            assert row["consistent_with_edge"], label


def _readme_tournament_table() -> list[str]:
    """The lines of the tournament table shown in the README (its section's first code block)."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The tournament", 1)[1]
    return section.split("```", 2)[1].strip("\n").splitlines()


@pytest.mark.slow
def test_the_readme_tournament_table_is_what_the_default_run_prints(tmp_path):
    """Every figure the README shows of the default run comes out of a default run today: each
    system's return per unit staked and interval half-width (to the 0.01% it prints), its verdict,
    P(ahead) (0.1%), and the table-max hits when shown. A code change that moves a number moves the README."""
    doc = run_tournament(make_config(), tmp_path, workers=2, plots=False)
    lines = _readme_tournament_table()
    rule = next(i for i, line in enumerate(lines) if "───" in line)  # headings above, rows below
    header = next(line for line in lines[:rule] if "(ahead)" in line)  # "P" / "(ahead)" on two lines
    shown = 0
    for line in lines[rule + 1 :]:
        match = re.match(r"\s*(\S+)\s+([-+]?\d+\.\d\d)% ±(\d+\.\d\d)%", line)
        if not match:
            continue
        row = doc["strategies"][match[1]]
        assert f"{row['return_per_unit'] * 100:.2f}" == match[2].lstrip("+"), line
        assert f"{(row['ci_high'] - row['ci_low']) / 2 * 100:.2f}" == match[3], line
        ahead = header.index("(ahead)")  # the column's figure ends where its heading ends
        figure = line[: ahead + len("(ahead)") + 1].split()[-1]
        assert figure == f"{row['p_ahead'] * 100:.1f}%", line
        assert f"  {row['verdict']}  " in line, line  # the verdict, with the sessions that would decide it
        shown += 1
    assert shown >= 10  # the table was read, not skipped
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    hits = re.search(r"table\s+maximum ([\d,]+) times", readme)  # the prose under the compact table
    assert hits and hits[1] == f"{doc['strategies']['martingale']['table_max_hits']:,}"


def _medium_run(tmp_path: Path) -> dict:
    return run_tournament(make_config(sessions=3000, coups=100, seed=2024), tmp_path, plots=False)


def test_statistical_every_interval_sits_on_the_edge_and_none_above_zero(tmp_path):
    """Seeded medium run of the whole line-up (18 systems that stake, 3,000 sessions x 100 coups).

    If each system's 95% interval covers its true return, the number of intervals missing -edge is
    at most Binomial(18, 0.05) (mean 0.9; P(more than 3) = 1.1%) if the systems were independent.
    They are not (common random numbers: the same shoes), which makes misses come together rather
    than more often. We allow 3 misses of the per-system intervals, and none after Holm's
    correction (family-wise 5%). No interval may lie above 0: that would need an error far beyond
    any of these.
    """
    doc = _medium_run(tmp_path)
    rows = [r for r in doc["strategies"].values() if r["total_staked"]]
    assert len(rows) == 18
    misses = [r["spec"] for r in rows if not r["ci_low"] <= -r["edge"] <= r["ci_high"]]
    assert len(misses) <= 3, misses
    assert all(r["consistent_with_edge"] for r in rows)
    assert not any(r["above_zero"] for r in rows)
    assert all(r["ci_low"] < 0 for r in rows)
    assert doc["correction"]["family_size"] == 18


def test_ctrl_c_keeps_the_finished_tasks(tmp_path, monkeypatch):
    import experiments.tournament.runner as tournament

    config = make_config("flat,paroli", sessions=30, coups=10, seed=12, block=10)
    whole = run_tournament(config, tmp_path / "whole", plots=False)
    real = tournament.run_task
    calls = []

    def interrupted(*args):
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(tournament, "run_task", interrupted)
    with pytest.raises(TournamentInterrupted) as stop:
        run_tournament(config, tmp_path / "cut", plots=False)
    assert stop.value.done == 2
    assert json.loads((tmp_path / "cut" / "manifest.json").read_text())["tasks_done"] == 2
    monkeypatch.setattr(tournament, "run_task", real)
    assert _numbers(resume_tournament(tmp_path / "cut", plots=False)) == _numbers(whole)

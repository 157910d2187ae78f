"""A tournament's files prove what they are: every block is checked against the run before it is
summed in, the manifest is validated like a fresh configuration and always tells the truth, and a
run too large for the machine is refused before any work."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import experiments.tournament.checkpoints as checkpoints
import experiments.tournament.output as output
import experiments.tournament.runner as tournament
import experiments.workers as workers
from experiments.cli import app
from experiments.errors import TournamentError
from experiments.tournament.checkpoints import BLOCK_ARRAYS, Checkpoints, DamagedBlock, run_identity, task_path
from experiments.tournament.config import TournamentConfig, make_config
from experiments.tournament.output import sessions_file
from experiments.tournament.runner import (
    TournamentInterrupted,
    collect,
    memory_needed,
    resume_tournament,
    run_tournament,
)
from strategies.registry import make_strategy
from strategies.runner import SESSION_FIELDS, play_on_env, session_seed

TIMING_KEYS = ("seconds", "session_coups_per_second", "out")
SPECS = "flat,martingale,labouchere"
runner = CliRunner()


def _numbers(document: dict) -> dict:
    """A results document without what legitimately differs between runs (timings, folder)."""
    return {k: v for k, v in document.items() if k not in TIMING_KEYS}


def _config(**changes):
    return make_config(SPECS, **{"sessions": 30, "coups": 12, "seed": 4, "block": 10, **changes})


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """An uninterrupted run: what every repaired run must give back, digit for digit."""
    out = tmp_path_factory.mktemp("whole")
    return run_tournament(_config(), out, plots=False, keep_blocks=True), out


def _stderr_lines(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line.strip()]


def _rewrite(path: Path, change) -> None:
    """Rewrite a block file with ``change(arrays)`` applied, keeping its note."""
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    change(arrays)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def test_a_block_records_the_run_it_belongs_to(whole):
    _, out = whole
    config = _config()
    identity = run_identity(config)
    with np.load(task_path(out, 2, 1)) as data:
        note = json.loads(str(data["note"][()]))
        arrays = {k: data[k] for k in data.files if k != "note"}
    assert note["config_hash"] == identity.config_hash and note["code_hash"] == identity.code_hash
    assert (note["block"], note["strategy"], note["spec"]) == (2, 1, "martingale")
    assert (note["first_session"], note["sessions"]) == (20, 10)
    assert set(arrays) == set(BLOCK_ARRAYS)
    for key, (dtype, shape) in note["arrays"].items():
        assert arrays[key].dtype == np.dtype(dtype) and list(arrays[key].shape) == shape, key
    assert note["arrays"]["trajectories"] == ["float32", [10, 13]]  # every session keeps its bankroll path
    assert note["arrays_sha256"] == checkpoints.arrays_digest(note, arrays)  # bound to this block and system
    assert note["arrays_sha256"] != checkpoints.arrays_digest({**note, "strategy": 0}, arrays)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["identity"] == json.loads(json.dumps(identity.as_dict()))
    code = manifest["identity"]["code"]
    assert {"trente_lab", "numpy", "numba", "sources"} <= set(code) and len(code["sources"]) == 64


def test_a_block_holds_exactly_what_both_session_runners_return():
    # BLOCK_ARRAYS is the file format: it must match the compiled loop and the vector-env loop.
    config = make_config("flat,martingale", sessions=6, coups=5, block=3)
    rules = config.ruleset()
    seeds = [session_seed(0, i) for i in range(3)]
    results = [*tournament.run_task(config, 0, (0, 1)).values()]
    results.append(play_on_env(make_strategy("flat", rules), rules, 1000.0, 5, seeds, keep=3))
    for result in results:
        assert (
            set(result)
            == set(BLOCK_ARRAYS)
            == {*SESSION_FIELDS, "box_stakes", "rig_staked", "trajectories", "exact_gain", "exact_staked"}
        )
        for key, dtype in BLOCK_ARRAYS.items():
            assert result[key].dtype == np.dtype(dtype), key


def test_the_blocks_kept_in_memory_are_the_blocks_on_disk_and_checked_alike(tmp_path):
    # A run sums up the blocks it has just played from memory: the very arrays its files hold, given
    # up as they are summed in, and refused for what a file would be refused for.
    config = _config()
    identity = run_identity(config)
    (tmp_path / "blocks").mkdir()
    blocks = Checkpoints(tmp_path, config, identity, in_memory=True)
    for b in range(config.n_blocks):
        blocks.save(b, tournament.run_task(config, b, tuple(range(len(config.specs)))))
    assert len(blocks.kept) == config.n_blocks * len(config.specs)
    from_files = collect(config, tmp_path, identity)
    kept = collect(config, tmp_path, identity, blocks)
    assert not blocks.kept  # given up as they were summed in
    for label, arrays in from_files.items():
        assert set(kept[label]) == set(arrays)
        for key, array in arrays.items():
            assert kept[label][key].dtype == array.dtype and np.array_equal(kept[label][key], array), (label, key)
    blocks.save(1, tournament.run_task(config, 1, (0,)))
    blocks.kept[1, 0]["net"][2] = np.nan  # as a damaged file would hold it
    with pytest.raises(DamagedBlock, match="NaN or infinite values in net"):
        blocks.take(1, 0)
    assert blocks.take(1, 0) is not None  # the file itself, read back and checked, is whole


def test_a_run_keeps_its_blocks_in_memory_only_up_to_a_size(tmp_path, monkeypatch):
    kept = []
    monkeypatch.setattr(tournament, "collect", lambda config, out, identity, blocks: kept.append(blocks.kept) or {})
    monkeypatch.setattr(tournament, "summarize", lambda config, sessions, delta: {})
    monkeypatch.setattr(tournament, "write_outputs", lambda *args: [])
    config = _config()
    run_tournament(config, tmp_path / "small", plots=False)
    monkeypatch.setattr(tournament, "IN_MEMORY", tournament.block_bytes(config) - 1)
    run_tournament(config, tmp_path / "large", plots=False)
    assert len(kept[0]) == config.n_blocks * len(config.specs) and kept[1] is None  # the large one reads its files


def test_the_identity_changes_with_every_field_and_the_code(monkeypatch):
    base = run_identity(_config())
    for change in ({"seed": 5}, {"sessions": 31}, {"coups": 13}, {"block": 15}, {"bankroll": 500.0},
                   {"trajectories": 5}, {"rule_changes": {"table_max": 500}}, {"unit": 2}):  # fmt: skip
        assert run_identity(_config(**change)).config_hash != base.config_hash, change
    assert run_identity(make_config("flat,martingale", sessions=30, coups=12, seed=4, block=10)) != base
    monkeypatch.setattr(checkpoints, "code_version", lambda: {"sources": "edited"})
    assert run_identity(_config()).code_hash != base.code_hash
    assert run_identity(_config()).config_hash == base.config_hash


def _foreign(path: Path, tmp_path: Path) -> None:
    """The same block of a run with another seed."""
    other = tmp_path / "other"
    run_tournament(_config(seed=99), other, plots=False, keep_blocks=True)
    shutil.copy(task_path(other, 1, 0), path)


def _truncated(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _corrupted(path: Path, tmp_path: Path) -> None:
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        member = archive.getinfo("net.npy")
    middle = member.header_offset + 30 + len(member.filename) + member.compress_size // 2  # in net.npy's data
    data[middle : middle + 8] = b"\xff" * 8
    path.write_bytes(bytes(data))


def _shortened(path: Path, tmp_path: Path) -> None:
    _rewrite(path, lambda a: a.update(net=a["net"][:-1]))


def _wrong_dtype(path: Path, tmp_path: Path) -> None:
    _rewrite(path, lambda a: a.update(staked=a["staked"].astype(np.float32)))


def _nan(path: Path, tmp_path: Path) -> None:
    def poison(arrays):
        arrays["net"][3] = np.nan

    _rewrite(path, poison)


def _missing_array(path: Path, tmp_path: Path) -> None:
    _rewrite(path, lambda a: a.pop("walked"))


def _moved(path: Path, tmp_path: Path) -> None:
    shutil.copy(path.with_name("b00000-s000.npz"), path)  # block 0 saved as block 1


def _no_note(path: Path, tmp_path: Path) -> None:
    _rewrite(path, lambda a: a.pop("note"))  # what an older trente-lab wrote


def _other_code(path: Path, tmp_path: Path) -> None:
    def edit(arrays):
        note = json.loads(str(arrays["note"][()]))
        arrays["note"] = np.array(json.dumps({**note, "code_hash": "0" * 64}))

    _rewrite(path, edit)


def _bad_coups(path: Path, tmp_path: Path) -> None:
    def edit(arrays):
        arrays["coups"][0] = 13  # more than the 12 coups of a session

    _rewrite(path, edit)


@pytest.mark.parametrize(
    ("damage", "line"),
    [
        (_foreign, "block b00001-s000 belongs to another run (config hash "),
        (_truncated, "block b00001-s000 cannot be read (BadZipFile"),
        (_corrupted, "block b00001-s000 cannot be read (BadZipFile: Bad CRC-32"),
        (_shortened, "block b00001-s000 has net as float64 (9,), expected float64 (10,)"),
        (_wrong_dtype, "block b00001-s000 has staked as float32 (10,), expected float64 (10,)"),
        (_nan, "block b00001-s000 has NaN or infinite values in net"),
        (_missing_array, "block b00001-s000 holds the arrays"),
        (_moved, "block b00001-s000 says block 0 where this block has 1"),
        (_no_note, "block b00001-s000 does not say which run it belongs to"),
        (_other_code, "block b00001-s000 was computed by other code (code hash 000000000000, this run's "),
        (_bad_coups, "block b00001-s000 has sessions of"),
    ],
)
def test_a_bad_block_is_reported_in_one_line_and_recomputed(tmp_path, capsys, whole, damage, line):
    config = _config()
    run_tournament(config, tmp_path / "run", plots=False, keep_blocks=True)
    path = task_path(tmp_path / "run", 1, 0)
    damage(path, tmp_path)
    capsys.readouterr()
    with pytest.raises(DamagedBlock, match="^block b00001-s000 ") as error:
        Checkpoints(tmp_path / "run", config, run_identity(config)).load(1, 0)
    assert "\n" not in str(error.value)
    with pytest.raises(TournamentError, match=r"run with --resume .* to recompute it"):
        collect(config, tmp_path / "run")  # never summed in
    again = resume_tournament(tmp_path / "run", plots=False, keep_blocks=True)
    assert _stderr_lines(capsys) == [f"trente-lab: {error.value}; recomputing it"]
    assert line in str(error.value)
    assert _numbers(again) == _numbers(whole[0])
    assert (tmp_path / "run" / sessions_file()).read_bytes() == (whole[1] / sessions_file()).read_bytes()
    Checkpoints(tmp_path / "run", config, run_identity(config)).load(1, 0)  # rewritten whole


def test_a_rerun_on_the_same_folder_checks_the_blocks_too(tmp_path, capsys, whole):
    run_tournament(_config(), tmp_path, plots=False, keep_blocks=True)
    _shortened(task_path(tmp_path, 0, 2), tmp_path)
    capsys.readouterr()
    again = run_tournament(_config(), tmp_path, plots=False, keep_blocks=True)
    assert _stderr_lines(capsys) == [
        "trente-lab: block b00000-s002 has net as float64 (9,), expected float64 (10,); recomputing it"
    ]
    assert _numbers(again) == _numbers(whole[0])


def test_many_bad_blocks_are_reported_in_a_few_lines(tmp_path, capsys, whole, monkeypatch):
    run_tournament(_config(), tmp_path, plots=False, keep_blocks=True)
    monkeypatch.setattr(checkpoints, "code_version", lambda: {"sources": "edited"})  # the code changed
    monkeypatch.setattr(checkpoints, "REPORT_BLOCKS", 4)
    capsys.readouterr()
    again = resume_tournament(tmp_path, plots=False, keep_blocks=True)
    lines = _stderr_lines(capsys)
    assert len(lines) == 5
    assert all("was computed by other code" in line for line in lines[:-1])
    assert lines[-1] == "trente-lab: 5 more blocks are damaged or not of this run; recomputing them"  # 3 x 3 - 4
    assert _numbers(again) == _numbers(whole[0])


def test_a_bad_block_on_resume_through_the_cli(tmp_path, whole):
    run_tournament(_config(), tmp_path, plots=False, keep_blocks=True)
    _truncated(task_path(tmp_path, 2, 1), tmp_path)
    result = runner.invoke(app, ["tournament", "--resume", str(tmp_path), "--no-plots", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr.strip().splitlines() == [
        "trente-lab: block b00002-s001 cannot be read (BadZipFile: File is not a zip file); recomputing it"
    ]
    assert json.loads(result.stdout)["strategies"] == whole[0]["strategies"]


# -- the manifest --------------------------------------------------------------------------------


def _edit_manifest(folder: Path, **changes) -> None:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["config"].update(changes)
    for key, value in changes.items():
        if value is None:
            del manifest["config"][key]
    path.write_text(json.dumps(manifest))


def test_a_hand_edited_seed_is_a_new_run_whose_blocks_do_not_match(tmp_path, capsys):
    run_tournament(_config(), tmp_path / "run", plots=False, keep_blocks=True)
    _edit_manifest(tmp_path / "run", seed=7)
    capsys.readouterr()
    edited = resume_tournament(tmp_path / "run", plots=False, keep_blocks=True)
    lines = _stderr_lines(capsys)
    assert lines[0].startswith("trente-lab: block b00000-s000 belongs to another run (config hash ")
    fresh = run_tournament(_config(seed=7), tmp_path / "fresh", plots=False, keep_blocks=True)
    assert _numbers(edited) == _numbers(fresh)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"coups": 0}, "coups must be at least 1"),
        ({"sessions": -5}, "sessions must be at least 1"),
        ({"sessions": "30"}, "sessions must be a whole number"),
        ({"seed": 1.5}, "seed must be a whole number"),
        ({"seed": 2**70}, "seed must be at most 9,223,372,036,854,775,807, got 1180591620717411303424"),
        ({"unit": 10**13}, "unit must be at most 1,000,000,000,000"),
        ({"block": True}, "block must be a whole number"),
        ({"specs": ["flat", "martingale"]}, "config does not hold together: specs is"),
        ({"specs": ["flat", "martingale", "paroli"]}, "config does not hold together: specs is"),
        ({"strategies": ["flat", "martingale"]}, "config does not hold together: specs is"),
        ({"strategies": "flat"}, "strategies must be a list of spec strings"),
        ({"strategies": []}, "no strategies"),
        ({"bankroll": "lots"}, "bankroll must be a number"),
        ({"bankroll": "1000"}, "config does not hold together: bankroll is '1000'"),
        ({"rule_values": {"decks": 0}}, "decks"),
        ({"rule_values": {"table_max": 10}}, "config does not hold together: rule_values"),
        ({"rule_values": "classic"}, "rule_values must be a table"),
        ({"rules": "vegas"}, "rules must be named by a preset (or custom), got 'vegas'"),
        ({"speed": 3}, "config has unknown key(s) speed"),
        ({"seed": None}, "config has no seed"),
    ],
)
def test_a_bad_manifest_is_one_line_and_exit_2(tmp_path, changes, message):
    folder = tmp_path / "run"
    with pytest.raises(TournamentInterrupted):
        run_tournament(_config(), folder, plots=False, max_tasks=1)
    _edit_manifest(folder, **changes)
    with pytest.raises(TournamentError) as error:
        resume_tournament(folder, plots=False, keep_blocks=True)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert str(error.value).startswith(f"{folder / 'manifest.json'}: ")
    result = runner.invoke(app, ["tournament", "--resume", str(folder), "--no-plots"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trente-lab: error:") and message in lines[0]


def test_a_manifest_whose_config_is_not_a_table(tmp_path):
    run_tournament(_config(), tmp_path, plots=False, keep_blocks=True)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["config"] = ["flat"]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(TournamentError, match="config is not a table"):
        resume_tournament(tmp_path)


# -- the manifest tells the truth at every moment ------------------------------------------------


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def test_ctrl_c_while_writing_the_files_keeps_the_manifest_true(tmp_path, monkeypatch, whole):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(output, "_write_sessions", interrupted)
    with pytest.raises(TournamentInterrupted) as stop:
        run_tournament(_config(), tmp_path, plots=False, keep_blocks=True)
    assert (stop.value.done, stop.value.total) == (3, 3)
    manifest = _manifest(tmp_path)
    assert manifest["tasks_done"] == manifest["tasks_total"] == 3 and manifest["complete"] is False
    assert manifest["files"] == ["results.json", "results.csv"]  # whole; the per-session table was not written
    assert not (tmp_path / sessions_file()).exists() and not list(tmp_path.glob(".*.tmp"))
    monkeypatch.undo()
    done = resume_tournament(tmp_path, plots=False, keep_blocks=True)
    assert _numbers(done) == _numbers(whole[0])
    manifest = _manifest(tmp_path)
    assert manifest["complete"] is True
    on_disk = {p.name for p in tmp_path.iterdir()} - {"blocks", ".lock"}
    assert set(manifest["files"]) == on_disk and len(on_disk) == 5  # with plots: test_files_and_their_schema


def test_ctrl_c_while_putting_the_blocks_together(tmp_path, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament, "collect", interrupted)
    with pytest.raises(TournamentInterrupted):
        run_tournament(_config(), tmp_path, plots=False, keep_blocks=True)
    manifest = _manifest(tmp_path)
    assert (manifest["tasks_done"], manifest["complete"], manifest["files"]) == (3, False, [])


def test_ctrl_c_with_worker_processes_counts_every_saved_task(tmp_path, monkeypatch, whole):
    # Two worker processes (workers.Workers); Ctrl-C while this process waits for its second answer.
    monkeypatch.setattr(TournamentConfig, "all_compiled", lambda self: False)
    real_answer, calls = workers.Workers.answer, []

    def interrupted(self):
        calls.append(self)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_answer(self)

    monkeypatch.setattr(workers.Workers, "answer", interrupted)
    config = _config()
    with pytest.raises(TournamentInterrupted) as stop:
        run_tournament(config, tmp_path, workers=2, plots=False, keep_blocks=True)
    saved = Checkpoints(tmp_path, config, run_identity(config)).scan(config.groups())
    # the tasks still running at Ctrl-C finish, are saved and counted
    assert 1 <= stop.value.done == int(saved.sum()) == _manifest(tmp_path)["tasks_done"]
    monkeypatch.undo()
    assert _numbers(resume_tournament(tmp_path, plots=False, keep_blocks=True)) == _numbers(whole[0])


def test_the_manifest_counts_the_tasks_as_they_are_saved(tmp_path, monkeypatch):
    monkeypatch.setattr(tournament, "MANIFEST_EVERY", 0.0)
    real, seen = tournament.run_task, []

    def watched(*args):
        seen.append(_manifest(tmp_path)["tasks_done"])
        return real(*args)

    monkeypatch.setattr(tournament, "run_task", watched)
    run_tournament(_config(), tmp_path, plots=False, keep_blocks=True)
    assert seen == [0, 1, 2]


def test_a_rerun_does_not_leave_an_old_complete_manifest(tmp_path, monkeypatch):
    run_tournament(_config(), tmp_path, plots=False, keep_blocks=True)
    assert _manifest(tmp_path)["complete"] is True
    real, seen = tournament.collect, []

    def watched(*args):
        seen.append(_manifest(tmp_path))
        return real(*args)

    monkeypatch.setattr(tournament, "collect", watched)
    run_tournament(_config(), tmp_path, plots=False, keep_blocks=True)
    assert seen[0]["complete"] is False and seen[0]["files"] == [] and seen[0]["tasks_done"] == 3


# -- sizes ---------------------------------------------------------------------------------------


def test_tasks_are_made_one_at_a_time():
    config = make_config("flat,martingale", sessions=10**11, coups=200)
    tasks = config.tasks()
    assert next(tasks) == (0, (0, 1)) and next(tasks) == (1, (0, 1))
    assert config.n_tasks == 5 * 10**7


def test_a_run_beyond_the_machine_is_refused_before_any_work(tmp_path):
    config = make_config("flat,martingale", sessions=10**11, coups=200)
    with pytest.raises(TournamentError, match=r"need about .* of memory .*; this machine has ") as error:
        run_tournament(config, tmp_path / "out")
    assert "\n" not in str(error.value) and "100,000,000,000 sessions" in str(error.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--sessions", "1000000000"], ("of memory", "this machine has")),  # allowed by the parser, not by memory
        (["--sessions", "100000000000"], ("--sessions", "less than or equal to")),  # refused by the parser
        (["--coups", "1000000000000"], ("--coups", "less than or equal to")),
    ],
)
def test_a_huge_request_through_the_cli_is_one_line_and_exit_2(tmp_path, args, words):
    result = runner.invoke(app, ["tournament", *args, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), lines
    assert not (tmp_path / "o").exists()


def test_the_limit_is_the_machine_memory(tmp_path, monkeypatch):
    config = _config()
    need = memory_needed(config)
    monkeypatch.setattr(tournament, "machine_memory", lambda: need - 1)
    with pytest.raises(TournamentError, match="this machine has"):
        run_tournament(config, tmp_path, plots=False, keep_blocks=True)
    monkeypatch.setattr(tournament, "machine_memory", lambda: need)
    run_tournament(config, tmp_path, plots=False, keep_blocks=True)


def test_the_estimate_covers_what_collect_holds(tmp_path):
    config = make_config(SPECS, sessions=500, coups=40, trajectories=300, block=100)
    run_tournament(config, tmp_path, plots=False, keep_blocks=True)
    held = sum(a.nbytes for s in collect(config, tmp_path).values() for a in s.values())
    assert held <= memory_needed(config) - tournament.BASE_MEMORY
    per_session = sum(np.dtype(BLOCK_ARRAYS[k]).itemsize for k in SESSION_FIELDS)
    assert memory_needed(make_config(SPECS, sessions=10**7)) >= 3 * 10**7 * per_session


def test_the_csv_table_is_streamed_in_chunks_with_the_same_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(output, "sessions_file", lambda: output.CSV_GZ)  # as without pyarrow
    run_tournament(_config(), tmp_path / "whole", plots=False)
    monkeypatch.setattr(output, "CSV_CHUNK", 7)  # 30 sessions: chunks of 7, 7, 7, 7 and 2
    run_tournament(_config(), tmp_path / "chunks", plots=False)
    whole, chunks = ((tmp_path / k / output.CSV_GZ).read_bytes() for k in ("whole", "chunks"))
    assert whole == chunks and len(gzip.decompress(whole).splitlines()) == 1 + 3 * 30


def test_the_refusal_says_what_to_change(tmp_path, monkeypatch):
    config = _config()
    monkeypatch.setattr(tournament, "machine_memory", lambda: memory_needed(config, 1))
    with pytest.raises(TournamentError, match="on 8 workers.*: use fewer workers$"):
        run_tournament(config, tmp_path, workers=8, plots=False, keep_blocks=True)
    monkeypatch.setattr(tournament, "machine_memory", lambda: memory_needed(config, 1) - 1)
    with pytest.raises(TournamentError, match="on 1 worker\\).*: play fewer sessions, coups or strategies$"):
        run_tournament(config, tmp_path, plots=False, keep_blocks=True)


def test_a_models_file_is_part_of_the_identity(tmp_path, monkeypatch):
    # No model is loaded to say who it is: the identity hashes the files its spec names.
    monkeypatch.chdir(tmp_path)
    config = TournamentConfig(strategies=("model:agent.zip",), specs=("agent.zip:algo=ppo",))
    Path("agent.zip").write_bytes(b"weights one")
    first = run_identity(config)
    Path("agent.json").write_text('{"algo": "ppo"}')
    second = run_identity(config)
    Path("agent.zip").write_bytes(b"weights two")
    third = run_identity(config)
    assert len({first.code_hash, second.code_hash, third.code_hash}) == 3
    assert first.config_hash == second.config_hash == third.config_hash

"""What fuzzing the command line and a tournament's files found, each case pinned down: a file that
is not a regular one is never replaced, an empty path never means the current folder, a block whose
arrays do not match its note is never summed in, a folder in a block's place never breaks a complete
run, a manifest holds only the numbers the command line takes, a finished run resumed says there
was nothing left to play, and the rules printed are the game played."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import socket
import stat
import tempfile
from pathlib import Path

import numpy as np
import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from experiments.cli import app
from experiments.cli.options import path_value
from experiments.errors import LabError, TournamentError
from experiments.files import atomic_write_bytes, check_output_file, check_output_folder, file_kind
from experiments.limits import MAX_MONEY, MAX_SEED, MAX_SESSION_COUPS, MAX_SESSIONS
from experiments.rules import rules_name
from experiments.tournament.checkpoints import Checkpoints, DamagedBlock, run_identity, task_path
from experiments.tournament.config import make_config
from experiments.tournament.output import verdict_table
from experiments.tournament.plots import _title
from experiments.tournament.runner import collect, resume_tournament, run_tournament
from tests._patience import patience
from trente_env.rules import PRESETS, Refait, SecondRefait, get_rules

runner = CliRunner()
COMMANDS = typer.main.get_command(app).commands
TIMING_KEYS = ("seconds", "session_coups_per_second", "out")


def one_line(result, code: int = 2) -> str:
    """The single line a refused command prints on stderr (nothing on stdout, no traceback)."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.stdout == "", result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("trente-lab: error: ") and "Traceback" not in result.output, lines[0]
    return lines[0]


def _numbers(document: dict) -> dict:
    return {k: v for k, v in document.items() if k not in TIMING_KEYS}


# -- output files: a regular file or a new path, nothing else --------------------------------------


def _make(kind: str, path: Path) -> socket.socket | None:
    """Put a ``kind`` of thing at ``path``; a socket is returned to be closed."""
    if kind in ("fifo", "socket") and not (hasattr(os, "mkfifo") and hasattr(socket, "AF_UNIX")):
        pytest.skip("FIFOs and Unix sockets are POSIX things")
    if kind == "regular":
        path.write_bytes(b"old")
    elif kind == "symlink":
        target = path.with_name(path.name + ".target")
        target.write_bytes(b"target")
        path.symlink_to(target)
    elif kind == "dangling symlink":
        path.symlink_to(path.with_name("nowhere"))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        return server
    return None


NOT_REGULAR = {
    "symlink": "a symbolic link",
    "dangling symlink": "a symbolic link",
    "fifo": "a FIFO (named pipe)",
    "folder": "a folder",
    "socket": "a socket",
}


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["new", "regular", *NOT_REGULAR]), data=st.binary(max_size=64))
def test_a_file_is_written_only_over_a_regular_file_or_a_new_path(kind, data):
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:  # short: a socket's path has a length limit
        path = Path(folder) / "out.bin"
        server = _make(kind, path)
        try:
            before = os.lstat(path).st_mode if kind != "new" else None
            if kind in ("new", "regular"):
                atomic_write_bytes(path, data)
                assert path.read_bytes() == data and stat.S_ISREG(os.lstat(path).st_mode)
            else:
                with pytest.raises(LabError, match=re.escape(f"is {NOT_REGULAR[kind]}, not a regular file")) as error:
                    atomic_write_bytes(path, data)
                assert "\n" not in str(error.value) and ".tmp" not in str(error.value)
                assert os.lstat(path).st_mode == before  # left as it was
                if kind == "symlink":
                    assert path.with_name("out.bin.target").read_bytes() == b"target"
            assert not [p for p in Path(folder).iterdir() if p.name.endswith(".tmp")]  # no temporary file left
        finally:
            if server is not None:
                server.close()


def test_a_folder_put_in_the_way_while_writing_names_the_file_not_the_temporary_one(tmp_path):
    path = tmp_path / "results.json"

    def write(f):
        f.write(b"{}")
        path.mkdir()  # another process, while we write

    from experiments.files import atomic_write

    with pytest.raises(LabError) as error:
        atomic_write(path, write)
    assert str(error.value).startswith(f"{path} is a folder") and ".tmp" not in str(error.value)
    assert path.is_dir() and [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_an_error_of_the_replace_names_the_file_not_the_temporary_one(tmp_path, monkeypatch):
    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", src, dst)

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PermissionError) as error:
        atomic_write_bytes(tmp_path / "page.html", b"x")
    assert error.value.filename == str(tmp_path / "page.html") and error.value.filename2 is None
    assert list(tmp_path.iterdir()) == []


def test_a_temporary_file_that_cannot_be_made_names_the_file(tmp_path, monkeypatch):
    def refuse(prefix, suffix, dir):
        raise PermissionError(13, "Permission denied", str(Path(dir) / f"{prefix}abc{suffix}"))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError) as error:
        atomic_write_bytes(tmp_path / "results.json", b"{}")
    assert error.value.filename == str(tmp_path / "results.json") and error.value.filename2 is None


@pytest.mark.parametrize("kind", ["fifo", "symlink", "dangling symlink", "socket"])
def test_report_onto_something_not_a_regular_file_is_one_line(tmp_path, kind):
    path = Path(tempfile.mkdtemp(dir="/tmp")) / "page.html"  # short: a socket's path has a length limit
    server = _make(kind, path)
    try:
        before = os.lstat(path)
        result = runner.invoke(app, ["report", "--coups", "1000", "--sessions", "0", "--output", str(path)])
        line = one_line(result)
        assert f"--output {str(path)!r} is {NOT_REGULAR[kind]}, not a regular file" in line
        after = os.lstat(path)
        assert (after.st_mode, after.st_ino, after.st_size) == (before.st_mode, before.st_ino, before.st_size)
    finally:
        if server is not None:
            server.close()
        shutil.rmtree(path.parent)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="a device node needs root")
def test_report_onto_a_device_node_is_one_line_and_the_node_stays(tmp_path):
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # what /dev/null is
    except PermissionError:
        pytest.skip("this root may not make device nodes (a container)")
    result = runner.invoke(app, ["report", "--coups", "1000", "--sessions", "0", "--output", str(node)])
    assert "is a character device, not a regular file" in one_line(result)
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert file_kind(node) == "a character device"


def test_report_onto_a_regular_file_replaces_it(tmp_path):
    path = tmp_path / "page.html"
    path.write_text("old")
    result = runner.invoke(app, ["report", "--coups", "1000", "--sessions", "0", "--output", str(path)])
    assert result.exit_code == 0, result.output
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_tournament_never_replaces_a_link_in_its_folder(tmp_path):
    out, target = tmp_path / "run", tmp_path / "precious.json"
    out.mkdir()
    target.write_text("precious")
    (out / "results.json").symlink_to(target)
    args = ["tournament", "--strategies", "flat", "-n", "10", "-m", "5", "--no-plots", "--out", str(out)]
    line = one_line(runner.invoke(app, args))
    assert f"{out / 'results.json'} is a symbolic link, not a regular file" in line
    assert target.read_text() == "precious" and (out / "results.json").is_symlink()


# -- empty paths: refused by one type, in every command ---------------------------------------------

#: Every path a command takes, and the arguments before it.
PATHS = [
    (["tournament", "--out"], "'--out'"),
    (["tournament", "-o"], "'--out'"),
    (["tournament", "--resume"], "'--resume'"),
    (["tournament", "--config"], "'--config'"),
    (["train", "--out"], "'--out'"),
    (["train", "--from"], "'--from'"),
    (["train", "--config"], "'--config'"),
    (["fallacy", "--out"], "'--out'"),
    (["count", "--out"], "'--out'"),
    (["control", "--out"], "'--out'"),
    (["sweep", "sweep-seeds", "--out"], "'--out'"),
    (["sweep"], "'SWEEP.toml'"),
    (["report"], "'DIR'"),
    (["report", "--output"], "'--output'"),
    (["classroom", "--session"], "'--session'"),
    (["classroom", "--ssl-keyfile"], "'--ssl-keyfile'"),
    (["classroom", "--ssl-certfile"], "'--ssl-certfile'"),
    (["benchmark", "--out"], "'--out'"),
    (["benchmark", "--config"], "'--config'"),
    (["risk", "martingale", "--plot"], "'--plot'"),
]


@pytest.mark.parametrize("blank", ["", " ", "\t"])
@pytest.mark.parametrize(("args", "name"), PATHS, ids=[" ".join(a) for a, _ in PATHS])
def test_an_empty_path_is_refused_in_one_line(tmp_path, monkeypatch, args, name, blank):
    monkeypatch.chdir(tmp_path)
    line = one_line(runner.invoke(app, [*args, blank]))
    assert f"Invalid value for {name}" in line and "an empty path would be the current folder" in line
    assert list(tmp_path.iterdir()) == []  # nothing scattered into the current folder


def _path_params() -> list[tuple[str, str, object]]:
    found = []
    for name, command in COMMANDS.items():
        for param in command.params:
            descriptor = getattr(param, "type_descriptor", None)
            if getattr(descriptor, "annotation", None) is Path:
                found.append((name, param.opts[0] if param.opts else param.name, descriptor.parameter_info.parser))
    return found


def test_every_path_of_every_command_is_parsed_by_the_one_path_type():
    found = _path_params()
    named = {(name, opt) for name, opt, _ in found}
    assert {("tournament", "--out"), ("tournament", "--resume"), ("tournament", "--config"), ("train", "--from"),
            ("report", "--output"), ("sweep", "--out"), ("control", "--out")} <= named  # fmt: skip
    assert len(found) >= 13  # the walk sees them (a walk that finds nothing would prove nothing)
    assert [(name, opt) for name, opt, parser in found if parser is not path_value] == []
    assert {(args[0], name.strip("'")) for args, name in PATHS} >= {
        (name, "SWEEP.toml" if opt == "grid" else "DIR" if opt == "folder" else opt) for name, opt, _ in found
    }  # and each is tried empty above


@given(st.text(alphabet=" \t\n", max_size=6))
def test_a_path_of_only_spaces_is_refused(text):
    with pytest.raises(typer.BadParameter, match="empty path"):
        path_value(text)


@given(st.text(min_size=1).filter(lambda t: t.strip() and "\0" not in t))
def test_any_other_path_is_taken_as_it_is(text):
    assert path_value(text) == Path(text)


def test_the_libraries_refuse_an_empty_path_too(tmp_path):
    with pytest.raises(LabError, match="--out is empty"):
        check_output_folder("")
    with pytest.raises(LabError, match="--output is empty"):
        check_output_file("")
    with pytest.raises(TournamentError, match="out is empty"):
        run_tournament(make_config("flat", sessions=2, coups=2), "", plots=False)
    with pytest.raises(TournamentError, match="folder to resume is empty"):
        resume_tournament("")


# -- checkpoints: the arrays match the hash in their note -------------------------------------------

SPECS = "flat,martingale,labouchere"


def _config(**changes):
    return make_config(SPECS, **{"sessions": 30, "coups": 12, "seed": 4, "block": 10, **changes})


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole")
    return run_tournament(_config(), out, plots=False, keep_blocks=True), out


def _read(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _write(path: Path, arrays: dict[str, np.ndarray]) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def _edited(out: Path) -> None:
    """One session's net changed inside block 1 of system 0, its note kept."""
    path = task_path(out, 1, 0)
    arrays = _read(path)
    arrays["net"][3] += 1.0
    _write(path, arrays)


def _other_system(out: Path) -> None:
    """System 1's arrays under system 0's note (the same block, shapes and types)."""
    mine, theirs = _read(task_path(out, 1, 0)), _read(task_path(out, 1, 1))
    _write(task_path(out, 1, 0), {**theirs, "note": mine["note"]})


def _other_block(out: Path) -> None:
    """Block 2's arrays under block 1's note."""
    mine, theirs = _read(task_path(out, 1, 0)), _read(task_path(out, 2, 0))
    _write(task_path(out, 1, 0), {**theirs, "note": mine["note"]})


def _old_schema(out: Path) -> None:
    """A block as an older trente-lab wrote it: schema 1, no hash."""
    arrays = _read(task_path(out, 1, 0))
    note = json.loads(str(arrays["note"][()]))
    note.pop("arrays_sha256")
    arrays["note"] = np.array(json.dumps({**note, "schema": "trente-lab/tournament-block/1"}))
    _write(task_path(out, 1, 0), arrays)


MISMATCH = "has arrays that do not match the hash in its note (edited, or another system's or block's)"


@pytest.mark.parametrize(
    ("damage", "line"),
    [
        (_edited, MISMATCH),
        (_other_system, MISMATCH),
        (_other_block, MISMATCH),
        (_old_schema, "was written by an older trente-lab (trente-lab/tournament-block/1)"),
    ],
)
def test_a_block_whose_arrays_do_not_match_its_note_is_recomputed_with_one_line(tmp_path, whole, damage, line):
    config, out = _config(), tmp_path / "run"
    run_tournament(config, out, plots=False, keep_blocks=True)
    damage(out)
    with pytest.raises(DamagedBlock, match=f"^block b00001-s000 {re.escape(line)}$"):
        Checkpoints(out, config, run_identity(config)).load(1, 0)
    with pytest.raises(TournamentError, match="to recompute it"):
        collect(config, out)  # never summed in
    result = runner.invoke(app, ["tournament", "--resume", str(out), "--no-plots", "--keep-blocks", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [f"trente-lab: block b00001-s000 {line}; recomputing it"]
    assert _numbers(json.loads(result.stdout)) == _numbers(whole[0])
    Checkpoints(out, config, run_identity(config)).load(1, 0)  # rewritten whole


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    key=st.sampled_from(["net", "staked", "final_bankroll", "max_drawdown", "box_stakes", "trajectories"]),
    index=st.integers(0, 10**6),
    change=st.floats(-1e6, 1e6, allow_nan=False).filter(lambda x: x != 0),
)
def test_any_change_to_a_saved_array_is_caught(whole, key, index, change):
    config, out = _config(), whole[1]
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "blocks").mkdir()
        path = task_path(Path(folder), 1, 2)
        arrays = _read(task_path(out, 1, 2))
        flat = arrays[key].reshape(-1)
        flat[index % flat.size] += np.float32(change) if flat.dtype == np.float32 else change
        if np.array_equal(arrays[key], _read(task_path(out, 1, 2))[key]):
            return  # too small a change to register in float32: the same block
        _write(path, arrays)
        with pytest.raises(DamagedBlock, match="do not match the hash in its note"):
            Checkpoints(Path(folder), config, run_identity(config)).load(1, 2)


@pytest.mark.parametrize("kind", ["folder", "symlink"])
def test_a_folder_or_link_in_a_blocks_place_keeps_a_complete_run_complete(tmp_path, kind):
    out = tmp_path / "run"
    run_tournament(_config(), out, plots=False, keep_blocks=True)
    block = task_path(out, 1, 0)
    block.unlink()
    if kind == "folder":
        block.mkdir()
    else:
        block.symlink_to(tmp_path / "elsewhere.npz")
    manifest = (out / "manifest.json").read_bytes()
    line = one_line(runner.invoke(app, ["tournament", "--resume", str(out), "--no-plots", "--keep-blocks"]))
    what = "a folder" if kind == "folder" else "a symbolic link"
    assert f"{block} is {what}, not a block file" in line
    assert ".tmp" not in line and "/." not in line  # no temporary file's name
    assert (out / "manifest.json").read_bytes() == manifest  # still complete, untouched
    assert json.loads(manifest)["complete"] is True
    assert not [p for p in (out / "blocks").iterdir() if p.name.startswith(".")]


# -- the manifest: the command line's ranges ---------------------------------------------------------


@pytest.fixture(scope="module")
def manifest_text(whole):
    return (whole[1] / "manifest.json").read_text()


OUT_OF_RANGE = st.one_of(
    st.tuples(st.just("seed"), st.integers(MAX_SEED + 1, 2**200)),
    st.tuples(st.just("seed"), st.integers(-(2**70), -1)),
    st.tuples(st.just("sessions"), st.integers(MAX_SESSIONS + 1, 2**100)),
    st.tuples(st.just("coups"), st.integers(MAX_SESSION_COUPS + 1, 2**100)),
    st.tuples(st.just("unit"), st.integers(MAX_MONEY + 1, 2**100)),
    st.tuples(st.just("block"), st.integers(MAX_SESSIONS + 1, 2**100)),
    st.tuples(st.just("trajectories"), st.integers(MAX_SESSIONS + 1, 2**100)),
    st.tuples(st.sampled_from(["sessions", "coups", "block", "unit"]), st.integers(-(2**70), 0)),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(change=OUT_OF_RANGE)
def test_a_manifest_number_out_of_the_commands_range_is_one_line(manifest_text, change):
    key, value = change
    manifest = json.loads(manifest_text)
    manifest["config"][key] = value
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(TournamentError) as error:
            resume_tournament(folder, plots=False)
        message = str(error.value)
        assert message.startswith(f"{Path(folder) / 'manifest.json'}: {key} must be ") and "\n" not in message
        assert sorted(p.name for p in Path(folder).iterdir()) == ["manifest.json"]  # nothing played (nor a lock left)


def test_a_manifest_seed_of_2_to_the_70_is_refused_through_the_cli(tmp_path, manifest_text):
    manifest = json.loads(manifest_text)
    manifest["config"]["seed"] = 2**70
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    line = one_line(runner.invoke(app, ["tournament", "--resume", str(tmp_path), "--no-plots"]))
    assert line == (f"trente-lab: error: {tmp_path / 'manifest.json'}: seed must be at most {MAX_SEED:,}, got {2**70}")


# -- a finished run resumed ------------------------------------------------------------------------


def test_a_finished_run_resumed_has_nothing_left_to_play(tmp_path):
    out = tmp_path / "run"
    run_tournament(_config(), out, plots=False, keep_blocks=True)
    first = json.loads((out / "manifest.json").read_text())["seconds"]
    result = runner.invoke(app, ["tournament", "--resume", str(out), "--no-plots", "--keep-blocks"])
    assert result.exit_code == 0, result.output
    assert result.stderr.strip().splitlines()[-1] == (
        f"Files in {out}. Nothing left to play: its {30 * 12 * 3:,} session-coups were all played before."
    )
    assert "per second" not in result.stderr
    again = runner.invoke(app, ["tournament", "--resume", str(out), "--no-plots", "--keep-blocks", "--json"])
    document = json.loads(again.stdout)
    assert document["session_coups_per_second"] is None and document["seconds"] == first  # the run's own time
    assert json.loads((out / "manifest.json").read_text())["seconds"] == first


def test_a_partly_played_resume_counts_only_what_it_played(tmp_path):
    out = tmp_path / "run"
    run_tournament(_config(), out, plots=False, keep_blocks=True)
    task_path(out, 2, 1).unlink()  # one block of 10 sessions of the one group of three systems to play again
    result = runner.invoke(app, ["tournament", "--resume", str(out), "--no-plots", "--keep-blocks"])
    assert result.exit_code == 0, result.output
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"Files in {out}. {30 * 12 * 3:,} session-coups, {10 * 12 * 3:,} of them played now in ")


# -- the rules printed are the game played -----------------------------------------------------------

OVERRIDES = st.one_of(
    st.fixed_dictionaries({"refait": st.sampled_from(list(Refait))}),
    st.fixed_dictionaries({"second_refait": st.sampled_from(list(SecondRefait))}),
    st.fixed_dictionaries({"decks": st.integers(2, 8)}),  # one deck is too few for the cut card
    st.fixed_dictionaries({"table_max": st.sampled_from([500.0, 1000.0, 2000.0])}),
    st.fixed_dictionaries({"insurance": st.booleans()}),
    st.fixed_dictionaries({"couleur_inverse": st.booleans()}),
)


@given(preset=st.sampled_from(list(PRESETS)), changes=OVERRIDES)
def test_the_rules_name_is_the_preset_only_for_the_presets_rules(preset, changes):
    rules = get_rules(preset, **changes)
    name = rules_name(preset, rules)
    if rules == get_rules(preset):
        assert name == preset
    else:
        assert name.startswith(f"{preset} with ") and all(f"{k}=" in name for k in changes)
        assert name != preset


def test_a_table_whose_refait_was_overridden_is_not_called_classic(tmp_path):
    config_file = tmp_path / "partage.toml"
    config_file.write_text(
        '[tournament]\nstrategies = "flat"\nsessions = 20\ncoups = 10\n\n[tournament.table]\nrefait = "half"\n'
    )
    out = tmp_path / "run"
    result = runner.invoke(app, ["tournament", "--config", str(config_file), "--out", str(out), "--no-plots"])
    assert result.exit_code == 0, result.output
    played = "classic with refait=half (the partage preset)"
    assert f"{played} rules" in " ".join(result.stdout.split()) and "classic rules" not in result.stdout
    document = json.loads((out / "results.json").read_text())
    assert document["rules"] == "classic" and document["rules_played"] == played
    assert f"{played} rules" in _title(document)
    plain = run_tournament(make_config("flat", sessions=20, coups=10), tmp_path / "plain", plots=False)
    assert plain["rules_played"] == "classic" and "classic rules" in str(verdict_table(plain).title)


@pytest.mark.parametrize("resume", [False, True])
def test_a_folder_in_the_manifests_place_is_one_line(tmp_path, resume):
    (tmp_path / "manifest.json").mkdir()
    args = ["--resume", str(tmp_path)] if resume else ["--strategies", "flat", "-n", "10", "--out", str(tmp_path)]
    line = one_line(runner.invoke(app, ["tournament", *args, "--no-plots"]))
    where = tmp_path / "manifest.json"
    assert line == f"trente-lab: error: {where} is a folder, not a manifest: move it away (or choose another folder)"
    assert (tmp_path / "manifest.json").is_dir()


def test_simulate_names_the_decks_it_dealt():
    two = runner.invoke(app, ["simulate", "--decks", "2", "-n", "1000", "--json"])
    assert json.loads(two.stdout)["rules_played"] == "classic with decks=2"
    six = runner.invoke(app, ["simulate", "--decks", "6", "-n", "1000", "--json"])
    assert json.loads(six.stdout)["rules_played"] == "classic"  # the preset's own decks: the preset
    shown = runner.invoke(app, ["simulate", "--decks", "2", "-n", "1000"], env={"COLUMNS": "200"})
    assert "1,000 coups, classic with decks=2 rules" in shown.stdout and "classic rules" not in shown.stdout


@pytest.mark.parametrize("command", [["fallacy", "-n", "1000", "--sessions", "0"], ["count", "-n", "1"]])
def test_an_output_folder_that_is_a_fifo_is_one_line(tmp_path, command):
    os.mkfifo(tmp_path / "pipe")
    line = one_line(runner.invoke(app, [*command, "--out", str(tmp_path / "pipe")]))
    assert line == f"trente-lab: error: --out {str(tmp_path / 'pipe')!r} is a FIFO (named pipe), not a folder"
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)


OUT_FOLDERS = {
    "fallacy": ["fallacy", "-n", "1000", "--sessions", "0"],
    "count": ["count", "-n", "1"],
    "tournament": ["tournament", "--strategies", "flat", "-n", "10", "-m", "5", "--no-plots"],
    "train": ["train", "--timesteps", "64", "--n-envs", "2"],
    "control": ["control", "--timesteps", "64", "--episodes", "2"],
}


@pytest.mark.parametrize("kind", ["dangling symlink", "fifo", "regular"])
@pytest.mark.parametrize("command", OUT_FOLDERS)
def test_an_output_folder_that_is_a_link_to_nothing_a_fifo_or_a_file_is_named_so(tmp_path, command, kind):
    """Said as what it is (not "File exists" from the folder's creation, nor a path below it), before
    any work, and left as it was: a link to nothing is not followed to create its target."""
    if command in ("train", "control"):
        pytest.importorskip("stable_baselines3")
    out = tmp_path / "out"
    _make(kind, out)
    before = os.lstat(out)
    line = one_line(runner.invoke(app, [*OUT_FOLDERS[command], "--out", str(out)]))
    said = {"dangling symlink": "a symbolic link", "fifo": "a FIFO (named pipe)", "regular": "a file"}[kind]
    assert line.endswith(f"{str(out)!r} is {said}, not a folder"), line
    assert os.lstat(out).st_mode == before.st_mode and not (tmp_path / "nowhere").exists()


@pytest.mark.filterwarnings("error::RuntimeWarning")  # numpy's warnings on one shoe would reach the user's terminal
@pytest.mark.parametrize("shoes", ["1", "2"])
def test_count_draws_its_figures_where_a_gain_has_no_interval(tmp_path, shoes):
    """Too few shoes for an interval (the report says so in words, low and high None): the figure
    draws the mean alone, never a TypeError from the missing bounds."""
    result = runner.invoke(app, ["count", "--shoes", shoes, "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, (result.output, result.exception)
    report = json.loads((tmp_path / "c" / "count.json").read_text())
    gains = [
        rule[who]["expected_gain_per_shoe"] for rule in report["stop_rules"].values() for who in ("perfect", "linear")
    ]
    assert any(g["low"] is None for g in gains)  # the case the figure must draw
    assert (tmp_path / "c" / "gain.png").stat().st_size > 0
    json.loads((tmp_path / "c" / "count.json").read_text(), parse_constant=pytest.fail)  # no NaN: JSON has none
    if shoes == "1":  # one shoe has no standard error: said as none, not numpy's NaN and its warnings
        assert all(r["perfect"]["realised_minus_expected"][1] is None for r in report["stop_rules"].values())


@pytest.mark.parametrize(("option", "value"), [("--levels", ""), ("--levels", " "), ("--levels", ","), ("--algos", "")])
def test_a_benchmark_list_naming_nothing_is_refused_not_taken_for_the_default(tmp_path, option, value):
    """An unset shell variable (``--levels "$LEVELS"``) would otherwise start the default benchmark."""
    with patience():  # the default benchmark would train for minutes
        line = one_line(runner.invoke(app, ["benchmark", option, value, "--out", str(tmp_path / "b")]))
    assert f"Invalid value for '{option}': {value!r} names nothing" in line
    assert not (tmp_path / "b").exists()


def test_deal_into_a_file_refuses_more_than_the_disk_holds_before_writing(tmp_path):
    """``deal --coups 10**12 --json > file`` would write about 420 TB: refused in one line, nothing
    written (it filled the disk before); to a pipe the reader decides, so it is not checked."""
    import subprocess
    import sys

    from tests._processes import ROOT

    target = tmp_path / "coups.json"
    with target.open("w") as sink:
        done = subprocess.run([sys.executable, "-m", "experiments.cli", "deal", "--coups", str(10**12), "--json"],
                              stdout=sink, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert done.returncode == 2 and target.stat().st_size == 0
    line = done.stderr.strip()
    assert "\n" not in line and re.fullmatch(
        r"trente-lab: error: 1,000,000,000,000 coups would write about 420\.0 TB; the disk of the file it "
        r"goes to has [\d,.]+ [KMGT]?B free: deal fewer \(--coups\)",
        line,
    ), line


def test_room_is_checked_on_regular_files_only(tmp_path, monkeypatch):
    from experiments.memory import check_room

    class Disk:
        f_bavail, f_frsize = 10, 4096  # 40,960 bytes free

    monkeypatch.setattr(os, "fstatvfs", lambda fd: Disk())
    with (tmp_path / "f").open("w") as sink:
        check_room(sink, 40_960, "a run", "less")  # just fits
        with pytest.raises(LabError, match=r"^a run would write about 41\.0 KB; .* has 41\.0 KB free: less$"):
            check_room(sink, 40_961, "a run", "less")
    read, write = os.pipe()
    with os.fdopen(read), os.fdopen(write, "w") as pipe:
        check_room(pipe, 10**15, "a run", "less")  # a pipe: what reads it decides
    check_room(io.StringIO(), 10**15, "a run", "less")  # no file behind it

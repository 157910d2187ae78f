"""``trente-lab sweep``: the grid a file describes, bad input in one line, and (slow) runs whose
numbers are those of the same run done alone, on this machine and on a local Dask cluster, kept
across an interruption."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.errors import RLError
from experiments.rl import sweep as sweep_module
from experiments.rl.rig import parse_venue
from experiments.rl.sweep import SweepRun, load_sweep, parse_seeds, run_sweep
from trente_env.plan import EvalPlan

runner = CliRunner()

#: A few hundred coups of PPO on two tables: enough to train and evaluate a model, quickly.
TINY_CONFIG = """
[train]
n_envs = 2
eval_every = 1000000
eval_sessions = 2
eval_coups = 10
net_arch = [8]

[ppo]
n_steps = 64
batch_size = 64
n_epochs = 1
"""


def _write(folder: Path, sweep: str, config: str | None = None) -> Path:
    if config is not None:
        (folder / "tiny.toml").write_text(config)
    path = folder / "sweep.toml"
    path.write_text(sweep)
    return path


def test_a_grid_multiplies_out_in_order(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '[sweep]\nalgos = ["ppo", "a2c"]\ntables = ["classic", "rigged-classic"]\nseeds = "3..4"\ntimesteps = 500\n'
        "[sweep.hyper.ppo]\nlearning_rate = [0.001, 0.0003]\n[sweep.evaluate]\nepisodes = 10\n",
    )
    sweep = load_sweep(path)
    assert len(sweep.runs) == 2 * 2 * 2 + 2 * 2  # ppo: tables x seeds x rates; a2c: tables x seeds
    assert sweep.runs[0] == SweepRun("ppo", parse_venue("classic"), 3, 500, (("learning_rate", 0.001),))
    assert sweep.runs[-1] == SweepRun("a2c", parse_venue("rigged-classic"), 4, 500)
    # a run travels with its table, and is identified (its saved result found again) by the table's name
    assert sweep.runs[-1].record() == {
        "algo": "a2c",
        "table": "rigged-classic",
        "seed": 4,
        "timesteps": 500,
        "hyper": (),
    }
    assert sweep.runs[0].name == "ppo-classic-seed3-learning_rate=0.001"
    assert len({run.name for run in sweep.runs}) == len(sweep.runs)
    assert sweep.plan == EvalPlan(10, 1000, 10_000)


@pytest.mark.parametrize(
    ("value", "seeds"), [("0..2", [0, 1, 2]), ("5..5", [5]), (7, [7]), ([1, 9], [1, 9])]
)  # fmt: skip
def test_seeds(value, seeds) -> None:
    assert parse_seeds(value, "here") == seeds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[other]\n", "needs a [sweep] table"),
        ("[sweep]\nseed = 1\n", "unknown [sweep] key(s) seed"),
        ('[sweep]\nalgos = ["sac"]\n', "algos must be a list of"),
        ('[sweep]\ntables = ["nowhere"]\n', "nowhere"),
        ('[sweep]\nseeds = "4..2"\n', "seeds must be"),
        ("[sweep]\nseeds = [-1]\n", "seeds must be"),
        ("[sweep]\ntimesteps = 0\n", "timesteps must be"),
        ('[sweep]\nconfig = "missing.toml"\n', "no hyper-parameter file"),
        ("[sweep.evaluate]\nepisodes = 0\n", "episodes must be"),
        ("[sweep\n", "sweep.toml"),  # not TOML
    ],
)
def test_bad_sweep_files_are_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(RLError, match=None) as exc:
        load_sweep(path)
    assert message in str(exc.value) and "\n" not in str(exc.value)
    result = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and result.stderr.startswith("trente-lab: error: ")
    assert result.stderr.count("\n") == 1 and not (tmp_path / "out").exists()


def test_a_bad_backend_is_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "[sweep]\ntimesteps = 10\n")
    result = runner.invoke(app, ["sweep", str(path), "--backend", "dask://", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "unknown --backend" in result.stderr


# -- real runs (slow) ---------------------------------------------------------------------------


@pytest.fixture
def tiny_sweep(tmp_path: Path) -> Path:
    return _write(
        tmp_path,
        '[sweep]\ntables = ["classic"]\nseeds = "0..1"\ntimesteps = 128\nconfig = "tiny.toml"\n'
        "[sweep.evaluate]\nepisodes = 6\ncoups = 20\n",
        TINY_CONFIG,
    )


@pytest.mark.slow
@pytest.mark.needs_rl
@pytest.mark.timeout(900)
def test_each_run_is_the_same_run_done_alone_and_is_kept(
    tiny_sweep: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from experiments.rl.evaluate import evaluate_model
    from experiments.rl.train import train_agent

    sweep = load_sweep(tiny_sweep)
    document = run_sweep(sweep, tmp_path / "out")
    assert [row["name"] for row in document["runs"]] == ["ppo-classic-seed0", "ppo-classic-seed1"]
    for name in ("sweep.csv", "sweep.json", "sweep.png", "runs/ppo-classic-seed1/model.zip"):
        assert (tmp_path / "out" / name).is_file()

    # seed 1 alone, as `trente-lab train` then `trente-lab evaluate` would play it
    train_agent(
        "ppo", 128, venue=parse_venue("classic"), seed=1, out_dir=tmp_path / "alone", config_path=tmp_path / "tiny.toml"
    )
    alone = evaluate_model(str(tmp_path / "alone" / "model.zip"), EvalPlan(6, 20, 10_000))
    row = document["runs"][1]
    assert row["return_per_unit"] == alone["return_per_unit_staked"]["ratio"]
    assert (row["ci_low"], row["ci_high"]) == (
        alone["return_per_unit_staked"]["ci_low"],
        alone["return_per_unit_staked"]["ci_high"],
    )

    # run again: every run is kept (none is trained), and the table is the same
    def no_training(*args, **kwargs):
        raise AssertionError("a saved run was played again")

    monkeypatch.setattr(sweep_module, "play_run", no_training)
    assert run_sweep(sweep, tmp_path / "out")["runs"] == json.loads(json.dumps(document["runs"]))

    # a run saved by another sweep (other evaluation settings) is not mixed in: it is played again
    played = []
    monkeypatch.setattr(sweep_module, "play_run", lambda s, run: played.append(run.name) or no_training())
    other = load_sweep(_write(tmp_path, tiny_sweep.read_text().replace("episodes = 6", "episodes = 7")))
    with pytest.raises(AssertionError):
        run_sweep(other, tmp_path / "out")
    assert played == ["ppo-classic-seed0"]


@pytest.mark.slow
@pytest.mark.needs_rl
@pytest.mark.timeout(900)
def test_a_local_dask_cluster_gives_the_same_runs(tiny_sweep: Path, tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="the Dask backend needs the distributed extra")
    from experiments.backends import Backend

    sweep = load_sweep(tiny_sweep)
    local = run_sweep(sweep, tmp_path / "local")
    cluster = run_sweep(sweep, tmp_path / "dask", Backend("dask"), workers=2)
    keys = ("name", "return_per_unit", "ci_low", "ci_high", "expected_return_per_unit", "sat_out", "timesteps")
    assert [{k: r[k] for k in keys} for r in cluster["runs"]] == [{k: r[k] for k in keys} for r in local["runs"]]


def test_the_shipped_sweep_is_found_by_name() -> None:
    sweep = load_sweep("sweep-seeds")
    assert len(sweep.runs) == 2 * 2 * 10  # algos x tables x seeds
    assert {run.venue.name for run in sweep.runs} == {"classic", "rigged-classic"}

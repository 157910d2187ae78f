"""Nothing silently wrong around models, training and specs: a model file never runs code unless
trusted, training refuses what would break it before it starts (and keeps the steps done when
interrupted), sizes beyond the machine's memory are refused before allocation, a plugin's failure is
one line naming it, and spec strings refuse what they used to read as something else."""

from __future__ import annotations

import base64
import json
import os
import pickle
import shutil
import signal
import sys
import textwrap
import zipfile
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from experiments.cli import app
from experiments.cli.trust import WARNING
from experiments.errors import LabError, RLError
from strategies.registry import StrategyError, make_strategy, parse_spec, parse_value

runner = CliRunner()

#: A training run as small as train takes: two tables, updates of 64 steps, evaluations of 2 short sessions.
TINY = """
[train]
n_envs = 2
eval_every = 1000000
eval_sessions = 2
eval_coups = 10
[ppo]
n_steps = 32
batch_size = 64
n_epochs = 1
[dqn]
buffer_size = 200
learning_starts = 0
batch_size = 16
train_freq = 4
"""


def one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("trente-lab: error:"), result.output
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture(autouse=True)
def _untrusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Model files are not trusted unless a test says so, whatever the environment running the tests."""
    from strategies.model import TRUST_VARIABLE

    monkeypatch.delenv(TRUST_VARIABLE, raising=False)


@pytest.fixture(scope="module")
def tiny_config(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("config") / "tiny.toml"
    path.write_text(TINY)
    return path


def _train(config: Path, out: Path, algo: str = "ppo", timesteps: int = 64, **kwargs) -> dict:
    from experiments.rl.train import train_agent

    return train_agent(algo, timesteps, out_dir=out, config_path=config, eval_every=10**9, **kwargs)


@pytest.fixture(scope="module")
def lab_model(tmp_path_factory, tiny_config) -> Path:
    """A model saved by train (model.zip and its model.json)."""
    pytest.importorskip("stable_baselines3")
    return Path(_train(tiny_config, tmp_path_factory.mktemp("lab") / "run")["files"]["model"])


# -- models: nothing in a file runs code unless trusted ------------------------------------------


class _CreatesFile:
    """Unpickled, it creates ``path``: what an attacker's zip would do with os.system."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):
        return (exec, (f"open({str(self.path)!r}, 'w').close()",))


def _crafted(lab_model: Path, where: Path, marker: Path, *, description: bool, weights: bool = False) -> Path:
    """A copy of ``lab_model`` whose ``data`` holds a pickle that creates ``marker`` (and, with
    ``weights``, whose ``policy.pth`` does too); with ``description``, the lab's model.json beside it."""
    where.mkdir(parents=True, exist_ok=True)
    target = where / "model.zip"
    with zipfile.ZipFile(lab_model) as source, zipfile.ZipFile(target, "w") as crafted:
        for name in source.namelist():
            content = source.read(name)
            if name == "data":
                data = json.loads(content)
                data["policy_class"][":serialized:"] = base64.b64encode(pickle.dumps(_CreatesFile(marker))).decode()
                content = json.dumps(data).encode()
            elif name == "policy.pth" and weights:
                import io

                import torch

                buffer = io.BytesIO()
                torch.save(_CreatesFile(marker), buffer)
                content = buffer.getvalue()
            crafted.writestr(name, content)
    if description:
        shutil.copy(lab_model.with_suffix(".json"), target.with_suffix(".json"))
    return target


@pytest.mark.needs_rl
@pytest.mark.parametrize(
    "command",
    [
        ["evaluate", "{zip}", "-n", "2", "--coups", "5"],
        ["evaluate", "model:{zip}", "-n", "2", "--coups", "5"],
        ["strategies", "model:{zip}"],
        ["tournament", "--strategies", "flat,model:{zip}", "-n", "2", "-m", "5", "--no-plots", "--out", "{out}"],
    ],
)
def test_a_crafted_zip_without_the_lab_description_runs_nothing_without_the_flag(
    lab_model: Path, tmp_path: Path, command: list[str]
) -> None:
    marker = tmp_path / "created"
    model = _crafted(lab_model, tmp_path / "bare", marker, description=False)
    args = [a.format(zip=model, out=tmp_path / "t") for a in command]
    line = one_line_error(runner.invoke(app, args))
    assert "--trust-model" in line and "unpickle" in line
    assert not marker.exists()


@pytest.mark.needs_rl
def test_the_flag_unpickles_so_the_crafted_file_runs(lab_model: Path, tmp_path: Path) -> None:
    """The test above can fail: with --trust-model the same file does run its code."""
    from strategies.model import TRUST_VARIABLE

    marker = tmp_path / "created"
    model = _crafted(lab_model, tmp_path / "bare", marker, description=False)
    result = runner.invoke(app, ["evaluate", str(model), "-n", "2", "--coups", "5", "--trust-model"])
    assert marker.exists()
    assert WARNING in " ".join(result.output.split())
    assert result.exit_code == 2 and "Traceback" not in result.output  # the payload broke SB3's loading: one line
    assert TRUST_VARIABLE not in os.environ  # the trust ends with the command


@pytest.mark.needs_rl
def test_a_lab_model_is_read_without_unpickling_its_data(lab_model: Path, tmp_path: Path) -> None:
    """The lab's description beside a file whose data would run code: the weights are read, the data never."""
    marker = tmp_path / "created"
    model = _crafted(lab_model, tmp_path / "dressed", marker, description=True)
    result = runner.invoke(app, ["evaluate", str(model), "-n", "2", "--coups", "5", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["algo"] == "ppo"
    assert not marker.exists()


@pytest.mark.needs_rl
def test_weights_that_are_not_tensors_are_refused_and_run_nothing(lab_model: Path, tmp_path: Path) -> None:
    marker = tmp_path / "created"
    model = _crafted(lab_model, tmp_path / "weights", marker, description=True, weights=True)
    assert "cannot read the weights" in one_line_error(runner.invoke(app, ["evaluate", str(model), "-n", "2"]))
    assert "cannot read the weights" in one_line_error(runner.invoke(app, ["strategies", f"model:{model}"]))
    assert not marker.exists()
    runner.invoke(app, ["evaluate", str(model), "-n", "2", "--trust-model"])  # SB3's loading, as asked
    assert marker.exists()


@pytest.mark.needs_rl
@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_models_saved_before_network_was_written_play_as_sb3_loads_them(
    tiny_config: Path, tmp_path: Path, algo: str
) -> None:
    """A model.json without ``network`` (as train wrote them before): rebuilt from its train settings,
    the same weights and the same bets as SB3's own (unpickling) loading."""
    import stable_baselines3 as sb3
    import torch

    from strategies.model import ModelPolicy
    from trente_env.vector import TrenteEtQuaranteVectorEnv

    path = Path(_train(tiny_config, tmp_path / "run", algo, 128)["files"]["model"])
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["network"] == {"policy": "MlpPolicy", "features": "LogScaledFlat", "net_arch": [64, 64]}
    del meta["network"], meta["partial"], meta["timesteps_asked"]
    path.with_suffix(".json").write_text(json.dumps(meta))
    safe = ModelPolicy(path, trust=False)
    reference = ModelPolicy.of(getattr(sb3, algo.upper()).load(path, device="cpu"), algo, meta)
    for (name, mine), (other, theirs) in zip(
        safe.model.policy.state_dict().items(), reference.model.policy.state_dict().items(), strict=True
    ):
        assert name == other and torch.equal(mine, theirs), name
    venv = TrenteEtQuaranteVectorEnv(32, action_form="discrete", observation="flat")
    venv.action_space.seed(0)
    obs, _ = venv.reset(seed=list(range(32)))
    for _ in range(20):
        assert np.array_equal(safe.act(obs)[0], reference.act(obs)[0])
        obs, *_ = venv.step(venv.action_space.sample())


@pytest.mark.needs_rl
def test_a_description_that_does_not_fit_the_weights_is_one_line(lab_model: Path, tmp_path: Path) -> None:
    folder = tmp_path / "other"
    folder.mkdir()
    shutil.copy(lab_model, folder / "model.zip")
    meta = json.loads(lab_model.with_suffix(".json").read_text())
    meta["network"]["net_arch"] = [32]
    (folder / "model.json").write_text(json.dumps(meta))
    line = one_line_error(runner.invoke(app, ["evaluate", str(folder / "model.zip")]))
    assert "does not describe" in line and "do not fit the network" in line


@pytest.mark.needs_rl
def test_train_goes_on_only_from_a_described_model_unless_trusted(
    lab_model: Path, tiny_config: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(lab_model, folder / "model.zip")
    meta = json.loads(lab_model.with_suffix(".json").read_text())
    meta["env"].pop("history")  # a description the lab cannot rebuild the network from
    (folder / "model.json").write_text(json.dumps(meta))
    args = ["train", "--from", str(folder / "model.zip"), "--config", str(tiny_config), "-t", "64"]
    assert "--trust-model" in one_line_error(runner.invoke(app, [*args, "--out", str(tmp_path / "a")]))
    assert not (tmp_path / "a").exists()
    trusted = runner.invoke(app, [*args, "--out", str(tmp_path / "b"), "--trust-model", "--json"])
    assert trusted.exit_code == 0, trusted.output
    assert (tmp_path / "b" / "model.zip").is_file()


@pytest.mark.needs_rl
def test_a_model_spec_refuses_an_empty_or_other_algo(lab_model: Path) -> None:
    assert "unknown algo ''" in one_line_error(runner.invoke(app, ["evaluate", str(lab_model), "--algo", ""]))
    assert "not dqn" in one_line_error(runner.invoke(app, ["evaluate", str(lab_model), "--algo", "dqn"]))
    with pytest.raises(StrategyError, match="unknown algo ''"):
        make_strategy(f"{lab_model}:algo=")


def test_evaluate_refuses_an_empty_table_and_algo_for_a_strategy() -> None:
    assert "unknown table ''" in one_line_error(runner.invoke(app, ["evaluate", "flat", "--rules", "", "-n", "2"]))
    assert "--algo is for a model file" in one_line_error(runner.invoke(app, ["evaluate", "flat", "--algo", ""]))


# -- train: checked before it starts, kept when interrupted --------------------------------------


@pytest.mark.needs_rl
@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ("gamma=2", "gamma"),
        ("gamma=-0.1", "gamma"),
        ("gamma=nan", "gamma"),
        ("gae_lambda=1.5", "gae_lambda"),
        ("learning_rate=0", "learning_rate"),
        ("learning_rate=inf", "learning_rate"),
        ('learning_rate="fast"', "learning_rate"),
        ("clip_range=-1", "clip_range"),
        ("ent_coef=-0.01", "ent_coef"),
        ("n_steps=0", "n_steps"),
        ("n_epochs=2.5", "n_epochs"),
        # SB3's own check, through its constructor (it refuses minibatches of 1 only where it
        # normalises advantages, which the shipped PPO does not)
        ("normalize_advantage=true batch_size=1", "batch_size"),
        ("bogus=1", "bogus"),  # a name the constructor does not take
    ],
)
def test_a_hyper_parameter_out_of_range_is_one_line_before_anything_is_written(
    tmp_path: Path, setting: str, named: str
) -> None:
    sets = [arg for one in setting.split() for arg in ("--set", one)]
    line = one_line_error(runner.invoke(app, ["train", "-t", "64", *sets, "--out", str(tmp_path / "r")]))
    assert "bad hyper-parameters for ppo" in line and named in line
    assert not (tmp_path / "r").exists()


@given(gamma=st.floats(allow_nan=True, allow_infinity=True))
def test_gamma_is_accepted_exactly_in_zero_to_one(gamma: float) -> None:
    from experiments.rl.config import check_hyper

    if 0.0 <= gamma <= 1.0:
        check_hyper("ppo", {"gamma": gamma})
    else:
        with pytest.raises(RLError, match="gamma"):
            check_hyper("ppo", {"gamma": gamma})


@pytest.mark.needs_rl
def test_a_config_file_hyper_parameter_is_checked_too(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[dqn]\nexploration_final_eps = 1.5\n")
    line = one_line_error(
        runner.invoke(app, ["train", "--algo", "dqn", "--config", str(config), "--out", str(tmp_path)])
    )
    assert "exploration_final_eps" in line


def _small_machine(monkeypatch: pytest.MonkeyPatch, size: int = 16 * 2**30) -> None:
    """This machine has ``size`` bytes (16 GiB): the refusals below do not depend on the one running them."""
    import experiments.tournament.runner

    monkeypatch.setattr(experiments.tournament.runner, "machine_memory", lambda: size)


@pytest.mark.parametrize("spec", ["flat", "martingale"])
def test_evaluate_refuses_sessions_beyond_the_memory_in_one_line(monkeypatch, spec: str) -> None:
    """evaluate plays its --episodes at once, a table each: more than the memory holds is one line
    naming the sessions and the option, not the vector env's ValueError as a traceback."""
    import trente_env.tables

    monkeypatch.setattr(trente_env.tables, "machine_memory", lambda: 2**20)  # a megabyte: not 10,000 tables
    line = one_line_error(runner.invoke(app, ["evaluate", spec, "--episodes", "10000", "--coups", "5"]))
    assert "10,000 sessions: 10,000 tables would need about" in line and "play fewer (--episodes)" in line


@pytest.mark.needs_rl
def test_train_refuses_tables_beyond_the_memory_before_allocating(tmp_path: Path, monkeypatch) -> None:
    from experiments.rl.config import load_config
    from experiments.rl.rig import parse_venue
    from experiments.rl.train import training_memory
    from trente_env.layout import Layout

    _small_machine(monkeypatch)
    line = one_line_error(runner.invoke(app, ["train", "--n-envs", "1000000", "--out", str(tmp_path / "r")]))
    assert "1,000,000 tables" in line and "memory" in line
    assert not (tmp_path / "r").exists()
    # the rollout buffer is what grows: n_steps x 1,000,000 tables x 100 float32 observations (> 11 GiB)
    layout = Layout(parse_venue("classic").rules, "discrete", "flat", 10, False, (1, 5, 25, 100))
    config = load_config("ppo")
    assert training_memory(config, 10**6, layout) > config.hyper["n_steps"] * 10**6 * 100 * 4
    assert training_memory(load_config("ppo"), 8, layout) < 2**30  # the default run passes the check


@pytest.mark.needs_rl
def test_train_refuses_cuda_without_cuda(tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    line = one_line_error(runner.invoke(app, ["train", "--device", "cuda", "--out", str(tmp_path / "r")]))
    assert "no CUDA device" in line
    assert not (tmp_path / "r").exists()


@pytest.mark.needs_rl
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is sent to the process")
def test_an_interrupted_training_keeps_the_steps_done_and_goes_on(
    tiny_config: Path, tmp_path: Path, monkeypatch
) -> None:
    """Ctrl-C (SIGINT) arrives at the second evaluation: the model of the steps done is saved, marked
    partial, and --from goes on from it."""
    import experiments.rl.train as train

    evaluations = []
    evaluate = train.evaluate_now

    def interrupted_at_the_second(*args, **kwargs):
        evaluations.append(1)
        if len(evaluations) == 2:
            signal.raise_signal(signal.SIGINT)
        return evaluate(*args, **kwargs)

    monkeypatch.setattr(train, "evaluate_now", interrupted_at_the_second)
    result = runner.invoke(
        app,
        ["train", "-t", "1000000", "--config", str(tiny_config), "--eval-every", "64", "--out", str(tmp_path / "a")],
    )
    assert result.exit_code == 130, result.output
    assert "(model.json says partial)" in " ".join(result.output.split())
    meta = json.loads((tmp_path / "a" / "model.json").read_text())
    assert meta["partial"] is True and meta["timesteps_asked"] == 1_000_000
    assert 64 <= meta["timesteps"] < 1_000_000
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C is itself again
    monkeypatch.setattr(train, "evaluate_now", evaluate)
    summary = _train(tiny_config, tmp_path / "b", timesteps=64, start_from=tmp_path / "a" / "model.zip")
    again = json.loads(Path(summary["files"]["metadata"]).read_text())
    assert again["partial"] is False and again["timesteps"] >= meta["timesteps"] + 64


# -- sizes beyond the memory: refused before allocation ------------------------------------------


def test_fallacy_refuses_a_companion_run_beyond_the_memory(tmp_path: Path, monkeypatch) -> None:
    from experiments.teaching.fallacy import check_companion, companion_memory

    _small_machine(monkeypatch)
    args = ["fallacy", "--sessions", "1000000", "--session-coups", "100000", "--coups", "1000"]
    line = one_line_error(runner.invoke(app, args))
    assert "1,000,000 sessions of 100,000 coups" in line and "memory" in line
    # the array that failed: (1,000,000 sessions, 25,008 shuffle seeds) of uint64, 186 GiB
    assert companion_memory(10**6, 100_000, 3) > 10**6 * 25_008 * 8
    check_companion(5000, 400, 3)  # the default passes


def test_count_refuses_shoes_beyond_the_memory(monkeypatch) -> None:
    from experiments.game.count import count_report

    _small_machine(monkeypatch, 2**20)  # a megabyte: a thousand shoes of three stop rules do not fit
    line = one_line_error(runner.invoke(app, ["count", "--shoes", "1000"]))
    assert "1,000 shoes x 3 stop rules" in line and "memory" in line
    with pytest.raises(LabError, match="memory"):
        count_report(shoes=1000)


# -- plugins that raise: one line naming them ----------------------------------------------------

PLUGIN = '''
from dataclasses import dataclass
from typing import ClassVar

from strategies.progressions import Progression


@dataclass(frozen=True)
class AtBirth(Progression):
    """Raises when made."""

    name: ClassVar[str] = "at-birth"

    def __post_init__(self):
        raise RuntimeError("the plugin's own bug")


@dataclass(frozen=True)
class AtPlay(Progression):
    """Raises when it bets."""

    name: ClassVar[str] = "at-play"

    def _bet(self, state):
        return 1 // 0
'''


@pytest.fixture
def broken_plugins(tmp_path, monkeypatch):
    (tmp_path / "broken_systems.py").write_text(textwrap.dedent(PLUGIN))
    (tmp_path / "broken_import.py").write_text("raise ImportError('a missing dependency of the plugin')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("broken_systems", "broken_import"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize(
    ("spec", "when"), [("broken_systems:AtBirth", "being made"), ("broken_systems:AtPlay", "playing")]
)
@pytest.mark.parametrize("command", ["evaluate", "tournament", "strategies"])
def test_a_plugin_that_raises_is_one_line_naming_it(broken_plugins, spec: str, when: str, command: str) -> None:
    args = {
        "evaluate": ["evaluate", spec, "-n", "2", "--coups", "5"],
        "tournament": ["tournament", "--strategies", f"flat,{spec}", "-n", "2", "-m", "5", "--no-plots", "--out",
                       str(broken_plugins / "t")],
        "strategies": ["strategies", spec],
    }[command]  # fmt: skip
    result = runner.invoke(app, args)
    if command == "strategies" and when == "playing":  # shown, not played
        assert result.exit_code == 0, result.output
        return
    line = one_line_error(result)
    assert f"plugin {spec!r} failed while {when}" in line


def test_an_installed_plugin_that_fails_to_load_is_one_line_naming_it(broken_plugins, monkeypatch) -> None:
    import strategies.registry as registry

    entry = metadata.EntryPoint(name="brittle", value="broken_import:Anything", group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "plugin_entry_points", lambda: {"brittle": entry})
    line = one_line_error(runner.invoke(app, ["strategies", "brittle"]))
    assert "plugin 'brittle'" in line and "a missing dependency of the plugin" in line


def test_a_built_in_failing_is_not_blamed_on_a_plugin() -> None:
    from strategies.registry import plugin_failure

    assert plugin_failure(make_strategy("flat"), ZeroDivisionError("x"), "playing") is None


# -- silently accepted values, refused -----------------------------------------------------------


def test_strategies_refuses_an_unknown_table() -> None:
    assert "nope" in one_line_error(runner.invoke(app, ["strategies", "--rules", "nope"]))
    assert "nope" in one_line_error(runner.invoke(app, ["strategies", "flat", "--rules", "nope"]))


KEYS = st.sampled_from(["base", "box", "stop_win", "stop-win"])
VALUES = st.sampled_from(["1", "2", "rouge", "noir", "5"])


@settings(max_examples=60)
@given(key=KEYS, first=VALUES, second=VALUES, system=st.sampled_from(["flat", "martingale", "paroli"]))
def test_a_spec_that_gives_a_key_twice_is_refused(key: str, first: str, second: str, system: str) -> None:
    with pytest.raises(StrategyError, match="given twice"):
        parse_spec(f"{system}:{key}={first},{key.replace('-', '_')}={second}")


@settings(max_examples=80)
@given(line=st.lists(st.integers(1, 50), min_size=1, max_size=6), where=st.integers(0, 6))
def test_a_list_with_an_empty_place_is_refused_and_a_written_list_reads_back(line: list[int], where: int) -> None:
    written = "-".join(map(str, line))
    assert parse_value(written, tuple[int, ...]) == tuple(line)
    assert make_strategy(f"labouchere:line={written}").line == tuple(line)
    items = [str(n) for n in line]
    items.insert(min(where, len(items)), "")  # -1-2, 1--2 or 1-2-
    with pytest.raises(StrategyError, match="no empty place"):
        make_strategy(f"labouchere:line={'-'.join(items)}")


def test_the_issue_s_labouchere_line_is_refused() -> None:
    line = one_line_error(runner.invoke(app, ["strategies", "labouchere:line=-1-2"]))
    assert "line='-1-2'" in line

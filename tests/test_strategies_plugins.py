"""Plugins are identified exactly: a strategy's spec makes the same class again, a plugin named like a
built-in is never swapped for it, and the commands that load plugins say that loading runs code."""

from __future__ import annotations

import json
import re
import textwrap
from importlib import metadata

import pytest
from typer.testing import CliRunner

import strategies.registry as registry
from experiments.cli import app
from experiments.errors import TournamentError
from experiments.tournament.config import make_config
from experiments.tournament.runner import run_tournament
from strategies.progressions import Flat
from strategies.registry import STRATEGIES, make_strategy, spec_name

runner = CliRunner()

PLUGINS = '''
from dataclasses import dataclass
from typing import ClassVar

from strategies.progressions import Progression


@dataclass(frozen=True)
class Triple(Progression):
    """Triple the stake after a loss, back to one unit after a win."""

    name: ClassVar[str] = "triple"

    def _update(self, state, win, loss, amount):
        state.memory["units"][win] = 1
        state.memory["units"][loss] *= 3


@dataclass(frozen=True)
class TwoUnits(Progression):
    """Two units a coup, under a built-in's name."""

    name: ClassVar[str] = "flat"

    def _bet(self, state):
        return self.box.index, 2 * self.base * state.memory["units"]


@dataclass(frozen=True)
class Liar(TwoUnits):
    """Two units a coup, with a spec that names the built-in flat."""

    name: ClassVar[str] = "liar"

    def spec(self):
        return "flat"
'''


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    (tmp_path / "my_systems.py").write_text(textwrap.dedent(PLUGINS))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield
    import sys

    sys.modules.pop("my_systems", None)


def test_a_plugin_named_by_path_has_a_spec_that_makes_it_again(plugins):
    for spec in ("my_systems:Triple", "my_systems:Triple:base=2,box=rouge"):
        policy = make_strategy(spec)
        assert policy.spec() == spec
        again = make_strategy(policy.spec())
        assert type(again) is type(policy) and again.params() == policy.params()


def test_built_ins_keep_their_names():
    for name, cls in STRATEGIES.items():
        assert spec_name(cls) == name
        assert type(make_strategy(make_strategy(name).spec())) is cls


def test_a_plugin_with_a_built_ins_name_is_never_the_built_in(plugins):
    policy = make_strategy("my_systems:TwoUnits:base=3")
    assert policy.name == "flat" and policy.spec() == "my_systems:TwoUnits:base=3"
    assert type(make_strategy(policy.spec())).__name__ == "TwoUnits"
    assert type(make_strategy("flat")) is Flat


def test_an_installed_plugin_is_named_by_its_entry_point(plugins, monkeypatch):
    points = {
        "triple": metadata.EntryPoint("triple", "my_systems:Triple", registry.ENTRY_POINT_GROUP),
        "flat": metadata.EntryPoint("flat", "my_systems:TwoUnits", registry.ENTRY_POINT_GROUP),
    }
    monkeypatch.setattr(registry, "plugin_entry_points", lambda: points)
    assert make_strategy("triple:base=2").spec() == "triple:base=2"
    # an entry point with a built-in's name cannot be reached by it: its spec is its path
    assert make_strategy("my_systems:TwoUnits").spec() == "my_systems:TwoUnits"
    assert type(make_strategy("flat")) is Flat


def test_the_issues_reproducer_runs(plugins, tmp_path):
    result = runner.invoke(
        app, ["tournament", "--strategies", "my_systems:Triple,flat", "-n", "30", "-m", "20", "--out",
              str(tmp_path / "o"), "--no-plots", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["strategies"]
    assert rows["my_systems:Triple"]["spec"] == "my_systems:Triple" and rows["flat"]["spec"] == "flat"
    assert rows["my_systems:Triple"]["total_staked"] > rows["flat"]["total_staked"] == 30 * 20


def test_a_plugin_named_like_a_built_in_plays_its_own_rules(plugins, tmp_path):
    # Two units a coup against one, on the same shoes: twice the stakes and twice the net, in the
    # main process and in spawned worker processes (which make every system again from its spec).
    config = make_config("my_systems:TwoUnits,flat", sessions=40, coups=25, seed=3, block=10)
    assert config.specs == ("my_systems:TwoUnits", "flat")
    one = run_tournament(config, tmp_path / "one", plots=False)
    two = run_tournament(config, tmp_path / "two", workers=2, plots=False)
    assert one["strategies"] == two["strategies"]
    plugin, flat = one["strategies"]["my_systems:TwoUnits"], one["strategies"]["flat"]
    assert plugin["total_staked"] == 2 * flat["total_staked"] == 2 * 40 * 25
    assert plugin["net"] == pytest.approx(2 * flat["net"])


def test_a_plugins_source_is_part_of_the_run_identity(plugins, tmp_path):
    from experiments.tournament.checkpoints import run_identity

    config = make_config("my_systems:Triple,flat", sessions=4, coups=3)
    before = run_identity(config)
    (tmp_path / "my_systems.py").write_text(textwrap.dedent(PLUGINS).replace("*= 3", "*= 4"))
    after = run_identity(config)
    assert before.config_hash == after.config_hash and before.code_hash != after.code_hash


def test_a_spec_that_does_not_make_the_strategy_again_is_refused(plugins):
    with pytest.raises(TournamentError) as error:
        make_config("my_systems:Liar")
    assert str(error.value) == (
        "strategy 'my_systems:Liar' is not made again by its spec 'flat'; name its class by path"
    )


def _help(*args: str) -> str:
    result = runner.invoke(app, [*args, "--help"])
    assert result.exit_code == 0
    return re.sub(r"[\s│]+", " ", result.stdout)


def test_the_help_says_that_loading_runs_code():
    text = _help("tournament")
    assert "Loading a plugin runs its code (--strategies, --resume)" in text
    assert "A plugin (module:Class) runs its code when loaded" in text
    assert "A model file (.zip) not saved by train needs --trust-model" in text
    assert "The plugins and model files its manifest names are loaded, which runs their code" in text

"""``trente-lab train --observe-shoe``: an agent that sees the unseen cards, as a counter does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.errors import RLError
from trente_env.plan import EvalPlan


@pytest.mark.slow
@pytest.mark.needs_rl
def test_an_agent_trains_on_the_shoe_and_plays_where_the_shoe_is_observed(tmp_path: Path) -> None:
    from experiments.rl.evaluate import evaluate_model
    from experiments.rl.rig import parse_venue
    from experiments.rl.train import train_agent
    from experiments.tournament.config import make_config
    from experiments.tournament.runner import run_tournament
    from strategies.registry import make_strategy
    from trente_env.codes import SHOE_SIZE
    from trente_env.rules import get_rules

    summary = train_agent(
        "ppo",
        2048,
        parse_venue("exhaustion"),
        seed=3,
        out_dir=tmp_path / "ppo",
        n_envs=4,
        eval_every=10**9,
        observe_shoe=True,
    )
    files = summary["files"]
    meta = json.loads(Path(files["metadata"]).read_text())
    assert meta["env"]["observe_shoe"] is True and meta["table"] == "exhaustion"
    policy = make_strategy(files["model"])
    assert policy.env_kwargs()["observe_shoe"] is True
    width = policy.model.observation_space.shape[0]
    assert width == meta["env"]["history"] * 9 + 10 + SHOE_SIZE + 1  # the shoe and the cards left are inputs
    report = evaluate_model(files["model"], EvalPlan(6, 40, 5), parse_venue("exhaustion"))
    assert report["sessions"] == 6
    config = make_config(f"counter,model:{files['model']}", sessions=6, coups=40, seed=5, rules=get_rules("exhaustion"))
    doc = run_tournament(config, tmp_path / "tournament", plots=False)
    model = doc["strategies"][f"model:{files['model']}"]
    assert (report["net"], report["total_staked"]) == (model["net"], model["total_staked"])
    assert doc["strategies"]["counter"]["sessions"] == 6
    with pytest.raises(RLError, match="another observation"):
        train_agent("ppo", 64, parse_venue("exhaustion"), out_dir=tmp_path / "again", start_from=files["model"])

"""Property test of the tournament's compiled session loop (:func:`strategies.sessions.play_compiled`):
random systems with random parameters, tiny bankrolls and low table maxima, every preset.

The loop must not crash (its settlement refuses, in the kernel, any stake above the money in hand
or the table maximum), no bankroll may go below zero after any coup, every figure must add up, and
every number must equal what the same system gets on the vector environment through its ``act``
(:func:`strategies.runner.play_on_env`, whose every coup the vector env fuzz tests check).
40 examples of 1 to 4 systems, 1 to 8 sessions of up to 40 coups (a few seconds).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import make_strategy
from strategies.runner import play_on_env, session_seed
from strategies.sessions import play_compiled
from trente_env.rules import PRESETS, RIGGED_PRESETS, get_rules

UNITS = st.lists(st.integers(1, 9), min_size=1, max_size=5).map(lambda v: "-".join(map(str, v)))


@st.composite
def systems(draw: st.DrawFn, boxes: tuple[str, ...], insurance: bool, table_max: int) -> str:
    """A spec string of a built-in system with random parameters."""
    name = draw(
        st.sampled_from(
            [
                "never",
                "flat",
                "martingale",
                "grand-martingale",
                "reverse-martingale",
                "paroli",
                "1-3-2-6",
                "dalembert",
                "contra-dalembert",
                "fibonacci",
                "labouchere",
                "oscars-grind",
                "streak",
                "anti-streak",
                "random",
            ]  # fmt: skip
        )
    )
    params = {
        "base": draw(st.integers(1, min(3, table_max))),
        "on_limit": draw(st.sampled_from(["reset", "cap"])),
        "refait": draw(st.sampled_from(["loss", "wait"])),
        "insure": "true" if insurance and draw(st.booleans()) else "false",
        "to_prison": draw(st.sampled_from(["true", "false"])),
    }
    for key in ("stop_win", "stop_loss"):
        if draw(st.booleans()):
            params[key] = draw(st.integers(1, 40))
    own = {
        "paroli": {"steps": st.integers(1, 6)},
        "1-3-2-6": {"sequence": UNITS},
        "dalembert": {"step": st.integers(1, 4)},
        "contra-dalembert": {"step": st.integers(1, 4)},
        "fibonacci": {"back": st.integers(1, 3)},
        "labouchere": {"line": UNITS},
        "oscars-grind": {"goal": st.integers(1, 4)},
        "streak": {
            "k": st.integers(1, 4),
            "column": st.sampled_from(["colour", "couleur"] if len(boxes) > 2 else ["colour"]),
        },
        "random": {
            "p_bet": st.sampled_from([0.3, 0.7, 1.0]),
            "seed": st.integers(0, 2**63 - 1),
            "boxes": st.lists(st.sampled_from(boxes), min_size=1, max_size=3).map("-".join),
        },
    }
    own["anti-streak"] = own["streak"]
    if name not in ("never", "random", "streak", "anti-streak"):
        params["box"] = draw(st.sampled_from(boxes))
    for key, values in own.get(name, {}).items():
        params[key] = draw(values)
    return name + ":" + ",".join(f"{k}={v}" for k, v in params.items())


@settings(max_examples=40)
@given(data=st.data())
def test_random_systems_on_tiny_bankrolls_and_low_tables(data: st.DataObject) -> None:
    preset = data.draw(st.sampled_from([*PRESETS, *RIGGED_PRESETS]))
    table_max = data.draw(st.integers(1, 40))
    rules = get_rules(preset, table_max=float(table_max))
    specs = data.draw(st.lists(systems(rules.boxes, rules.insurance, table_max), min_size=1, max_size=4))
    policies = [make_strategy(spec, rules) for spec in specs]
    bankroll = data.draw(st.integers(100, 6000)) / 100
    coups = data.draw(st.integers(0, 40))
    seeds = [session_seed(data.draw(st.integers(0, 1000)), i) for i in range(data.draw(st.integers(1, 8)))]
    threads = data.draw(st.sampled_from([1, 2]))
    got = play_compiled(policies, rules, bankroll, coups, seeds, keep=len(seeds), threads=threads)
    for spec, policy, fast in zip(specs, policies, got):
        assert (fast["final_bankroll"] >= 0).all() and (fast["trajectories"] >= 0).all(), spec
        assert np.array_equal(fast["final_bankroll"], bankroll + fast["net"])
        assert (fast["staked"] >= 0).all() and np.isclose(fast["box_stakes"].sum(), fast["staked"].sum())
        assert ((fast["coups"] >= 0) & (fast["coups"] <= coups)).all()
        assert np.array_equal(fast["ruined"], fast["final_bankroll"] < rules.table_min)
        want = play_on_env(policy, rules, bankroll, coups, seeds, keep=len(seeds))
        for key in want:
            assert np.array_equal(fast[key], want[key]), (spec, key)

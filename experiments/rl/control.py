"""The headline RL result, end to end: the same agent on the fair table and on the rigged one.

A positive control. On the fair table (``classic``) no policy can beat the refait: the best return
is 0, by not betting, and with the shipped settings (``experiments/configs/rl.toml``: gamma 0, no
entropy bonus) the agent learns to sit out (docs/rl.md has the measurements); an agent that stakes
loses about the house edge (1.12%) on what it stakes. On its rigged twin
(``rigged-classic``: a Noir win pays 3:2 right after a coup won by Noir and 1:2 otherwise,
docs/rules.md#the-rigged-table-positive-control) every policy blind to the scoreboard still loses
(always Noir about -3.6% per unit staked, any other box -1.1%, never betting 0); only a policy that
reads the last coup and bets Noir right after a Noir win gains (about +21%). So an agent that ends
above 0 there has read its observation; an agent that merely learnt to bet Noir would lose.

Everything is played on the same shoes: the agent of each table and the reference policies (always
Noir, flat Rouge, never, and the ideal state-aware rule) play the same evaluation sessions (the same
session seeds) on the fair table and on the rigged one, each beside its exact expectation
(:func:`trente_env.odds.rig_expectations`, first-coup odds with consecutive coups taken as
independent; the measured returns of the reference policies show how far real shoes are from that).

Both agents are trained with ``trente-lab train``'s defaults, the same on both tables (a witness
tuned to the table it is judged on would prove nothing), and scored against the table's exact
optimum (:mod:`experiments.rl.score`): the share of the optimum per coup on the rigged table (the
largest stake on Noir right after a Noir win; "ideal" is ideal among uninsured stakes, the only ones
the agents place), the coups sat out and the loss per coup against a 1-unit flat bettor's on the
fair one.

Run: ``trente-lab control [--algo ppo] [--timesteps 1000000] [--out runs/control]``. Writes into
``--out`` only: both runs (models, curves), ``control.json`` (every figure) and the figure
``rl_control.png``.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from experiments.files import atomic_write_json, check_output_folder, pyplot, save_figure
from experiments.rl.config import load_config
from experiments.rl.evaluate import evaluate_model, evaluation_report, watch_sessions
from experiments.rl.rig import RIGGED_PREFIX, Venue, parse_venue
from experiments.rl.score import optimum, score
from experiments.rl.train import train_agent
from strategies.ideal import IdealRig
from strategies.registry import make_strategy
from trente_env.odds import rig_expectations
from trente_env.plan import EVAL_PLAN, EvalPlan
from trente_env.rules import RIG, get_rules

#: The fair table of the control; its rigged twin is ``rigged-<PRESET>``.
PRESET = "classic"
#: The two tables of the control: the fair one, and its rigged twin.
TABLES = (PRESET, RIGGED_PREFIX + PRESET)
#: Coups each agent trains on by default (the benchmark's budget).
CONTROL_TIMESTEPS = 1_000_000
#: Timesteps between two evaluations of the learning curve.
CONTROL_EVAL_EVERY = 50_000
#: The reference policies, by row name: (strategy spec or "ideal", what its exact expectation is called).
REFERENCES = {
    "always Noir": ("flat:box=noir", "always_noir"),
    "flat Rouge": ("flat:box=rouge", "rouge"),
    "never": ("never", "never"),
    "ideal: Noir after Noir": ("ideal", "noir_after_noir"),
}


class NoirAfterNoir(IdealRig):
    """The ideal uninsured rule of the rigged table with 1-unit stakes: one unit on Noir right after
    a coup won by Noir (the last coup on the scoreboard), nothing otherwise; on either table."""

    def __init__(self) -> None:
        super().__init__(get_rules(PRESET).replace(**RIG), 1.0)


def _exact(expectations: Any, key: str) -> float:
    return expectations.flat[key] if key in expectations.flat else getattr(expectations, key)


def reference_rows(venue: Venue, plan: EvalPlan) -> dict[str, dict[str, Any]]:
    """Each reference policy on ``venue``'s evaluation sessions (``plan``): its exact expectation (per unit
    staked, :func:`~trente_env.odds.rig_expectations`), the exact expectation of the very stakes it
    placed, and its measured return with the 95% interval."""
    expectations = rig_expectations(venue.rules)
    rows = {}
    for name, (spec, key) in REFERENCES.items():
        policy = NoirAfterNoir() if spec == "ideal" else make_strategy(spec, venue.rules)
        report = evaluation_report(watch_sessions(policy, venue, plan), venue)
        rows[name] = _row(report, _exact(expectations, key))
    return rows


def _row(report: dict[str, Any], exact: float | None) -> dict[str, Any]:
    r = report["return_per_unit_staked"]
    b = report["behaviour"]
    staked = report["total_staked"] > 0
    return {
        "exact": exact,
        "exact_for_its_stakes": report["expected_return_per_unit"] if staked else 0.0,
        "return_per_unit": r["ratio"] if staked else 0.0,
        # no interval below MIN_STAKES stakes (evaluate's "too few stakes to estimate"): None, not NaN
        "ci_low": (r["ci_low"] if r["estimable"] else None) if staked else 0.0,
        "ci_high": (r["ci_high"] if r["estimable"] else None) if staked else 0.0,
        "stakes": r["stakes"],
        "reward_per_coup": report["reward_per_coup"]["agent"],
        "total_staked": report["total_staked"],
        "sat_out": b["sat_out"],
        "p_noir_after_noir": b["p_noir_after_noir"],
        "p_noir_otherwise": b["p_noir_otherwise"],
    }


def run_control(
    algo: str = "ppo",
    timesteps: int = CONTROL_TIMESTEPS,
    seed: int = 0,
    out: str | Path = Path("runs/control"),
    episodes: int = EVAL_PLAN.sessions,
    force: bool = False,
    progress: bool = False,
    coups: int = EVAL_PLAN.coups,
    eval_every: int = CONTROL_EVAL_EVERY,
) -> dict[str, Any]:
    """Train ``algo`` on the fair and the rigged table with the same settings and seed; evaluate each
    agent and the reference policies on the same sessions of each table; draw both learning curves
    with the reference lines into ``out/rl_control.png``; write every figure to ``out/control.json``.

    :param episodes: evaluation sessions of ``coups`` coups, the same shoes for every policy.
    :param force: replace the models of an earlier control in ``out`` (refused otherwise).
    :param eval_every: timesteps between two evaluations of the learning curves.
    :return: per table: the exact expectations, the rows (the reference policies and ``agent``), the
        training summary and the agent's full evaluation; ``figure``: the PNG's path.
    """
    out = check_output_folder(Path(out))
    plan = EvalPlan(episodes, coups, EVAL_PLAN.seed)
    results: dict[str, Any] = {
        "algo": algo, "timesteps": timesteps, "seed": seed, "episodes": episodes, "coups": coups,
        "eval_seed": plan.seed, "hyper": load_config(algo).hyper, "eval_every": eval_every,
        "assumption": "exact: first-coup odds of a full shoe, consecutive coups taken as independent",
    }  # fmt: skip
    curves = {}
    for table in TABLES:
        summary = train_agent(
            algo, timesteps, parse_venue(table), seed=seed, out_dir=out / table, progress=progress, force=force,
            eval_every=eval_every,
        )  # fmt: skip
        venue = parse_venue(table)
        evaluation = evaluate_model(summary["files"]["model"], plan, venue)
        rows = reference_rows(venue, plan)
        rows["agent"] = _row(evaluation, None)
        expectations = rig_expectations(venue.rules)
        best = optimum(venue, max(load_config(algo).train.stake_levels))
        results[table] = {
            "score": score(evaluation, best),
            "rules": evaluation["rules"],
            "exact": expectations.as_dict(),
            "rows": rows,
            "agent_verdict": evaluation["verdict"],
            "training": summary,
            "evaluation": evaluation,
        }
        curves[table] = out / table / "curve.csv"
    results["figure"] = str(out / "rl_control.png")
    draw(curves, results, out / "rl_control.png")
    atomic_write_json(out / "control.json", results)
    return results


def draw(curves: dict[str, Path], results: dict[str, Any], figure: Path) -> None:
    """Both learning curves on one figure, written atomically: above, the return per unit staked
    (95% bands; none while too few stakes were placed) with the exact reference lines of the rigged
    table; below, the score: the share of the optimum per coup on the rigged table, the share of
    coups sat out on the fair one (its optimum)."""
    fig, (ax, below) = pyplot().subplots(
        2, 1, figsize=(8, 7.6), sharex=True, constrained_layout=True, gridspec_kw={"height_ratios": (3, 2)}
    )
    for (table, path), colour in zip(curves.items(), ("tab:blue", "tab:green")):
        with path.open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        t = np.array([float(r["timesteps"]) for r in rows])
        if table == PRESET:
            below.plot(t, [float(r["sat_out"]) for r in rows], color=colour, label="fair: coups sat out (optimum: all)")
        else:
            share = [float(r["share_of_optimum"]) for r in rows]
            below.plot(t, share, color=colour, label="rigged: share of the optimum per coup")
        y = np.array([float(r["return_per_unit"]) for r in rows]) * 100
        lo = np.array([float(r["ci_low"]) for r in rows]) * 100
        hi = np.array([float(r["ci_high"]) for r in rows]) * 100
        label = f"agent, fair table ({table})" if table == PRESET else f"agent, rigged table ({table})"
        ax.fill_between(t, lo, hi, color=colour, alpha=0.2)
        ax.plot(t, y, marker="o", ms=3, color=colour, label=label)
    rigged = results[TABLES[1]]["exact"]
    fair = results[TABLES[0]]["exact"]
    lines = (
        (rigged["noir_after_noir"], "tab:green", ":", "rigged, exact: Noir right after a Noir win"),
        (0.0, "black", "-", "never betting (0): the best policy blind to the scoreboard"),
        (fair["flat"]["rouge"], "red", "--", "any box, fair table; Rouge, rigged table (exact)"),
        (rigged["always_noir"], "tab:purple", "--", "rigged, exact: always Noir"),
    )
    for value, colour, style, label in lines:
        ax.axhline(100 * value, color=colour, ls=style, lw=1, label=f"{label}: {100 * value:+.1f}%")
    below.axhline(1.0, color="black", lw=0.6)
    below.set_ylim(-0.5, 1.1)
    below.set_ylabel("score")
    below.legend(loc="lower right", fontsize=7)
    below.set_xlabel("timesteps (coups, all tables)")
    ax.set_ylabel("return per unit staked (%), greedy policy")
    ax.set_title(f"{results['algo']}: same settings and seed, fair vs rigged table (95% CI over sessions)", fontsize=10)
    ax.legend(loc="lower right", ncols=2, fontsize=6)
    figure.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, figure)

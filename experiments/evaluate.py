"""``trente-lab evaluate``: what a trained agent does at the table, and what it earns per unit staked.

The agent plays ``episodes`` whole sessions side by side on the native vector environment (one
table per session, each seeded ``seed + i``). Per session we add up the new stakes ``x_i`` and the
net result ``y_i`` (a stake still in prison when the session ends counts at its exact value);
the headline is ``R = sum(y) / sum(x)`` with a delta-method 95% interval over sessions, set beside
what exact odds expect for the very stakes the agent placed (``-edge`` on a fair table). **Loading a
model file runs code** (SB3 files hold pickled Python objects): evaluate only files you trust.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

import numpy as np
import typer
from rich.table import Table as RichTable

from experiments.console import MAX_SESSION_COUPS, MAX_TABLES, JsonOption, SeedOption, fail, out, print_json
from experiments.rl import RLError, Table, parse_table, ratio_interval, vector_env
from trente_env.coup import Result
from trente_env.settle import NOIR

#: A policy for :func:`play_sessions`: observations (batched, the env's form) -> actions (the env's form).
PolicyFn = Callable[[Any, "np.ndarray"], np.ndarray]

_RESULT_NAMES = ("noir", "rouge", "après", "refait", "void", "none yet")


@dataclass
class SessionTotals:
    """What ``n`` sessions did, added up per session (rows) or over all coups."""

    n: int
    net: np.ndarray = field(init=False)  #: net result per session, units (prisoners at their value)
    staked: np.ndarray = field(init=False)  #: new stakes per session, units
    coups: np.ndarray = field(init=False)  #: coups played per session
    box_staked: np.ndarray = field(init=False)  #: (4,) units staked on each box, all sessions
    box_bets: np.ndarray = field(init=False)  #: (4,) coups with a stake on each box
    insured: float = 0.0  #: units staked with insurance
    sat_out: int = 0  #: coups with no new stake
    stakes: dict[float, int] = field(default_factory=dict)  #: stake size (per box) -> times placed
    after: np.ndarray = field(init=False)  #: (6, 2) per previous result: coups, coups with a stake
    rigged_staked: float = 0.0  #: Noir units staked right after a Noir win (the rig's situation)
    bonus: float = 0.0  #: rig bonuses received
    ruined: int = 0  #: sessions that ended in ruin

    def __post_init__(self) -> None:
        self.net = np.zeros(self.n)
        self.staked = np.zeros(self.n)
        self.coups = np.zeros(self.n, dtype=np.int64)
        self.box_staked = np.zeros(4)
        self.box_bets = np.zeros(4, dtype=np.int64)
        self.after = np.zeros((6, 2), dtype=np.int64)


def play_sessions(
    policy: PolicyFn,
    table: Table,
    sessions: int,
    coups: int = 1000,
    seed: int = 0,
    bankroll: float = 1000.0,
    masks: bool = False,
    **env_kwargs: Any,
) -> SessionTotals:
    """Play ``sessions`` sessions of at most ``coups`` coups with ``policy`` and add them up.

    :param policy: ``policy(observations, action_masks_or_None) -> actions`` in the env's form.
    :param table: the table (see :func:`experiments.rl.parse_table`).
    :param masks: pass the legal-action masks to the policy (MaskablePPO).
    :param env_kwargs: ``action_form``, ``observation``, ``history``, ``stake_levels``, ...
    """
    from trente_env.odds import house_edges

    venv = vector_env(table, sessions, bankroll=bankroll, max_episode_steps=coups, **env_kwargs)
    obs, _ = venv.reset(seed=seed)
    totals = SessionTotals(sessions)
    alive = np.ones(sessions, dtype=np.bool_)
    value = house_edges(table.rules).prisoner_value
    tables = venv.tables
    for _ in range(coups):
        before = tables.results[:, 0].copy()
        actions = policy(obs, venv.action_masks() if masks else None)
        obs, reward, terminated, truncated, info = venv.step(actions)
        a = alive
        stakes = info["stakes"][a]
        placed = stakes.sum(axis=1)
        totals.net[a] += reward[a]
        totals.staked[a] += placed
        totals.coups[a] += 1
        totals.box_staked += stakes.sum(axis=0)
        totals.box_bets += (stakes > 0).sum(axis=0)
        totals.insured += float((stakes * info["insured"][a]).sum())
        totals.sat_out += int((placed == 0).sum())
        np.add.at(totals.after, (before[a], 0), 1)
        np.add.at(totals.after, (before[a], 1), (placed > 0).astype(np.int64))
        sizes, counts = np.unique(stakes[stakes > 0], return_counts=True)
        for s, c in zip(sizes.tolist(), counts.tolist()):
            totals.stakes[s] = totals.stakes.get(s, 0) + c
        totals.rigged_staked += float(stakes[before[a] == Result.NOIR, NOIR].sum())
        if "bonus" in info:
            totals.bonus += float(info["bonus"][a].sum())
        done = a & (terminated | truncated)
        if done.any():
            # a stake left in prison at the end of a session is worth its exact value, not nothing
            totals.net[done] += value * tables.prison[done].sum(axis=(1, 2))
            totals.ruined += int((done & terminated).sum())
            alive = alive & ~done
        if not alive.any():
            break
    return totals


def expected_return(totals: SessionTotals, table: Table) -> float:
    """What exact odds expect per unit staked for the stakes this agent placed: each box's
    ``-edge`` weighted by the units staked on it (insured units at the insured edge), plus the rig's
    bonus on Noir stakes placed right after a Noir win (first-coup probabilities, SPEC 3)."""
    from trente_env.odds import first_coup, house_edges

    edges = house_edges(table.rules)
    total = float(totals.box_staked.sum())
    if total <= 0:
        return 0.0
    per_box = np.array([edges.noir, edges.rouge, edges.couleur, edges.inverse])
    uninsured_share = 1.0 - totals.insured / total
    loss = float(per_box @ totals.box_staked) * uninsured_share
    if totals.insured and edges.insured is not None:
        loss += totals.insured * edges.insured
    gain = 0.0
    if table.rig is not None:
        gain = totals.rigged_staked * first_coup(table.rules.decks).p_noir * (table.rig.payout - 1.0)
    return (gain - loss) / total


def summarise(totals: SessionTotals, table: Table) -> dict[str, Any]:
    """The evaluation as plain data: behaviour, return per unit staked with its interval, verdict."""
    from trente_env.odds import house_edges

    ratio, se, low, high = ratio_interval(totals.net, totals.staked)
    coups = int(totals.coups.sum())
    edge = house_edges(table.rules).noir
    expected = expected_return(totals, table)
    staked = float(totals.staked.sum())
    boxes = ("noir", "rouge", "couleur", "inverse")
    behaviour = {
        "coups": coups,
        "sat_out": totals.sat_out / coups if coups else float("nan"),
        "box_share": {b: float(totals.box_staked[i] / staked) if staked else 0.0 for i, b in enumerate(boxes)},
        "box_bet_rate": {b: float(totals.box_bets[i] / coups) if coups else 0.0 for i, b in enumerate(boxes)},
        "stakes": {f"{s:g}": c for s, c in sorted(totals.stakes.items())},
        "mean_stake_per_coup": staked / coups if coups else 0.0,
        "insured_share": totals.insured / staked if staked else 0.0,
        "bet_rate_after": {
            _RESULT_NAMES[r]: float(totals.after[r, 1] / totals.after[r, 0]) for r in range(6) if totals.after[r, 0] > 0
        },
    }
    reward_per_coup = float(totals.net.sum() / coups) if coups else float("nan")
    return {
        "table": table.name,
        "rules": table.rules.describe(),
        "positive_control": table.rig.describe() if table.rig else None,
        "sessions": totals.n,
        "ruined": totals.ruined,
        "behaviour": behaviour,
        "total_staked": staked,
        "net": float(totals.net.sum()),
        "rig_bonus": totals.bonus,
        "return_per_unit_staked": {"ratio": ratio, "se": se, "ci_low": low, "ci_high": high, "level": 0.95},
        "house_edge": edge,
        "expected_return_per_unit": expected,
        "reward_per_coup": {
            "agent": reward_per_coup,
            "never_bet": 0.0,
            "flat_1_noir": -edge + (_rig_flat(table) if table.rig else 0.0),
            "flat_same_stakes": (-edge + _rig_flat(table)) * staked / coups if coups else float("nan"),
        },
        "verdict": verdict(ratio, low, high, expected, staked, table),
    }


def _rig_flat(table: Table) -> float:
    """What flat 1 unit on Noir gains per coup from the rig (it is in the rigged situation 44.5% of coups)."""
    from trente_env.odds import first_coup

    p = first_coup(table.rules.decks).p_noir
    return p * p * (table.rig.payout - 1.0) if table.rig else 0.0


def verdict(ratio: float, low: float, high: float, expected: float, staked: float, table: Table) -> str:
    """One sentence on the return per unit staked, against 0 and against exact odds."""
    if staked <= 0:
        return "sits out every coup: a return of 0, the best any policy can do on a fair table"
    if np.isnan(low):
        return "too few sessions for an interval"
    against = "the exact expectation of its stakes" + (" (-house edge)" if table.rig is None else "")
    consistent = low <= expected <= high
    ci = f"95% CI {low:+.2%} to {high:+.2%}"
    if table.rig is not None:
        if low > 0:
            return f"finds the rigged edge: return per unit staked significantly above 0 ({ci})"
        return f"does NOT show the rigged edge: the {ci} reaches 0 or below"
    if low > 0:
        return f"above 0 on a fair table (95% CI {low:+.2%} to {high:+.2%}): impossible by exact odds, look for a bug"
    if consistent:
        return f"loses what the house edge says ({expected:+.2%}, inside the 95% CI {low:+.2%} to {high:+.2%})"
    return f"differs from {against} {expected:+.2%} (95% CI {low:+.2%} to {high:+.2%})"


def model_policy(path: str, algo: str | None = None):
    """Load a model file (runs code: pickle) and return (ModelPolicy, env kwargs); one-line errors."""
    from strategies.model import ModelError, ModelPolicy

    try:
        return ModelPolicy(path, algo=algo)
    except ModelError as exc:
        fail(str(exc))


def evaluate_model(
    model: str,
    episodes: int = 200,
    rules: str | None = None,
    seed: int = 10_000,
    coups: int = 1000,
    algo: str | None = None,
    rigged: bool = False,
) -> dict[str, Any]:
    """Evaluate the model file ``model`` on ``episodes`` sessions (see the module docstring).

    :param rules: the table (a preset or ``rigged-<preset>``); default: the one it was trained on.
    :param seed: session ``i`` shuffles with seed ``seed + i`` (default away from training seeds).
    """
    policy = model_policy(model, algo)
    trained_on = policy.meta.get("table")
    name = rules or trained_on or "classic"
    try:
        table = parse_table(name, rigged, policy.meta.get("payout") if name.startswith("rigged-") or rigged else None)
    except RLError as exc:
        fail(str(exc))
    masks = policy.algo == "maskable-ppo"

    def act(obs: Any, action_masks: np.ndarray | None) -> np.ndarray:
        kwargs = {"action_masks": action_masks} if action_masks is not None else {}
        action, _ = policy.model.predict(obs, deterministic=True, **kwargs)
        return action

    from experiments.rl import set_threads

    set_threads(1)
    bankroll = float(policy.meta.get("bankroll", 1000.0))
    totals = play_sessions(act, table, episodes, coups, seed, bankroll, masks, **policy.env_kwargs())
    report = summarise(totals, table)
    report.update({"model": str(model), "algo": policy.algo, "trained_on": trained_on, "seed": seed})
    return report


def print_report(report: dict[str, Any]) -> None:
    """The evaluation as rich tables."""
    if report["positive_control"]:
        out.print(f"[bold magenta]{report['positive_control']}[/]")
    b = report["behaviour"]
    view = RichTable(title=f"{report.get('model', 'policy')} on {report['table']}", title_justify="left")
    view.add_column("behaviour")
    view.add_column("value", justify="right")
    view.add_row("sessions (ruined)", f"{report['sessions']} ({report['ruined']})")
    view.add_row("coups played", f"{b['coups']:,}")
    view.add_row("coups sat out", f"{b['sat_out']:.1%}")
    for box, rate in b["box_bet_rate"].items():
        if rate:
            view.add_row(f"bets on {box}", f"{rate:.1%} of coups, {b['box_share'][box]:.1%} of units")
    view.add_row("mean stake per coup", f"{b['mean_stake_per_coup']:.2f}")
    view.add_row("stakes placed (size: times)", ", ".join(f"{s}: {c:,}" for s, c in b["stakes"].items()) or "none")
    if b["insured_share"]:
        view.add_row("insured", f"{b['insured_share']:.1%} of units")
    view.add_row(
        "bets after last coup", ", ".join(f"{k} {v:.0%}" for k, v in b["bet_rate_after"].items() if k != "none yet")
    )
    out.print(view)
    r = report["return_per_unit_staked"]
    money = RichTable(title="Return per unit staked (95% CI over sessions)", title_justify="left")
    for col in ("agent", "95% CI", "exact for its stakes", "house edge"):
        money.add_column(col, justify="right")
    ci = f"{r['ci_low']:+.3%} to {r['ci_high']:+.3%}" if r["ci_low"] == r["ci_low"] else "-"
    ratio = f"{r['ratio']:+.3%}" if r["ratio"] == r["ratio"] else "nothing staked"
    money.add_row(ratio, ci, f"{report['expected_return_per_unit']:+.3%}", f"-{report['house_edge']:.3%}")
    out.print(money)
    rpc = report["reward_per_coup"]
    out.print(
        f"Reward per coup: agent {rpc['agent']:+.3f} units · never bet 0 · flat 1 unit on Noir "
        f"{rpc['flat_1_noir']:+.4f} · flat at its mean stake {rpc['flat_same_stakes']:+.3f}"
    )
    out.print(f"[bold]Verdict:[/] {report['verdict']}")


def command(
    model: Annotated[str, typer.Argument(help="Model file (.zip) saved by `trente-lab train`. Loading it runs code.")],
    episodes: Annotated[
        int,
        typer.Option(
            "--episodes",
            "-n",
            min=2,
            max=MAX_TABLES,
            help="Sessions to play (the independent units; an interval needs two).",
        ),
    ] = 200,
    rules: Annotated[
        str | None,
        typer.Option("--rules", "-r", help="Table: a preset or rigged-<preset>; default: the training table."),
    ] = None,
    seed: SeedOption = 10_000,
    coups: Annotated[
        int, typer.Option("--coups", min=1, max=MAX_SESSION_COUPS, help="Coups per session (at most).")
    ] = 1000,
    algo: Annotated[
        str | None, typer.Option("--algo", help="Algorithm that saved the file (default: from model.json, else ppo).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Play a trained agent on many sessions: what it bets, and its return per unit staked beside
    the exact house edge. Loading a model file runs code (pickle): use only files you trust."""
    report = evaluate_model(model, episodes, rules, seed, coups, algo)
    if as_json:
        print_json(report)
    else:
        print_report(report)


__all__ = ["SessionTotals", "evaluate_model", "expected_return", "play_sessions", "summarise", "verdict"]

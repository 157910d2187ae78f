"""A betting system's exact session risk, shown (``trente-lab risk``): the table, the plot of the final
bankroll's distribution, the bankroll for a target risk of ruin and the trip to a goal.

The numbers come from :func:`strategies.risk.exact_risk` (a Markov chain over the system's own state
machine; model: independent coups with the exact odds of the first coup of a full shoe).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from experiments.console import out
from experiments.errors import LabError
from experiments.rules import table_name
from trente_env.rules import PRESETS, RuleSet

#: The largest bankroll :func:`bankroll_for_ruin` tries before it gives up.
MAX_SEARCH_BANKROLL = 1_000_000


def _system(spec: str, rules: Any, goal: float | None) -> Any:
    from strategies.registry import make_strategy

    policy = make_strategy(spec, rules)
    if goal is not None:
        if not goal > 0:
            raise LabError(f"the goal must be a positive number of units, got {goal:g}")
        policy = dataclasses.replace(policy, stop_win=float(goal))
    return policy


def exact(spec: str, rules: Any, bankroll: float, coups: int, goal: float | None = None) -> Any:
    """:func:`strategies.risk.exact_risk` of ``spec`` (its stop-win set to ``goal`` if given); a system
    without exact risk is a :class:`LabError`."""
    from strategies.risk import RiskError, exact_risk

    try:
        return exact_risk(_system(spec, rules, goal), rules, bankroll, coups, name=spec)
    except RiskError as exc:
        raise LabError(str(exc)) from None


def check_target(target: float) -> None:
    """A target risk of ruin is a probability strictly between 0 and 1."""
    if not 0 < target < 1:
        raise LabError(f"the target risk of ruin must be between 0 and 1, got {target:g}")


def bankroll_for_ruin(spec: str, rules: Any, coups: int, target: float) -> tuple[float, Any]:
    """The least whole bankroll whose exact P(ruin) over ``coups`` coups is at most ``target``, by
    doubling then bisection (P(ruin) falls as the bankroll grows; where it is not monotone, as for
    a martingale just under a power of two, the bisection's answer is one such bankroll, its own
    P(ruin) printed with it). Returns (bankroll, its :class:`~strategies.risk.ExactRisk`)."""
    check_target(target)
    low = max(1.0, float(np.ceil(rules.table_min)))
    result = exact(spec, rules, low, coups)
    if result.p_ruin <= target:
        return low, result
    high = low
    while True:
        high *= 2
        if high > MAX_SEARCH_BANKROLL:
            raise LabError(f"no bankroll up to {MAX_SEARCH_BANKROLL:,} keeps P(ruin) within {target:g}")
        result = exact(spec, rules, high, coups)
        if result.p_ruin <= target:
            break
        low = high
    best = result
    while high - low > 1:
        middle = float((low + high) // 2)
        attempt = exact(spec, rules, middle, coups)
        if attempt.p_ruin <= target:
            high, best = middle, attempt
        else:
            low = middle
    return high, best


def risk_report(
    spec: str,
    rules: RuleSet = PRESETS["classic"],
    bankroll: float = 1000.0,
    coups: int = 200,
    *,
    target_ruin: float | None = None,
    goal: float | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """The exact risk of ``spec``'s session (see the module's notes) as plain data, with the bankroll
    for ``target_ruin`` over ``coups`` coups, or the trip to ``goal`` units ahead before the bankroll is
    lost, at the table of ``rules`` (called ``name``, default :func:`~experiments.rules.table_name`)."""
    if target_ruin is not None:
        check_target(target_ruin)  # before any work
    result = exact(spec, rules, bankroll, coups, goal)
    summary = result.summary()
    report: dict[str, Any] = {
        **summary,
        "rules": table_name(rules) if name is None else name,
        "description": summary["rules"],
        "final": result.final.tolist(),
        "p_final": result.p_final.tolist(),
    }
    if goal is not None:
        reached = result.p_at_least(goal)
        report["goal"] = {
            "goal": goal,
            "p_goal": reached,
            "p_ruin": result.p_ruin,
            "p_neither": 1.0 - reached - result.p_ruin,
        }
    if target_ruin is not None:
        needed, found = bankroll_for_ruin(spec, rules, coups, target_ruin)
        report["target"] = {"target_ruin": target_ruin, "bankroll": needed, "p_ruin": found.p_ruin}
    return report


def _pct(p: float) -> str:
    return f"{100 * p:.4f}%"


def print_report(report: dict[str, Any], plot: Path | None = None) -> None:
    """The exact figures as a rich table, and where the plot went."""
    from rich.table import Table

    view = Table(
        title=f"{report['system']}: bankroll {report['bankroll']:g}, {report['coups']} coups, "
        f"{report['rules']} rules (exact: {report['model']})",
        title_justify="left",
    )
    view.add_column("figure")
    view.add_column("exact", justify="right")
    rows = [
        ("P(ruin)", _pct(report["p_ruin"])),
        ("P(ahead)", _pct(report["p_ahead"])),
        ("return per unit staked", f"{100 * report['return_per_staked']:+.4f}%"),
        ("expected result per session", f"{report['expected_net']:+.4f}"),
        ("expected staked per session", f"{report['expected_staked']:.2f}"),
        ("median final bankroll", f"{report['median_final']:g}"),
        ("expected coups played", f"{report['expected_coups']:.2f}"),
        ("expected table-maximum hits", f"{report['expected_table_max_hits']:.4f}"),
    ]
    if "goal" in report:
        g = report["goal"]
        rows += [
            (f"P(+{g['goal']:g} before ruin)", _pct(g["p_goal"])),
            ("P(neither by the last coup)", _pct(g["p_neither"])),
        ]
    if "target" in report:
        t = report["target"]
        rows.append((f"bankroll for P(ruin) <= {t['target_ruin']:g}", f"{t['bankroll']:g} ({_pct(t['p_ruin'])})"))
    for row in rows:
        view.add_row(*row)
    out.print(view)
    out.print(
        f"{report['distinct_final']:,} distinct final bankrolls; at most {report['largest_states']:,} states at once; "
        f"{report['seconds']:.2f} s.",
        style="dim",
    )
    if plot is not None:
        out.print(f"Plot: {plot}")


def plot_distribution(report: dict[str, Any], path: Path) -> Path:
    """The final bankroll's exact distribution: its cumulative distribution function, the starting
    bankroll and the ruin marked."""
    from experiments.files import pyplot, save_figure

    plt = pyplot()
    final, p = np.asarray(report["final"]), np.asarray(report["p_final"])
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.step(final, np.cumsum(p), where="post", color="#2c3e50")
    ax.axvline(report["bankroll"], color="#27ae60", ls="--", lw=1, label="starting bankroll")
    ax.set_xlabel("final bankroll (units)")
    ax.set_ylabel("P(final bankroll <= x)")
    ax.set_ylim(0, 1.01)
    ax.set_title(
        f"{report['system']}: P(ruin) {_pct(report['p_ruin'])}, P(ahead) {_pct(report['p_ahead'])} (exact)", fontsize=10
    )
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return save_figure(fig, Path(path))


__all__ = ["bankroll_for_ruin", "exact", "plot_distribution", "print_report", "risk_report"]

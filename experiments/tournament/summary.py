"""The results document of a tournament: each system's return per unit staked with its interval
and verdicts (:mod:`experiments.stats`), its risk, the table's order and the conclusion's prose."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from experiments import version
from experiments.stats import POWER, verdicts
from experiments.tournament.config import TournamentConfig
from experiments.tournament.defaults import DEFAULT_DELTA
from strategies.registry import make_strategy
from strategies.results import SessionResults
from trente_env.odds import house_edges, rig_expectations
from trente_env.rules import Refait, RuleSet, rig_payouts

RESULTS_SCHEMA = "trente-lab/tournament-results/1"


def _to_prison(spec: str, rules: Any) -> bool | None:
    """Under the ``choice`` rule, whether the system ``spec`` sends its stakes to prison (None: it
    does not say, or the rules offer no choice)."""
    if rules.refait is not Refait.CHOICE:
        return None
    return getattr(make_strategy(spec, rules), "to_prison", None)


def summarize(
    config: TournamentConfig, sessions: Mapping[str, Mapping[str, np.ndarray]], delta: float = DEFAULT_DELTA
) -> dict[str, Any]:
    """The results document (``results.json``, ``docs/tournament-files.md``) from every session's results;
    ``delta``: the equivalence margin of the verdicts (:func:`experiments.stats.verdicts`)."""
    rules = config.ruleset()
    edges = house_edges(rules)
    labels = list(config.strategies)
    results = [SessionResults.of(sessions[k], rules, _to_prison(spec, rules)) for k, spec in zip(labels, config.specs)]
    noises = [r.stake_noise() for r in results]
    session_estimates = [r.session_estimate() for r in results]
    estimates = [r.return_per_unit() for r in results]
    strategy_edges = [r.edge() for r in results]
    tests, correction = verdicts(estimates, strategy_edges, delta=delta)
    table: dict[str, dict[str, Any]] = {}
    for label, spec, s, est, edge, test, alone, noise in zip(
        labels, config.specs, results, estimates, strategy_edges, tests, session_estimates, noises
    ):  # fmt: skip
        n = s.n
        row: dict[str, Any] = {
            "spec": spec,
            "sessions": n,
            "total_staked": float(s["staked"].sum()),
            "net": float(s["net"].sum()),
            "return_per_unit": est.ratio,
            "se": est.se,
            "se_sessions": alone.se,
            "se_stakes": noise,
            "ci_low": est.ci_low,
            "ci_high": est.ci_high,
            "edge": edge,
            "expected_return": -edge,
        }
        row.update(test.as_dict())
        row["verdict"] = _verdict_text(row)
        hit_any = s["table_max_hits"] > 0
        row.update(
            {
                "mean_final_bankroll": float(s["final_bankroll"].mean()),
                "median_final_bankroll": float(np.median(s["final_bankroll"])),
                "p_ahead": float(s["ahead"].mean()),
                "p_ruin": float(s["ruined"].mean()),
                "p_walked": float(s["walked"].mean()),
                "mean_coups": float(s["coups"].mean()),
                "mean_staked": float(s["staked"].mean()),
                "mean_max_drawdown": float(s["max_drawdown"].mean()),
                "worst_drawdown": float(s["max_drawdown"].max()),
                "longest_losing_run": int(s["longest_losing_run"].max()),
                "mean_longest_losing_run": float(s["longest_losing_run"].mean()),
                "table_max_hits": int(s["table_max_hits"].sum()),
                "sessions_with_table_max_hit": float(hit_any.mean()),
                "bankroll_hits": int(s["bankroll_hits"].sum()),
            }
        )
        table[label] = {k: _finite(v) for k, v in row.items()}
    document = {
        "schema": RESULTS_SCHEMA,
        "version": version(),
        "rules": config.name,
        "rules_played": config.rules_name(),
        "description": rules.describe(),
        "rule_values": dict(config.rule_values),
        "seed": config.seed,
        "sessions": config.sessions,
        "coups": config.coups,
        "bankroll": config.bankroll,
        "unit": config.unit,
        "house_edge": edges.noir,
        "house_edges": edges.as_dict(),
        "correction": correction,
        "strategies": table,
        "order": sort_order(table),
        "positive_control": rig_expectations(rules).as_dict() if rules.rigged else None,
    }
    document["conclusion"] = conclusion(document, rules)
    return document


def sort_order(table: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Systems that staked by P(session ahead), most often ahead first; non-bettors last."""
    bettors = [k for k, v in table.items() if v["total_staked"] > 0]
    others = [k for k in table if k not in bettors]
    return sorted(bettors, key=lambda k: (-table[k]["p_ahead"], table[k]["p_ruin"])) + others


def _verdict_text(row: Mapping[str, Any]) -> str:
    """``= edge ±δ`` (proven by the TOST, Holm), ``undecided (N)`` (not yet: about N sessions would prove
    it) or ``OFF edge`` (told apart from it, Holm); then ``> 0`` where the return is significantly above
    zero (Holm: a bug at a fair table, unless the stakes' own exact odds expect a gain, as a card
    counter's may on a shoe dealt far enough). Whether the 95% interval reaches 0 the return's cell shows."""
    if row["consistent_with_edge"] is None:
        return "no stakes"
    if not row["consistent_with_edge"]:
        text = "OFF edge"
    elif row["equivalent"]:
        text = f"= edge ±{row['delta']:.1%}"
    else:
        text = f"undecided ({_sessions(row['sessions_to_decide'])})"
    return text + ", > 0" if row["above_zero"] else text


def _sessions(n: int) -> str:
    """A count of sessions in a few characters: 950, 37k, 1.2M, 12M."""
    if n < 10_000:
        return f"{n:,}"
    if n < 1_000_000:
        return f"{n / 1000:.0f}k"
    return f"{n / 1e6:.1f}M" if n < 10_000_000 else f"{n / 1e6:.0f}M"


def conclusion(document: Mapping[str, Any], rules: RuleSet) -> str:
    """The plain-language paragraph under the table (``rules``: the table's, whose payouts a rigged
    table's paragraph states)."""
    table = document["strategies"]
    bettors = [k for k in document["order"] if table[k]["total_staked"] > 0]
    if not bettors:
        return "No system placed a stake, so there is nothing to judge: not betting is the only way not to lose."
    edge = document["house_edge"]
    lows = [table[k]["return_per_unit"] for k in bettors]
    on_edge = [k for k in bettors if table[k]["consistent_with_edge"]]
    off_edge = [k for k in bettors if not table[k]["consistent_with_edge"]]
    above = [k for k in bettors if table[k]["above_zero"]]
    below = [k for k in bettors if table[k]["below_zero"]]
    most_ahead = bettors[0]
    riskiest = max(bettors, key=lambda k: (table[k]["p_ruin"], table[k]["mean_max_drawdown"]))
    steadiest = min(bettors, key=lambda k: table[k]["mean_max_drawdown"] / max(table[k]["mean_staked"], 1e-12))
    m = len(bettors)
    text = (
        f"Every system played the same {document['sessions']:,} sessions of up to {document['coups']:,} coups. "
        + (
            f"Each lost between {-max(lows):.2%} and {-min(lows):.2%} of what it staked"
            if max(lows) <= 0
            else f"Their returns per unit staked ran from {min(lows):+.2%} to {max(lows):+.2%}"
        )
        + f", against an exact house edge of {edge:.2%} from the refait; "
    )
    if not off_edge:
        text += f"none of the {m} results can be told apart from the edge (Holm-corrected tests, family-wise 5%)"
    else:
        text += (
            f"{len(on_edge)} of {m} cannot be told apart from the edge, and {', '.join(off_edge)} "
            "differs from it (Holm-corrected, family-wise 5%: expect this about one run in twenty)"
        )
    proven = [k for k in bettors if table[k]["equivalent"]]
    open_ = [k for k in on_edge if not table[k]["equivalent"]]
    delta = document["correction"]["delta"]
    text += f"; {len(proven)} of {m} are proven equal to it within ±{delta:.1%} (two one-sided tests, Holm)"
    if open_:
        need = max(table[k]["sessions_to_decide"] for k in open_)
        text += (
            f", {len(open_)} undecided at this size (at up to {need:,} sessions each, on the edge, would be proven "
            f"in at least {POWER:.0%} of runs)"
        )
    rig = document.get("positive_control")
    if rig:
        text = (
            f"POSITIVE CONTROL, a rigged table (not a real game): {rig_payouts(rules)}, so exact odds give "
            f"always Noir {rig['always_noir']:+.2%} per unit staked, the other boxes their fair edge, and Noir only "
            f"right after a Noir win {rig['noir_after_noir']:+.2%}; each system's exact expectation counts its own "
            "Noir stakes placed right after a Noir win. " + text
        )
    if above and rig:
        text += (
            f"; {', '.join(above)} came out significantly above zero, as only a system that reads the last coup can. "
        )
    elif above:
        counted = [k for k in above if table[k]["expected_return"] > 0]  # stakes placed when the cards favoured them
        if counted:
            text += (
                f"; {', '.join(counted)} came out significantly above zero, as the exact odds of its stakes given the "
                "cards unseen when they were placed expect (it reads the shoe)"
            )
        if len(counted) < len(above):
            bugs = [k for k in above if k not in counted]
            text += f", yet {', '.join(bugs)} came out significantly above zero, which would be a bug"
        text += ". "
    elif len(below) == m:
        text += ", and every interval lies below zero. "
    else:
        text += f", and none is above zero ({len(below)} of {m} intervals lie wholly below it). "
    ahead = table[most_ahead]
    result = (
        f"still lost {-ahead['return_per_unit']:.2%} of its stakes"
        if ahead["return_per_unit"] <= 0
        else f"returned only {ahead['return_per_unit']:+.2%} per unit staked, within chance of the edge"
    )
    text += (
        "Most often ahead: " if rig else "The systems differ only in risk: "
    ) + f"{most_ahead} ended {ahead['p_ahead']:.0%} of its sessions ahead and {result}"
    risky = table[riskiest]
    if risky["p_ruin"] > 0:
        text += f"; {riskiest} was ruined in {risky['p_ruin']:.1%} of sessions"
    text += f"; {steadiest} had the smallest swings for what it staked. "
    if rig:
        text += "Here a system that reads the last coup can win; at a real table none can."
    else:
        text += (
            "A betting system only trades many small wins for rare large losses (or the reverse); it cannot "
            "change the price of a unit staked."
        )
    return text


def _finite(value: Any) -> Any:
    """NaN and infinities become None (JSON has no NaN)."""
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.bool_):
        return bool(value)
    return value


__all__ = ["RESULTS_SCHEMA", "conclusion", "sort_order", "summarize"]

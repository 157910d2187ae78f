"""The exact session risk beside a tournament's simulated one (``trente-lab tournament --wide``).

For each system of a results document, :func:`strategies.risk.exact_risk` of one session at the
run's bankroll, coups and rules: P(ruin) and P(ahead) from the Markov chain (model: independent
coups with the exact odds of the first coup of a full shoe), beside the shares of the sessions
simulated on real shoes. A system the chain cannot take (a plugin, a trained model, a card counter,
a state that grows without bound) keeps its simulated figures only, and the reason is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from experiments.console import progress_bar

#: What the exact columns are the expectation of: the model, said once under the table.
MODEL = "independent coups with the exact odds of the first coup of a full shoe"


def exact_risks(document: Mapping[str, Any], progress: bool = True) -> dict[str, dict[str, Any]]:
    """``{label: {"p_ruin", "p_ahead", "seconds"}}`` for every system of ``document`` whose exact risk
    the chain computes, ``{label: {"refused": reason}}`` for the others (a bar on stderr if ``progress``)."""
    from strategies.registry import make_strategy
    from strategies.risk import RiskError, exact_risk
    from trente_env.rules import RuleSet

    rules = RuleSet(**document["rule_values"])
    found: dict[str, dict[str, Any]] = {}
    with progress_bar(progress) as bar:
        task = bar.add_task("exact risk", total=len(document["order"]))
        for label in document["order"]:
            bar.update(task, description=f"exact risk: {label}")
            try:
                policy = make_strategy(document["strategies"][label]["spec"], rules)
                risk = exact_risk(policy, rules, document["bankroll"], document["coups"], name=label)
            except RiskError as exc:
                found[label] = {"refused": str(exc)}
            except (ValueError, TypeError, ImportError, OSError) as exc:  # a model or plugin it cannot make
                found[label] = {"refused": f"{label}: not a built-in system ({exc})"}
            else:
                found[label] = {"p_ruin": risk.p_ruin, "p_ahead": risk.p_ahead, "seconds": risk.seconds}
            bar.advance(task)
    return found


def add_exact_risks(document: dict[str, Any], progress: bool = True) -> dict[str, Any]:
    """``document`` with each system's ``exact_p_ruin`` and ``exact_p_ahead`` (None where refused) and
    an ``exact_risk`` entry: the model and the systems refused, with their reasons."""
    found = exact_risks(document, progress)
    for label, row in document["strategies"].items():
        figures = found.get(label, {})
        row["exact_p_ruin"] = figures.get("p_ruin")
        row["exact_p_ahead"] = figures.get("p_ahead")
    refused = {label: f["refused"] for label, f in found.items() if "refused" in f}
    document["exact_risk"] = {"model": MODEL, "refused": refused}
    return document


__all__ = ["MODEL", "add_exact_risks", "exact_risks"]

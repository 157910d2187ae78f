"""Exact odds of the first coup and the house edge of every box (``trente-lab edge``)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from experiments.console import out
from experiments.rules import load_rules, table_name
from trente_env.codes import BOXES
from trente_env.coup import ROW_TOTALS
from trente_env.odds import first_coup, house_edges, infinite_odds, rig_expectations
from trente_env.rules import PRESETS, RuleSet, rig_payouts


def edge_report(
    rules: RuleSet = PRESETS["classic"], decks: int | None = None, name: str | None = None
) -> dict[str, Any]:
    """Exact first-coup odds and house edges at the table of ``rules`` (called ``name``, default
    :func:`~experiments.rules.table_name`), optionally with another deck count.

    With ``decks`` the cut card is scaled with the shoe (52 of 6 decks becomes 9 of 1 deck).
    """
    label = table_name(rules) if name is None else name
    if decks is not None:
        rules = load_rules(rules, decks=decks, cut_card=round(rules.cut_card * decks / rules.decks))
    odds, infinite = first_coup(rules.decks), infinite_odds()
    edges = house_edges(rules, odds)
    return {
        "rules": label,
        "decks": rules.decks,
        "description": rules.describe(),
        "p_total": {str(t): p for t, p in zip(ROW_TOTALS, odds.p_total)},
        "p_total_infinite": {str(t): p for t, p in zip(ROW_TOTALS, infinite.p_total)},
        "p_refait": odds.p_refait,
        "p_apres": odds.p_apres,
        "p_win": {box: getattr(odds, f"p_{box}") for box in BOXES},
        "cards_per_coup": odds.cards_per_coup,
        "house_edge": {box: getattr(edges, box) for box in rules.boxes},
        "insured_edge": edges.insured,
        "prisoner_value": edges.prisoner_value,
        "infinite": {"p_refait": infinite.p_refait, "p_apres": infinite.p_apres, "p_win": infinite.p_noir},
        "rig": _rig(rules, odds),
    }


def _rig(rules, odds) -> dict[str, Any] | None:
    """On a rigged table (the positive control) what a unit staked returns: on Noir right after a Noir
    win and otherwise (the conditional returns), and the blind policies' (one box every coup, never),
    from :func:`trente_env.odds.rig_expectations` (consecutive coups taken as independent). None on a
    real table, whose Noir edge is the one of ``house_edge``."""
    if not rules.rigged:
        return None
    rig = rig_expectations(rules, odds)
    return {"payouts": rig_payouts(rules), **rig.as_dict()}


def all_presets() -> dict[str, dict[str, Any]]:
    """The edge report of every preset."""
    return {name: edge_report(rules, name=name) for name, rules in PRESETS.items()}


def _pct(p: float | None, digits: int = 4) -> str:
    return "-" if p is None else f"{100 * p:.{digits}f}%"


def print_report(r: dict[str, Any]) -> None:
    """One preset's odds and edges as rich tables."""
    out.print(f"[bold]{r['rules']}[/]: {r['description']}\n")
    totals = Table(title="A row ends on", title_justify="left")
    totals.add_column("total", justify="right")
    totals.add_column(f"{r['decks']} decks, first coup", justify="right")
    totals.add_column("infinite deck", justify="right")
    for t, p in r["p_total"].items():
        totals.add_row(t, f"{p:.8f}", f"{r['p_total_infinite'][t]:.8f}")
    out.print(totals)
    coup = Table(title="The coup", title_justify="left")
    coup.add_column("event")
    coup.add_column("probability", justify="right")
    coup.add_column("infinite deck", justify="right")
    coup.add_row("refait (31-31)", f"{r['p_refait']:.8f}", f"{r['infinite']['p_refait']:.8f}")
    coup.add_row("après (32-40 tie)", f"{r['p_apres']:.8f}", f"{r['infinite']['p_apres']:.8f}")
    for box, p in r["p_win"].items():
        coup.add_row(f"{box} wins", f"{p:.8f}", f"{r['infinite']['p_win']:.8f}")
    coup.add_row("cards per coup", f"{r['cards_per_coup']:.3f}", "")
    out.print(coup)
    rig = r.get("rig")
    title = "House edge (expected loss per unit staked, per coup)"
    edges = Table(title=title + (" at even-money payouts: not Noir's here" if rig else ""), title_justify="left")
    edges.add_column("bet")
    edges.add_column("edge", justify="right")
    for box, e in r["house_edge"].items():
        edges.add_row(box + (" (paid 1:1)" if rig and box == "noir" else ""), _pct(e))
    edges.add_row("insured stake", _pct(r["insured_edge"]))
    out.print(edges)
    out.print(f"A stake in prison is worth {r['prisoner_value']:.5f} of its value.", style="dim")
    if rig:
        _print_rig(rig)


def _print_rig(rig: dict[str, Any]) -> None:
    """The rigged table's returns: conditional on the coup before, and of the blind policies."""
    view = Table(
        title=f"Rigged table ({rig['payouts']}): expected return per unit staked (+: the player gains)",
        title_justify="left",
    )
    view.add_column("policy")
    view.add_column("return", justify="right")
    view.add_column("edge", justify="right")
    rows = [
        ("Noir, right after a Noir win", rig["noir_after_noir"]),
        ("Noir, on any other coup", rig["noir_otherwise"]),
        *((f"{box} every coup (blind)", value) for box, value in rig["flat"].items()),
        ("never staking (blind)", rig["never"]),
    ]
    for name, value in rows:
        view.add_row(name, f"{100 * value:+.4f}%", _pct(-value) if value else "-")
    out.print(view)
    out.print(
        f"Best blind policy: {100 * rig['best_unconditional']:+.4f}%. Exact, with consecutive coups taken as "
        f"independent (a coup comes right after a Noir win with P(Noir) = {rig['p_noir']:.6f}).",
        style="dim",
    )


def print_presets(reports: dict[str, dict[str, Any]]) -> None:
    """The house edges of every preset, one row each."""
    view = Table(title="House edge by preset (first coup of a full shoe)", title_justify="left")
    for col in ("preset", "decks", "refait", "noir/rouge", "couleur/inverse", "insured"):
        view.add_column(col, justify="left" if col == "preset" else "right")
    for name, r in reports.items():
        edge = r["house_edge"]
        view.add_row(
            name, str(r["decks"]), _pct(r["p_refait"], 3), _pct(edge["noir"]), _pct(edge.get("couleur")),
            _pct(r["insured_edge"]),
        )  # fmt: skip
    out.print(view)


__all__ = ["all_presets", "edge_report", "print_presets", "print_report"]

"""``trente-lab strategies``: every betting system, what it does and its parameters."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from experiments.console import JsonOption, RulesOption, fail, out, print_json


def strategy_list() -> dict[str, Any]:
    """Every built-in strategy (name, summary, manual, parameters) and the installed plugins (not
    loaded: their names and targets only, since loading a plugin runs its code)."""
    from strategies.registry import ENTRY_POINT_GROUP, catalogue, plugin_entry_points

    return {
        "strategies": catalogue(),
        "plugins": {name: ep.value for name, ep in plugin_entry_points().items()},
        "plugin_group": ENTRY_POINT_GROUP,
    }


def strategy_detail(spec: str, rules: str = "classic") -> dict[str, Any]:
    """One strategy made from ``spec`` at a table with ``rules``: its manual and resolved parameters.

    A plugin or ``module:Class`` spec imports it (runs its code); a model file is loaded (runs code).
    """
    from strategies.registry import StrategyError, describe, make_strategy

    try:
        strategy = make_strategy(spec, rules)
    except StrategyError as exc:
        fail(str(exc))
    if not hasattr(strategy, "params"):  # a trained model
        return {"name": strategy.name, "summary": strategy.summary, "spec": strategy.spec(), "params": {}}
    return {**describe(type(strategy)), "spec": strategy.spec(), "rules": rules, "values": strategy.params()}


def command(
    spec: Annotated[
        str | None,
        typer.Argument(help="Show one strategy, e.g. martingale:base=2,box=rouge (plugins and models run code)."),
    ] = None,
    rules: RulesOption = "classic",
    as_json: JsonOption = False,
) -> None:
    """List the betting systems with their parameters, or show one from its spec.

    Showing a plugin or a model file loads it, and loading runs its code: name only ones you trust.
    """
    if spec is not None:
        detail = strategy_detail(spec, rules)
        if as_json:
            print_json(detail)
            return
        out.print(f"[bold]{detail['spec']}[/]: {detail['summary']}\n")
        if "doc" in detail:
            for paragraph in detail["doc"].split("\n\n"):
                out.print(" ".join(paragraph.split()) + "\n", markup=False)
            view = Table(title="Parameters", title_justify="left")
            for col in ("parameter", "value", "default", "type"):
                view.add_column(col)
            for p in detail["params"]:
                view.add_row(p["name"], str(detail["values"][p["name"]]), str(p["default"]), p["type"])
            out.print(view)
        return
    listing = strategy_list()
    if as_json:
        print_json(listing)
        return
    view = Table(title="Betting systems (use as NAME or NAME:key=value,...)", title_justify="left")
    view.add_column("strategy", style="bold")
    view.add_column("what it does")
    view.add_column("parameters (default)", style="dim")
    common = {"base", "on_limit", "refait", "stop_win", "stop_loss", "insure", "to_prison"}
    for name, row in listing["strategies"].items():
        own = ", ".join(f"{p['name']}={_show(p['default'])}" for p in row["params"] if p["name"] not in common)
        view.add_row(name, row["summary"], own or "-")
    out.print(view)
    out.print(
        "Every strategy also takes base=1, on_limit=reset|cap, refait=loss|wait, stop_win, stop_loss, insure, "
        "to_prison. `trente-lab strategies NAME` shows one in full.",
        style="dim",
    )
    for name, target in listing["plugins"].items():
        out.print(f"plugin {name} -> {target} (from {listing['plugin_group']}; loading it runs its code)")


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "-".join(str(v) for v in value)
    return str(value)

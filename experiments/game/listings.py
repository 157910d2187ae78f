"""What can be played: the rule presets (``trente-lab presets``) and the betting systems
(``trente-lab strategies``), as plain data and as rich tables."""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from experiments.console import out
from experiments.errors import LabError
from experiments.rules import table_name
from strategies.registry import ENTRY_POINT_GROUP, catalogue, describe, make_strategy, plugin_entry_points
from trente_env.rules import PRESET_NOTES, PRESETS, RIGGED_NOTES, RIGGED_PRESETS, RuleSet

#: The parameters every system takes, listed once under the table rather than on every row.
COMMON_PARAMETERS = ("base", "on_limit", "refait", "stop_win", "stop_loss", "insure", "to_prison")


# -- rule presets --------------------------------------------------------------------------------


def preset_table() -> dict[str, dict]:
    """Every preset: its note, its one-line description and its options; then the rigged twin of
    each, ``rigged-<preset>`` (``positive_control`` true: never a real game)."""
    notes = PRESET_NOTES | RIGGED_NOTES
    return {
        name: {
            "note": notes[name], "description": rules.describe(), "options": asdict(rules),
            "positive_control": rules.rigged,
        }
        for name, rules in (PRESETS | RIGGED_PRESETS).items()
    }  # fmt: skip


def print_presets(table: dict[str, dict]) -> None:
    """The presets, one row each: name, meaning and rules."""
    view = Table(title="Rules presets (use with --rules NAME)", title_justify="left")
    view.add_column("preset", style="bold")
    view.add_column("meaning")
    view.add_column("rules", style="dim")
    for name, row in table.items():
        if row.get("positive_control"):
            view.add_row(f"[magenta]{escape(name)}[/]", f"[magenta]{escape(row['note'])}[/]", "as its preset")
        else:
            view.add_row(name, row["note"], row["description"])
    out.print(view)


# -- betting systems -----------------------------------------------------------------------------


def strategy_list() -> dict[str, Any]:
    """Every built-in strategy (name, summary, manual, parameters) and the installed plugins (not
    loaded: their names and targets only, since loading a plugin runs its code)."""
    return {
        "strategies": catalogue(),
        "plugins": {name: ep.value for name, ep in plugin_entry_points().items()},
        "plugin_group": ENTRY_POINT_GROUP,
    }


def strategy_detail(spec: str, rules: RuleSet = PRESETS["classic"], name: str | None = None) -> dict[str, Any]:
    """One strategy made from ``spec`` at the table of ``rules`` (called ``name``, default
    :func:`~experiments.rules.table_name`): its manual and resolved parameters.

    A plugin or ``module:Class`` spec imports it (runs its code); a model file is loaded (runs code).

    :raises strategies.registry.StrategyError: a spec that names no system, or bad parameters.
    """
    strategy = make_strategy(spec, rules)
    if not hasattr(strategy, "params"):  # a trained model
        return {"name": strategy.name, "summary": strategy.summary, "spec": strategy.spec(), "params": {}}
    return {
        **describe(type(strategy)),
        "spec": strategy.spec(),
        "rules": table_name(rules) if name is None else name,
        "values": strategy.params(),
    }


def print_strategy(detail: dict[str, Any]) -> None:
    """One strategy in full: its spec and summary, its manual and its parameters."""
    out.print(f"[bold]{detail['spec']}[/]: {detail['summary']}\n")
    if "doc" not in detail:
        return
    for paragraph in detail["doc"].split("\n\n"):
        out.print(plain_text(paragraph) + "\n", markup=False)
    view = Table(title="Parameters", title_justify="left")
    for col in ("parameter", "value", "default", "type", "meaning"):
        view.add_column(col)
    for p in detail["params"]:
        view.add_row(p["name"], str(detail["values"][p["name"]]), str(p["default"]), p["type"], p.get("help", ""))
    out.print(view)


def plain_text(paragraph: str) -> str:
    """A docstring's paragraph for the terminal: one line, without reST markup (double backticks,
    roles such as :class:)."""
    text = re.sub(r":(?:func|class|meth|mod|data|attr):`~?([^`]+)`", lambda m: m[1].rsplit(".", 1)[-1], paragraph)
    return " ".join(text.replace("``", "").split())


def print_strategies(listing: dict[str, Any]) -> None:
    """Every system, one row each with its own parameters, then the installed plugins."""
    view = Table(title="Betting systems (use as NAME or NAME:key=value,...)", title_justify="left")
    view.add_column("strategy", style="bold")
    view.add_column("what it does")
    view.add_column("parameters (default)", style="dim")
    for name, row in listing["strategies"].items():
        own = ", ".join(
            f"{p['name']}={_show(p['default'])}" for p in row["params"] if p["name"] not in COMMON_PARAMETERS
        )
        view.add_row(name, row["summary"], own or "-")
    out.print(view)
    out.print(
        "Every strategy also takes base=1, on_limit=reset|cap, refait=loss|wait, stop_win, stop_loss, insure, "
        "to_prison. `trente-lab strategies NAME` shows one in full.",
        style="dim",
    )
    for name, target in listing["plugins"].items():
        out.print(f"plugin {name} -> {target} (from {listing['plugin_group']}; loading it runs its code)")


#: Where the shipped configuration files live, and how each kind is used.
CONFIGS = Path(__file__).resolve().parent.parent / "configs"
_USES = (
    ("tournament-", "trente-lab tournament --config {name}"),
    ("sweep-", "trente-lab sweep {name}"),
    ("rl", "trente-lab train (the default; --config FILE for a copy)"),
)


def config_listing() -> list[dict[str, str]]:
    """The configuration files shipped with trente-lab: the name each is used by, the command that
    uses it, what it is (the first sentence of its opening comment) and where it lies."""
    listing = []
    for path in sorted(CONFIGS.glob("*.toml")):
        use = next((use for prefix, use in _USES if path.stem.startswith(prefix)), None)
        if use is None:
            continue
        name = path.stem.removeprefix("tournament-")
        comment = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#") or not line.strip("# "):  # the opening paragraph only
                break
            comment.append(line.lstrip("# "))
        about = re.split(r"(?<=\.)\s", " ".join(comment), maxsplit=1)[0].rstrip(".")
        listing.append({"name": name, "use": use.format(name=name), "about": about, "path": str(path)})
    return listing


def config_text(name: str) -> str:
    """The text of the shipped configuration file ``name`` (as :func:`config_listing` names it)."""
    for entry in config_listing():
        if entry["name"] == name:
            return Path(entry["path"]).read_text(encoding="utf-8")
    known = ", ".join(e["name"] for e in config_listing())
    raise LabError(f"no shipped configuration {name!r}; shipped: {known}")


def print_configs(listing: list[dict[str, str]]) -> None:
    view = Table(title="Shipped configuration files (trente-lab configs NAME prints one: copy it to change it)",
                 title_justify="left")  # fmt: skip
    view.add_column("name", style="bold")
    view.add_column("used by")
    view.add_column("what it is")
    for entry in listing:
        view.add_row(entry["name"], entry["use"], escape(entry["about"]))
    out.print(view)


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "-".join(str(v) for v in value)
    return str(value)


__all__ = [
    "print_presets",
    "print_strategies",
    "print_strategy",
    "preset_table",
    "strategy_detail",
    "strategy_list",
]

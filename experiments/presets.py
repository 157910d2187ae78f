"""``trente-lab presets``: the named rule sets and what each means."""

from __future__ import annotations

from dataclasses import asdict

from rich.table import Table

from experiments.console import JsonOption, out, print_json


def preset_table() -> dict[str, dict]:
    """Every preset: its note, its one-line description and its options."""
    from trente_env.rules import PRESET_NOTES, PRESETS

    return {
        name: {"note": PRESET_NOTES[name], "description": rules.describe(), "options": asdict(rules)}
        for name, rules in PRESETS.items()
    }


def command(as_json: JsonOption = False) -> None:
    """List the rules presets and what each means."""
    table = preset_table()
    if as_json:
        print_json(table)
        return
    view = Table(title="Rules presets (use with --rules NAME)", title_justify="left")
    view.add_column("preset", style="bold")
    view.add_column("meaning")
    view.add_column("rules", style="dim")
    for name, row in table.items():
        view.add_row(name, row["note"], row["description"])
    out.print(view)

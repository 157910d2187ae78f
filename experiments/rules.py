"""The house rules as the commands name them: a preset's name (with changes) resolved once into a
:class:`~trente_env.rules.RuleSet`, and the name a command prints for a rule set.

Not loaded by ``trente-lab --help``: the command modules import it when they run.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from experiments.errors import LabError
from trente_env.rules import PRESETS, RIGGED_PRESETS, RuleSet, get_rules


def load_rules(preset: str | RuleSet, **changes: Any) -> RuleSet:
    """The rule set of ``preset`` (a name, or rules already resolved, returned as they are) with
    ``changes`` (rule-set fields); a bad name or value is a :class:`~experiments.errors.LabError`
    with the engine's message. A command resolves its ``--rules`` here once and passes the rule set
    on."""
    try:
        return get_rules(preset, **changes)
    except ValueError as exc:
        raise LabError(str(exc)) from None


def table_name(rules: RuleSet) -> str:
    """What a library calls ``rules`` when the command gave it no name: the preset's name when they
    are exactly a preset's rules, else ``"custom"``."""
    return next((name for name, r in {**PRESETS, **RIGGED_PRESETS}.items() if r == rules), "custom")


def rules_name(preset: str, rules: RuleSet) -> str:
    """The name of the game ``rules`` deal, as a command prints it:
    ``preset`` when they are exactly the preset's rules, else the preset and every rule changed from
    it, naming the preset they then are if any ("classic with refait=half (the partage preset)",
    "classic with decks=2"); never a preset's name for another game."""

    def text(value: Any) -> str:
        value = value.value if isinstance(value, Enum) else value
        if isinstance(value, bool):
            return "true" if value else "false"
        return f"{value:g}" if isinstance(value, float) else str(value)

    base = get_rules(preset)
    changed = [
        f"{f.name}={text(getattr(rules, f.name))}"
        for f in dataclasses.fields(rules)
        if getattr(rules, f.name) != getattr(base, f.name)
    ]
    if not changed:
        return preset
    same = next((name for name, r in {**PRESETS, **RIGGED_PRESETS}.items() if r == rules), None)
    return f"{preset} with {', '.join(changed)}" + (f" (the {same} preset)" if same else "")


__all__ = ["load_rules", "rules_name", "table_name"]

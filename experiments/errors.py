"""What trente-lab's libraries raise for input they refuse: one exception per part, one line each.

A library (the tournament, RL training and evaluation, the teaching and game modules) never prints an
error or exits: it raises one of these with a one-line message that says what was wrong and, where
it helps, what to do instead. Only the command line (:mod:`experiments.cli`) turns them into
``trente-lab: error: <message>`` on stderr and exit code 2; a notebook or a test sees the exception.
The betting systems' own errors, :class:`strategies.registry.StrategyError` and
:class:`strategies.model.ModelError`, are shown the same way.
"""

from __future__ import annotations

from typing import Any


class LabError(ValueError):
    """Input trente-lab refuses (a preset it does not know, a path of the wrong kind...): one line."""


class TournamentError(LabError):
    """Input a tournament refuses: a configuration, a config file, a manifest, an output folder."""


class RLError(LabError):
    """Input RL training or evaluation refuses: an algorithm, a table, hyper-parameters, a policy."""


def load_rules(preset: str, **changes: Any):  # -> trente_env.rules.RuleSet
    """The rule set of ``preset`` with ``changes`` (rule-set fields); a bad name or value is a
    :class:`LabError` with the engine's message."""
    from trente_env.rules import get_rules  # the engine, when a command runs (not for its help)

    try:
        return get_rules(preset, **changes)
    except ValueError as exc:
        raise LabError(str(exc)) from None


def rules_name(preset: str, rules: Any) -> str:
    """The name of the game ``rules`` (a ``trente_env.rules.RuleSet``) deal, as a command prints it:
    ``preset`` when they are exactly the preset's rules, else the preset and every rule changed from
    it, naming the preset they then are if any ("classic with refait=half (the partage preset)",
    "classic with decks=2"); never a preset's name for another game."""
    import dataclasses
    from enum import Enum

    from trente_env.rules import PRESETS, RIGGED_PRESETS, get_rules

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


__all__ = ["LabError", "RLError", "TournamentError", "load_rules", "rules_name"]

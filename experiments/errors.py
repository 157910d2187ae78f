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


__all__ = ["LabError", "RLError", "TournamentError", "load_rules"]

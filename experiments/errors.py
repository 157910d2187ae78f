"""What trente-lab's libraries raise for input they refuse: one exception per part, one line each.

A library (the tournament, RL training and evaluation, the teaching and game modules) never prints an
error or exits: it raises one of these with a one-line message that says what was wrong and, where
it helps, what to do instead. Only the command line (:mod:`experiments.cli`) turns them into
``trente-lab: error: <message>`` on stderr and exit code 2; a notebook or a test sees the exception.
The betting systems' own errors, :class:`strategies.registry.StrategyError` and
:class:`strategies.model.ModelError`, are shown the same way.
"""

from __future__ import annotations


class LabError(ValueError):
    """Input trente-lab refuses (a preset it does not know, a path of the wrong kind...): one line."""


class TournamentError(LabError):
    """Input a tournament refuses: a configuration, a config file, a manifest, an output folder."""


class RLError(LabError):
    """Input RL training or evaluation refuses: an algorithm, a table, hyper-parameters, a policy."""


class ClassroomError(LabError):
    """Input the classroom refuses (a name, a prediction, a session file): one line, shown to whoever
    sent it (a student's phone, the projector, the command line)."""


class TooMany(ClassroomError):
    """A classroom request refused for coming too often, or while too many wait: answered with HTTP
    429 (try again later) rather than 400 (a wrong request)."""


__all__ = ["ClassroomError", "LabError", "RLError", "TooMany", "TournamentError"]

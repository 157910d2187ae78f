"""trente-lab's experiments: the ``trente-lab`` command line and the libraries behind it.

* :mod:`experiments.cli`: the Typer app, one thin module per command;
* :mod:`experiments.game`: the game shown (exact odds, dealt frequencies, coups, presets, systems);
* :mod:`experiments.tournament`: every betting system on the same shoes, and an honest verdict;
* :mod:`experiments.rl`: reinforcement-learning agents, the rigged table (positive control),
  training and evaluation;
* :mod:`experiments.teaching`: the gambler's fallacy, a table for students, the HTML report;
* shared: :mod:`~experiments.stats` (estimators and intervals), :mod:`~experiments.files` (atomic
  writes), :mod:`~experiments.console` (terminal output, the progress bar, the status line),
  :mod:`~experiments.plotting` (percent ticks and the edge's label, shared by every plot),
  :mod:`~experiments.errors` (what the libraries raise), :mod:`~experiments.limits` (the ranges of
  every number a command takes).

``docs/architecture.md`` draws the map from the shoe to the report.
"""

from __future__ import annotations


def version() -> str:
    """trente-lab's installed version, or ``"unknown"`` for a checkout run without installing it."""
    from importlib import metadata  # slow to import, and the command line's help does not need it

    try:
        return metadata.version("trente-lab")
    except metadata.PackageNotFoundError:
        return "unknown"

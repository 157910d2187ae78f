"""The size of a default tournament. The command line's help shows these numbers, so this module
imports nothing."""

from __future__ import annotations

#: Default size of a run: every confidence interval excludes 0 and it finishes in well under a minute here.
DEFAULT_SESSIONS = 16_000
DEFAULT_COUPS = 200
DEFAULT_BANKROLL = 1000.0
#: Sessions per block (one task = one block of one strategy); part of the configuration.
DEFAULT_BLOCK = 2000
#: Sessions whose bankroll after every coup is kept for the trajectory plot.
DEFAULT_TRAJECTORIES = 1000
#: The equivalence margin of the verdicts, a return per unit staked: within +-0.5% of the edge
#: (why this value: docs/statistics.md, "The tournament's verdicts").
DEFAULT_DELTA = 0.005

__all__ = [
    "DEFAULT_BANKROLL",
    "DEFAULT_BLOCK",
    "DEFAULT_COUPS",
    "DEFAULT_DELTA",
    "DEFAULT_SESSIONS",
    "DEFAULT_TRAJECTORIES",
]

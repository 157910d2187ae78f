"""The least and most value of every number a command takes, checked by the parser before anything
runs (``typer.Option(min=..., max=...)``) and by the tournament's config files.

This module imports nothing: the command line reads it to print its help, which must not load the
engine (numpy, numba). Two numbers are the engine's own, written out here for that reason, and a
test checks that they agree: :data:`MAX_MONEY` (``trente_env.rules.MAX_MONEY``) and the 52 cards of
a deck in :data:`MAX_CARDS` (``trente_env.cards.CARDS_PER_DECK``).
"""

from __future__ import annotations

#: A seed is a whole number from 0 to the largest int64 (numpy's generators and the kernels' int64).
MAX_SEED = 2**63 - 1
#: The largest seed stable-baselines3 takes (it seeds numpy's legacy generator): ``train --seed``.
MAX_SB3_SEED = 2**32 - 1
#: The most coups a command deals in one run (``deal``, ``simulate``, ``fallacy``, ``report``) or an
#: agent trains on: the dealing is streamed in chunks, so only time grows with it; counts summed over
#: this many coups stay far inside int64 (and a day of dealing is about 10**11 coups).
MAX_COUPS = 10**12
#: The most coups in one session: about 1,700 hours at a real table. Sessions are played
#: coup by coup and the tournament keeps sample trajectories of every coup.
MAX_SESSION_COUPS = 100_000
#: The most sessions (tables) one command plays side by side in one vector env, about 4 KB each.
MAX_TABLES = 1_000_000
#: The most sessions per system in a tournament: sessions x coups x systems stays far inside int64.
#: (Whether the machine can hold every session's totals is for the tournament to check.)
MAX_SESSIONS = 10**9
#: The most worker threads or processes a command starts.
MAX_WORKERS = 1024
#: The largest bankroll, stake or table limit, in units (the engine's ``MAX_MONEY``).
MAX_MONEY = 10**12
#: The most shoes ``count`` deals per stop rule: its per-coup records take about 300 bytes a shoe,
#: so ten million shoes stay within a few gigabytes (100,000 take a few minutes on two cores).
MAX_COUNT_SHOES = 10**7
#: The largest shoe: 8 decks of 52 cards.
MAX_CARDS = 8 * 52

__all__ = [
    "MAX_CARDS",
    "MAX_COUNT_SHOES",
    "MAX_COUPS",
    "MAX_MONEY",
    "MAX_SB3_SEED",
    "MAX_SEED",
    "MAX_SESSIONS",
    "MAX_SESSION_COUPS",
    "MAX_TABLES",
    "MAX_WORKERS",
]

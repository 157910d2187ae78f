"""The game at a glance, for the commands that show it rather than play sessions of it.

* :mod:`experiments.game.edge`: exact odds of the first coup and the house edge of every box
  (``trente-lab edge``);
* :mod:`experiments.game.simulate`: many coups dealt and counted beside the exact odds
  (``trente-lab simulate``);
* :mod:`experiments.game.deal`: coups laid out as the croupier lays them (``trente-lab deal``);
* :mod:`experiments.game.listings`: the rule presets and the betting systems
  (``trente-lab presets``, ``trente-lab strategies``).

Each module holds the plain function a command calls and the rich view it prints; the commands
themselves are in :mod:`experiments.cli`.
"""

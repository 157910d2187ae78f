"""The algorithms ``trente-lab train`` builds.

Where each algorithm's class lives has one home, :data:`strategies.model_file.ALGORITHMS` (a model file
of any of them plays wherever a strategy does). Training builds a feed-forward ``MlpPolicy`` on the
flat observation, so :data:`TRAINABLE` is a selection of it, as the default line-up
:data:`strategies.registry.LINEUP` is of the systems: ``recurrent-ppo`` is left out, since its
policy is recurrent (``MlpLstmPolicy``) and carries a state from coup to coup that neither the
training nor the evaluation here builds. The configuration file ``configs/rl.toml`` has one table
of hyper-parameters per trainable algorithm.

This module imports nothing: the command line's help reads it (``--algo``'s choices).
"""

from __future__ import annotations

#: The algorithms ``trente-lab train --algo`` takes, names of :data:`strategies.model_file.ALGORITHMS`.
TRAINABLE: tuple[str, ...] = ("ppo", "a2c", "dqn", "maskable-ppo")

#: Algorithms that train but are no witness (docs/rl.md, "DQN"): the one-line warning ``train`` and
#: ``benchmark`` print before they train one.
NOT_A_WITNESS: dict[str, str] = {
    "dqn": (
        "warning: DQN is no witness with these rewards: its value of a small stake is noise hundreds of times "
        "the 0.0112 units a coup that sitting out saves, so it keeps betting on the fair table "
        '(docs/rl.md, "DQN"); use ppo or a2c'
    ),
}

__all__ = ["NOT_A_WITNESS", "TRAINABLE"]

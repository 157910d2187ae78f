"""The policy network's input layer for trente-lab agents (imports torch: load only to train or play).

It lives beside the model (:mod:`strategies.model` rebuilds every saved model with it); saved models name
:class:`LogScaledFlat` by its import path, so loading a model imports this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor


class LogScaledFlat(BaseFeaturesExtractor):
    """The flat observation with its unbounded parts (bankroll, coups, prisoners, shoe counts)
    passed through ``log1p``; the one-hot scoreboard is left as it is.

    A bankroll of thousands of units next to 0/1 flags would swamp a small network; this keeps
    every input within a few units without any statistics to save beside the model.
    """

    def __init__(self, observation_space: Any) -> None:
        size = int(np.prod(observation_space.shape))
        super().__init__(observation_space, features_dim=size)
        high = np.asarray(observation_space.high, dtype=np.float64).reshape(-1)
        self.register_buffer("scaled", torch.as_tensor(high > 1.0))

    def forward(self, observations: Any) -> Any:
        flat = observations.reshape(observations.shape[0], -1)
        return torch.where(self.scaled, torch.log1p(flat.clamp(min=0.0)), flat)

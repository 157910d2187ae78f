"""The seam for trained agents: a stable-baselines3 model file used wherever a strategy is.

**Loading a model file runs code**: SB3's ``.zip`` files hold pickled Python objects, so only load
files you trust. Full wiring (matching the env's action form to the model's, the tournament
accepting models) comes with the RL issue; here the model is loaded, checked and asked to act.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

#: Algorithm names accepted by ``algo=``, and where their class lives.
ALGORITHMS: dict[str, tuple[str, str]] = {
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
    "maskable-ppo": ("sb3_contrib", "MaskablePPO"),
    "recurrent-ppo": ("sb3_contrib", "RecurrentPPO"),
}


class ModelError(ValueError):
    """A model file that cannot be used: missing library, missing or unreadable file."""


class ModelPolicy:
    """A trained SB3 model as a policy: same ``act``/``predict`` as a :class:`~strategies.base.Strategy`.

    Its actions are in the model's own action space (often the env's ``"discrete"`` form): play it
    in an env built with the same ``action_form`` and ``observation`` it was trained on.

    :param path: the ``.zip`` file saved by ``model.save(...)``. Loading it runs code (pickle).
    :param algo: the algorithm that saved it (see :data:`ALGORITHMS`), default ``ppo``.
    :param deterministic: act greedily (default True), or sample from the policy.
    """

    name = "model"
    summary = "a trained stable-baselines3 model file (.zip); loading it runs code"

    def __init__(self, path: str | Path, algo: str = "ppo", deterministic: bool = True) -> None:
        self.path = Path(path)
        self.algo = algo
        self.deterministic = deterministic
        try:
            module_name, class_name = ALGORITHMS[algo]
        except KeyError:
            raise ModelError(f"unknown algo {algo!r}; choose one of {', '.join(ALGORITHMS)}") from None
        try:
            module = __import__(module_name, fromlist=[class_name])
        except ImportError:
            raise ModelError(
                f"loading a {algo} model needs {module_name.replace('_', '-')}: pip install 'trente-lab[rl]'"
            ) from None
        if not self.path.is_file():
            raise ModelError(f"model file {str(self.path)!r} does not exist")
        try:
            self.model = getattr(module, class_name).load(self.path, device="cpu")
        except Exception as exc:  # a damaged zip, a pickle from another version, another algorithm...
            raise ModelError(f"cannot read model file {str(self.path)!r} as {algo}: {exc}".splitlines()[0]) from None

    def predict(
        self,
        observation: np.ndarray | dict[str, np.ndarray],
        state: Any = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = False,
    ) -> tuple[np.ndarray, Any]:
        """SB3's ``PolicyPredictor.predict``, passed to the model."""
        return self.model.predict(observation, state, episode_start, deterministic)

    def act(
        self,
        observation: np.ndarray | dict[str, np.ndarray],
        state: Any = None,
        episode_start: np.ndarray | None = None,
    ) -> tuple[np.ndarray, Any]:
        """The model's actions for a batch of observations (greedy unless ``deterministic=False``)."""
        return self.model.predict(observation, state, episode_start, self.deterministic)

    def spec(self) -> str:
        return f"{self.path}:algo={self.algo}"


__all__ = ["ALGORITHMS", "ModelError", "ModelPolicy"]

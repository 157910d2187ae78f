"""The seam for trained agents: a stable-baselines3 model file used wherever a strategy is.

``trente-lab train`` writes ``model.json`` beside ``model.zip``: the algorithm, the table, the env
settings the model was trained with (action form: discrete, factored or full; observation form,
scoreboard length, stake levels) and its network (``network``: layer widths and input layer).
With it :class:`ModelPolicy` builds a fresh model of that shape and reads only its weights from
the zip, with ``torch.load(weights_only=True)`` (:mod:`strategies.model_file`): **nothing in the file
is unpickled**, so a crafted file cannot run code. SB3's own loading unpickles the zip's ``data``
(its spaces, schedules and classes), and an unpickled object may run any code: a model without the
lab's description (a bare SB3 file, a recurrent model) is loaded that way only when trusted
(``trust=True``, the commands' ``--trust-model``, or the environment variable :data:`TRUST_VARIABLE`
the flag sets for the worker processes of a run).

With it :class:`ModelPolicy` plays like any strategy: :meth:`ModelPolicy.act` takes the env's dict or
flat observations and answers in the env's full action form, so a model can sit in a tournament
beside the betting systems.
"""

from __future__ import annotations

import contextlib
import os
import zipfile
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from strategies.model_file import (
    ALGORITHMS,
    REBUILT,
    ModelError,
    check_size,
    lab_network,
    load_weights,
    read_meta,
    rebuild,
)
from trente_env.codes import ACTION_WIDTH, flat_layout, flat_offsets, flatten, unflatten

#: Set to ``1`` (by :func:`trusting`, so that the worker processes of a run inherit it): model files
#: without the lab's description may be unpickled, which runs any code they hold.
TRUST_VARIABLE = "TRENTE_LAB_TRUST_MODEL"


def trusted() -> bool:
    """Whether model files without the lab's description may be unpickled in this process
    (:data:`TRUST_VARIABLE` is ``1``)."""
    return os.environ.get(TRUST_VARIABLE) == "1"


@contextlib.contextmanager
def trusting(enabled: bool = True) -> Iterator[None]:
    """Within the block, model files without the lab's description are unpickled (when ``enabled``),
    in this process and in the processes it starts; the setting before is restored after."""
    before = os.environ.get(TRUST_VARIABLE)
    if enabled:
        os.environ[TRUST_VARIABLE] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(TRUST_VARIABLE, None)
        else:
            os.environ[TRUST_VARIABLE] = before


class ModelPolicy:
    """A trained SB3 model as a :class:`~strategies.policy.Policy`: same ``act``/``predict`` as a
    :class:`~strategies.base.Strategy`.

    :meth:`act` reads dict or flat observations (any scoreboard length at least the model's) and
    returns actions in the env's full form, ``(n, 12)``, like every strategy (a MaskablePPO model is
    told the legal actions, from the money in hand the observation shows). :meth:`predict` passes
    observations straight to the model and returns the model's own actions: use it in an env built
    with the settings of :meth:`env_kwargs` (what the model was trained on).

    :param path: the ``.zip`` file saved by ``trente-lab train`` (``model.json`` beside it: only its
        weights are read), or another SB3 file when trusted (it is unpickled: that runs its code).
    :param algo: the algorithm that saved it (see :data:`ALGORITHMS`); default: the one named in
        ``model.json`` beside the file, else ``ppo``.
    :param deterministic: act greedily (default True), or sample from the policy.
    :param trust: unpickle a file without the lab's description (default: :func:`trusted`).
    :raises ModelError: a file that cannot be read, or one that would be unpickled without trust.
    """

    name = "model"
    summary = "a trained stable-baselines3 model file (.zip); a file not saved by train is unpickled only if trusted"
    #: Play on tables stepped by one thread (``threads=False`` of the vector env): between two coups the
    #: network runs on this thread, and numba's threads, left waiting in their pool, would take the
    #: cores it needs (blocks from PARALLEL_FROM sessions, where the tables take threads, played about 4
    #: times slower on 2 busy cores under OpenMP; not measured again under TBB).
    serial_tables = True

    def __init__(
        self, path: str | Path, algo: str | None = None, deterministic: bool | str = True, trust: bool | None = None
    ) -> None:
        self.path = Path(path)
        if algo is not None and algo not in ALGORITHMS:
            raise ModelError(f"unknown algo {algo!r}; choose one of {', '.join(ALGORITHMS)}")
        self.meta: dict[str, Any] = read_meta(self.path)
        saved_by = self.meta.get("algo")
        if algo is not None and saved_by is not None and algo != saved_by:
            raise ModelError(f"{str(self.path)!r} was saved by {saved_by} (its model.json), not {algo}")
        algo = algo if algo is not None else str(saved_by or "ppo")
        self.algo = algo
        if isinstance(deterministic, str):
            deterministic = deterministic.lower() not in ("false", "no", "0", "off")
        self.deterministic = deterministic
        module_name, class_name = ALGORITHMS[algo]
        # What can be said about the file is said before asking for the library that reads it.
        from strategies.inputs import MODEL_BYTES, open_input

        with open_input(self.path, "model file", MODEL_BYTES, ModelError) as f:
            is_zip = zipfile.is_zipfile(f)
        if not is_zip:
            raise ModelError(f"cannot read model file {str(self.path)!r} as {algo}: it is not a zip file")
        try:
            module = __import__(module_name, fromlist=[class_name])
        except ImportError:
            raise ModelError(
                f"loading a {algo} model needs {module_name.replace('_', '-')}: pip install 'trente-lab[rl]'"
            ) from None
        trust = trusted() if trust is None else trust
        cls = getattr(module, class_name)
        if lab_network(self.meta) is not None and algo in REBUILT:
            try:
                check_size(self.meta, self.path)
                self.model = rebuild(cls, self.meta)
                load_weights(self.model, self.path, optimizer=False)
            except ModelError:
                if not trust:
                    raise
                self.model = self._unpickle(cls)  # trusted: SB3's own loading, as the file asks
        elif trust:
            self.model = self._unpickle(cls)
        else:
            raise ModelError(
                f"{str(self.path)!r} has no model.json from `trente-lab train` describing its network: loading it "
                "would unpickle it, which runs any code it holds; pass --trust-model to load it (files you trust only)"
            )
        self._check_description()

    def _unpickle(self, cls: Any) -> Any:
        """SB3's own loading (``cls.load``): it unpickles the file, which runs any code it holds."""
        try:
            return cls.load(self.path, device="cpu")
        except Exception as exc:  # a damaged zip, a pickle from another version, another algorithm...
            message = f"cannot read model file {str(self.path)!r} as {self.algo}: {exc}"
            raise ModelError(message.splitlines()[0]) from None

    def _check_description(self) -> None:
        """``model.json`` must describe the model beside it: the observations and actions its settings
        give are the ones the model takes (else the model would be fed or read wrongly)."""
        layout = self._layout
        implied = (_form(layout.single_observation_space), _form(layout.single_action_space))
        actual = (_form(self.model.observation_space), _form(self.model.action_space))
        if implied != actual:
            raise ModelError(
                f"{str(self.path.with_suffix('.json'))!r} does not describe {str(self.path)!r}: its settings give "
                f"observations {implied[0]} and actions {implied[1]}, the model takes {actual[0]} and {actual[1]}"
            )

    @classmethod
    def of(cls, model: Any, algo: str, meta: dict[str, Any] | None = None, deterministic: bool = True) -> ModelPolicy:
        """A policy around a model already in memory (``trente-lab train`` evaluating as it learns).

        :param meta: what ``model.json`` would say (at least ``env``: the settings it trains in).
        """
        policy = cls.__new__(cls)
        policy.path = Path(f"<{algo} in memory>")
        policy.meta = dict(meta or {})
        policy.algo = algo
        policy.deterministic = deterministic
        policy.model = model
        return policy

    def env_kwargs(self) -> dict[str, Any]:
        """The env settings the model plays in: ``action_form``, ``observation``, ``history``,
        ``observe_shoe`` and ``stake_levels`` (from ``model.json``, else read off the model's spaces)."""
        from gymnasium import spaces

        from trente_env.layout import DEFAULT_STAKE_LEVELS

        meta = self.meta.get("env", {})
        action_space, observation_space = self.model.action_space, self.model.observation_space
        if isinstance(observation_space, spaces.Dict):
            observation, history = "dict", int(observation_space["results"].shape[0])
            shoe = "shoe" in observation_space.spaces
        else:
            try:
                history, shoe = flat_layout(int(np.prod(observation_space.shape)))
            except ValueError as exc:
                raise ModelError(f"{str(self.path)!r} does not read TrenteEtQuarante observations: {exc}") from None
            observation = "flat"
        if isinstance(action_space, spaces.Discrete):
            form = "discrete"
        else:  # the factored form's three parts, or the full form's twelve
            form = "factored" if tuple(action_space.shape) == (3,) else "full"
        return {
            "action_form": str(meta.get("action_form", form)),
            "observation": observation,
            "history": int(meta.get("history", history)),
            "observe_shoe": bool(meta.get("observe_shoe", shoe)),
            "stake_levels": tuple(meta.get("stake_levels", DEFAULT_STAKE_LEVELS)),
        }

    @cached_property
    def _layout(self) -> Any:
        from trente_env.layout import Layout
        from trente_env.rules import get_rules

        kwargs = self.env_kwargs()
        boxes = int(self.meta.get("boxes", 4))
        n = getattr(self.model.action_space, "n", None)
        if n is not None and "boxes" not in self.meta:
            boxes = (int(n) - 1) // len(kwargs["stake_levels"])
        if kwargs["action_form"] == "factored" and "boxes" not in self.meta:
            boxes = int(self.model.action_space.nvec[1])
        rules = get_rules("classic" if boxes == 4 else "main-bets")
        return Layout(
            rules, kwargs["action_form"], kwargs["observation"], kwargs["history"], kwargs["observe_shoe"],
            kwargs["stake_levels"],
        )  # fmt: skip

    def model_observation(self, observation: np.ndarray | dict[str, np.ndarray]) -> Any:
        """A batch of env observations (dict or flat, any scoreboard length >= the model's) in the
        model's own observation form."""
        layout = self._layout
        k = layout.history
        if isinstance(observation, dict):
            obs = {key: np.asarray(value) for key, value in observation.items()}
            if obs["bankroll"].ndim == 1:
                obs = {key: value[None] for key, value in obs.items()}
            obs["results"], obs["couleur"] = obs["results"][:, :k], obs["couleur"][:, :k]
            if layout.observation == "dict":
                return {key: obs[key] for key in layout.dict_space.spaces}
            return flatten(obs, k, layout.observe_shoe)
        flat = np.asarray(observation, dtype=np.float32)
        if flat.ndim == 1:
            flat = flat[None]
        if layout.observation == "flat" and flat.shape[1] == layout.flat_size:
            return flat
        return self.model_observation(unflatten(flat))

    def full_actions(self, actions: np.ndarray) -> np.ndarray:
        """The model's actions as rows of the env's full form, ``(n, 12)`` int64."""
        layout = self._layout
        if layout.action_form == "discrete":
            return layout.action_table[np.asarray(actions, dtype=np.int64).reshape(-1)].astype(np.int64)
        if layout.action_form == "factored":  # bet or not, box, stake level: a row of the same menu
            parts = np.asarray(actions, dtype=np.int64).reshape(-1, 3)
            return layout.action_table[layout.menu_rows(parts)].astype(np.int64)
        return np.asarray(actions, dtype=np.int64).reshape(-1, ACTION_WIDTH)

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
        """The model's bets for a batch of env observations (dict or flat), in the env's full form
        ``(n, 12)`` (``(12,)`` for one unbatched observation), greedy unless ``deterministic=False``."""
        single = (
            np.asarray(observation["bankroll"]) if isinstance(observation, dict) else np.asarray(observation)
        ).ndim == 1
        model_observation = self.model_observation(observation)
        if self._greedy_network is not None and state is None:
            actions = self._greedy(model_observation)
        else:
            kwargs = {"action_masks": self.action_masks(observation)} if self.algo == "maskable-ppo" else {}
            actions, state = self.model.predict(model_observation, state, episode_start, self.deterministic, **kwargs)
        rows = self.full_actions(actions)
        return (rows[0] if single else rows), state

    @cached_property
    def _greedy_network(self) -> Any:
        """The model's policy network when :meth:`_greedy` may stand in for SB3's ``predict``: greedy play
        of a feed-forward PPO, A2C or DQN policy with discrete or multi-discrete actions (else None:
        sampled, masked or recurrent play, or a model that is not SB3's own, goes through ``predict``)."""
        from gymnasium import spaces

        if not self.deterministic or self.algo not in ("ppo", "a2c", "dqn"):
            return None
        if not isinstance(self.model.action_space, (spaces.Discrete, spaces.MultiDiscrete)):
            return None
        try:
            from stable_baselines3.common.policies import ActorCriticPolicy
            from stable_baselines3.dqn.policies import DQNPolicy
        except ImportError:  # not an SB3 model, and no SB3 to read one
            return None
        policy = getattr(self.model, "policy", None)
        return policy if isinstance(policy, DQNPolicy if self.algo == "dqn" else ActorCriticPolicy) else None

    def _greedy(self, observation: np.ndarray | dict[str, np.ndarray]) -> np.ndarray:
        """The model's greedy actions for a batch in its own observation form: SB3's
        ``predict(deterministic=True)`` without its per-call work (the batch is handed to torch without
        a copy, under ``torch.inference_mode``), so the same network on the same numbers picks the
        same actions."""
        import torch
        from stable_baselines3.common.policies import BasePolicy

        policy = self._greedy_network
        space = self.model.observation_space
        if isinstance(observation, dict):
            tensor: Any = {
                key: torch.as_tensor(np.asarray(value).reshape(-1, *space[key].shape))
                for key, value in observation.items()
            }
        else:
            tensor = torch.as_tensor(np.asarray(observation).reshape(-1, *space.shape))
        policy.set_training_mode(False)  # as predict does (a model still learning may have left it on)
        with torch.inference_mode():
            if self.algo == "dqn":  # the action of highest value
                actions = policy._predict(tensor, deterministic=True)
            else:  # the most likely action of each part, as SB3's (Multi)CategoricalDistribution.mode
                features = BasePolicy.extract_features(policy, tensor, policy.pi_features_extractor)
                logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
                actions = most_likely_parts(policy, logits)
        return actions.numpy().reshape(-1, *self.model.action_space.shape)

    def action_masks(self, observation: np.ndarray | dict[str, np.ndarray]) -> np.ndarray:
        """The legal actions, in the model's action form, for a batch of env observations (dict or
        flat): what MaskablePPO is told (:meth:`trente_env.layout.Layout.action_masks` of the money in hand)."""
        if isinstance(observation, dict):
            bankroll = np.asarray(observation["bankroll"], dtype=np.float64).reshape(-1)
        else:
            flat = np.asarray(observation, dtype=np.float64)
            flat = flat.reshape(-1, flat.shape[-1])
            bankroll = flat[:, flat_offsets(*flat_layout(flat.shape[1]))["bankroll"]]
        return self._layout.action_masks(bankroll)

    def spec(self) -> str:
        return f"{self.path}:algo={self.algo}"


def most_likely_parts(policy: Any, logits: Any) -> Any:
    """The most likely action of each part of the action (one part for a discrete action), ``(n, parts)``."""
    import torch

    dims = getattr(policy.action_dist, "action_dims", [logits.shape[1]])
    return torch.stack([_most_likely(part) for part in torch.split(logits, list(dims), dim=1)], 1)


def _most_likely(logits: Any) -> Any:
    """The index of the most likely action per row, computed as ``torch.distributions.Categorical``
    does (logits normalised by their log-sum-exp, then softmax) so that ties break the same way."""
    import torch

    normalized = logits - logits.logsumexp(dim=-1, keepdim=True)
    return torch.argmax(torch.softmax(normalized, dim=-1), dim=1)


def _form(space: Any) -> Any:
    """What a policy must agree on with its env: the kind and shape of a space (not its bounds)."""
    from gymnasium import spaces

    if isinstance(space, spaces.Dict):
        return {key: _form(value) for key, value in space.spaces.items()}
    if isinstance(space, spaces.Discrete):
        return f"Discrete({int(space.n)})"
    return f"{type(space).__name__}{tuple(space.shape)}"


__all__ = [
    "TRUST_VARIABLE",
    "ModelError",
    "ModelPolicy",
    "most_likely_parts",
    "trusted",
    "trusting",
]

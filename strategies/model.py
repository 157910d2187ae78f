"""The seam for trained agents: a stable-baselines3 model file used wherever a strategy is.

``trente-lab train`` writes ``model.json`` beside ``model.zip``: the algorithm, the table, the env
settings the model was trained with (action form: discrete, factored or full; observation form,
scoreboard length, stake levels) and its network (``network``: layer widths and input layer).
With it :class:`ModelPolicy` builds a fresh model of that shape and reads only its weights from
the zip, with
``torch.load(weights_only=True)``: **nothing in the file is unpickled**, so a crafted file cannot
run code. SB3's own loading unpickles the zip's ``data`` (its spaces, schedules and classes), and an
unpickled object may run any code: a model without the lab's description (a bare SB3 file, a
recurrent model) is loaded that way only when trusted (``trust=True``, the commands'
``--trust-model``, or the environment variable :data:`TRUST_VARIABLE` the flag sets for the worker
processes of a run).

With it :class:`ModelPolicy` plays like any strategy: :meth:`ModelPolicy.act` takes the env's dict or
flat observations and answers in the env's full action form, so a model can sit in a tournament
beside the betting systems.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import zipfile
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from trente_env.codes import ACTION_WIDTH, flat_layout, flat_offsets, flatten, unflatten
from trente_env.rules import MAX_MONEY
from trente_env.whole import is_whole

#: Algorithm names accepted by ``algo=``, and where their class lives.
ALGORITHMS: dict[str, tuple[str, str]] = {
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
    "maskable-ppo": ("sb3_contrib", "MaskablePPO"),
    "recurrent-ppo": ("sb3_contrib", "RecurrentPPO"),
}


#: The algorithms whose models a lab's ``model.json`` rebuilds without unpickling (``trente-lab train``'s:
#: a feed-forward ``MlpPolicy`` on the flat observation).
REBUILT: tuple[str, ...] = ("ppo", "a2c", "dqn", "maskable-ppo")

#: Set to ``1`` (by :func:`trusting`, so that the worker processes of a run inherit it): model files
#: without the lab's description may be unpickled, which runs any code they hold.
TRUST_VARIABLE = "TRENTE_LAB_TRUST_MODEL"


class ModelError(ValueError):
    """A model file that cannot be used: missing library, missing or unreadable file."""


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
        self.meta: dict[str, Any] = _read_meta(self.path)
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


def lab_network(meta: dict[str, Any]) -> Any:
    """The layer widths of the network a lab's ``model.json`` describes (``network.net_arch``; in files
    written before ``network`` was, the ``net_arch`` of its ``hyper.policy_kwargs`` or ``train``), or
    None when it does not describe one the lab builds: a feed-forward ``MlpPolicy`` with the
    :class:`~strategies.features.LogScaledFlat` input layer, on the flat observation."""
    env = meta.get("env")
    if not isinstance(env, dict) or env.get("observation") != "flat":
        return None
    if not {"action_form", "history"} <= set(env):
        return None
    network = meta.get("network")
    if network is not None:
        if not isinstance(network, dict) or network.get("policy") != "MlpPolicy":
            return None
        if network.get("features") != "LogScaledFlat":
            return None
        net_arch = network.get("net_arch")
    else:
        hyper, train = meta.get("hyper"), meta.get("train")
        kwargs = hyper.get("policy_kwargs", {}) if isinstance(hyper, dict) else {}
        net_arch = kwargs.get("net_arch") if isinstance(kwargs, dict) and "net_arch" in kwargs else None
        if net_arch is None and isinstance(train, dict):
            net_arch = train.get("net_arch")
    return net_arch if _layers(net_arch) else None


def _layers(net_arch: Any) -> bool:
    """A ``net_arch`` SB3 takes: a list of layer widths, or ``{"pi": [...], "vf": [...]}`` (``qf``); at
    most 16 layers of 4096 (a description cannot make the loader build a network of many gigabytes)."""
    if isinstance(net_arch, dict):
        return bool(net_arch) and set(net_arch) <= {"pi", "vf", "qf"} and all(map(_layers, net_arch.values()))
    return isinstance(net_arch, list) and len(net_arch) <= 16 and all(_whole(1, 4096)(n) for n in net_arch)


def _least_parameters(net_arch: Any) -> int:
    """A lower bound on the parameters of the hidden layers ``net_arch`` describes: the weights between
    consecutive layers and their biases (the input and output layers, which depend on the table, left out)."""
    if isinstance(net_arch, dict):
        return sum(map(_least_parameters, net_arch.values()))
    return sum(a * b for a, b in zip(net_arch, net_arch[1:])) + sum(net_arch)


def _stored_weight_bytes(path: Path) -> int:
    """The bytes of tensor data in the ``policy.pth`` of the SB3 file ``path``, read off the archives'
    directories (a ``.pth`` is itself a zip, one ``<name>/data/<key>`` entry per storage): nothing is
    unpickled."""
    from strategies.inputs import MODEL_BYTES

    try:
        with zipfile.ZipFile(path) as archive:
            if archive.getinfo("policy.pth").file_size > MODEL_BYTES:
                raise ModelError(f"{str(path)!r} holds a policy.pth larger than {MODEL_BYTES:,} bytes")
            with zipfile.ZipFile(archive.open("policy.pth")) as weights:
                return sum(i.file_size for i in weights.infolist() if i.filename.rsplit("/", 2)[-2:-1] == ["data"])
    except KeyError:
        raise ModelError(f"{str(path)!r} holds no policy.pth (a stable-baselines3 model's weights)") from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise ModelError(f"cannot read the weights in {str(path)!r}: {exc}".splitlines()[0]) from None


def check_size(meta: dict[str, Any], path: Path) -> None:
    """Refuse, before it is built, a network ``model.json`` describes that the weights stored in ``path``
    cannot fill: each parameter takes at least one byte of stored data (four as float32), so a
    description of far more parameters than the file holds bytes is not this file's network."""
    least, stored = _least_parameters(lab_network(meta)), _stored_weight_bytes(path)
    if stored == 0:
        raise ModelError(f"cannot read the weights in {str(path)!r}: its policy.pth holds no tensors")
    if least > stored:
        raise ModelError(
            f"{str(path.with_suffix('.json'))!r} describes a network of at least {least:,} parameters, but "
            f"{str(path)!r} stores {stored:,} bytes of weights: it does not describe this file"
        )


def rebuild(cls: Any, meta: dict[str, Any]) -> Any:
    """A fresh model of class ``cls`` shaped as the lab's ``meta`` (``model.json``) describes, its
    weights still those of a new network: nothing is read from the model file (see :func:`load_weights`).

    :raises ModelError: a description the algorithm refuses.
    """
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    from strategies.features import LogScaledFlat  # the input layer of every model train saves

    layout = _meta_layout(meta)

    class Spaces(gym.Env):
        """Only the spaces: the model is built to be given its weights and to play elsewhere."""

        observation_space, action_space = layout.single_observation_space, layout.single_action_space

    hyper = meta.get("hyper") if isinstance(meta.get("hyper"), dict) else {}
    policy_kwargs = dict(hyper.get("policy_kwargs") or {})
    policy_kwargs.update(net_arch=lab_network(meta), features_extractor_class=LogScaledFlat)
    small = {"buffer_size": 1} if "buffer_size" in inspect.signature(cls).parameters else {}  # no replay memory
    try:
        return cls("MlpPolicy", DummyVecEnv([Spaces]), device="cpu", policy_kwargs=policy_kwargs, **small)
    except (TypeError, ValueError, AssertionError) as exc:
        raise ModelError(f"cannot build the network model.json describes: {exc}".splitlines()[0]) from None


def load_weights(model: Any, path: str | Path, optimizer: bool = True, mismatch: str | None = None) -> None:
    """Give ``model`` the weights saved in the SB3 file ``path`` (its ``policy.pth``, and the optimiser's
    state ``policy.optimizer.pth`` when ``optimizer``), read with ``torch.load(weights_only=True)``:
    tensors and plain containers only, so nothing in the file can run code. The file's ``data``
    (pickled objects) is never read.

    :param mismatch: what the error says when the weights are not the network's (default: the file's
        ``model.json`` does not describe it).
    :raises ModelError: weights missing, of another kind than tensors, or of another shape than the model's.
    """
    import torch

    path = Path(path)
    state: dict[str, Any] = {}
    names = ("policy", "policy.optimizer") if optimizer else ("policy",)
    try:
        with zipfile.ZipFile(path) as archive:
            for name in names:
                try:
                    raw = archive.read(f"{name}.pth")
                except KeyError:
                    raise ModelError(
                        f"{str(path)!r} holds no {name}.pth (a stable-baselines3 model's weights)"
                    ) from None
                state[name] = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except ModelError:
        raise
    except Exception as exc:  # not a zip, or weights_only refusing what is not tensors: one line either way
        raise ModelError(f"cannot read the weights in {str(path)!r}: {exc}".splitlines()[0]) from None
    try:
        model.policy.load_state_dict(state["policy"])
        if optimizer:
            model.policy.optimizer.load_state_dict(state["policy.optimizer"])
    except Exception as exc:  # names or shapes that are not the network's
        if mismatch is None:
            mismatch = (
                f"{str(path.with_suffix('.json'))!r} does not describe {str(path)!r}: its weights do not fit "
                "the network it describes"
            )
        raise ModelError(" ".join(f"{mismatch}: {exc}".split())[:400]) from None


def _meta_layout(meta: dict[str, Any]) -> Any:
    """The env layout a lab's ``model.json`` describes (its settings, and its boxes)."""
    from trente_env.layout import DEFAULT_STAKE_LEVELS, Layout
    from trente_env.rules import get_rules

    env = meta["env"]
    rules = get_rules("classic" if int(meta.get("boxes", 4)) == 4 else "main-bets")
    try:
        return Layout(
            rules, env["action_form"], "flat", int(env["history"]), bool(env.get("observe_shoe", False)),
            tuple(env.get("stake_levels", DEFAULT_STAKE_LEVELS)),
        )  # fmt: skip
    except ValueError as exc:
        raise ModelError(f"model.json describes no table the agent can sit at: {exc}".splitlines()[0]) from None


def _read_meta(path: Path) -> dict[str, Any]:
    """``model.json`` beside ``model.zip``, written by ``trente-lab train`` ({} when absent)."""
    from strategies.inputs import CONFIG_BYTES, read_json

    meta = path.with_suffix(".json")
    if not meta.exists():
        return {}
    document = read_json(meta, "model's description", CONFIG_BYTES, ModelError)
    if not isinstance(document, dict):
        raise ModelError(f"{str(meta)!r} is not a model description (a JSON object)")
    for key, value in (*document.items(), *_env_items(document, meta)):
        check = _META_CHECKS.get(key)
        if check is not None and not check[0](value):
            raise ModelError(f"{str(meta)!r} (the model's description): {key} must be {check[1]}, got {value!r}")
    return document


def _env_items(document: dict[str, Any], meta: Path) -> list[tuple[str, Any]]:
    env = document.get("env", {})
    if not isinstance(env, dict):
        raise ModelError(f"{str(meta)!r} (the model's description): env must be a JSON object, got {env!r}")
    return [(f"env.{key}", value) for key, value in env.items()]


def _whole(low: int, high: int):
    return lambda v: is_whole(v, low, high, numpy=False)


def _number(low: float, high: float):
    return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and low <= v <= high


def _stake_levels(v: Any) -> bool:
    return isinstance(v, list) and len(v) > 0 and all(_number(1e-9, MAX_MONEY)(x) for x in v)


#: What each value of ``model.json`` may be (the ones a command reads): (test, what it must be).
_META_CHECKS: dict[str, tuple[Any, str]] = {
    "algo": (lambda v: v in ALGORITHMS, f"one of {', '.join(ALGORITHMS)}"),
    "table": (lambda v: isinstance(v, str), "the name of a table"),
    "payout": (lambda v: v is None or _number(1.0, 1e6)(v), "null or a payout from 1 to 1e6"),
    "boxes": (lambda v: v in (2, 4) and not isinstance(v, bool), "2 or 4"),
    "bankroll": (_number(1e-9, MAX_MONEY), f"a number above 0 and at most {MAX_MONEY:g}"),
    "env.action_form": (lambda v: v in ("discrete", "factored", "full"), "discrete, factored or full"),
    "env.observation": (lambda v: v in ("dict", "flat"), "dict or flat"),
    "env.history": (_whole(1, 10_000), "a whole number from 1 to 10000"),
    "env.observe_shoe": (lambda v: isinstance(v, bool), "true or false"),
    "env.stake_levels": (_stake_levels, "a list of positive stakes"),
}


def _form(space: Any) -> Any:
    """What a policy must agree on with its env: the kind and shape of a space (not its bounds)."""
    from gymnasium import spaces

    if isinstance(space, spaces.Dict):
        return {key: _form(value) for key, value in space.spaces.items()}
    if isinstance(space, spaces.Discrete):
        return f"Discrete({int(space.n)})"
    return f"{type(space).__name__}{tuple(space.shape)}"


__all__ = [
    "ALGORITHMS",
    "REBUILT",
    "TRUST_VARIABLE",
    "ModelError",
    "ModelPolicy",
    "lab_network",
    "load_weights",
    "rebuild",
    "trusted",
    "trusting",
]

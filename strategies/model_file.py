"""A model file read without unpickling: ``model.json`` (the lab's description of the model beside
it, each value checked) and the weights of ``model.zip``'s ``policy.pth``, read with
``torch.load(weights_only=True)`` into a fresh network of the shape the description gives. Nothing in
the file is unpickled, so a crafted file cannot run code; the files are opened by the one reader
(:mod:`strategies.inputs`). :class:`~strategies.model.ModelPolicy` plays the model so read;
``trente-lab train`` writes the description and loads weights back here too.
"""

from __future__ import annotations

import inspect
import io
import zipfile
from pathlib import Path
from typing import Any

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


class ModelError(ValueError):
    """A model file that cannot be used: missing library, missing or unreadable file."""


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

    layout = meta_layout(meta)

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


def meta_layout(meta: dict[str, Any]) -> Any:
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


def read_meta(path: Path) -> dict[str, Any]:
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


__all__ = [
    "ALGORITHMS",
    "REBUILT",
    "ModelError",
    "check_size",
    "lab_network",
    "load_weights",
    "meta_layout",
    "read_meta",
    "rebuild",
]

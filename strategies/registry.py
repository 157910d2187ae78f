"""Strategies by name: the registry, spec strings, config files, plugins and model files.

One dictionary, :data:`STRATEGIES`, maps each built-in system's name to its class; a class joins it
with the :func:`register` decorator. A strategy is created from:

* a **spec string**: ``name`` or ``name:key=value,key=value``, e.g. ``martingale:base=2,box=rouge``,
  ``labouchere:line=1-2-3`` (lists are written with ``-``), ``streak:k=4,column=couleur``;
* a **config file** (TOML or JSON) with one table per strategy (:func:`strategies_from_config`);
* a **plugin**: a Python entry point in the group ``trente_lab.strategies`` (``name = "pkg.mod:Class"``
  in the plugin's ``pyproject.toml``), used by its name, or a ``module:Class`` path, used as
  ``pkg.mod:Class`` or ``pkg.mod:Class:key=value``, or a file, ``path/to/file.py:Class`` (read by
  :func:`strategies.inputs.read_input`, its spec naming the file by its absolute path). The class must subclass
  :class:`~strategies.base.Strategy`. A built-in's name always means the built-in: a plugin whose
  entry point or ``name`` is a built-in's is reached by its ``module:Class`` path, and its
  :meth:`~strategies.base.Strategy.spec` says so (:func:`spec_name`), so it is never swapped for the
  built-in. **Loading a plugin imports it and so runs its code**: use only plugins you trust;
* a **trained SB3 model file**: ``path/to/model.zip`` or ``path/to/model.zip:algo=dqn``
  (:class:`~strategies.model.ModelPolicy`: a model saved by ``trente-lab train`` is read without
  unpickling; any other is unpickled, which runs its code, only when trusted).

Every mistake is a :class:`StrategyError` with a one-line message.

**Adding a built-in system** takes its class and its kernel rules:

1. its class, in :mod:`strategies.progressions` (a staking progression on one box) or
   :mod:`strategies.patterns` (a system that reads the scoreboard): a frozen dataclass subclassing
   :class:`~strategies.base.Strategy` (or ``Progression``), decorated with ``@register``, with a
   unique ``name``, a one-line ``summary``, its rule and origin in its docstring, its parameters as
   fields (checked in ``__post_init__``), its ``kind`` and :meth:`~strategies.base.Strategy._kernel_values`
   (its parameters in the kernel's ``K_*`` columns);
2. its kernel rules, in :mod:`strategies.kernel`: a member of :class:`~strategies.kernel.Kind` and
   its rule in the functions that differ from a flat stake (see that module's docstring).

Then it is in the catalogue (``trente-lab strategies``), spec strings and config files, on the
vector env and on the tournament's compiled loop. The default tournament plays :data:`LINEUP`, a
curated tuple (which variants, in which order: the order of the result files, not the catalogue's):
add the new system's spec there as well (``tests/test_registry.py`` fails until every built-in is in
it). The catalogue lists the systems in the order they register: :mod:`strategies.progressions`,
then :mod:`strategies.patterns` (as :mod:`strategies` imports them), each in the order of its classes,
then the card counters.

**The card counters** (``counter``, ``linear-counter``: :mod:`strategies.counters`) read the cards,
so they are no state machine of the kernel: they are in :data:`COUNTERS`, not :data:`STRATEGIES`,
made from specs like the systems (``counter:threshold=0.001``) and played on the shoe-observing env.
They are not in :data:`LINEUP`: a tournament plays them when they are named
(``--strategies all,counter,linear-counter``), so the default tournament does not change.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import importlib
import importlib.util
import os
import re
import sys
import typing
from collections.abc import Mapping
from enum import Enum
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

from strategies.base import Strategy, plain
from strategies.model import ModelError, ModelPolicy
from strategies.policy import Policy
from trente_env.rules import RuleSet, get_rules

#: Every built-in strategy, by name, in the order they registered (:func:`register`).
STRATEGIES: dict[str, type[Strategy]] = {}


def register(cls: type[Strategy]) -> type[Strategy]:
    """Class decorator: ``cls`` is a built-in system, known to :data:`STRATEGIES` by its ``name``.

    For the systems of this package; a plugin is found through its entry point instead (see the
    module docstring). Raises TypeError for a class that is not a named Strategy dataclass, and
    ValueError for a name another built-in has.
    """
    if not (isinstance(cls, type) and issubclass(cls, Strategy) and dataclasses.is_dataclass(cls) and cls.name):
        raise TypeError(f"register takes a Strategy dataclass with a name, got {cls!r}")
    if STRATEGIES.setdefault(cls.name, cls) is not cls:
        other = STRATEGIES[cls.name].__qualname__
        raise ValueError(f"two built-in systems are named {cls.name!r}: {other} and {cls.__qualname__}")
    return cls


#: The card counters (:mod:`strategies.counters`), by name: players that read the cards, so not
#: systems of the compiled loop; made from specs like the systems, but never in :data:`LINEUP`.
COUNTERS: dict[str, type] = {}


def register_counter(cls: type) -> type:
    """Class decorator for :mod:`strategies.counters`: a card counter known to :data:`COUNTERS` by its
    ``name`` (a named frozen dataclass with the ``act`` of a :class:`~strategies.policy.Policy`)."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and getattr(cls, "name", "")):
        raise TypeError(f"register_counter takes a named dataclass, got {cls!r}")
    if cls.name in STRATEGIES or COUNTERS.setdefault(cls.name, cls) is not cls:
        raise ValueError(f"two built-in players are named {cls.name!r}")
    return cls


#: The entry-point group where installed packages declare their strategies.
ENTRY_POINT_GROUP = "trente_lab.strategies"

#: A default line-up for a tournament: every system, with its Couleur/Inverse versions.
LINEUP: tuple[str, ...] = (
    "never", "flat", "flat:box=couleur", "martingale", "martingale:box=couleur", "grand-martingale",
    "reverse-martingale", "paroli", "dalembert", "contra-dalembert", "fibonacci", "labouchere", "oscars-grind",
    "1-3-2-6", "streak", "streak:column=couleur", "anti-streak", "anti-streak:column=couleur", "random",
)  # fmt: skip


class StrategyError(ValueError):
    """A strategy that cannot be made: unknown name, bad parameter, unreadable config or plugin."""


def plugin_entry_points() -> dict[str, metadata.EntryPoint]:
    """The installed plugins (``trente_lab.strategies`` entry points), by name; none is loaded."""
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def strategy_class(name: str) -> type[Strategy]:
    """The class registered as ``name``: built-in, else an installed plugin (imported: runs its code),
    else a ``module:Class`` path (imported: runs its code)."""
    if name in STRATEGIES:
        return STRATEGIES[name]
    if name in COUNTERS:
        return COUNTERS[name]
    plugins = plugin_entry_points()
    if name in plugins:
        return _check_class(_load(lambda: plugins[name].load(), f"plugin {name!r}"), name)
    if ":" in name:
        module_name, _, attr = name.partition(":")
        if module_name.endswith(".py"):  # a file: path/to/file.py:Class
            module = _file_module(module_name)
        else:
            module = _load(lambda: importlib.import_module(module_name), f"module {module_name!r}")
        cls: Any = module
        for part in attr.split("."):  # a nested class: Outer.Inner
            cls = getattr(cls, part, None)
        if cls is None:
            raise StrategyError(f"module {module_name!r} has no {attr!r}")
        return _check_class(cls, name)
    known = [*STRATEGIES, *COUNTERS, *plugins]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise StrategyError(f"unknown strategy {name!r}{hint}; see `trente-lab strategies` for the list")


def spec_name(cls: type[Strategy]) -> str:
    """The name that makes ``cls`` again in :func:`strategy_class`: its ``name`` when that is how the
    registry finds it (a built-in, or an installed plugin whose entry point points at it), else its
    ``module:Class`` path. A plugin with a built-in's name is so never taken for the built-in."""
    if STRATEGIES.get(cls.name) is cls or COUNTERS.get(cls.name) is cls:
        return cls.name
    path = f"{_PLUGIN_FILES.get(cls.__module__, cls.__module__)}:{cls.__qualname__}"
    if cls.name not in STRATEGIES:
        entry = plugin_entry_points().get(cls.name)
        if entry is not None and entry.value.replace(" ", "") == path:
            return cls.name
    return path


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split a spec string into the strategy's name (or ``module:Class``, or model path) and its
    parameters as text: ``"martingale:base=2,box=rouge"`` -> ``("martingale", {"base": "2", "box": "rouge"})``."""
    spec = spec.strip()
    if not spec:
        raise StrategyError("empty strategy spec")
    parts = spec.split(":")
    if parts[0].endswith(".zip"):
        name, rest = parts[0], ":".join(parts[1:])
    elif len(parts) >= 2 and parts[1] and "=" not in parts[1] and parts[0] not in (*STRATEGIES, *COUNTERS):
        name, rest = f"{parts[0]}:{parts[1]}", ":".join(parts[2:])
    else:
        name, rest = parts[0], ":".join(parts[1:])
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise StrategyError(f"bad parameter {item!r} in {spec!r}: write key=value")
        key = key.strip().replace("-", "_")
        if key in params:  # the last would win without a word
            raise StrategyError(f"parameter {key!r} is given twice in {spec!r}")
        params[key] = value.strip()
    return name.strip(), params


def parse_entry(entry: str | Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The name and parameters of a strategy entry: a spec string (:func:`parse_spec`; ``model:PATH.zip``
    names a model file too) or a mapping with a ``name`` or a ``spec`` and parameters (a config file's
    table), the mapping's parameters winning over the spec's."""
    if not isinstance(entry, Mapping):
        return parse_spec(entry.removeprefix("model:"))
    params = dict(entry)
    if "spec" in params:
        name, text = parse_spec(str(params.pop("spec")))
        return name, {**text, **params}
    name = str(params.pop("name", ""))
    if not name:
        raise StrategyError(f"a strategy entry needs a name (or a spec), got {dict(entry)!r}")
    return name, params


def make_strategy(spec: str | Mapping[str, Any], rules: str | RuleSet = "classic") -> Policy:
    """A strategy from a spec string or a mapping (``{"name": "martingale", "base": 2}``).

    :param spec: see the module docstring; a ``.zip`` path gives a :class:`ModelPolicy`.
    :param rules: the table's rules (preset name or RuleSet): limits and options.
    """
    name, params = parse_entry(spec)
    if name.endswith(".zip"):
        try:
            return ModelPolicy(name, **{k: str(v) for k, v in params.items()})
        except TypeError:
            raise StrategyError(f"a model takes only algo=..., got {', '.join(params)}") from None
        except ModelError as exc:
            raise StrategyError(str(exc)) from None
    cls = strategy_class(name)
    try:
        table = get_rules(rules)
    except ValueError as exc:
        raise StrategyError(str(exc)) from None
    fields = {f.name: f for f in dataclasses.fields(cls) if not f.metadata.get("table")}
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for key, value in params.items():
        if key not in fields:
            raise StrategyError(f"{name} has no parameter {key!r}; it takes {', '.join(fields)}")
        try:
            values[key] = parse_value(value, hints[key])
        except ValueError as exc:
            raise StrategyError(f"{name}: bad {key}={value!r}: {exc}") from None
    try:
        return cls(rules=table, **values)
    except (ValueError, TypeError) as exc:
        raise StrategyError(f"{name}: {exc}") from None
    except KeyboardInterrupt:  # Ctrl-C while it is made
        raise
    except BaseException as exc:  # a plugin may fail in any way when made (GeneratorExit too), or exit
        failure = plugin_failure(cls, exc, "being made")
        if failure is None:
            raise
        raise failure from None


def _said(exc: BaseException) -> str:
    """``": "`` and the first line of ``exc``'s message that says something; ``""`` for none (``MemoryError()``)."""
    return next((f": {line.strip()}" for line in str(exc).splitlines() if line.strip()), "")


def plugin_failure(policy: Any, exc: BaseException, when: str) -> StrategyError | None:
    """The one-line error for a plugin (``policy``, or its class) that raised ``exc`` while ``when``
    (``"playing"``, ``"being made"``), naming it; None for the built-ins and models, whose errors are
    the lab's own bugs and show as such."""
    cls = policy if isinstance(policy, type) else type(policy)
    name = getattr(cls, "name", "")
    if STRATEGIES.get(name) is cls or COUNTERS.get(name) is cls or issubclass(cls, ModelPolicy):
        return None
    said = _said(exc)
    try:
        which = spec_name(cls) if issubclass(cls, Strategy) else f"{cls.__module__}:{cls.__qualname__}"
    except Exception:  # a plugin too broken to name itself: its class path
        which = f"{cls.__module__}:{cls.__qualname__}"
    if isinstance(exc, SystemExit):  # sys.exit() in a plugin would end the run without its results or a word
        return StrategyError(f"plugin {which!r} exited while {when} (SystemExit({exc.code!r})): a system must not exit")
    return StrategyError(f"plugin {which!r} failed while {when}: {type(exc).__name__}{said}")


def parse_value(value: Any, hint: Any) -> Any:
    """``value`` (text from a spec, or a plain value from a config file) as the type ``hint``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if args and type(None) in args:  # X | None
        if value is None or (isinstance(value, str) and value.lower() in ("none", "")):
            return None
        return parse_value(value, next(a for a in args if a is not type(None)))
    if origin is tuple:
        if not isinstance(value, str):
            return tuple(parse_value(v, args[0]) for v in value)
        if not value.strip():
            return ()
        items = re.split(r"\s*-\s*|\s+", value.strip())
        if "" in items:  # "-1-2" is not 1-2, and a list has no negative numbers to write
            raise ValueError("write a list as numbers joined by - (1-2-3), with no empty place")
        return tuple(parse_value(v, args[0]) for v in items)
    if not isinstance(value, str):
        return value
    if hint is bool:
        lowered = value.lower()
        if lowered not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
            raise ValueError("expected true or false")
        return lowered in ("true", "yes", "1", "on")
    if hint is int:
        try:
            return int(value)
        except ValueError:
            raise ValueError("expected a whole number") from None
    if hint is float:
        try:
            return float(value)
        except ValueError:
            raise ValueError("expected a number") from None
    if isinstance(hint, type) and issubclass(hint, Enum):
        try:
            return hint(value.lower())
        except ValueError:
            raise ValueError(f"choose one of {'|'.join(m.value for m in hint)}") from None
    return value


def strategies_from_config(path: str | Path, rules: str | RuleSet = "classic") -> list[Policy]:
    """The strategies listed in a TOML or JSON file.

    TOML: one ``[[strategy]]`` table per strategy, with ``name`` (or ``spec``) and parameters::

        [[strategy]]
        name = "labouchere"
        line = [1, 2, 3]

    JSON: a list of such objects, or ``{"strategy": [...]}``, or one object.
    """
    from strategies.inputs import CONFIG_BYTES, read_json, read_toml

    path = Path(path)
    if path.suffix.lower() == ".toml":
        document: Any = read_toml(path, StrategyError)
    else:
        document = read_json(path, "config", CONFIG_BYTES, StrategyError)
    if isinstance(document, Mapping):
        entries = document.get("strategy", document.get("strategies", [document] if document else []))
        if isinstance(entries, Mapping):
            entries = [entries]
    else:
        entries = document
    if not isinstance(entries, list) or not entries or not all(isinstance(e, Mapping) for e in entries):
        raise StrategyError(f"config {str(path)!r} lists no strategies: write [[strategy]] tables with a name")
    return [make_strategy(entry, rules) for entry in entries]


def describe(cls: type) -> dict[str, Any]:
    """A strategy class as plain data: name, summary, manual (docstring) and parameters."""
    hints = typing.get_type_hints(cls)
    params = []
    for f in dataclasses.fields(cls):
        if f.metadata.get("table"):
            continue
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        kind = _type_name(hints[f.name])
        params.append({"name": f.name, "type": kind, "default": plain(default), "help": f.metadata.get("help", "")})
    return {"name": cls.name, "summary": cls.summary, "doc": _dedent(cls.__doc__ or ""), "params": params}


def catalogue() -> dict[str, dict[str, Any]]:
    """Every built-in strategy described, by name, then the card counters (:data:`COUNTERS`)."""
    return {name: describe(cls) for name, cls in {**STRATEGIES, **COUNTERS}.items()}


def _type_name(hint: Any) -> str:
    args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple:
        return f"list of {_type_name(args[0])} (a-b-c)"
    if args and type(None) in args:
        return _type_name(next(a for a in args if a is not type(None))) + " or none"
    if isinstance(hint, type) and issubclass(hint, Enum):
        return "|".join(m.value for m in hint)
    return getattr(hint, "__name__", str(hint))


def _dedent(doc: str) -> str:
    import inspect

    return inspect.cleandoc(doc)


#: The plugins loaded from a file (``path/to/file.py:Class``): their module's name -> the file's absolute path.
_PLUGIN_FILES: dict[str, str] = {}


def _file_module(path: str) -> ModuleType:
    """The module of the plugin file ``path``, loaded once (read by the one reader of input files:
    a regular file of at most a megabyte), under a name of its own made from its absolute path, so
    that its classes are the same class however often it is named, and their spec names the file."""
    from strategies.inputs import CONFIG_BYTES, read_input

    where = os.path.abspath(path)
    name = "trente_lab_plugin_" + hashlib.sha256(where.encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    source = read_input(where, "plugin file", CONFIG_BYTES, StrategyError)
    spec = importlib.util.spec_from_file_location(name, where)
    if spec is None:
        raise StrategyError(f"cannot load plugin file {path!r}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass looks its module up while the class is made

    def run() -> ModuleType:
        exec(compile(source, where, "exec"), module.__dict__)  # the source the reader read, not the file again
        return module

    try:
        _load(run, f"plugin file {path!r}")
    except BaseException:
        del sys.modules[name]
        raise
    _PLUGIN_FILES[name] = where
    return module


def _load(load: Any, what: str) -> Any:
    try:
        return load()
    except (Exception, SystemExit) as exc:  # a plugin may fail in any way, or exit: report it in one line
        said = _said(exc)
        raise StrategyError(f"cannot load {what}: {type(exc).__name__}{said}") from None


def _check_class(obj: Any, name: str) -> type[Strategy]:
    if not (isinstance(obj, type) and issubclass(obj, Strategy) and dataclasses.is_dataclass(obj)):
        raise StrategyError(f"{name!r} is not a Strategy subclass (a frozen dataclass from strategies.base)")
    return obj


__all__ = [
    "COUNTERS",
    "ENTRY_POINT_GROUP",
    "LINEUP",
    "STRATEGIES",
    "StrategyError",
    "catalogue",
    "describe",
    "make_strategy",
    "parse_entry",
    "parse_spec",
    "parse_value",
    "plugin_entry_points",
    "plugin_failure",
    "register",
    "register_counter",
    "spec_name",
    "strategies_from_config",
    "strategy_class",
]

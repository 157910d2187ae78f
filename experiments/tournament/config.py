"""A tournament's configuration: :class:`TournamentConfig` (plain values: it goes into the
manifest), :func:`make_config` (every mistake is a :class:`~experiments.errors.TournamentError`
with one line), TOML experiment files and the shipped ones (``experiments/configs``)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from experiments.errors import TournamentError
from experiments.files import read_toml
from experiments.limits import MAX_MONEY, MAX_SEED, MAX_SESSION_COUPS, MAX_SESSIONS, MAX_WORKERS
from experiments.rules import rules_name, table_name
from experiments.tournament.defaults import (
    DEFAULT_BANKROLL,
    DEFAULT_BLOCK,
    DEFAULT_COUPS,
    DEFAULT_SESSIONS,
    DEFAULT_TRAJECTORIES,
)
from strategies.registry import COUNTERS, LINEUP, StrategyError, make_strategy, parse_spec
from strategies.sessions import is_compiled
from trente_env.rules import PRESETS, RIGGED_PRESETS, RuleSet, get_rules
from trente_env.whole import checked_whole, is_whole

#: The names a table may be recorded under besides ``"custom"``: the presets'.
NAMED = frozenset({*PRESETS, *RIGGED_PRESETS})

#: At most this many bankroll values per strategy are kept for the trajectory plot (memory bound).
TRAJECTORY_VALUES = 4_000_000


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that fixes a tournament's numbers (plain values: it goes into the manifest).

    :param strategies: the labels shown in the table (the spec strings as written).
    :param specs: the resolved spec strings the systems are made from (``unit`` applied).
    :param name: what the table is called: the preset it was made from (``"custom"`` for rules no
        preset is the base of), recorded as the manifest's and ``results.json``'s ``rules``.
    :param rule_values: every field of the rule set (the table itself: :meth:`ruleset`).
    :param sessions: sessions per system (the independent units of the statistics).
    :param coups: coups per session at most.
    :param bankroll: starting bankroll of every session, units.
    :param unit: the base stake of every system whose spec does not set ``base``.
    :param seed: the seed; session ``i`` plays the shoes of :func:`~strategies.runner.session_seed` ``(seed, i)``.
    :param block: sessions per block (one checkpointed task = one block of one system).
    :param trajectories: the first this many sessions keep their bankroll after every coup.
    """

    strategies: tuple[str, ...]
    specs: tuple[str, ...]
    name: str = "classic"
    rule_values: Mapping[str, Any] = field(default_factory=dict)
    sessions: int = DEFAULT_SESSIONS
    coups: int = DEFAULT_COUPS
    bankroll: float = DEFAULT_BANKROLL
    unit: int = 1
    seed: int = 0
    block: int = DEFAULT_BLOCK
    trajectories: int = DEFAULT_TRAJECTORIES

    def as_dict(self) -> dict[str, Any]:
        """The configuration as the manifest records it (the name under its key ``rules``)."""
        data = {("rules" if k == "name" else k): v for k, v in dataclasses.asdict(self).items()}
        data["strategies"] = list(self.strategies)
        data["specs"] = list(self.specs)
        data["rule_values"] = dict(self.rule_values)
        return data

    def ruleset(self) -> RuleSet:
        return RuleSet(**self.rule_values)

    def rules_name(self) -> str:
        """The game played, named: the preset, with the rules changed from it if any (:func:`rules_name`)."""
        return rules_name(self.name, self.ruleset()) if self.name in NAMED else self.name

    @property
    def n_blocks(self) -> int:
        return -(-self.sessions // self.block)

    def block_range(self, b: int) -> tuple[int, int]:
        return b * self.block, min(self.sessions, (b + 1) * self.block)

    def groups(self) -> list[tuple[int, ...]]:
        """Strategies played together: every built-in system in one group on the compiled session
        loop (:mod:`strategies.sessions`), each other policy (a trained model, a plugin written as
        Python hooks) alone on the vector env."""
        fast = self._compiled()
        return ([fast] if fast else []) + [(s,) for s in range(len(self.specs)) if s not in fast]

    def all_compiled(self) -> bool:
        """Whether every strategy is a built-in system (the whole run is compiled)."""
        return len(self._compiled()) == len(self.specs)

    def card_counters(self) -> list[str]:
        """The labels of the card counters (:data:`strategies.registry.COUNTERS`) in the line-up: they
        read the shoe, so they play on the vector env, slower than the systems."""
        return [label for label, spec in zip(self.strategies, self.specs) if parse_spec(spec)[0] in COUNTERS]

    def _compiled(self) -> tuple[int, ...]:
        rules = self.ruleset()
        return tuple(
            s for s, spec in enumerate(self.specs) if not _is_model(spec) and is_compiled(make_strategy(spec, rules))
        )

    def tasks(self) -> Iterator[tuple[int, tuple[int, ...]]]:
        """Every (block, group of strategy indices) to play, block by block (:meth:`groups`), made
        one at a time: nothing proportional to the number of sessions is held."""
        groups = self.groups()
        return ((b, g) for b in range(self.n_blocks) for g in groups)

    @property
    def n_tasks(self) -> int:
        return self.n_blocks * len(self.groups())


def split_strategies(text: str | Sequence[str]) -> list[str]:
    """Strategy specs from ``--strategies``: comma-separated, ``all`` for the default line-up.

    A spec's own parameters are comma-separated too (``martingale:base=2,box=rouge``): a piece with
    ``=`` and no ``:`` continues the spec before it. ``;`` also separates specs.
    """
    items = [text] if isinstance(text, str) else list(text)
    specs: list[str] = []
    for item in items:
        for group in str(item).split(";"):
            for piece in (p.strip() for p in group.split(",")):
                if not piece:
                    continue
                if "=" in piece and ":" not in piece and specs and ":" in specs[-1]:
                    specs[-1] += "," + piece
                elif piece.lower() == "all":
                    specs.extend(LINEUP)
                else:
                    specs.append(piece)
    return specs


def _resolve_spec(entry: str | Mapping[str, Any], unit: int, rules) -> tuple[str, str, Any]:
    """(label, resolved spec, policy) of one line-up entry, with ``unit`` as the default base."""
    try:
        if isinstance(entry, str) and _is_model(entry):  # a trained agent: loading it runs its code
            policy = make_strategy(entry.strip(), rules)
            return entry.strip(), policy.spec(), policy
        if isinstance(entry, Mapping):
            params = dict(entry)
            if "spec" in params:
                name, text = parse_spec(str(params.pop("spec")))
                params = {**text, **params}
            else:
                name = str(params.pop("name", ""))
            label = name + (":" + ",".join(f"{k}={_spec_text(v)}" for k, v in params.items()) if params else "")
        else:
            label = entry.strip()
            name, params = parse_spec(entry)
        policy = make_strategy({"name": name, "base": unit, **params}, rules)
        spec = policy.spec()
        again = make_strategy(spec, rules)  # the spec is what blocks and worker processes replay
    except StrategyError as exc:
        raise TournamentError(str(exc)) from None
    if type(again) is not type(policy) or again.params() != policy.params():
        raise TournamentError(f"strategy {label!r} is not made again by its spec {spec!r}; name its class by path")
    return label, spec, policy


def _is_model(entry: str) -> bool:
    """``model:PATH.zip`` or ``PATH.zip[:algo=...]``: a model file saved by ``trente-lab train``."""
    entry = entry.strip()
    return entry.startswith("model:") or entry.split(":", 1)[0].endswith(".zip")


def _spec_text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "-".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def make_config(
    strategies: str | Sequence[str | Mapping[str, Any]] | None = None,
    sessions: int = DEFAULT_SESSIONS,
    coups: int = DEFAULT_COUPS,
    bankroll: float = DEFAULT_BANKROLL,
    unit: int = 1,
    rules: RuleSet | None = None,
    seed: int = 0,
    block: int = DEFAULT_BLOCK,
    trajectories: int = DEFAULT_TRAJECTORIES,
    rule_changes: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> TournamentConfig:
    """A validated configuration. Every mistake is a :class:`TournamentError` with one line.

    :param strategies: specs (``"all"`` or None for the default line-up :data:`strategies.LINEUP`),
        a comma-separated string, or a list of specs and ``{"name": ..., param: value}`` mappings.
    :param rules: the table (the command resolves ``--rules``: :func:`experiments.rules.load_rules`);
        default: the classic preset's.
    :param rule_changes: rule-set fields overriding those of ``rules`` (e.g. ``{"table_max": 500}``).
    :param name: what the table is called (:attr:`TournamentConfig.name`: a preset's name, or
        ``"custom"``); default: the name of the preset ``rules`` are (before ``rule_changes``), else ``"custom"``.
    """
    for key, value in (("sessions", sessions), ("coups", coups), ("block", block)):
        checked_whole(value, f"{key} must be a whole number, got {value!r}", error=TournamentError)
        if value < 1:
            raise TournamentError(f"{key} must be at least 1, got {value}")
    whole = {
        "trajectories": (trajectories, "a whole number >= 0", 0),
        "unit": (unit, "a whole number of units >= 1", 1),
        "seed": (seed, "a whole number >= 0", 0),
    }
    for key, (value, what, low) in whole.items():
        checked_whole(value, f"{key} must be {what}, got {value!r}", low, error=TournamentError)
    if seed > MAX_SEED:  # the engine's seeds are int64
        raise TournamentError(f"seed must be at most {MAX_SEED:,}, got {seed}")
    try:
        bankroll = float(bankroll)
    except (TypeError, ValueError):
        raise TournamentError(f"bankroll must be a number, got {bankroll!r}") from None
    base = PRESETS["classic"] if rules is None else rules
    if not isinstance(base, RuleSet):
        raise TournamentError(f"rules must be a rule set (resolve a preset's name with load_rules), got {rules!r}")
    name = table_name(base) if name is None else name
    if not isinstance(name, str) or (name not in NAMED and name != "custom"):
        raise TournamentError(f"rules must be named by a preset (or custom), got {name!r}")
    try:
        ruleset = get_rules(base, **dict(rule_changes or {}))
    except (ValueError, TypeError) as exc:
        raise TournamentError(str(exc)) from None
    if math.isnan(bankroll):
        raise TournamentError("bankroll must be a number, got nan")
    if bankroll < ruleset.table_min:
        raise TournamentError(
            f"bankroll {bankroll:g} is below the table minimum {ruleset.table_min:g}: no stake could be placed"
        )
    if bankroll > MAX_MONEY:
        raise TournamentError(f"bankroll {bankroll:g} is above {MAX_MONEY:.0e} units, the most the tables can count")
    if strategies is None:
        entries: list[str | Mapping[str, Any]] = list(LINEUP)
    elif isinstance(strategies, str):
        entries = list(split_strategies(strategies))
    else:
        entries = []
        for item in strategies:
            if not isinstance(item, (str, Mapping)):
                raise TournamentError(f"a strategy is a spec string or a table with a name, got {item!r}")
            entries.extend(split_strategies(item) if isinstance(item, str) else [item])
    if not entries:
        raise TournamentError("no strategies to play: name at least one (or `all`)")
    labels, specs = [], []
    for entry in entries:
        label, spec, _ = _resolve_spec(entry, int(unit), ruleset)
        if label in labels:
            raise TournamentError(f"strategy {label!r} is listed twice")
        labels.append(label)
        specs.append(spec)
    values = {f.name: _enum_value(getattr(ruleset, f.name)) for f in dataclasses.fields(ruleset)}
    return TournamentConfig(
        strategies=tuple(labels),
        specs=tuple(specs),
        name=name,
        rule_values=values,
        sessions=int(sessions),
        coups=int(coups),
        bankroll=bankroll,
        unit=int(unit),
        seed=int(seed),
        block=int(block),
        trajectories=int(trajectories),
    )


#: Keys a ``[tournament]`` table of a config file may hold, and the ``make_config`` argument they set.
CONFIG_KEYS = ("strategies", "sessions", "coups", "bankroll", "unit", "rules", "seed", "block", "trajectories")


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The options in a TOML experiment file (see ``experiments/configs/``).

    Layout::

        [tournament]
        strategies = ["flat", "martingale:box=couleur"]   # or "all", or a comma-separated string
        sessions = 20000
        coups = 200
        bankroll = 1000
        unit = 1
        rules = "classic"          # a preset ...
        seed = 0
        workers = 2

        [tournament.table]         # ... with optional rule-set overrides
        table_max = 500

        [[strategy]]               # more systems, one table each (as `strategies_from_config`)
        name = "labouchere"
        line = [1, 2, 3]

    Returns ``make_config`` keyword arguments plus ``workers``; every mistake is a
    :class:`TournamentError`.
    """
    path = Path(path)
    document = read_toml(path, TournamentError)
    section = document.get("tournament", {})
    extra = document.get("strategy", [])
    unknown = set(document) - {"tournament", "strategy"}
    if unknown:
        raise TournamentError(f"config {str(path)!r}: unknown section(s) {', '.join(sorted(unknown))}")
    if not isinstance(section, dict) or not isinstance(extra, list):
        raise TournamentError(f"config {str(path)!r}: write a [tournament] table and [[strategy]] tables")
    options: dict[str, Any] = {}
    for key, value in section.items():
        if key == "table":
            if not isinstance(value, dict):
                raise TournamentError(f"config {str(path)!r}: [tournament.table] must be a table of rule values")
            options["rule_changes"] = value
        elif key == "workers":
            options["workers"] = value
        elif key in CONFIG_KEYS:
            options[key] = value
        else:
            raise TournamentError(
                f"config {str(path)!r}: unknown key {key!r}; "
                f"use {', '.join(CONFIG_KEYS)}, workers or [tournament.table]"
            )
    if extra:
        if not all(isinstance(e, dict) for e in extra):
            raise TournamentError(f"config {str(path)!r}: each [[strategy]] must be a table with a name")
        listed = options.get("strategies")
        base = [] if listed is None else ([listed] if isinstance(listed, str) else list(listed))
        options["strategies"] = base + extra
    return options


#: Shipped tournament configs are ``experiments/configs/tournament-<name>.toml``.
CONFIG_PREFIX = "tournament-"


def shipped_configs() -> dict[str, Path]:
    """The named tournament configs shipped in ``experiments/configs/`` (``--config <name>``)."""
    folder = Path(__file__).parent.parent / "configs"
    return {p.stem[len(CONFIG_PREFIX) :]: p for p in sorted(folder.glob(f"{CONFIG_PREFIX}*.toml"))}


def trajectory_sessions(config: TournamentConfig) -> int:
    """How many sessions keep their bankroll after every coup: ``config.trajectories``, fewer for
    very long sessions (at most :data:`TRAJECTORY_VALUES` numbers per strategy)."""
    return min(config.trajectories, TRAJECTORY_VALUES // (config.coups + 1))


#: The numbers a config file's ``[tournament]`` table may hold: (whole number?, least, most), the
#: bounds of the command's options.
_FILE_NUMBERS = {
    "sessions": (True, 1, MAX_SESSIONS),
    "coups": (True, 1, MAX_SESSION_COUPS),
    "bankroll": (False, 0, MAX_MONEY),
    "unit": (True, 1, MAX_MONEY),
    "seed": (True, 0, MAX_SEED),
    "workers": (True, 1, MAX_WORKERS),
    "block": (True, 1, MAX_SESSIONS),
    "trajectories": (True, 0, MAX_SESSIONS),
}


def check_ranges(options: Mapping[str, Any], where: str) -> None:
    """Each number of ``options`` (a config file's, a manifest's) of the type and in the range its
    command-line option takes; a :class:`TournamentError` ``"<where>: <key> must be ..."`` if not."""
    for key, (whole, low, high) in _FILE_NUMBERS.items():
        value = options.get(key)
        if value is None:
            continue
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not (is_whole(value, numpy=False) if whole else number):
            raise TournamentError(f"{where}: {key} must be a {'whole number' if whole else 'number'}, got {value!r}")
        if not value >= low:  # NaN too
            raise TournamentError(f"{where}: {key} must be at least {low}, got {value}")
        if not value <= high:
            raise TournamentError(f"{where}: {key} must be at most {high:,}, got {value}")


def checked_file_options(options: dict[str, Any], name: str) -> dict[str, Any]:
    """The options read from a config file, each of the type and in the range its option takes."""
    check_ranges(options, f"config {name!r}")
    if not isinstance(options.get("rules", ""), str):
        raise TournamentError(f"config {name!r}: rules must be the name of a preset, got {options['rules']!r}")
    if not isinstance(options.get("strategies", ""), (str, list)):
        raise TournamentError(
            f"config {name!r}: strategies must be a list of specs or one string, got {options['strategies']!r}"
        )
    return options


def config_path(name: str) -> Path:
    """The config file ``name``: a path, or the name of a shipped config (:func:`shipped_configs`)."""
    path = Path(name)
    if path.exists() or path.suffix:
        return path
    shipped = shipped_configs()
    if name in shipped:
        return shipped[name]
    raise TournamentError(f"no config file {name!r}; the shipped configs are: {', '.join(shipped) or 'none'}")


def file_options(name: str) -> dict[str, Any]:
    """The options of the config file ``name`` (a path or a shipped config's name):
    :func:`make_config` keyword arguments and ``workers``, each checked like its command-line option."""
    return checked_file_options(read_config_file(config_path(name)), name)


def _enum_value(value: Any) -> Any:
    """A rule set's field as JSON holds it: an enum's value, a tuple (the payouts) as a list."""
    if isinstance(value, tuple):
        return list(value)
    return value.value if isinstance(value, Enum) else value


__all__ = [
    "CONFIG_KEYS",
    "TournamentConfig",
    "check_ranges",
    "checked_file_options",
    "config_path",
    "file_options",
    "make_config",
    "read_config_file",
    "rules_name",
    "shipped_configs",
    "split_strategies",
    "trajectory_sessions",
]

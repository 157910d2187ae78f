"""``trente-lab tournament``: every betting system on the same shoes, and an honest verdict.

**What it does.** Each system plays ``sessions`` sessions of at most ``coups`` coups, starting with
``bankroll`` units, at tables with the chosen rules, through the session runner shared by every
command (:mod:`strategies.runner`, which states the accounting convention: a session ends after
``coups`` coups, at ruin or when the system walks away; stakes still in prison then settle, with
no new stake; the return per unit staked is net result / new stakes over the sessions).

**Common random numbers.** Session ``i`` is one table of the native vector env
(:class:`~trente_env.vector.TrenteEtQuaranteVectorEnv`) seeded with :func:`session_seed` ``(seed, i)``,
the ``i``-th child of ``numpy.random.SeedSequence(seed)`` (what ``SeedSequence(seed).spawn(n)[i]``
gives), as in every command. Bets never change the cards, so every system sees exactly the same
coups in session ``i``: differences between systems come from staking alone. The seed of a session
does not depend on how the work is split, so the numbers are identical for any ``--workers``.

**Two ways to play, one set of numbers.** The built-in systems play together on the compiled
session loop of :mod:`strategies.sessions`: each session is dealt once and every system plays it,
through the same compiled dealing, settlement and strategy code as the environments and
:meth:`~strategies.base.Strategy.act`. A trained model or a plugin written as Python hooks plays
on the vector env through its ``act`` (:func:`strategies.runner.play_sessions`). For a built-in
system both give identical numbers to the last chip (``tests/test_sessions.py``).

**Work and checkpoints.** Sessions are cut into blocks of ``block`` sessions (a fixed part of the
configuration, recorded in the manifest). One task is one block of one group of systems (every
built-in system together; each other policy alone: :meth:`TournamentConfig.groups`); each
finished task is saved atomically to ``OUT/blocks/`` at once, one file per system. Tasks are
made one at a time as they are played: nothing proportional to the number of sessions is held
but the results themselves. Ctrl-C or a crash keeps every finished task, and ``--resume OUT``
runs only the missing ones, with the same result as an uninterrupted run.

**Files that prove what they are.** Every block file records the run it belongs to
(:class:`RunIdentity`: a hash of the configuration, and of the code that computed it: trente-lab's,
numpy's and numba's versions, the engine's source files, a plugin's module or a model's file), its
block, its system and the type and shape of every array (:class:`Checkpoints`). Before a block is
summed in, it is checked against the run: a block of another run or of other code, a truncated or
corrupted file, a short, mistyped or NaN array is reported in one line and played again, never
summed in. The configuration of a manifest is validated like a fresh one (:func:`manifest_config`).

**One run per folder.** A run holds its output folder from before it reads the manifest to its
last file: an exclusive lock on ``OUT/.lock`` (:func:`claim_folder`), which the system drops if
the process dies. A second run on the same folder is refused in one line. Running again into a
folder that holds the same configuration reuses its checkpoints (a resume); a folder holding
another configuration is refused. A run that cannot fit in the machine's memory
(:func:`memory_needed`) is refused before any work. ``--workers`` defaults to the CPU count (one
for short runs). When every system is built in, the workers are threads of the compiled loop in
this process; otherwise they are processes started with ``spawn``, one numba thread each.

**Statistics**: :mod:`experiments.stats` (ratio estimator over sessions, delta-method 95%
interval, Holm's correction over the systems).

**Default run**: the line-up of :data:`strategies.LINEUP` (19 entries, 18 that stake), 16,000
sessions of 200 coups, bankroll 1,000, unit 1, classic rules, seed 0: about 61 million
session-coups, every 95% interval (and every Bonferroni-simultaneous one) below 0. On the project's
2-core machine the play takes about 3 s (over 20 million session-coups a second) and the whole
command, files and plots included, about 10 s (``benchmarks/bench_tournament.py``).

Files written to ``--out`` (every write is atomic: a temporary file, then ``os.replace``)
----------------------------------------------------------------------------------------------

``manifest.json``
    ``schema`` ("trente-lab/tournament-manifest/1"), ``version`` (of trente-lab), ``date`` (ISO,
    UTC), ``git_commit`` (or null), ``python``, ``numpy``, ``config`` (everything needed to
    reproduce the run: ``strategies`` (labels), ``specs`` (resolved spec strings), ``rules`` (preset
    name), ``rule_values`` (every field of the rule set), ``sessions``, ``coups``, ``bankroll``,
    ``unit``, ``seed``, ``block``, ``trajectories``), ``identity`` (``config_hash``, ``code_hash``
    and ``code``: :class:`RunIdentity`), ``workers``, ``tasks_done`` (at least this many tasks are
    saved: updated at the start, at least once a second, at Ctrl-C and at the end), ``tasks_total``,
    ``files`` (the output files written and whole so far), ``complete`` (true once every task is
    done and every file written), ``seconds`` (when complete). The manifest is written atomically
    and never claims more than is done, whenever the run stops.
``results.json``
    ``schema`` ("trente-lab/tournament-results/1"), ``version``, ``rules`` (preset), ``description``
    (of the rules), ``rule_values``, ``seed``, ``sessions``, ``coups``, ``bankroll``, ``unit``,
    ``house_edge`` (exact edge of a Noir stake, the flat bettor's box), ``house_edges`` (per box:
    ``noir``, ``rouge``, ``couleur``, ``inverse``, ``insured``), ``correction`` (the
    multiple-comparison method, family size, level), ``strategies`` (an object keyed by label, in
    line-up order; fields below), ``order`` (labels as the table sorts them), ``conclusion`` (the
    paragraph), ``out`` (the folder), ``seconds``, ``session_coups`` and
    ``session_coups_per_second`` (timings of the invocation that wrote the file: the only values
    that differ between two runs of the same configuration).
    Per strategy: ``spec``, ``sessions``, ``total_staked``, ``net``, ``return_per_unit``, ``se``,
    ``ci_low``, ``ci_high`` (95%), ``ci_low_simultaneous``, ``ci_high_simultaneous`` (Bonferroni),
    ``edge`` (exact edge of the boxes it played, weighted by its stakes; positive = the bank's
    take), ``expected_return`` (= -edge), ``z_edge``, ``p_edge``, ``p_edge_holm``,
    ``consistent_with_edge``, ``p_above_zero``, ``p_above_zero_holm``, ``above_zero``,
    ``below_zero`` (null for a system that never staked), ``verdict`` (short text),
    ``mean_final_bankroll``, ``median_final_bankroll``, ``p_ahead`` (net > 0), ``p_ruin`` (final
    bankroll below the table minimum), ``p_walked``, ``mean_coups`` (coups played before the
    session ended), ``mean_staked``, ``mean_max_drawdown``, ``worst_drawdown``,
    ``longest_losing_run`` (the longest over all sessions), ``mean_longest_losing_run``,
    ``table_max_hits`` (coups where the system wanted more than the table maximum, all sessions),
    ``sessions_with_table_max_hit`` (fraction), ``bankroll_hits``.
``results.csv``
    One row per strategy, in table order: ``strategy`` and every scalar field above.
``sessions.csv``
    One row per (strategy, session): ``strategy, session, net, staked, final_bankroll, coups, ahead,
    ruined, walked, max_drawdown, longest_losing_run, table_max_hits, bankroll_hits`` (0/1 flags).
``trajectories.csv``
    The bankroll after each coup over the first ``trajectories`` sessions (fewer when sessions are
    very long: :func:`trajectory_sessions`), per strategy and coup:
    ``strategy, coup, q05, q25, median, q75, q95, mean`` (coup 0 is the start; a finished session
    keeps its final bankroll).
``final_bankroll.png``, ``trajectories.png``, ``ahead_vs_return.png``
    The plots of :mod:`experiments.plots`.
``blocks/``
    The checkpoints (``b{block}-s{strategy}.npz``, schema "trente-lab/tournament-block/1"): the
    arrays of :data:`BLOCK_ARRAYS` and ``note``, a JSON string (:meth:`Checkpoints.note`). What
    ``--resume`` reads. Safe to delete once the run is complete.
``.lock``
    The lock a run holds on the folder, with its process id (:func:`claim_folder`).
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import functools
import hashlib
import inspect
import io
import itertools
import json
import math
import os
import platform
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

from experiments.console import (
    MAX_SEED,
    MAX_SESSION_COUPS,
    MAX_SESSIONS,
    MAX_WORKERS,
    JsonOption,
    err,
    fail,
    out,
    print_json,
)
from experiments.files import atomic_write, atomic_write_bytes, atomic_write_text, json_default
from strategies.runner import SESSION_FIELDS, play_sessions, session_seed, session_seeds
from trente_env.rules import MAX_MONEY

#: Default size of a run: every confidence interval excludes 0 and it finishes in well under a minute here.
DEFAULT_SESSIONS = 16_000
DEFAULT_COUPS = 200
DEFAULT_BANKROLL = 1000.0
#: Sessions per block (one task = one block of one strategy); part of the configuration.
DEFAULT_BLOCK = 2000
#: Sessions whose bankroll after every coup is kept for the trajectory plot.
DEFAULT_TRAJECTORIES = 1000
#: At most this many bankroll values per strategy are kept for the trajectory plot (memory bound).
TRAJECTORY_VALUES = 4_000_000

MANIFEST_SCHEMA = "trente-lab/tournament-manifest/1"
RESULTS_SCHEMA = "trente-lab/tournament-results/1"


class TournamentError(ValueError):
    """Input a tournament refuses (shown as one line by the command)."""


class TournamentInterrupted(RuntimeError):
    """A run stopped before the end (Ctrl-C, or ``max_tasks``); finished tasks are saved in ``out``."""

    def __init__(self, out: Path, done: int, total: int) -> None:
        super().__init__(f"interrupted: {done} of {total} tasks saved in {out}")
        self.out, self.done, self.total = out, done, total


# -- configuration -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that fixes a tournament's numbers (plain values: it goes into the manifest).

    :param strategies: the labels shown in the table (the spec strings as written).
    :param specs: the resolved spec strings the systems are made from (``unit`` applied).
    :param rules: the rules preset name.
    :param rule_values: every field of the rule set (the preset with any overrides).
    :param sessions: sessions per system (the independent units of the statistics).
    :param coups: coups per session at most.
    :param bankroll: starting bankroll of every session, units.
    :param unit: the base stake of every system whose spec does not set ``base``.
    :param seed: the seed; session ``i`` plays the shoes of :func:`session_seed` ``(seed, i)``.
    :param block: sessions per block (one checkpointed task = one block of one system).
    :param trajectories: the first this many sessions keep their bankroll after every coup.
    """

    strategies: tuple[str, ...]
    specs: tuple[str, ...]
    rules: str = "classic"
    rule_values: Mapping[str, Any] = field(default_factory=dict)
    sessions: int = DEFAULT_SESSIONS
    coups: int = DEFAULT_COUPS
    bankroll: float = DEFAULT_BANKROLL
    unit: int = 1
    seed: int = 0
    block: int = DEFAULT_BLOCK
    trajectories: int = DEFAULT_TRAJECTORIES

    def as_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["strategies"] = list(self.strategies)
        data["specs"] = list(self.specs)
        data["rule_values"] = dict(self.rule_values)
        return data

    def ruleset(self):  # -> RuleSet
        from trente_env.rules import RuleSet

        return RuleSet(**self.rule_values)

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

    def _compiled(self) -> tuple[int, ...]:
        from strategies.registry import make_strategy
        from strategies.sessions import compiled

        rules = self.ruleset()
        return tuple(
            s for s, spec in enumerate(self.specs) if not _is_model(spec) and compiled(make_strategy(spec, rules))
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
    from strategies.registry import LINEUP

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
    from strategies.registry import StrategyError, make_strategy, parse_spec

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
    rules: str = "classic",
    seed: int = 0,
    block: int = DEFAULT_BLOCK,
    trajectories: int = DEFAULT_TRAJECTORIES,
    rule_changes: Mapping[str, Any] | None = None,
) -> TournamentConfig:
    """A validated configuration. Every mistake is a :class:`TournamentError` with one line.

    :param strategies: specs (``"all"`` or None for the default line-up :data:`strategies.LINEUP`),
        a comma-separated string, or a list of specs and ``{"name": ..., param: value}`` mappings.
    :param rule_changes: rule-set fields overriding the preset's (e.g. ``{"table_max": 500}``).
    """
    from strategies.registry import LINEUP
    from trente_env.rules import MAX_MONEY, get_rules

    for name, value, low in (("sessions", sessions, 1), ("coups", coups, 1), ("block", block, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TournamentError(f"{name} must be a whole number, got {value!r}")
        if value < low:
            raise TournamentError(f"{name} must be at least {low}, got {value}")
    if isinstance(trajectories, bool) or not isinstance(trajectories, (int, np.integer)) or trajectories < 0:
        raise TournamentError(f"trajectories must be a whole number >= 0, got {trajectories!r}")
    if isinstance(unit, bool) or not isinstance(unit, (int, np.integer)) or unit < 1:
        raise TournamentError(f"unit must be a whole number of units >= 1, got {unit!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TournamentError(f"seed must be a whole number >= 0, got {seed!r}")
    try:
        bankroll = float(bankroll)
    except (TypeError, ValueError):
        raise TournamentError(f"bankroll must be a number, got {bankroll!r}") from None
    try:
        ruleset = get_rules(rules, **dict(rule_changes or {}))
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
        rules=rules,
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
    import tomllib

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TournamentError(f"cannot read config {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise TournamentError(f"config {str(path)!r} is not a text file (a TOML file is UTF-8 text)") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TournamentError(f"malformed config {str(path)!r}: {str(exc).splitlines()[0]}") from None
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
    folder = Path(__file__).with_name("configs")
    return {p.stem[len(CONFIG_PREFIX) :]: p for p in sorted(folder.glob(f"{CONFIG_PREFIX}*.toml"))}


# -- playing sessions ----------------------------------------------------------------------------


def trajectory_sessions(config: TournamentConfig) -> int:
    """How many sessions keep their bankroll after every coup: ``config.trajectories``, fewer for
    very long sessions (at most :data:`TRAJECTORY_VALUES` numbers per strategy)."""
    return min(config.trajectories, TRAJECTORY_VALUES // (config.coups + 1))


@functools.lru_cache(maxsize=4)
def _block_seeds(seed: int, start: int, stop: int) -> tuple[int, ...]:
    return tuple(session_seeds(seed, stop - start, start))


def run_task(
    config: TournamentConfig, b: int, group: tuple[int, ...], threads: int = 1
) -> dict[int, dict[str, np.ndarray]]:
    """Play block ``b`` of the strategies ``group``: the same result wherever and whenever it runs.

    The session runner (:func:`strategies.runner.play`) plays built-in systems together on the
    compiled session loop (on ``threads`` threads) and any other policy alone on the native vector
    env; both give identical numbers for a built-in.
    """
    from strategies.registry import make_strategy
    from strategies.runner import play

    rules = config.ruleset()
    policies = [make_strategy(config.specs[s], rules) for s in group]
    start, stop = config.block_range(b)
    seeds = _block_seeds(config.seed, start, stop)
    keep = max(0, min(trajectory_sessions(config), stop) - start)
    results = play(policies, rules, config.bankroll, config.coups, seeds, keep, threads=threads)
    return dict(zip(group, results))


# -- the run's identity --------------------------------------------------------------------------

#: The source files whose code computes a block's numbers (globs under the project's root).
SOURCE_FILES = ("trente_env/*.py", "strategies/*.py", "experiments/tournament.py")


@dataclass(frozen=True)
class RunIdentity:
    """What a checkpoint must match to be summed into a run.

    :param config_hash: sha256 of the configuration (every field of :class:`TournamentConfig`).
    :param code_hash: sha256 of ``code``.
    :param code: what computes the numbers (:func:`code_version`), and a sha256 of the files behind
        each system that is not built in, by spec (a plugin's module; a model's ``.zip`` and
        ``model.json``).
    """

    config_hash: str
    code_hash: str
    code: Mapping[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"config_hash": self.config_hash, "code_hash": self.code_hash, "code": dict(self.code)}


def run_identity(config: TournamentConfig) -> RunIdentity:
    """The identity of a run of ``config`` with the code of this process."""
    code = {**code_version(), "systems": _system_files(config)}
    return RunIdentity(_digest(config.as_dict()), _digest(code), code)


@functools.lru_cache(maxsize=1)
def code_version() -> dict[str, str]:
    """trente-lab's, numpy's and numba's versions, and a sha256 of the :data:`SOURCE_FILES` (read
    once a process: a run's numbers come from the code it started with)."""
    import numba

    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for pattern in SOURCE_FILES:
        for path in sorted(root.glob(pattern)):
            digest.update(
                path.relative_to(root).as_posix().encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest()
            )
    return {
        "trente_lab": _version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "sources": digest.hexdigest(),
    }


def _system_files(config: TournamentConfig) -> dict[str, str]:
    """sha256 of the files behind each system that is not built in, by spec."""
    from strategies.registry import STRATEGIES, StrategyError, parse_spec, strategy_class

    hashes = {}
    for spec in config.specs:
        name, _ = parse_spec(spec.removeprefix("model:"))
        if name in STRATEGIES:
            continue
        if name.endswith(".zip"):
            paths = [Path(name), Path(name).with_suffix(".json")]
        else:
            try:
                paths = [Path(inspect.getsourcefile(strategy_class(name)) or "")]
            except (StrategyError, TypeError) as exc:
                raise TournamentError(f"cannot find the code of {spec!r}: {exc}") from None
        hashes[spec] = _digest({str(p): _file_hash(p) for p in paths})
    return hashes


def _file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=json_default).encode()).hexdigest()


# -- checkpoints ---------------------------------------------------------------------------------

BLOCK_SCHEMA = "trente-lab/tournament-block/1"
#: The arrays of a block file and their types: :data:`SESSION_FIELDS` (one value per session),
#: ``box_stakes`` (2, 4) and ``trajectories`` (sessions kept, coups + 1).
BLOCK_ARRAYS: dict[str, str] = {
    "net": "float64", "staked": "float64", "final_bankroll": "float64", "coups": "int64", "ahead": "bool",
    "ruined": "bool", "walked": "bool", "max_drawdown": "float64", "longest_losing_run": "int64",
    "table_max_hits": "int64", "bankroll_hits": "int64", "box_stakes": "float64", "trajectories": "float32",
}  # fmt: skip
#: Damaged blocks reported one by one before the rest are counted in one line.
REPORT_BLOCKS = 10


class DamagedBlock(Exception):
    """A block file that is not the block it should be (its message says why, in one line)."""


def task_path(out: Path, b: int, s: int) -> Path:
    return Path(out) / "blocks" / f"b{b:05d}-s{s:03d}.npz"


class Checkpoints:
    """The block files of one run, ``OUT/blocks/b{block}-s{strategy}.npz``.

    A block file holds one system's results over one block of sessions (:data:`BLOCK_ARRAYS`) and
    a note (:meth:`note`) of what they are: the run's :class:`RunIdentity`, the block, the system,
    its sessions and the type and shape of every array. A file is read back only when it proves
    that it is this block of this run, with every array whole and no NaN.
    """

    def __init__(self, out: str | Path, config: TournamentConfig, identity: RunIdentity) -> None:
        self.out, self.config, self.identity = Path(out), config, identity

    def note(self, b: int, s: int) -> dict[str, Any]:
        """What block ``b`` of system ``s`` of this run is."""
        config = self.config
        start, stop = config.block_range(b)
        keep = max(0, min(trajectory_sessions(config), stop) - start)
        shapes = {k: [stop - start] for k in SESSION_FIELDS} | {
            "box_stakes": [2, 4], "trajectories": [keep, config.coups + 1]
        }  # fmt: skip
        return {
            "schema": BLOCK_SCHEMA,
            "config_hash": self.identity.config_hash,
            "code_hash": self.identity.code_hash,
            "block": b,
            "strategy": s,
            "spec": config.specs[s],
            "first_session": start,
            "sessions": stop - start,
            "arrays": {k: [dtype, shapes[k]] for k, dtype in BLOCK_ARRAYS.items()},
        }

    def save(self, b: int, results: Mapping[int, Mapping[str, np.ndarray]]) -> None:
        """Save block ``b`` of each system in ``results`` (system index -> its arrays), atomically."""
        for s, result in results.items():
            arrays = {k: np.asarray(result[k], dtype=dtype) for k, dtype in BLOCK_ARRAYS.items()}
            buffer = io.BytesIO()
            np.savez(buffer, note=np.array(json.dumps(self.note(b, s))), **arrays)
            atomic_write_bytes(task_path(self.out, b, s), buffer.getvalue())

    def load(self, b: int, s: int) -> dict[str, np.ndarray] | None:
        """Block ``b`` of system ``s``, or None when it is not saved yet.

        :raises DamagedBlock: the file is unreadable (truncated, corrupted), belongs to another run
            or another code version, is another block, or holds a short, mistyped or NaN array.
        """
        path = task_path(self.out, b, s)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                names = set(data.files)
                text = str(data["note"][()]) if "note" in names else ""
                arrays = {k: data[k] for k in BLOCK_ARRAYS if k in names}
        except Exception as exc:  # a damaged zip fails in many ways: BadZipFile, ValueError, EOFError, OSError...
            raise DamagedBlock(f"block {path.stem} cannot be read ({type(exc).__name__}: {_first_line(exc)})") from None
        try:
            note = json.loads(text)
        except ValueError:
            note = None
        problem = self._problem(b, s, note, names, arrays)
        if problem:
            raise DamagedBlock(f"block {path.stem} {problem}")
        return arrays

    def _problem(self, b: int, s: int, note: Any, names: set[str], arrays: Mapping[str, np.ndarray]) -> str | None:
        expected = self.note(b, s)
        if not isinstance(note, dict) or note.get("schema") != BLOCK_SCHEMA:
            return "does not say which run it belongs to (written by an older trente-lab?)"
        for key, what in (("config_hash", "belongs to another run"), ("code_hash", "was computed by other code")):
            if note.get(key) != expected[key]:
                return f"{what} ({key.replace('_', ' ')} {str(note.get(key))[:12]}, this run's {expected[key][:12]})"
        for key in ("block", "strategy", "first_session", "sessions", "spec"):
            if note.get(key) != expected[key]:
                return f"says {key} {note.get(key)!r} where this block has {expected[key]!r}"
        if names != {"note", *BLOCK_ARRAYS}:
            return f"holds the arrays {', '.join(sorted(names - {'note'}))}; expected {', '.join(sorted(BLOCK_ARRAYS))}"
        for key, (dtype, shape) in expected["arrays"].items():
            array = arrays[key]
            if array.dtype != np.dtype(dtype) or list(array.shape) != shape:
                return f"has {key} as {array.dtype} {array.shape}, expected {dtype} {tuple(shape)}"
            if array.dtype.kind == "f" and not np.isfinite(array).all():
                return f"has NaN or infinite values in {key}"
        coups = arrays["coups"]
        if coups.size and not 0 <= coups.min() <= coups.max() <= self.config.coups:
            return f"has sessions of {coups.min()} to {coups.max()} coups, outside 0 to {self.config.coups}"
        return None

    def scan(self, groups: Sequence[tuple[int, ...]]) -> np.ndarray:
        """(blocks, groups) flags: the tasks whose every file is saved and proves to be of this run.
        Each damaged or foreign file is reported in one line on stderr; its task is played again."""
        done = np.zeros((self.config.n_blocks, len(groups)), dtype=np.bool_)
        try:
            present = set(os.listdir(self.out / "blocks"))
        except OSError:
            present = set()
        problems = []
        for b in range(self.config.n_blocks if present else 0):
            for i, group in enumerate(groups):
                ok = True
                for s in group:
                    try:
                        saved = task_path(self.out, b, s).name in present and self.load(b, s) is not None
                    except DamagedBlock as exc:
                        problems.append(str(exc))
                        saved = False
                    ok = ok and saved
                done[b, i] = ok
        for problem in problems[:REPORT_BLOCKS]:
            _say(f"{problem}; recomputing it")
        if len(problems) > REPORT_BLOCKS:
            _say(f"{len(problems) - REPORT_BLOCKS} more blocks are damaged or not of this run; recomputing them")
        return done


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "no detail"


def _say(line: str) -> None:
    """A one-line notice on stderr."""
    err.print(f"trente-lab: {line}", markup=False, soft_wrap=True, highlight=False)


def _task_worker(config: TournamentConfig, identity: RunIdentity, out: str, b: int, group: tuple[int, ...]) -> None:
    Checkpoints(out, config, identity).save(b, run_task(config, b, group))


def _init_worker() -> None:
    """Worker processes: Ctrl-C is the parent's business, and one thread each (the processes are
    the parallelism; numba's own threads on top would fight over the cores)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import numba

    numba.set_num_threads(1)


# -- the output folder ---------------------------------------------------------------------------

#: The lock file that claims an output folder for one run.
LOCK_FILE = ".lock"


@contextlib.contextmanager
def claim_folder(out: Path) -> Iterator[None]:
    """Hold the folder ``out`` (created if needed) for one run: an exclusive lock on ``OUT/.lock``,
    with this process's id written in it, taken before anything in the folder is read and kept
    until the run ends. The system drops the lock when the process ends, however it ends.

    :raises TournamentError: another run holds the folder, or it cannot be created.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TournamentError(f"cannot create output folder {str(out)!r}: {exc.strerror or exc}") from None
    try:
        fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise TournamentError(f"cannot write in output folder {str(out)!r}: {exc.strerror or exc}") from None
    try:
        if not _lock(fd):
            try:
                holder = os.read(fd, 32).decode(errors="replace").strip()
            except OSError:
                holder = ""
            raise TournamentError(
                f"{str(out)!r} is in use by another tournament (pid {holder or 'unknown'}): "
                "wait for it to end, or choose another --out"
            )
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # drops the lock


def _lock(fd: int) -> bool:
    """Lock the open file ``fd`` for this process, without waiting; False if another holds it."""
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:  # Windows: lock the first byte
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


# -- sizes ---------------------------------------------------------------------------------------

#: Bytes of a running trente-lab before any session (interpreter, numpy, numba, matplotlib).
BASE_MEMORY = 256 * 2**20


def memory_needed(config: TournamentConfig, workers: int = 1) -> int:
    """Bytes a run holds at its peak, roughly: :data:`BASE_MEMORY` and the larger of what its
    threads or workers hold while playing (a block of results of every system each, and a
    session's coups) and what :func:`collect` and the output files hold (every session of every
    system, the trajectories, a few arrays of one value per session)."""
    from strategies.sessions import SETTLE_LIMIT

    per_session = sum(np.dtype(BLOCK_ARRAYS[k]).itemsize for k in SESSION_FIELDS)
    n, width = len(config.specs), config.coups + 1
    block = min(config.block, config.sessions)
    kept = min(trajectory_sessions(config), config.sessions)
    playing = workers * (
        n * (block * 4 * per_session + min(kept, block) * width * 4) + (config.coups + SETTLE_LIMIT) * 16
    )
    together = n * (config.sessions * per_session + kept * width * 4) + config.sessions * 64 + kept * width * 24
    return BASE_MEMORY + max(playing, together)


def machine_memory() -> int | None:
    """The memory this process may use, bytes: the machine's physical memory, or its control
    group's limit when lower (a container); None when the system does not say."""
    try:
        total: int | None = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        total = None
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            limit = int(Path(path).read_text().strip())
        except (OSError, ValueError):  # absent, or "max" (no limit)
            continue
        total = limit if total is None else min(total, limit)
    return total


def check_size(config: TournamentConfig, workers: int = 1) -> None:
    """Refuse, before any work, a run that cannot fit in this machine's memory (one line)."""
    need, have = memory_needed(config, workers), machine_memory()
    if have is not None and need > have:
        fewer = "use fewer workers" if memory_needed(config, 1) <= have else "play fewer sessions, coups or strategies"
        raise TournamentError(
            f"{config.sessions:,} sessions x {config.coups:,} coups x {len(config.specs)} strategies need about "
            f"{_size(need)} of memory (on {workers} worker{'s' if workers > 1 else ''}); this machine has "
            f"{_size(have)}: {fewer}"
        )


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    raise AssertionError


# -- the manifest --------------------------------------------------------------------------------


def write_manifest(
    out: Path,
    config: TournamentConfig,
    identity: RunIdentity,
    workers: int,
    done: int,
    total: int,
    complete: bool = False,
    files: Sequence[str] = (),
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Write ``OUT/manifest.json`` (atomically): the configuration, the run's identity, how many
    tasks are done, whether the run is complete and the output files written so far."""
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "command": "trente-lab tournament",
        "version": _version(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "git_commit": _git_commit(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "config": config.as_dict(),
        "identity": identity.as_dict(),
        "workers": workers,
        "complete": complete,
        "tasks_done": done,
        "tasks_total": total,
        "files": list(files),
        **(extra or {}),
    }
    atomic_write_text(Path(out) / "manifest.json", json.dumps(manifest, indent=2, default=json_default) + "\n")


def read_manifest(folder: str | Path) -> dict[str, Any]:
    path = Path(folder) / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        raise TournamentError(f"nothing to resume in {str(folder)!r}: no readable manifest.json") from None
    except ValueError as exc:
        raise TournamentError(f"malformed manifest {str(path)!r}: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA or "config" not in manifest:
        raise TournamentError(f"{str(path)!r} is not a tournament manifest")
    return manifest


def manifest_config(folder: str | Path) -> TournamentConfig:
    """The configuration in ``folder/manifest.json``, validated like a fresh one: rebuilt by
    :func:`make_config` from its values, which must give it back exactly (so a hand-edited seed is
    a new run, whose blocks then do not match, but ``coups = 0``, a spec without its label or an
    unknown key is refused). Rebuilding loads the plugins and models it names: that runs their code.
    """
    where = f"{Path(folder) / 'manifest.json'}"
    data = read_manifest(folder)["config"]
    names = [f.name for f in dataclasses.fields(TournamentConfig)]
    if not isinstance(data, dict):
        raise TournamentError(f"{where}: config is not a table")
    unknown, missing = sorted(set(data) - set(names)), [k for k in names if k not in data]
    if unknown or missing:
        what = [f"unknown key(s) {', '.join(unknown)}"] * bool(unknown) + [f"no {', '.join(missing)}"] * bool(missing)
        raise TournamentError(f"{where}: config has {' and '.join(what)}")
    strategies, rule_values = data["strategies"], data["rule_values"]
    if not isinstance(strategies, list) or not all(isinstance(x, str) for x in strategies):
        raise TournamentError(f"{where}: strategies must be a list of spec strings, got {strategies!r}")
    if not isinstance(rule_values, dict):
        raise TournamentError(f"{where}: rule_values must be a table, got {rule_values!r}")
    if not strategies:
        raise TournamentError(f"{where}: no strategies")
    try:
        config = make_config(
            strategies, data["sessions"], data["coups"], data["bankroll"], data["unit"], data["rules"], data["seed"],
            data["block"], data["trajectories"], rule_values,
        )  # fmt: skip
    except TournamentError as exc:
        raise TournamentError(f"{where}: {exc}") from None
    rebuilt = json.loads(json.dumps(config.as_dict(), default=json_default))
    changed = [k for k in names if rebuilt[k] != data[k]]
    if changed:
        k = changed[0]
        raise TournamentError(
            f"{where}: config does not hold together: {k} is {data[k]!r}, its values give {rebuilt[k]!r}"
        )
    return config


def default_out_dir() -> Path:
    """A new folder ``runs/tournament-<date>-<time>[-k]``, created here: two runs started in the same
    second each get their own."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for k in itertools.count(1):
        path = Path("runs") / (f"tournament-{stamp}" + (f"-{k}" if k > 1 else ""))
        try:
            path.mkdir(parents=True)
        except FileExistsError:
            continue
        except OSError as exc:
            raise TournamentError(f"cannot create output folder {str(path)!r}: {exc.strerror or exc}") from None
        return path
    raise AssertionError("unreachable")


# -- the run -------------------------------------------------------------------------------------


def run_tasks(
    config: TournamentConfig,
    blocks: Checkpoints,
    done: np.ndarray,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    max_tasks: int | None = None,
    saved: Callable[[int], None] | None = None,
) -> int:
    """Play every task not yet ``done`` and save it in ``blocks``; returns how many tasks are done.

    Tasks are made one at a time as workers take them: only the ones being played are held.

    :param done: (blocks, groups) flags from :meth:`Checkpoints.scan`, set as tasks are saved.
    :param progress: called with the session-coups of each task done (the saved ones first).
    :param max_tasks: stop (raising :class:`TournamentInterrupted`) after this many new tasks: an
        interruption, on purpose (tests).
    :param saved: called with the number of tasks done each time one is saved.
    """
    groups = config.groups()
    total = done.size
    count = int(done.sum())

    def size(b: int, i: int) -> int:
        lo, hi = config.block_range(b)
        return (hi - lo) * config.coups * len(groups[i])

    def finish(b: int, i: int) -> None:
        nonlocal count
        done[b, i] = True
        count += 1
        if progress:
            progress(size(b, i))
        if saved:
            saved(count)

    if progress:
        progress(sum(size(int(b), int(i)) for b, i in zip(*np.nonzero(done))))
    pending = ((b, i) for b in range(config.n_blocks) for i in range(len(groups)) if not done[b, i])
    limit = total - count if max_tasks is None else min(max_tasks, total - count)
    todo = itertools.islice(pending, limit)
    # built-in systems only: one process, the compiled loop on `workers` threads (no start-up cost)
    threads = workers if config.all_compiled() else 1
    try:
        if workers <= 1 or limit <= 1 or threads > 1:
            for b, i in todo:
                blocks.save(b, run_task(config, b, groups[i], threads))
                finish(b, i)
        else:
            _run_pool(config, blocks, todo, groups, workers, finish)
    except KeyboardInterrupt:
        raise TournamentInterrupted(blocks.out, count, total) from None
    if count < total:
        raise TournamentInterrupted(blocks.out, count, total)
    return count


def _run_pool(
    config: TournamentConfig,
    blocks: Checkpoints,
    todo: Iterator[tuple[int, int]],
    groups: Sequence[tuple[int, ...]],
    workers: int,
    finish: Callable[[int, int], None],
) -> None:
    """Play the tasks ``todo`` ((block, group index)) on ``workers`` processes, at most two each
    queued; ``finish`` is called for each task saved, including the ones that end after Ctrl-C."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")  # numba's threads do not survive a fork
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker)
    running: dict[Any, tuple[int, int]] = {}
    try:
        while True:
            for b, i in itertools.islice(todo, 2 * workers - len(running)):
                future = pool.submit(_task_worker, config, blocks.identity, str(blocks.out), b, groups[i])
                running[future] = (b, i)
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                future.result()
                finish(*running.pop(future))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # running tasks finish and are saved
        for future, task in running.items():
            if future.done() and not future.cancelled() and future.exception() is None:
                finish(*task)


def collect(
    config: TournamentConfig, out: Path, identity: RunIdentity | None = None
) -> dict[str, dict[str, np.ndarray]]:
    """The saved tasks put together: per strategy label, every session's results in session order.

    :param identity: the run's (default: :func:`run_identity` of ``config`` with this code); a
        missing block, or one that does not prove to belong to it, is a :class:`TournamentError`.
    """
    blocks = Checkpoints(out, config, identity or run_identity(config))
    kept = min(trajectory_sessions(config), config.sessions)
    results: dict[str, dict[str, np.ndarray]] = {}
    for s, label in enumerate(config.strategies):
        merged = {k: np.empty(config.sessions, dtype=BLOCK_ARRAYS[k]) for k in SESSION_FIELDS}
        trajectories = np.empty((kept, config.coups + 1), dtype=BLOCK_ARRAYS["trajectories"])
        box_stakes = []
        for b in range(config.n_blocks):
            try:
                part = blocks.load(b, s)
            except DamagedBlock as exc:
                raise TournamentError(f"{exc}: run with --resume {out} to recompute it") from None
            if part is None:
                raise TournamentError(f"{task_path(out, b, s)} is missing: run with --resume {out}")
            start, stop = config.block_range(b)
            for k in SESSION_FIELDS:
                merged[k][start:stop] = part[k]
            trajectories[start : start + part["trajectories"].shape[0]] = part["trajectories"]
            box_stakes.append(part["box_stakes"])
        merged["box_stakes"] = np.sum(box_stakes, axis=0)
        merged["trajectories"] = trajectories
        results[label] = merged
    return results


def _to_prison(spec: str, rules: Any) -> bool | None:
    """Under the ``choice`` rule, whether the system ``spec`` sends its stakes to prison (None: it
    does not say, or the rules offer no choice)."""
    from strategies.registry import make_strategy
    from trente_env.rules import Refait

    if rules.refait is not Refait.CHOICE:
        return None
    return getattr(make_strategy(spec, rules), "to_prison", None)


def summarize(config: TournamentConfig, sessions: Mapping[str, Mapping[str, np.ndarray]]) -> dict[str, Any]:
    """The results document (see the module docstring) from every session's results."""
    from experiments.stats import ratio_estimate, verdicts
    from trente_env.odds import house_edges, stake_weighted_edge

    rules = config.ruleset()
    edges = house_edges(rules)
    labels = list(config.strategies)
    estimates = [ratio_estimate(sessions[k]["net"], sessions[k]["staked"]) for k in labels]
    strategy_edges = [
        stake_weighted_edge(rules, sessions[k]["box_stakes"], _to_prison(spec, rules))
        for k, spec in zip(labels, config.specs)
    ]
    tests, correction = verdicts(estimates, strategy_edges)
    table: dict[str, dict[str, Any]] = {}
    for label, spec, est, edge, test in zip(labels, config.specs, estimates, strategy_edges, tests):
        s = sessions[label]
        n = s["net"].size
        row: dict[str, Any] = {
            "spec": spec,
            "sessions": n,
            "total_staked": float(s["staked"].sum()),
            "net": float(s["net"].sum()),
            "return_per_unit": est.ratio,
            "se": est.se,
            "ci_low": est.ci_low,
            "ci_high": est.ci_high,
            "edge": edge,
            "expected_return": -edge,
        }
        row.update(test.as_dict())
        row["verdict"] = _verdict_text(row)
        hit_any = s["table_max_hits"] > 0
        row.update(
            {
                "mean_final_bankroll": float(s["final_bankroll"].mean()),
                "median_final_bankroll": float(np.median(s["final_bankroll"])),
                "p_ahead": float(s["ahead"].mean()),
                "p_ruin": float(s["ruined"].mean()),
                "p_walked": float(s["walked"].mean()),
                "mean_coups": float(s["coups"].mean()),
                "mean_staked": float(s["staked"].mean()),
                "mean_max_drawdown": float(s["max_drawdown"].mean()),
                "worst_drawdown": float(s["max_drawdown"].max()),
                "longest_losing_run": int(s["longest_losing_run"].max()),
                "mean_longest_losing_run": float(s["longest_losing_run"].mean()),
                "table_max_hits": int(s["table_max_hits"].sum()),
                "sessions_with_table_max_hit": float(hit_any.mean()),
                "bankroll_hits": int(s["bankroll_hits"].sum()),
            }
        )
        table[label] = {k: _finite(v) for k, v in row.items()}
    document = {
        "schema": RESULTS_SCHEMA,
        "version": _version(),
        "rules": config.rules,
        "description": rules.describe(),
        "rule_values": dict(config.rule_values),
        "seed": config.seed,
        "sessions": config.sessions,
        "coups": config.coups,
        "bankroll": config.bankroll,
        "unit": config.unit,
        "house_edge": edges.noir,
        "house_edges": edges.as_dict(),
        "correction": correction,
        "strategies": table,
        "order": sort_order(table),
    }
    document["conclusion"] = conclusion(document)
    return document


def sort_order(table: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Systems that staked by P(session ahead), most often ahead first; non-bettors last."""
    bettors = [k for k, v in table.items() if v["total_staked"] > 0]
    others = [k for k in table if k not in bettors]
    return sorted(bettors, key=lambda k: (-table[k]["p_ahead"], table[k]["p_ruin"])) + others


def _verdict_text(row: Mapping[str, Any]) -> str:
    """``on edge`` / ``OFF edge`` (Holm), then ``< 0`` (95% interval below 0), ``0 in CI`` or ``ABOVE 0``."""
    if row["consistent_with_edge"] is None:
        return "no stakes"
    parts = ["on edge" if row["consistent_with_edge"] else "OFF edge"]
    if row["above_zero"]:
        parts.append("ABOVE 0")
    elif row["below_zero"]:
        parts.append("< 0")
    else:
        parts.append("0 in CI")
    return ", ".join(parts)


def conclusion(document: Mapping[str, Any]) -> str:
    """The plain-language paragraph under the table."""
    table = document["strategies"]
    bettors = [k for k in document["order"] if table[k]["total_staked"] > 0]
    if not bettors:
        return "No system placed a stake, so there is nothing to judge: not betting is the only way not to lose."
    edge = document["house_edge"]
    lows = [table[k]["return_per_unit"] for k in bettors]
    on_edge = [k for k in bettors if table[k]["consistent_with_edge"]]
    off_edge = [k for k in bettors if not table[k]["consistent_with_edge"]]
    above = [k for k in bettors if table[k]["above_zero"]]
    below = [k for k in bettors if table[k]["below_zero"]]
    most_ahead = bettors[0]
    riskiest = max(bettors, key=lambda k: (table[k]["p_ruin"], table[k]["mean_max_drawdown"]))
    steadiest = min(bettors, key=lambda k: table[k]["mean_max_drawdown"] / max(table[k]["mean_staked"], 1e-12))
    m = len(bettors)
    text = (
        f"Every system played the same {document['sessions']:,} sessions of up to {document['coups']:,} coups. "
        + (
            f"Each lost between {-max(lows):.2%} and {-min(lows):.2%} of what it staked"
            if max(lows) <= 0
            else f"Their returns per unit staked ran from {min(lows):+.2%} to {max(lows):+.2%}"
        )
        + f", against an exact house edge of {edge:.2%} from the refait; "
    )
    if not off_edge:
        text += f"none of the {m} results can be told apart from the edge (Holm-corrected tests, family-wise 5%)"
    else:
        text += (
            f"{len(on_edge)} of {m} cannot be told apart from the edge, and {', '.join(off_edge)} "
            "differs from it (Holm-corrected, family-wise 5%: expect this about one run in twenty)"
        )
    if above:
        text += f", yet {', '.join(above)} came out significantly above zero, which would be a bug. "
    elif len(below) == m:
        text += ", and every interval lies below zero. "
    else:
        text += f", and none is above zero ({len(below)} of {m} intervals lie wholly below it). "
    ahead = table[most_ahead]
    result = (
        f"still lost {-ahead['return_per_unit']:.2%} of its stakes"
        if ahead["return_per_unit"] <= 0
        else f"returned only {ahead['return_per_unit']:+.2%} per unit staked, within chance of the edge"
    )
    text += (
        f"The systems differ only in risk: {most_ahead} ended {ahead['p_ahead']:.0%} of its sessions ahead and {result}"
    )
    risky = table[riskiest]
    if risky["p_ruin"] > 0:
        text += f"; {riskiest} was ruined in {risky['p_ruin']:.1%} of sessions"
    text += (
        f"; {steadiest} had the smallest swings for what it staked. A betting system only trades many "
        "small wins for rare large losses (or the reverse); it cannot change the price of a unit staked."
    )
    return text


def run_tournament(
    config: TournamentConfig,
    out: str | Path | None = None,
    workers: int = 1,
    progress: bool = False,
    plots: bool = True,
    max_tasks: int | None = None,
    resume: bool = False,
) -> dict[str, Any]:
    """Play a tournament, write its files to ``out`` and return the results document.

    :param config: from :func:`make_config` (or a manifest, to resume).
    :param out: the output folder (None: a new timestamped folder under ``./runs``).
    :param workers: threads of the compiled loop when every system is built in, else worker
        processes (1: play in this process, one thread). The numbers do not depend on it.
    :param progress: show a progress bar with the time left on stderr.
    :param plots: draw the PNG plots.
    :param max_tasks: stop after this many new tasks (raises :class:`TournamentInterrupted`).
    :param resume: ``out`` holds an interrupted run of this ``config``: keep its saved tasks.
        Without it, ``out`` must not already hold another run's checkpoints.
    :raises TournamentError: bad input, a run too large for this machine (:func:`check_size`, before
        any work), or an output folder another run holds (:func:`claim_folder`).
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise TournamentError(f"workers must be a whole number >= 1, got {workers!r}")
    check_size(config, workers)
    out = Path(out) if out is not None else default_out_dir()
    with claim_folder(out):
        if not resume and (out / "manifest.json").exists():
            old = read_manifest(out)
            if old["config"] != json.loads(json.dumps(config.as_dict())):
                raise TournamentError(f"{str(out)!r} holds another tournament: choose a new --out, or --resume it")
        return _play(config, out, workers, progress, plots, max_tasks)


#: Seconds between two updates of the manifest while tasks are being played.
MANIFEST_EVERY = 1.0


def _play(
    config: TournamentConfig, out: Path, workers: int, progress: bool, plots: bool, max_tasks: int | None
) -> dict[str, Any]:
    """The run, in a folder this process holds: the tasks not yet saved, then every output file.

    The manifest always tells the truth: at the start how many tasks are saved (and not complete),
    then at least once a second how many are done, then each output file once it is whole, and
    ``complete`` only when every file is written. Ctrl-C at any point leaves it so.
    """
    identity = run_identity(config)
    blocks = Checkpoints(out, config, identity)
    try:
        (out / "blocks").mkdir(exist_ok=True)
    except OSError as exc:
        raise TournamentError(f"cannot create output folder {str(out / 'blocks')!r}: {exc.strerror or exc}") from None
    done = blocks.scan(config.groups())
    total = done.size

    def manifest(count: int, complete: bool = False, files: Sequence[str] = (), **extra: Any) -> None:
        write_manifest(out, config, identity, workers, count, total, complete, files, extra)

    manifest(int(done.sum()))
    last = time.monotonic()

    def saved(count: int) -> None:
        nonlocal last
        if time.monotonic() - last >= MANIFEST_EVERY:
            manifest(count)
            last = time.monotonic()

    work = config.sessions * config.coups * len(config.specs)
    start = time.perf_counter()
    with _progress_bar(progress, work) as advance:
        try:
            run_tasks(config, blocks, done, workers, advance, max_tasks, saved)
        except TournamentInterrupted as exc:
            manifest(exc.done)
            raise
    seconds = time.perf_counter() - start
    manifest(total)
    files: list[str] = []
    try:
        sessions = collect(config, out, identity)
        document = summarize(config, sessions)
        document["seconds"] = seconds
        document["session_coups"] = work
        document["session_coups_per_second"] = work / seconds if seconds > 0 else None
        document["out"] = str(out)
        write_outputs(out, document, sessions, plots, files)
    except KeyboardInterrupt:
        manifest(total, files=files)
        raise TournamentInterrupted(out, total, total) from None
    manifest(total, complete=True, files=["manifest.json", *files], seconds=seconds)
    return document


class _progress_bar:
    """A rich progress bar over session-coups on stderr (or nothing); yields ``advance(k)``."""

    def __init__(self, show: bool, total: int) -> None:
        self.show, self.total = show, total
        self.bar: Any = None

    def __enter__(self) -> Callable[[int], None]:
        if not self.show:
            return lambda k: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(
            TextColumn("tournament"),
            BarColumn(),
            TextColumn("{task.percentage:>3.0f}%"),
            MofNCompleteColumn(),
            TextColumn("session-coups, ETA"),
            TimeRemainingColumn(),
            console=err,
            transient=True,
            disable=not err.is_terminal,  # no bar drawn into a file or a pipe
        )
        self.bar.__enter__()
        task = self.bar.add_task("tournament", total=self.total)
        return lambda k: self.bar.advance(task, k)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


def resume_tournament(
    folder: str | Path, workers: int = 1, progress: bool = False, plots: bool = True, max_tasks: int | None = None
) -> dict[str, Any]:
    """Finish the interrupted tournament in ``folder``: its manifest fixes the configuration
    (:func:`manifest_config`; the plugins and models it names are loaded, which runs their code),
    its blocks that prove to be of this run are kept, every other one is played again."""
    folder = Path(folder)
    if not (folder / "manifest.json").is_file():
        raise TournamentError(f"nothing to resume in {str(folder)!r}: no readable manifest.json")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise TournamentError(f"workers must be a whole number >= 1, got {workers!r}")
    with claim_folder(folder):
        config = manifest_config(folder)
        check_size(config, workers)
        return _play(config, folder, workers, progress, plots, max_tasks)


# -- output files --------------------------------------------------------------------------------

SUMMARY_COLUMNS = (
    "spec", "sessions", "return_per_unit", "ci_low", "ci_high", "se", "edge", "expected_return", "verdict",
    "consistent_with_edge", "above_zero", "below_zero", "p_edge", "p_edge_holm", "p_above_zero", "p_above_zero_holm",
    "ci_low_simultaneous", "ci_high_simultaneous", "total_staked", "net", "mean_final_bankroll",
    "median_final_bankroll", "p_ahead", "p_ruin", "p_walked", "mean_coups", "mean_staked", "mean_max_drawdown",
    "worst_drawdown", "longest_losing_run", "mean_longest_losing_run", "table_max_hits",
    "sessions_with_table_max_hit", "bankroll_hits",
)  # fmt: skip


def write_outputs(
    out: Path,
    document: Mapping[str, Any],
    sessions: Mapping[str, Mapping[str, np.ndarray]],
    plots: bool = True,
    written: list[str] | None = None,
) -> list[str]:
    """Write results.json/csv, sessions.csv, trajectories.csv and the plots, each atomically;
    returns their names, and adds each to ``written`` as soon as it is whole."""
    written = [] if written is None else written

    def write(name: str, fill: Callable[[io.BufferedWriter], None]) -> None:
        atomic_write(out / name, fill)
        written.append(name)

    write("results.json", _text(json.dumps(document, indent=2, default=json_default) + "\n"))
    write("results.csv", _text(_csv([["strategy", *SUMMARY_COLUMNS]] + _summary_rows(document))))
    write("sessions.csv", lambda f: _write_sessions_csv(f, sessions))
    bands = trajectory_bands(sessions)
    write("trajectories.csv", _text(_trajectories_csv(bands)))
    if plots:
        from experiments.plots import draw_all

        written.extend(draw_all(out, document, sessions, bands))
    return written


def _text(text: str) -> Callable[[io.BufferedWriter], None]:
    return lambda f: f.write(text.encode("utf-8"))


def trajectory_bands(sessions: Mapping[str, Mapping[str, np.ndarray]]) -> dict[str, dict[str, np.ndarray]]:
    """Per strategy, the quantiles (5, 25, 50, 75, 95%) and mean of the bankroll after each coup."""
    bands = {}
    for label, s in sessions.items():
        paths = s["trajectories"].astype(np.float64)
        if paths.shape[0] == 0:
            continue
        q = np.quantile(paths, [0.05, 0.25, 0.5, 0.75, 0.95], axis=0)
        bands[label] = {
            "q05": q[0], "q25": q[1], "median": q[2], "q75": q[3], "q95": q[4], "mean": paths.mean(axis=0)
        }  # fmt: skip
    return bands


def _summary_rows(document: Mapping[str, Any]) -> list[list[Any]]:
    table = document["strategies"]
    return [[label] + [table[label][c] for c in SUMMARY_COLUMNS] for label in document["order"]]


def _csv(rows: Iterable[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        writer.writerow(["" if v is None else (int(v) if isinstance(v, bool) else v) for v in row])
    return buffer.getvalue()


#: Sessions per chunk of sessions.csv: the rows being written are held as Python values.
CSV_CHUNK = 65_536


def _write_sessions_csv(f: io.BufferedWriter, sessions: Mapping[str, Mapping[str, np.ndarray]]) -> None:
    """Stream the per-session table into ``f``, :data:`CSV_CHUNK` sessions of one strategy at a time."""
    text = io.TextIOWrapper(f, encoding="utf-8", newline="", write_through=True)
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["strategy", "session", *SESSION_FIELDS])
    for label, s in sessions.items():
        n = s["net"].size
        for lo in range(0, n, CSV_CHUNK):
            hi = min(n, lo + CSV_CHUNK)
            columns = [[label] * (hi - lo), range(lo, hi)]
            for name in SESSION_FIELDS:
                values = s[name][lo:hi]
                if values.dtype == np.bool_:
                    values = values.astype(np.int8)
                elif values.dtype.kind == "f":
                    values = np.round(values, 6)
                columns.append(values.tolist())
            writer.writerows(zip(*columns))
    text.flush()
    text.detach()


def _trajectories_csv(bands: Mapping[str, Mapping[str, np.ndarray]]) -> str:
    rows: list[list[Any]] = [["strategy", "coup", "q05", "q25", "median", "q75", "q95", "mean"]]
    for label, b in bands.items():
        for c in range(b["median"].size):
            rows.append([label, c] + [round(float(b[k][c]), 4) for k in ("q05", "q25", "median", "q75", "q95", "mean")])
    return _csv(rows)


def _enum_value(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def _finite(value: Any) -> Any:
    """NaN and infinities become None (JSON has no NaN)."""
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("trente-lab")
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.lru_cache(maxsize=1)
def _git_commit() -> str | None:
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = result.stdout.strip()
    return commit if result.returncode == 0 and commit else None


# -- the terminal --------------------------------------------------------------------------------


def print_table(document: Mapping[str, Any], width: int = 150) -> None:
    """The verdict table, sorted by P(session ahead), and the conclusion under it.

    :param width: the table's width when stdout is not a terminal (a terminal uses its own).
    """
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from experiments.stats import z_quantile

    table = document["strategies"]
    console = out if out.is_terminal else Console(width=width, highlight=False)
    view = Table(
        title=(
            f"{document['sessions']:,} sessions x up to {document['coups']:,} coups, bankroll "
            f"{document['bankroll']:g}, unit {document['unit']}, {document['rules']} rules, seed {document['seed']}. "
            f"Exact house edge of a Noir stake: {document['house_edge']:.3%}"
        ),
        title_justify="left",
        caption=document["correction"]["note"],
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    columns = (
        ("strategy", "left"),
        ("return per unit\nstaked ±95% CI", "right"),
        ("-edge", "right"),
        ("verdict", "left"),
        ("P\n(ahead)", "right"),
        ("P\n(ruin)", "right"),
        ("final\nmean", "right"),
        ("final\nmedian", "right"),
        ("mean\ncoups", "right"),
        ("staked/\nsession", "right"),
        ("max DD\n(mean)", "right"),
        ("losing\nrun", "right"),
        ("table-\nmax hits", "right"),
    )
    for name, justify in columns:
        view.add_column(name, justify=justify, no_wrap=True)
    for label in document["order"]:
        r = table[label]
        if r["return_per_unit"] is None:
            ret = "no stakes"
        elif r["se"] is None:
            ret = f"{r['return_per_unit']:+.2%}"
        else:
            ret = f"{r['return_per_unit']:+.2%} ±{z_quantile(0.95) * r['se']:.2%}"
        alarm = r["consistent_with_edge"] is False or r["above_zero"]
        view.add_row(
            label,
            ret,
            f"{-r['edge']:+.2%}" if r["total_staked"] else "",
            r["verdict"],
            f"{r['p_ahead']:.1%}",
            f"{r['p_ruin']:.1%}",
            f"{r['mean_final_bankroll']:,.1f}",
            f"{r['median_final_bankroll']:,.0f}",
            f"{r['mean_coups']:.0f}",
            f"{r['mean_staked']:,.0f}",
            f"{r['mean_max_drawdown']:,.0f}",
            f"{r['longest_losing_run']}",
            f"{r['table_max_hits']:,}",
            style="bold red" if alarm else None,
        )
    console.print(view)
    console.print(document["conclusion"])


# -- the command ---------------------------------------------------------------------------------


def command(
    strategies: Annotated[
        str | None,
        typer.Option(
            "--strategies",
            help="Comma-separated strategy specs, or `all` (default: the built-in line-up). "
            "E.g. flat,martingale:base=2,box=rouge. A plugin (module:Class) or a model file (.zip) runs its code "
            "when loaded: name only files you trust.",
        ),
    ] = None,
    sessions: Annotated[
        int | None,
        typer.Option(
            "--sessions", "-n", min=1, max=MAX_SESSIONS, help=f"Sessions per strategy (default {DEFAULT_SESSIONS:,})."
        ),
    ] = None,
    coups: Annotated[
        int | None,
        typer.Option(
            "--coups", "-m", min=1, max=MAX_SESSION_COUPS, help=f"Coups per session at most (default {DEFAULT_COUPS})."
        ),
    ] = None,
    bankroll: Annotated[
        float | None,
        typer.Option(
            "--bankroll",
            "-b",
            min=0,
            max=MAX_MONEY,
            help=f"Starting bankroll, units (default {DEFAULT_BANKROLL:g}).",
        ),
    ] = None,
    unit: Annotated[
        int | None,
        typer.Option(
            "--unit",
            "-u",
            min=1,
            max=MAX_MONEY,
            help="Base stake of every system that does not set base (default 1).",
        ),
    ] = None,
    rules: Annotated[
        str | None, typer.Option("--rules", "-r", help="Rules preset (see `trente-lab presets`) (default classic).")
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", "-s", min=0, max=MAX_SEED, help="Seed of the shoes (default 0).")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-w",
            min=1,
            max=MAX_WORKERS,
            help="Threads (built-in systems) or worker processes (models, plugins); the numbers do not depend on it "
            "(default the CPU count).",
        ),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output folder (default a new folder runs/tournament-<date>-<time>)."),
    ] = None,
    config_file: Annotated[
        str | None,
        typer.Option(
            "--config", "-c", help="TOML experiment file, or the name of a shipped one (see experiments/configs)."
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            help="Finish the interrupted tournament in this folder. The plugins and model files its manifest names "
            "are loaded, which runs their code: resume only folders you trust.",
        ),
    ] = None,
    no_plots: Annotated[bool, typer.Option("--no-plots", help="Skip the PNG plots.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Every betting system on the same shoes: return per unit staked against the exact house edge.

    Loading a plugin or a trained model runs its code (--strategies, --resume): use only files you trust.
    """
    given = {
        "strategies": strategies, "sessions": sessions, "coups": coups, "bankroll": bankroll, "unit": unit,
        "rules": rules, "seed": seed,
    }  # fmt: skip
    try:
        if resume is not None:
            clash = [k for k, v in {**given, "out": out_dir, "config": config_file}.items() if v is not None]
            if clash:
                fail(f"--resume takes its options from {resume}/manifest.json; drop --{', --'.join(clash)}")
            work = _work(read_manifest(resume)["config"])  # for the default worker count; validated on resume
            document = resume_tournament(resume, _workers(workers, {}, work), progress=True, plots=not no_plots)
        else:
            options: dict[str, Any] = {}
            if config_file is not None:
                options = _checked_file_options(read_config_file(_config_path(config_file)), config_file)
            file_workers = options.pop("workers", None)
            options.update({k: v for k, v in given.items() if v is not None})
            config = make_config(**options)
            chosen = _workers(workers, {"workers": file_workers}, _work(config.as_dict()))
            document = run_tournament(config, out_dir, chosen, progress=True, plots=not no_plots)
    except TournamentError as exc:
        fail(str(exc))
    except TournamentInterrupted as exc:
        err.print(
            f"trente-lab: interrupted: {exc.done} of {exc.total} tasks are saved in {exc.out}; "
            f"finish with `trente-lab tournament --resume {exc.out}`",
            soft_wrap=True,
            markup=False,
        )
        raise typer.Exit(130) from None
    if as_json:
        print_json(document)
        return
    print_table(document)
    rate = document.get("session_coups_per_second")
    err.print(
        f"Files in {document['out']}. {document['session_coups']:,} session-coups in {document['seconds']:.1f} s"
        + (f" ({rate:,.0f} per second)." if rate else "."),
        style="dim",
        soft_wrap=True,
        markup=False,
    )


#: Below this many session-coups a run is too short to pay for starting worker processes.
POOL_FROM = 5_000_000


def _work(config: Any) -> int:
    """Session-coups of a configuration (0 if it cannot say: it is validated later)."""
    try:
        return int(config["sessions"]) * int(config["coups"]) * len(config["specs"])
    except (KeyError, TypeError, ValueError):
        return 0


def _workers(cli: int | None, options: Mapping[str, Any], work: int) -> int:
    """``--workers`` (bounded by the parser), else the config file's (checked by
    :func:`_checked_file_options`), else the CPU count (1 for a short run)."""
    value = cli if cli is not None else options.get("workers")
    if value is None:
        value = (os.cpu_count() or 1) if work >= POOL_FROM else 1
    return value


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


def _checked_file_options(options: dict[str, Any], name: str) -> dict[str, Any]:
    """The options read from a config file, each of the type and in the range its option takes."""
    for key, (whole, low, high) in _FILE_NUMBERS.items():
        value = options.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
            fail(f"config {name!r}: {key} must be a {'whole number' if whole else 'number'}, got {value!r}")
        if not value >= low:  # NaN too
            fail(f"config {name!r}: {key} must be at least {low}, got {value}")
        if not value <= high:
            fail(f"config {name!r}: {key} must be at most {high:,}, got {value}")
    if not isinstance(options.get("rules", ""), str):
        fail(f"config {name!r}: rules must be the name of a preset, got {options['rules']!r}")
    if not isinstance(options.get("strategies", ""), (str, list)):
        fail(f"config {name!r}: strategies must be a list of specs or one string, got {options['strategies']!r}")
    return options


def _config_path(name: str) -> Path:
    path = Path(name)
    if path.exists() or path.suffix:
        return path
    shipped = shipped_configs()
    if name in shipped:
        return shipped[name]
    raise TournamentError(f"no config file {name!r}; the shipped configs are: {', '.join(shipped) or 'none'}")


__all__ = [
    "TournamentConfig",
    "TournamentError",
    "TournamentInterrupted",
    "collect",
    "command",
    "make_config",
    "play_sessions",
    "read_config_file",
    "resume_tournament",
    "run_tournament",
    "session_seed",
    "summarize",
]

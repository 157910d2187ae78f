"""``trente-lab tournament``: every betting system on the same shoes, and an honest verdict.

**What it does.** Each system plays ``sessions`` sessions of at most ``coups`` coups, starting with
``bankroll`` units, at tables with the chosen rules. A session ends after ``coups`` coups, at ruin
(bankroll below the table minimum with nothing in prison) or when the system walks away
(stop-win/stop-loss); stakes still in prison at the end are then left to settle, with no new stake.

**Common random numbers.** Session ``i`` is one table of the native vector env
(:class:`~trente_env.vector.TrenteEtQuaranteVectorEnv`) seeded with :func:`session_seed` ``(seed, i)``,
the ``i``-th child of ``numpy.random.SeedSequence(seed)`` (what ``SeedSequence(seed).spawn(n)[i]``
gives). Bets never change the cards, so every system sees exactly the same coups in session ``i``:
differences between systems come from staking alone. The seed of a session does not depend on
how the work is split, so the numbers are identical for any ``--workers``.

**Two ways to play, one set of numbers.** The built-in systems play together on the compiled
session loop of :mod:`experiments.sessions`: each session is dealt once and every system plays it,
through the same compiled dealing, settlement and strategy code as the environments and
:meth:`~strategies.base.Strategy.act`. A trained model or a plugin written as Python hooks plays
on the vector env through its ``act`` (:func:`play_sessions`). For a built-in system both give
identical numbers to the last chip (``tests/test_sessions.py``).

**Work and checkpoints.** Sessions are cut into blocks of ``block`` sessions (a fixed part of the
configuration, recorded in the manifest). One task is one block of one group of systems (every
built-in system together; each other policy alone: :meth:`TournamentConfig.groups`); each
finished task is saved atomically to ``OUT/blocks/`` at once, one file per system. Ctrl-C or a
crash keeps every finished task, and ``--resume OUT`` runs only the missing ones, with the same
result as an uninterrupted run.

Running again into a folder that holds the same configuration reuses its checkpoints (a resume);
a folder holding another configuration is refused. ``--workers`` defaults to the CPU count (one
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
    ``unit``, ``seed``, ``block``, ``trajectories``), ``workers``, ``complete`` (false until every
    task is done), ``tasks_done``, ``tasks_total``, ``files``.
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
    The checkpoints (``b{block}-s{strategy}.npz``): what ``--resume`` reads. Safe to delete once
    the run is complete.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
import json
import math
import os
import platform
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from experiments.console import JsonOption, err, fail, out, print_json
from experiments.files import atomic_write, atomic_write_bytes, atomic_write_text, json_default

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

SESSION_FIELDS = (
    "net",
    "staked",
    "final_bankroll",
    "coups",
    "ahead",
    "ruined",
    "walked",
    "max_drawdown",
    "longest_losing_run",
    "table_max_hits",
    "bankroll_hits",
)
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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        values["strategies"] = tuple(values["strategies"])
        values["specs"] = tuple(values["specs"])
        return cls(**values)

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
        loop (:mod:`experiments.sessions`), each other policy (a trained model, a plugin written as
        Python hooks) alone on the vector env."""
        fast = self._compiled()
        return ([fast] if fast else []) + [(s,) for s in range(len(self.specs)) if s not in fast]

    def all_compiled(self) -> bool:
        """Whether every strategy is a built-in system (the whole run is compiled)."""
        return len(self._compiled()) == len(self.specs)

    def _compiled(self) -> tuple[int, ...]:
        from experiments.sessions import compiled
        from strategies.registry import make_strategy

        rules = self.ruleset()
        return tuple(
            s for s, spec in enumerate(self.specs) if not _is_model(spec) and compiled(make_strategy(spec, rules))
        )

    def tasks(self) -> list[tuple[int, tuple[int, ...]]]:
        """Every (block, group of strategy indices) to play, block by block (:meth:`groups`)."""
        groups = self.groups()
        return [(b, g) for b in range(self.n_blocks) for g in groups]


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
    except StrategyError as exc:
        raise TournamentError(str(exc)) from None
    return label, policy.spec(), policy


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


def session_seed(seed: int, i: int) -> int:
    """The shuffle seed of session ``i``: the ``i``-th child of ``SeedSequence(seed)`` as a 128-bit int."""
    words = np.random.SeedSequence(seed, spawn_key=(i,)).generate_state(2, np.uint64)
    return int(words[0]) | (int(words[1]) << 64)


def play_sessions(
    policy: Any,
    rules: Any,
    bankroll: float,
    coups: int,
    seeds: Sequence[int],
    keep: int = 0,
) -> dict[str, np.ndarray]:
    """Play one session per seed with ``policy`` on the native vector env; per-session results.

    :param policy: a strategy (anything with ``act(obs, state) -> (actions, state)``, full action form).
    :param rules: the RuleSet of every table.
    :param bankroll: starting bankroll, units.
    :param coups: the session's length in coups (it may end earlier: ruin, walk-away).
    :param seeds: one table seed per session.
    :param keep: record the bankroll after every coup of the first ``keep`` sessions.
    :return: the :data:`SESSION_FIELDS` arrays, ``box_stakes`` ((2, 4): uninsured and insured
        stakes per box, summed over sessions) and ``trajectories`` ((keep, coups + 1), float32).
    """
    from experiments.sessions import SETTLE_LIMIT
    from trente_env.vector import TrenteEtQuaranteVectorEnv

    n = len(seeds)
    venv = TrenteEtQuaranteVectorEnv(num_envs=n, rules=rules, bankroll=bankroll)
    obs, _ = venv.reset(seed=list(seeds))
    state = None
    net = np.zeros(n)
    box_total = np.zeros((n, 4))  # new stakes per session and box
    box_insured = np.zeros(4)  # of which insured, summed over sessions
    peak = np.full(n, float(bankroll))
    drawdown = np.zeros(n)
    run = np.zeros(n, dtype=np.int64)
    longest = np.zeros(n, dtype=np.int64)
    played = np.zeros(n, dtype=np.int64)
    table_hits = np.zeros(n, dtype=np.int64)
    bank_hits = np.zeros(n, dtype=np.int64)
    walked = np.zeros(n, dtype=np.bool_)
    active = np.ones(n, dtype=np.bool_)  # the session is still on: the system may stake
    counting = np.ones(n, dtype=np.bool_)  # still on, or waiting for a prisoner to settle
    keep = min(keep, n)
    trajectories = np.empty((keep, coups + 1), dtype=np.float32)
    trajectories[:, 0] = bankroll
    zeros = np.zeros(n, dtype=np.int64)
    c = 0
    while c < coups + SETTLE_LIMIT:
        hits0 = getattr(state, "table_max_hits", zeros).copy()
        bhits0 = getattr(state, "bankroll_hits", zeros).copy()
        actions, state = policy.act(obs, state)
        if c < coups:
            gone = getattr(state, "walked", None)
            if gone is not None:
                walked |= active & gone
                active &= ~gone
        else:
            active[:] = False
        table_hits += (getattr(state, "table_max_hits", zeros) - hits0) * active
        bank_hits += (getattr(state, "bankroll_hits", zeros) - bhits0) * active
        actions = np.asarray(actions) * active[:, None]  # a finished session stakes nothing
        played += active
        obs, reward, terminated, _, info = venv.step(actions)
        # rows of finished sessions (or of a table restarting after ruin) carry stale values
        reward *= counting
        stakes = info["stakes"]
        stakes *= counting[:, None]
        box_total += stakes
        insured = info["insured"]
        if insured.any():
            box_insured += (stakes * insured).sum(axis=0)
        net += reward
        money = net + bankroll
        np.maximum(peak, money, out=peak)
        np.maximum(drawdown, peak - money, out=drawdown)
        run += reward < 0  # a losing run: coups that lost money; one that won money ends it
        run[reward > 0] = 0
        np.maximum(longest, run, out=longest)
        if c < coups and keep:
            trajectories[:, c + 1] = money[:keep]
        c += 1
        ruined_now = counting & terminated
        if ruined_now.any():
            active &= ~ruined_now
            counting &= ~ruined_now
        waiting = counting & ~active
        if waiting.any():  # finished sessions wait only for their prisoners
            counting &= active | obs["prison"].any(axis=1)
        if not counting.any():
            break
    final = bankroll + net
    if keep:  # a finished session keeps its final bankroll (prisoners settled after the end too)
        trajectories[:, min(c, coups - 1) + 1 :] = final[:keep, None]
    uninsured = box_total.sum(axis=0) - box_insured
    return {
        "net": net,
        "staked": box_total.sum(axis=1),
        "final_bankroll": final,
        "coups": played,
        "ahead": net > 0,
        "ruined": final < rules.table_min,
        "walked": walked,
        "max_drawdown": drawdown,
        "longest_losing_run": longest,
        "table_max_hits": table_hits,
        "bankroll_hits": bank_hits,
        "box_stakes": np.stack([uninsured, box_insured]),
        "trajectories": trajectories,
    }


def trajectory_sessions(config: TournamentConfig) -> int:
    """How many sessions keep their bankroll after every coup: ``config.trajectories``, fewer for
    very long sessions (at most :data:`TRAJECTORY_VALUES` numbers per strategy)."""
    return min(config.trajectories, TRAJECTORY_VALUES // (config.coups + 1))


@functools.lru_cache(maxsize=4)
def _block_seeds(seed: int, start: int, stop: int) -> tuple[int, ...]:
    return tuple(session_seed(seed, i) for i in range(start, stop))


def run_task(
    config: TournamentConfig, b: int, group: tuple[int, ...], threads: int = 1
) -> dict[int, dict[str, np.ndarray]]:
    """Play block ``b`` of the strategies ``group``: the same result wherever and whenever it runs.

    Built-in systems play together on the compiled session loop (on ``threads`` threads); any
    other policy plays alone on the native vector env (:func:`play_sessions`). Both give identical
    numbers for a built-in.
    """
    from experiments.sessions import compiled, play_compiled
    from strategies.registry import make_strategy

    rules = config.ruleset()
    policies = [make_strategy(config.specs[s], rules) for s in group]
    start, stop = config.block_range(b)
    seeds = _block_seeds(config.seed, start, stop)
    keep = max(0, min(trajectory_sessions(config), stop) - start)
    if all(compiled(p) for p in policies):
        results = play_compiled(policies, rules, config.bankroll, config.coups, seeds, keep, threads)
    else:
        results = [play_sessions(p, rules, config.bankroll, config.coups, seeds, keep) for p in policies]
    return dict(zip(group, results))


# -- files ---------------------------------------------------------------------------------------


def task_path(out: Path, b: int, s: int) -> Path:
    return Path(out) / "blocks" / f"b{b:05d}-s{s:03d}.npz"


def save_task(out: Path, b: int, s: int, result: Mapping[str, np.ndarray]) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **result)
    atomic_write_bytes(task_path(out, b, s), buffer.getvalue())


def load_task(out: Path, b: int, s: int) -> dict[str, np.ndarray] | None:
    """A saved task, or None if it is missing or unreadable (it will be run again)."""
    path = task_path(out, b, s)
    try:
        with np.load(path) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError):
        return None


def task_done(out: Path, b: int, group: tuple[int, ...]) -> bool:
    """Whether every strategy of a task has its block saved (readable) in ``out``."""
    return all(load_task(out, b, s) is not None for s in group)


def save_results(out: Path, b: int, results: Mapping[int, Mapping[str, np.ndarray]]) -> None:
    for s, result in results.items():
        save_task(out, b, s, result)


def _task_worker(config: TournamentConfig, out: str, b: int, group: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    save_results(Path(out), b, run_task(config, b, group))
    return b, group


def _init_worker() -> None:
    """Worker processes: Ctrl-C is the parent's business, and one thread each (the processes are
    the parallelism; numba's own threads on top would fight over the cores)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import numba

    numba.set_num_threads(1)


def write_manifest(out: Path, config: TournamentConfig, workers: int, done: int, extra: Mapping | None = None) -> None:
    total = len(config.tasks())
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "command": "trente-lab tournament",
        "version": _version(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "git_commit": _git_commit(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "config": config.as_dict(),
        "workers": workers,
        "complete": done == total,
        "tasks_done": done,
        "tasks_total": total,
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


def default_out_dir() -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = Path("runs") / f"tournament-{stamp}"
    k = 1
    while path.exists():
        k += 1
        path = Path("runs") / f"tournament-{stamp}-{k}"
    return path


# -- the run -------------------------------------------------------------------------------------


def run_tasks(
    config: TournamentConfig,
    out: Path,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    max_tasks: int | None = None,
) -> int:
    """Run every task not yet saved in ``out``; returns how many tasks are saved in the end.

    :param progress: called with the session-coups of each task as it finishes.
    :param max_tasks: stop (raising :class:`TournamentInterrupted`) after this many new tasks: an
        interruption, on purpose (tests).
    """
    tasks = config.tasks()
    todo = [(b, g) for b, g in tasks if not task_done(out, b, g)]
    done = len(tasks) - len(todo)

    def advance(b: int, group: tuple[int, ...]) -> None:
        if progress:
            lo, hi = config.block_range(b)
            progress((hi - lo) * config.coups * len(group))

    for b, g in tasks:
        if (b, g) not in todo:
            advance(b, g)
    limit = len(todo) if max_tasks is None else min(max_tasks, len(todo))
    # built-in systems only: one process, the compiled loop on `workers` threads (no start-up cost)
    threads = workers if config.all_compiled() else 1
    try:
        if workers <= 1 or limit <= 1 or threads > 1:
            for b, g in todo[:limit]:
                save_results(out, b, run_task(config, b, g, threads))
                done += 1
                advance(b, g)
        else:
            done = _run_pool(config, out, todo[:limit], workers, advance, done)
    except KeyboardInterrupt:
        done = sum(task_done(out, b, g) for b, g in tasks)
        raise TournamentInterrupted(out, done, len(tasks)) from None
    if done < len(tasks):
        raise TournamentInterrupted(out, done, len(tasks))
    return done


def _run_pool(
    config: TournamentConfig,
    out: Path,
    todo: list[tuple[int, tuple[int, ...]]],
    workers: int,
    advance: Callable[[int, tuple[int, ...]], None],
    done: int,
) -> int:
    import multiprocessing

    context = multiprocessing.get_context("spawn")  # numba's threads do not survive a fork
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker)
    pending = set()
    queue = list(todo)
    try:
        while queue or pending:
            while queue and len(pending) < 2 * workers:
                b, g = queue.pop(0)
                pending.add(pool.submit(_task_worker, config, str(out), b, g))
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                done += 1
                advance(*future.result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # running tasks finish and are saved
    return done


def collect(config: TournamentConfig, out: Path) -> dict[str, dict[str, np.ndarray]]:
    """The saved tasks put together: per strategy label, every session's results in session order."""
    results: dict[str, dict[str, np.ndarray]] = {}
    for s, label in enumerate(config.strategies):
        parts = []
        for b in range(config.n_blocks):
            part = load_task(out, b, s)
            if part is None:
                raise TournamentError(f"{task_path(out, b, s)} is missing: run with --resume {out}")
            parts.append(part)
        merged = {k: np.concatenate([p[k] for p in parts]) for k in SESSION_FIELDS}
        merged["box_stakes"] = np.sum([p["box_stakes"] for p in parts], axis=0)
        merged["trajectories"] = np.concatenate([p["trajectories"] for p in parts])
        results[label] = merged
    return results


def strategy_edge(spec: str, rules: Any, box_stakes: np.ndarray) -> float:
    """The exact house edge of what a system staked: the edge of each box (under the refait rule
    the system plays), weighted by the stakes it placed there (insured stakes at the insured edge)."""
    from strategies.registry import make_strategy
    from trente_env.odds import house_edges
    from trente_env.rules import Refait

    if rules.refait is Refait.CHOICE:
        policy = make_strategy(spec, rules)
        to_prison = getattr(policy, "to_prison", None)
        if to_prison is not None:
            rules = rules.replace(refait=Refait.PRISON if to_prison else Refait.HALF)
    edges = house_edges(rules)
    per_box = np.array([edges.noir, edges.rouge, edges.couleur, edges.inverse])
    insured = edges.insured if edges.insured is not None else 0.0
    total = box_stakes.sum()
    if total <= 0:
        return float(edges.noir)
    return float((box_stakes[0] @ per_box + box_stakes[1].sum() * insured) / total)


def summarize(config: TournamentConfig, sessions: Mapping[str, Mapping[str, np.ndarray]]) -> dict[str, Any]:
    """The results document (see the module docstring) from every session's results."""
    from experiments.stats import ratio_estimate, verdicts
    from trente_env.odds import house_edges

    rules = config.ruleset()
    edges = house_edges(rules)
    labels = list(config.strategies)
    estimates = [ratio_estimate(sessions[k]["net"], sessions[k]["staked"]) for k in labels]
    strategy_edges = [strategy_edge(spec, rules, sessions[k]["box_stakes"]) for k, spec in zip(labels, config.specs)]
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
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise TournamentError(f"workers must be a whole number >= 1, got {workers!r}")
    out = Path(out) if out is not None else default_out_dir()
    if not resume and (out / "manifest.json").exists():
        old = read_manifest(out)
        if old["config"] != json.loads(json.dumps(config.as_dict())):
            raise TournamentError(f"{str(out)!r} holds another tournament: choose a new --out, or --resume it")
    try:
        (out / "blocks").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TournamentError(f"cannot create output folder {str(out)!r}: {exc.strerror or exc}") from None
    write_manifest(out, config, workers, 0)
    work = config.sessions * config.coups * len(config.specs)
    start = time.perf_counter()
    with _progress_bar(progress, work) as advance:
        try:
            done = run_tasks(config, out, workers, advance, max_tasks)
        except TournamentInterrupted as exc:
            write_manifest(out, config, workers, exc.done)
            raise
    seconds = time.perf_counter() - start
    sessions = collect(config, out)
    document = summarize(config, sessions)
    document["seconds"] = seconds
    document["session_coups"] = work
    document["session_coups_per_second"] = work / seconds if seconds > 0 else None
    document["out"] = str(out)
    files = write_outputs(out, document, sessions, plots)
    write_manifest(out, config, workers, done, {"files": files, "seconds": seconds})
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
    """Finish the interrupted tournament in ``folder`` (its manifest fixes the configuration)."""
    manifest = read_manifest(folder)
    try:
        config = TournamentConfig.from_dict(manifest["config"])
    except (KeyError, TypeError, ValueError) as exc:
        raise TournamentError(f"cannot read the configuration in {folder}/manifest.json: {exc}") from None
    return run_tournament(config, folder, workers, progress, plots, max_tasks, resume=True)


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
) -> list[str]:
    """Write results.json/csv, sessions.csv, trajectories.csv and the plots; returns the file names."""
    atomic_write_text(out / "results.json", json.dumps(document, indent=2, default=json_default) + "\n")
    atomic_write_text(out / "results.csv", _csv([["strategy", *SUMMARY_COLUMNS]] + _summary_rows(document)))
    atomic_write(out / "sessions.csv", lambda f: _write_sessions_csv(f, sessions))
    bands = trajectory_bands(sessions)
    atomic_write_text(out / "trajectories.csv", _trajectories_csv(bands))
    files = ["manifest.json", "results.json", "results.csv", "sessions.csv", "trajectories.csv"]
    if plots:
        from experiments.plots import draw_all

        files += draw_all(out, document, sessions, bands)
    return files


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


def _write_sessions_csv(f: io.BufferedWriter, sessions: Mapping[str, Mapping[str, np.ndarray]]) -> None:
    """Stream the per-session table into ``f``, one strategy at a time."""
    text = io.TextIOWrapper(f, encoding="utf-8", newline="", write_through=True)
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["strategy", "session", *SESSION_FIELDS])
    for label, s in sessions.items():
        n = s["net"].size
        columns = [[label] * n, range(n)]
        for name in SESSION_FIELDS:
            values = s[name]
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
            ret = f"{r['return_per_unit']:+.2%} ±{1.959964 * r['se']:.2%}"
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
            "E.g. flat,martingale:base=2,box=rouge",
        ),
    ] = None,
    sessions: Annotated[
        int | None, typer.Option("--sessions", "-n", help=f"Sessions per strategy (default {DEFAULT_SESSIONS:,}).")
    ] = None,
    coups: Annotated[
        int | None, typer.Option("--coups", "-m", help=f"Coups per session at most (default {DEFAULT_COUPS}).")
    ] = None,
    bankroll: Annotated[
        float | None,
        typer.Option("--bankroll", "-b", help=f"Starting bankroll, units (default {DEFAULT_BANKROLL:g})."),
    ] = None,
    unit: Annotated[
        int | None, typer.Option("--unit", "-u", help="Base stake of every system that does not set base (default 1).")
    ] = None,
    rules: Annotated[
        str | None, typer.Option("--rules", "-r", help="Rules preset (see `trente-lab presets`) (default classic).")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="Seed of the shoes (default 0).")] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-w",
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
        Path | None, typer.Option("--resume", help="Finish the interrupted tournament in this folder.")
    ] = None,
    no_plots: Annotated[bool, typer.Option("--no-plots", help="Skip the PNG plots.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Every betting system on the same shoes: return per unit staked against the exact house edge."""
    given = {
        "strategies": strategies, "sessions": sessions, "coups": coups, "bankroll": bankroll, "unit": unit,
        "rules": rules, "seed": seed,
    }  # fmt: skip
    try:
        if resume is not None:
            clash = [k for k, v in {**given, "out": out_dir, "config": config_file}.items() if v is not None]
            if clash:
                fail(f"--resume takes its options from {resume}/manifest.json; drop --{', --'.join(clash)}")
            manifest = read_manifest(resume)
            work = _work(manifest["config"])
            document = resume_tournament(resume, _workers(workers, {}, work), progress=True, plots=not no_plots)
        else:
            options: dict[str, Any] = {}
            if config_file is not None:
                options = read_config_file(_config_path(config_file))
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


def _work(config: Mapping[str, Any]) -> int:
    return int(config["sessions"]) * int(config["coups"]) * len(config["specs"])


def _workers(cli: int | None, options: Mapping[str, Any], work: int) -> int:
    """``--workers``, else the config file's, else the CPU count (1 for a short run)."""
    value = cli if cli is not None else options.get("workers")
    if value is None:
        value = (os.cpu_count() or 1) if work >= POOL_FROM else 1
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        fail(f"workers must be a whole number >= 1, got {value!r}")
    return value


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

"""Can counting cards beat it? The tables of ``trente-lab count``, from :mod:`trente_env.counting`.

* **Effects of removal**: how taking one card of each value and colour out of a full shoe moves
  P(refait) and the expected gain of one unit on each box (the nodes' exact odds,
  :func:`~trente_env.counting.removal.effects_of_removal`).
* **The best bet on offer by cards left**: before every coup of shoes dealt to the end, the best
  expected gain a player who knows every unseen card could take, as quantiles by cards left to deal
  (Thorp and Walden's picture: the spread widens as the shoe runs down, and a favourable bet comes
  only in the last few dozen cards).
* **The perfect counter's gain per shoe** with its 95% interval, for three stop rules: the rules'
  cut card, the shoe dealt to exhaustion, and the last cards dead (the casino's countermeasure);
  and the share of it a linear count captures (:mod:`trente_env.counting.counters`).

Every stop rule plays the same shuffles (the same seeds), so the three differ only by where the
dealing stops.
"""

from __future__ import annotations

import time
from dataclasses import fields
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
from rich.table import Table

from experiments.backends import LOCAL, Backend, run_shards, shard_sizes
from experiments.console import out, print_written, progress_bar
from experiments.errors import LabError
from experiments.files import atomic_write_json, pyplot, save_figure
from experiments.memory import check_memory
from experiments.rules import table_name
from trente_env.codes import BOXES
from trente_env.counting.counters import QUANTILES, ShoeStudy, best_ev_by_depth, study_shoes
from trente_env.counting.removal import KINDS, effects_of_removal, linear_count
from trente_env.rules import PRESETS, RuleSet
from trente_env.seeding import batch_seeds

DEFAULT_SHOES = 500  #: shoes per stop rule by default: about half a minute for the three on two cores
DEFAULT_DEAD = 5  #: dead cards of the ``dead-cards`` stop rule by default (the preset's)
BATCH = 250  #: shoes per call of the study between two updates of the progress bar


class StopRule(str, Enum):
    """Where the dealing of a shoe stops."""

    CUT_CARD = "cut-card"  #: the rules' own cut card
    EXHAUSTION = "exhaustion"  #: dealt to the last card
    DEAD_CARDS = "dead-cards"  #: dealt to the end but for the last dead cards


STOP_RULES = tuple(StopRule)


def stop_rules(rules: RuleSet, dead_cards: int, stops: tuple[StopRule, ...] = STOP_RULES) -> dict[str, RuleSet]:
    """The rule set of each stop rule, built from ``rules`` (a bad dead-card count is a LabError)."""
    variants = {
        StopRule.CUT_CARD: {},
        StopRule.EXHAUSTION: {"cut_card": 0, "dead_cards": 0},
        StopRule.DEAD_CARDS: {"cut_card": 0, "dead_cards": dead_cards},
    }
    try:
        return {StopRule(s).value: rules.replace(**variants[StopRule(s)]) for s in stops}
    except ValueError as exc:
        raise LabError(str(exc)) from None


def _merge(parts: list[ShoeStudy], seconds: float) -> ShoeStudy:
    """The studies of consecutive batches of shoes as one study."""
    first = parts[0]
    values = {}
    for f in fields(ShoeStudy):
        value = getattr(first, f.name)
        values[f.name] = np.concatenate([getattr(p, f.name) for p in parts]) if isinstance(value, np.ndarray) else value
    values["seconds"] = seconds
    return ShoeStudy(**values)


def _study(stop: RuleSet, shoes: int, seed: int, count: Any) -> ShoeStudy:
    """One shard: ``shoes`` shoes of one stop rule (:func:`~trente_env.counting.counters.study_shoes`)."""
    return study_shoes(stop, shoes, seed, count=count)


def _study_on_worker(stop: RuleSet, shoes: int, seed: int, count: Any) -> ShoeStudy:
    """:func:`_study` on a Dask worker: one numba thread (the cluster's workers are its parallelism)."""
    import numba

    numba.set_num_threads(1)
    return _study(stop, shoes, seed, count)


def _record_bytes(study: ShoeStudy) -> int:
    """Bytes a study keeps per shoe (its arrays, which have a row per shoe)."""
    arrays = [value for value in vars(study).values() if isinstance(value, np.ndarray)]
    return sum(value.nbytes // max(len(value), 1) for value in arrays)


def count_report(
    rules: RuleSet = PRESETS["classic"],
    shoes: int = DEFAULT_SHOES,
    seed: int = 0,
    dead_cards: int = DEFAULT_DEAD,
    stops: tuple[StopRule, ...] = STOP_RULES,
    progress: bool = False,
    backend: Backend = LOCAL,
    workers: int = 1,
    name: str | None = None,
) -> dict[str, Any]:
    """Every table of ``trente-lab count`` as one document (see the module's notes).

    :param rules: the table; the stop rules change only their cut card and dead cards.
    :param name: what the document calls the table (default :func:`~experiments.rules.table_name`).
    :param shoes: shoes dealt per stop rule (the same shuffles for each).
    :param dead_cards: the dead cards of the ``dead-cards`` stop rule.
    :param backend: where the shards (batches of :data:`BATCH` shoes of one stop rule, each seeded
        from ``seed`` and the batch's index) are played (:mod:`experiments.backends`), with
        ``workers`` processes for a local Dask cluster: the tables are the same on every backend.
    """
    if shoes < 1:
        raise LabError(f"the number of shoes must be at least 1, got {shoes}")
    if not stops:
        raise LabError(f"give at least one stop rule: {', '.join(s.value for s in STOP_RULES)}")
    preset = table_name(rules) if name is None else name
    if rules.table_min > 1:
        raise LabError(f"the counters stake one unit, below the table minimum {rules.table_min:g} of {preset!r}")
    if rules.rigged:
        raise LabError(f"card counting is studied on real tables only; {preset!r} is the rigged positive control")
    variants = stop_rules(rules, dead_cards, stops)
    start = time.perf_counter()
    effects = effects_of_removal(rules)
    count = linear_count(effects)
    # every shoe's record is kept, and a stop rule's are copied once more when its shards are joined
    record = max(_record_bytes(_study(stop, 1, seed, count)) for stop in variants.values())
    check_memory(
        shoes * record * (len(variants) + 1), f"{shoes:,} shoes x {len(variants)} stop rules",
        "deal fewer shoes (--shoes) or study fewer stop rules (--stop)",
    )  # fmt: skip
    seeds = batch_seeds(seed, -(-shoes // BATCH))
    # the shards: a batch of shoes of one stop rule, seeded from the root seed and the batch's index
    shards = [
        (variants[name], size, int(batch_seed), count)
        for name in variants
        for size, batch_seed in zip(shard_sizes(shoes, BATCH), seeds)
    ]
    parts: dict[str, list[ShoeStudy]] = {name: [] for name in variants}
    with progress_bar(progress) as bar:
        task = bar.add_task(f"counting shoes (shards of {BATCH} shoes)", total=len(shards))

        def add(i: int, study: ShoeStudy) -> None:
            parts[list(variants)[i // len(seeds)]].append(study)
            bar.advance(task, 1)

        play = _study if backend.kind == "local" else _study_on_worker
        run_shards(play, shards, add, backend, workers)
    studies = {name: _merge(studied, sum(p.seconds for p in studied)) for name, studied in parts.items()}
    stop_tables = {}
    for name, study in studies.items():
        summary = study.summary()
        summary["stop_rule"] = name
        summary["depth"] = best_ev_by_depth(study).to_dict()
        stop_tables[name] = summary
    return _no_nan(
        {
            "rules": preset,
            "description": rules.describe(),
            "shoes": shoes,
            "seed": seed,
            "dead_cards": dead_cards,
            "removal": effects.to_dict(),
            "linear_count": {"tags": {kind: count.tags[k].tolist() for k, kind in enumerate(KINDS)}},
            "stop_rules": stop_tables,
            "seconds": time.perf_counter() - start,
        }
    )


def _no_nan(value: Any) -> Any:
    """``value`` with every NaN (a share of a gain that is zero, a bin of cards left with no coup) as
    None, so that the document is strict JSON."""
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_no_nan(v) for v in value]
    if isinstance(value, float | np.floating) and np.isnan(value):
        return None
    return value


def removal_table(report: dict[str, Any]) -> Table:
    """Effects of removal: one row per card taken out of a full shoe."""
    removal = report["removal"]
    view = Table(
        title=f"Effects of removing one card from a full {removal['decks']}-pack shoe, in units of 1e-5 "
        f"(P(refait) {removal['p_refait']:.5f}; EV of one unit uninsured)",
        title_justify="left",
    )
    view.add_column("card", justify="left")
    view.add_column("ΔP(refait)", justify="right")
    for box in BOXES:
        view.add_column(f"ΔEV {box}", justify="right")
    for row in removal["removal"]:
        view.add_row(row["card"], f"{row['d_refait'] * 1e5:+.2f}", *(f"{row[box][0] * 1e5:+.2f}" for box in BOXES))
    return view


def depth_table(name: str, summary: dict[str, Any]) -> Table:
    """The best expected gain on offer before each coup, by cards left to deal (in % of a unit)."""
    depth = summary["depth"]
    view = Table(
        title=f"Best expected gain on offer before a coup, % of a unit, by cards left ({name}, "
        f"{summary['shoes']:,} shoes)",
        title_justify="left",
    )
    view.add_column("cards left", justify="left")
    view.add_column("coups", justify="right")
    for q in QUANTILES:
        view.add_column(f"{q:.0%}", justify="right")
    view.add_column("> 0", justify="right")
    view.add_column("gain/coup", justify="right")
    for i, (low, high) in enumerate(depth["cards_left"]):
        if depth["coups"][i] == 0:
            continue
        quantiles = [depth["quantiles"][f"q{q:g}"][i] for q in QUANTILES]
        view.add_row(
            f"{low}-{high}", f"{depth['coups'][i]:,}", *(f"{x * 100:+.2f}" for x in quantiles),
            f"{depth['favourable'][i]:.1%}", f"{depth['gain_per_coup'][i] * 100:.3f}",
        )  # fmt: skip
    return view


def _interval(x: dict[str, float | None], scale: float = 1.0, digits: int = 6, unit: str = "") -> str:
    """``mean ± half-width`` of a 95% interval, or the mean and, in words, why there is none."""
    if x["mean"] is None:
        return "-"
    if x.get("note"):
        shown = "" if x["mean"] != x["mean"] else f"{x['mean'] * scale:+.{digits}f}{unit}, "
        return f"{shown}{x['note']}"
    half = (x["high"] - x["low"]) / 2
    return f"{x['mean'] * scale:+.{digits}f}{unit} ± {half * scale:.{digits}f}{unit}"


def _gains(counter: dict[str, Any], *cells: tuple[str, dict[str, Any]]) -> list[str]:
    """A counter's cells of the gain table: its intervals, or "0, no bets" where it never bet."""
    if counter["bets_per_shoe"] == 0:
        return ["0, no bets"] * len(cells)
    return [_interval(counter[key], **how) for key, how in cells]


def gain_table(report: dict[str, Any]) -> Table:
    """The perfect and the linear counter's gain per shoe for each stop rule, with 95% intervals."""
    view = Table(
        title=f"Gain per shoe, in units, of a counter staking one unit on the best favourable bet "
        f"(± 95% interval; {report['shoes']:,} shoes, seed {report['seed']})",
        title_justify="left",
    )
    for col in ("stop rule", "coups", "bets", "perfect: expected", "realised", "linear: expected", "captured"):
        view.add_column(col, justify="left" if col == "stop rule" else "right")
    for name, s in report["stop_rules"].items():
        perfect, linear = s["perfect"], s["linear"]
        view.add_row(
            name, f"{s['coups_per_shoe']:.1f}", f"{perfect['bets_per_shoe']:.2f}",
            *_gains(perfect, ("expected_gain_per_shoe", {}), ("realised_gain_per_shoe", {"digits": 3})),
            *_gains(linear, ("expected_gain_per_shoe", {}), ("capture", {"scale": 100, "digits": 1, "unit": "%"})),
        )  # fmt: skip
    return view


def _deepest(report: dict[str, Any]) -> str:
    """The stop rule that deals furthest into the shoe among those studied (its depth table is shown)."""
    stops = report["stop_rules"]
    return next((n for n in (StopRule.EXHAUSTION.value, StopRule.DEAD_CARDS.value) if n in stops), next(iter(stops)))


def plot_depth(report: dict[str, Any], path: Path) -> Path:
    """The spread of the best expected gain on offer by cards left to deal (median and quantile
    bands), for the stop rule dealt furthest: Thorp and Walden's widening spread."""
    plt = pyplot()
    name = _deepest(report)
    depth = report["stop_rules"][name]["depth"]
    keep = [i for i, c in enumerate(depth["coups"]) if c > 0]
    x = np.arange(len(keep))
    q = {key: np.array([depth["quantiles"][key][i] for i in keep]) * 100 for key in depth["quantiles"]}
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.fill_between(x, q["q0.01"], q["q0.99"], color="#2c3e50", alpha=0.15, label="1% to 99% of coups")
    ax.fill_between(x, q["q0.1"], q["q0.9"], color="#2c3e50", alpha=0.35, label="10% to 90%")
    ax.plot(x, q["q0.5"], color="#2c3e50", marker="o", markersize=4, label="median")
    ax.axhline(0, color="#c0392b", lw=1, ls="--", label="a fair bet")
    ax.set_xticks(x, [f"{depth['cards_left'][i][0]}-{depth['cards_left'][i][1]}" for i in keep], rotation=30)
    ax.invert_xaxis()
    ax.set_xlabel("cards left to deal before the coup")
    ax.set_ylabel("best expected gain on offer (% of a unit)")
    ax.set_title(
        f"The best bet a perfect counter could take as the shoe runs down ({name}, {report['shoes']:,} shoes)",
        fontsize=10,
    )
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_gain(report: dict[str, Any], path: Path) -> Path:
    """The perfect and the linear counter's expected gain per shoe for each stop rule, 95% intervals."""
    plt = pyplot()
    names = list(report["stop_rules"])
    fig, ax = plt.subplots(figsize=(7, 4))
    y = np.arange(len(names))
    for shift, who, colour in ((-0.12, "perfect", "#2c3e50"), (0.12, "linear", "#c0392b")):
        gains = [report["stop_rules"][n][who]["expected_gain_per_shoe"] for n in names]
        mean, low, high = (
            np.array([np.nan if g[k] is None else g[k] for g in gains], float) * 100 for k in ("mean", "low", "high")
        )
        low, high = mean - low, high - mean  # no interval (too few shoes, no bets): no bar, and no point without a mean
        ax.errorbar(mean, y + shift, xerr=[low, high], fmt="o", capsize=4, color=colour, label=f"{who} counter")
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y, names)
    ax.invert_yaxis()
    ax.set_xlabel("expected gain per shoe (% of a unit), 95% interval")
    ax.set_title(f"Counting cards: gain per shoe by stop rule ({report['shoes']:,} shoes)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return save_figure(fig, path)


def write_outputs(report: dict[str, Any], out_dir: Path) -> list[Path]:
    """count.json, best-ev.png and gain.png in ``out_dir``; each written atomically."""
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = out_dir / "count.json"
    atomic_write_json(doc, report)
    return [doc, plot_depth(report, out_dir / "best-ev.png"), plot_gain(report, out_dir / "gain.png")]


def print_report(report: dict[str, Any], paths: list[Path] | tuple[Path, ...] = ()) -> None:
    """The three tables (the depth table of the shoe dealt furthest), the answer, the files written."""
    out.print(f"{report['description']}; {report['shoes']:,} shoes per stop rule, seed {report['seed']}.", style="dim")
    out.print(removal_table(report))
    deepest = _deepest(report)
    out.print(depth_table(deepest, report["stop_rules"][deepest]))
    out.print(gain_table(report))
    out.print(
        "A perfect counter gains a fraction of a unit per shoe at best, and only where the shoe is dealt to "
        "its last cards: the cut card takes almost all of it away, and a few dead cards half of it."
    )
    print_written(paths, "the plots and the tables (count.json)", report["seconds"])


__all__ = [
    "DEFAULT_DEAD",
    "DEFAULT_SHOES",
    "STOP_RULES",
    "StopRule",
    "count_report",
    "print_report",
    "stop_rules",
    "write_outputs",
]

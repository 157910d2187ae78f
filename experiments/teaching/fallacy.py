"""``trente-lab fallacy``: the gambler's fallacy, measured. Streaks carry no information.

From ``N`` coups dealt by the bulk dealer, the table shows how often Rouge wins after Rouge has won
``k`` decided coups in a row, and after Noir has, for ``k = 0..K`` — and the same for Couleur and
Inverse — each with its number of occasions and a 95% Wilson interval, beside the exact
probability. A companion run plays a streak chaser, an anti-streak player ("it is due") and a flat
bettor on the same shoes, through the session runner every command shares (:mod:`strategies.runner`):
each loses the same fraction of what it stakes.

**What counts** (one definition, used for the table, the exact column and the strategies):

* Only *decided* coups count: those Noir or Rouge won (for Couleur/Inverse, the same coups).
  Après, refait and void coups decide nothing for these boxes: they **neither extend nor break a
  streak**, and they are not occasions. This is how the punters' scoring cards, and the systems
  in :mod:`strategies.patterns`, read the game.
* A streak of ``k`` means the last ``k`` decided coups were won by the same side and the one
  before them was not (the streak is *exactly* ``k`` long now). So the rows ``k = 1..K`` are
  disjoint sets of coups. ``k = 0`` is the baseline: every decided coup, no condition.
* Streaks run on across reshuffles: the sequence is the table's, as a player watching it sees it.
* The frequency is over decided coups: P(Rouge wins | the coup is decided, the streak is k).

**The exact column** is ``P(Rouge) / (P(Rouge) + P(Noir))`` from the exact first-coup odds
(:func:`trente_env.odds.first_coup`), which is 1/2 — and it is 1/2 *whatever came before*, not
only on the first coup: for any cards left in the shoe, swapping the Noir and Rouge rows of a
deal is another deal just as likely (each row stops by its own total), so the two rows are
exchangeable and, of the decided coups, each side wins exactly half, card removal or not. For
Couleur/Inverse the exact value is 1/2 by the same symmetry between the red and black suits; deep
in a shoe card removal could move it by a hair, far below anything these intervals resolve (Thorp
and Walden found nothing to exploit). The per-coup chance, ties included (P(Rouge wins) = 0.4452
with 6 decks), is given beside it.

**How many intervals may miss.** Each 95% interval misses the truth with chance about 5%; the
coups behind different rows are disjoint, and each outcome is independent of the streak that
selects it, so with ``m`` intervals the number of misses is close to Binomial(m, 0.05).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich import box
from rich.table import Table
from rich.text import Text

from experiments.backends import LOCAL, Backend
from experiments.console import out, print_written, progress_bar
from experiments.files import atomic_write_json, pyplot, save_figure
from experiments.memory import check_memory
from experiments.plotting import edge_label
from experiments.rules import table_name
from experiments.stats import binomial_quantile, wilson
from experiments.streaks import FAMILIES, SHARD, count_streaks
from strategies.registry import make_strategy
from strategies.runner import play, session_seeds
from trente_env.odds import first_coup
from trente_env.rules import PRESETS, RuleSet

CHUNK = SHARD  #: coups dealt between two updates of the progress bar (a shard): shown for more
SYSTEMS = ("streak:k=3", "anti-streak:k=3", "flat:box=rouge")  #: the companion's line-up
#: The companion's starting bankroll: so large that no session of one-unit stakes is ruined.
COMPANION_BANKROLL = float(10**9)


def _cell(wins: int, occasions: int) -> dict[str, Any]:
    low, high = wilson(wins, occasions)
    return {
        "occasions": int(occasions),
        "wins": int(wins),
        "frequency": wins / occasions if occasions else None,
        "low": float(low) if occasions else None,
        "high": float(high) if occasions else None,
    }


def streak_table(counts: np.ndarray, max_streak: int, event: str, other: str, exact: float) -> dict[str, Any]:
    """Rows k = 0..K of one family: the event's frequency after a streak of each side."""
    rows = []
    everything = counts.sum(axis=(0, 1))
    base = _cell(int(everything[0]), int(everything.sum()))
    rows.append({"k": 0, f"after_{event}": base, f"after_{other}": base})
    for k in range(1, max_streak + 1):
        row: dict[str, Any] = {"k": k}
        for side, name in ((0, event), (1, other)):
            wins, losses = counts[side, k]
            cell = _cell(int(wins), int(wins + losses))
            cell["contains_exact"] = None if cell["low"] is None else bool(cell["low"] <= exact <= cell["high"])
            row[f"after_{name}"] = cell
        rows.append(row)
    return {"event": event, "other": other, "exact": exact, "rows": rows}


# -- the companion: betting systems on the same shoes ----------------------------------------------


def companion_memory(sessions: int, coups: int, systems: int) -> int:
    """Bytes the companion run holds at its peak, roughly: every session is played at once by
    :func:`strategies.sessions.play_compiled`, with the seeds of its shuffles drawn ahead (a shoe
    deals about 25 coups: ``coups // 4 + 8`` of 8 bytes), each system's results of it (nine numbers
    and the stakes per box, about 144 bytes) and its table seed."""
    return sessions * ((coups // 4 + 8) * 8 + systems * 144 + 48)


def check_companion(sessions: int, coups: int, systems: int) -> None:
    """Refuse, in one line, a companion run that cannot fit in this machine's memory (:func:`companion_memory`)."""
    check_memory(
        companion_memory(sessions, coups, systems), f"{sessions:,} sessions of {coups:,} coups",
        "play fewer sessions (--sessions) or shorter ones (--session-coups)",
    )  # fmt: skip


def compare_systems(
    rules: RuleSet,
    specs: Sequence[str] = SYSTEMS,
    sessions: int = 5000,
    coups: int = 400,
    seed: int = 0,
    bankroll: float = COMPANION_BANKROLL,
) -> dict[str, Any]:
    """Play each system for ``sessions`` sessions of ``coups`` coups on the same shoes (session ``i``
    is the table seeded :func:`~strategies.runner.session_seed` ``(seed, i)`` for every system:
    common random numbers), through the session runner every command shares
    (:mod:`strategies.runner`, whose accounting convention applies: prisoners left at the end settle
    on the following coups, with no new stake). The return per unit staked, net result / total
    staked, comes with the lab's one 95% interval (:func:`experiments.stats.honest_return`: the
    delta method over sessions, the sessions being the independent units, and never narrower than
    the noise the stakes imply), beside minus the exact edge of the stakes placed
    (:func:`trente_env.odds.stake_weighted_edge`). The same system gets the same numbers from
    ``trente-lab tournament`` and ``trente-lab evaluate`` on the same shoes.

    :param bankroll: starting bankroll; the default is large enough that no session is ruined.
    :raises strategies.registry.StrategyError: a spec that names no system.
    """
    policies = [make_strategy(spec, rules) for spec in specs]
    check_companion(sessions, coups, len(specs))
    results = play(policies, rules, bankroll, coups, session_seeds(seed, sessions))
    systems = []
    for spec, policy, r in zip(specs, policies, results):
        estimate, edge = r.return_per_unit(), r.edge()
        systems.append(
            {
                "spec": spec,
                "summary": type(policy).summary,
                "mean_staked": float(r.staked.mean()),
                "staked": float(r.staked.sum()),
                "net": float(r.net.sum()),
                "return_per_unit": estimate.ratio,
                "se": estimate.se,
                "low": estimate.ci_low,
                "high": estimate.ci_high,
                "edge": edge,
                "minus_edge": -edge,
                "contains_edge": bool(estimate.ci_low <= -edge <= estimate.ci_high),
            }
        )
    return {"sessions": sessions, "coups": coups, "seed": seed, "bankroll": bankroll, "systems": systems}


# -- the whole analysis --------------------------------------------------------------------------


def fallacy_report(
    rules: RuleSet = PRESETS["classic"],
    n_coups: int = 2_000_000,
    max_streak: int = 8,
    seed: int = 0,
    progress: bool = False,
    sessions: int = 5000,
    session_coups: int = 400,
    backend: Backend = LOCAL,
    workers: int = 1,
    name: str | None = None,
) -> dict[str, Any]:
    """The streak tables, the misses count, the explanation and (if ``sessions``) the systems, at the
    table of ``rules`` (called ``name``, default :func:`~experiments.rules.table_name`).

    The coups are dealt in shards (:func:`count_streaks`) on ``backend`` with ``workers`` (a local
    Dask cluster's processes); the report is the same on every backend but for its timing. The
    companion run is played here."""
    if sessions:  # refused before the coups are dealt, not after
        check_companion(sessions, session_coups, len(SYSTEMS))
    odds = first_coup(rules.decks)
    start = time.perf_counter()
    with progress_bar(progress) as bar:
        counts, decided, void = count_streaks(rules, n_coups, max_streak, seed, bar, backend, workers)
    families = FAMILIES if rules.couleur_inverse else FAMILIES[:1]
    exact = {
        "rouge": odds.p_rouge / (odds.p_rouge + odds.p_noir),
        "couleur": odds.p_couleur / (odds.p_couleur + odds.p_inverse),
    }
    per_coup = {"rouge": odds.p_rouge, "couleur": odds.p_couleur}
    tables = []
    for event, other in families:
        table = streak_table(counts[event], max_streak, event, other, exact[event])
        table["exact_per_coup"] = per_coup[event]
        tables.append(table)
    checked = [
        row[key]["contains_exact"]
        for t in tables
        for row in t["rows"][1:]
        for key in (f"after_{t['event']}", f"after_{t['other']}")
        if row[key]["contains_exact"] is not None
    ]
    m = len(checked)
    misses = {
        "intervals": m,
        "missed": m - sum(checked),
        "expected": 0.05 * m,
        "limit_999": binomial_quantile(m, 0.05, 0.999),
    }
    seconds = time.perf_counter() - start
    report: dict[str, Any] = {
        "rules": table_name(rules) if name is None else name,
        "description": rules.describe(),
        "coups": n_coups,
        "decided": decided,
        "void": void,
        "seed": seed,
        "max_streak": max_streak,
        "p_tie": odds.p_refait + odds.p_apres,
        "definition": (
            "frequency = P(event wins | the coup is decided and the streak before it is exactly k long); "
            "après, refait and void coups are not decided: they neither extend nor break a streak; "
            "streaks run on across reshuffles; k = 0 is every decided coup"
        ),
        "tables": tables,
        "misses": misses,
        "seconds": seconds,
    }
    report["systems"] = compare_systems(rules, SYSTEMS, sessions, session_coups, seed) if sessions else None
    report["seconds"] = time.perf_counter() - start
    report["explanation"] = explanation(report)
    return report


def explanation(report: dict[str, Any]) -> str:
    """The teacher's paragraph under the table, in plain words, with this run's numbers."""
    misses = report["misses"]
    k = report["max_streak"]
    first = report["tables"][0]
    streaks = first["rows"][k][f"after_{first['event']}"]["occasions"]
    text = (
        "Whatever happened before, Rouge wins half of the decided coups: after one Rouge, after five "
        "Rouges in a row, after five Noirs. Each row of the table is a different set of coups, yet every "
        "frequency sits near the same exact value, and the plot is a flat line. The cards have no memory: "
        "the next coup does not 'owe' anything to a streak. Streaks themselves are normal: in this run "
        f"Rouge won {k} or more decided coups in a row {streaks:,} times. Ties (après and refait, "
        f"{report['p_tie']:.1%} of coups) decide nothing and are left out; the refait is where the bank's "
        f"edge comes from. Of the {misses['intervals']} intervals, {misses['missed']} miss the exact value; "
        f"at 95% about {misses['expected']:.1f} are expected to miss by chance alone."
    )
    if report.get("systems"):
        text += (
            " In the companion run, following the streak and betting against it bet on the very same coups, "
            "on opposite sides, and a flat bettor plays every coup of the same shoes: all three lose the "
            "same fraction of what they stake, the house edge."
        )
    return text


# -- output --------------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.2%}"


def render_tables(report: dict[str, Any]) -> list[Table]:
    """One rich table per family (fits an 80-column terminal)."""
    views = []
    for t in report["tables"]:
        event, other = t["event"].capitalize(), t["other"].capitalize()
        view = Table(
            title=f"How often {event} wins after k decided coups in a row (exact {t['exact']:.2%})",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            padding=(0, 1),
            caption="occasions: decided coups that came just after exactly k wins in a row of that side;"
            " * (in red): the interval misses the exact value",
            caption_justify="left",
        )
        view.add_column("k", justify="right")
        for side in (event, other):
            view.add_column(f"after\nk {side}", justify="right")
            view.add_column(f"{event}\nwon", justify="right")
            view.add_column("95%\ninterval", justify="right", no_wrap=True)
        for row in t["rows"]:
            cells: list[Any] = [str(row["k"])]
            for key in (f"after_{t['event']}", f"after_{t['other']}"):
                c = row[key]
                miss = c.get("contains_exact") is False
                cells += [
                    f"{c['occasions']:,}",
                    Text(_pct(c["frequency"]) + ("*" if miss else " "), style="bold red" if miss else ""),
                    f"{c['low']:.2%}–{c['high']:.2%}".replace("%–", "–") if c["low"] is not None else "-",
                ]
            view.add_row(*cells)
        views.append(view)
    return views


def system_label(spec: str) -> str:
    """A plain name for a system of the companion run."""
    name = spec.split(":")[0]
    return {"streak": "follow the streak", "anti-streak": "bet against the streak", "flat": "flat"}.get(name, name)


def render_systems(systems: dict[str, Any]) -> Table:
    view = Table(
        title=f"Same shoes, three ways to bet: {systems['sessions']:,} sessions of {systems['coups']} coups",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for col in ("system", "staked per\nsession", "return per\nunit staked", "95% interval", "exact\n−edge"):
        view.add_column(col, justify="left" if col == "system" else "right")
    for s in systems["systems"]:
        staked = s["mean_staked"] > 0  # a system that stakes nothing has no return per unit staked, no edge
        view.add_row(
            f"{system_label(s['spec'])} [dim]({s['spec']})[/dim]",
            f"{s['mean_staked']:.0f}",
            f"{s['return_per_unit']:+.2%}" if staked else "–",
            f"{s['low']:+.2%} … {s['high']:+.2%}" if staked else "–",
            f"{s['minus_edge']:+.2%}" if staked else "–",
        )
    return view


def plot_streaks(report: dict[str, Any], path: Path) -> Path:
    """Frequencies with their 95% intervals against k, one panel per family, beside the exact line."""
    plt = pyplot()
    tables = report["tables"]
    fig, axes = plt.subplots(1, len(tables), figsize=(6.2 * len(tables), 4.2), squeeze=False, sharey=True)
    for ax, t in zip(axes[0], tables):
        for key, label, shift, colour in (
            (f"after_{t['event']}", f"after {t['event'].capitalize()} won k in a row", -0.1, "#c0392b"),
            (f"after_{t['other']}", f"after {t['other'].capitalize()} won k in a row", 0.1, "#2c3e50"),
        ):
            ks, f, lo, hi = [], [], [], []
            for row in t["rows"]:
                c = row[key]
                if c["frequency"] is None:
                    continue
                ks.append(row["k"] + (shift if row["k"] else 0))
                f.append(c["frequency"])
                lo.append(c["frequency"] - c["low"])
                hi.append(c["high"] - c["frequency"])
            ax.errorbar(ks, f, yerr=[lo, hi], fmt="o", capsize=3, color=colour, label=label, markersize=4)
        ax.axhline(t["exact"], color="#27ae60", lw=1.5, ls="--", label=f"exact {t['exact']:.3f}")
        ax.set_xlabel("k: decided coups won in a row just before")
        ax.set_title(f"P({t['event'].capitalize()} wins | decided coup)")
        ax.set_xticks(range(0, report["max_streak"] + 1))
        ax.legend(fontsize=8, loc="lower left")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("observed frequency, 95% interval")
    fig.suptitle(
        f"Streaks carry no information — {report['coups']:,} coups, {report['rules']} rules, seed {report['seed']}",
        fontsize=11,
    )
    fig.tight_layout()
    return _save(fig, path)


def systems_figure(systems: dict[str, Any]) -> Any:
    """Return per unit staked of each system with its 95% interval, beside −edge and 0; the legend
    below the plotting area, where it covers no interval."""
    plt = pyplot()
    rows = systems["systems"]
    fig, ax = plt.subplots(figsize=(7.5, 0.6 * len(rows) + 2.0))
    y = np.arange(len(rows))
    r = np.array([s["return_per_unit"] for s in rows]) * 100
    lo = r - np.array([s["low"] for s in rows]) * 100
    hi = np.array([s["high"] for s in rows]) * 100 - r
    ax.errorbar(r, y, xerr=[lo, hi], fmt="o", capsize=4, color="#2c3e50")
    ax.axvline(rows[0]["minus_edge"] * 100, color="#c0392b", ls="--", label=edge_label(-rows[0]["minus_edge"]))
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y, [f"{system_label(s['spec'])}\n({s['spec']})" for s in rows])
    ax.invert_yaxis()
    ax.set_xlabel("return per unit staked (%), 95% interval")
    ax.set_title(f"Same shoes, {systems['sessions']:,} sessions × {systems['coups']} coups", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.legend(*ax.get_legend_handles_labels(), fontsize=8, loc="lower center", frameon=False)
    return fig


def plot_systems(systems: dict[str, Any], path: Path) -> Path:
    """:func:`systems_figure` saved to ``path``."""
    return _save(systems_figure(systems), path)


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return save_figure(fig, path)


def write_outputs(report: dict[str, Any], out_dir: Path) -> list[Path]:
    """fallacy.json, fallacy.png (and systems.png) in ``out_dir``; each written atomically."""
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = out_dir / "fallacy.json"
    atomic_write_json(doc, report)
    paths = [doc, plot_streaks(report, out_dir / "fallacy.png")]
    if report.get("systems"):
        paths.append(plot_systems(report["systems"], out_dir / "systems.png"))
    return paths


def print_report(report: dict[str, Any], paths: Sequence[Path] = ()) -> None:
    """The streak tables, the companion's systems and the explanation; ``paths``: the files written."""
    out.print(
        f"{report['coups']:,} coups ({report['decided']:,} decided), {report['rules']} rules, seed {report['seed']}. "
        "Après, refait and void coups neither extend nor break a streak.",
        style="dim",
    )
    for view in render_tables(report):
        out.print(view)
    if report["systems"]:
        out.print(render_systems(report["systems"]))
    out.print(report["explanation"])
    print_written(paths, "the plots and the table", report["seconds"])


__all__ = [
    "CHUNK",
    "SYSTEMS",
    "compare_systems",
    "explanation",
    "fallacy_report",
    "plot_streaks",
    "plot_systems",
    "print_report",
    "render_systems",
    "render_tables",
    "streak_table",
    "system_label",
    "systems_figure",
    "write_outputs",
]

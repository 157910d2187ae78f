"""Many coups dealt by the bulk dealer, counted and set beside the exact odds (``trente-lab simulate``)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from rich.progress import Progress
from rich.table import Table

from experiments.console import out, progress_bar
from experiments.errors import load_rules
from trente_env.codes import Result
from trente_env.dealer import deal_coups
from trente_env.odds import first_coup

CHUNK = 2_000_000  # coups dealt between two updates of the progress bar


def count_outcomes(rules, n_coups: int, seed: int, progress: Progress | None = None) -> tuple[dict[str, int], int]:
    """Deal ``n_coups`` coups (the same coups as ``deal_coups(rules, n_coups, seed)``) and count
    each total of each row, refaits, après, wins per box and void coups. Returns (counts, void)."""
    rng = np.random.default_rng(seed)
    counts: dict[str, int] = {}
    task = progress.add_task("dealing", total=n_coups) if progress else None
    dealt = 0
    while dealt < n_coups:
        coups = deal_coups(rules, min(CHUNK, n_coups - dealt), rng, whole_shoes=True)
        taken = min(len(coups), n_coups - dealt)
        for row, totals in (("noir", coups.noir[:taken]), ("rouge", coups.rouge[:taken])):
            for t, c in zip(range(31, 41), np.bincount(totals, minlength=41)[31:41]):
                counts[f"{row} row ends on {t}"] = counts.get(f"{row} row ends on {t}", 0) + int(c)
        result = coups.result[:taken]
        joint = np.bincount(
            2 * result.astype(np.int64) + coups.couleur[:taken], minlength=2 * len(Result)
        )  # (result, couleur)
        events = {
            "refait": joint[2 * Result.REFAIT : 2 * Result.REFAIT + 2].sum(),
            "après": joint[2 * Result.APRES : 2 * Result.APRES + 2].sum(),
            "noir wins": joint[2 * Result.NOIR : 2 * Result.NOIR + 2].sum(),
            "rouge wins": joint[2 * Result.ROUGE : 2 * Result.ROUGE + 2].sum(),
            "couleur wins": joint[2 * Result.NOIR + 1] + joint[2 * Result.ROUGE + 1],
            "inverse wins": joint[2 * Result.NOIR] + joint[2 * Result.ROUGE],
            "void": joint[2 * Result.VOID : 2 * Result.VOID + 2].sum(),
        }
        for name, hits in events.items():
            counts[name] = counts.get(name, 0) + int(hits)
        dealt += taken
        if progress:
            progress.update(task, completed=dealt)
    return counts, counts.pop("void", 0)


def simulation_report(
    preset: str = "classic",
    n_coups: int = 1_000_000,
    seed: int = 0,
    progress: bool = False,
    decks: int | None = None,
    cut_card: int | None = None,
) -> dict:
    """Observed frequencies beside the exact first-coup probabilities, with standard errors.

    The z-score is (observed - exact) / sqrt(exact (1 - exact) / n). Coups later in a shoe are dealt
    from a depleted shoe, so over whole shoes the rates differ very slightly from the first coup's.
    """
    rules = load_rules(preset, decks=decks, cut_card=cut_card)
    odds = first_coup(rules.decks)
    exact: dict[str, float] = {}
    for t in range(31, 41):
        exact[f"noir row ends on {t}"] = float(odds.pair[t - 31].sum())
        exact[f"rouge row ends on {t}"] = float(odds.pair[:, t - 31].sum())
    exact.update(
        {
            "refait": odds.p_refait,
            "après": odds.p_apres,
            "noir wins": odds.p_noir,
            "rouge wins": odds.p_rouge,
            "couleur wins": odds.p_couleur,
            "inverse wins": odds.p_inverse,
        }
    )
    start = time.perf_counter()
    with progress_bar(progress) as bar:
        counts, void = count_outcomes(rules, n_coups, seed, bar)
    seconds = time.perf_counter() - start
    complete = n_coups - void
    rows = {}
    for name, p in exact.items():
        observed = counts[name] / complete if complete else float("nan")
        se = float(np.sqrt(p * (1 - p) / complete)) if complete else float("nan")
        rows[name] = {"observed": observed, "exact": p, "se": se, "z": (observed - p) / se if se else 0.0}
    return {
        "rules": preset,
        "description": rules.describe(),
        "coups": n_coups,
        "void_coups": void,
        "seed": seed,
        "seconds": seconds,
        "coups_per_second": n_coups / seconds,
        "frequencies": rows,
    }


def print_report(report: dict[str, Any]) -> None:
    """The frequencies beside the exact odds, with z-scores, and what to make of the largest."""
    view = Table(
        title=f"{report['coups']:,} coups, {report['rules']} rules, seed {report['seed']} "
        "(exact: first coup of a full shoe)",
        title_justify="left",
    )
    for col in ("event", "observed", "exact", "std. error", "z"):
        view.add_column(col, justify="left" if col == "event" else "right")
    for name, row in report["frequencies"].items():
        style = "bold red" if abs(row["z"]) > 3 else None
        view.add_row(
            name, f"{row['observed']:.6f}", f"{row['exact']:.6f}", f"{row['se']:.6f}", f"{row['z']:+.2f}", style=style
        )
    out.print(view)
    if report["void_coups"]:
        out.print(f"{report['void_coups']:,} void coups (the shoe ran out) are left out of the frequencies.")
    out.print(f"Dealt {report['coups_per_second']:,.0f} coups per second ({report['seconds']:.2f} s).", style="dim")
    _print_summary(report)


def _print_summary(report: dict[str, Any]) -> None:
    worst = max(abs(row["z"]) for row in report["frequencies"].values())
    n = len(report["frequencies"])
    out.print(
        f"Largest |z| over {n} frequencies: {worst:.2f}. Among {n} honest comparisons a |z| above 3 "
        "turns up in about 1 run in 20; coups in one shoe are also slightly dependent.",
        style="dim",
    )


__all__ = ["CHUNK", "count_outcomes", "print_report", "simulation_report"]

"""``trente-lab benchmark``: the witness scored against exact optima, levels x algorithms x seeds
(:mod:`experiments.rl.benchmark`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from experiments.cli.options import JsonOption, RunsBackendOption, RunWorkersOption, path_option
from experiments.console import out, print_json, say
from experiments.limits import MAX_COUPS, MAX_TABLES


def _names(text: str | None, option: str) -> list[str] | None:
    """The names of a comma-separated option; given but naming nothing (an unset shell variable) is
    refused, never taken for the default."""
    if text is None:
        return None
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise typer.BadParameter(f"{text!r} names nothing (an unset shell variable?)", param_hint=option)
    return names


def command(
    full: Annotated[
        bool, typer.Option("--full", help="Every level and both algorithms (default: fair and rig-1, PPO).")
    ] = False,
    levels: Annotated[str | None, typer.Option("--levels", help="Levels, comma-separated (fair, rig-1).")] = None,
    algos: Annotated[str | None, typer.Option("--algos", help="Algorithms, comma-separated (ppo, a2c, dqn).")] = None,
    seeds: Annotated[
        str | None,
        typer.Option(
            "--seeds",
            help="Seeds: A..B (inclusive) or a comma list (default: the reporting seeds 10..19, none of which "
            "ever chose a setting; 0..9 are the tuning seeds).",
        ),
    ] = None,
    timesteps: Annotated[
        int | None,
        typer.Option(
            "--timesteps",
            "-t",
            min=1,
            max=MAX_COUPS,
            help="Coups to train on, per run (default: each level's budget: fair 1,000,000, rig-1 1,000,000, "
            "rig-3 8,000,000, shoe 3,000,000).",
        ),
    ] = None,
    episodes: Annotated[
        int, typer.Option("--episodes", "-n", min=2, max=MAX_TABLES, help="Evaluation sessions per run.")
    ] = 100,
    coups: Annotated[int, typer.Option("--coups", min=1, max=MAX_COUPS, help="Coups per evaluation session.")] = 1000,
    curve_every: Annotated[
        int, typer.Option("--curve-every", min=1, max=MAX_COUPS, help="Timesteps between learning-curve points.")
    ] = 50_000,
    config: Annotated[
        Path | None, path_option("--config", help="Hyper-parameter TOML (default: the shipped configs/rl.toml).")
    ] = None,
    out_dir: Annotated[Path, path_option("--out", "-o", help="Output folder.")] = Path("runs/benchmark"),
    backend: RunsBackendOption = "local",
    workers: RunWorkersOption = 2,
    as_json: JsonOption = False,
) -> None:
    """Train the witness (the shipped configuration, the same on every level) on tables whose exact
    optimum is known, and score it: the share of coups sat out on the fair table (optimum 0), the
    share of the optimum per coup on a rigged one; the interquartile mean over seeds with a 95%
    bootstrap interval. Writes benchmark.json, benchmark.csv and benchmark.png into --out.

    A finished run is kept: run the same command again after Ctrl-C to play only the others.
    """
    from experiments.backends import parse_backend
    from experiments.rl.benchmark import make_benchmark, run_benchmark
    from experiments.rl.sweep import parse_seeds

    where = parse_backend(backend)
    seed_list = None
    if seeds is not None:
        seed_list = parse_seeds(seeds if ".." in seeds else [int(s) for s in _seeds(seeds)], "--seeds")
    bench = make_benchmark(
        full,
        _names(levels, "'--levels'"),
        _names(algos, "'--algos'"),
        seed_list,
        timesteps,
        episodes,
        coups,
        curve_every,
        config,
    )
    from experiments.rl.algorithms import NOT_A_WITNESS

    for algo in bench.algos:
        if algo in NOT_A_WITNESS:
            say(NOT_A_WITNESS[algo])
    document = run_benchmark(bench, out_dir, where, workers, progress=not as_json)
    if as_json:
        print_json(document)
        return
    print_benchmark(document)
    out.print(f"Files in {out_dir}: benchmark.json, benchmark.csv, benchmark.png, runs/<name>/.", style="dim")


def _pct(x: float | None) -> str:
    return "-" if x is None or x != x else f"{x:.1%}"


def _times(x: float | None) -> str:
    # a policy that stakes nothing loses 0 / (a negative flat loss) = -0.0: it reads 0.00x
    return "-" if x is None or x != x else f"{x:.2f}x".replace("-0.00x", "0.00x")


def _steps(n: int) -> str:
    """A step count in a few characters: 128, 20k, 1.0M."""
    return f"{n / 1e6:.1f}M" if n >= 1_000_000 else f"{n / 1e3:.0f}k" if n >= 10_000 else str(n)


def _interval(s: dict) -> str:
    """A summary's 95% interval, or why it has none (in short; the footnote says it in full)."""
    if s["ci_low"] is None:
        return "none, 1 seed" if s["n"] == 1 else "none, all =" if s["n"] else "-"
    return f"{s['ci_low']:.1%}-{s['ci_high']:.1%}"


def print_benchmark(document: dict) -> None:
    """The runs and the summary as two tables that fit 80 columns, and what they mean."""
    from rich.table import Table

    runs = Table(
        "level", "algo", "seed", "score", "ideal", "per unit", "sat out", "vs flat", "steps", "sec",
        title="Runs", title_justify="left", box=None, header_style="bold",
    )  # fmt: skip
    for r in document["runs"]:
        runs.add_row(
            r["level"], r["algo"], str(r["seed"]), _pct(r["score"]), _pct(r.get("ideal_score")),
            _pct(r["share_per_unit"]), _pct(r["sat_out"]), _times(r["loss_vs_flat"]), _steps(r["timesteps"]),
            f"{r['train_seconds']:.0f}",
        )  # fmt: skip
    out.print(runs)
    summary = Table(
        "level", "algo", "IQM", "95% CI", "ideal", "ideal 95% CI", "target", "met",
        title="Summary (IQM over seeds, 95% bootstrap CI)", title_justify="left", box=None, header_style="bold",
    )  # fmt: skip
    notes = []
    for g in document["summary"]:
        s, ideal = g["score"], g["ideal"]
        reached = "-" if g["target"] is None else f"{g['reached']}/{g['seeds']}"
        summary.add_row(
            g["level"], g["algo"], _pct(s["iqm"]), _interval(s), _pct(ideal["iqm"]), _interval(ideal),
            _pct(g["target"]), reached,
        )  # fmt: skip
        if s["note"] and s["note"] == ideal["note"]:
            notes.append(f"{g['level']} {g['algo']} and its ideal: {s['note']}.")
        else:
            named = (("", s), (" ideal", ideal))
            notes += [f"{g['level']} {g['algo']}{who}: {x['note']}." for who, x in named if x["note"]]
    out.print(summary)
    for note in notes:
        out.print(note, style="dim")
    bench, horizon = document["benchmark"], document["gambler_horizon"]
    tuning = sorted(set(bench["seeds"]) & set(document["tuning_seeds"]))
    if tuning:
        out.print(
            f"Tuning seeds among these ({', '.join(map(str, tuning))}): they chose settings, so their scores "
            "are not held out.",
            style="yellow",
        )
    out.print(
        "score: the share of coups sat out on fair (optimum 0), the share of the exact optimum per coup on a rigged "
        f"level ({document['optimum_model']}); ideal: the ideal policy on the same shoes; per unit: the return per "
        "unit staked over the optimum's; vs flat: the loss per coup over a 1-unit flat bettor's. Each seed is "
        f"evaluated on its own shoes ({bench['episodes']:,} sessions x {bench['coups']:,} coups), so the interval "
        f"holds the noise of training and of the shoes. Gambler's horizon: {horizon['coups']:,.0f} coups of 1-unit "
        "bets before a one-sided 5% test "
        "tells the house edge from 0 with 80% power.",
        style="dim",
    )


def _seeds(text: str) -> list[str]:
    from experiments.errors import RLError

    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() for p in parts):
        raise RLError(f"--seeds takes A..B or a comma list of whole numbers, got {text!r}")
    return parts

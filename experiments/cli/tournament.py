"""``trente-lab tournament``: every betting system on the same shoes (:mod:`experiments.tournament`).

The command merges its options with a config file's (the command line wins) and picks the number
of workers; the run itself is :func:`experiments.tournament.runner.run_tournament`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from experiments.cli.options import JsonOption, path_option
from experiments.cli.trust import TrustModelOption
from experiments.console import err, print_json, say
from experiments.errors import TournamentError
from experiments.limits import MAX_MONEY, MAX_SEED, MAX_SESSION_COUPS, MAX_SESSIONS, MAX_WORKERS
from experiments.tournament.defaults import DEFAULT_BANKROLL, DEFAULT_COUPS, DEFAULT_DELTA, DEFAULT_SESSIONS

# -- the command ---------------------------------------------------------------------------------


def command(
    strategies: Annotated[
        str | None,
        typer.Option(
            "--strategies",
            help="Comma-separated strategy specs, or `all` (default: the built-in line-up). "
            "E.g. flat,martingale:base=2,box=rouge. The card counters play only when named "
            "(all,counter,linear-counter; slower: they read the shoe). A plugin (module:Class) runs its code when "
            "loaded: name only files you trust. A model file (.zip) not saved by train needs --trust-model.",
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
            min=1,
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
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            help="Where the tasks are played: local (this machine), dask (a Dask cluster of --workers processes on "
            "this machine), dask://HOST:PORT or dask-scheduler-file:PATH (a running Dask cluster). The files are "
            "the same to the byte on every backend. Dask needs the distributed extra.",
        ),
    ] = "local",
    out_dir: Annotated[
        Path | None,
        path_option("--out", "-o", help="Output folder (default a new folder runs/tournament-<date>-<time>)."),
    ] = None,
    config_file: Annotated[
        Path | None,
        path_option(
            "--config",
            "-c",
            metavar="<path|name>",
            help="TOML experiment file, or the name of a shipped one (see `trente-lab configs`).",
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        path_option(
            "--resume",
            help="Finish the interrupted tournament in this folder. The plugins and model files its manifest names "
            "are loaded, which runs their code: resume only folders you trust.",
        ),
    ] = None,
    no_plots: Annotated[bool, typer.Option("--no-plots", help="Skip the PNG plots.")] = False,
    keep_blocks: Annotated[
        bool,
        typer.Option(
            "--keep-blocks",
            help="Keep the block files (OUT/blocks) once the run is complete, so that a later --resume can check "
            "them again; by default they are removed, the per-session table holds every session.",
        ),
    ] = False,
    wide: Annotated[
        bool,
        typer.Option(
            "--wide",
            help="Show every column of the table (the exact edge, the exact P(ahead) and P(ruin) of a session "
            "beside the simulated ones, final bankroll, coups, stakes, drawdown, losing run, table-maximum hits); "
            "the default fits 80 columns.",
        ),
    ] = False,
    delta: Annotated[
        float | None,
        typer.Option(
            "--delta",
            min=0.01,
            max=50.0,
            help="Equivalence margin of the verdicts, in percent of a unit staked: a system is proven equal to the "
            f"edge when two one-sided tests (Holm-corrected) put its return within this of it (default "
            f"{DEFAULT_DELTA * 100:g}; with --resume, the run's own).",
            show_default=False,
        ),
    ] = None,
    trust_model: TrustModelOption = False,
    as_json: JsonOption = False,
) -> None:
    """Every betting system on the same shoes: return per unit staked against the exact house edge.

    Loading a plugin runs its code (--strategies, --resume): use only files you trust. A model file not
    saved by train is unpickled, which runs its code too: it needs --trust-model.
    """
    from experiments import backends
    from experiments.rules import load_rules
    from experiments.tournament import config, folder, output, runner

    given = {
        "strategies": strategies, "sessions": sessions, "coups": coups, "bankroll": bankroll, "unit": unit,
        "rules": rules, "seed": seed,
    }  # fmt: skip
    try:
        where = backends.parse_backend(backend)
        if resume is not None:
            clash = [k for k, v in {**given, "out": out_dir, "config": config_file}.items() if v is not None]
            if clash:
                raise TournamentError(
                    f"--resume takes its options from {resume}/manifest.json; drop --{', --'.join(clash)}"
                )
            manifest = folder.read_manifest(resume)  # its configuration is validated on resume
            if workers is None:
                workers = runner.default_workers(manifest["config"])
            document = runner.resume_tournament(
                resume, workers=workers, progress=True, plots=not no_plots, backend=where, keep_blocks=keep_blocks,
                delta=None if delta is None else delta / 100,
            )  # fmt: skip
        else:
            options: dict[str, Any] = config.file_options(str(config_file)) if config_file is not None else {}
            file_workers = options.pop("workers", None)
            options.update({k: v for k, v in given.items() if v is not None})
            preset = options.pop("rules", "classic")  # resolved here once; the config records its name
            chosen = config.make_config(**options, rules=load_rules(preset), name=preset)
            if workers is None:
                workers = file_workers if file_workers is not None else runner.default_workers(chosen.as_dict())
            document = runner.run_tournament(
                chosen, out_dir, workers=workers, progress=True, plots=not no_plots, backend=where,
                keep_blocks=keep_blocks, delta=DEFAULT_DELTA if delta is None else delta / 100,
            )  # fmt: skip
    except runner.TournamentInterrupted as exc:
        say(
            f"interrupted: {exc.done} of {exc.total} tasks are saved in {exc.out}; "
            f"finish with `trente-lab tournament --resume {exc.out}`"
        )
        raise typer.Exit(130) from None
    if wide:
        from experiments.tournament.exact import add_exact_risks

        add_exact_risks(document)
    if as_json:
        print_json(document)
        return
    output.print_table(document, wide)
    err.print(f"Files in {document['out']}. {_timing(document)}", style="dim", soft_wrap=True, markup=False)


def _timing(document: dict[str, Any]) -> str:
    """What this run played and how fast (a resumed run counts only what it played), or that a finished
    run had nothing left to play."""
    total, seconds, rate = document["session_coups"], document["seconds"], document.get("session_coups_per_second")
    if not rate:
        return f"Nothing left to play: its {total:,} session-coups were all played before."
    played = round(rate * seconds)
    warm = document.get("workers_warm_up")
    compiled = (
        f" The {warm['workers']} workers had the compiled loop ready in {warm['seconds']:.1f} s (compiled once a "
        "machine, loaded by the others)."
        if warm
        else ""
    )
    if played < total:
        return (
            f"{total:,} session-coups, {played:,} of them played now in {seconds:.1f} s ({rate:,.0f} per second)."
            + compiled
        )
    return f"{total:,} session-coups in {seconds:.1f} s ({rate:,.0f} per second)." + compiled

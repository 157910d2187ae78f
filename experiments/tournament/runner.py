"""Playing a tournament: tasks (a block of sessions of a group of systems), threads or worker
processes, checkpoints as each task ends, the size check before any work, the files at the end, and
the resume of an interrupted run."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import json
import math
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numba
import numpy as np

from experiments.backends import LOCAL, Backend, dask_client, run_on_dask, warm_workers
from experiments.console import progress_bar, say, status
from experiments.errors import TournamentError
from experiments.files import MANIFEST_BYTES, read_json
from experiments.tournament.checkpoints import (
    BLOCK_ARRAYS,
    Checkpoints,
    DamagedBlock,
    RunIdentity,
    run_identity,
    task_path,
)
from experiments.tournament.config import TournamentConfig, trajectory_sessions
from experiments.tournament.defaults import DEFAULT_DELTA
from experiments.tournament.drawing import Drawers
from experiments.tournament.folder import claim_folder, default_out_dir, manifest_config, read_manifest, write_manifest
from experiments.tournament.output import write_outputs
from experiments.tournament.summary import summarize
from experiments.workers import follow_parent, run_in_processes
from strategies.registry import make_strategy
from strategies.results import SessionResults
from strategies.runner import SESSION_FIELDS, play, session_seeds
from strategies.sessions import SETTLE_LIMIT
from trente_env.tables import machine_memory
from trente_env.whole import checked_whole


class TournamentInterrupted(RuntimeError):
    """A run stopped before the end (Ctrl-C, or ``max_tasks``); finished tasks are saved in ``out``."""

    def __init__(self, out: Path, done: int, total: int) -> None:
        super().__init__(f"interrupted: {done} of {total} tasks saved in {out}")
        self.out, self.done, self.total = out, done, total


@functools.lru_cache(maxsize=4)
def _block_seeds(seed: int, start: int, stop: int) -> tuple[int, ...]:
    return tuple(session_seeds(seed, stop - start, start))


def run_task(config: TournamentConfig, b: int, group: tuple[int, ...], threads: int = 1) -> dict[int, SessionResults]:
    """Play block ``b`` of the strategies ``group``: the same result wherever and whenever it runs.

    The session runner (:func:`strategies.runner.play`) plays built-in systems together on the
    compiled session loop (on ``threads`` threads) and any other policy alone on the native vector
    env; both give identical numbers for a built-in.
    """
    rules = config.ruleset()
    policies = [make_strategy(config.specs[s], rules) for s in group]
    if "torch" in sys.modules:  # a trained model: one torch thread (several fight over the cores, 20x slower
        sys.modules["torch"].set_num_threads(1)  # on a busy machine); the run's parallelism is its processes
    start, stop = config.block_range(b)
    seeds = _block_seeds(config.seed, start, stop)
    keep = max(0, min(trajectory_sessions(config), stop) - start)
    results = play(policies, rules, config.bankroll, config.coups, seeds, keep, threads=threads)
    return dict(zip(group, results))


def _task_worker(config: TournamentConfig, identity: RunIdentity, out: str, b: int, group: tuple[int, ...]) -> None:
    Checkpoints(out, config, identity).save(b, run_task(config, b, group))


def _init_worker() -> None:
    """Worker processes: Ctrl-C is the parent's business (they leave if it is gone:
    :func:`~experiments.workers.follow_parent`), and one thread each (the processes are the
    parallelism; numba's own threads on top would fight over the cores)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    follow_parent()
    numba.set_num_threads(1)


# -- sizes ---------------------------------------------------------------------------------------

#: Bytes of a running trente-lab before any session (interpreter, numpy, numba, matplotlib).
BASE_MEMORY = 256 * 2**20


#: The most bytes of block arrays a run keeps in memory as it plays, to sum them up without reading
#: their files back (:meth:`Checkpoints.take`); a larger run reads them back.
IN_MEMORY = 512 * 2**20


def block_bytes(config: TournamentConfig) -> int:
    """Bytes of every block array of a run: one value of each field per session, and the kept
    trajectories."""
    per_session = sum(np.dtype(BLOCK_ARRAYS[k]).itemsize for k in SESSION_FIELDS)
    kept = min(trajectory_sessions(config), config.sessions)
    return len(config.specs) * (config.sessions * per_session + kept * (config.coups + 1) * 4)


def memory_needed(config: TournamentConfig, workers: int = 1) -> int:
    """Bytes a run holds at its peak, roughly: :data:`BASE_MEMORY` and the larger of what its
    threads or workers hold while playing (a block of results of every system each, and a
    session's coups; and the blocks kept in memory, up to :data:`IN_MEMORY`) and what
    :func:`collect` and the output files hold (every session of every system, the trajectories, a
    few arrays of one value per session)."""
    per_session = sum(np.dtype(BLOCK_ARRAYS[k]).itemsize for k in SESSION_FIELDS)
    n, width = len(config.specs), config.coups + 1
    block = min(config.block, config.sessions)
    kept = min(trajectory_sessions(config), config.sessions)
    every_block = block_bytes(config)
    playing = workers * (
        n * (block * 4 * per_session + min(kept, block) * width * 4) + (config.coups + SETTLE_LIMIT) * 16
    ) + (every_block if every_block <= IN_MEMORY else 0)  # the blocks kept as they are played
    together = every_block + config.sessions * 64 + kept * width * 24
    return BASE_MEMORY + max(playing, together)


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


# -- the run -------------------------------------------------------------------------------------


def run_tasks(
    config: TournamentConfig,
    blocks: Checkpoints,
    done: np.ndarray,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    max_tasks: int | None = None,
    saved: Callable[[int], None] | None = None,
    client: Any = None,
) -> int:
    """Play every task not yet ``done`` and save it in ``blocks``; returns how many tasks are done.

    Tasks are made one at a time as workers take them: only the ones being played are held.

    :param done: (blocks, groups) flags from :meth:`Checkpoints.scan`, set as tasks are saved.
    :param progress: called with the session-coups of each task done (the saved ones first).
    :param max_tasks: stop (raising :class:`TournamentInterrupted`) after this many new tasks: an
        interruption, on purpose (tests).
    :param saved: called with the number of tasks done each time one is saved.
    :param client: a Dask client (:func:`~experiments.backends.dask_client`): the tasks are
        played on its workers (``workers`` is then not used), and saved here.
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
        if client is not None:
            tasks = (((b, i), (config, b, groups[i])) for b, i in todo)
            run_on_dask(client, run_task, tasks, lambda task, result: (blocks.save(task[0], result), finish(*task)))
        elif workers <= 1 or limit <= 1 or threads > 1:
            for b, i in todo:
                blocks.save(b, run_task(config, b, groups[i], threads))
                finish(b, i)
        else:
            # one task a process at a time; each saves its own block (_task_worker)
            tasks = (((b, i), (config, blocks.identity, str(blocks.out), b, groups[i])) for b, i in todo)
            run_in_processes(_task_worker, tasks, lambda task, _: finish(*task), min(workers, limit), _init_worker)
    except KeyboardInterrupt:
        raise TournamentInterrupted(blocks.out, count, total) from None
    if count < total:
        raise TournamentInterrupted(blocks.out, count, total)
    return count


def collect(
    config: TournamentConfig, out: Path, identity: RunIdentity | None = None, blocks: Checkpoints | None = None
) -> dict[str, dict[str, np.ndarray]]:
    """The saved tasks put together: per strategy label, every session's results in session order.

    :param identity: the run's (default: :func:`run_identity` of ``config`` with this code); a
        missing block, or one that does not prove to belong to it, is a :class:`TournamentError`.
    :param blocks: the run's checkpoints, when they hold in memory the blocks just played
        (:meth:`Checkpoints.take`); the others are read from their files.
    """
    blocks = blocks or Checkpoints(out, config, identity or run_identity(config))
    kept = min(trajectory_sessions(config), config.sessions)
    results: dict[str, dict[str, np.ndarray]] = {}
    for s, label in enumerate(config.strategies):
        merged = {k: np.empty(config.sessions, dtype=BLOCK_ARRAYS[k]) for k in SESSION_FIELDS}
        trajectories = np.empty((kept, config.coups + 1), dtype=BLOCK_ARRAYS["trajectories"])
        merged["exact_gain"] = np.empty(config.sessions, dtype=BLOCK_ARRAYS["exact_gain"])
        box_stakes, rig_staked, exact_staked = [], [], []
        for b in range(config.n_blocks):
            try:
                part = blocks.take(b, s)
            except DamagedBlock as exc:
                raise TournamentError(f"{exc}: run with --resume {out} to recompute it") from None
            if part is None:
                raise TournamentError(f"{task_path(out, b, s)} is missing: run with --resume {out}")
            start, stop = config.block_range(b)
            for k in (*SESSION_FIELDS, "exact_gain"):
                merged[k][start:stop] = part[k]
            trajectories[start : start + part["trajectories"].shape[0]] = part["trajectories"]
            box_stakes.append(part["box_stakes"])
            rig_staked.append(part["rig_staked"])
            exact_staked.append(part["exact_staked"])
        merged["box_stakes"] = np.sum(box_stakes, axis=0)
        merged["rig_staked"] = np.sum(rig_staked, dtype=np.float64)
        merged["exact_staked"] = np.sum(exact_staked, dtype=np.float64)
        merged["trajectories"] = trajectories
        results[label] = merged
    return results


def check_workers(workers: object) -> int:
    """The number of worker processes: a whole number >= 1, else a :class:`TournamentError`."""
    message = f"workers must be a whole number >= 1, got {workers!r}"
    return checked_whole(workers, message, 1, numpy=False, error=TournamentError)


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """How a run is played and written; no number played depends on them (``delta`` changes only the
    verdicts). See :func:`run_tournament` for each."""

    workers: int = 1
    progress: bool = False
    plots: bool = True
    max_tasks: int | None = None
    backend: Backend = LOCAL
    keep_blocks: bool = False
    delta: float = DEFAULT_DELTA


def run_tournament(
    config: TournamentConfig,
    out: str | Path | None = None,
    *,
    workers: int = 1,
    progress: bool = False,
    plots: bool = True,
    max_tasks: int | None = None,
    resume: bool = False,
    backend: Backend = LOCAL,
    keep_blocks: bool = False,
    delta: float = DEFAULT_DELTA,
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
    :param backend: where the tasks are played (:mod:`experiments.backends`); the files
        are the same to the byte on every backend.
    :param keep_blocks: keep the block files (``OUT/blocks``) once the run is complete; by default
        they are removed, since the per-session table holds every session's results.
    :param delta: the equivalence margin of the verdicts (:func:`experiments.stats.verdicts`); it
        changes no number played, only the verdicts.
    :raises TournamentError: bad input, a run too large for this machine (:func:`check_size`, before
        any work), or an output folder another run holds (:func:`claim_folder`).
    """
    check_workers(workers)
    if isinstance(out, str) and not out.strip():  # Path("") would be the current folder
        raise TournamentError("out is empty: give a folder, or None for a new one")
    check_size(config, workers)
    out = Path(out) if out is not None else default_out_dir()
    with claim_folder(out):
        if not resume and (out / "manifest.json").exists():
            old = read_manifest(out)
            if old["config"] != json.loads(json.dumps(config.as_dict())):
                raise TournamentError(f"{str(out)!r} holds another tournament: choose a new --out, or --resume it")
        options = RunOptions(workers, progress, plots, max_tasks, backend, keep_blocks, delta)
        return _play(config, out, options)


#: Seconds between two updates of the manifest while tasks are being played.
MANIFEST_EVERY = 1.0


#: From this many session-coups on, a run's plots are drawn by two other processes
#: (:class:`~experiments.tournament.drawing.Drawers`, started with the run) while this one writes
#: the files; a shorter run draws them itself (starting the processes would cost more).
DRAW_APART_FROM = 5_000_000


def _play(config: TournamentConfig, out: Path, options: RunOptions) -> dict[str, Any]:
    """:func:`_play_here`, with processes to draw the plots for a run of :data:`DRAW_APART_FROM`
    session-coups or more."""
    apart = options.plots and config.sessions * config.coups * len(config.specs) >= DRAW_APART_FROM
    with Drawers() if apart else contextlib.nullcontext() as drawers:
        return _play_here(config, out, options, drawers)


def _play_here(
    config: TournamentConfig, out: Path, options: RunOptions, drawers: Drawers | None = None
) -> dict[str, Any]:
    """The run, in a folder this process holds: the tasks not yet saved, then every output file,
    then (unless ``keep_blocks``) the block files are removed.

    The manifest always tells the truth: at the start how many tasks are saved (and not complete),
    then at least once a second how many are done, then each output file once it is whole, and
    ``complete`` only when every file is written, with the size of each file and whether the
    blocks are kept. Ctrl-C at any point leaves it so (blocks are removed only after that).
    """
    workers, progress, plots, max_tasks = options.workers, options.progress, options.plots, options.max_tasks
    backend, keep_blocks, delta = options.backend, options.keep_blocks, options.delta
    identity = run_identity(config)
    blocks = Checkpoints(out, config, identity, in_memory=block_bytes(config) <= IN_MEMORY)
    try:
        (out / "blocks").mkdir(exist_ok=True)
    except OSError as exc:
        raise TournamentError(f"cannot create output folder {str(out / 'blocks')!r}: {exc.strerror or exc}") from None
    done = blocks.scan(config.groups())
    total = done.size
    # every task saved before (a finished run resumed): nothing is played, the run's time is its first one's
    nothing_left = bool(done.all())
    earlier = _manifest_seconds(out) if nothing_left else None

    def manifest(count: int, complete: bool = False, files: Sequence[str] = (), **extra: Any) -> None:
        extra = {"backend": backend.spec, "delta": delta, **extra}
        write_manifest(out, config, identity, workers, count, total, complete, files, extra)

    manifest(int(done.sum()))
    last = time.monotonic()

    def saved(count: int) -> None:
        nonlocal last
        if time.monotonic() - last >= MANIFEST_EVERY:
            manifest(count)
            last = time.monotonic()

    work = config.sessions * config.coups * len(config.specs)
    played = work - _saved_work(config, done)  # the session-coups this call plays (the rate counts only them)
    slower = config.card_counters()
    if slower and not done.all():
        say(
            f"{', '.join(slower)} read the cards: they play on the vector env, a Python step a coup, not on the "
            "compiled session loop, and the perfect counter computes the odds of every coup (milliseconds in the "
            "last few dozen cards): expect hundreds of times fewer session-coups per second than a system"
        )
    start = time.perf_counter()
    warmed = None
    with contextlib.ExitStack() as stack, progress_bar(progress) as bar:
        client = None
        if backend.kind == "dask" and not done.all():
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix=".dask-", dir=out))
            client = stack.enter_context(dask_client(backend, workers, Path(scratch)))
            warmed = warm_workers(client)
        task = bar.add_task("tournament (session-coups)", total=work)
        try:
            run_tasks(config, blocks, done, workers, lambda k: bar.advance(task, k), max_tasks, saved, client)
        except TournamentInterrupted as exc:
            manifest(exc.done)
            raise
    seconds = earlier if nothing_left else time.perf_counter() - start
    manifest(total)
    files: list[str] = []
    with status(progress) as doing:
        try:
            files_left = config.n_blocks * len(config.specs) - len(blocks.kept or ())
            doing(f"reading the {files_left:,} block files" if files_left else "putting the blocks together")
            sessions = collect(config, out, identity, blocks)
            doing("summing up: intervals, verdicts, risk")
            document = summarize(config, sessions, delta)
            document["seconds"] = seconds
            if warmed is not None:  # the workers' first use: one compile per machine, the others load it
                document["workers_warm_up"] = warmed
            document["session_coups"] = work
            document["session_coups_per_second"] = played / seconds if not nothing_left and seconds > 0 else None
            document["out"] = str(out)
            write_outputs(out, document, sessions, plots, files, doing, drawers)
        except KeyboardInterrupt:
            manifest(total, files=files)
            raise TournamentInterrupted(out, total, total) from None
        manifest(total, complete=True, files=["manifest.json", *files], seconds=seconds, blocks_kept=keep_blocks)
        if not keep_blocks:
            doing("removing the block files (--keep-blocks keeps them)")
            shutil.rmtree(out / "blocks", ignore_errors=True)
    return document


def _saved_work(config: TournamentConfig, done: np.ndarray) -> int:
    """The session-coups of the tasks ``done`` flags (blocks, groups)."""
    groups = config.groups()
    coups = 0
    for b, i in zip(*np.nonzero(done)):
        lo, hi = config.block_range(int(b))
        coups += (hi - lo) * config.coups * len(groups[int(i)])
    return coups


def _manifest_seconds(out: Path) -> float | None:
    """The ``seconds`` an earlier complete run in ``out`` took, from its manifest (None if it does not say)."""
    try:
        manifest = read_json(out / "manifest.json", "manifest", MANIFEST_BYTES, TournamentError)
    except ValueError:
        return None
    seconds = manifest.get("seconds") if isinstance(manifest, dict) else None
    return float(seconds) if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else None


def resume_tournament(
    folder: str | Path,
    *,
    workers: int = 1,
    progress: bool = False,
    plots: bool = True,
    max_tasks: int | None = None,
    backend: Backend = LOCAL,
    keep_blocks: bool = False,
    delta: float | None = None,
) -> dict[str, Any]:
    """Finish the interrupted tournament in ``folder``: its manifest fixes the configuration
    (:func:`manifest_config`; the plugins and models it names are loaded, which runs their code),
    its blocks that prove to be of this run are kept, every other one is played again.

    A complete run whose blocks were removed has nothing left to check or finish: it is said in
    one line, and its ``results.json`` is returned as it stands (:func:`finished_document`).

    :param delta: the verdicts' equivalence margin; None keeps the run's own (its manifest's). A
        complete run whose blocks were removed cannot be judged again at another margin: refused."""
    if isinstance(folder, str) and not folder.strip():  # Path("") would be the current folder
        raise TournamentError("the folder to resume is empty: give the folder of the run")
    folder = Path(folder)
    if not (folder / "manifest.json").is_file():
        raise TournamentError(f"nothing to resume in {str(folder)!r}: no readable manifest.json")
    check_workers(workers)
    with claim_folder(folder):
        config = manifest_config(folder)
        own = read_manifest(folder).get("delta", DEFAULT_DELTA)
        if isinstance(own, bool) or not isinstance(own, (int, float)) or not 0 < own < 1:
            raise TournamentError(f"{folder}/manifest.json: delta must be a number between 0 and 1, got {own!r}")
        finished = finished_document(folder, config)
        judged = finished["correction"].get("delta", own) if finished is not None else own
        if delta is not None and finished is not None and not math.isclose(delta, judged):
            raise TournamentError(
                f"{folder} is a complete run judged with --delta {judged:.2%} whose block files were removed: its "
                f"verdicts cannot be judged again with --delta {delta:.2%} (run its configuration again, new --out)"
            )
        delta = own if delta is None else delta
        if finished is not None:
            say(
                f"{folder} is a complete run whose block files were removed: nothing to finish or re-check, its "
                "results.json stands (to recompute it, run its configuration again with a new --out)"
            )
            return finished
        check_size(config, workers)
        return _play(config, folder, RunOptions(workers, progress, plots, max_tasks, backend, keep_blocks, delta))


def finished_document(folder: Path, config: TournamentConfig) -> dict[str, Any] | None:
    """The results document of the complete run of ``config`` in ``folder`` whose blocks were
    removed; None when the run is not complete or its blocks are there (a resume then checks them).

    :raises TournamentError: the manifest says complete but results.json is missing, or is not
        this run's (another seed, sessions, coups or line-up).
    """
    manifest = read_manifest(folder)
    if not manifest.get("complete") or (folder / "blocks").exists():
        return None
    path = folder / "results.json"
    try:
        document = read_json(path, "results", MANIFEST_BYTES, TournamentError)
    except ValueError:
        raise TournamentError(
            f"{str(folder)!r} says it is complete but has no readable results.json, and its blocks were removed: "
            "run its configuration again with a new --out"
        ) from None
    mine = {"seed": config.seed, "sessions": config.sessions, "coups": config.coups, "order": set(config.strategies)}
    theirs = {k: document.get(k) for k in ("seed", "sessions", "coups")} | {"order": set(document.get("order", ()))}
    if mine != theirs:
        raise TournamentError(f"{str(path)!r} is not the results of the run its manifest describes")
    seconds = manifest.get("seconds")  # the run's own figures (RUN_KEYS), kept in its manifest
    rate = document.get("session_coups") / seconds if isinstance(seconds, (int, float)) and seconds > 0 else None
    return {**document, "seconds": seconds, "session_coups_per_second": rate, "out": str(folder)}


#: Below this many session-coups a run is too short to pay for starting worker processes.
POOL_FROM = 5_000_000


def default_workers(config: Mapping[str, Any]) -> int:
    """The workers a run of ``config`` (a configuration's values, perhaps a manifest's not yet
    validated) starts when none are asked for: the CPU count, or 1 for a run too short to pay for
    them (below :data:`POOL_FROM` session-coups; a configuration that cannot say counts as short)."""
    try:
        work = int(config["sessions"]) * int(config["coups"]) * len(config["specs"])
    except (KeyError, TypeError, ValueError):
        work = 0
    return (os.cpu_count() or 1) if work >= POOL_FROM else 1


__all__ = [
    "RunOptions",
    "TournamentInterrupted",
    "check_workers",
    "check_size",
    "collect",
    "default_workers",
    "finished_document",
    "memory_needed",
    "resume_tournament",
    "run_task",
    "run_tasks",
    "run_tournament",
]

"""Where long work is done: on this machine, or on a Dask cluster (``--backend`` of ``trente-lab
tournament``, ``sweep``, ``simulate``, ``fallacy`` and ``count``).

``--backend`` takes:

* ``local`` (the default): this machine (threads, or the worker pool :mod:`experiments.workers`, as
  each command does);
* ``dask``: a Dask ``LocalCluster`` of ``--workers`` processes bound to 127.0.0.1, started for the
  run and stopped after it;
* ``dask://HOST:PORT`` (or ``tcp://HOST:PORT``): the scheduler of a running cluster (started with
  ``dask scheduler`` and ``dask worker``);
* ``dask-scheduler-file:PATH``: the scheduler that wrote ``PATH`` (``dask scheduler
  --scheduler-file PATH``).

Whatever the backend, a task's result depends on its arguments only, never on the worker or the
order tasks end: a tournament's task is one block of sessions of one group of systems, seeded from
the root seed and the block's index (:func:`~experiments.tournament.runner.run_task`); a sweep's is
one training run and its evaluation (:func:`~experiments.rl.sweep.play_run`). A worker returns its
results and this process writes them, and puts them together in a fixed order. So the files are the
same on every backend, with any number of workers, after a worker died mid-run (Dask plays its
tasks again elsewhere) and after a resume on another backend. Before any work, every worker must
run the same versions of trente-lab (its source files), numpy, numba and Python as this process.

``trente-lab simulate``, ``fallacy`` and ``count`` cut their work into fixed shards
(:func:`shard_sizes`), each seeded from the root seed and its index only (:func:`shard_generator`),
and put the shards' results together in shard order (:func:`run_shards`), on every backend, local
included.

Dask is imported only here, when a Dask backend is asked for: ``pip install "trente-lab[distributed]"``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import platform
import re
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.errors import TournamentError
from experiments.workers import first_line, keep_finished

#: Seconds to reach a scheduler, and to wait for its first worker, before giving up.
CONNECT_TIMEOUT = 5

_ADDRESS = re.compile(r"(?:dask|tcp)://(?P<host>[A-Za-z0-9.\-]+|\[[0-9A-Fa-f:]+\]):(?P<port>\d{1,5})")


@dataclass(frozen=True)
class Backend:
    """A parsed ``--backend``: ``local``, a local Dask cluster, or a scheduler to join."""

    kind: str  #: "local" or "dask"
    address: str | None = None  #: tcp://HOST:PORT of a running scheduler
    scheduler_file: str | None = None  #: the file a running scheduler wrote

    @property
    def spec(self) -> str:
        """The text that names this backend again (what the manifest records)."""
        if self.address:
            return self.address.replace("tcp://", "dask://", 1)
        if self.scheduler_file:
            return f"dask-scheduler-file:{self.scheduler_file}"
        return self.kind


LOCAL = Backend("local")


def parse_backend(text: str) -> Backend:
    """The backend ``text`` names (see the module's docstring); a :class:`TournamentError` otherwise."""
    text = text.strip()
    if text in ("local", "dask"):
        return Backend(text)
    if text.startswith("dask-scheduler-file:"):
        path = text.removeprefix("dask-scheduler-file:")
        if not path:
            raise TournamentError("--backend dask-scheduler-file:PATH needs the path of a scheduler file")
        if not Path(path).is_file():
            raise TournamentError(f"--backend {text}: no scheduler file {path!r}")
        return Backend("dask", scheduler_file=path)
    match = _ADDRESS.fullmatch(text)
    if match and 0 < int(match["port"]) < 65536:
        return Backend("dask", address=f"tcp://{match['host']}:{match['port']}")
    raise TournamentError(f"unknown --backend {text!r}: use local, dask, dask://HOST:PORT or dask-scheduler-file:PATH")


# -- the cluster ------------------------------------------------------------------------------------


#: The source files a worker must share with this process: all of trente-lab's.
ALL_SOURCES = ("trente_env/**/*.py", "strategies/**/*.py", "experiments/**/*.py")


def worker_versions() -> dict[str, str]:
    """What must be the same on every worker as here for the numbers to be the same: trente-lab's
    source files (all of them), the versions of numpy, numba and Python."""
    from experiments.tournament.checkpoints import code_version, source_digest

    return {**code_version(), "sources": source_digest(ALL_SOURCES), "python": platform.python_version()}


def check_versions(here: dict[str, str], workers: dict[str, dict[str, str]]) -> None:
    """Refuse a cluster whose workers run other code or versions than this process (one line)."""
    for address, theirs in sorted(workers.items()):
        different = [k for k in here if theirs.get(k) != here[k]]
        if different:
            what = ", ".join(f"{k} {theirs.get(k)} (here {here[k]})" for k in different)
            hint = "trente-lab's source files differ" if different == ["sources"] else "versions differ"
            raise TournamentError(f"worker {address} cannot play this run ({hint}): {what}")


@contextlib.contextmanager
def dask_client(backend: Backend, workers: int, scratch: Path) -> Iterator[Any]:
    """A Dask client for ``backend``, its workers checked (:func:`check_versions`); a local cluster
    of ``workers`` processes (one thread each, on 127.0.0.1, spilling into ``scratch``) is
    started for the run and stopped after it."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise TournamentError(f'--backend {backend.spec} needs Dask: pip install "trente-lab[distributed]"') from None
    with contextlib.ExitStack() as stack:
        stack.enter_context(dask.config.set({"temporary-directory": str(scratch)}))
        # a task that fails on a worker is ours to report, and one line says why
        for name in ("distributed", "distributed.worker", "distributed.scheduler", "distributed.nanny"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        if backend.address is None and backend.scheduler_file is None:
            with _workers_ignore_ctrl_c():
                cluster = stack.enter_context(
                    LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=":0",
                        local_directory=str(scratch),
                        silence_logs=logging.CRITICAL,
                    )  # fmt: skip
                )
            client = stack.enter_context(Client(cluster))
        else:
            where = backend.address or f"the scheduler of {backend.scheduler_file}"
            try:
                client = Client(backend.address, scheduler_file=backend.scheduler_file, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                raise TournamentError(f"cannot reach {where}: {first_line(exc)}") from None
            stack.callback(client.close)
            try:
                client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
            except TimeoutError:
                raise TournamentError(f"no worker joined {where} within {CONNECT_TIMEOUT} s") from None
        check_versions(worker_versions(), client.run(worker_versions))
        yield client


def warm_worker() -> float:
    """On a worker: have the compiled session loop ready, one process of the machine at a time.

    The kernels are cached per machine (:data:`trente_env.jit.CACHE_DIR`, shared by every worker
    process of a user); workers that start together would each compile them side by side. Under a
    lock in that folder the first compiles and fills the cache, and the others then load it. Returns
    the seconds this worker spent (waiting included)."""

    from experiments.warm import compiling_lock
    from strategies.registry import make_strategy
    from strategies.sessions import play_compiled
    from trente_env.rules import get_rules

    start = time.perf_counter()
    with compiling_lock():
        rules = get_rules("classic")
        play_compiled([make_strategy("flat", rules)], rules, 10.0, 2, [0])
    return time.perf_counter() - start


def warm_workers(client: Any) -> dict[str, float]:
    """:func:`warm_worker` on every worker of ``client``: ``{"seconds": the slowest, "workers": n}``."""
    seconds = client.run(warm_worker)
    return {"seconds": max(seconds.values(), default=0.0), "workers": len(seconds)}


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Start processes that ignore Ctrl-C: they share the terminal's process group, and stopping
    them is this process's business (it cancels their tasks and keeps the finished ones)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the processes started here
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_on_dask(
    client: Any,
    play: Callable[..., Any],
    tasks: Iterator[tuple[Any, tuple[Any, ...]]],
    done: Callable[[Any, Any], None],
) -> None:
    """Play ``tasks`` ((key, arguments) pairs, taken as workers get free) on the cluster:
    ``play(*arguments)`` on a worker, then ``done(key, result)`` here as each ends, at most two
    tasks queued per worker thread. On Ctrl-C the queued tasks are cancelled and the finished ones
    still handed to ``done``."""
    from distributed import as_completed

    slots = 2 * max(1, sum(client.nthreads().values()))
    running: dict[Any, Any] = {}

    def submit(n: int) -> list[Any]:
        new = []
        for key, arguments in itertools.islice(tasks, n):
            future = client.submit(play, *arguments, pure=False)  # the same arguments twice are two tasks
            running[future] = key
            new.append(future)
        return new

    queue = as_completed(submit(slots))
    try:
        for future in queue:
            done(running.pop(future), future.result())
            for new in submit(1):
                queue.add(new)
    except BaseException:
        finished = [f for f in running if f.done() and f.status == "finished"]
        client.cancel([f for f in running if f not in finished])
        keep_finished(((running[f], f.result()) for f in finished), done)
        raise


# -- shards: long jobs cut into fixed pieces -------------------------------------------------------


def shard_sizes(total: int, size: int) -> list[int]:
    """``total`` units of work (coups, shoes) cut into shards of ``size``, the last one shorter: the
    cut depends on ``total`` and ``size`` only, never on the backend or the number of workers."""
    if total < 0 or size < 1:
        raise ValueError(f"cannot cut {total} into shards of {size}")
    return [min(size, total - start) for start in range(0, total, size)]


def shard_generator(seed: int, index: int) -> Any:
    """The random generator of shard ``index`` of a job seeded ``seed``: from these two numbers only
    (:func:`trente_env.seeding.shard_generator`, imported here when first used: this module loads no
    engine)."""
    from trente_env.seeding import shard_generator as generator

    return generator(seed, index)


def run_shards(
    play: Callable[..., Any],
    shards: Sequence[tuple[Any, ...]],
    reduce: Callable[[int, Any], None],
    backend: Backend = LOCAL,
    workers: int = 1,
) -> None:
    """``play(*shards[i])`` for every shard, and ``reduce(i, result)`` here **in shard order**, so
    what ``reduce`` builds is the same on every backend. ``local`` plays the shards one after
    another in this process; a Dask backend plays them on the cluster (:func:`dask_client`, a local
    one of ``workers`` processes for ``dask``), holding the results that end early until their
    turn. Ctrl-C (KeyboardInterrupt) cancels the shards not finished and is raised again once the
    finished ones are reduced, in order, as far as none is missing."""
    if backend.kind == "local":
        for i, arguments in enumerate(shards):
            reduce(i, play(*arguments))
        return
    waiting: dict[int, Any] = {}
    turn = 0

    def done(i: int, result: Any) -> None:
        nonlocal turn
        waiting[i] = result
        while turn in waiting:
            reduce(turn, waiting.pop(turn))
            turn += 1

    with (
        tempfile.TemporaryDirectory(prefix="trente-lab-dask-") as scratch,
        dask_client(backend, workers, Path(scratch)) as client,
    ):
        run_on_dask(client, play, iter(enumerate(shards)), done)


__all__ = [
    "LOCAL",
    "Backend",
    "check_versions",
    "dask_client",
    "parse_backend",
    "run_on_dask",
    "run_shards",
    "shard_generator",
    "shard_sizes",
    "worker_versions",
]

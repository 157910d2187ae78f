"""Where long work is done: on this machine, or on a Dask cluster (``--backend`` of ``trente-lab
tournament``, ``sweep``, ``simulate``, ``fallacy`` and ``count``).

``--backend`` takes:

* ``local`` (the default): this machine (threads, or the worker pool :class:`Workers`, as each command does);
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
import multiprocessing
import os
import pickle
import platform
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from experiments.errors import TournamentError

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
                raise TournamentError(f"cannot reach {where}: {_first_line(exc)}") from None
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
    import time

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


#: Seconds a worker process whose parent is gone has to stop as Ctrl-C stops it, before it leaves anyway.
ORPHAN_GRACE = 30.0


def follow_parent(grace: float = ORPHAN_GRACE) -> None:
    """Initializer of a local worker process (``trente-lab sweep``, ``benchmark``, ``tournament``):
    once the process that started it is gone (killed, even by SIGKILL, or out of memory), the worker
    gets a Ctrl-C (a training run stops and cleans its scratch folder) and leaves within ``grace``
    seconds whatever it is doing, instead of computing on as an orphan no one will read."""
    parent = multiprocessing.parent_process()  # the one that started it, even if gone already
    parent = _POOL_PARENT or (parent.pid if parent is not None else os.getppid())

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(grace)
        os._exit(1)

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()


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


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.splitlines()[0].split())


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
        _keep_finished(((running[f], f.result()) for f in finished), done)
        raise


#: What a worker process runs (:func:`serve`): a fresh interpreter, not :mod:`multiprocessing`'s spawn,
#: which would run the caller's own script again in each process unless it is guarded by
#: ``if __name__ == "__main__"``.
SERVE = "from experiments.backends import serve; serve()"
#: The folder that holds this process's ``experiments`` package: first on the workers' path.
ROOT = Path(__file__).resolve().parents[1]
#: The worker processes of this process's pools still running (their ids), for a SIGTERM to stop them.
_LIVE: set[int] = set()
#: The environment variable that tells a worker its parent's id (even if gone before the worker started).
_PARENT_VARIABLE = "TRENTE_LAB_POOL_PARENT"
#: In a worker process: the id of the process whose pool it serves (:func:`follow_parent` watches it).
_POOL_PARENT: int | None = None


def worker_pids() -> list[int]:
    """The ids of the worker processes (:class:`Workers`) this process has running."""
    return sorted(_LIVE)


def serve() -> None:
    """A worker process: read from stdin, pickled, the caller's import path and a function with its
    arguments, call it, write to its own copy of stdout the pickled outcome (``(True, result)``, or
    ``(False, exception, its one line)``), and wait for the next; the first function is the
    initializer. Until stdin is closed. What a task prints goes to stderr."""
    global _POOL_PARENT
    _POOL_PARENT = int(os.environ.pop(_PARENT_VARIABLE, "0")) or None  # not passed on to its own children
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    tasks = sys.stdin.buffer
    try:
        while True:
            try:
                folders = pickle.load(tasks)
            except EOFError:
                return
            sys.path.extend(f for f in folders if f not in sys.path)  # after trente-lab's and the libraries' own
            function, arguments = pickle.load(tasks)
            try:
                outcome: tuple[Any, ...] = (True, function(*arguments))
            except BaseException as exc:  # the task's failure, Ctrl-C included, is the caller's to raise
                text = _first_line(exc)
                line = text if text == type(exc).__name__ else f"{type(exc).__name__}: {text}"
                outcome = (False, exc, line)
            try:
                answer = pickle.dumps(outcome)
                if not outcome[0]:
                    pickle.loads(answer)  # an exception that cannot travel back whole
            except Exception:  # a result or an exception that cannot travel: the line says what
                line = outcome[-1] if not outcome[0] else f"the result of {function.__name__} cannot be pickled"
                answer = pickle.dumps((False, RuntimeError(line), line))
            answers.write(answer)
            answers.flush()
    except KeyboardInterrupt:  # Ctrl-C between two tasks: nothing to report
        return


class WorkerDied(RuntimeError):
    """A worker process ended before it answered (killed, out of memory, or it could not start)."""


class Answer(NamedTuple):
    """What a worker process answered: its task's result, or the exception it raised and that
    exception's one line."""

    index: int  #: the process (:meth:`Workers.submit` returned it)
    ok: bool
    value: Any  #: the result, or the exception
    line: str = ""


class Workers:
    """Worker processes for the tasks of a run (``trente-lab tournament``, ``sweep``, ``benchmark``,
    and the drawing of a tournament's plots): fresh interpreters running :func:`serve`, started when
    a task needs one (or at once: :meth:`start`), each running ``initializer`` first, each given one
    task at a time. A context manager: on leaving, their stdin is closed and they are waited for (a
    task in play ends; it is never cut short).

    They find trente-lab where this process found it (:data:`ROOT` first on their ``PYTHONPATH``),
    then the standard library and the installed libraries, and nothing of the working folder (``-P``:
    neither another checkout of trente-lab there nor a stray file named like a standard module ahead
    of the real one), so they run the same code; this process's import path comes after those (a
    plugin, a test module found by name here is found there). Spawned, not forked: numba's and
    torch's threads do not survive a fork.
    """

    def __init__(self, count: int, initializer: Callable[[], None] = follow_parent) -> None:
        self.count, self.initializer = max(1, count), initializer
        self.children: list[subprocess.Popen] = []
        self.busy: set[int] = set()  # given a task not yet answered
        self.gone: set[int] = set()  # ended
        self.ready: set[int] = set()  # ran the initializer
        self.answers: queue.Queue[tuple[int, tuple[Any, ...] | None]] = queue.Queue()
        self._outboxes: list[queue.Queue[bytes | None]] = []

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, count: int | None = None) -> None:
        """Start processes up to ``count`` (default: all of them) now, without a task."""
        while len(self.children) < min(self.count, self.count if count is None else count):
            self._start_one()

    def _start_one(self) -> int:
        # this process's trente-lab first, then what the user's PYTHONPATH holds (nothing else of this
        # process's sys.path: its working folder there would hide standard modules behind its files)
        path = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
        pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE}
        env = {**os.environ, "PYTHONPATH": path, _PARENT_VARIABLE: str(os.getpid())}
        child = subprocess.Popen([sys.executable, "-P", "-c", SERVE], env=env, **pipes)
        index = len(self.children)
        self.children.append(child)
        _LIVE.add(child.pid)
        outbox: queue.Queue[bytes | None] = queue.Queue()
        self._outboxes.append(outbox)
        threading.Thread(target=_write, args=(child, outbox), daemon=True).start()  # it may be busy importing
        threading.Thread(target=_read, args=(child, index, self.answers), daemon=True).start()
        self._send(index, self.initializer, ())
        return index

    def _send(self, index: int, function: Callable[..., Any], arguments: tuple[Any, ...]) -> None:
        folders = [os.path.abspath(f) for f in sys.path]  # where a plugin or a test module is found here
        self._outboxes[index].put(pickle.dumps(folders) + pickle.dumps((function, arguments)))

    def has_room(self) -> bool:
        """Whether a task given now would start at once (a process is idle, or one more may start)."""
        return len(self.busy | self.gone) < len(self.children) or len(self.children) < self.count

    def submit(self, function: Callable[..., Any], arguments: tuple[Any, ...]) -> int:
        """Give ``function(*arguments)`` to an idle process (one more is started if none is); returns
        the process's index, which :meth:`answer` gives back with the outcome."""
        idle = [i for i in range(len(self.children)) if i not in self.busy | self.gone]
        index = idle[0] if idle else self._start_one()
        self.busy.add(index)
        self._send(index, function, arguments)
        return index

    def answer(self) -> Answer:
        """The next answer: a task's, or the failure of a process's initializer or of the process
        itself (a :class:`WorkerDied`)."""
        while True:
            try:
                index, message = self.answers.get(timeout=0.2)  # a timeout: Ctrl-C is seen at once
            except queue.Empty:
                continue
            if message is None:
                code = self.children[index].wait()
                _LIVE.discard(self.children[index].pid)
                self.gone.add(index)
                self.busy.discard(index)
                error = WorkerDied(f"a worker process ended before its task did (exit code {code})")
                return Answer(index, False, error, str(error))
            if index not in self.ready:  # the initializer's answer comes first
                self.ready.add(index)
                if message[0]:
                    continue
            else:
                self.busy.discard(index)
            return Answer(index, *message)

    def close(self) -> None:
        """Close the processes' stdin (each ends after its task) and wait for them."""
        for outbox in self._outboxes:
            outbox.put(None)
        for child in self.children:
            child.wait()
            _LIVE.discard(child.pid)


def _write(child: subprocess.Popen, outbox: queue.Queue[bytes | None]) -> None:
    with contextlib.suppress(OSError):  # a process that died: its reader reports it
        while (data := outbox.get()) is not None:
            child.stdin.write(data)
            child.stdin.flush()
    with contextlib.suppress(OSError):
        child.stdin.close()


def _read(child: subprocess.Popen, index: int, answers: queue.Queue) -> None:
    while True:
        try:
            message = pickle.load(child.stdout)
        except EOFError:  # the end of its output: the process ended
            answers.put((index, None))
            return
        except Exception:  # an answer this process cannot read: the process is no use any more
            child.kill()
            answers.put((index, None))
            return
        answers.put((index, message))


def run_in_processes(
    play: Callable[..., Any],
    tasks: Iterator[tuple[Any, tuple[Any, ...]]],
    done: Callable[[Any, Any], None],
    workers: int,
    initializer: Callable[[], None] = follow_parent,
) -> None:
    """Play ``tasks`` ((key, arguments) pairs, taken as processes get free) on ``workers`` processes
    (:class:`Workers`, one task each at a time), and ``done(key, result)`` here as each ends. On an
    error or Ctrl-C no other task starts, the tasks in play end (Ctrl-C reaches their processes too),
    and each of them that ended with a result is still handed to ``done``."""
    running: dict[int, Any] = {}
    with Workers(workers, initializer) as pool:
        try:
            while True:
                while pool.has_room() and (item := next(tasks, None)) is not None:
                    running[pool.submit(play, item[1])] = item[0]
                if not running:
                    break
                answer = pool.answer()
                if not answer.ok:  # a task's error, or a process that could not start or died
                    running.pop(answer.index, None)
                    raise answer.value
                done(running.pop(answer.index), answer.value)
        except BaseException:
            ended = []
            while running:
                with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: the tasks in play still end
                    answer = pool.answer()
                    if answer.index in running and answer.ok:
                        ended.append((running[answer.index], answer.value))
                    running.pop(answer.index, None)
            _keep_finished(ended, done)
            raise


def _keep_finished(ended: Iterable[tuple[Any, Any]], done: Callable[[Any, Any], None]) -> None:
    """After an error or Ctrl-C, ``done`` for each task that ended with a result. The error on its
    way is the one reported: a task that cannot be kept now (a full disk) is not saved, and played
    again on resume, but its own error does not hide the first."""
    for key, result in ended:
        with contextlib.suppress(Exception):
            done(key, result)


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
    "Workers",
    "run_in_processes",
    "serve",
    "worker_pids",
    "run_on_dask",
    "run_shards",
    "shard_generator",
    "shard_sizes",
    "worker_versions",
]

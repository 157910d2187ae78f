"""THE worker pool of this machine: the processes of ``trente-lab tournament`` (models and plugins),
``sweep``, ``benchmark`` and of the tournament's drawing (:mod:`experiments.tournament.drawing`).

:class:`Workers` starts fresh interpreters running :func:`serve`, each given one task at a time;
:func:`run_in_processes` plays a run's tasks on them, keeping what ended after an error or Ctrl-C.
A worker leaves when its parent is gone (:func:`follow_parent`), and ``trente-lab``'s SIGTERM
reaches it as Ctrl-C does (:func:`worker_pids`). A task's result depends on its arguments only, so
the numbers do not depend on the number of workers. The Dask backends are in :mod:`experiments.backends`.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

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


def first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message, its spaces squeezed (its type's name when it has none)."""
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.splitlines()[0].split())


#: What a worker process runs (:func:`serve`): a fresh interpreter, not :mod:`multiprocessing`'s spawn,
#: which would run the caller's own script again in each process unless it is guarded by
#: ``if __name__ == "__main__"``.
SERVE = "from experiments.workers import serve; serve()"
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
                text = first_line(exc)
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
    """A worker process ended before it answered (killed, out of memory, or it could not start). The
    machine failed, not the input: the command line shows its one line and exits with code 1."""


def ending(code: int) -> str:
    """How a process ended, from its return code: ``exit code 3``, or ``killed by SIGKILL`` (a
    negative code: the signal that ended it; SIGKILL is also what the system's out-of-memory killer sends)."""
    if code >= 0:
        return f"exit code {code}"
    try:
        return f"killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"killed by signal {-code}"


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
                error = WorkerDied(f"a worker process ended before its task did ({ending(code)})")
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
            keep_finished(ended, done)
            raise


def keep_finished(ended: Iterable[tuple[Any, Any]], done: Callable[[Any, Any], None]) -> None:
    """After an error or Ctrl-C, ``done`` for each task that ended with a result. The error on its
    way is the one reported: a task that cannot be kept now (a full disk) is not saved, and played
    again on resume, but its own error does not hide the first."""
    for key, result in ended:
        with contextlib.suppress(Exception):
            done(key, result)


__all__ = [
    "ORPHAN_GRACE",
    "ROOT",
    "SERVE",
    "Answer",
    "WorkerDied",
    "ending",
    "Workers",
    "first_line",
    "follow_parent",
    "keep_finished",
    "run_in_processes",
    "serve",
    "worker_pids",
]

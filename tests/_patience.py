"""A deadline for a call that must not block: the tests of inputs that could hang (a FIFO, a device)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

#: Seconds a refusal may take: it reads and writes nothing, so any longer is a hang.
PATIENCE = 10


class Hung(BaseException):
    """Still running after the alarm (a BaseException: no handler of the code under test turns it
    into a line)."""


@contextlib.contextmanager
def patience(seconds: int = PATIENCE) -> Iterator[None]:
    """Raise :class:`Hung` in the block if it runs for more than ``seconds``."""

    def stop(signum, frame):
        raise Hung(f"still running after {seconds} s")

    before = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)

"""Sizes checked before they are allocated: a run that cannot fit in this machine's memory, or output
that cannot fit on the disk of the file it goes to, is refused in one line before any work (the
tournament's :func:`~experiments.tournament.runner.check_size` does the same for its blocks)."""

from __future__ import annotations

from typing import Any

from experiments.errors import LabError


def size_text(n: float) -> str:
    """A number of bytes for a person: ``95.4 GB``."""
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


def check_memory(need: int, what: str, advice: str, error: type[LabError] = LabError) -> None:
    """Refuse ``what`` (e.g. ``"1,000,000 tables"``) when it needs more than the machine's memory
    (:func:`~experiments.tournament.runner.machine_memory`): one line saying both sizes and ``advice``.

    :param need: bytes it holds at its peak, roughly (an estimate from the array sizes).
    """
    from experiments.tournament.runner import machine_memory

    have = machine_memory()
    if have is not None and need > have:
        raise error(f"{what} need about {size_text(need)} of memory; this machine has {size_text(have)}: {advice}")


def check_room(stream: Any, need: float, what: str, advice: str, error: type[LabError] = LabError) -> None:
    """Refuse ``what`` when ``stream`` (standard output, say) is a regular file on a disk with less
    free space than the ``need`` bytes it would write: one line saying both sizes and ``advice``,
    before a byte is written, rather than a disk filled for every program on the machine. A
    terminal, a pipe or a device is not checked (what reads it decides)."""
    import os
    import stat

    try:
        fd = stream.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        disk = os.fstatvfs(fd)
    except (AttributeError, OSError, ValueError):  # no file behind it (a test's capture), or closed
        return
    free = disk.f_bavail * disk.f_frsize
    if need > free:
        raise error(f"{what} would write about {size_text(need)}; the disk of the file it goes to has "
                    f"{size_text(free)} free: {advice}")  # fmt: skip


__all__ = ["check_memory", "check_room", "size_text"]

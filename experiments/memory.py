"""Sizes checked before they are allocated: a run that cannot fit in this machine's memory is refused
in one line before any work (the tournament's :func:`~experiments.tournament.runner.check_size`
does the same for its blocks)."""

from __future__ import annotations

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


__all__ = ["check_memory", "size_text"]

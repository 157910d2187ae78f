"""The local process pool of ``trente-lab tournament``, ``sweep`` and ``benchmark``
(:func:`experiments.backends.run_in_processes`): what ended is kept, what was queued never starts,
and the first error is the one reported."""

from __future__ import annotations

import time

import pytest

from experiments.backends import run_in_processes


def _play(key: str, seconds: float) -> str:
    """A task (top level: the pool's processes are spawned and import it): wait, then return its key."""
    time.sleep(seconds)
    if key == "broken":
        raise ValueError("the task failed")
    return key


def _nothing() -> None:
    """An initializer that does nothing (no parent to follow in these short runs)."""


@pytest.mark.timeout(120)
def test_every_result_reaches_done_with_its_key() -> None:
    kept: dict[str, str] = {}
    tasks = ((f"task {i}", (f"task {i}", 0.0)) for i in range(7))
    run_in_processes(_play, tasks, kept.__setitem__, workers=2, window=3, initializer=_nothing)
    assert kept == {f"task {i}": f"task {i}" for i in range(7)}


@pytest.mark.timeout(120)
def test_after_an_error_in_done_the_task_in_play_is_kept_and_the_first_error_raised() -> None:
    # "quick" ends at once and its done fails (a full disk); "slow" is in play then (2 s: the order
    # cannot turn, the two tasks being taken in order), ends, and is handed to done, whose own failure
    # must not hide the first; "queued" never starts (the window is 2).
    calls: list[str] = []

    def done(key: str, result: str) -> None:
        calls.append(result)
        raise OSError(f"disk full while saving {key}")

    tasks = iter([("quick", ("quick", 0.0)), ("slow", ("slow", 2.0)), ("queued", ("queued", 0.0))])
    with pytest.raises(OSError, match="saving quick"):
        run_in_processes(_play, tasks, done, workers=2, window=2, initializer=_nothing)
    assert calls == ["quick", "slow"]
    assert next(tasks) == ("queued", ("queued", 0.0))  # never taken from the queue


@pytest.mark.timeout(120)
def test_a_failed_task_is_raised_and_the_others_ended_are_kept() -> None:
    kept: dict[str, str] = {}
    tasks = iter([("broken", ("broken", 0.0)), ("slow", ("slow", 2.0))])
    with pytest.raises(ValueError, match="the task failed"):
        run_in_processes(_play, tasks, kept.__setitem__, workers=2, window=2, initializer=_nothing)
    assert kept == {"slow": "slow"}

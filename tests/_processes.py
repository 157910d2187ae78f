"""Helpers of the tests that run ``trente-lab`` in a process of its own and signal it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> None:
    """Poll ``check`` until it holds; an AssertionError naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def start_cli(args: list[str], cwd: Path, **env: str) -> subprocess.Popen:
    """``trente-lab ARGS`` from this checkout in a new session (its own process group), with ``env``
    added to the environment; its stdout and stderr piped."""
    code = "import sys; from experiments.cli import app; sys.argv[0] = 'trente-lab'; app()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env}, cwd=cwd, start_new_session=True,
    )  # fmt: skip

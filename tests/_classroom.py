"""A classroom server in its own process, as a teacher starts it (``python -m experiments.cli classroom``),
for the tests that need a real port: the browser test and the restart test."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TLS = ROOT / "tests" / "data" / "tls"  #: a certificate and keys made for the tests (README.md there)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Running:
    process: subprocess.Popen
    projector: str  #: the projector's one-time address as printed
    join: str
    token: str  #: the teacher's token, read from the session file (the terminal never shows it)
    code: str
    base: str
    output: str  #: what it printed when it started
    later: list[str]  #: what it printed since (warnings, errors)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start(session: Path, *args: str, timeout: float = 60) -> Running:
    """Start ``trente-lab classroom --session SESSION`` on a free port of 127.0.0.1 and wait until it
    answers; return its addresses as it printed them."""
    port = free_port()
    env = {**os.environ, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "experiments.cli", "classroom", "--session", str(session), "--port", str(port), *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("Ctrl-C"):
            break
    text = "".join(lines)
    projector = re.search(r"projector \(teacher, works once\): (\S+)", text)
    join = re.search(r"join page \(students\): +(\S+)", text)
    if not projector or not join:
        process.kill()
        raise AssertionError(f"the classroom did not start:\n{text}")
    base = projector.group(1).split("/projector")[0]
    later: list[str] = []  # what the server prints afterwards, read so that its pipe never fills up
    threading.Thread(target=lambda: later.extend(iter(process.stdout.readline, "")), daemon=True).start()
    while time.monotonic() < deadline:  # until the server answers
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.1)
    token = json.loads(session.read_text(encoding="utf-8"))["token"]
    return Running(process, projector.group(1), join.group(1), token, join.group(1).split("code=")[1], base, text,
                   later)  # fmt: skip

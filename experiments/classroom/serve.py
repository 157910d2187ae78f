"""Start a classroom: open (or resume) its session file, print the two addresses and a QR code, serve."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from experiments.classroom.state import Classroom, ClassroomError

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def network_address() -> str:
    """This machine's address on its network (the one a phone on the same Wi-Fi reaches), found by
    asking the system which interface would route outwards; no packet is sent. 127.0.0.1 if none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def addresses(host: str, port: int, room: Classroom) -> tuple[str, str]:
    """(the projector's address with the teacher's token, the join page's address with the join code)."""
    shown = host
    if host in ("0.0.0.0", "::", ""):
        shown = network_address()
    if ":" in shown:
        shown = f"[{shown}]"
    base = f"http://{shown}:{port}"
    return f"{base}/projector#t={room.token}", f"{base}/?code={room.join_code}"


def qr_text(url: str) -> str:
    """The QR code of ``url`` as text for a terminal (two rows of modules a line)."""
    import io

    import segno

    buffer = io.StringIO()
    segno.make(url, error="m").terminal(out=buffer, compact=True, border=2)
    return buffer.getvalue()


def open_classroom(session: Path, preset: str, seed: int, new: bool = False) -> tuple[Classroom, bool]:
    """The classroom of ``session``: resumed if the file exists (its own rules and seed), else new.

    :param new: refuse to resume: the file must not exist yet."""
    if session.is_dir():
        raise ClassroomError(f"--session {session}: is a folder; give a file name")
    if new and session.exists():
        raise ClassroomError(f"--session {session}: exists; choose another name or leave out --new to resume it")
    if not session.parent.is_dir():
        raise ClassroomError(f"--session {session}: folder {session.parent} does not exist")
    return Classroom.open(session, preset, seed)


def serve(room: Classroom, host: str, port: int, join_url: str, **uvicorn_options: Any) -> None:
    """Serve ``room`` until Ctrl-C (uvicorn)."""
    import uvicorn

    from experiments.classroom.app import make_app

    # a phone's page may sit idle between coups: keep its connection open longer than uvicorn's 5 s
    # and at most 1,000 connections at once (more get 503): a class of a few hundred pages at most
    options = {"log_level": "warning", "ws_max_size": 4096, "timeout_keep_alive": 75, "limit_concurrency": 1000,
               **uvicorn_options}  # fmt: skip
    uvicorn.run(make_app(room, join_url), host=host, port=port, **options)


__all__ = ["addresses", "network_address", "open_classroom", "qr_text", "serve"]

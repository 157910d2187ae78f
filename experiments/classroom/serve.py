"""Start a classroom: open (or resume) its session file, print the two addresses and a QR code, serve."""

from __future__ import annotations

import errno
import socket
from pathlib import Path
from typing import Any

from experiments.classroom.state import Classroom, ClassroomError
from experiments.files import SESSION_BYTES, read_json
from trente_env.rules import RuleSet

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


def check_listen(host: str, port: int) -> None:
    """Refuse, in one line, an address this machine cannot listen on or a port already taken (a
    :class:`ClassroomError`), before anything is written."""
    if not host.strip():
        raise ClassroomError("--host: give an address (127.0.0.1 for this machine, 0.0.0.0 for the network)")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError, ValueError):
        raise ClassroomError(f"--host {host}: not an address of this machine") from None
    family, kind, proto, _name, where = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(where)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ClassroomError(f"--port {port}: in use on {host} (another classroom?); choose another") from None
            if exc.errno == errno.EACCES:
                raise ClassroomError(f"--port {port}: not allowed for this user; choose one above 1023") from None
            raise ClassroomError(f"--host {host}: cannot listen there ({exc.strerror})") from None


def describe_session(path: Path) -> str | None:
    """A few words on the session in ``path`` (its coups, students and last change), for a question;
    None if it is not a session (opening it then says why)."""
    import datetime

    try:
        data = read_json(path, "classroom session", SESSION_BYTES, ClassroomError)
        when = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        return f"{len(data['coups'])} coups, {len(data['students'])} students, last changed {when}"
    except (OSError, ValueError, KeyError, TypeError):  # ClassroomError is a ValueError
        return None


def addresses(host: str, port: int, room: Classroom, scheme: str = "http") -> tuple[str, str]:
    """(the server's base address, the join page's address with the join code). The projector's
    address is ``base/projector#once=CODE`` with a one-time code (:meth:`Server.new_once`)."""
    shown = host
    if host in ("0.0.0.0", "::", ""):
        shown = network_address()
    if ":" in shown:
        shown = f"[{shown}]"
    base = f"{scheme}://{shown}:{port}"
    return base, f"{base}/?code={room.join_code}"


def qr_text(url: str) -> str:
    """The QR code of ``url`` as text for a terminal (two rows of modules a line)."""
    import io

    import segno

    buffer = io.StringIO()
    segno.make(url, error="m").terminal(out=buffer, compact=True, border=2)
    return buffer.getvalue()


def open_classroom(
    session: Path, rules: RuleSet | None, seed: int | None, new: bool = False, rules_name: str = ""
) -> tuple[Classroom, bool]:
    """The classroom of ``session``: resumed if the file exists (its own table and seed: ``rules``, if
    given, must be that table), else new at the table ``rules`` (seed None: a fresh one from the
    operating system); see :meth:`Classroom.open`.

    :param new: refuse to resume: the file must not exist yet."""
    if session.is_dir():
        raise ClassroomError(f"--session {session}: is a folder; give a file name")
    if new and session.exists():
        raise ClassroomError(f"--session {session}: exists; choose another name or leave out --new to resume it")
    if not session.parent.is_dir():
        raise ClassroomError(f"--session {session}: folder {session.parent} does not exist")
    return Classroom.open(session, rules, seed, rules_name)


def build_app(room: Classroom, host: str, join_url: str, joins_per_minute: int = 10, csv_sep: str = ",") -> Any:
    """The app of ``room``, answering to the join address's host and, listening on every address,
    to this machine's name too (its :class:`~experiments.classroom.app.Server` is ``app.server``)."""
    from experiments.classroom.app import make_app

    hosts = {host.lower()}
    if host in ("0.0.0.0", "::"):
        hosts |= {network_address(), socket.gethostname().lower(), socket.gethostname().lower() + ".local"}
    return make_app(room, join_url, hosts, joins_per_minute, csv_sep)


def serve(app: Any, host: str, port: int, **uvicorn_options: Any) -> None:
    """Serve ``app`` until Ctrl-C (uvicorn)."""
    import uvicorn

    # a phone's page may sit idle between coups: keep its connection open longer than uvicorn's 5 s
    # and at most 1,000 connections at once (more get 503): a class of a few hundred pages at most
    options = {"log_level": "warning", "ws_max_size": 4096, "timeout_keep_alive": 75, "limit_concurrency": 1000,
               **uvicorn_options}  # fmt: skip
    uvicorn.run(app, host=host, port=port, **options)


__all__ = ["addresses", "build_app", "check_listen", "describe_session", "network_address", "open_classroom",
           "qr_text", "serve"]  # fmt: skip

"""Start a classroom: open (or resume) its session file, print the two addresses and a QR code, serve."""

from __future__ import annotations

import contextlib
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


def check_tls(certfile: Path, keyfile: Path) -> None:
    """Load the certificate and its key as the server will, before anything is printed or written:
    a file that is not PEM, the key of another certificate or a key behind a passphrase is one line
    (a :class:`ClassroomError`) naming the file, not OpenSSL's "[SSL] PEM lib" after the addresses
    are out, nor a passphrase prompt in the middle of starting."""
    import ssl

    def no_passphrase() -> str:
        raise ClassroomError(f"--ssl-keyfile {keyfile}: the key is behind a passphrase, which the server cannot "
                             "ask for; give it a key without one (openssl pkey -in KEY -out PLAIN)")  # fmt: skip

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_verify_locations(cafile=certfile)
    except (ssl.SSLError, ValueError):
        raise ClassroomError(f"--ssl-certfile {certfile}: not a certificate in PEM form") from None
    try:
        context.load_cert_chain(certfile, keyfile, password=no_passphrase)
    except ssl.SSLError as exc:
        if exc.reason == "KEY_VALUES_MISMATCH":
            raise ClassroomError(f"--ssl-keyfile {keyfile}: not the key of --ssl-certfile {certfile}") from None
        raise ClassroomError(f"--ssl-keyfile {keyfile}: not a private key in PEM form") from None


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


#: Seconds a connection has to send a whole request, headers and body (its first request, or its next one
#: on a connection kept open): one that sends nothing, or trickles its request a byte at a time
#: (slowloris), is closed then. A phone's request is a few hundred bytes, sent at once.
REQUEST_SECONDS = 10

#: HTTP requests served at once at most (more get 503). Only requests count, never a connection that
#: has not sent one: silent connections cannot fill the room. Websockets are counted by the app (the
#: students' at most 600, the teacher's never refused).
MAX_REQUESTS = 1000

#: Connections one network address may hold at once (a phone opens a few; this machine is not counted,
#: the teacher's own pages come from it): more are closed as soon as they are made.
MAX_PER_ADDRESS = 64

#: Open files the server asks the system for (one a connection), when it allows fewer and more may be had.
OPEN_FILES = 8192


def serve(app: Any, host: str, port: int, **uvicorn_options: Any) -> None:
    """Serve ``app`` until Ctrl-C (uvicorn), hardened against a flood of connections: silent or slow
    ones are closed after :data:`REQUEST_SECONDS`, one address holds at most :data:`MAX_PER_ADDRESS`,
    and only requests count against :data:`MAX_REQUESTS`, so the projector always gets in."""
    import uvicorn

    _more_open_files()
    # a phone's page may sit idle between coups: keep its connection open longer than uvicorn's 5 s
    options = {"log_level": "warning", "ws_max_size": 4096, "timeout_keep_alive": 75, "http": guarded_protocol(),
               **uvicorn_options}  # fmt: skip
    uvicorn.run(RequestLimit(app, MAX_REQUESTS), host=host, port=port, **options)


def guarded_protocol() -> type:
    """uvicorn's h11 HTTP protocol with a time limit on each request (:data:`REQUEST_SECONDS`)
    and a cap on the connections of one address (:data:`MAX_PER_ADDRESS`)."""
    # A subclass of uvicorn's private H11Protocol, because no public way does this job. uvicorn's
    # settings: timeout_keep_alive times only the wait between two requests (a new connection that
    # sends nothing, or its headers a byte at a time, is held for ever), h11_max_incomplete_event_size
    # bounds the headers' size, not their time, and limit_concurrency counts every connection, silent
    # ones too (1,100 silent sockets answered the projector 503); none caps one address. An ASGI
    # middleware sees a request only once its headers have all arrived, and never a connection. What
    # this relies on (the methods overridden: connection_made, data_received, handle_events,
    # connection_lost; the attributes read: loop, client, conn, cycle.response_complete, transport) is
    # checked by name in tests/test_classroom_flood.py, and pyproject bounds uvicorn to the releases
    # it was checked against (that file's tests pass on uvicorn 0.29.0 and 0.55.0).
    from collections import Counter

    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    held: Counter[str] = Counter()  # connections per address, this machine's left out

    class Guarded(H11Protocol):
        _timer: Any = None
        _address: str | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            host = self.client[0] if self.client else None
            if host is not None and not _this_machine(host):
                self._address = host
                held[host] += 1
                if held[host] > MAX_PER_ADDRESS:
                    transport.close()
                    return
            self._start_clock()

        def data_received(self, data: bytes) -> None:
            if self._timer is None and self.cycle is not None and self.cycle.response_complete:
                self._start_clock()  # the next request on a kept-alive connection: its own time
            super().data_received(data)

        def handle_events(self) -> None:
            super().handle_events()
            if self.transport.get_protocol() is not self:  # upgraded to a websocket: the app counts it
                self._stop_clock()
                self._release()
            elif self.conn.their_state in (h11.DONE, h11.MUST_CLOSE):  # the whole request has arrived
                self._stop_clock()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_clock()
            self._release()
            super().connection_lost(exc)

        def _start_clock(self) -> None:
            self._timer = self.loop.call_later(REQUEST_SECONDS, self.transport.close)

        def _stop_clock(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _release(self) -> None:
            if self._address is not None:
                held[self._address] -= 1
                if held[self._address] <= 0:
                    del held[self._address]
                self._address = None

    return Guarded


def _this_machine(host: str) -> bool:
    """Whether the connection comes from this machine (a loopback address)."""
    import ipaddress

    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


class RequestLimit:
    """An ASGI wrapper that answers 503 once ``limit`` HTTP requests are being served at once."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit, self.serving = app, limit, 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if self.serving >= self.limit:
            await send({"type": "http.response.start", "status": 503, "headers": [(b"content-type", b"text/plain")]})
            return await send({"type": "http.response.body", "body": b"Too many requests at once; try again."})
        self.serving += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.serving -= 1


def _more_open_files() -> None:
    """Ask for :data:`OPEN_FILES` open files when the system allows more than its default gives (one
    a connection: 1,024, a common default, is few for a room of phones)."""
    try:
        import resource
    except ImportError:  # Windows
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = OPEN_FILES if hard == resource.RLIM_INFINITY else min(OPEN_FILES, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


__all__ = ["REQUEST_SECONDS", "MAX_PER_ADDRESS", "MAX_REQUESTS", "RequestLimit", "addresses", "build_app",
           "check_listen", "describe_session", "guarded_protocol", "network_address", "open_classroom", "qr_text",
           "serve"]  # fmt: skip

"""The classroom server against a raw connection flood, on a real port: connections that never send a
byte, or send their headers a byte at a time (slowloris), are dropped after a short time and never
count against the room, so the teacher's projector still loads while a student holds more of them
than the server once allowed connections in all."""

from __future__ import annotations

import contextlib
import resource
import socket
import ssl
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("segno")
pytest.importorskip("httpx")

import httpx  # noqa: E402

from tests._classroom import TLS, start  # noqa: E402

#: Silent sockets held open: more than the 1,000 connections uvicorn's ``limit_concurrency`` let the
#: server hold in all (each connection counted, silent or not), so the old server answered 503.
SILENT = 1100

#: Seconds within which a refused or slow answer shows a hang, not slowness (no speed is asserted).
DEADLINE = 30


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2 * SILENT + 200:  # this process holds the silent sockets, the server its ends
        if hard != resource.RLIM_INFINITY and hard < 2 * SILENT + 200:
            pytest.skip(f"open-file limit {hard} is below the {2 * SILENT + 200} this test needs")
        resource.setrlimit(resource.RLIMIT_NOFILE, (2 * SILENT + 200, hard))
    running = start(tmp_path_factory.mktemp("flood") / "class.json")
    yield running
    running.stop()


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def test_the_projector_loads_while_silent_sockets_are_held(room) -> None:
    port = _port(room.base)
    silent = []
    try:
        for _ in range(SILENT):
            silent.append(socket.create_connection(("127.0.0.1", port), timeout=DEADLINE))
        time.sleep(0.5)  # let the server accept every one of them
        response = httpx.get(f"{room.base}/projector", timeout=DEADLINE)
        assert response.status_code == 200, (response.status_code, response.text[:200])
        assert "<html" in response.text
        # and a student's page too: the room is not blinded for anyone
        assert httpx.get(room.join, timeout=DEADLINE).status_code == 200
        held = sum(not _closed_by_server(s, timeout=0) for s in silent)
        assert held == SILENT  # all still held while the pages loaded (their time had not run out)
    finally:
        for s in silent:
            s.close()


def _closed_by_server(s: socket.socket, send: bytes = b"", timeout: float = 1) -> bool:
    """Whether the server closed ``s`` (sending ``send`` first, if anything), waiting ``timeout`` seconds."""
    try:
        if send:
            s.sendall(send)
        s.settimeout(timeout)
        return s.recv(4096) == b""
    except (TimeoutError, BlockingIOError):
        return False
    except OSError:  # reset
        return True


#: How each kind of slow connection starts (sent at once) and what it then trickles, a byte a second.
SLOW = {
    "silent": (b"", b""),
    "slowloris": (b"", b"GET / HTTP/1.1\r\nX-Slow: " + b"a" * 1000),
    "slowloris after a first request": (b"GET /static/classroom.css HTTP/1.1\r\nHost: {host}\r\n\r\n",
                                        b"GET / HTTP/1.1\r\nX-Slow: " + b"a" * 1000),
    "slow body": (b"POST /api/join HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 500\r\n\r\n{", b" " * 1000),
}  # fmt: skip


@pytest.mark.parametrize("kind", SLOW)
def test_a_silent_or_slow_connection_is_closed_after_a_short_time(room, kind: str) -> None:
    """A connection that has not sent a whole request (headers and body) within the server's time is
    closed, however it trickles bytes (one every second, each resetting no timer)."""
    from experiments.classroom.serve import REQUEST_SECONDS

    opening, trickle = SLOW[kind]
    with contextlib.closing(socket.create_connection(("127.0.0.1", _port(room.base)), timeout=DEADLINE)) as s:
        if opening:
            s.sendall(opening.replace(b"{host}", room.base.split("//")[1].encode()))
        if opening.startswith(b"GET"):  # keep-alive: the first request is answered, then the trickling starts
            s.settimeout(DEADLINE)
            assert s.recv(4096).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        closed = False
        while not closed and time.monotonic() - started < DEADLINE:
            closed = _closed_by_server(s, trickle[:1])
            trickle = trickle[1:]
        assert closed, f"the connection was still open after {DEADLINE} s"
        assert time.monotonic() - started > REQUEST_SECONDS - 2  # not closed before its time either


def test_one_address_holds_at_most_its_share_of_connections(tmp_path: Path) -> None:
    """From an address of the network (not this machine), connections past :data:`MAX_PER_ADDRESS` are
    closed as soon as they are made; this machine's projector is not affected."""
    from experiments.classroom.serve import MAX_PER_ADDRESS, network_address

    address = network_address()
    if address.startswith("127."):
        pytest.skip("this machine has no network address to connect from")
    running = start(tmp_path / "class.json", "--host", "0.0.0.0")
    try:
        port = _port(running.base)
        held = [socket.create_connection((address, port), timeout=DEADLINE) for _ in range(MAX_PER_ADDRESS)]
        try:
            time.sleep(0.5)
            assert not any(_closed_by_server(s) for s in held[:3])  # within its share: kept
            with contextlib.closing(socket.create_connection((address, port), timeout=DEADLINE)) as extra:
                extra.settimeout(DEADLINE)
                assert extra.recv(100) == b""  # past it: closed at once, without a word
            response = httpx.get(f"http://127.0.0.1:{port}/projector", timeout=DEADLINE)
            assert response.status_code == 200
        finally:
            for s in held:
                s.close()
        time.sleep(0.5)
        with contextlib.closing(socket.create_connection((address, port), timeout=DEADLINE)) as again:
            again.sendall(f"GET /static/classroom.css HTTP/1.1\r\nHost: {address}:{port}\r\n\r\n".encode())
            again.settimeout(DEADLINE)
            assert again.recv(4096).startswith(b"HTTP/1.1 200")  # the share is given back when they close
    finally:
        running.stop()


def test_only_requests_being_served_count_against_the_limit() -> None:
    """:class:`RequestLimit`: past its limit of requests served at once, a request gets 503; a websocket
    is never refused by it (the app counts those); a place is free again once a request is answered."""
    import asyncio

    from experiments.classroom.serve import RequestLimit

    async def lesson() -> list[int]:
        gate = asyncio.Event()

        async def app(scope, receive, send) -> None:
            if scope["type"] == "http":
                await gate.wait()
                await send({"type": "http.response.start", "status": 200, "headers": []})
                await send({"type": "http.response.body", "body": b"ok"})

        limited = RequestLimit(app, 1)
        statuses: list[int] = []

        async def request(scope_type: str = "http") -> None:
            async def send(message) -> None:
                if message["type"] == "http.response.start":
                    statuses.append(message["status"])

            await limited({"type": scope_type}, None, send)

        first = asyncio.create_task(request())
        await asyncio.sleep(0)  # the first is being served, waiting at the gate
        await request()  # the second: over the limit
        await request("websocket")  # passed to the app, whatever the count
        gate.set()
        await first
        await request()  # the first answered: room again
        return statuses

    assert asyncio.run(lesson()) == [503, 200, 200]


class _Transport:
    """Enough of an asyncio transport for uvicorn's H11Protocol: a peer's address, what is written."""

    def __init__(self, peer: tuple[str, int]) -> None:
        self.peer, self.written, self.closed, self.protocol = peer, b"", False, None

    def get_extra_info(self, name: str, default=None):  # noqa: ANN001, ANN201
        return {"peername": self.peer, "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_protocol(self):  # noqa: ANN201
        return self.protocol

    def set_protocol(self, protocol) -> None:  # noqa: ANN001
        self.protocol = protocol

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


def test_uvicorn_still_has_what_the_guarded_protocol_relies_on() -> None:
    """``serve.guarded_protocol`` subclasses uvicorn's private ``H11Protocol`` (no public setting times a
    request's headers and body, nor caps one address's connections: see its comment) and reads its
    ``loop``, ``client``, ``conn``, ``cycle.response_complete`` and ``transport``, and overrides its
    ``handle_events``. A uvicorn that renames one fails here, by name, not as a flood test's timeout:
    one request, then the next on the same kept-alive connection, through the guarded protocol."""
    import asyncio

    from uvicorn.config import Config
    from uvicorn.protocols.http import h11_impl
    from uvicorn.server import ServerState

    from experiments.classroom.serve import guarded_protocol

    for method in ("connection_made", "data_received", "handle_events", "connection_lost"):
        assert callable(getattr(h11_impl.H11Protocol, method, None)), f"uvicorn's H11Protocol has no {method}()"

    async def app(scope, receive, send) -> None:  # noqa: ANN001
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def lesson() -> None:
        config = Config(app=app, log_level="warning")
        protocol = guarded_protocol()(config, ServerState(), {}, _loop=asyncio.get_running_loop())
        transport = _Transport(("192.0.2.1", 5000))
        transport.protocol = protocol
        protocol.connection_made(transport)
        for name in ("loop", "client", "conn", "cycle", "transport"):
            assert hasattr(protocol, name), f"uvicorn's H11Protocol no longer sets self.{name}"
        assert protocol.client == ("192.0.2.1", 5000) and protocol._timer is not None  # the first request's clock
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert protocol._timer is None  # the whole request arrived (conn.their_state): its clock stopped
        await asyncio.sleep(0.05)  # the app answers
        assert transport.written.startswith(b"HTTP/1.1 200"), transport.written
        assert protocol.cycle.response_complete is True, "uvicorn's request cycle has no response_complete"
        protocol.data_received(b"GET / HTTP/1.1\r\n")  # the next request on the kept-alive connection, half sent
        assert protocol._timer is not None  # its own clock
        protocol.connection_lost(None)
        assert protocol._timer is None and protocol._address is None  # its clock and its address's share freed

    asyncio.run(lesson())


def test_the_classroom_serves_over_https_with_a_certificate_and_its_key(tmp_path: Path) -> None:
    """The pair the command checked is the pair the server serves with: the join page comes over TLS,
    verified against the certificate (a self-signed pair made for the tests, tests/data/tls), and the
    same port refuses plain HTTP."""
    server = start(tmp_path / "s.json", "--ssl-certfile", str(TLS / "cert.pem"), "--ssl-keyfile", str(TLS / "key.pem"))
    try:
        assert server.join.startswith("https://127.0.0.1:"), server.output
        trust = ssl.create_default_context(cafile=TLS / "cert.pem")
        with httpx.Client(verify=trust, timeout=DEADLINE) as client:
            page = client.get(server.join)
        assert page.status_code == 200 and "<html" in page.text.lower(), page.status_code
        with pytest.raises(httpx.HTTPError), httpx.Client(timeout=DEADLINE) as client:
            client.get(server.join.replace("https://", "http://"))
    finally:
        server.stop()

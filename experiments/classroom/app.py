"""The classroom's web server: an ASGI app (Starlette) over one :class:`~experiments.classroom.state.Classroom`.

Pages and assets are files of this package (``static/``), served by the app itself: nothing comes
from the internet, and the pages' Content-Security-Policy allows scripts and styles from the app
only (no inline script can run, whatever a name holds). Every page builds its text with
``textContent``, never as HTML.

* ``GET /`` the join page; ``GET /projector`` the teacher's page. The page is opened once with a
  one-time code in the address's fragment (``#once=...``, which the browser never sends); the page
  trades it for the teacher's token (``POST /api/teacher/login``), keeps the token in its tab's
  storage, sends it in a header, and rewrites the address without the fragment. A used code is dead.
* ``POST /api/join`` ``{"code", "name"}`` or ``{"key"}`` (a reload) -> the student's key and record;
  ``{"code", "name", "rejoin": true}`` (a student who lost their key) -> a request the teacher
  confirms; ``{"request"}`` -> the key once confirmed.
* ``POST /api/predict`` ``{"key", "side", "sure", "coup"}`` (a coup already dealt: refused).
* ``POST /api/system`` ``{"key", "system"}``: a betting system of
  :data:`~experiments.classroom.systems.SYSTEMS`, or null (none).
* ``POST /api/teacher/<action>`` with the header ``X-Teacher-Token``: deal (``{"coup"}``: the same
  coup twice deals once), pause, resume, reset, names (``{"show": bool}``), kick (``{"name"}``), fast
  (``{"coups"}``), lock (``{"locked": bool}``), split (``{"hide": bool}``), lang (``{"lang"}``),
  countdown (``{"seconds"}``), admit / deny (``{"request"}``); ``GET /api/teacher/export.json`` and
  ``export.csv`` (``?table=N`` an earlier table, ``?sep=;``). Without the token: 403.
* ``WS /ws``: the first message is ``{"key": ...}`` or ``{"token": ...}``; the server then sends
  that page's view after every change (changes coalesced, at most :data:`PUSH_EVERY` apart). A page
  sends nothing else: any other message closes its socket.

Every body is at most :data:`MAX_BODY` bytes of JSON; each student key and each address has a token
bucket (:class:`Bucket`), and new names from one address a slower one; a refusal is
``{"error": "<one line>"}`` with status 400, 403, 413 or 429. A request whose ``Host`` is not one of the
server's addresses is refused (400): a page elsewhere cannot reach the classroom through a name of
its own (DNS rebinding). A student key holds at most :data:`SOCKETS_PER_KEY` sockets (a new one closes
the oldest), and students together at most :data:`MAX_SOCKETS`: the teacher's pages are never refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Callable
from importlib.resources import files
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from experiments.classroom.fast import fast_forward, fast_seed
from experiments.classroom.state import FAST_COUPS, Classroom, ClassroomError
from experiments.errors import TooMany

STATIC = files("experiments.classroom") / "static"
MAX_BODY = 1024  #: bytes of a request body or a websocket message
PUSH_EVERY = 0.1  #: seconds: changes within this are sent as one view
MAX_SOCKETS = 600  #: students' open websockets at once (the teacher's are not counted)
SOCKETS_PER_KEY = 2  #: a student's open websockets (a phone and a spare tab)
HELLO_PER_ADDRESS = 200  #: websockets from one address that have not said hello yet (a class behind one router)
HELLO_SECONDS = 5  #: a socket that says nothing this long is closed
JOINS_PER_MINUTE = 10  #: new names from one address a minute (the command's --joins-per-address)
LOCAL_NAMES = ("127.0.0.1", "localhost", "::1")
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class Bucket:
    """A token bucket per client: ``rate`` requests a second on average, bursts of ``burst``."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.levels: dict[str, tuple[float, float]] = {}

    def allow(self, who: str) -> bool:
        now = self.clock()
        level, then = self.levels.get(who, (self.burst, now))
        level = min(self.burst, level + (now - then) * self.rate)
        if len(self.levels) > 10_000:  # forget the quiet ones rather than grow without end
            self.levels.clear()
        if level < 1:
            self.levels[who] = (level, now)
            return False
        self.levels[who] = (level - 1, now)
        return True


class HostCheck:
    """ASGI middleware: a request or websocket whose ``Host`` header names none of ``hosts`` is refused
    (400), so a web page on another name that resolves to this machine cannot talk to the classroom."""

    def __init__(self, app: Any, hosts: set[str]) -> None:
        self.app, self.hosts = app, hosts

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            header = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1").lower()
            name = header[1:].split("]")[0] if header.startswith("[") else header.rsplit(":", 1)[0]
            if name not in self.hosts:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await PlainTextResponse("unknown host", status_code=400)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def refuse(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=SECURITY_HEADERS)


def reply(document: Any) -> JSONResponse:
    return JSONResponse(document, headers=SECURITY_HEADERS)


class Server:
    """The app and what it keeps besides the classroom: the open websockets and the rate buckets."""

    def __init__(self, room: Classroom, joins_per_minute: int = JOINS_PER_MINUTE) -> None:
        self.room = room
        self.sockets: dict[WebSocket, str | None] = {}  # socket -> student key (None: the teacher)
        self.hello: dict[str, int] = {}  # address -> its sockets that have not said hello yet
        self.by_key = Bucket(rate=10, burst=20)  # a student's requests
        self.by_address = Bucket(rate=20, burst=400)  # joins and refusals from one address
        self.new_names = Bucket(rate=joins_per_minute / 60, burst=joins_per_minute)  # new names from one address
        self.changed = asyncio.Event()
        self.fast_task: asyncio.Task | None = None
        self.warm_task: asyncio.Future | None = None
        self.once: set[str] = set()  #: one-time codes that open the projector (each traded once for the token)
        self.on_once_used: Callable[[str], None] | None = None  #: told of the next code when one is used
        self.base_url = ""  #: the address the command printed (the next one-time code is shown with it)
        self.app = Starlette(
            routes=[
                Route("/", self.page("join.html")),
                Route("/projector", self.page("projector.html")),
                Route("/api/join", self.join, methods=["POST"]),
                Route("/api/predict", self.predict, methods=["POST"]),
                Route("/api/system", self.system, methods=["POST"]),
                Route("/api/teacher/login", self.login, methods=["POST"]),
                Route("/api/teacher/export.json", self.export_json),
                Route("/api/teacher/export.csv", self.export_csv),
                Route("/api/teacher/{action}", self.teacher, methods=["POST"]),
                Route("/qr.svg", self.qr),
                WebSocketRoute("/ws", self.socket),
                Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
            ],
            lifespan=self.lifespan,
        )
        self.join_url = ""  # set by the command: what the QR code holds
        self.csv_sep = ","  # the CSV export's separator unless the page asks for another

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette):
        pusher = asyncio.create_task(self.push())
        # the dealer's kernels compiled in a worker thread: the event loop keeps answering meanwhile
        self.warm_task = asyncio.ensure_future(asyncio.to_thread(self.room.warm))
        try:
            yield
        finally:
            pusher.cancel()
            if self.fast_task:
                self.fast_task.cancel()

    def page(self, name: str) -> Callable[[Request], Any]:
        async def serve(_request: Request) -> Response:
            return FileResponse(str(STATIC / name), headers=SECURITY_HEADERS, media_type="text/html")

        return serve

    # -- requests ---------------------------------------------------------------------------------

    async def body(self, request: Request) -> dict[str, Any]:
        """The request's JSON object, at most :data:`MAX_BODY` bytes."""
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            raise ClassroomError("message too long")
        data = b""
        async for chunk in request.stream():
            data += chunk
            if len(data) > MAX_BODY:
                raise ClassroomError("message too long")
        try:
            document = json.loads(data or b"{}")
        except (ValueError, RecursionError):
            raise ClassroomError("the message is not JSON") from None
        if not isinstance(document, dict):
            raise ClassroomError("the message is not a JSON object")
        return document

    def address(self, request: Request | WebSocket) -> str:
        return request.client.host if request.client else "?"

    async def guarded(self, request: Request, handler: Callable[[dict[str, Any]], Any]) -> Response:
        """Read the body and run ``handler``; a refusal is one line with its status."""
        try:
            document = await self.body(request)
        except ClassroomError as exc:
            status = 413 if "too long" in str(exc) else 400
            return refuse(str(exc), status)
        try:
            answer = handler(document)
            if asyncio.iscoroutine(answer):
                answer = await answer
            return reply(answer)
        except TooMany as exc:
            return refuse(str(exc), 429)
        except ClassroomError as exc:
            return refuse(str(exc))

    def slow_down(self, doc: dict[str, Any]) -> Any:
        """A student's request, if their key has not sent too many lately: the key (any value)."""
        key = doc.get("key")
        if not self.by_key.allow(key if isinstance(key, str) else "?"):
            raise TooMany("too many requests: wait a moment")
        return key

    async def join(self, request: Request) -> Response:
        address = self.address(request)
        if not self.by_address.allow(address):
            return refuse("too many requests: wait a moment", 429)

        def handle(doc: dict[str, Any]) -> dict[str, Any]:
            room = self.room
            if "request" in doc:  # a rejoin asked earlier: the key once the teacher confirmed
                key = room.rejoin_status(doc["request"])
                if key is None:
                    return {"waiting": True}
                doc = {"key": key}
            elif doc.get("rejoin") is True:
                if not self.new_names.allow(address):
                    raise TooMany("too many new names from this address: wait a minute")
                request_id = room.ask_rejoin(doc.get("name"), doc.get("code"))
                self.changed.set()
                return {"waiting": True, "request": request_id}
            key = doc.get("key")
            if not (isinstance(key, str) and room.index_of(key) is not None) and not self.new_names.allow(address):
                raise TooMany("too many new names from this address: wait a minute")
            student = room.join(doc.get("name"), doc.get("code"), key)
            self.changed.set()
            return {"key": student.key, "name": student.name, "record": room.record(student)}

        return await self.guarded(request, handle)

    async def predict(self, request: Request) -> Response:
        def handle(doc: dict[str, Any]) -> dict[str, Any]:
            key = self.slow_down(doc)
            coup = self.room.predict(key, doc.get("side"), doc.get("sure", 1), doc.get("coup"))
            self.changed.set()
            return {"ok": True, "coup": coup}

        return await self.guarded(request, handle)

    async def system(self, request: Request) -> Response:
        def handle(doc: dict[str, Any]) -> dict[str, Any]:
            key = self.slow_down(doc)
            self.room.pick_system(key, doc.get("system"))
            self.changed.set()
            return {"ok": True, "system": self.room.books.seat_view(self.room.student(key).index)}

        return await self.guarded(request, handle)

    def is_teacher(self, request: Request) -> bool:
        token = request.headers.get("x-teacher-token", "")
        return secrets.compare_digest(token.encode(), self.room.token.encode())

    def new_once(self) -> str:
        """A new one-time code that opens the projector (the address ``/projector#once=CODE``)."""
        code = secrets.token_urlsafe(12)
        self.once = {code}  # one code at a time: printing a new one voids the last
        return code

    async def login(self, request: Request) -> Response:
        """Trade a one-time code for the teacher's token; the code is dead after, and the next one is
        handed to :attr:`on_once_used` (the command prints it, for another screen)."""
        if not self.by_address.allow(self.address(request)):
            return refuse("too many requests: wait a moment", 429)

        def handle(doc: dict[str, Any]) -> dict[str, Any]:
            code = doc.get("once")
            if not isinstance(code, str) or not any(secrets.compare_digest(code, c) for c in self.once):
                raise ClassroomError("this projector address was used already: take the newest one from the terminal")
            following = self.new_once()
            if self.on_once_used is not None:
                self.on_once_used(following)
            return {"token": self.room.token}

        response = await self.guarded(request, handle)
        if response.status_code == 400:
            response.status_code = 403
        return response

    async def teacher(self, request: Request) -> Response:
        if not self.is_teacher(request):
            self.by_address.allow(self.address(request))  # guesses cost the address its bucket
            return refuse("only the teacher's page can do this", 403)
        action = request.path_params["action"]

        async def handle(doc: dict[str, Any]) -> dict[str, Any]:
            room = self.room
            answer: dict[str, Any] = {"ok": True}
            if action == "deal":
                if self.warm_task is not None and not self.warm_task.done():
                    await asyncio.shield(self.warm_task)  # the kernels compiled in their thread meanwhile
                before = len(room.coups)
                answer["coup"] = room.deal(doc.get("coup"))
                answer["dealt"] = len(room.coups) > before
            elif action in ("pause", "resume"):
                room.set_paused(action == "pause")
            elif action == "names":
                room.set_show_names(doc.get("show") is True)
            elif action == "kick":
                room.kick(doc.get("name"))
            elif action == "reset":
                if self.fast_task and not self.fast_task.done():
                    raise ClassroomError("a fast-forward is running")
                kept = room.reset()
                answer["kept"] = str(kept) if kept else None
            elif action == "fast":
                self.start_fast(doc.get("coups"))
            elif action == "lock":
                room.set_locked(doc.get("locked") is True)
            elif action == "split":
                room.set_hide_split(doc.get("hide") is True)
            elif action == "lang":
                room.set_lang(doc.get("lang"))
            elif action == "countdown":
                room.countdown(doc.get("seconds"))
                if room.closes_at is not None:  # the pages hear when it ends
                    asyncio.get_running_loop().call_later(float(doc["seconds"]) + 0.05, self.bump)
            elif action in ("admit", "deny"):
                (room.admit if action == "admit" else room.deny)(doc.get("request"))
            else:
                raise ClassroomError(f"no action {action[:20]!r}")
            self.changed.set()
            return answer

        return await self.guarded(request, handle)

    def start_fast(self, coups: object) -> None:
        if coups not in FAST_COUPS or isinstance(coups, bool):
            raise ClassroomError(f"fast-forward {' or '.join(f'{n:,}' for n in FAST_COUPS)} coups")
        if self.fast_task and not self.fast_task.done():
            raise ClassroomError("a fast-forward is running")
        room = self.room
        run = (room.fast or {}).get("run", -1) + 1
        seed = fast_seed(room.seed, room.table, run)
        room.set_fast({"coups": coups, "seed": seed, "run": run, "dealt_shards": 0, "shards": 0})
        loop = asyncio.get_running_loop()

        def progress(done: int, total: int) -> None:
            def update() -> None:
                if room.fast and "done" not in room.fast:
                    room.fast = {**room.fast, "dealt_shards": done, "shards": total}
                    room.version += 1
                    self.changed.set()

            loop.call_soon_threadsafe(update)

        async def work() -> None:
            try:
                result = await asyncio.to_thread(fast_forward, room.rules, coups, seed, progress)
                room.set_fast({**result, "run": run})
            except Exception as exc:  # noqa: BLE001 - shown on the projector, the server goes on
                room.set_fast({"coups": coups, "error": str(exc).splitlines()[0][:200], "run": run, "done": False})
            self.changed.set()

        self.fast_task = asyncio.create_task(work())

    def bump(self) -> None:
        self.room.version += 1
        self.room.shared += 1
        self.changed.set()

    def table_asked(self, request: Request) -> int | None:
        table = request.query_params.get("table")
        if table is None:
            return None
        if not table.isdigit() or len(table) > 6:
            raise ClassroomError("table: a table number")
        return int(table)

    async def export_json(self, request: Request) -> Response:
        if not self.is_teacher(request):
            return refuse("only the teacher's page can do this", 403)
        try:
            document = self.room.export_table(self.table_asked(request))
        except ClassroomError as exc:
            return refuse(str(exc))
        name = f"classroom-table-{document['table']}.json"
        headers = {**SECURITY_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'}
        return JSONResponse(document, headers=headers)

    async def export_csv(self, request: Request) -> Response:
        if not self.is_teacher(request):
            return refuse("only the teacher's page can do this", 403)
        try:
            table = self.table_asked(request)
            text = self.room.export_csv(request.query_params.get("sep", self.csv_sep), table)
        except ClassroomError as exc:
            return refuse(str(exc))
        name = f"classroom-table-{self.room.table if table is None else table}.csv"
        headers = {**SECURITY_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'}
        return Response(text.encode("utf-8"), headers=headers, media_type="text/csv; charset=utf-8")

    async def qr(self, _request: Request) -> Response:
        import io

        import segno

        buffer = io.BytesIO()
        segno.make(self.join_url or "/", error="m").save(buffer, kind="svg", scale=6, border=2, xmldecl=False)
        return Response(buffer.getvalue(), media_type="image/svg+xml", headers=SECURITY_HEADERS)

    # -- live views ---------------------------------------------------------------------------------

    def view(self, key: str | None, public: str) -> str:
        """The JSON text a page is sent: the public view, the student's record or the teacher's extras."""
        room = self.room
        if key is None:
            extra = {"role": "teacher", "join_code": room.join_code, "join_url": self.join_url,
                     "names": [s.name for s in room.students if not s.kicked], "rejoins": room.pending_rejoins(),
                     "tables": [t.get("table") for t in room.tables], "csv_sep": self.csv_sep}  # fmt: skip
        else:
            try:
                extra = {"role": "student", "me": room.record(room.student(key))}
            except ClassroomError as exc:
                extra = {"role": "student", "error": str(exc)}
        return '{"public":' + public + ',"extra":' + json.dumps(extra, ensure_ascii=False) + "}"

    async def push(self) -> None:
        """Send the pages their views after each change (changes within :data:`PUSH_EVERY` coalesced): the
        projector after every change; a student after a change every student sees (a deal, a pause, ...)
        or a change of their own (their prediction), not after every other student's prediction."""
        sent, shared = -1, -1
        while True:
            await self.changed.wait()
            self.changed.clear()
            room = self.room
            if room.version == sent:
                continue
            sent = room.version
            everyone, shared = room.shared != shared, room.shared
            touched = room.take_touched()
            public = json.dumps(room.public(), ensure_ascii=False)
            student_public = json.dumps(room.student_public(), ensure_ascii=False)
            for socket, key in list(self.sockets.items()):
                if key is not None and not everyone and room.index_of(key) not in touched:
                    continue
                with contextlib.suppress(Exception):
                    await socket.send_text(self.view(key, public if key is None else student_public))
            await asyncio.sleep(PUSH_EVERY)

    async def socket(self, websocket: WebSocket) -> None:
        """A page's live view. Its hello says who it is; a student's socket is refused when the
        students' sockets are :data:`MAX_SOCKETS` (the teacher's never are), and a student key's
        :data:`SOCKETS_PER_KEY` + 1-th socket closes its oldest."""
        address = self.address(websocket)
        if self.hello.get(address, 0) >= HELLO_PER_ADDRESS:
            await websocket.close(code=1013)
            return
        self.hello[address] = self.hello.get(address, 0) + 1
        await websocket.accept()
        try:
            message = await asyncio.wait_for(websocket.receive(), timeout=HELLO_SECONDS)
            first = message.get("text")
            hello = json.loads(first) if isinstance(first, str) and len(first) <= MAX_BODY else None
            if not isinstance(hello, dict):
                raise ValueError
            if isinstance(hello.get("token"), str) and secrets.compare_digest(
                hello["token"].encode(), self.room.token.encode()
            ):
                key = None
            else:
                key = hello.get("key")
                self.room.student(key)
        except (ValueError, RecursionError, TimeoutError, ClassroomError, WebSocketDisconnect, UnicodeError):
            with contextlib.suppress(Exception):
                await websocket.close(code=1008)
            return
        finally:
            self.hello[address] -= 1
            if not self.hello[address]:
                del self.hello[address]
        if key is not None:
            mine = [s for s, k in self.sockets.items() if k == key]
            if len(mine) >= SOCKETS_PER_KEY:  # the oldest goes: a phone that reconnects is never locked out
                for old in mine[: len(mine) - SOCKETS_PER_KEY + 1]:
                    self.sockets.pop(old, None)
                    with contextlib.suppress(Exception):
                        await old.close(code=1008)
            if sum(k is not None for k in self.sockets.values()) >= MAX_SOCKETS:
                with contextlib.suppress(Exception):
                    await websocket.close(code=1013)
                return
        self.sockets[websocket] = key
        try:
            first = self.room.public() if key is None else self.room.student_public()
            await websocket.send_text(self.view(key, json.dumps(first, ensure_ascii=False)))
            await websocket.receive()  # the pages send nothing after their hello: anything closes the socket
        except WebSocketDisconnect:
            pass
        finally:
            self.sockets.pop(websocket, None)
            with contextlib.suppress(Exception):
                await websocket.close()


def make_app(
    room: Classroom, join_url: str = "", hosts: Any = None, joins_per_minute: int = JOINS_PER_MINUTE, csv_sep: str = ","
) -> Any:
    """The ASGI app of ``room`` (``join_url``: the address the QR code and the projector show), answering
    only requests whose ``Host`` is the join address's, this machine's own names, or one of ``hosts``.
    Its :class:`Server` is ``app.server``."""
    from urllib.parse import urlsplit

    server = Server(room, joins_per_minute)
    server.join_url = join_url
    server.csv_sep = csv_sep
    server.app.state.server = server
    allowed = {*LOCAL_NAMES, *(hosts or ())}
    if join_url and urlsplit(join_url).hostname:
        allowed.add(urlsplit(join_url).hostname.lower())
    app = HostCheck(server.app, allowed)
    app.server = server  # type: ignore[attr-defined]
    return app


__all__ = ["MAX_BODY", "Bucket", "Server", "make_app"]

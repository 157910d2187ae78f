"""The classroom held to a network's standard and a hostile student, without a browser: the seed nobody
knows in advance, hostile input, the room the teacher controls, every tap on its own coup, the phone's
feedback and the exports (Starlette's test client; the browser's side is in test_classroom_lesson.py)."""

from __future__ import annotations

import json
import stat
import threading
import time
from pathlib import Path

import pytest

starlette_testclient = pytest.importorskip("starlette.testclient", reason="needs the classroom extra (starlette)")
WebSocketDisconnect = pytest.importorskip("starlette.websockets").WebSocketDisconnect

from experiments.classroom import app as app_module  # noqa: E402  (the web app needs the classroom extra)
from experiments.classroom import roster as roster_module  # noqa: E402
from experiments.classroom.state import Classroom, ClassroomError  # noqa: E402
from tests._classroom import TLS  # noqa: E402
from trente_env.rules import get_rules  # noqa: E402

CLASSIC = get_rules("classic")


def results(room: Classroom, n: int) -> str:
    return "".join(room.deal()["result"][0] for _ in range(n))


@pytest.fixture
def client():
    from experiments.classroom.app import make_app

    room = Classroom(CLASSIC, seed=3)
    app = make_app(room, "http://x/?code=" + room.join_code, hosts={"testserver"})
    with starlette_testclient.TestClient(app, base_url="http://x") as c:
        c.room, c.server = room, app.server
        yield c


def join(client, name: str) -> str:
    response = client.post("/api/join", json={"name": name, "code": client.room.join_code})
    assert response.status_code == 200, response.text
    return response.json()["key"]


def teacher(client, action: str, body: dict | None = None):
    return client.post(f"/api/teacher/{action}", json=body or {}, headers={"X-Teacher-Token": client.room.token})


# -- 1. unpredictable by default ----------------------------------------------------------------------


def test_two_default_sessions_deal_different_shoes_and_a_seed_replays() -> None:
    first, second = Classroom(CLASSIC), Classroom(CLASSIC)
    assert first.seed != second.seed  # 63 bits from the OS: equal once in 2**63
    # 40 coups of two independent shoes coincide with a probability far below 1e-6
    assert results(first, 40) != results(second, 40)
    replay = Classroom(CLASSIC, seed=first.seed)
    assert results(replay, 40) == "".join(c["result"][0] for c in first.coups)


def test_the_seed_is_shown_only_after_the_lesson_and_as_a_string(client) -> None:
    assert "seed" not in client.room.public()
    exported = client.get("/api/teacher/export.json", headers={"X-Teacher-Token": client.room.token}).json()
    assert exported["seed"] == "3"
    client.room.fast = {"coups": 10_000, "seed": 5228546342681945855, "done": True, "rows": []}
    assert client.room.public()["fast"]["seed"] == "5228546342681945855"  # beyond 2**53: a string, never rounded


# -- 2. a robust server -------------------------------------------------------------------------------


def test_nested_json_and_binary_frames_are_refused_cleanly(client) -> None:
    for path in ("/api/join", "/api/predict", "/api/teacher/deal"):
        response = client.post(path, content=b"[" * 1000, headers={"X-Teacher-Token": client.room.token})
        assert response.status_code == 400 and response.json() == {"error": "the message is not JSON"}
    for hello in (b"\x00\x01binary", "[" * 1000):
        with client.websocket_connect("/ws") as ws:
            ws.send_bytes(hello) if isinstance(hello, bytes) else ws.send_text(hello)
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == 1008
    key = join(client, "Ann")
    with client.websocket_connect("/ws") as ws:  # a binary frame after the hello closes the socket
        ws.send_text(json.dumps({"key": key}))
        ws.receive_text()
        ws.send_bytes(b"\x00")
        with pytest.raises(WebSocketDisconnect):
            ws.receive_text()
    assert not client.server.sockets


def test_a_foreign_host_header_is_refused(client) -> None:
    assert client.get("/qr.svg", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/qr.svg", headers={"Host": "evil.example:80"}).status_code == 400
    assert client.get("/qr.svg", headers={"Host": "x:8000"}).status_code == 200
    assert client.get("/qr.svg", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert client.get("/qr.svg", headers={"Host": "[::1]:8000"}).status_code == 200
    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws", headers={"Host": "evil.example"}) as ws:
        ws.receive_text()


def test_every_file_the_server_writes_is_private(tmp_path: Path) -> None:
    room, _ = Classroom.open(tmp_path / "s.json", CLASSIC, seed=1)
    a = room.join("Ann", room.join_code)
    room.predict(a.key, "noir")
    room.deal()
    room.predict(a.key, "rouge")  # journaled
    kept = room.reset()
    assert kept is not None
    for path in (tmp_path / "s.json", tmp_path / "s.json.journal", kept):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_the_first_deal_waits_in_a_thread_and_the_server_answers_meanwhile(monkeypatch) -> None:
    from experiments.classroom.app import make_app

    compiled = threading.Event()
    room = Classroom(CLASSIC, seed=1)
    monkeypatch.setattr(room, "warm", lambda: compiled.wait(30))  # a compile that takes as long as we say
    app = make_app(room, "http://x/", hosts={"testserver"})
    with starlette_testclient.TestClient(app, base_url="http://x") as client:
        assert client.get("/").status_code == 200  # the event loop answers while the kernels compile
        assert client.post("/api/join", json={"name": "Ann", "code": room.join_code}).status_code == 200
        threading.Timer(0.3, compiled.set).start()
        response = client.post("/api/teacher/deal", json={"coup": 1}, headers={"X-Teacher-Token": room.token})
        assert response.status_code == 200 and compiled.is_set()  # the deal waited for the compile, off the loop


def test_last_weeks_session_is_never_resumed_silently(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from experiments.cli import app

    session = tmp_path / "classroom-session.json"
    Classroom.open(session, CLASSIC, seed=1)
    result = CliRunner().invoke(app, ["classroom", "--session", str(session), "--port", "1"])
    assert result.exit_code == 2, result.output
    assert "--resume" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(app, ["classroom", "--session", str(session), "--host", ""])
    assert result.exit_code == 2 and "--host" in result.output and len(result.output.strip().splitlines()) == 1


# -- 3. a room the teacher controls -------------------------------------------------------------------


def test_removing_a_student_frees_the_place_and_a_lock_closes_the_room(monkeypatch) -> None:
    monkeypatch.setattr(roster_module, "MAX_STUDENTS", 3)
    room = Classroom(CLASSIC, seed=1)
    for i in range(3):
        room.join(f"bot{i}", room.join_code)
    with pytest.raises(ClassroomError, match="full"):
        room.join("Real", room.join_code)
    room.kick("bot1")
    assert room.join("Real", room.join_code).name == "Real"
    room.kick("bot2")
    room.set_locked(True)
    with pytest.raises(ClassroomError, match="locked"):
        room.join("Other", room.join_code)
    assert room.join(None, None, room.students[0].key).name == "bot0"  # a reload still gets in


def test_new_names_from_one_address_are_limited(client) -> None:
    codes = [
        client.post("/api/join", json={"name": f"bot{i}", "code": client.room.join_code}).status_code for i in range(30)
    ]
    assert codes[: app_module.JOINS_PER_MINUTE] == [200] * app_module.JOINS_PER_MINUTE
    assert set(codes[app_module.JOINS_PER_MINUTE :]) == {429}
    assert client.room.present == app_module.JOINS_PER_MINUTE


def test_a_student_key_holds_two_sockets_and_the_projector_is_never_refused(client, monkeypatch) -> None:
    monkeypatch.setattr(app_module, "MAX_SOCKETS", 2)
    ann, bob = join(client, "Ann"), join(client, "Bob")
    with (
        client.websocket_connect("/ws") as s1,
        client.websocket_connect("/ws") as s2,
        client.websocket_connect("/ws") as s3,
    ):
        for s in (s1, s2, s3):
            s.send_text(json.dumps({"key": ann}))
        s3.receive_text()
        with pytest.raises(WebSocketDisconnect):  # the oldest of Ann's three is closed
            s1.receive_text()
            s1.receive_text()
        assert list(client.server.sockets.values()).count(ann) == 2
        with client.websocket_connect("/ws") as s4:  # the students' sockets are full: Bob waits
            s4.send_text(json.dumps({"key": bob}))
            with pytest.raises(WebSocketDisconnect) as closed:
                s4.receive_text()
            assert closed.value.code == 1013
        with client.websocket_connect("/ws") as projector:  # the teacher's page always gets in
            projector.send_text(json.dumps({"token": client.room.token}))
            assert json.loads(projector.receive_text())["extra"]["role"] == "teacher"


def test_a_student_who_lost_their_key_gets_their_name_back_when_the_teacher_confirms(client) -> None:
    old = join(client, "Sam")
    assert client.post("/api/predict", json={"key": old, "side": "noir", "coup": 1}).status_code == 200
    teacher(client, "deal", {"coup": 1})
    code = client.room.join_code
    taken = client.post("/api/join", json={"name": "sam", "code": code})
    assert taken.status_code == 400 and taken.json()["error"].startswith("that name is taken")
    asked = client.post("/api/join", json={"name": "Sam", "code": code, "rejoin": True}).json()
    assert asked["waiting"] and client.post("/api/join", json={"request": asked["request"]}).json() == {"waiting": True}
    (pending,) = client.room.pending_rejoins()
    assert pending == {"request": asked["request"], "name": "Sam"}
    assert teacher(client, "admit", {"request": asked["request"]}).status_code == 200
    back = client.post("/api/join", json={"request": asked["request"]}).json()
    assert back["name"] == "Sam" and back["key"] != old and back["record"]["predicted"] == 1  # the record goes on
    assert client.post("/api/predict", json={"key": old, "side": "noir"}).status_code == 400  # the old key is dead
    assert client.post("/api/join", json={"request": asked["request"]}).status_code == 400  # the key is handed once


def test_a_rejoin_survives_a_restart(tmp_path: Path) -> None:
    room, _ = Classroom.open(tmp_path / "s.json", CLASSIC, seed=1)
    old = room.join("Sam", room.join_code).key
    request = room.ask_rejoin("Sam", room.join_code)
    room.admit(request)
    again = Classroom.load(tmp_path / "s.json")  # the new key was journaled
    assert again.student(room.rejoin_status(request)).name == "Sam"
    with pytest.raises(ClassroomError, match="unknown student"):
        again.student(old)


@pytest.mark.parametrize("name", ["\u0410lice", "\u0405am", "Al\u0456ce"])  # Cyrillic A, S, i among Latin letters
def test_look_alike_names_are_refused(name: str) -> None:
    pytest.importorskip("confusable_homoglyphs", reason="needs the classroom extra (confusable-homoglyphs)")
    room = Classroom(CLASSIC, seed=1)
    room.join("Alice", room.join_code)
    room.join("Sam", room.join_code)
    with pytest.raises(ClassroomError, match="alphabets|looks like"):
        room.join(name, room.join_code)
    room.join("Zoé", room.join_code)  # accents are letters of one alphabet
    room.join("مريم", room.join_code)


# -- 5. every tap on its own coup ---------------------------------------------------------------------


def test_a_late_prediction_is_refused_and_a_double_deal_deals_once(client) -> None:
    key = join(client, "Ann")
    assert client.post("/api/predict", json={"key": key, "side": "noir", "sure": 1, "coup": 1}).json()["coup"] == 1
    first = teacher(client, "deal", {"coup": 1}).json()
    again = teacher(client, "deal", {"coup": 1}).json()  # a double-click
    assert first["dealt"] and not again["dealt"] and again["coup"] == first["coup"] and len(client.room.coups) == 1
    late = client.post("/api/predict", json={"key": key, "side": "rouge", "sure": 1, "coup": 1})
    assert late.status_code == 400 and late.json() == {"error": "too late: coup 1 was dealt"}
    assert client.room.open_round == {}  # not slid onto coup 2
    assert client.post("/api/predict", json={"key": key, "side": "rouge", "coup": 3}).status_code == 400
    assert teacher(client, "deal", {"coup": 5}).status_code == 400
    assert len(client.room.coups) == 1


def test_a_countdown_closes_the_predictions(client) -> None:
    key = join(client, "Ann")
    assert teacher(client, "countdown", {"seconds": 30}).status_code == 200
    assert 0 < client.room.public()["closes_in"] <= 30
    assert client.post("/api/predict", json={"key": key, "side": "noir", "coup": 1}).status_code == 200
    client.room.closes_at = time.time() - 0.01  # the countdown ran out
    refused = client.post("/api/predict", json={"key": key, "side": "rouge", "coup": 1})
    assert refused.json() == {"error": "time is up: predictions for coup 1 are closed"}
    teacher(client, "deal", {"coup": 1})
    assert client.room.predictions[-1] == {0: ("noir", 1)} and client.room.closes_at is None
    assert teacher(client, "countdown", {"seconds": 1000}).status_code == 400


# -- 6. feedback on the phone, the split hidden -------------------------------------------------------


def test_the_phone_hears_right_wrong_or_tie_and_the_split_waits_for_the_deal() -> None:
    room = Classroom(CLASSIC, seed=11)
    a, b, c = (room.join(n, room.join_code) for n in ("A", "B", "C"))
    for n in range(1, 30):
        room.predict(a.key, "noir", coup=n)
        room.predict(b.key, "rouge", coup=n)
        view = room.public()
        assert view["round"] == {"predicted": 2}  # hidden by default: no Noir/Rouge while they choose
        result = room.deal(n)["result"]
        verdicts = {s.name: room.record(s)["last"]["verdict"] for s in (a, b, c)}
        expected = {"noir": ("right", "wrong"), "rouge": ("wrong", "right")}.get(result, ("tie", "tie"))
        assert (verdicts["A"], verdicts["B"], verdicts["C"]) == (*expected, None)
        assert room.public()["last_split"] == {"noir": 1, "rouge": 1}
    room.set_hide_split(False)
    room.predict(a.key, "noir")
    assert room.public()["round"] == {"predicted": 1, "noir": 1, "rouge": 0}


# -- 8. exports -----------------------------------------------------------------------------------------


def test_exports_keep_two_sams_apart_with_a_roster_times_and_every_table(client) -> None:
    first = join(client, "Sam")
    client.post("/api/predict", json={"key": first, "side": "noir", "coup": 1})
    teacher(client, "deal", {"coup": 1})
    teacher(client, "kick", {"name": "Sam"})
    second = join(client, "Sam")
    client.post("/api/predict", json={"key": second, "side": "rouge", "coup": 2})
    teacher(client, "deal", {"coup": 2})
    headers = {"X-Teacher-Token": client.room.token}
    doc = client.get("/api/teacher/export.json", headers=headers).json()
    assert [(r["id"], r["name"], r["removed"]) for r in doc["roster"]] == [(1, "Sam", True), (2, "Sam", False)]
    assert all(r["joined"] for r in doc["roster"]) and doc["roster"][0]["removed_at"]
    assert [[p["id"] for p in made] for made in doc["predictions"]] == [[1], [2]]
    assert all(c["at"] for c in doc["coups"]) and all(p["at"] for made in doc["predictions"] for p in made)
    teacher(client, "reset")
    before = client.get("/api/teacher/export.json?table=0", headers=headers).json()
    assert before["table"] == 0 and len(before["coups"]) == 2 and before["roster"] == doc["roster"]
    assert client.get("/api/teacher/export.json", headers=headers).json()["earlier_tables"] == [0]
    csv = client.get("/api/teacher/export.csv?table=0&sep=;", headers=headers)
    text = csv.content.decode("utf-8")
    assert text.startswith("\ufeff") and "charset=utf-8" in csv.headers["content-type"]
    lines = text[1:].splitlines()
    assert lines[0].split(";")[:4] == ["table", "coup", "dealt_at", "result"] and len(lines) == 3
    assert [line.split(";")[6] for line in lines[1:]] == ["1", "2"]  # the student id column
    assert client.get("/api/teacher/export.csv?sep=|", headers=headers).status_code == 400
    assert client.get("/api/teacher/export.json?table=9", headers=headers).status_code == 400


def test_the_report_reads_the_same_ids(tmp_path: Path) -> None:
    from experiments.teaching.report import classroom_section

    room = Classroom(CLASSIC, seed=5)
    sam = room.join("Sam", room.join_code)
    for n in range(1, 13):
        room.predict(sam.key, "noir", coup=n)
        room.deal(n)
    room.kick("Sam")
    sam2 = room.join("Sam", room.join_code)
    for n in range(13, 25):
        room.predict(sam2.key, "rouge", coup=n)
        room.deal(n)
    path = tmp_path / "classroom.json"
    path.write_text(json.dumps(room.export()), encoding="utf-8")
    assert "2 students" in classroom_section(path)


@pytest.mark.parametrize("host", ["", "  ", "no-such-host.invalid", "256.1.1.1"])
def test_a_host_the_machine_cannot_listen_on_is_one_line(tmp_path: Path, host: str) -> None:
    from typer.testing import CliRunner

    from experiments.cli import app

    result = CliRunner().invoke(app, ["classroom", "--session", str(tmp_path / "s.json"), "--host", host])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("trente-lab") and "--host" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "s.json").exists()


def test_a_busy_port_is_one_line(tmp_path: Path) -> None:
    import socket

    from typer.testing import CliRunner

    from experiments.cli import app

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["classroom", "--session", str(tmp_path / "s.json"), "--port", str(port)])
    assert result.exit_code == 2, result.output
    assert f"--port {port}: in use" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "s.json").exists()


def test_the_network_hears_it_is_not_encrypted_and_the_terminal_never_shows_the_token(
    tmp_path: Path, monkeypatch
) -> None:
    from typer.testing import CliRunner

    from experiments.classroom import serve
    from experiments.cli import app
    from tests._classroom import free_port

    served: list[dict] = []
    monkeypatch.setattr(serve, "serve", lambda app, host, port, **options: served.append(options))
    session = tmp_path / "s.json"
    result = CliRunner().invoke(app, ["classroom", "--session", str(session), "--host", "0.0.0.0", "--port",
                                      str(free_port())])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "NOT encrypted" in " ".join(result.output.split()) and "--ssl-certfile" in result.output
    assert json.loads(session.read_text())["token"] not in result.output
    assert "projector#once=" in result.output and served == [{}]
    key, cert = TLS / "key.pem", TLS / "cert.pem"  # a self-signed pair made for the tests
    args = ["classroom", "--session", str(tmp_path / "t.json"), "--port", str(free_port())]
    result = CliRunner().invoke(app, [*args, "--ssl-keyfile", str(key)])
    assert result.exit_code == 2 and "go together" in result.output
    result = CliRunner().invoke(
        app, [*args, "--host", "0.0.0.0", "--ssl-keyfile", str(key), "--ssl-certfile", str(cert)]
    )
    assert result.exit_code == 0, result.output
    assert "NOT encrypted" not in result.output and "https://" in result.output
    assert served[-1] == {"ssl_keyfile": str(key), "ssl_certfile": str(cert)}  # passed through to uvicorn


@pytest.mark.parametrize(
    ("cert", "key", "said"),
    [
        ("junk", "key.pem", "--ssl-certfile {cert}: not a certificate in PEM form"),
        ("key.pem", "key.pem", "--ssl-certfile {cert}: not a certificate in PEM form"),
        ("cert.pem", "junk", "--ssl-keyfile {key}: not a private key in PEM form"),
        ("cert.pem", "other-key.pem", "--ssl-keyfile {key}: not the key of --ssl-certfile {cert}"),
        ("cert.pem", "passphrase-key.pem", "--ssl-keyfile {key}: the key is behind a passphrase"),
    ],
)
def test_a_certificate_or_key_the_server_cannot_use_is_one_line_before_anything_is_written(
    tmp_path: Path, monkeypatch, cert: str, key: str, said: str
) -> None:
    """Checked as the server loads them, before the addresses are printed or the session written: not
    OpenSSL's "[SSL] PEM lib" once the banner is out, nor a passphrase prompt while starting."""
    from typer.testing import CliRunner

    from experiments.classroom import serve
    from experiments.cli import app
    from tests._classroom import free_port

    monkeypatch.setattr(serve, "serve", lambda *args, **options: pytest.fail("served with a bad certificate"))
    (tmp_path / "junk").write_text("not PEM at all\n")
    paths = {name: (tmp_path / name if name == "junk" else TLS / name) for name in (cert, key)}
    session = tmp_path / "s.json"
    tls = ["--ssl-certfile", str(paths[cert]), "--ssl-keyfile", str(paths[key])]
    result = CliRunner().invoke(app, ["classroom", "--session", str(session), "--port", str(free_port()), *tls])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and said.format(cert=paths[cert], key=paths[key]) in " ".join(result.output.split())
    assert not session.exists()

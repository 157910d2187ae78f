"""The classroom without a browser: its state (joins, predictions, deals, the tables, the session file)
and its web app through Starlette's test client (the teacher's token, bounds, rates, headers)."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from experiments.classroom.roster import MAX_NAME
from experiments.classroom.state import Classroom, ClassroomError
from experiments.streaks import after_run, expected_share, pooled_table, streaks_before
from trente_env.rules import get_rules

CLASSIC = get_rules("classic")


def room_with(students: int = 3, path: Path | None = None, seed: int = 1) -> tuple[Classroom, list]:
    room = Classroom(CLASSIC, seed=seed, path=path)
    return room, [room.join(f"s{i}", room.join_code) for i in range(students)]


# -- joining and predicting ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, message",
    [("", "type a name"), ("   ", "type a name"), ("x" * (MAX_NAME + 1), "at most"), ("a\x00b", "cannot be shown"),
     ("a\u202eb", "cannot be shown"), (42, "must be text"), (None, "must be text")],
)  # fmt: skip
def test_a_bad_name_is_refused_in_one_line(name: object, message: str) -> None:
    room = Classroom(CLASSIC)
    with pytest.raises(ClassroomError, match=message):
        room.join(name, room.join_code)


def test_joining_needs_the_code_and_a_free_name() -> None:
    room = Classroom(CLASSIC)
    with pytest.raises(ClassroomError, match="wrong join code"):
        room.join("Ann", "NOPE00")
    with pytest.raises(ClassroomError, match="wrong join code"):
        room.join("Ann", None)
    ann = room.join("Ann", room.join_code.lower())
    with pytest.raises(ClassroomError, match="taken"):
        room.join(" ANN ", room.join_code)
    assert room.join(None, None, key=ann.key) is ann  # a reload: the key alone rejoins


def test_a_name_that_holds_html_is_kept_as_typed() -> None:
    room = Classroom(CLASSIC)
    name = "<script>alert(1)</script>"[:MAX_NAME]
    assert room.join(name, room.join_code).name == name


@pytest.mark.parametrize("side, sure", [("black", 1), ("NOIR", 1), (None, 1), ("noir", 0), ("noir", 4), ("noir", True),
                                        ("noir", "2"), ("noir", 1.5)])  # fmt: skip
def test_a_bad_prediction_is_refused(side: object, sure: object) -> None:
    room, (s, *_) = room_with(1)
    with pytest.raises(ClassroomError):
        room.predict(s.key, side, sure)
    assert room.open_round == {}


def test_predictions_belong_to_the_next_coup_and_may_change_until_the_deal() -> None:
    room, (a, b, c) = room_with(3)
    room.predict(a.key, "noir", 1)
    room.predict(a.key, "rouge", 3)
    room.predict(b.key, "noir", 2)
    coup = room.deal()
    assert room.predictions == [{0: ("rouge", 3), 1: ("noir", 2)}]
    assert room.open_round == {}
    record = room.record(a)
    assert record["predicted"] == 1
    if coup["result"] in ("noir", "rouge"):
        assert record["right"] == (coup["result"] == "rouge")
    else:
        assert record["decided"] == 0  # a tie is neither right nor wrong


def test_a_kicked_student_can_no_longer_predict_and_the_name_is_free() -> None:
    room, (a, b, _) = room_with(3)
    room.predict(a.key, "noir")
    room.kick("S0")
    assert 0 not in room.open_round
    with pytest.raises(ClassroomError, match="removed"):
        room.predict(a.key, "noir")
    with pytest.raises(ClassroomError, match="removed"):
        room.join(None, None, key=a.key)
    assert room.join("s0", room.join_code).index == 3
    with pytest.raises(ClassroomError, match="no student"):
        room.kick("nobody")


def test_the_coups_are_the_dealers_own() -> None:
    """The classroom deals from trente_env's Shoe, seeded (seed, table): the same coups as that shoe."""
    import numpy as np

    from experiments.game.deal import coup_record
    from trente_env.dealer import Shoe

    room, _ = room_with(0, seed=11)
    dealt = [room.deal() for _ in range(40)]
    shoe = Shoe(room.rules, np.random.default_rng([11, 0]))
    assert dealt == [coup_record(shoe.deal()) for _ in range(40)]
    room.reset()
    assert room.deal() != dealt[0] or room.deal() != dealt[1]  # table 2: another shoe


def test_pause_stops_deals_and_predictions() -> None:
    room, (a, *_) = room_with(1)
    room.set_paused(True)
    with pytest.raises(ClassroomError, match="paused"):
        room.deal()
    with pytest.raises(ClassroomError, match="paused"):
        room.predict(a.key, "noir")
    room.set_paused(False)
    room.deal()


# -- the tables -------------------------------------------------------------------------------------


def test_streaks_skip_ties_and_count_exact_runs() -> None:
    results = ["noir", "noir", "apres", "noir", "rouge", "refait", "rouge", "void", "noir"]
    assert streaks_before(results) == [(None, 0), ("noir", 1), ("noir", 2), ("noir", 2), ("noir", 3), ("rouge", 1),
                                       ("rouge", 1), ("rouge", 2), ("rouge", 2)]  # fmt: skip


def test_pooled_table_by_hand() -> None:
    results = ["noir", "noir", "noir", "rouge", "apres", "rouge"]
    predictions = [{}, {0: ("rouge", 1)}, {0: ("rouge", 1), 1: ("noir", 1)}, {0: ("noir", 2)}, {}, {1: ("rouge", 1)}]
    rows = {(r["side"], r["k"]): r for r in pooled_table(results, predictions)}
    assert rows["noir", 1] == {"side": "noir", "k": 1, "occasions": 1, "same": 1, "other": 0, "predicted_same": 0,
                               "predicted_other": 1}  # fmt: skip
    assert rows["noir", 2]["occasions"] == 1 and rows["noir", 2]["predicted_other"] == 1
    assert rows["noir", 3] == {"side": "noir", "k": 3, "occasions": 1, "same": 0, "other": 1, "predicted_same": 1,
                               "predicted_other": 0}  # fmt: skip
    assert rows["rouge", 1]["occasions"] == 1 and rows["rouge", 1]["same"] == 1
    assert sum(r["occasions"] for r in rows.values()) == 4  # every decided coup after the first


@pytest.mark.parametrize("n, k", [(4, 1), (6, 1), (8, 2), (10, 3), (3, 3), (12, 2)])
def test_expected_share_against_every_sequence(n: int, k: int) -> None:
    """Miller and Sanjurjo's expectation, computed by the dynamic programme, against the average over
    all 2**n sequences of a fair coin (17/42 for n = 4, k = 1, their paper's example)."""
    shares = []
    for seq in itertools.product([False, True], repeat=n):
        occasions, right = after_run(list(seq), k)
        if occasions:
            shares.append(right / occasions)
    expected = expected_share(n, k)
    if not shares:
        assert expected is None
    else:
        assert expected == pytest.approx(sum(shares) / len(shares), abs=1e-12)
        assert expected < 0.5
    if (n, k) == (4, 1):
        assert expected == pytest.approx(17 / 42)


def test_streak_trap_on_a_fair_class_sits_below_one_half() -> None:
    """100 simulated students each predicting 20 decided coups at random: the average of their own
    shares after 2 right in a row is expected at expected_share(20, 2) ~ 0.40; its standard error over
    100 students is at most 0.5/sqrt(100) = 0.05 a student's share being within [0, 1], so 4 standard
    errors (0.2) bound it; the pooled share is a frequency over ~500 occasions (se <= 0.023): within 0.1."""
    room, students = room_with(100, seed=3)
    rng = random.Random(3)
    while sum(c["result"] in ("noir", "rouge") for c in room.coups) < 20:
        for s in students:
            room.predict(s.key, rng.choice(["noir", "rouge"]))
        room.deal()
    row = room.streak_trap()[1]
    assert row["k"] == 2
    assert row["expected_average"] == pytest.approx(expected_share(20, 2))
    assert row["expected_average"] < 0.45
    assert abs(row["average"] - row["expected_average"]) < 0.2
    assert abs(row["pooled"] - 0.5) < 0.1


# -- the session file -------------------------------------------------------------------------------


def test_the_session_survives_a_restart_with_its_journal(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    room, _ = Classroom.open(path, CLASSIC, 5)
    a = room.join("Ann", room.join_code)
    b = room.join("Bob", room.join_code)
    room.predict(a.key, "noir", 2)
    room.deal()
    room.predict(a.key, "rouge", 1)  # journalled only
    c = room.join("Cy", room.join_code)
    room.predict(c.key, "noir", 3)
    room.kick("Bob")
    again, resumed = Classroom.open(path, None, 99)  # a resumed session keeps its own rules and seed
    assert resumed and (again.rules, again.rules_name, again.seed) == (CLASSIC, "classic", 5)
    assert again.coups == room.coups and again.predictions == room.predictions
    assert again.open_round == {0: ("rouge", 1), 2: ("noir", 3)}
    assert [s.name for s in again.students] == ["Ann", "Bob", "Cy"] and again.students[1].kicked
    assert again.token == room.token and again.join_code == room.join_code
    assert again.deal() == room.deal()  # the shoe goes on where it was
    with pytest.raises(ClassroomError):
        again.predict(b.key, "noir")
    assert path.stat().st_mode & 0o077 == 0  # the token is the owner's only


def test_a_torn_journal_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    room, _ = Classroom.open(path, CLASSIC)
    a = room.join("Ann", room.join_code)
    room.predict(a.key, "noir", 2)
    with open(room.journal, "a") as f:
        f.write('{"e": "predict", "i": 0, "si')
    again = Classroom.load(path)
    assert again.open_round == {0: ("noir", 2)}


def test_an_edited_session_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    room, _ = Classroom.open(path, CLASSIC)
    room.deal()
    data = json.loads(path.read_text())
    data["coups"][0]["noir"] = 32 if data["coups"][0]["noir"] == 31 else 31  # another total (the seed is fresh)
    path.write_text(json.dumps(data))
    with pytest.raises(ClassroomError, match="edited"):
        Classroom.load(path)
    path.write_text("[1, 2]")
    with pytest.raises(ClassroomError, match="cannot read"):
        Classroom.load(path)


def test_reset_keeps_the_table_before_it(tmp_path: Path) -> None:
    room, _ = Classroom.open(tmp_path / "s.json", CLASSIC)
    room.deal()
    kept = room.reset()
    assert kept is not None and json.loads(kept.read_text())["coups"]
    assert room.coups == [] and room.table == 1


def test_the_csv_export_cannot_run_a_formula() -> None:
    room = Classroom(CLASSIC)
    s = room.join("=HYPERLINK(1)", room.join_code)
    room.predict(s.key, "noir")
    room.deal()
    line = room.export_csv().splitlines()[1]
    assert "'=HYPERLINK(1)" in line


# -- betting systems ---------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["classic", "partage", "choice", "family", "main-bets", "rigged-classic"])
def test_a_system_plays_the_dealt_coups_as_the_session_runner_plays_them(preset: str) -> None:
    """The cross-check: each system picked before the first coup, over the coups the teacher dealt, ends
    every coup with the bankroll the lab's session runner gives the same system on the same coups (its
    compiled loop and the vector env), has staked what the runner staked, and sets beside it the exact
    expectation of those stakes as the tournament computes it (-stake_weighted_edge x staked)."""
    import numpy as np

    from experiments.classroom.systems import BANKROLL, SYSTEMS
    from experiments.game.deal import coup_record
    from strategies.registry import make_strategy
    from strategies.runner import play, play_on_env
    from trente_env.dealer import Shoe
    from trente_env.odds import stake_weighted_edge

    seed, coups = 5, 300
    room = Classroom(get_rules(preset), seed=seed)
    students = [room.join(f"s{i}", room.join_code) for i in range(len(SYSTEMS))]
    for student, system in zip(students, SYSTEMS):
        room.pick_system(student.key, system)
    money = {system: [] for system in SYSTEMS}
    for _ in range(coups):
        room.deal()
        for student, system in zip(students, SYSTEMS):
            money[system].append(room.record(student)["system"]["bankroll"])
    # the runner's session seeded `seed` deals from default_rng(seed), which is default_rng([seed, 0]) (numpy
    # pads a short entropy with zero words): the classroom's first table. Checked, not assumed:
    shoe = Shoe(room.rules, np.random.default_rng(seed))
    assert [coup_record(shoe.deal()) for _ in range(coups)] == room.coups
    policies = [make_strategy(system, room.rules) for system in SYSTEMS]
    compiled = play(policies, room.rules, BANKROLL, coups, [seed], keep=1)
    for student, system, policy, result in zip(students, SYSTEMS, policies, compiled):
        on_env = play_on_env(policy, room.rules, BANKROLL, coups, [seed], keep=1)
        mine = room.record(student)["system"]
        trajectory = np.array(money[system], dtype=np.float32)  # the runner keeps its trajectories in float32
        assert np.array_equal(result["trajectories"][0, 1:], trajectory), system
        assert np.array_equal(on_env["trajectories"][0, 1:], trajectory), system
        assert mine["staked"] == result["staked"][0] > 0, system
        edge = stake_weighted_edge(room.rules, result["box_stakes"], rig_staked=float(result["rig_staked"]))
        assert mine["expected"] == pytest.approx(-edge * mine["staked"], rel=1e-12, abs=1e-12), system
    assert any(room.record(s)["system"]["net"] != 0 for s in students)


@pytest.mark.parametrize("preset", ["classic", "partage", "choice", "family", "main-bets", "rigged-classic"])
def test_a_seat_sees_and_keeps_what_the_env_shows_on_the_same_coups(preset: str) -> None:
    """One home for a seat's table: before every coup each seat's observation is the vector env's for
    the same system on the same coups (the env seeded as the classroom's first table), part by part, and
    after it the seat's money (float64, to the chip: not the runner's float32 trajectory) and prisoners
    are the env's. An observation or a settlement built apart would differ here (the prisoners' order,
    the coups since the seat sat down, a premium, a stake cut to the money in hand)."""
    import numpy as np

    from experiments.classroom.systems import BANKROLL, SYSTEMS
    from strategies.registry import make_strategy
    from trente_env.vector import TrenteEtQuaranteVectorEnv

    seed, coups = 5, 300
    room = Classroom(get_rules(preset), seed=seed)
    students = [room.join(f"s{i}", room.join_code) for i in range(len(SYSTEMS))]
    tables = {}
    for student, system in zip(students, SYSTEMS):
        room.pick_system(student.key, system)
        policy = make_strategy(system, room.rules)
        venv = TrenteEtQuaranteVectorEnv(1, rules=room.rules, bankroll=BANKROLL)
        obs, _ = venv.reset(seed=[seed])  # the classroom's first table (see the test above)
        tables[system] = [policy, venv, obs, policy.initial_state(1)]
    compared, prisoners, moved = 0, 0, 0
    for _ in range(coups):
        seen = room.books.observe()
        for student, system in zip(students, SYSTEMS):
            if system not in tables:
                continue
            row = room.books.seats[student.index].row
            policy, venv, obs, state = tables[system]
            k = seen["results"].shape[1]  # the seat keeps what the rig reads; the env 10 coups
            assert set(seen) == set(obs), system
            for part in ("bankroll", "coups", "prison"):
                assert seen[part].dtype == obs[part].dtype and np.array_equal(seen[part][row], obs[part][0]), part
            for part in ("results", "couleur"):
                assert np.array_equal(seen[part][row], obs[part][0, :k]), part
            actions, state = policy.act(obs, state, money=venv.bankroll)
            obs, _, terminated, _, _ = venv.step(actions)
            tables[system][2:] = [obs, state]
        room.deal()
        for student, system in zip(students, SYSTEMS):
            if system not in tables:
                continue
            row = room.books.seats[student.index].row
            venv = tables[system][1]
            assert room.books.money[row] == venv.tables.bankroll[0], system
            assert np.array_equal(room.books.prison[row], venv.tables.prison[0]), system
            compared += 1
            prisoners += bool(room.books.prison[row].any())
            moved += room.books.money[row] != BANKROLL
            if venv.tables.terminated[0]:  # ruined: the env starts a new session, the seat stakes no more
                assert room.books.ruined[row], system
                del tables[system]
    assert compared > coups and moved > coups  # the comparisons ran, on money that moved
    if room.rules.refait.name == "PRISON":  # (under the choice rule the systems take the partage)
        assert prisoners, "no seat held a prisoner: the prisoners' order went unchecked"


def test_a_system_sits_down_on_the_next_coup_and_a_new_pick_starts_afresh() -> None:
    from experiments.classroom.systems import BANKROLL

    room, (a, b, c) = room_with(3)
    for _ in range(10):
        room.deal()
    room.pick_system(a.key, "flat")
    room.pick_system(b.key, "martingale")
    assert room.record(a)["system"] == {"system": "flat", "from": 11, "coups": 0, "bankroll": BANKROLL, "prison": 0.0,
                                        "staked": 0.0, "net": 0.0, "expected": 0.0, "ruined": False}  # fmt: skip
    assert room.record(c)["system"] is None
    room.deal()
    assert room.record(a)["system"]["staked"] == 1.0  # flat: one base unit on its first coup
    for _ in range(20):
        room.deal()
    room.pick_system(b.key, "paroli")  # a new pick: a new bankroll from the next coup
    assert room.record(b)["system"]["system"] == "paroli" and room.record(b)["system"]["bankroll"] == BANKROLL
    summary = room.public()["systems"]
    rows = {r["system"]: r for r in summary["rows"]}
    assert rows["flat"]["players"] == rows["paroli"]["players"] == 1 and rows["martingale"]["players"] == 0
    whole = summary["class"]
    seats = [room.record(s)["system"] for s in (a, b)]
    assert whole["players"] == 2 and whole["staked"] == sum(x["staked"] for x in seats)
    assert whole["net"] == sum(x["net"] for x in seats) and whole["expected"] == sum(x["expected"] for x in seats)
    assert room.student_public()["systems"]["class"] == whole  # the students see the class's too
    room.pick_system(a.key, None)  # stands up
    room.kick("s1")  # removed: their system goes too
    assert room.public()["systems"]["class"]["players"] == 0


@pytest.mark.parametrize("system", ["labouchere", "random", "os:system", "flat:base=5", "Flat", "", 5, ["flat"], True])
def test_a_system_outside_the_list_is_refused_in_one_line(system: object) -> None:
    room, (a, *_) = room_with(1)
    with pytest.raises(ClassroomError, match="choose a system: flat, martingale, paroli, dalembert, fibonacci"):
        room.pick_system(a.key, system)
    assert room.books.seats == {}
    with pytest.raises(ClassroomError, match="unknown student"):
        room.pick_system("forged", "flat")


def test_the_systems_survive_a_restart_and_a_reset(tmp_path: Path) -> None:
    from experiments.classroom.systems import BANKROLL

    path = tmp_path / "s.json"
    room, _ = Classroom.open(path, CLASSIC, 8)
    a, b, c = (room.join(n, room.join_code) for n in ("Ann", "Bob", "Cy"))
    room.pick_system(a.key, "martingale")
    for _ in range(7):
        room.deal()
    room.pick_system(b.key, "fibonacci")
    for _ in range(5):
        room.deal()
    room.pick_system(c.key, "dalembert")  # journalled only: it sits down on the next coup
    again = Classroom.load(path)
    for s in (a, b, c):
        assert again.record(s)["system"] == room.record(s)["system"]
    assert again.record(b)["system"]["from"] == 8
    again.deal()
    room.deal()
    assert [again.record(s)["system"] for s in (a, b, c)] == [room.record(s)["system"] for s in (a, b, c)]
    room.reset()  # a new table: every system sits down afresh, with its pick kept
    assert {room.record(s)["system"]["system"] for s in (a, b, c)} == {"martingale", "fibonacci", "dalembert"}
    assert all(room.record(s)["system"]["bankroll"] == BANKROLL for s in (a, b, c))
    assert Classroom.load(path).record(a)["system"] == room.record(a)["system"]


@pytest.mark.parametrize(
    "systems", [[[0, "labouchere", 0]], [[0, "flat", 99]], [[7, "flat", 0]], [[0, "flat", 0], [0, "flat", 1]],
                [[0, "flat"]], [["0", "flat", 0]], [[True, "flat", 0]], {"0": "flat"}],
)  # fmt: skip
def test_an_edited_systems_entry_is_refused(tmp_path: Path, systems: object) -> None:
    path = tmp_path / "s.json"
    room, _ = Classroom.open(path, CLASSIC)
    room.join("Ann", room.join_code)
    room.deal()
    room.save()
    data = json.loads(path.read_text())
    data["systems"] = systems
    path.write_text(json.dumps(data))
    with pytest.raises(ClassroomError, match="cannot read this classroom session .*systems"):
        Classroom.load(path)


def test_the_projector_names_bankrolls_only_when_names_are_shown() -> None:
    room, (a, b, _) = room_with(3)
    room.pick_system(a.key, "flat")
    room.pick_system(b.key, "paroli")
    room.deal()
    assert "seats" not in room.public()["systems"]
    room.set_show_names(True)
    seats = room.public()["systems"]["seats"]
    assert {s["name"] for s in seats} == {"s0", "s1"} and all("bankroll" in s for s in seats)
    assert [s["name"] for s in room.export()["systems"]] == ["s0", "s1"]


# -- the web app --------------------------------------------------------------------------------------

starlette_testclient = pytest.importorskip("starlette.testclient", reason="needs the classroom extra")


@pytest.fixture
def client():
    from experiments.classroom.app import make_app

    room = Classroom(CLASSIC, seed=2)
    app = make_app(room, "http://x/?code=" + room.join_code, hosts={"testserver"})  # websocket_connect's host
    with starlette_testclient.TestClient(app, base_url="http://x") as c:
        c.server = app.server
        c.room = room
        yield c


def teacher(client, action: str, body: dict | None = None, token: str | None = None):
    return client.post(
        f"/api/teacher/{action}", json=body or {}, headers={"X-Teacher-Token": token or client.room.token}
    )


@pytest.mark.parametrize("action", ["deal", "pause", "resume", "reset", "names", "kick", "fast"])
def test_every_teacher_action_needs_the_token(client, action: str) -> None:
    key = client.post("/api/join", json={"name": "Ann", "code": client.room.join_code}).json()["key"]
    for headers in ({}, {"X-Teacher-Token": key}, {"X-Teacher-Token": client.room.token[:-1]},
                    {"X-Teacher-Token": client.room.join_code}):  # fmt: skip
        response = client.post(f"/api/teacher/{action}", json={"name": "Ann", "show": True, "coups": 10000},
                               headers=headers)  # fmt: skip
        assert response.status_code == 403
        assert response.json() == {"error": "only the teacher's page can do this"}
    assert client.room.coups == [] and not client.room.paused and not client.room.students[0].kicked
    for export in ("json", "csv"):
        assert client.get(f"/api/teacher/export.{export}").status_code == 403
        assert client.get(f"/api/teacher/export.{export}", headers={"X-Teacher-Token": key}).status_code == 403


def test_the_teacher_deals_pauses_shows_names_and_kicks(client) -> None:
    key = client.post("/api/join", json={"name": "Ann", "code": client.room.join_code}).json()["key"]
    assert client.post("/api/predict", json={"key": key, "side": "rouge", "sure": 2}).status_code == 200
    coup = teacher(client, "deal").json()["coup"]
    assert coup == client.room.coups[0]
    assert teacher(client, "pause").status_code == 200 and client.room.paused
    assert teacher(client, "deal").json() == {"error": "the table is paused"}
    teacher(client, "resume")
    teacher(client, "names", {"show": True})
    assert client.room.show_names
    assert teacher(client, "kick", {"name": "Ann"}).status_code == 200
    assert client.post("/api/predict", json={"key": key, "side": "rouge"}).status_code == 400
    assert teacher(client, "nope").status_code == 400
    exported = client.get("/api/teacher/export.json", headers={"X-Teacher-Token": client.room.token}).json()
    (made,) = exported["predictions"][0]
    assert made.pop("at").endswith("+00:00")  # when the prediction came, in UTC
    assert made == {"id": 1, "name": "Ann", "side": "rouge", "sure": 2}


def test_bodies_are_bounded_and_must_be_json_objects(client) -> None:
    code = client.room.join_code
    assert client.post("/api/join", content=b'{"name": "' + b"x" * 2000 + b'"}').status_code == 413
    assert client.post("/api/join", content=b"not json").status_code == 400
    assert client.post("/api/join", content=b"[1]").status_code == 400
    assert client.post("/api/join", json={"name": "x" * 30, "code": code}).json()["error"].startswith("a name has")
    assert client.post("/api/predict", json={"key": "forged", "side": "noir"}).status_code == 400


def test_a_student_is_rate_limited(client) -> None:
    key = client.post("/api/join", json={"name": "Ann", "code": client.room.join_code}).json()["key"]
    codes = [client.post("/api/predict", json={"key": key, "side": "noir"}).status_code for _ in range(60)]
    assert codes[:15] == [200] * 15  # a burst of 20 is allowed
    assert 429 in codes


def test_pages_forbid_inline_scripts_and_are_served_locally(client) -> None:
    for path in ("/", "/projector"):
        response = client.get(path)
        assert response.status_code == 200
        assert "script-src 'self'" in response.headers["content-security-policy"]
        assert "http" not in response.text.replace('"http', "")  # no address outside the app
    for asset in ("common.js", "join.js", "projector.js", "classroom.css"):
        text = client.get(f"/static/{asset}").text
        assert "innerHTML" not in text and "insertAdjacentHTML" not in text and "document.write" not in text
        assert "https://" not in text
    assert client.get("/qr.svg").text.startswith("<svg")


def test_the_websocket_sends_each_page_its_view(client) -> None:
    key = client.post("/api/join", json={"name": "Ann", "code": client.room.join_code}).json()["key"]
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"key": key}))
        view = json.loads(ws.receive_text())
        assert view["extra"]["me"]["name"] == "Ann" and "token" not in json.dumps(view)
        assert client.room.join_code not in json.dumps(view)
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"token": client.room.token}))
        view = json.loads(ws.receive_text())
        assert view["extra"]["role"] == "teacher" and view["extra"]["names"] == ["Ann"]
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"key": "forged"}))
        with pytest.raises(Exception):  # noqa: B017 - the server closes the socket
            ws.receive_text()


def test_fast_forward_takes_only_the_offered_sizes(client) -> None:
    for coups in (5, 10**7, True, "10000", None):
        assert teacher(client, "fast", {"coups": coups}).status_code == 400


def test_a_student_picks_a_system_through_the_app(client) -> None:
    key = client.post("/api/join", json={"name": "Ann", "code": client.room.join_code}).json()["key"]
    answer = client.post("/api/system", json={"key": key, "system": "martingale"})
    assert answer.status_code == 200 and answer.json()["system"]["system"] == "martingale"
    for bad in ("nope", "experiments.cli:app", 3, {"x": 1}):
        response = client.post("/api/system", json={"key": key, "system": bad})
        assert response.status_code == 400
        assert response.json() == {"error": "choose a system: flat, martingale, paroli, dalembert, fibonacci (or none)"}
    assert client.post("/api/system", json={"key": "forged", "system": "flat"}).status_code == 400
    assert client.post("/api/system", content=b"x" * 2000).status_code == 413
    teacher(client, "deal")
    assert client.room.record(client.room.student(key))["system"]["staked"] == 1.0
    assert client.post("/api/system", json={"key": key, "system": None}).json()["system"] is None


def test_killing_the_server_loses_nothing(tmp_path: Path) -> None:
    """The server process killed (SIGKILL: no time to save) and started again on the same session file:
    every acknowledged join, prediction and coup is there, and a student's key still works."""
    import signal

    httpx = pytest.importorskip("httpx")
    pytest.importorskip("uvicorn")
    from tests import _classroom

    session = tmp_path / "class.json"
    first = _classroom.start(session, "--seed", "4")
    try:
        assert "listening on 127.0.0.1 only" in first.output
        headers = {"X-Teacher-Token": first.token}
        with httpx.Client(base_url=first.base, timeout=10) as http:
            keys = [http.post("/api/join", json={"name": f"p{i}", "code": first.code}).json()["key"] for i in range(5)]
            for coup in range(3):
                for i, key in enumerate(keys):
                    assert http.post("/api/predict", json={"key": key, "side": "noir" if (i + coup) % 2 else "rouge",
                                                           "sure": 1 + i % 3}).status_code == 200  # fmt: skip
                assert http.post("/api/teacher/deal", headers=headers).status_code == 200
            assert http.post("/api/predict", json={"key": keys[0], "side": "noir", "sure": 3}).status_code == 200
            before = http.get("/api/teacher/export.json", headers=headers).json()
    finally:
        first.stop(signal.SIGKILL)
    second = _classroom.start(session, "--resume")
    try:
        assert "resumed" in second.output and (second.token, second.code) == (first.token, first.code)
        with httpx.Client(base_url=second.base, timeout=10) as http:
            after = http.get("/api/teacher/export.json", headers={"X-Teacher-Token": second.token}).json()
            assert after == before and len(after["coups"]) == 3
            rejoined = http.post("/api/join", json={"key": keys[0]}).json()
            assert rejoined["name"] == "p0" and rejoined["record"]["guess"] == ["noir", 3]
            assert rejoined["record"]["predicted"] == 3
    finally:
        second.stop()


def test_fast_forward_counts_the_bulk_dealers_coups() -> None:
    """The fast-forward's table against a plain walk over the same coups: the bulk dealer's shards
    (shard i from experiments.backends.shard_generator(seed, i)), streaks carried across shards."""
    import numpy as np

    from experiments.backends import shard_generator
    from experiments.classroom.fast import STEPS, fast_forward
    from trente_env.dealer import deal_coups

    room = Classroom(CLASSIC)
    seen: list[tuple[int, int]] = []
    result = fast_forward(room.rules, 10_000, 123, lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, STEPS) and seen[-1] == (STEPS, STEPS)
    shard = 10_000 // STEPS
    results = np.concatenate([deal_coups(room.rules, shard, shard_generator(123, i)).result for i in range(STEPS)])
    names = np.array(["noir", "rouge", "apres", "refait", "void"])[results].tolist()
    rows = {(r["side"], r["k"]): r for r in pooled_table(names, [{}] * len(names))}
    for row in result["rows"]:
        direct = rows[row["side"], row["k"]]
        assert (row["occasions"], row["same"], row["other"]) == (direct["occasions"], direct["same"], direct["other"])
    assert result["noir"] == names.count("noir") and result["rouge"] == names.count("rouge")


def test_fast_forward_through_the_app(client, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    from experiments.classroom import app, fast

    release = threading.Event()

    def held(*args):  # the real fast-forward, once the test has seen it running
        assert release.wait(60)
        return fast.fast_forward(*args)

    monkeypatch.setattr(app, "fast_forward", held)
    assert teacher(client, "fast", {"coups": 10_000}).status_code == 200
    assert teacher(client, "fast", {"coups": 10_000}).json() == {"error": "a fast-forward is running"}
    assert teacher(client, "reset").json() == {"error": "a fast-forward is running"}
    assert "done" not in client.room.fast  # the projector shows the progress meanwhile
    release.set()
    deadline = time.monotonic() + 120
    while not (client.room.fast or {}).get("done"):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert client.room.fast["coups"] == 10_000 and sum(r["occasions"] for r in client.room.fast["rows"]) > 8000


def test_a_socket_that_says_more_than_hello_is_closed(client) -> None:
    key = client.post("/api/join", json={"name": "Ann", "code": client.room.join_code}).json()["key"]
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"key": key}))
        ws.receive_text()
        ws.send_text("x" * 100)
        with pytest.raises(Exception):  # noqa: B017 - the server closes the socket
            ws.receive_text()
    assert not client.server.sockets


def test_a_prediction_is_pushed_to_the_projector_and_its_student_only(client) -> None:
    """After Ann predicts, the projector's view and Ann's are sent again, Bob's is not; after a deal, all."""
    import time

    keys = [client.post("/api/join", json={"name": n, "code": client.room.join_code}).json()["key"] for n in "AB"]
    time.sleep(0.5)  # the joins' own push is done before the pages connect (it comes within PUSH_EVERY)
    with (
        client.websocket_connect("/ws") as projector,
        client.websocket_connect("/ws") as ann,
        client.websocket_connect("/ws") as bob,
    ):
        projector.send_text(json.dumps({"token": client.room.token}))
        ann.send_text(json.dumps({"key": keys[0]}))
        bob.send_text(json.dumps({"key": keys[1]}))
        for ws in (projector, ann, bob):
            ws.receive_text()  # the first view
        client.post("/api/predict", json={"key": keys[0], "side": "noir", "sure": 2})
        assert json.loads(projector.receive_text())["public"]["round"]["predicted"] == 1
        assert json.loads(ann.receive_text())["extra"]["me"]["guess"] == ["noir", 2]
        teacher(client, "deal")
        assert json.loads(bob.receive_text())["public"]["coups"] == 1  # Bob's next view is the deal's
        assert json.loads(ann.receive_text())["public"]["coups"] == 1


@pytest.mark.parametrize(
    "args, message",
    [(["--session", "{tmp}/missing/s.json"], "does not exist"), (["--session", "{tmp}"], "is a folder"),
     (["--session", "{tmp}/not-a-session.json"], "cannot read this classroom session"),
     (["--rules", "nope", "--session", "{tmp}/new.json"], "unknown rules preset"),
     (["--session", "{tmp}/not-a-session.json", "--new"], "exists"), (["--port", "70000"], "--port")],
)  # fmt: skip
def test_the_command_refuses_bad_input_in_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    from typer.testing import CliRunner

    from experiments.cli import app

    (tmp_path / "not-a-session.json").write_text("[1]")
    result = CliRunner().invoke(app, ["classroom", *(a.replace("{tmp}", str(tmp_path)) for a in args)])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "new.json").exists()

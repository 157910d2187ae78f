"""A lesson as a teacher runs it, and as a mischievous student tries to spoil it, in the system's
Chromium driven by Playwright: the seed nobody knows, a flood of joins, a flood of sockets, the token
out of sight, a double-click on Deal, a late tap, feedback on the phone, the projector at 1024x768 and
1920x1080, French phones and a CSV a French spreadsheet opens."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from tests import _classroom

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed here (apt-get install chromium); CI has it"),
    pytest.mark.timeout(300),
]
playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the classroom extra (playwright)")
httpx = pytest.importorskip("httpx", reason="needs the classroom extra (httpx)")
websockets = pytest.importorskip("websockets", reason="needs the classroom extra (websockets)")
#: Where the projector's pictures for the documentation are written, when asked (TRENTE_DOCS_SCREENSHOT=1).
DOCS = Path(__file__).resolve().parents[1] / "docs"
ARGS = ["--no-sandbox", "--headless", "--disable-background-networking", "--disable-gpu", "--mute-audio"]


def wait_until(page, expression: str, timeout: float = 20) -> None:
    """Poll ``expression`` in the page until it is true (the pages' CSP forbids wait_for_function's eval)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        time.sleep(0.05)


@pytest.fixture
def browser():
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield chromium
        chromium.close()


def projector(browser, server, width: int = 1280, height: int = 720, socket=None):
    """The teacher's projector, past its join screen; ``socket`` as for :func:`student`, its news let
    through before the join code is awaited."""
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    if socket is not None:
        page.route_web_socket("**/ws", socket)
    page.goto(server.projector)
    if socket is not None and socket.holding:
        wait_until(page, "document.getElementById('deal').textContent !== ''")  # the page is up, no view yet
        assert page.evaluate("document.getElementById('deal').disabled")  # nothing to deal from yet
        socket.let_through()
    page.wait_for_selector(f"#join-code:has-text('{server.code}')")
    if page.locator("#join-screen").is_visible():
        page.click("#js-close")
    return page


def student(browser, server, name: str, locale: str = "en-US", socket=None):
    """A phone that joined as ``name``; ``socket``, when given, routes its live socket (page.route_web_socket)."""
    page = browser.new_context(viewport={"width": 390, "height": 844}, locale=locale, has_touch=True).new_page()
    if socket is not None:
        page.route_web_socket("**/ws", socket)
    page.goto(server.join)
    page.fill("#name", name)
    page.click("#join")
    page.wait_for_selector("#play:not([hidden])")
    return page


def export(server, table: int | None = None) -> dict:
    query = "" if table is None else f"?table={table}"
    return httpx.get(f"{server.base}/api/teacher/export.json{query}", headers={"X-Teacher-Token": server.token}).json()


# -- 1. two default lessons, two shoes -----------------------------------------------------------------


def test_two_default_lessons_deal_different_coups(tmp_path: Path, browser) -> None:
    boards = []
    for n in range(2):
        server = _classroom.start(tmp_path / f"s{n}.json")
        try:
            assert "seed" not in server.output.split("a fresh seed")[0]  # no number in the terminal
            page = projector(browser, server)
            assert "seed" not in page.locator("#rules").inner_text()
            for coup in range(1, 21):
                wait_until(page, "!document.getElementById('deal').disabled")  # the last deal answered
                page.keyboard.press("Space")  # space deals
                # the first deal waits for the server's warm-up (its kernels, compiled in a thread at start)
                wait_until(page, f"document.body.dataset.coups === '{coup}'", timeout=60 if coup == 1 else 20)
            boards.append("".join(c["result"][0] for c in export(server)["coups"]))
            assert export(server)["seed"].isdigit()  # shown after the lesson, as a string
        finally:
            server.stop()
    assert boards[0] != boards[1]  # two shoes of 20 coups agree with probability far below 1e-6


# -- 3. a room one client cannot fill, a projector one key cannot blind --------------------------------


def test_a_flood_of_joins_leaves_room_for_a_real_student(tmp_path: Path, browser) -> None:
    server = _classroom.start(tmp_path / "s.json", "--joins-per-address", "2000")
    try:
        teacher = projector(browser, server)
        with httpx.Client(base_url=server.base, timeout=10) as http:
            codes = [http.post("/api/join", json={"name": f"bot{i}", "code": server.code}).status_code
                     for i in range(1000)]  # fmt: skip
        assert codes.count(200) == 300  # the class is full
        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        page.goto(server.join)
        page.fill("#name", "Real")
        page.click("#join")
        wait_until(page, "document.getElementById('join-error').textContent.includes('full')")
        teacher.select_option("#kick-name", "bot7")
        teacher.click("#kick")
        wait_until(teacher, "document.getElementById('round').textContent.includes('/ 299')")
        page.click("#join")  # the removed student's place is free
        page.wait_for_selector("#play:not([hidden])")
        teacher.click("#lock")
        wait_until(teacher, "document.getElementById('lock').textContent.includes('Unlock')")
        refused = httpx.post(f"{server.base}/api/join", json={"name": "bot-late", "code": server.code})
        assert refused.json() == {"error": "the teacher locked the room"}
        assert not teacher.errors
    finally:
        server.stop()


def test_600_sockets_on_a_student_key_do_not_blind_the_projector(tmp_path: Path, browser) -> None:
    server = _classroom.start(tmp_path / "s.json")
    try:
        key = httpx.post(f"{server.base}/api/join", json={"name": "Mischief", "code": server.code}).json()["key"]
        ws_url = server.base.replace("http", "ws") + "/ws"
        opened, done = threading.Event(), threading.Event()
        still_open: list[int] = []

        async def flood() -> None:  # 600 sockets said hello with the student's key, held open
            sockets = []
            for _ in range(600):
                s = await websockets.connect(ws_url)
                await s.send(json.dumps({"key": key}))
                sockets.append(s)
            await asyncio.sleep(0.5)
            opened.set()
            while not done.is_set():
                await asyncio.sleep(0.05)
            still_open.append(sum(s.close_code is None for s in sockets))
            await asyncio.gather(*(s.close() for s in sockets), return_exceptions=True)

        thread = threading.Thread(target=lambda: asyncio.run(flood()))
        thread.start()
        try:
            assert opened.wait(120)
            page = projector(browser, server)  # while the flood is open
            time.sleep(1)
            assert page.locator("#message").inner_text() == ""  # no "connection lost"
            assert page.locator("#join-code").inner_text() == server.code
        finally:
            done.set()
            thread.join(60)
        assert still_open == [2]  # the key keeps its two newest sockets, the rest were closed
        assert not page.errors
    finally:
        server.stop()


# -- 4. the token out of sight ------------------------------------------------------------------------


def test_the_token_is_in_neither_the_address_bar_nor_the_terminal(tmp_path: Path, browser) -> None:
    server = _classroom.start(tmp_path / "s.json", "--seed", "3")
    try:
        assert server.token not in server.output
        page = projector(browser, server)
        href = page.evaluate("location.href")
        assert server.token not in href and "#" not in href and href.endswith("/projector")
        page.reload()  # the tab keeps its token
        page.wait_for_selector(f"#join-code:has-text('{server.code}')")
        other = browser.new_context().new_page()  # the printed address again: used already
        other.goto(server.projector)
        wait_until(other, "document.getElementById('message').textContent.includes('used already')")
        time.sleep(0.3)
        assert all(server.token not in line for line in server.later)
        assert any("for another screen" in line for line in server.later)
    finally:
        server.stop()


# -- 5 and 6. every tap on its own coup, the phone's feedback -------------------------------------------


def test_a_double_click_deals_one_coup_and_a_late_tap_is_refused_on_the_phone(tmp_path: Path, browser) -> None:
    server = _classroom.start(tmp_path / "s.json", "--seed", "12")
    try:
        teacher = projector(browser, server)
        ann = student(browser, server, "Ann")
        ann.click("#p-noir")
        ann.check("input[name=sure][value='3']")  # "how sure?" changed after the tap: sent again
        wait_until(ann, "document.getElementById('status').textContent.includes('certain')")
        wait_until(teacher, "document.getElementById('round').textContent.includes('1 / 1')")
        assert "Noir" not in teacher.locator("#round").inner_text()  # the split waits for the deal
        teacher.dblclick("#deal")
        wait_until(teacher, "document.body.dataset.coups === '1'")
        time.sleep(0.5)
        assert teacher.evaluate("document.body.dataset.coups") == "1"
        (made,) = export(server)["predictions"][0]
        assert (made["side"], made["sure"]) == ("noir", 3)
        result = export(server)["coups"][0]["result"]
        verdict = {"noir": "right!", "rouge": "wrong"}.get(result, "a tie")
        wait_until(ann, "document.body.dataset.coups === '1'")
        assert verdict in ann.locator("#verdict").inner_text()
        assert "Noir" in teacher.locator("#round").inner_text()  # the split, after the deal
        # a tap that left before the deal reached the phone: its page still shows coup 1 open
        ann.evaluate("state.view.public.coups = 0")
        ann.click("#p-rouge")
        wait_until(ann, "document.getElementById('status').textContent === 'too late: coup 1 was dealt'")
        assert export(server)["predictions"] == [[made]] and teacher.evaluate("document.body.dataset.coups") == "1"
        nested = ann.evaluate("fetch('/api/predict', {method: 'POST', body: '['.repeat(1000)}).then(r => r.status)")
        assert nested == 400
    finally:
        server.stop()


def test_space_deals_after_a_button_clicked_and_presses_a_button_reached_with_tab(tmp_path: Path, browser) -> None:
    server = _classroom.start(tmp_path / "s.json", "--seed", "3")
    try:
        teacher = projector(browser, server)
        teacher.click("#names")  # shows the names, and leaves the keyboard to the page
        teacher.keyboard.press("Space")
        wait_until(teacher, "document.body.dataset.coups === '1'")
        assert teacher.evaluate("shown.view.public.show_names") is True  # "names" was pressed once, not twice
        teacher.click("#join-screen-button")
        teacher.click("#js-close")  # the button just clicked is hidden: Space is still the page's
        teacher.keyboard.press("Space")
        wait_until(teacher, "document.body.dataset.coups === '2'")
        teacher.focus("#names")  # a button reached with the keyboard: Space presses it, and deals nothing
        teacher.keyboard.press("Space")
        wait_until(teacher, "shown.view.public.show_names === false")
        assert teacher.evaluate("document.body.dataset.coups") == "2" and len(export(server)["coups"]) == 2
    finally:
        server.stop()


class SlowNews:
    """A phone's live socket whose news from the server can be held back (a crowded Wi-Fi), then let through."""

    def __init__(self) -> None:
        self.holding, self.held, self.phone = False, [], None

    def __call__(self, phone) -> None:
        server = phone.connect_to_server()
        self.phone = phone
        server.on_message(lambda message: self.held.append(message) if self.holding else phone.send(message))

    def let_through(self) -> None:
        self.holding = False
        for message in self.held:
            self.phone.send(message)
        self.held.clear()


def test_on_slow_news_deal_and_taps_wait_for_the_first_view_and_how_sure_is_kept(tmp_path: Path, browser) -> None:
    server = _classroom.start(tmp_path / "s.json", "--seed", "12")
    try:
        slow = SlowNews()
        slow.holding = True  # the projector's first view is late: Deal waits for it
        teacher = projector(browser, server, socket=slow)
        assert not teacher.evaluate("document.getElementById('deal').disabled")
        news = SlowNews()
        news.holding = True  # the table's first view has not reached the phone: nothing to tap yet
        ann = student(browser, server, "Ann", socket=news)
        assert ann.evaluate("document.getElementById('p-noir').disabled && document.getElementById('p-rouge').disabled")
        assert ann.locator("#status").inner_text() == "connecting…"
        news.let_through()
        wait_until(ann, "document.body.dataset.coups === '0' && !document.getElementById('p-noir').disabled")
        news.holding = True  # the tap's view will not reach the phone before the change of "how sure?"
        ann.click("#p-noir")
        ann.check("input[name=sure][value='3']")
        wait_until(teacher, "document.getElementById('round').textContent.includes('1 / 1')")
        assert not ann.evaluate("document.getElementById('status').textContent")  # the phone heard nothing yet
        news.let_through()
        wait_until(ann, "document.getElementById('status').textContent.includes('certain')")
        teacher.click("#deal")
        wait_until(teacher, "document.body.dataset.coups === '1'")
        (made,) = export(server)["predictions"][0]
        assert (made["side"], made["sure"]) == ("noir", 3)
    finally:
        server.stop()


def test_a_tap_before_a_reset_is_not_sent_again_to_the_new_table(tmp_path: Path, browser) -> None:
    server = _classroom.start(tmp_path / "s.json", "--seed", "5")
    try:
        teacher = projector(browser, server)
        ann = student(browser, server, "Ann")
        wait_until(ann, "document.body.dataset.coups === '0' && !document.getElementById('p-noir').disabled")
        ann.click("#p-noir")  # coup 1 of the first table
        wait_until(teacher, "document.getElementById('round').textContent.includes('1 / 1')")
        reset = httpx.post(f"{server.base}/api/teacher/reset", headers={"X-Teacher-Token": server.token})
        assert reset.status_code == 200
        wait_until(ann, "state.view.public.table === 1")
        ann.check("input[name=sure][value='3']")  # coup 1 again, of a new table she has not predicted
        time.sleep(0.5)
        teacher.click("#deal")
        wait_until(teacher, "document.body.dataset.coups === '1'")
        assert export(server)["predictions"] == [[]]
    finally:
        server.stop()


# -- 7. a projector for any screen -----------------------------------------------------------------------


@pytest.mark.parametrize("width, height", [(1024, 768), (1920, 1080)])
def test_the_projector_fits_the_screen(tmp_path: Path, browser, width: int, height: int) -> None:
    server = _classroom.start(tmp_path / "s.json", "--seed", "21")
    try:
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.goto(server.projector)
        page.wait_for_selector("#join-screen:not([hidden])")
        students = [student(browser, server, name) for name in ("Ann", "Bob", "Zoé")]
        wait_until(page, "document.getElementById('js-names').textContent.includes('Zoé')")
        qr = page.locator("#js-qr").bounding_box()
        assert qr["width"] >= 0.3 * height  # the join screen's QR code, big
        assert (
            float(page.evaluate("parseFloat(getComputedStyle(document.getElementById('js-address')).fontSize)")) >= 24
        )
        if os.environ.get("TRENTE_DOCS_SCREENSHOT"):
            page.screenshot(path=str(DOCS / f"classroom-join-{width}x{height}.png"))
        page.click("#js-close")
        for i, s in enumerate(students):
            s.select_option("#system", ["martingale", "paroli", "fibonacci"][i])
        for coup in range(1, 13):
            for i, s in enumerate(students):
                s.click("#p-" + ("noir" if (i + coup) % 2 else "rouge"))
            page.click("#deal")
            wait_until(page, f"document.body.dataset.coups === '{coup}'")
        page.click("#names")
        page.click("#fast10k")
        wait_until(page, "document.querySelectorAll('#fast tr').length > 5", timeout=120)
        wait_until(page, "document.body.dataset.revealed === '1'")
        if os.environ.get("TRENTE_DOCS_SCREENSHOT"):
            page.screenshot(path=str(DOCS / f"classroom-{width}x{height}.png"))
        boxes = page.evaluate(
            """() => [...document.querySelectorAll('#top, #grid .panel, #controls, #controls > *, #pooled, #trap, '
                 + '#chart, #announce, #scoreboard, #round, #systems-table, #fast table, .cards')]
               .map(e => { const r = e.getBoundingClientRect();
                 return {id: e.id || e.className, right: r.right, bottom: r.bottom, x: r.left, y: r.top,
                         cut: (e.classList.contains('panel') || e.tagName === 'TABLE' || e.classList.contains('cards'))
                              && (e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1)}; })"""
        )
        for b in boxes:
            assert b["x"] >= 0 and b["y"] >= 0 and b["right"] <= width and b["bottom"] <= height, b
            assert not b["cut"], b
        columns = page.evaluate(
            """() => [...document.querySelectorAll('#pooled tr, #trap tr, #systems-table tr, #fast tr')]
               .flatMap(r => [...r.children]).filter(c => { const b = c.getBoundingClientRect();
                 const p = c.closest('.panel').getBoundingClientRect(); return b.right > p.right + 1; }).length"""
        )
        assert columns == 0  # every column inside its panel
        if width == 1920:
            smallest = page.evaluate(
                "() => Math.min(...[...document.querySelectorAll('#pooled td, #trap td, #systems td, #fast td, #round, "
                "#join-at, #counts, #streak')].map(e => parseFloat(getComputedStyle(e).fontSize)))"
            )
            assert smallest >= 18, smallest
        assert page.locator("#chart .legend").count() == 3
    finally:
        server.stop()


# -- 7 and 8. French phones, French spreadsheets ----------------------------------------------------------


LANG_OF_PAGE = "document.documentElement.lang"


def test_phones_speak_french_and_the_csv_opens_in_a_french_spreadsheet(tmp_path: Path, browser) -> None:
    server = _classroom.start(tmp_path / "s.json", "--seed", "5")
    try:
        teacher = projector(browser, server)
        zoe = student(browser, server, "Zoé", locale="fr-FR")
        assert zoe.locator("#l-sure").inner_text() == "Quelle certitude ?"  # the browser's language
        assert zoe.evaluate(LANG_OF_PAGE) == "fr"  # and the page says so (<html lang>)
        ann = student(browser, server, "Ann")
        assert ann.locator("#l-sure").inner_text() == "How sure?"
        assert (
            ann.evaluate("document.documentElement.lang") == teacher.evaluate("document.documentElement.lang") == "en"
        )
        teacher.click("#lang")  # the teacher's French reaches the phones
        wait_until(ann, "document.getElementById('l-sure').textContent === 'Quelle certitude ?'")
        assert (
            ann.evaluate("document.documentElement.lang") == teacher.evaluate("document.documentElement.lang") == "fr"
        )
        assert teacher.locator("#kick-name option").first.inner_text() == "Retirer…"
        for coup in range(1, 9):
            zoe.click("#p-noir")
            teacher.click("#deal")
            wait_until(zoe, f"document.body.dataset.coups === '{coup}'")
        right = sum(c["result"] == "noir" for c in export(server)["coups"])
        assert f"{right} juste" + ("s" if right > 1 else "") + " ·" in zoe.locator("#record").inner_text()
        with teacher.expect_download() as download:
            teacher.click("#export-csv")
        data = Path(download.value.path()).read_bytes()
        assert data.startswith("\ufeff".encode())
        head = data.decode("utf-8")[1:].splitlines()[0]
        assert head.split(";")[:3] == ["table", "coup", "dealt_at"]
    finally:
        server.stop()


# -- 3 and 5. a lost key, a countdown -------------------------------------------------------------------


def test_a_lost_key_is_given_back_by_the_teacher_and_a_countdown_closes_the_phones(tmp_path: Path, browser) -> None:
    server = _classroom.start(tmp_path / "s.json", "--seed", "8")
    try:
        teacher = projector(browser, server)
        sam = student(browser, server, "Sam")
        sam.click("#p-rouge")
        teacher.click("#deal")
        wait_until(sam, "document.body.dataset.coups === '1'")
        again = browser.new_context(viewport={"width": 390, "height": 844}).new_page()  # Sam's browser lost its key
        again.goto(server.join)
        again.fill("#name", "Sam")
        again.click("#join")
        again.wait_for_selector("#rejoin")
        again.click("#rejoin")
        teacher.wait_for_selector("#rejoins button")
        assert "Sam" in teacher.locator("#rejoins").inner_text()
        teacher.locator("#rejoins button").first.click()  # Confirm
        again.wait_for_selector("#play:not([hidden])", timeout=15_000)
        assert again.locator("#record").inner_text().startswith("1 prediction ·")  # the record goes on
        teacher.click("#countdown")
        wait_until(again, "document.getElementById('timer').textContent.endsWith(' s')")
        wait_until(again, "document.getElementById('p-noir').disabled", timeout=25)  # at zero: closed
        assert again.locator("#timer").inner_text() == "predictions closed"
        late = httpx.post(f"{server.base}/api/predict", json={"key": again.evaluate("state.key"), "side": "noir"})
        assert late.json() == {"error": "time is up: predictions for coup 2 are closed"}
    finally:
        server.stop()

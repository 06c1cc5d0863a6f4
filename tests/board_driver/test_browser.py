"""The companion page in a real browser: Debian's chromium driven by Playwright, against a
running `treeboard sim` whose simulated sensors are worked through its standard input.

The browser is the system's (./dev test installs Debian's `chromium` when it is missing); no
browser is ever downloaded. Where it cannot run, these tests skip on a developer's machine and
FAIL under CI=true, so a CI run never passes without them.

Screenshots of each game's page at phone and desktop widths land in test-artifacts/ (ignored
by git).
"""

from __future__ import annotations

import json
import re
import os
import shutil

import pytest

from tests.board_driver.browser_harness import (ARTIFACTS, CHROMIUM, DESKTOP, PHONE,  # noqa: F401
                                                browser, chromium, page_reading, sims, unavailable)
from tests.waits import Deadline, ms, slowdown, wait_for


def screenshots(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def rod(site: str) -> str:
    return f'#board [data-site="{site}"][data-kind="rod"]'


def appears(page, selector: str, timeout: float = 3) -> None:
    """An SVG element in the DOM (Playwright calls a thin <line> hidden, so ask for attached),
    within `timeout` seconds (scaled for the machine's load)."""
    page.wait_for_selector(selector, state="attached", timeout=ms(timeout))


def test_tree_planting_live_takeback_and_screenshots(browser, sims):
    sim = sims()
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    page.click("#meaning summary")   # the legend: every colour the LEDs show, in words
    assert "bluish green: a free groove that gives nothing away" in page.inner_text("#meaning")
    sim.type("place h0.0")
    appears(page, rod("h0.0"), timeout=1)  # the bound: on the page within 1 s (idle)
    sim.type("place v0.0", "place h1.0", "place v0.1", "place t0.0", "place h2.2")
    appears(page, '#board [data-site="t0.0"][data-kind="tree:1"]')
    appears(page, rod("h2.2"))
    assert page.inner_text("#moves li.last .move") == "h2.2"

    page.click("#takeback")
    assert "Take back h2.2?" in page.inner_text("#confirm-text")
    page.click("#confirm-no")  # a confirmation: cancelling changes nothing
    assert sim.state()["game"]["moves"][-1] == "h2.2"
    page.click("#takeback")
    page.click("#confirm-yes")
    page.wait_for_selector("#banner:not([hidden])")
    assert "h2.2: take the piece off" in page.inner_text("#banner")
    assert "h2.2" not in page.inner_text("#moves")
    screenshots(page, "tree-planting-correction")
    sim.type("lift h2.2")
    page.wait_for_selector("#banner[hidden]", state="attached", timeout=ms(3))
    screenshots(page, "tree-planting")
    page.close()


def test_treeblox_entry_above_the_board_refusal_and_screenshots(browser, sims):
    sim = sims("--layout", "treeblox-adc")
    sim.type("place a1 dark-leaf", "place b2 light-leaf", "place a2 dark-branch",
             "place c3 light-branch")
    before = sim.wait(lambda s: len(s["game"]["moves"]) == 4)
    assert len(before["game"]["moves"]) == 4
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector('#board3d [data-place="a2+1"]')
    page.click("#turn3d")  # the other side of the trees; the places stay clickable
    appears(page, '#board3d svg[data-turn="1"]')
    page.click('#board3d [data-place="a2+1"]')
    assert page.input_value("#entry-site") == "a2+1"
    page.click('#entry-kinds button[data-kind="dark-leaf"]')
    page.wait_for_selector("#moves li.last .move:text-is('La2+1')", timeout=ms(2))
    after = sim.state()
    assert after["game"]["moves"][-1] == "La2+1"
    assert after["leds"]["a2"] != before["leds"]["a2"]  # the LEDs follow the entry
    assert page.inner_text("#turn").endswith("Light to move")

    # An entry the game refuses (a cube on a leaf) shows the reason on the page.
    page.evaluate("post('/api/enter', {site: 'b2+1', kind: 'light-leaf'})")
    page.wait_for_selector("#toast:not([hidden])")
    assert "no cube can be attached to a leaf" in page.inner_text("#toast")
    page.evaluate("document.getElementById('toast').hidden = true")  # not in the screenshots
    for turn in (2, 3, 0):  # round to the first side again, for the screenshots
        page.click("#turn3d")
        appears(page, f'#board3d svg[data-turn="{turn}"]')
    screenshots(page, "treeblox")
    page.close()


def test_the_page_survives_a_daemon_restart(browser, sims, tmp_path):
    sim = sims()
    port = sim.port
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    sim.stop()
    page.wait_for_selector("body[data-connected=no]", timeout=ms(5))
    assert page.inner_text("#conn") == "reconnecting…"
    sim = sims(port=port, new_game=False)
    page.wait_for_selector("body[data-connected=yes]", timeout=ms(10))
    sim.type("place h3.0")
    appears(page, rod("h3.0"))
    page.close()


def test_with_a_token_control_without_it_is_refused(browser, sims, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('layout = "tree-planting-classic-pins"\n'
                      f'journal = "{tmp_path / "t.sqlite"}"\n'
                      '[web]\nlisten = "127.0.0.1"\ntoken = "a long board secret"\n')
    config.chmod(0o600)   # (a config holding a secret that every account can read is refused)
    sim = sims("--config", str(config))
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    assert page.is_visible("#token-box")
    page.select_option("#hint", "off")
    page.wait_for_selector("#toast:not([hidden])")
    assert "needs its token" in page.inner_text("#toast")
    assert sim.state()["hint"] == "safe"
    page.fill("#token", "a long board secret")
    page.click("#token-box button")
    page.select_option("#hint", "legal")
    assert sim.wait(lambda s: s["hint"] == "legal")["hint"] == "legal"
    page.close()


def test_finished_games_viewed_move_by_move(browser, sims, tmp_path):
    import random

    import games
    from board_driver.referee.journal import Journal

    rng = random.Random(2)  # a small board: its review is exact and quick
    done = games.get_game("tree-planting").new_state(board="2x2")
    while not done.is_over():
        done.play(rng.choice(done.legal_moves()))
    with Journal(tmp_path / "sim.sqlite") as journal:
        journal.start_game("tree-planting", {"board": "2x2"})
        for move in done.moves:
            journal.record_move(str(move))
        journal.finish(done.summary())
    sim = sims()
    page = browser.new_page()
    page.goto(sim.url)
    page.click("#history summary")
    page.click('#games button[data-game="1"]')
    n = len(done.moves)
    page.wait_for_selector(f"#replay-at:text('move {n} of {n}')")
    page.click("#replay-prev")
    page.wait_for_selector(f"#replay-at:text('move {n - 1} of {n}')")
    last = str(done.moves[-1])
    assert page.locator(f'#replay-board [data-site="{last}"][data-kind="rod"]').count() == 0
    page.click("#replay-first")
    page.wait_for_selector("#replay-at:text('start')")
    assert page.locator('#replay-board [data-kind="rod"]').count() == 0
    assert page.get_attribute("#replay-download", "href") == "/api/games/1?download=1"
    # the review graph: a dot per move, the moves that changed the result marked
    page.click("#replay-review-ask")
    page.wait_for_selector("#replay-review svg.review")
    assert page.locator("#replay-review svg.review circle").count() == n
    assert page.locator("#replay-review circle.changed").count() >= 1
    page.locator("#replay-review circle[data-move='2']").dispatch_event("click")
    page.wait_for_selector(f"#replay-at:text('move 2 of {n}')")
    # the move being viewed is marked on the graph, at its dot
    def marker_on(move: int) -> bool:
        return abs(float(page.get_attribute("#review-marker", "x1")) - float(
            page.get_attribute(f"#replay-review circle[data-move='{move}']", "cx"))) < 0.01

    assert marker_on(2)
    # the axis says which side is up, and every move is seen from the first player's side
    assert page.locator("#replay-review text", has_text="first player wins").count() == 1
    page.click("#replay-last")
    page.wait_for_selector(f"#replay-at:text('move {n} of {n}')")
    assert marker_on(n)
    # Estimates that lean each mover's way (0.6 for whoever moves, before and after) are an
    # even game from the first player's side, not a zigzag.
    leaning = [{"n": k + 1, "player": k % 2, "before": 0.6, "after": 0.6, "exact": False}
               for k in range(4)]
    assert page.evaluate(f"positionValues({json.dumps(leaning)})") == \
        pytest.approx([0.2, 0, 0, 0, -0.2])
    # the buttons' icons are drawn, not a font's glyph
    assert page.locator("#replay-first svg.icon path").count() == 1
    # on a phone, the finished game, its buttons and its graph read as the live page does
    from tests.board_driver.test_page_visual import MEASURE

    page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / "review-phone.png"), full_page=True)
    found = page.evaluate(MEASURE)
    assert not found["problems"], "\n".join(found["problems"][:20])
    page.screenshot(path=str(ARTIFACTS / "review-desktop.png"), full_page=True)
    page.close()


def _layout_for(game: str) -> str | None:
    from hardware.layout import load_layout, shipped_layouts

    return next((n for n in shipped_layouts() if load_layout(n).game == game
                 and not n.endswith("-bridge")), None)


def _other_games() -> list[str]:
    import games

    return [g for g in games.names() if g not in ("tree-planting", "treeblox")]


@pytest.mark.parametrize("game", _other_games())
def test_every_other_games_page_shows_its_board(browser, sims, game):
    """Each game that has a layout gets its page drawn (its own view, or the generic one) with
    no script error, and its screenshots."""
    layout = _layout_for(game)
    if layout is None:
        pytest.skip(f"no shipped layout for {game} on the simulated pins yet")
    sim = sims("--layout", layout)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    appears(page, "#board svg [data-site]")
    assert page.get_attribute("body", "data-game") == game and errors == []
    # the one legend (board_driver/views: legend), as the sim prints it
    assert page.inner_text("#meaning summary").endswith("What the lights mean")
    page.click("#meaning summary")
    assert "red: " in page.inner_text("#meaning") and errors == []
    screenshots(page, game)
    page.close()


def test_chromium_is_debians_not_a_download():
    if not os.path.exists(CHROMIUM):
        unavailable(f"no chromium at {CHROMIUM}")
    real = os.path.realpath(CHROMIUM)
    assert real.startswith("/usr/"), real
    assert shutil.which("chromium") or os.path.exists(CHROMIUM)


def test_a_remote_game_joined_on_the_page_then_left(browser, sims, tmp_path):
    """The page joins a remote game (the other board started from its command line), shows the
    link, lights the other board's move, and leaves it again."""
    from tests.broker import Broker

    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker")
    broker.start()
    try:
        secret = tmp_path / "secret"
        secret.write_text("a family secret\n")
        secret.chmod(0o600)
        here = sims()
        there = sims("--journal", str(tmp_path / "there.sqlite"), "--remote", broker.url,
                     "--join", "kitchen", "--seat", "0", "--secret-file", str(secret))
        page = browser.new_page()
        page.goto(here.url)
        page.wait_for_selector("body[data-connected=yes]")
        page.click("#join summary")
        page.fill("#join-form [name=broker]", broker.url)
        page.fill("#join-form [name=game]", "kitchen")
        page.select_option("#join-form [name=seat]", "1")
        page.fill("#join-form [name=secret]", "a family secret")
        page.click("#join-form button[type=submit]")
        page.wait_for_selector("#remote:not([hidden])")
        deadline = Deadline(10)   # (the page's CSP forbids wait_for_function's eval)
        while "connected" not in page.inner_text("#remote-status"):
            assert not deadline.passed(), page.inner_text("#remote-status")
            page.wait_for_timeout(50)
        assert page.is_hidden("#join")
        assert page.inner_text("#meaning summary").startswith("you play player 2")
        there.type("place h0.0")                      # the other family's move...
        page.wait_for_selector('#fixes li')           # ...is pieces to put here,
        assert "h0.0" in page.inner_text("#fixes")
        # shown as the other board's move to make, not as a mistake
        assert page.inner_text("#banner-title") == "The other board's move."
        assert "owed" in page.get_attribute("#banner", "class")
        assert here.state()["game"]["moves"] == ["h0.0"]
        screenshots(page, "remote-tree-planting")
        page.click("#remote-leave")
        page.click("#confirm-yes")
        page.wait_for_selector("#remote", state="hidden")
        assert here.wait(lambda s: s["remote"] is None)["seats"] == ["human", "human"]
        page.close()
    finally:
        broker.stop()


def test_the_page_shows_both_clocks_the_running_one_marked_and_the_flag(browser, sims):
    # Player 1's clock runs from the start: 6 s on an idle machine, stretched with the load
    # (at load 30 the page came up after the 6 s had run out, and no clock ran any more).
    budget = round(6 * slowdown())
    sim = sims("--time-control", f"{budget / 60:.4f},1")
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    page.wait_for_selector("#clocks:not([hidden])")
    running = page.inner_text('#clocks .clock.running')
    # counting down in the browser (tenths under ten seconds)
    assert re.fullmatch(r"player 1 \d+:\d\d(\.\d)?", running), running
    assert page.inner_text('#clocks .clock[data-seat="1"]') == "player 2 1:00"
    page.wait_for_selector('#clocks .clock.flag[data-seat="0"]', timeout=ms(10) + budget * 1000)
    assert "player 1's time ran out: player 2 wins on time" in page.inner_text("#result")
    assert page.inner_text("#turn") == "Game over"
    screenshots(page, "clocks-flag")
    page.close()


def test_the_page_in_chinese_follows_the_browser_and_switches(browser, sims):
    sim = sims()
    page = page_reading(browser, sim, ["zh-CN", "zh"])   # a browser set to Chinese
    page.wait_for_selector("html[lang=zh-Hans]", state="attached")
    assert page.inner_text("#title") == "植树棋"
    assert page.inner_text("#takeback") == "悔棋" and page.inner_text("#new-game") == "新的一局"
    assert page.inner_text("#conn") == "已连接"
    assert "轮到一号玩家" in page.inner_text("#turn")
    sim.type("place h0.0", "place t0.0")   # a move, then a peg where no move puts one
    page.wait_for_selector("#banner:not([hidden])")
    page.wait_for_selector("#turn:has-text('轮到二号玩家')")
    assert page.inner_text("#banner-title") == "棋盘和对局对不上。"
    assert "t0.0" in page.inner_text("#fixes") and "拿走这枚棋子" in page.inner_text("#fixes")
    assert "轮到二号玩家" in page.inner_text("#turn")
    screenshots(page, "tree-planting-zh")
    # Say it again: the last moves, whose turn, the score (aloud on a board with a voice).
    assert page.inner_text("#repeat") == "再说一遍"
    page.click("#repeat")
    page.wait_for_selector("#toast:not([hidden])")
    assert "第 1 步：h0.0" in page.inner_text("#toast")
    assert "比分0比0，轮到二号玩家" in page.inner_text("#toast")
    # The switch: English, kept in this browser.
    page.select_option("#language", "en")
    page.wait_for_selector("html[lang=en]", state="attached")
    page.wait_for_selector("#title:text-is('Tree Planting')")
    page.wait_for_selector("#fixes:has-text('take the piece off')")
    assert page.inner_text("#takeback") == "Take back"
    assert "take the piece off" in page.inner_text("#fixes")
    assert "player 2 to move" in page.inner_text("#turn")
    page.reload()
    page.wait_for_selector("body[data-connected=yes]")
    page.wait_for_selector("#title:text-is('Tree Planting')")
    page.evaluate("localStorage.removeItem('treeboard-language')")
    page.close()


def test_the_voice_settings_changed_on_the_page(browser, sims, tmp_path):
    """The page shows [voice] and changes it through the door: the next sentence is said in
    the new language, a bad value is refused naming the field (nothing changes), and the
    change survives a restart."""
    voice_dir = tmp_path / "voice"
    sim = sims("--voice-dir", str(voice_dir))
    port = sim.port
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    page.click("#voice summary")
    page.wait_for_selector("#voice-health:text-is('The board speaks.')")
    assert page.input_value("#voice-form [name=rate]") == "160"
    assert page.is_checked("#voice-form [name=enabled]")
    # A bad value: the board says which field and what it expects; nothing changes.
    page.fill("#voice-form [name=rate]", "9000")
    page.click("#voice-form button[type=submit]")
    page.wait_for_selector("#toast:not([hidden])")
    assert page.inner_text("#toast").startswith("rate: expected words a minute from 80 to 450")
    # ... as a refusal (red, an alert), not as the green "saved" below
    assert page.get_attribute("#toast", "class") == "toast"
    assert page.get_attribute("#toast", "role") == "alert"
    voice = json.loads(page.evaluate("fetch('/api/voice').then((r) => r.text())"))
    assert voice["rate"] == 160 and voice["language"] is None
    # A good change: Chinese, slower, five moves read back.
    page.fill("#voice-form [name=rate]", "130")
    page.fill("#voice-form [name=repeat_moves]", "5")
    page.select_option("#voice-form [name=language]", "zh")
    page.click("#voice-form button[type=submit]")
    page.wait_for_selector("#toast:has-text(\"The voice's settings are saved\")")
    assert page.get_attribute("#toast", "class") == "toast ok"   # a success, not an error
    assert page.get_attribute("#toast", "role") == "status"
    sim.type("place h0.0")
    said = wait_for(lambda: [p.read_text(encoding="utf-8").strip()
                             for p in sorted(voice_dir.glob("*.txt"))],
                    10, "the voice's first words")
    assert said == ["一号玩家：零号行零号格的上槽"]
    screenshots(page, "voice-settings")
    # A restart: the page shows what it changed, kept with the board's journal.
    sim.stop()
    sim = sims("--voice-dir", str(voice_dir), port=port, new_game=False)
    page.reload()
    page.wait_for_selector("body[data-connected=yes]")
    page.click("#voice summary")
    wait_for(lambda: page.input_value("#voice-form [name=rate]") == "130", 10,
             "the page to show the saved rate", interval=0.05)
    assert page.input_value("#voice-form [name=language]") == "zh"
    assert page.input_value("#voice-form [name=repeat_moves]") == "5"
    page.close()

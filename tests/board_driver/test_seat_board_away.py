"""The board away from a browser's seat in a timed game, with the real parts (Debian's Mosquitto
serving the seat page, `treeboard sim` hosting, headless chromium): the page says what happens
(the board's words, sent before it went) and its countdown stops, as the board's clocks do; the
board restarted on its journal gives the browser back its clock as it was."""

from __future__ import annotations

import time

import pytest

from tests.board_driver.browser_harness import browser, chromium, sims  # noqa: F401
from tests.board_driver.test_seat_browser import (SECRET, hands, host, invite, open_seat,  # noqa: F401
                                                  ws_broker)
from tests.waits import Deadline, ms, wait_for

AWAY = "the board is away: your clock is stopped until it is back; nothing is lost, the game waits"


def shown_seconds(page) -> list[int]:
    """The page's two clocks, in whole seconds ("4:59  |  4:58")."""
    text = page.inner_text("#clocks")
    return [int(m) * 60 + int(s) for m, s in (c.strip().split(":") for c in text.split("|"))]


@pytest.mark.timeout(240)
def test_the_page_says_the_board_is_away_and_its_clock_stops_until_it_is_back(
        tmp_path, ws_broker, sims, browser, monkeypatch):
    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    args = ("--game", "tree-planting", "--time-control", "5")
    sim = host(sims, ws_broker, "away1", *args)
    page = open_seat(browser, invite(ws_broker, "away1", 1, TREEBOARD_REMOTE_SECRET=SECRET))
    options = sim.state()["options"]
    hands(sim, "tree-planting", options, [], "h0.0")          # the board's move: the browser's turn
    sim.wait(lambda s: s["clocks"]["running"] == 1, 15)
    page.wait_for_function("document.body.dataset.turn === 'yours'", timeout=ms(20))
    wait_for(lambda: shown_seconds(page)[1] <= 298, 20, "the browser's clock counting down")
    sim.stop()                                               # the board goes (its goodbye)
    page.wait_for_function("document.body.dataset.board === 'away'", timeout=ms(30))
    assert page.inner_text("#board-state") == AWAY
    frozen = shown_seconds(page)
    deadline = Deadline(2.5)
    while not deadline.passed():                             # (the page redraws every 250 ms)
        assert shown_seconds(page) == frozen
        page.wait_for_timeout(250)
    # Back on its journal: the browser's clock as it was (the journal keeps it every 5 s: at
    # most that much given back, nothing taken), running again from the board's start (the
    # browser is there).
    started = time.monotonic()
    sim = sims("--remote", ws_broker.url, "--join", "away1", "--seat", "0", "--guest", *args,
               new_game=False)
    assert sim.state()["game"]["moves"] == ["h0.0"]
    page.wait_for_function("document.body.dataset.board === 'here'", timeout=ms(30))
    left = sim.state()["clocks"]["left_ms"][1] / 1000
    since = time.monotonic() - started
    assert frozen[1] - 1 - since <= left <= frozen[1] + 6, (frozen, left, since)

"""A web seat's presence in a real browser (Debian's chromium, as test_browser_web_seat.py): the
page that plays the web seat holds it (ticked, or by moving for it), several tabs may hold it,
and the board (`treeboard sim`) says its player is away once no page does (the last tab closed)
and back when a page holds it again (web/presence.py, app.js's tellPresence)."""

from __future__ import annotations

import json
import urllib.request

from tests.board_driver.browser_harness import browser, chromium, sims  # noqa: F401
from tests.board_driver.test_browser_web_seat import lit, open_page, tap
from tests.waits import ms, scaled, wait_for


def presence(sim) -> dict:
    with urllib.request.urlopen(sim.url + "api/presence", timeout=scaled(5)) as r:
        return json.loads(r.read())


def test_the_pages_holding_a_web_seat_come_and_go_and_the_board_says_it(browser, sims):
    sim = sims("--players", "human", "web")
    first = open_page(browser, sim)
    box = first.wait_for_selector('#presence input[data-hold-seat="1"]', timeout=ms(5))
    assert not box.is_checked()
    assert "I play player 2 on this page" in first.inner_text("#presence")
    box.check()                                  # this page plays player 2
    wait_for(lambda: presence(sim)["held"] == [1], 10, "the seat held")
    second = open_page(browser, sim)             # a second tab: it moves for the seat
    sim.type("place h0.0")
    second.wait_for_selector("body[data-web-turn=yes]", timeout=ms(5))
    lit(second, "h1.1")
    tap(second, "h1.1")
    sim.wait(lambda s: s["game"]["moves"] == ["h0.0", "h1.1"])
    second.wait_for_selector('#presence input[data-hold-seat="1"]:checked', timeout=ms(5))
    first.close()                                # one tab closed: the other still holds it
    wait_for(lambda: presence(sim)["held"] == [1], 10, "the second tab's hold")
    assert presence(sim)["away"] == []
    second.close()                               # the last one: away, said
    wait_for(lambda: presence(sim)["away"] == [1], 15, "the player away")
    wait_for(lambda: "player 2 is away: no page holds the web seat" in sim.said(), 10,
             "the sim to say it")
    state = sim.state()
    assert state["presence"] == [{"seat": 1, "here": False, "words":
                                  "player 2 is away: no page holds the web seat"}]
    third = open_page(browser, sim)              # a tab opened again: the page says away...
    third.wait_for_selector("#presence label.away", timeout=ms(5))
    third.check('#presence input[data-hold-seat="1"]')   # ...until it holds the seat
    wait_for(lambda: presence(sim)["away"] == [], 10, "the player back")
    wait_for(lambda: "player 2 is back on the page" in sim.said(), 10, "the sim to say it")
    third.wait_for_selector("#presence label.here", timeout=ms(5))
    # Hidden (the phone's screen off), the page lets go; shown again, it holds the seat again.
    third.evaluate("""() => {
        Object.defineProperty(document, "visibilityState", {value: "hidden", configurable: true});
        document.dispatchEvent(new Event("visibilitychange"));
    }""")
    wait_for(lambda: presence(sim)["held"] == [], 10, "the hidden page letting go")
    third.evaluate("""() => {
        Object.defineProperty(document, "visibilityState", {value: "visible", configurable: true});
        document.dispatchEvent(new Event("visibilitychange"));
    }""")
    wait_for(lambda: presence(sim)["held"] == [1], 10, "the page shown again holding it")
    third.close()

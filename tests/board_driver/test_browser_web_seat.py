"""A web seat in a real browser (Debian's chromium, as tests/board_driver/test_browser.py):
the board's page in `treeboard sim` is the move-entry surface while a web seat is to move, its
moves made by tapping the picture's [data-site] elements (entry.js, from the entry model of
board_driver/views/entry.py), and the board then shows them for the people there."""

from __future__ import annotations

import pytest

from board_driver.views import entry
from tests.board_driver.browser_harness import ARTIFACTS, DESKTOP, PHONE, browser, chromium, sims  # noqa: F401
from tests.waits import ms


def tap(page, site: str, picture: str = "#board") -> None:
    """A finger on the middle of the site's element (a real click: the browser's own hit test,
    so a site drawn too thin to hit, or covered, fails here)."""
    box = page.locator(f'{picture} [data-site="{site}"]').first.bounding_box()
    assert box is not None, f"{site} is not drawn"
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def lit(page, site: str, how: str = "tap-next") -> None:
    page.wait_for_selector(f'#board [data-site="{site}"].{how}', state="attached",
                           timeout=ms(5))


def open_page(browser, sim):
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    return page


def test_tree_planting_against_a_web_seat_tapped_on_the_page(browser, sims):
    sim = sims("--players", "human", "web")
    page = open_page(browser, sim)
    assert page.is_hidden("#play")   # the person at the board moves first
    sim.type("place h0.0")
    page.wait_for_selector("body[data-web-turn=yes]", timeout=ms(5))
    lit(page, "h1.1")
    assert page.locator('#board [data-site="h0.0"].tap-next').count() == 0
    tap(page, "h0.0")   # a groove with a rod: not lit, nothing happens
    tap(page, "h1.1")
    state = sim.wait(lambda s: s["game"]["moves"] == ["h0.0", "h1.1"])
    assert state["game"]["moves"] == ["h0.0", "h1.1"]
    # The board shows the web seat's move for the person there to put down.
    page.wait_for_selector("#banner.owed:not([hidden])", timeout=ms(5))
    assert "The web seat's move." in page.inner_text("#banner")
    assert page.is_hidden("#play")
    sim.type("place h1.1")
    page.wait_for_selector("#banner[hidden]", state="attached", timeout=ms(5))
    sim.type("place v2.3")
    lit(page, "h3.0")
    ARTIFACTS.mkdir(exist_ok=True)
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        page.screenshot(path=str(ARTIFACTS / f"web-seat-tree-planting-{label}.png"),
                        full_page=True)
    page.set_viewport_size(DESKTOP)
    tap(page, "h3.0")
    state = sim.wait(lambda s: len(s["game"]["moves"]) == 4)
    assert state["game"]["moves"] == ["h0.0", "h1.1", "v2.3", "h3.0"]
    page.close()


def test_game_for_the_trees_both_seats_web_source_target_undo_and_retreat(browser, sims):
    sim = sims("--layout", "game-for-the-trees-matrix", "--players", "web", "web")
    page = open_page(browser, sim)
    page.wait_for_selector("body[data-web-turn=yes]", timeout=ms(5))
    model = sim.state()["entry"]
    # entry.js narrows as entry.py does, after every prefix of every choice.
    for c in model["choices"]:
        for n in range(len(c["taps"]) + 1):
            tapped = c["taps"][:n]
            got = page.evaluate("([m, t]) => TreeboardEntry.narrow(m.choices, t)",
                                [model, tapped])
            want = entry.narrow(model["choices"], tapped)
            assert (got["sites"], got["made"], [b["move"] for b in got["buttons"]]) == \
                (want["sites"], want["made"], [b["move"] for b in want["buttons"]])

    grow = next(c for c in model["choices"] if len(c["taps"]) == 2)
    source, target = grow["taps"]
    tap(page, source)
    lit(page, source, "tap-made")
    lit(page, target)
    page.click('#play-buttons button[data-entry="undo"]')   # a tap taken back
    page.wait_for_selector(f'#board [data-site="{source}"]:not(.tap-made)', state="attached",
                           timeout=ms(5))
    tap(page, source)
    lit(page, target)
    tap(page, target)
    state = sim.wait(lambda s: len(s["game"]["moves"]) == 1)
    assert state["game"]["moves"] == [grow["move"]]
    assert state["fixes"] == []   # the LEDs show the whole position: nothing to put down

    # The other web seat: a retreat is a hold on the board, a button on the page.
    page.wait_for_selector("body[data-web-turn=yes]", timeout=ms(5))
    model = sim.state()["entry"]
    assert model["mover"] == 1
    retreat = next(c for c in model["choices"] if len(c["taps"]) == 1
                   and any(len(o["taps"]) == 2 and o["taps"][0] == c["taps"][0]
                           for o in model["choices"]))
    tap(page, retreat["taps"][0])
    button = page.wait_for_selector(f'#play-buttons button[data-move="{retreat["move"]}"]',
                                    timeout=ms(5))
    assert button.inner_text() == retreat["label"]
    button.click()
    state = sim.wait(lambda s: len(s["game"]["moves"]) == 2)
    assert state["game"]["moves"][-1] == retreat["move"]
    page.close()


def test_a_refused_move_says_why_and_leaves_the_choices(browser, sims):
    """A move the board refuses (here: sent when it is no longer the web seat's turn) is a
    toast with the reason; the game is unchanged."""
    sim = sims("--players", "human", "web")
    page = open_page(browser, sim)
    page.evaluate("post('/api/play', {move: 'h0.0'})")
    page.wait_for_selector("#toast:not([hidden])", timeout=ms(5))
    assert "it is not the web seat's turn" in page.inner_text("#toast")
    assert sim.state()["game"]["moves"] == []
    page.close()


def test_treeblox_web_seat_taps_a_hole_a_place_in_3d_and_the_cubes_kind(browser, sims):
    sim = sims("--layout", "treeblox-adc", "--players", "human", "web")
    page = open_page(browser, sim)
    sim.type("place a1 dark-leaf")
    page.wait_for_selector("body[data-web-turn=yes]", timeout=ms(5))
    tap(page, "c3")   # the first turn takes a leaf only: the tap makes it
    sim.wait(lambda s: s["game"]["moves"] == ["La1", "Lc3"])
    sim.type("place c3 light-leaf", "place a2 dark-branch")
    sim.wait(lambda s: s["game"]["moves"][-1] == "Ba2" and s["entry"] is not None)
    page.wait_for_selector('#play-buttons button[data-move="end"]', timeout=ms(5))
    tap(page, "b4")   # a hole: then the cube's kind, a button each
    page.click('#play-buttons button[data-move="Bb4"]')
    sim.wait(lambda s: s["game"]["moves"][-1] == "Bb4")
    sim.type("place b4 light-branch", "place d1 dark-leaf")
    sim.wait(lambda s: s["game"]["moves"][-1] == "Ld1" and s["entry"] is not None)
    # Above the light branch: a dashed place of the 3D picture, tapped as a hole is.
    page.wait_for_selector('#board3d [data-site="b4+1"].tap-next', state="attached",
                           timeout=ms(5))
    tap(page, "b4+1", "#board3d")
    button = page.wait_for_selector('#play-buttons button[data-move="Lb4+1"]', timeout=ms(5))
    assert button.inner_text() == "Light leaf"
    button.click()
    state = sim.wait(lambda s: s["game"]["moves"][-1] == "Lb4+1")
    assert state["game"]["moves"][-1] == "Lb4+1"
    page.close()

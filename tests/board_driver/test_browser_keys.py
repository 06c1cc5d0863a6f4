"""The move-entry surface by keyboard alone, in a real browser (Debian's chromium, as
tests/board_driver/test_browser_web_seat.py): a web seat reaches the picture with Tab, goes from
lit site to lit site with the arrows, picks with Enter or Space, takes a pick back with
Backspace, cancels with Escape, presses the entry's buttons with Tab and Enter, and types a move
in the game's notation; every lit site is a button named as a person says it (the entry model's
"names", from the views), and chromium's own accessibility tree says so. No test here clicks or
taps: every move is made with `page.keyboard`."""

from __future__ import annotations

import games
from board_driver import views
from board_driver.views import words
from tests.board_driver.browser_harness import (ARTIFACTS, PHONE, browser, chromium,  # noqa: F401
                                                 page_reading, sims)
from tests.board_driver.test_seat_browser import (SECRET, board_touch_move, invite,  # noqa: F401
                                                  host, open_seat, ws_broker)
from tests.waits import ms, wait_for

#: The focused element, as the tests ask about it.
FOCUSED = """(() => {
  const e = document.activeElement;
  return {site: e.getAttribute('data-site'), tag: e.tagName.toLowerCase(),
          lit: e.classList.contains('tap-next'), name: e.getAttribute('aria-label'),
          role: e.getAttribute('role'), tabindex: e.getAttribute('tabindex'),
          picture: e.closest('.picture') && e.closest('.picture').id, move: e.dataset.move,
          entry: e.dataset.entry, value: e.value === undefined ? null : e.value};
})()"""


def focused(page) -> dict:
    return page.evaluate(FOCUSED)


def until(page, script: str, what: str, timeout: float = 5.0) -> None:
    """Wait until `script` (an expression) holds on the page (the board's page forbids
    `wait_for_function`'s eval: its Content-Security-Policy)."""
    wait_for(lambda: page.evaluate(script), timeout, what)


def open_page(browser, sim, languages=("en",)):
    return page_reading(browser, sim, list(languages))


def web_turn(page) -> None:
    page.wait_for_selector("body[data-web-turn=yes]", timeout=ms(5))
    page.wait_for_selector("#board [data-site].tap-next", state="attached", timeout=ms(5))


def tab_to(page, want, what: str, back: bool = False, most: int = 30) -> dict:
    """Press Tab (Shift+Tab) until the focus is where `want` says, as a keyboard user does."""
    for _ in range(most):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        now = focused(page)
        if want(now):
            return now
    raise AssertionError(f"{most} presses of Tab never reached {what}; the focus is on {now}")


def on_picture(f: dict, picture: str = "board") -> bool:
    return f["site"] is not None and f["picture"] == picture


def press(page, key: str) -> dict:
    page.keyboard.press(key)
    return focused(page)


def file_rank(site: str) -> tuple[int, int]:
    return ord(site[0]) - ord("a"), int(site[1:])


def walk_grid(page, start: str, goal: str) -> None:
    """Game for the Trees' lit squares by the arrows, from `start` to `goal` across a block of
    lit squares: each press lands on the very next square that way (rank 1 at the bottom)."""
    at = start
    while at != goal:
        (f, r), (gf, gr) = file_rank(at), file_rank(goal)
        if f != gf:
            key, want = ("ArrowRight", f + 1) if gf > f else ("ArrowLeft", f - 1)
            expected = f"{chr(ord('a') + want)}{r}"
        else:
            key, want = ("ArrowUp", r + 1) if gr > r else ("ArrowDown", r - 1)
            expected = f"{at[0]}{want}"
        now = press(page, key)
        assert now["site"] == expected and now["lit"], f"{key} from {at}: {now}"
        at = expected


def walk_to(page, site: str, picture: str = "#board", most: int = 20) -> None:
    """From the focused lit site to `site` on the same picture by the arrows, each press the
    arrow most toward it on the screen; every press lands on a lit site nearer to it."""
    target = page.locator(f'{picture} [data-site="{site}"]').first.bounding_box()
    tx, ty = target["x"] + target["width"] / 2, target["y"] + target["height"] / 2
    for _ in range(most):
        now = focused(page)
        if now["site"] == site:
            return
        box = page.locator(f'{picture} [data-site="{now["site"]}"]').first.bounding_box()
        dx, dy = tx - (box["x"] + box["width"] / 2), ty - (box["y"] + box["height"] / 2)
        key = ("ArrowRight" if dx > 0 else "ArrowLeft") if abs(dx) >= abs(dy) else \
            ("ArrowDown" if dy > 0 else "ArrowUp")
        after = press(page, key)
        assert after["lit"] and after["site"] != now["site"], f"{key} from {now}: {after}"
    raise AssertionError(f"the arrows never reached {site}; the focus is on {focused(page)}")


def test_tree_planting_played_with_the_keyboard_alone(browser, sims):
    sim = sims("--players", "human", "web")
    page = open_page(browser, sim)
    sim.type("place h0.0")
    web_turn(page)
    model = sim.state()["entry"]
    # The picture is reached with Tab, and is one tab stop: its lit sites are buttons, each
    # named as a person says it (chromium's accessibility tree names it so too).
    page.focus("#language")
    first = tab_to(page, on_picture, "the picture")
    assert first["lit"] and first["role"] == "button" and first["tabindex"] == "0"
    assert first["name"] == model["names"][first["site"]]
    tree = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    buttons = {n["name"]["value"] for n in tree
               if n.get("role", {}).get("value") == "button" and not n.get("ignored")}
    assert {model["names"][s] for s in ("h1.1", "v2.3", "h3.2")} <= buttons
    assert page.locator("#board [data-site][tabindex='0']").count() == 1   # roving
    left = press(page, "Tab")
    assert not on_picture(left)
    assert press(page, "Shift+Tab")["site"] == first["site"]

    # The arrows go to the nearest lit groove that way: along a row of grooves, down a
    # column of them; at the picture's edge, nowhere.
    page.evaluate("document.querySelector('#board [data-site=\"h1.1\"]').focus()")
    for key, site in [("ArrowRight", "h1.2"), ("ArrowDown", "h2.2"), ("ArrowLeft", "h2.1"),
                      ("ArrowUp", "h1.1"), ("ArrowUp", "h0.1"), ("ArrowUp", "h0.1")]:
        now = press(page, key)
        assert now["site"] == site, f"{key}: {now}"
    page.evaluate("document.querySelector('#board [data-site=\"v1.1\"]').focus()")
    assert press(page, "ArrowRight")["site"] == "v1.2"
    # The focus ring: the focused site's own outline and glow, not a lit site's.
    ring = page.evaluate("""(() => {
      const s = (e) => { const c = getComputedStyle(e); return [c.outlineStyle, c.filter]; };
      return [s(document.activeElement), s(document.querySelector('#board [data-site="h1.2"]'))];
    })()""")
    assert ring[0][0] == "solid" and "255, 0, 255" in ring[0][1], ring
    assert ring[1][0] == "none" and "255, 0, 255" not in ring[1][1], ring
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "keys-tree-planting-focus.png"))

    press(page, "Enter")   # v1.2 picked: the move is made
    state = sim.wait(lambda s: s["game"]["moves"] == ["h0.0", "v1.2"])
    assert state["game"]["moves"] == ["h0.0", "v1.2"]
    sim.type("place v1.2", "place h2.3")   # the web seat's move put down, then the person's
    # The web seat's turn again: the focus is back on the picture with no key pressed.
    until(page, "document.activeElement.classList.contains('tap-next')",
          "the focus back on a lit site")
    now = focused(page)
    assert on_picture(now) and sim.state()["game"]["moves"] == ["h0.0", "v1.2", "h2.3"]
    press(page, " ")   # Space picks as Enter does
    state = sim.wait(lambda s: len(s["game"]["moves"]) == 4)
    assert state["game"]["moves"] == ["h0.0", "v1.2", "h2.3", now["site"]]
    page.close()


def test_game_for_the_trees_with_the_keyboard_alone_undo_cancel_and_a_retreat(browser, sims):
    sim = sims("--layout", "game-for-the-trees-matrix", "--players", "web", "web")
    page = open_page(browser, sim)
    web_turn(page)
    page.focus("#language")
    start = tab_to(page, on_picture, "the picture")
    model = sim.state()["entry"]
    assert start["name"] == model["names"][start["site"]] == \
        views.say_site(games.get_game("game-for-the-trees").new_state(), start["site"])
    # The arrows go square by square across the lit sources, to d2.
    walk_grid(page, start["site"], "d2")
    picked = press(page, "Enter")
    page.wait_for_selector('#board [data-site="d2"].tap-made', state="attached", timeout=ms(5))
    # The focus goes on to the nearest target; the arrows go between the targets.
    assert picked["site"] == "d3" and picked["lit"], picked
    assert press(page, "ArrowRight")["site"] == "e3"
    assert press(page, "ArrowLeft")["site"] == "d3"
    # Backspace takes the pick back; Escape cancels the picks.
    press(page, "Backspace")
    page.wait_for_selector('#board [data-site="d2"]:not(.tap-made)', state="attached",
                           timeout=ms(5))
    assert focused(page)["site"] == "d3"   # (a lit source itself)
    assert press(page, "ArrowDown")["site"] == "d2"
    press(page, "Enter")
    page.wait_for_selector('#board [data-site="d2"].tap-made', state="attached", timeout=ms(5))
    press(page, "Escape")
    page.wait_for_selector('#board [data-site="d2"]:not(.tap-made)', state="attached",
                           timeout=ms(5))
    assert page.locator("#play-buttons button[data-entry]").count() == 0
    now = focused(page)
    assert on_picture(now) and now["lit"], now
    walk_grid(page, now["site"], "d2")
    press(page, "Enter")
    assert press(page, "ArrowRight")["site"] == "e3"
    press(page, "Enter")
    state = sim.wait(lambda s: s["game"]["moves"] == ["d2-e3"])
    assert state["game"]["moves"] == ["d2-e3"]

    # The other seat: the focus comes back to the picture by itself; a retreat is a button
    # after its square, reached with Tab and pressed with Enter.
    until(page, "document.body.dataset.webTurn === 'yes' && "
          "document.activeElement.classList.contains('tap-next')",
          "the other seat's turn, the focus back on a lit site")
    model = sim.state()["entry"]
    assert model["mover"] == 1
    retreats = [c for c in model["choices"] if c["move"].startswith("retreat:")
                and any(len(o["taps"]) == 2 and o["taps"][0] == c["taps"][0]
                        for o in model["choices"])]
    now = focused(page)
    retreat = min(retreats, key=lambda c: sum(abs(a - b) for a, b in
                                              zip(file_rank(c["taps"][0]), file_rank(now["site"]))))
    walk_grid(page, now["site"], retreat["taps"][0])
    press(page, "Enter")
    button = tab_to(page, lambda f: f["move"] == retreat["move"], "the retreat's button")
    assert page.inner_text(f'#play-buttons button[data-move="{retreat["move"]}"]') == \
        retreat["label"]
    assert button["move"] == retreat["move"]
    press(page, "Enter")
    state = sim.wait(lambda s: len(s["game"]["moves"]) == 2)
    assert state["game"]["moves"] == ["d2-e3", retreat["move"]]
    page.close()


def test_a_move_typed_in_notation_refused_with_its_reason_then_played(browser, sims):
    sim = sims("--players", "human", "web")
    page = open_page(browser, sim)
    sim.type("place h0.0")
    web_turn(page)
    page.focus("#language")
    tab_to(page, on_picture, "the picture")
    box = tab_to(page, lambda f: f["tag"] == "input" and f["value"] is not None,
                 "the box a move is typed into")
    label = page.evaluate("document.activeElement.labels[0].textContent.trim()")
    assert label == "Type a move in the game's notation"
    page.keyboard.type("h0.0")   # a groove with a rod already
    page.keyboard.press("Enter")
    page.wait_for_selector("#toast:not([hidden])", timeout=ms(5))
    toast = page.inner_text("#toast")
    assert toast == "groove h0.0 already has a rod", toast
    assert sim.state()["game"]["moves"] == ["h0.0"]
    assert focused(page)["value"] == "h0.0"   # kept, to be put right
    page.keyboard.press("Control+A")
    page.keyboard.type("v2.3")
    page.keyboard.press("Enter")
    state = sim.wait(lambda s: s["game"]["moves"] == ["h0.0", "v2.3"])
    assert state["game"]["moves"] == ["h0.0", "v2.3"]
    until(page, "document.querySelector('.entry-typed input').value === ''",
          "the typed box emptied once the move is played")
    page.close()


def test_the_sites_names_and_the_keys_words_are_the_pages_language(browser, sims):
    sim = sims("--players", "human", "web")
    page = open_page(browser, sim, ["zh"])
    sim.type("place h0.0")
    web_turn(page)
    page.focus("#language")
    now = tab_to(page, on_picture, "the picture")
    state = games.get_game("tree-planting").new_state(**sim.state()["options"])
    state.play(state.parse_move("h0.0"))
    with words.speaking("zh"):
        said = views.say_site(state, now["site"])
        typed = words.tr("Type a move in the game's notation")
    assert now["name"] == said and said != views.say_site(state, now["site"])
    assert page.inner_text(".entry-typed label").strip() == typed != \
        "Type a move in the game's notation"
    page.close()



def test_the_seat_page_by_keyboard_a_retreat_and_a_typed_move_refused_then_played(
        tmp_path, ws_broker, sims, browser, monkeypatch):
    """The internet seat page uses the same entry.js: its picture by keyboard (a retreat, its
    button reached with Tab), and the typed box, whose refusal the page shows with the board's
    reason."""
    import random

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    sim = host(sims, ws_broker, "keys1", "--game", "game-for-the-trees")
    page = open_seat(browser, invite(ws_broker, "keys1", 1, TREEBOARD_REMOTE_SECRET=SECRET))
    game, rng = games.get_game("game-for-the-trees"), random.Random(5)
    state = game.new_state(**sim.state()["options"])
    first = board_touch_move(sim, state, rng)
    sim.wait(lambda s: s["game"]["moves"] == [first], 20)
    state.play(state.parse_move(first))
    page.wait_for_function("document.body.dataset.index == 1 && "
                           "document.body.dataset.turn === 'yours'", timeout=ms(20))
    page.wait_for_selector("#picture [data-site].tap-next", state="attached", timeout=ms(5))
    page.focus("body")
    now = tab_to(page, lambda f: on_picture(f, "picture"), "the seat page's picture")
    assert now["name"] == views.say_site(state, now["site"]) and now["role"] == "button"
    retreat = sorted(str(m) for m in state.legal_moves() if str(m).startswith("retreat:"))[0]
    walk_grid(page, now["site"], retreat.split(":")[1])
    press(page, "Enter")
    tab_to(page, lambda f: f["move"] == retreat, "the retreat's button")
    press(page, "Enter")
    sim.wait(lambda s: len(s["game"]["moves"]) == 2, 20)
    assert sim.state()["game"]["moves"] == [first, retreat]
    state.play(state.parse_move(retreat))

    third = board_touch_move(sim, state, rng)
    sim.wait(lambda s: len(s["game"]["moves"]) == 3, 20)
    state.play(state.parse_move(third))
    page.wait_for_function("document.body.dataset.index == 3 && "
                           "document.body.dataset.turn === 'yours'", timeout=ms(20))
    tab_to(page, lambda f: f["tag"] == "input" and f["value"] is not None,
           "the box a move is typed into")
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / "keys-seat-page-phone.png"), full_page=True)
    page.keyboard.type("a1-a2")   # the other side's square
    page.keyboard.press("Enter")
    page.wait_for_selector("#refused:not([hidden])", timeout=ms(20))
    refused = page.inner_text("#refused")
    assert refused == "a1-a2: a1 holds a White Birch, nothing of yours to grow", refused
    assert len(sim.state()["game"]["moves"]) == 3 and focused(page)["value"] == "a1-a2"
    legal = next(str(m) for m in state.legal_moves() if not str(m).startswith("retreat:"))
    page.keyboard.press("Control+A")
    page.keyboard.type(legal)
    page.keyboard.press("Enter")
    sim.wait(lambda s: len(s["game"]["moves"]) == 4, 20)
    assert sim.state()["game"]["moves"][-1] == legal
    page.wait_for_function("document.querySelector('.entry-typed input').value === ''",
                           timeout=ms(20))


def test_treeblox_two_pictures_each_a_tab_stop_a_hole_and_a_place_above_by_keyboard(
        browser, sims):
    """Treeblox's lit sites are on two pictures (the board's holes, the 3D view's places
    above): each picture is a tab stop of its own, and the cube's kind a button after them."""
    sim = sims("--layout", "treeblox-adc", "--players", "human", "web")
    page = open_page(browser, sim)
    sim.type("place a1 dark-leaf")
    web_turn(page)
    page.focus("#language")
    tab_to(page, on_picture, "the board's picture")
    walk_to(page, "c3")
    press(page, "Enter")   # the first turn takes a leaf only: the key makes it
    sim.wait(lambda s: s["game"]["moves"] == ["La1", "Lc3"])
    sim.type("place c3 light-leaf", "place a2 dark-branch")
    sim.wait(lambda s: s["game"]["moves"][-1] == "Ba2" and s["entry"] is not None)
    until(page, "document.activeElement.classList.contains('tap-next')",
          "the focus back on a lit hole")
    walk_to(page, "b4")
    press(page, "Enter")
    tab_to(page, lambda f: f["move"] == "Bb4", "the branch's button")
    press(page, "Enter")
    sim.wait(lambda s: s["game"]["moves"][-1] == "Bb4")
    sim.type("place b4 light-branch", "place d1 dark-leaf")
    sim.wait(lambda s: s["game"]["moves"][-1] == "Ld1" and s["entry"] is not None)
    page.wait_for_selector('#board3d [data-site="b4+1"].tap-next', state="attached",
                           timeout=ms(5))
    until(page, "document.activeElement.classList.contains('tap-next')",
          "the focus back on a lit hole")
    assert focused(page)["picture"] == "board"
    now = tab_to(page, lambda f: on_picture(f, "board3d") and f["lit"], "the 3D picture")
    assert now["name"] == sim.state()["entry"]["names"][now["site"]]
    walk_to(page, "b4+1", "#board3d")
    press(page, "Enter")
    tab_to(page, lambda f: f["move"] == "Lb4+1", "the leaf's button")
    press(page, "Enter")
    state = sim.wait(lambda s: s["game"]["moves"][-1] == "Lb4+1")
    assert state["game"]["moves"][-1] == "Lb4+1"
    page.close()

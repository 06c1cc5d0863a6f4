"""Ending and pausing a game on the page, in a real browser (Debian's chromium, as
tests/board_driver/test_browser.py): a draw offered and refused, the game put away and taken up
again from the library, then resigned."""

from __future__ import annotations

from tests.board_driver.browser_harness import ARTIFACTS, browser, chromium, sims  # noqa: F401


def test_the_page_offers_a_draw_puts_away_takes_up_and_resigns(browser, sims):
    sim = sims()
    sim.type("place h0.0")
    assert sim.wait(lambda s: s["game"]["moves"] == ["h0.0"])["game"]["moves"] == ["h0.0"]
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    page.click("#offer-draw")
    page.wait_for_selector("#draw-offer-text:text('player 2 offers a draw: player 1, accept "
                           "or refuse')")
    assert page.is_disabled("#offer-draw")
    page.click("#draw-refuse")
    page.wait_for_selector("#draw-offer", state="hidden")
    page.click("#put-away")
    page.click("#confirm-yes")
    state = sim.wait(lambda s: s["game"]["moves"] == [])
    assert state["game"]["moves"] == [] and not state["ending"]["can_put_away"]
    page.click("#history summary")
    page.wait_for_selector("#games button[data-take-up]")
    game = page.get_attribute("#games button[data-take-up]", "data-take-up")
    page.click("#games button[data-take-up]")
    page.click("#confirm-yes")
    assert sim.wait(lambda s: s["game"]["moves"] == ["h0.0"])["game"]["moves"] == ["h0.0"]
    page.click("#resign")
    page.click("#confirm-yes")
    page.wait_for_selector("#result:text('player 2 resigned: player 1 wins')")
    assert f"game {game} taken up again at move 1" in sim.said()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "endings-desktop.png"), full_page=True)

"""A player away, on the page in a real browser (Debian's chromium, as test_browser.py): the
sentence and the present player's buttons appear past the grace; a button pauses the clocks,
and the page says so. The player's going is typed into `treeboard sim` as a trace says what a
link would (`absent 1 away`)."""

from __future__ import annotations

from tests.board_driver.browser_harness import browser, chromium, sims  # noqa: F401
from tests.waits import ms


def test_the_page_asks_the_present_player_and_pauses_the_clocks(browser, sims, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('backend = "sim"\nlayout = "tree-planting-classic-pins"\n'
                      'time_control = "5"\naway_grace_seconds = 1\n')
    sim = sims("--config", str(config))
    sim.type("place h0.0")
    sim.wait(lambda s: s["game"]["moves"] == ["h0.0"])
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    assert page.is_hidden("#absent")
    sim.type("absent 1 away")
    page.wait_for_selector("#absent-text:text('player 2 is away: player 1 may pause the clocks "
                           "until they return')", timeout=ms(20))
    buttons = page.eval_on_selector_all("#absent-choices button",
                                        "els => els.map(e => e.dataset.choice)")
    assert buttons == ["pause", "wait", "claim", "draw"]
    page.click("#absent-choices button[data-choice=pause]")
    page.wait_for_selector("#absent-text:text('the clocks are paused until player 2 returns')",
                           timeout=ms(20))
    state = sim.wait(lambda s: s["absent"] and s["absent"]["paused"])
    assert state["clocks"]["running"] is None
    sim.type("absent 1 here")
    page.wait_for_selector("#absent", state="hidden", timeout=ms(20))
    assert "player 2 is back: the clocks run again" in sim.said()

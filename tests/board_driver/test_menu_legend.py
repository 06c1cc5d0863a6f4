"""The game menu's legend (the page's and the sim's `legend`, views.menu_legend) names what its
sites do now: while the other side's takeback request waits, accepting and refusing it; while
the player to move is away, the present player's choices (board_driver/referee/menu.py)."""

from __future__ import annotations

import pytest

from board_driver import views
from board_driver.config import sim_config
from board_driver.daemon.remote_part import answered_on_the_board
from board_driver.referee.tracer import Tracer
from board_driver.remote.guest import GuestLink
from board_driver.remote.link import RemoteLink, RemoteSettings
from board_driver.views import words
from tests.board_driver.test_guest_takeback import SECRET, from_the_other_side


def game_menu_meaning(t) -> str:
    moment = t.referee.moment(t.clock())
    assert moment.menu is not None and moment.menu.game
    (row,) = [e for e in views.legend(moment.state, moment) if e["name"] == "menu-ending"]
    return row["means"]


@pytest.mark.parametrize("other", ["browser", "board"])
def test_the_game_menus_legend_names_the_takeback_answer_while_a_request_waits(tmp_path, other):
    t = Tracer(sim_config(layout="game-for-the-trees-matrix", journal=str(tmp_path / "j.sqlite")))
    try:
        t.referee.set_seats(("remote", "human"))
        guest = other == "browser"
        link = (GuestLink if guest else RemoteLink)(RemoteSettings(
            host="h", port=1, tls=False, game_id="g1", secret=SECRET, seat=0,
            state_dir=str(tmp_path), guest=guest), t.referee, t.clock)
        answered_on_the_board(t.referee, lambda: link, lambda fn, *a: None)   # (the daemon's)
        first, last = t.referee.menu.corners

        def corners():
            t.step("place", [first])
            t.step("place", [last])                 # both corners touched at once
            t.step("lift", [first])
            t.step("lift", [last])

        from_the_other_side(link, guest, str(t.referee.state.legal_moves()[0]))
        corners()                                   # no request: no takeback in the legend
        meaning = game_menu_meaning(t)
        assert "takeback" not in meaning and "resign" in meaning
        corners()
        assert not t.referee.menu.open
        from_the_other_side(link, guest, None)      # the other side asks to take back
        corners()
        meaning = game_menu_meaning(t)
        assert "accept the takeback" in meaning and "refuse the takeback" in meaning
        assert meaning.endswith("(blinking green: do it)")
        with words.speaking("zh"):
            zh = game_menu_meaning(t)
        assert words.translation("zh").gettext("accept the takeback") in zh and "takeback" not in zh
    finally:
        t.close()


def test_the_legend_of_the_menu_closed_says_what_the_game_menu_may_offer():
    """With no menu open (the page's legend of every menu colour), the game menu's entry names
    the takeback answer and the away player's choices among what it may offer."""
    from board_driver.moment import Moment
    from board_driver.config import DEFAULT_COLOURS

    rows = views.menu_legend(Moment.still(DEFAULT_COLOURS))
    (row,) = [e for e in rows if e["name"] == "menu-ending"]
    assert "takeback" in row["means"] and "away" in row["means"]

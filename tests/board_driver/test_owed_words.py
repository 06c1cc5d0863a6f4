"""Whose move waits to be put on the board, as the page's banner, the voice and the sim say it:
a move from a browser's seat across the internet is the player in the browser's, never "the
other board's" (remote/guest.py plays it for a seat of kind "remote"); the other board's, the
web seat's and the computer's keep their own words."""

from __future__ import annotations

from board_driver.remote import seat as sp
from board_driver.views import words
from board_driver.views.narrate import Narrator, first_to_make, owed_by
from board_driver.web import snapshot
from tests.board_driver.test_remote_seat import SECRET, _play, host  # noqa: F401


def page(tracer, link) -> dict:
    return snapshot.page_state(tracer.referee, layout_name="sim", token_required=False,
                               version=1, instance="t", now=tracer.clock(),
                               remote=link.summary())


def test_a_browsers_move_is_the_player_in_the_browsers_on_the_page_voice_and_sim(host):
    tracer, link = host
    tracer.step("place", ["h0.0"])                       # the board's own move (seat 0)
    narrator = Narrator()
    narrator.link(link.summary())
    narrator(tracer.referee.moment(tracer.clock()))
    _play(link, sp.seat_key(SECRET, "g1", 1), "v0.0", 1, pid="0000000001")
    moment = tracer.referee.moment(tracer.clock())
    assert [str(m) for m in moment.state.moves] == ["h0.0", "v0.0"]
    assert moment.to_make_by == "remote"                 # (a remote seat's, as the link plays it)
    state = page(tracer, link)
    assert state["owed_by"] == "The move of the player in the browser."
    assert "other board" not in state["owed_by"]
    with words.speaking("zh"):
        assert page(tracer, link)["owed_by"] == "浏览器里的棋手的着法。"
    # A piece put elsewhere first: the board says whose move to put down first.
    tracer.step("place", ["h3.0"])
    said = [s.text for s in narrator(tracer.referee.moment(tracer.clock()))]
    assert any("first put the move of the player in the browser" in s for s in said), said
    assert not any("other board" in s for s in said), said


def test_the_other_seats_keep_their_own_words():
    from types import SimpleNamespace

    def moment(by):
        return SimpleNamespace(to_make_by=by, corrections=(), to_make=frozenset())

    assert owed_by(moment("remote")) == "The other board's move."
    assert owed_by(moment("remote"), guest=True) == "The move of the player in the browser."
    assert owed_by(moment("web")) == "The web seat's move."
    assert owed_by(moment("web"), guest=True) == "The web seat's move."
    assert owed_by(moment("computer")) == "The computer's move."
    assert first_to_make(moment("remote"), ("player 1", "player 2")) is None

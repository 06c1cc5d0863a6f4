"""A player away from a game (board_driver/referee/absence.py): never forfeited automatically;
past the grace the board says so and the present player chooses: pause the clocks until the
player returns, wait with the clock running, or (a timed game) claim it or call it a draw.
Journaled: paused clocks stay paused across a restart."""

from __future__ import annotations

import asyncio
import contextlib
from types import SimpleNamespace

import pytest

from board_driver.config import sim_config
from board_driver.daemon.guest_view import guest_view
from board_driver.daemon.remote_part import tell_presence
from board_driver.records import library, sgf
from board_driver.referee.absence import GRACE_S
from board_driver.referee.clock import parse_time_control
from board_driver.referee.tracer import Tracer
from board_driver.views.absence import ASK_HZ, absent_turn
from tests.board_driver.test_board_words import state_json

LAYOUT = "tree-planting-4x4-matrix"


@pytest.fixture
def board(tmp_path):
    """Traced boards playing seat 0 here, seat 1 from a browser ("remote"), on one journal."""
    with contextlib.ExitStack() as boards:
        yield lambda clock="5", new_game=True: boards.enter_context(contextlib.closing(Tracer(
            sim_config(journal=str(tmp_path / "j.sqlite"), layout=LAYOUT,
                       players=("human", "remote"),
                       time_control=parse_time_control(clock) if clock else None),
            new_game=new_game)))


def said(t, verb, *args):
    return t.step(verb, list(args))["said"]


def left(t):
    return t.referee.clocks_left(t.clock.now)


def away_to_move(t):
    """Seat 0 moves here; seat 1's player (to move) goes away."""
    said(t, "place", "h0.0")
    assert t.referee.state.to_move == 1
    said(t, "absent", "1", "away")


def test_the_player_to_move_away_is_asked_after_the_grace_and_never_forfeited(board):
    t = board("1")
    away_to_move(t)
    said(t, "wait", str(int((GRACE_S - 1) * 1000)))
    assert not t.moment().absent.asked and state_json(t)["absent"] is None
    words = said(t, "wait", "2000")
    question = ("player 2 is away: player 1 may pause the clocks until they return, wait with "
                "the clock running, claim the game or call it a draw")
    assert question in words
    page = state_json(t)["absent"]
    assert page["words"] == question and [c["choice"] for c in page["choices"]] == [
        "pause", "wait", "claim", "draw"]
    assert left(t)[1] < 60 - GRACE_S + 1   # its clock ran all along (lichess's way)
    now, half = t.clock.now, 1 / (2 * ASK_HZ)   # the turn LEDs blink the present player's colour
    assert {t.referee.frame(now + i * half)[0]["turn"] for i in (0, 1)} == {
        t.referee.settings.colours["player0"], (0, 0, 0)}
    said(t, "wait", "600000")               # its minute is long gone: still not forfeited
    assert not t.referee.over and t.referee.flagged is None
    # "wait": the clock runs on, the question comes back after another grace
    said(t, "absent", "wait")
    assert not t.moment().absent.asked
    assert question in said(t, "wait", str(int(GRACE_S * 1000 + 1000)))


def test_the_turn_leds_blink_the_present_players_colour_while_asked_and_wait_while_paused():
    from board_driver.moment import AbsentFace

    layout = SimpleNamespace(named_leds={"turn": [0]})
    colours = {"player0": (1, 2, 3), "player1": (4, 5, 6), "waiting": (7, 7, 7)}
    asked = AbsentFace(seat=1, asked=True, choices=("pause",))
    lit, wake = absent_turn({}, asked, colours, layout, 0.1, None)
    dark, _ = absent_turn({}, asked, colours, layout, 0.1 + 1 / (2 * ASK_HZ), None)
    assert lit["turn"] == (1, 2, 3) and dark["turn"] == (0, 0, 0) and wake == 1 / (2 * ASK_HZ)
    paused, wake = absent_turn({}, AbsentFace(seat=1, paused=True), colours, layout, 0.1, None)
    assert paused["turn"] == (7, 7, 7) and wake is None
    assert absent_turn({"x": 1}, AbsentFace(seat=1), colours, layout, 0.1, 5.0) == ({"x": 1}, 5.0)


def test_paused_clocks_stay_paused_across_a_restart_and_run_when_the_player_returns(board):
    t = board("5")
    away_to_move(t)
    said(t, "wait", str(int(GRACE_S * 1000 + 500)))
    words = said(t, "absent", "pause")
    assert "the clocks are paused until player 2 returns" in words
    kept = left(t)
    said(t, "wait", "120000")
    assert left(t) == kept and t.moment().absent.paused
    colours = t.referee.settings.colours
    assert t.referee.frame(t.clock.now)[0]["turn"] == colours["waiting"]   # the LEDs say it
    assert state_json(t)["absent"]["words"] == ("player 2 is away: the clocks are paused until "
                                                "player 2 returns")
    t.close()
    t = board("5", new_game=False)      # the board restarts: still paused
    assert left(t) == pytest.approx(kept, abs=0.001)
    said(t, "wait", "60000")
    assert left(t) == pytest.approx(kept, abs=0.001) and t.moment().absent.paused
    # the link says it is back: its clock runs again, and the board says so
    assert "player 2 is back: the clocks run again" in said(t, "absent", "1", "here")
    said(t, "wait", "10000")
    assert left(t)[1] == pytest.approx(kept[1] - 10, abs=0.01)
    assert t.moment().absent.seat is None


@pytest.mark.parametrize("choice, summary, result, words", [
    ("claim", {"forfeit": 1, "winner": 0}, "B+F", "player 2 was away: player 1 claimed the game"),
    ("draw", {"drawn_away": 1, "winner": None}, "0", "player 2 was away: the game ends in a draw")])
def test_a_claim_or_a_draw_ends_the_game_journaled_with_its_record(board, choice, summary,
                                                                   result, words):
    t = board("5")
    away_to_move(t)
    said(t, "wait", str(int(GRACE_S * 1000 + 500)))
    assert words in said(t, "absent", choice)
    assert t.referee.over and state_json(t)["result"] == words
    assert guest_view(t.referee, t.clock.now, 1)["sentence"] == words   # the browser's view
    saved = t.session.journal.history(limit=1)[0]
    assert saved.status == "finished" and summary.items() <= saved.summary.items()
    [record] = library.export(t.session.journal, [saved.game_id])
    assert record.result == result and sgf.read(sgf.dumps([record])) == [record]
    [listed] = t.session.journal.listing(statuses=library.EVERY_STATUS)
    assert library.result_words(listed) == words
    t.close()
    t = board("5", new_game=False)      # shown finished after a restart
    assert t.referee.over and state_json(t)["result"] == words


def test_nothing_to_choose_before_the_grace_in_an_untimed_game_or_of_another_board(board):
    t = board(None)                      # untimed: the game just waits
    away_to_move(t)
    with pytest.raises(Exception, match="no player to move is away"):
        t.door.absent_choice("pause")
    words = said(t, "wait", str(int(GRACE_S * 1000 + 500)))
    assert "player 2 is away: the game waits for them, nothing is lost" in words
    with pytest.raises(Exception, match="nothing to choose"):
        t.door.absent_choice("claim")
    assert not t.referee.over
    t.close()
    t = board(None)                      # another board, untimed: it waits too
    said(t, "place", "h0.0")
    t.door.seen(1, False, hosted=False)
    words = said(t, "wait", str(int(GRACE_S * 1000 + 500)))
    assert ("player 2 is away (the other board): its clock is its own board's; the game "
            "waits, nothing is lost") in words
    with pytest.raises(Exception, match="nothing to choose"):
        t.door.absent_choice("pause")


@pytest.mark.parametrize("hosted", [True, False])
def test_a_board_cut_off_from_the_broker_offers_nothing_and_a_browsers_clock_stops(board,
                                                                                  hosted):
    t = board("5")
    said(t, "place", "h0.0")
    t.door.seen(1, False, hosted=hosted, cut_off=True)   # this board's own link is down
    kept = left(t)[1]
    words = said(t, "wait", str(int(GRACE_S * 1000 + 500)))
    assert ("this board has no link to the broker: it cannot tell whether player 2 is there; "
            "the game waits, nothing is lost") in words
    assert t.moment().absent.choices == () and state_json(t)["absent"]["choices"] == []
    with pytest.raises(Exception, match="nothing to choose"):
        t.door.absent_choice("claim")
    # a browser cannot move while the board is cut off: its clock stops; another board's
    # clock is its own (this board's copy runs on, corrected by its next move)
    assert (left(t)[1] == kept) == hosted
    t.door.seen(1, False, hosted=hosted, cut_off=False)  # the link is back, the other still away
    assert t.moment().absent.choices == ("pause", "wait", "claim", "draw")


def test_the_link_tells_the_referee_whether_the_other_side_is_there(board):
    t = board("5")
    said(t, "place", "h0.0")
    shown = []
    link = SimpleNamespace(settings=SimpleNamespace(seat=1, watching=False, guest=True),
                           peer_online=False, linked=True,
                           after_change=lambda: shown.append(1))
    daemon = SimpleNamespace(session=t.session, loop=SimpleNamespace(time=t.clock))
    tell_presence(link, daemon)
    link.after_change()                  # (a message handled, the broker gone: the link says)
    said(t, "wait", str(int(GRACE_S * 1000 + 500)))
    assert t.moment().absent.asked and shown == [1]
    link.peer_online = True
    link.after_change()
    assert t.moment().absent is None or t.moment().absent.seat is None


def test_the_page_chooses_with_a_control_action(board):
    from aiohttp.test_utils import TestClient, TestServer

    from board_driver.web.server import WebServer

    t = board("5")
    away_to_move(t)
    server = WebServer(t.door, listen="127.0.0.1", port=0, token=None)

    async def run():
        async with TestClient(TestServer(server.app())) as client:
            async def post(body):
                r = await client.post("/api/absent", json=body, headers={"Host": "localhost"})
                return r.status, await r.json() if r.status != 400 else None

            assert (await post({"choice": "pause"}))[0] == 409   # not past the grace yet
            said(t, "wait", str(int(GRACE_S * 1000 + 500)))
            assert (await post({"choice": "forfeit"}))[0] == 400
            status, body = await post({"choice": "pause"})
            assert status == 200 and body["absent"]["paused"]
            status, body = await post({"choice": "claim"})
            assert status == 200 and body["result"] == ("player 2 was away: player 1 claimed "
                                                        "the game")

    asyncio.run(run())


def test_a_browsers_clock_is_flagged_here_while_it_is_there_and_never_while_it_is_away(board):
    t = board("0.05")                    # 3 s each
    said(t, "place", "h0.0")
    said(t, "absent", "1", "here")       # the browser is there: its clock is this board's
    said(t, "wait", "4000")
    assert t.referee.flagged == 1 and t.referee.over
    t.close()
    t = board("0.05")
    said(t, "place", "h0.0")
    said(t, "absent", "1", "away")       # away: its clock stops at 0, and nothing is lost
    said(t, "wait", "4000")
    assert t.referee.flagged is None and not t.referee.over and left(t)[1] == 0
    said(t, "wait", str(int(GRACE_S * 1000)))
    assert t.moment().absent.asked and "claim" in t.moment().absent.choices
    said(t, "absent", "1", "here")       # back, with no time left: lost on time now
    assert t.referee.flagged == 1


def test_the_boards_game_menu_offers_the_choices_while_the_player_to_move_is_away(tmp_path):
    from tests.board_driver.test_endings import _choose, _with_menu_button

    t = Tracer(sim_config(journal=str(tmp_path / "j.sqlite"), layout=_with_menu_button(tmp_path),
                          players=("human", "remote"), time_control=parse_time_control("5")))
    try:
        said(t, "place", "h0.0")
        said(t, "absent", "1", "away")
        t.step("press", ["menu"])           # not past the grace: nothing of it
        assert not [c for c in t.referee.menu.sites.values() if c.value and
                    str(c.value).startswith("absent-")]
        t.step("press", ["menu"])           # (leaves it)
        said(t, "wait", str(int(GRACE_S * 1000 + 500)))
        t.step("press", ["menu"])
        values = [c.value for c in t.referee.menu.sites.values() if c.group == "ending"]
        assert values[-4:] == ["absent-pause", "absent-wait", "absent-claim", "absent-draw"]
        _choose(t, "ending", "absent-pause")
        _, done = _choose(t, "apply")
        assert "the clocks are paused until player 2 returns" in done["said"]
        assert t.moment().absent.paused
    finally:
        t.close()

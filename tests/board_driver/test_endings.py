"""Ending and pausing a game (board_driver/referee/endings.py): a resignation, a draw offered and
answered (by a person here, and by the computer's search in its worker), a game put away and
taken up again, each journaled and each surviving a power cut; what the board says and lights;
bad input refused with nothing changed. Traced boards (simulated time)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from concurrent.futures import Future
from pathlib import Path

import pytest

import games
import games.ai
from board_driver import views
from board_driver.config import sim_config
from board_driver.records import library, sgf
from board_driver.referee.actions import ActionError, act, parse_action
from board_driver.referee.clock import parse_time_control
from board_driver.referee.endings import DRAW_LEVEL, is_level
from board_driver.referee.journal import Journal, JournalError
from board_driver.referee.seats import ComputerSeat, draw_is_level
from board_driver.referee.tracer import Tracer
from board_driver.views.ending import OFFER_HZ, turn_colour
from tests.board_driver.test_board_words import state_json

LAYOUT = "tree-planting-4x4-matrix"


@pytest.fixture
def board(tmp_path):
    """Traced boards (on LAYOUT, their journal in tmp_path, unless named), closed after."""
    with contextlib.ExitStack() as boards:
        yield lambda new_game=True, **named: boards.enter_context(contextlib.closing(Tracer(
            sim_config(**{"journal": str(tmp_path / "j.sqlite"), "layout": LAYOUT, **named}),
            new_game=new_game)))


def said(t, verb, *args):
    return t.step(verb, list(args))["said"]


def untouched(t):
    """What a refusal must leave as it was: the game, the journal's games, the offer."""
    journal = t.session.journal
    return (t.referee.state.to_json(), [(g.game_id, g.status, g.summary) for g in
                                        journal.listing(statuses=library.EVERY_STATUS)],
            t.referee.endings.offer, t.referee.endings.ended)


def test_a_resignation_ends_the_game_journaled_and_its_record_says_so(board):
    t = board()
    said(t, "place", "h0.0")
    said(t, "place", "h1.0")
    assert said(t, "resign") == ["player 1 resigned: player 2 wins"]   # the player to move
    assert t.referee.over and not t.referee.state.is_over()
    saved = t.session.journal.history(limit=1)[0]
    assert saved.status == "finished" and saved.summary["resigned"] == 0
    assert saved.summary["winner"] == 1
    page = state_json(t)
    assert page["result"] == "player 1 resigned: player 2 wins" and not page["takeback"]
    assert not page["ending"]["can_resign"] and not page["ending"]["can_put_away"]
    # the record: RE W+R, read back exactly, by our reader and the SGF library
    [record] = library.export(t.session.journal, [saved.game_id])
    assert record.result == "W+R"
    text = sgf.dumps([record])
    assert sgf.read(text) == [record]
    import sgfmill.sgf

    assert sgfmill.sgf.Sgf_game.from_bytes(text).get_root().get("RE") == "W+R"
    # over: nothing more to end, and no takeback of a resigned game
    before = untouched(t)
    for verb in ("resign", "draw", "away"):
        with pytest.raises(games.IllegalMove) as refused:
            act(t.door, verb, [])
        assert "the game is over" in str(refused.value.reason)
    with pytest.raises(games.IllegalMove):
        t.door.takeback()
    assert untouched(t) == before
    # clearing the board starts the next game, as after any end
    said(t, "lift", "h0.0")
    said(t, "lift", "h1.0")
    assert not t.referee.over and not t.referee.state.moves


def test_only_a_seat_played_here_resigns_or_offers(board):
    t = board()
    t.referee.set_seats(("human", "computer:easy"))
    said(t, "place", "h0.0")
    before = untouched(t)
    for verb in ("resign", "draw"):
        with pytest.raises(games.IllegalMove) as refused:
            act(t.door, verb, ["1"])
        assert str(refused.value.reason) == "player 2 is not played here"
    with pytest.raises(ActionError):
        parse_action("resign 2")
    with pytest.raises(ActionError):
        parse_action("draw maybe")
    assert untouched(t) == before
    # no seat given: the one seat played here, whoever is to move
    assert t.door.resign() == 0


def test_a_draw_offered_is_refused_then_accepted_and_journaled_as_agreed(board):
    t = board()
    said(t, "place", "h0.0")
    assert said(t, "draw") == ["player 2 offers a draw: player 1, accept or refuse"]
    face = t.moment().ending
    assert face.offer_by == 1 and face.asked == "board"
    page = state_json(t)["ending"]
    assert page["offer_by"] == 1 and page["can_answer"] and not page["can_offer"]
    before = untouched(t)
    with pytest.raises(games.IllegalMove) as refused:
        act(t.door, "draw", [])
    assert "on offer already" in str(refused.value.reason)
    assert untouched(t) == before
    assert said(t, "draw", "refuse") == ["player 1 refuses the draw: play on"]
    assert t.moment().ending.offer_by is None and not t.referee.over
    said(t, "draw")
    assert said(t, "draw", "accept") == ["a draw by agreement"]
    saved = t.session.journal.history(limit=1)[0]
    assert saved.summary["agreed"] is True and saved.summary["winner"] is None
    [record] = library.export(t.session.journal, [saved.game_id])
    assert record.result == "0" and sgf.read(sgf.dumps([record])) == [record]
    assert library.result_words(t.session.journal.listing()[0]) == "a draw by agreement"


def test_a_draw_answer_with_no_offer_is_refused_and_an_offer_lapses_with_a_move(board):
    t = board()
    said(t, "place", "h0.0")
    before = untouched(t)
    for answer in ("accept", "refuse"):
        with pytest.raises(games.IllegalMove) as refused:
            act(t.door, "draw", [answer])
        assert str(refused.value.reason) == "no draw is on offer"
    assert untouched(t) == before
    said(t, "draw")   # player 2, to move, offers; then plays on instead
    assert "the draw offer lapsed: the game moved on" in said(t, "place", "h1.0")
    with pytest.raises(games.IllegalMove):
        t.door.answer_draw(True)
    assert not t.referee.over


def test_an_offered_draw_is_on_the_turn_leds_in_both_colours_in_turn(board):
    t = board()
    said(t, "place", "h0.0")
    colours = t.referee.settings.colours
    said(t, "draw")
    half = 1 / (2 * OFFER_HZ)
    shown = set()
    for k in range(4):
        frame, wake = t.referee.frame(1000 + k * half + 0.01)
        shown.add(frame["turn"])
        assert wake is not None and wake <= 1000 + (k + 1) * half + 1e-9
    assert shown == {tuple(colours["player0"]), tuple(colours["player1"])}
    said(t, "draw", "refuse")
    frame, _ = t.referee.frame(1000.0)
    assert frame["turn"] == tuple(colours["player1"])   # the turn again: player 2 to move
    said(t, "resign", "0")
    assert turn_colour(t.moment().ending, colours, 0.0)[0] == tuple(colours["player1"])
    frame, _ = t.referee.frame(1001.0)
    assert frame["turn"] == tuple(colours["player1"])   # the winner's, steady


def test_a_game_put_away_keeps_its_position_clocks_and_seats_and_is_taken_up(board):
    t = board(time_control=parse_time_control("5+3"))
    said(t, "place", "h0.0")
    t.step("wait", ["4000"])
    said(t, "place", "h1.0")
    t.referee.set_seats(("human", "computer:easy"))
    seats = t.referee.seats
    left = t.referee.clocks.left_ms(t.clock.now)
    first = t.session.journal.current().game_id
    words = said(t, "away")
    assert f"game {first} put away after move 2: take it up again from the page, the sim or " \
           "the menu" in words and "new game of Tree Planting" in words
    assert not t.referee.state.moves and t.referee.holding
    assert [g.game_id for g in t.door.away()] == [first]
    assert t.session.journal.game(first).status == "away"
    assert f"game {first}: 2 moves" in act(t.door, "waiting", [])
    # the new game, by two people: the old pieces lifted, one move made in it
    t.referee.set_seats(("human", "human"))
    said(t, "lift", "h0.0")
    said(t, "lift", "h1.0")
    said(t, "place", "v0.0")
    second = t.session.journal.current().game_id
    t.step("wait", ["60000"])   # time passes while the first game waits: charged to nobody
    words = said(t, "take", "up", str(first))
    assert words[-1] == f"game {first} taken up again at move 2: put the pieces where the " \
                        "board lights them"
    assert [str(m) for m in t.referee.state.moves] == ["h0.0", "h1.0"]
    assert t.referee.clocks.left_ms(t.clock.now) == left and t.referee.seats == seats
    # the game in progress (a move made in it) was put away in its place
    assert t.session.journal.game(second).status == "away"
    assert t.session.journal.current().game_id == first
    # the board holds play until the pieces match the game taken up: the LEDs say where
    assert {c.site for c in t.referee.corrections} == {"h0.0", "h1.0", "v0.0"}
    said(t, "lift", "v0.0")
    said(t, "place", "h0.0")
    said(t, "place", "h1.0")
    assert not t.referee.corrections and not t.referee.holding
    said(t, "place", "v0.1")
    assert [str(m) for m in t.session.journal.current().moves] == ["h0.0", "h1.0", "v0.1"]


def test_taking_up_what_is_not_put_away_is_refused_and_changes_nothing(board):
    t = board()
    said(t, "place", "h0.0")
    said(t, "resign")
    finished = t.session.journal.history(limit=1)[0].game_id
    said(t, "lift", "h0.0")
    said(t, "place", "h1.0")
    before = untouched(t)
    for game_id, why in ((finished, f"game {finished} is finished, not put away"),
                         (999, "no game 999 in the journal"),
                         (t.session.journal.current().game_id, "is in progress, not put away")):
        with pytest.raises(games.IllegalMove) as refused:
            t.door.take_up(game_id)
        assert why in str(refused.value.reason)
    with pytest.raises(ActionError):
        parse_action("take up two")
    with pytest.raises(ActionError):
        parse_action("take down 3")
    assert untouched(t) == before
    # nothing to put away in a game with no move
    t.door.new_game()
    with pytest.raises(games.IllegalMove) as refused:
        t.door.put_away()
    assert "nothing to put away" in str(refused.value.reason)
    assert act(t.door, "waiting", []) == "no game is put away"


def test_the_journal_takes_up_only_a_game_put_away(tmp_path):
    with Journal(tmp_path / "j.sqlite") as journal:
        journal.start_game("tree-planting", {"board": "4x4"}, ("human", "human"))
        journal.record_move("h0.0")
        away = journal.put_away({"control": "10", "left_ms": [1, 2], "turn_of": 1})
        assert journal.current() is None and [g.game_id for g in journal.away()] == [away]
        journal.start_game("tree-planting", {"board": "4x4"})
        with pytest.raises(JournalError, match="is in progress: put it away first"):
            journal.take_up(away)
        journal.abandon()
        saved = journal.take_up(away)
        assert saved.moves == ["h0.0"] and saved.clocks["left_ms"] == [1, 2]
        assert journal.current().game_id == away
        with pytest.raises(JournalError, match="in progress"):
            journal.take_up(away)
        journal.record_move("h1.0")
        assert journal.current().moves == ["h0.0", "h1.0"]


# --- the computer answers a draw from its search, in its worker -----------------------------------

def test_the_computer_accepts_a_draw_only_when_its_search_says_the_game_is_level():
    assert is_level(0, True) and not is_level(2, True) and not is_level(-1, True)
    assert is_level(0.5, False) and is_level(0.5 + DRAW_LEVEL, False)
    assert not is_level(0.5 + DRAW_LEVEL + 0.01, False)
    assert not is_level(0.5 - DRAW_LEVEL - 0.01, False)
    # Tree Planting 2x2 is solved: its first player wins by two trees (not level); the same
    # position's value, by the exact solver, decides the worker's answer.
    won = games.get_game("tree-planting").new_state(board="2x2")
    [best, *_] = games.ai.analyse(won, seconds=1)
    assert best.exact and best.value == 2
    assert draw_is_level(won.to_json(), 1.0) is False


def _seat(t, level_says):
    """The computer's seat on `t`, its worker a plain call of `draw_is_level` (or, for the
    answer alone, a Future holding `level_says`)."""
    asked = []

    def submit(fn, *args):
        asked.append(fn)
        future = Future()
        future.set_result(level_says if fn is draw_is_level else fn(*args))
        return future

    return ComputerSeat(t.referee, {1: games.ai.level("easy")}, submit=submit,
                        call_soon=lambda fn, *a: fn(*a), clock=lambda: t.clock.now,
                        seed=1), asked


@pytest.mark.parametrize("level", [True, False])
def test_a_draw_offered_to_the_computer_is_answered_by_its_search(board, level):
    t = board()
    t.referee.set_seats(("human", "computer:easy"))
    seat, asked = _seat(t, level)
    said(t, "place", "h0.0")
    with pytest.raises(games.IllegalMove) as refused:   # (its move is still to come)
        t.door.answer_draw(True)
    assert "no draw is on offer" in str(refused.value.reason)
    t.door.offer_draw()
    assert t.moment().ending.asked == "computer"
    with pytest.raises(games.IllegalMove) as refused:   # a person cannot answer for it
        t.door.answer_draw(True)
    assert str(refused.value.reason) == "the computer answers the draws offered to it"
    seat.poke()
    assert asked[0] is draw_is_level   # asked its search, in the worker, before moving
    if level:
        assert t.referee.over and t.referee.endings.ended == {"agreed": True}
        assert t.session.journal.history(limit=1)[0].summary["agreed"] is True
    else:
        assert not t.referee.over and t.moment().ending.offer_by is None
        assert len(t.referee.state.moves) == 2   # refused, it played on


# --- a power cut: each kind of ending journaled, and the board comes back with it -------------

CUT = """
import sys, time
from board_driver import views
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from board_driver.referee.clock import parse_time_control
t = Tracer(sim_config(layout=sys.argv[1], journal=sys.argv[2],
                     time_control=parse_time_control("5+3")))
for line in sys.argv[3:]:
    verb, *args = line.split()
    t.step(verb, args)
print("DONE", flush=True)
time.sleep(600)
"""


def cut_power(journal: Path, *lines: str) -> None:
    """The actions played by a board in another process, which is then killed (SIGKILL: no
    close, no checkpoint) once the last has returned."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    with subprocess.Popen([sys.executable, "-c", CUT, LAYOUT, str(journal), *lines],
                          stdout=subprocess.PIPE, text=True, env=env) as player:
        try:
            assert player.stdout.readline().strip() == "DONE"
        finally:
            player.send_signal(signal.SIGKILL)
            player.wait()


@pytest.mark.parametrize("how, summary, result", [
    ("resign", {"resigned": 0, "winner": 1}, "player 1 resigned: player 2 wins"),
    ("draw;draw accept", {"agreed": True, "winner": None}, "a draw by agreement")])
def test_a_game_resigned_or_drawn_is_shown_finished_after_a_power_cut(board, tmp_path, how,
                                                                      summary, result):
    journal = tmp_path / "j.sqlite"
    cut_power(journal, "place h0.0", "place h1.0", *how.split(";"))
    t = board(new_game=False)
    assert [str(m) for m in t.referee.state.moves] == ["h0.0", "h1.0"]
    assert t.referee.over and state_json(t)["result"] == result
    saved = t.session.journal.history(limit=1)[0]
    assert {k: saved.summary[k] for k in summary} == summary
    with pytest.raises(games.IllegalMove):
        t.door.resign()
    # cleared, the next game begins
    said(t, "lift", "h0.0")
    said(t, "lift", "h1.0")
    assert not t.referee.over and t.session.journal.current().game_id != saved.game_id


def test_a_game_put_away_is_taken_up_after_a_power_cut(board, tmp_path):
    journal = tmp_path / "j.sqlite"
    cut_power(journal, "place h0.0", "wait 3000", "place h1.0", "away")
    with Journal(journal) as read:
        [away] = read.away()
        kept = read.game(away.game_id).clocks
    t = board(new_game=False)
    assert not t.referee.state.moves   # the board came back with the new game
    assert [g.game_id for g in t.door.away()] == [away.game_id]
    t.door.take_up(away.game_id)
    assert [str(m) for m in t.referee.state.moves] == ["h0.0", "h1.0"]
    assert t.referee.clocks.left_ms(t.clock.now) == kept["left_ms"]


def test_the_page_resigns_offers_answers_puts_away_and_takes_up(board):
    """The page's routes (web/endings.py) over the real server, through the door."""
    import asyncio

    from aiohttp.test_utils import TestClient, TestServer

    from board_driver.web.server import WebServer

    t = board()
    said(t, "place", "h0.0")
    server = WebServer(t.door, listen="127.0.0.1", port=0, token=None)

    async def run():
        async with TestClient(TestServer(server.app())) as client:
            async def post(path, body):
                r = await client.post(path, json=body, headers={"Host": "localhost"})
                return r.status, await r.json()

            assert (await post("/api/draw-answer", {"answer": "accept"}))[0] == 409
            assert (await post("/api/draw-answer", {"answer": "maybe"}))[0] == 400
            assert (await post("/api/resign", {"seat": "2"}))[0] == 400
            status, body = await post("/api/draw", {})
            assert status == 200 and body["ending"]["offer_by"] == 1
            status, body = await post("/api/draw-answer", {"answer": "refuse"})
            assert status == 200 and body["ending"]["offer_by"] is None
            status, body = await post("/api/away", {})
            assert status == 200 and body["game"]["moves"] == []
            r = await client.get("/api/away", headers={"Host": "localhost"})
            [listed] = (await r.json())["games"]
            assert listed["status"] == "away" and listed["result"] == "put away"
            r = await client.get("/api/library", headers={"Host": "localhost"})
            assert listed["id"] in [g["id"] for g in (await r.json())["games"]]
            assert (await post("/api/take-up", {"id": "x"}))[0] == 400
            assert (await post("/api/take-up", {"id": "999"}))[0] == 409
            status, body = await post("/api/take-up", {"id": str(listed["id"])})
            assert status == 200 and body["game"]["moves"] == ["h0.0"]
            status, body = await post("/api/resign", {"seat": "0"})
            assert status == 200 and body["result"] == "player 1 resigned: player 2 wins"
            assert (await post("/api/resign", {}))[0] == 409

    asyncio.run(run())


# --- a remote board answers (protocol 1.2: board_driver/remote/endings.py) -------------------------

def _linked(board, tmp_path):
    """Two traced boards in one remote game (A plays seat 0, B seat 1), their links' messages
    relayed by hand (`relay`), as the broker would carry them."""
    from board_driver.remote import protocol as rp
    from board_driver.remote.link import RemoteLink, RemoteSettings

    boards = {}
    for name, remote in (("a", 1), ("b", 0)):
        t = board(journal=str(tmp_path / f"{name}.sqlite"))
        seats = ["human", "human"]
        seats[remote] = "remote"
        t.referee.set_seats(seats)
        link = RemoteLink(RemoteSettings(host="h", port=1, tls=False, game_id="g1",
                                         secret=b"correct horse battery", seat=remote,
                                         state_dir=str(tmp_path / name)),
                          t.referee, clock=lambda t=t: t.clock.now)
        (tmp_path / name).mkdir()
        boards[name] = (t, link)
    (a, la), (b, lb) = boards["a"], boards["b"]
    for link, other in ((la, lb), (lb, la)):
        seat = other.settings.local_seat
        link.handle(rp.presence_topic("g1", seat), other.base_signer.encode(
            rp.presence_message(seat, True, other.nonce)))

    def relay():
        for src, dst in ((la, lb), (lb, la), (la, lb)):
            while not src._outbox.empty():
                topic, payload, _ = src._outbox.get_nowait()
                dst.handle(topic, payload)

    return a, b, la, lb, relay


def test_a_remote_board_answers_a_draw_and_hears_a_resignation(board, tmp_path):
    import asyncio

    async def scenario():
        a, b, la, lb, relay = _linked(board, tmp_path)
        said(a, "place", "h0.0")
        relay()
        assert [str(m) for m in b.referee.state.moves] == ["h0.0"]
        said(b, "place", "h0.0")   # the other board's move, made on this board
        said(a, "draw")            # (player 1 offers while player 2 is to move)
        assert a.moment().ending.asked == "remote"
        with pytest.raises(games.IllegalMove) as refused:
            a.door.answer_draw(True)
        assert str(refused.value.reason) == "the other board answers this offer"
        relay()
        face = b.moment().ending
        assert face.offer_by == 0 and face.asked == "board"
        assert said(b, "draw", "refuse") == ["player 2 refuses the draw: play on"]
        relay()
        assert a.moment().ending.offer_by is None and not a.referee.over
        said(a, "draw")
        relay()
        said(b, "draw", "accept")
        relay()
        for t in (a, b):
            assert t.referee.endings.ended == {"agreed": True}
            assert t.session.journal.history(limit=1)[0].summary["agreed"] is True

    asyncio.run(scenario())


def test_a_remote_resignation_reaches_the_other_board_and_a_stale_one_is_dropped(board,
                                                                                  tmp_path):
    import asyncio

    from board_driver.remote import protocol as rp

    async def scenario():
        a, b, la, lb, relay = _linked(board, tmp_path)
        said(a, "place", "h0.0")
        relay()
        # a resignation about another position (before the move) is not this game's
        stale = rp.ending_message("resign", games.get_game("tree-planting").new_state(
            board="4x4"), 0, 1)
        la.handle(la.topics["move"], lb.signer.encode(stale))
        assert not a.referee.over
        said(b, "place", "h0.0")
        assert said(b, "resign") == ["player 2 resigned: player 1 wins"]
        relay()
        assert a.referee.endings.ended == {"resigned": 1}
        assert a.session.journal.history(limit=1)[0].summary["resigned"] == 1
        # the retained state says so too, for a board that was away
        lb._publish_state()
        _, payload, retain = lb._outbox.get_nowait()
        assert retain and lb.signer.decode(payload)["resigned"] == 1

    asyncio.run(scenario())


def test_protocol_1_2_messages_are_signed_and_checked_like_the_others():
    from board_driver.remote import protocol as rp

    signer = rp.Signer("correct horse battery", "g1", "0123456789abcdef.fedcba9876543210")
    state = games.get_game("tree-planting").new_state(board="2x2")
    for kind in ("resign", "draw-offer", "draw-answer"):
        body = rp.ending_message(kind, state, 0, 1, accept=True)
        assert signer.decode(signer.encode(body))["type"] == kind
    bad = dict(rp.ending_message("draw-answer", state, 0, 1, accept=True), accept="yes")
    with pytest.raises(rp.RemoteError, match="'accept' missing or of the wrong type"):
        signer.decode(signer.encode(bad))
    with pytest.raises(rp.RemoteError, match="'resigned' of the wrong type"):
        signer.decode(signer.encode(dict(rp.state_message(state, 0, 1), resigned=2)))
    assert signer.decode(signer.encode(rp.state_message(state, 0, 1, ended={"agreed": True})))[
        "agreed"] is True


# --- the on-board menu (board_driver/referee/menu.py): the game menu, and taking up ------------

def _with_menu_button(tmp_path):
    import hardware

    shipped = Path(hardware.__file__).parent / "layouts" / "tree-planting-classic-pins.toml"
    layout = tmp_path / "with-menu-button.toml"
    layout.write_text(shipped.read_text() + "\n[buttons]\nmenu = 14\n")
    return str(layout)


def _choose(t, group, value=None):
    site = next(s for s, c in t.referee.menu.sites.items()
                if c.group == group and (value is None or c.value == value))
    return site, t.step("place", [site])


def test_the_game_menu_resigns_and_puts_away_and_the_menu_takes_a_game_up(board, tmp_path):
    t = board(layout=_with_menu_button(tmp_path))
    said(t, "place", "h0.0")
    said(t, "place", "h1.1")
    opened = t.step("press", ["menu"])
    assert opened["menu"] == {} and any("game menu" in s for s in opened["said"])
    values = [c.value for c in t.referee.menu.sites.values() if c.group == "ending"]
    assert values == ["resign", "draw", "away"]
    assert not set(t.referee.menu.sites) & {"h0.0", "h1.1"}   # on free sites only
    away_site, _ = _choose(t, "ending", "away")
    apply_site, done = _choose(t, "apply")
    assert "menu" not in done and any("put away after move 2" in s for s in done["said"])
    first = t.door.away()[0].game_id
    # the new game: the old pieces and the menu's lifted
    for site in ("h0.0", "h1.1", away_site, apply_site):
        said(t, "lift", site)
    assert not t.referee.corrections and not t.referee.state.moves
    # between games the menu offers the game put away after its apply site
    t.step("press", ["menu"])
    up_site, chosen = _choose(t, "take up", first)
    assert chosen["menu"]["take up"] == first
    apply_site, done = _choose(t, "apply")
    assert [str(m) for m in t.referee.state.moves] == ["h0.0", "h1.1"]
    assert any(f"game {first} taken up again at move 2" in s for s in done["said"])
    for site in (up_site, apply_site):
        said(t, "lift", site)
    said(t, "place", "h0.0")
    said(t, "place", "h1.1")
    assert not t.referee.corrections and not t.referee.holding
    # and the game menu resigns it: the player to move (player 1)
    t.step("press", ["menu"])
    _choose(t, "ending", "resign")
    _, done = _choose(t, "apply")
    assert "player 1 resigned: player 2 wins" in done["said"]
    assert t.session.journal.history(limit=1)[0].summary["resigned"] == 0


def test_the_game_menu_on_a_touch_board_offers_and_answers_a_draw(board):
    t = board(layout="game-for-the-trees-matrix")
    state = t.referee.state
    move = state.legal_moves()[0]
    t.referee.accept(move, t.clock.now)    # (a move made, as if by taps)
    first, last = t.referee.menu.corners

    def game_menu():
        t.step("place", [first])
        t.step("place", [last])
        assert t.referee.menu.game
        t.step("lift", [first])
        t.step("lift", [last])

    def tap(group, value=None):
        site = next(s for s, c in t.referee.menu.sites.items()
                    if c.group == group and (value is None or c.value == value))
        return t.step("tap", [site])

    game_menu()
    tap("ending", "draw")
    names = views.players(state.game.name)   # (the player to move, the second, offers)
    assert f"{names[1]} offers a draw: {names[0]}, accept or refuse" in tap("apply")["said"]
    game_menu()
    values = [c.value for c in t.referee.menu.sites.values() if c.group == "ending"]
    assert values == ["resign", "away", "accept", "refuse"]
    tap("ending", "accept")
    assert "a draw by agreement" in tap("apply")["said"]
    assert t.referee.endings.ended == {"agreed": True}


def test_the_sim_resigns_draws_puts_away_lists_and_takes_up(tmp_path):
    """The sim's typed commands, through the real daemon (its loop, its door), and bad ones
    refused in words with nothing changed."""
    import io

    from board_driver.cli.sim import run_sim

    journal = tmp_path / "j.sqlite"

    def play(*lines):
        out = io.StringIO()
        config = sim_config(journal=str(journal))
        assert run_sim(config, stdin=io.StringIO("".join(f"{line}\n" for line in lines)),
                       out=out) == 0
        return out.getvalue()

    out = play("draw accept", "place h0.0", "draw", "draw refuse", "draw 0", "draw accept",
               "take up 99", "clear", "place h0.0", "away", "waiting", "resign", "quit")
    assert "  ? no draw is on offer" in out
    assert "player 2 offers a draw: player 1, accept or refuse" in out
    assert "player 1 refuses the draw: play on" in out
    assert "a draw by agreement" in out and "game over: a draw by agreement" in out
    assert "  ? no game 99 in the journal" in out
    assert "put away after move 1" in out and "games put away (take up N takes one up" in out
    with Journal(journal) as read:
        [away] = read.away()
    assert f"game {away.game_id}: 1 move," in out
    # a restart (the sim again, on its journal): the game put away is still there
    out = play("clear", f"take up {away.game_id}", "place h0.0", "resign", "resign", "quit")
    assert f"game {away.game_id} taken up again at move 1" in out
    assert "player 2 resigned: player 1 wins" in out and "  ? the game is over" in out
    with Journal(journal) as read:
        assert read.game(away.game_id).summary["resigned"] == 1 and not read.away()


def test_an_untimed_game_taken_up_on_a_timed_board_stays_untimed(board, tmp_path):
    t = board()
    said(t, "place", "h0.0")
    first = t.door.put_away()
    t.door.set_time_control("5+3")   # the board's next games are timed
    assert t.referee.clocks.timed
    t.door.take_up(first)
    assert not t.referee.clocks.timed and [str(m) for m in t.referee.state.moves] == ["h0.0"]


def test_a_journal_of_schema_2_is_migrated_to_take_games_put_away(tmp_path):
    """Schema 2's status CHECK refused 'away': opened, its games table is made again with
    schema 3's, every row (and the events and clocks naming them) kept."""
    import json
    import sqlite3

    from board_driver.referee.journal import SCHEMA_VERSION

    path = tmp_path / "old.sqlite"
    with Journal(path) as journal:
        journal.start_game("tree-planting", {"board": "4x4"}, ("human", "computer:easy"))
        journal.record_move("h0.0", clocks={"control": "10", "left_ms": [1, 2], "turn_of": 1})
        journal.finish({"winner": 0, "resigned": 1})
        journal.start_game("tree-planting", {"board": "4x4"})
        journal.record_move("v0.0")
    with sqlite3.connect(path) as db:   # as schema 2 made it: the CHECK without 'away'
        db.execute("PRAGMA foreign_keys=OFF")
        (made,) = db.execute("SELECT sql FROM sqlite_master WHERE name='games'").fetchone()
        db.execute(made.replace("CREATE TABLE games", "CREATE TABLE old")
                   .replace(", 'away'", ""))
        db.execute("INSERT INTO old SELECT * FROM games")
        db.execute("DROP TABLE games")
        db.execute("ALTER TABLE old RENAME TO games")
        db.execute("PRAGMA user_version=2")
        with pytest.raises(sqlite3.IntegrityError):
            db.execute("UPDATE games SET status='away' WHERE id=2")
    with Journal(path) as journal:
        first = journal.game(1)
        assert first.summary == {"winner": 0, "resigned": 1} and first.moves == ["h0.0"]
        assert first.move_clocks == [{"control": "10", "left_ms": [1, 2], "turn_of": 1}]
        assert first.players == [{"seat": "human"}, {"seat": "computer:easy"}]
        assert journal.put_away() == 2 and journal.take_up(2).moves == ["v0.0"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert json.loads(db.execute("SELECT options FROM games WHERE id=1").fetchone()[0]) == \
            {"board": "4x4"}


def test_a_web_seat_resigns_and_answers_a_draw_from_the_page(board):
    """A web seat (played on the page) is a seat a person here plays: it offers, answers and
    resigns from the page, as a person at the board does."""
    t = board()
    t.referee.set_seats(("human", "web"))
    said(t, "place", "h0.0")
    t.door.offer_draw(0)
    assert t.moment().ending.asked == "board" and state_json(t)["ending"]["can_answer"]
    t.door.answer_draw(False)   # the web seat's player, on the page
    assert t.door.resign() == 1   # no seat named: the player to move, played on the page
    assert t.session.journal.history(limit=1)[0].summary["resigned"] == 1

"""A web seat at home (docs/board.md, "A seat on the page"): POST /api/play against a real daemon
on the simulated board, the seat kind in the config, the command line and the page's seat
control, and the piece games' refusal of seats no one at the board can keep."""

from __future__ import annotations

import aiohttp
import pytest

import games
from board_driver.config import ConfigError, parse_config, sim_config
from board_driver.referee.kept import check_seats, web_refusal
from board_driver.referee.session import open_session
from tests.waits import until
from web_harness import base_url, hands, post, run, running


async def get(http, daemon, path):
    async with http.get(base_url(daemon) + path) as r:
        return await r.json()


async def both_seats_web(http, daemon):
    """Both seats made web seats through the page's seat control."""
    for seat in "01":
        status, state = await post(http, daemon, "/api/seats", {"seat": seat, "player": "web"})
        assert status == 200, state


def test_a_web_seats_move_is_played_and_lit_for_the_board_and_refused_out_of_turn(tmp_path):
    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http:
            status, state = await post(http, daemon, "/api/seats", {"seat": "1", "player": "web"})
            assert status == 200 and state["seats"] == ["human", "web"]
            assert state["entry"] is None   # the person at the board moves first
            # Out of turn: refused with the reason a player reads, nothing changed.
            status, body = await post(http, daemon, "/api/play", {"move": "h0.0"})
            assert (status, body) == (409, {"error": "it is not the web seat's turn: player 1 "
                                                     "plays now (at the board)"})
            assert (await get(http, daemon, "/api/state"))["game"]["moves"] == []
            await hands(daemon, "place", "h0.0")
            await until(lambda: daemon.session.referee.state.moves, 10, "the rod read")
            state = await get(http, daemon, "/api/state")
            assert state["entry"]["mover"] == 1
            assert {c["move"] for c in state["entry"]["choices"]} == \
                {str(m) for m in daemon.session.referee.state.legal_moves()}
            # Against the rules, and no move at all: refused, nothing changed.
            status, body = await post(http, daemon, "/api/play", {"move": "h0.0"})
            assert (status, body) == (409, {"error": "groove h0.0 already has a rod"})
            status, body = await post(http, daemon, "/api/play", {"move": "q9"})
            assert status == 409 and body["error"].startswith("a move is a groove")
            status, body = await post(http, daemon, "/api/play", {"move": "h1.0", "x": "1"})
            assert status == 400
            assert [str(m) for m in daemon.session.referee.state.moves] == ["h0.0"]
            # The move: played, and lit as the other seat's to put down.
            status, state = await post(http, daemon, "/api/play", {"move": "h1.0"})
            assert status == 200 and state["game"]["moves"] == ["h0.0", "h1.0"]
            assert state["fixes"] == [{"site": "h1.0", "do": "put a rod here", "move": True,
                                       "waiting": False}]
            assert state["owed_by"] == "The web seat's move." and state["entry"] is None
            assert daemon.session.referee.moment(daemon.loop.time()).to_make_by == "web"
            # In the page's language.
            status, body = await post(http, daemon, "/api/play?lang=zh", {"move": "h1.1"})
            assert status == 409 and "一号玩家" in body["error"]
            # A takeback against it takes back both: the person's move and the web's reply.
            state = await get(http, daemon, "/api/state")
            assert state["takeback_question"].startswith(
                "Take back h0.0 and the web seat's reply h1.0?")
            status, state = await post(http, daemon, "/api/takeback")
            assert status == 200 and state["game"]["moves"] == []
    run(scenario())


def test_play_is_a_control_action(tmp_path):
    async def scenario():
        async with running(tmp_path, token="s3cret") as daemon, aiohttp.ClientSession() as http:
            key = {"X-Treeboard-Token": "s3cret"}
            status, _ = await post(http, daemon, "/api/seats", {"seat": "0", "player": "web"},
                                   key)
            assert status == 200
            status, body = await post(http, daemon, "/api/play", {"move": "h0.0"})
            assert status == 401 and "token" in body["error"]
            status, body = await post(http, daemon, "/api/play", {"move": "h0.0"},
                                      {"X-Treeboard-Token": "wrong"})
            assert status == 403
            async with http.post(base_url(daemon) + "/api/play", data="move=h0.0", headers={
                    "Content-Type": "application/x-www-form-urlencoded", **key}) as r:
                assert r.status == 415
            assert not daemon.session.referee.state.moves
            status, state = await post(http, daemon, "/api/play", {"move": "h0.0"}, key)
            assert status == 200 and state["game"]["moves"] == ["h0.0"]
    run(scenario())


def test_two_web_seats_play_a_touch_game_from_the_entry_model_alone(tmp_path):
    async def scenario():
        async with running(tmp_path, layout="game-for-the-trees-matrix") as daemon, \
                aiohttp.ClientSession() as http:
            await both_seats_web(http, daemon)
            for n in range(1, 7):
                model = await get(http, daemon, "/api/entry")
                assert model["moves"] == n - 1 and model["seats"] == ["web", "web"]
                choice = model["choices"][0]
                status, state = await post(http, daemon, "/api/play", {"move": choice["move"]})
                assert status == 200, state
                assert len(state["game"]["moves"]) == n and state["fixes"] == []
                assert not state["game"]["over"]
                assert state["entry"]["mover"] == state["game"]["to_move"]
    run(scenario())


def test_a_piece_game_refuses_seats_no_one_at_the_board_keeps(tmp_path):
    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http:
            assert (await post(http, daemon, "/api/seats", {"seat": "0", "player": "web"}))[0] \
                == 200
            status, body = await post(http, daemon, "/api/seats", {"seat": "1", "player": "web"})
            assert status == 409 and "a person at the board" in body["error"]
            status, body = await post(http, daemon, "/api/seats",
                                      {"seat": "1", "player": "computer:easy"})
            assert status == 409
            assert daemon.session.referee.seats == ("web", "human")
    run(scenario())


def test_the_seat_kind_in_the_config_and_its_refusals(tmp_path):
    assert parse_config({"players": ["human", "web"]}, "board.toml").players == ("human", "web")
    with pytest.raises(ConfigError, match='board.toml: players: expected two seats, each '
                                          '"human", "web"'):
        parse_config({"players": ["human", "webb"]}, "board.toml")
    config = sim_config(journal=str(tmp_path / "j.sqlite"), players=("web", "web"))
    with pytest.raises(ConfigError, match="players: expected seats tree-planting can be played "
                                          "with .*a person at the board"):
        open_session(config, clock=lambda: 0.0)
    assert check_seats(("web", "web"), games.get_game("game-for-the-trees")) == ("web", "web")
    assert check_seats(("web", "computer:easy"), games.get_game("game-for-the-trees"))
    for seats in (("web", "web"), ("computer:easy", "web"), ("web", "remote")):
        assert web_refusal(seats, games.get_game("fangqi")) is not None
    assert web_refusal(("web", "remote"), games.get_game("game-for-the-trees")) is not None
    assert web_refusal(("human", "web"), games.get_game("treeblox")) is None


def test_a_web_seats_turn_run_out_of_time_is_told_as_the_web_seats(tmp_path):
    """The move a seat's clock plays for it (Arbos's `time`, a pass) is told with who played
    it: the web seat's as "web", never as the computer's (the narrator and remote play read it)."""
    from board_driver.referee.tracer import Tracer

    tracer = Tracer(sim_config(layout="game-for-the-trees-matrix",
                               journal=str(tmp_path / "j.sqlite"), players=("web", "web")))
    try:
        ref, told = tracer.referee, []
        ref.listeners.append(lambda what, move, origin: told.append((what, origin)))
        move = sorted(ref.state.legal_moves(), key=str)[0]
        ref.pass_on_time(move, ref.state.to_move, tracer.clock.now)
        assert ("move", "web") in told and not any(o == "computer" for _, o in told)
    finally:
        tracer.close()


def test_the_sim_and_a_trace_make_a_web_seats_move_as_the_page_does(tmp_path):
    """`web MOVE`, typed: the web seat's move, through the board's door as POST /api/play;
    refused with the reason a player reads out of turn, and nothing changed."""
    from board_driver.referee.actions import parse_action
    from board_driver.referee.tracer import Tracer

    tracer = Tracer(sim_config(layout="tree-planting-4x4-matrix",
                               journal=str(tmp_path / "j.sqlite"), players=("human", "web")))
    try:
        ref = tracer.referee
        with pytest.raises(games.IllegalMove):   # the person's turn: not the web seat's
            tracer.step(*_split(parse_action("web h0.0")))
        assert not ref.state.moves
        tracer.step("place", ["h0.0"])
        tracer.step(*_split(parse_action("web v0.0")))
        assert [str(m) for m in ref.state.moves] == ["h0.0", "v0.0"]
        assert "v0.0" in {c.site for c in tracer.moment().corrections}   # lit to put down
    finally:
        tracer.close()


def _split(action):
    return action.verb, action.args


def test_the_web_seat_takes_back_its_own_move_from_the_page_after_it_was_put_down(tmp_path):
    """The web seat's player at home asks for a takeback on the page (the same button and
    POST /api/takeback as everyone's): against the person at the board it takes back the web
    seat's move and the move it answered, lit to lift; in a touch game of two web seats, the
    last move alone, and that seat moves again on the page."""
    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http:
            await post(http, daemon, "/api/seats", {"seat": "1", "player": "web"})
            await hands(daemon, "place", "h0.0")
            await until(lambda: daemon.session.referee.state.moves, 10, "the rod read")
            status, state = await post(http, daemon, "/api/play", {"move": "h1.0"})
            assert status == 200
            await hands(daemon, "place", "h1.0")       # the people put the web seat's rod
            await until(lambda: not daemon.session.referee.moment(
                daemon.loop.time()).corrections, 10, "the web seat's rod put down")
            status, state = await post(http, daemon, "/api/takeback")
            assert status == 200 and state["game"]["moves"] == []
            assert sorted(f["site"] for f in state["fixes"]) == ["h0.0", "h1.0"]
            assert {f["do"] for f in state["fixes"]} == {"take the piece off"}
    run(scenario())


def test_two_web_seats_take_back_one_move_and_its_seat_plays_again(tmp_path):
    async def scenario():
        async with running(tmp_path, layout="game-for-the-trees-matrix") as daemon, \
                aiohttp.ClientSession() as http:
            await both_seats_web(http, daemon)
            for _ in range(2):
                model = await get(http, daemon, "/api/entry")
                await post(http, daemon, "/api/play", {"move": model["choices"][0]["move"]})
            status, state = await post(http, daemon, "/api/takeback")
            assert status == 200 and len(state["game"]["moves"]) == 1
            assert state["entry"]["mover"] == 1 == state["game"]["to_move"]
    run(scenario())

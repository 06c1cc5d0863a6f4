"""The presence of a web seat's player on the board's own page (board_driver/web/presence.py):
the pages that hold the seat say so (POST /api/presence, their socket /ws?tab=ID); the board
hears the player go when no page holds it any more (a socket closed, a hold let go or lapsed),
says it (the page, the voice's words, the turn LEDs) and in a timed game lets the present player
choose, as for a browser's seat across the internet (referee/absence.py). Several tabs: away
only when none holds it. Bounded: at most MAX_TABS tabs, each hold lapsing by itself."""

from __future__ import annotations

import aiohttp
import pytest

from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.referee.clock import parse_time_control
from board_driver.views.absence import web_away_turn, web_presence_news
from board_driver.views.narrate import Narrator
from board_driver.web.presence import MAX_TABS, Holds
from tests.waits import until
from web_harness import base_url, hands, post, run, started

TAB_A, TAB_B = "0123456789abcdef", "fedcba9876543210"


def test_holds_are_per_tab_lapse_and_are_bounded():
    holds = Holds(hold_s=30.0)
    holds.hold(TAB_A, frozenset({1}), 0.0)
    holds.hold(TAB_B, frozenset({1}), 10.0)
    assert holds.held(20.0) == {1}
    holds.hold(TAB_A, frozenset(), 21.0)        # one tab lets go: the other still holds it
    assert holds.held(21.0) == {1} and len(holds) == 1
    assert holds.next_lapse() == 40.0
    assert holds.held(40.0) == frozenset() and len(holds) == 0   # lapsed, forgotten
    assert holds.next_lapse() is None
    for i in range(MAX_TABS * 3):                # a flood of tabs: the oldest go first
        holds.hold(f"{i:016x}", frozenset({0}), 50.0 + i)
    assert len(holds) == MAX_TABS
    assert holds.drop(f"{MAX_TABS * 3 - 1:016x}") and not holds.drop(f"{0:016x}")


def daemon_with_a_web_seat(tmp_path, clock: str | None = None) -> Daemon:
    config = sim_config(journal=str(tmp_path / "j.sqlite"), players=("human", "web"),
                        away_grace_seconds=0.5,
                        time_control=parse_time_control(clock) if clock else None)
    config.web_port = 0
    return Daemon(config, new_game=True, web=True)


async def presence(http, daemon, tab, seats, headers=None):
    return await post(http, daemon, "/api/presence", {"tab": tab, "seats": seats}, headers)


def test_the_board_hears_the_pages_holding_a_web_seat_come_and_go(tmp_path):
    daemon = daemon_with_a_web_seat(tmp_path, clock="5")

    async def scenario():
        async with started(daemon), aiohttp.ClientSession() as http:
            referee, loop = daemon.session.referee, daemon.loop
            daemon.web.presence.hold_s = 1.0     # (HOLD_S, 30 s, shortened: the lapse below)
            away = lambda: referee.moment(loop.time()).away   # noqa: E731
            # Two tabs hold the seat; one's socket is open, the other is a program's (no socket).
            status, body = await presence(http, daemon, TAB_A, "1")
            assert (status, body) == (200, {"held": [1], "away": []})
            await presence(http, daemon, TAB_B, "1")
            ws = await http.ws_connect(base_url(daemon) + f"/ws?tab={TAB_A}")
            await ws.receive()                   # (its first state)
            # Wrong input: a clear refusal, nothing held.
            status, body = await presence(http, daemon, "xyz", "1")
            assert status == 400 and "hex" in body["error"]
            status, body = await presence(http, daemon, TAB_A, "2")
            assert status == 400 and '"none"' in body["error"]
            status, body = await presence(http, daemon, TAB_A, "0")
            assert (status, body) == (409, {"error": "seat 1 is not a web seat: no page plays "
                                                     "it"})
            await hands(daemon, "place", "h0.0")   # the person here moves: the web seat's turn
            await until(lambda: referee.state.to_move == 1, 10, "the move read")
            # Tab B lets go: tab A still holds the seat, its player is there.
            await presence(http, daemon, TAB_B, "none")
            state = await (await http.get(base_url(daemon) + "/api/state")).json()
            assert state["presence"] == [{"seat": 1, "here": True,
                                          "words": "player 2 is here: a page holds the web seat"}]
            # Tab A closes (its socket goes): no page holds it, its player is away, at once.
            await ws.close()
            await until(lambda: away() == {1}, 10, "the web seat's player away")
            state = await (await http.get(base_url(daemon) + "/api/state")).json()
            assert state["presence"][0]["here"] is False
            assert state["presence"][0]["words"] == \
                "player 2 is away: no page holds the web seat"
            # Past the grace the present player chooses, as for a browser across the internet.
            await until(lambda: (f := referee.moment(loop.time()).absent) is not None
                        and f.asked, 10, "the present player asked")
            assert referee.moment(loop.time()).absent.choices == ("pause", "wait", "claim",
                                                                   "draw")
            status, _ = await post(http, daemon, "/api/absent", {"choice": "pause"})
            assert status == 200 and referee.keeper.clocks.paused_for == 1
            # A page holds it again: back, its clock runs again.
            await presence(http, daemon, TAB_B, "1")
            await until(lambda: not away() and referee.keeper.clocks.paused_for is None, 10,
                        "the web seat's player back")
            # A hold not said again lapses (the page's heartbeat stopped): away again.
            await until(lambda: away() == {1}, 10, "the hold lapsed")
            status, body = await presence(http, daemon, TAB_A, "1")
            await until(lambda: not away(), 10, "back again")
            # The seat no longer a web seat: no longer away, whatever the pages say.
            status, _ = await post(http, daemon, "/api/seats", {"seat": "1", "player": "human"})
            assert status == 200
            await until(lambda: not away(), 10, "a person's seat is not away")
            status, body = await presence(http, daemon, TAB_A, "1")
            assert status == 409
    run(scenario())


def test_presence_is_a_control_action(tmp_path):
    daemon = daemon_with_a_web_seat(tmp_path)
    daemon.config.web_token = "s3cret"

    async def scenario():
        async with started(daemon), aiohttp.ClientSession() as http:
            status, body = await presence(http, daemon, TAB_A, "1")
            assert status == 401 and "token" in body["error"]
            status, body = await presence(http, daemon, TAB_A, "1",
                                          {"X-Treeboard-Token": "s3cret"})
            assert (status, body["held"]) == (200, [1])
    run(scenario())


def test_no_page_after_the_start_is_away_once_a_page_could_have_come_back(tmp_path):
    """After a (re)start the pages reconnect and hold the seat again; a seat no page holds by
    the end of the hold's time is away (said), not silently waited for."""
    daemon = daemon_with_a_web_seat(tmp_path)

    async def scenario():
        async with started(daemon):
            daemon.web.presence.hold_s = 0.5
            daemon.web.presence.check()
            referee = daemon.session.referee
            await until(lambda: referee.moment(daemon.loop.time()).away == {1}, 10,
                        "the web seat's player away")
    run(scenario())


def test_the_board_says_it_and_breathes_the_turn_leds_in_the_seats_colour(tmp_path):
    from board_driver.referee.tracer import Tracer

    t = Tracer(sim_config(journal=str(tmp_path / "j.sqlite"), players=("human", "web"),
                          layout="tree-planting-4x4-matrix"))
    try:
        narrator = Narrator()
        narrator.ending(t.referee.moment(t.clock.now))
        t.step("place", ["h0.0"])
        t.door.seen(1, False)
        moment = t.referee.moment(t.clock.now)
        said = [s.text for s in narrator.ending(moment)]
        assert "player 2 is away: no page holds the web seat" in said
        assert narrator.ending(moment) == []        # (once)
        layout = t.session.layout
        frame, wake = web_away_turn({"turn": (0, 0, 0)}, moment, layout, 1.0, None)
        colour = moment.settings.colours["player1"]
        assert frame["turn"] != (0, 0, 0) and wake is not None
        assert max(frame["turn"]) <= max(colour)
        frame2, _ = web_away_turn({"turn": (0, 0, 0)}, moment, layout, 2.0, None)
        assert frame2["turn"] != frame["turn"]      # (it breathes)
        t.door.seen(1, True)
        said = [s.text for s in narrator.ending(t.referee.moment(t.clock.now))]
        assert said == ["player 2 is back on the page"]
        assert web_presence_news(t.referee.moment(t.clock.now), frozenset()) == []
    finally:
        t.close()


class FakeDoor:
    """The door as SeatPresence uses it: the seats, a clock, and what the board was told."""

    def __init__(self):
        self.seats, self.now, self.told = ("human", "web"), 0.0, []

    def clock(self) -> float:
        return self.now

    def seen(self, seat: int, here: bool) -> None:
        self.told.append((seat, here))


def test_a_page_reloading_is_not_said_away_and_a_new_web_seat_has_its_grace():
    from board_driver.web.presence import HOLD_S, SETTLE_S, SeatPresence

    door = FakeDoor()
    presence = SeatPresence(door, None, None)
    presence.check()
    door.now = HOLD_S - 1
    presence.check()
    assert door.told == []                       # (a page may still be reconnecting)
    presence.holds.hold(TAB_A, frozenset({1}), door.now)
    presence.check()
    assert door.told == [(1, True)]
    presence.socket_closed(TAB_A)                # reloaded: its socket closed...
    door.now += SETTLE_S / 2
    presence.holds.hold(TAB_A, frozenset({1}), door.now)   # ...and it holds the seat again
    presence.check()
    door.now += SETTLE_S * 2
    presence.check()
    assert door.told == [(1, True)]              # no "away, back"
    presence.socket_closed(TAB_A)                # closed for good
    presence.check()
    assert door.told == [(1, True)]
    door.now += SETTLE_S
    presence.check()
    assert door.told == [(1, True), (1, False)]
    assert presence.summary() == {"held": [], "away": [1]}
    door.seats = ("human", "human")              # no longer a web seat: no longer away
    presence.check()
    assert door.told[-1] == (1, True) and presence.summary() == {"held": [], "away": []}
    door.seats = ("web", "human")                # a new web seat: its own grace
    presence.check()
    door.now += HOLD_S - 1
    presence.check()
    assert door.told[-1] == (1, True)
    door.now += 1
    presence.check()
    assert door.told[-1] == (0, False)


def test_a_move_from_the_page_says_the_web_seats_player_is_back(tmp_path):
    """Its clock paused while it was away, the web seat's move (POST /api/play) starts it again,
    as a browser's move across the internet does (absence.py)."""
    from board_driver.referee.tracer import Tracer

    t = Tracer(sim_config(journal=str(tmp_path / "j.sqlite"), players=("human", "web"),
                          layout="tree-planting-4x4-matrix", away_grace_seconds=1.0,
                          time_control=parse_time_control("5")))
    try:
        t.step("place", ["h0.0"])
        t.door.seen(1, False)
        t.step("wait", ["1500"])
        assert t.referee.moment(t.clock.now).absent.asked
        t.door.absent_choice("pause")
        assert t.referee.keeper.clocks.paused_for == 1
        t.door.play("h1.1")
        assert t.referee.keeper.clocks.paused_for is None
        assert not t.referee.absence.away(1)
        t.step("place", ["h1.1"])                    # (its rod put down: player 1's clock runs)
        assert t.referee.keeper.clocks.running == 0
    finally:
        t.close()


def test_an_old_socket_found_dead_after_the_page_reconnected_lets_nothing_go():
    """A network blink: the page reconnects on a new socket (same tab) and holds the seat again
    before the board notices the old socket is dead; that old socket closing lets nothing go.
    A socket naming no tab, or a malformed one, is no tab's."""
    from types import SimpleNamespace

    from board_driver.web.presence import HOLD_S, SETTLE_S, SeatPresence

    door = FakeDoor()
    presence = SeatPresence(door, None, None)
    socket = SimpleNamespace(query={"tab": TAB_A})
    old = presence.socket_opened(socket)
    presence.holds.hold(TAB_A, frozenset({1}), door.now)
    presence.check()
    new = presence.socket_opened(socket)            # the page reconnected
    presence.socket_closed(old)                     # the old socket, found dead late
    door.now += SETTLE_S * 2
    presence.check()
    assert door.told == [(1, True)] and presence.summary()["held"] == [1]
    presence.socket_closed(new)                     # the page's last socket: it is gone
    door.now += SETTLE_S
    presence.check()
    assert door.told == [(1, True), (1, False)]
    assert presence.socket_opened(SimpleNamespace(query={})) is None
    assert presence.socket_opened(SimpleNamespace(query={"tab": "../x"})) is None
    presence.socket_closed(None)
    assert HOLD_S > SETTLE_S

"""A browser and a board taking the same lobby offer at once, with the real parts: Debian's
Mosquitto, the offering board and the taking board as `treeboard sim`s in their own processes,
and the browser as a paho client saying its signed presence on the seat (what the seat page
does as it takes an offer). The offering board is held still (SIGSTOP) while both take, so
neither sees the other before both have taken; let go, it reads both in the order the broker
got them. Exactly one gets the seat; the other is told clearly, and is in no game."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading

import paho.mqtt.client as paho

from board_driver.remote import seat as sp
from tests.board_driver.test_lobby_boards import SECRET, LineSim, offers_in, retained
from tests.waits import scaled, wait_for


class Browser:
    """The seat page's side of the race: it says its presence on the seat it took (signed with
    the seat key the offer wraps for lobby members) and reads what the board retains for it."""

    def __init__(self, broker, game: str):
        self.game, self.key = game, sp.seat_key(SECRET, game, 1)
        self.views: list[dict] = []
        self.lock = threading.Lock()
        self.c = paho.Client(paho.CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
        self.c.on_message = self._message
        self.c.connect("127.0.0.1", broker.port)
        self.c.loop_start()
        self.c.subscribe(sp.seat_topic(game, 1, "view"), qos=1)

    def _message(self, client, userdata, message):
        if message.payload:
            with self.lock:
                self.views.append(sp.open_sealed(self.key, message.payload, sp.MAX_VIEW))

    def take(self) -> None:
        body = {"type": "presence", "game_id": self.game, "seat": 1, "online": True}
        self.c.publish(sp.seat_topic(self.game, 1, "presence"), sp.seal(self.key, body), qos=1,
                       retain=True).wait_for_publish(scaled(30))

    def last(self) -> dict | None:
        with self.lock:
            return self.views[-1] if self.views else None

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


@contextlib.contextmanager
def held(tmp_path, broker, game: str, *takers: str):
    """The offering board (offer made, its view retained), the boards that will take it (named
    `takers`, each with the offer listed), and `let_go`: the offering board is stopped until it
    is called (or the block ends)."""
    with contextlib.ExitStack() as started:
        host = LineSim(tmp_path, "host", "--remote", broker.url, "--join", game, "--seat", "0",
                       "--guest", "--offer")
        started.callback(host.close)
        host.expect(f"offered seat 1 of {game} in the lobby")
        wait_for(lambda: retained(broker, f"treeboard/v1/{game}/seat/1/view",
                                  f"treeboard/v1/{game}/presence/0"), 10, "the host's view")
        boards = []
        for name in takers:
            boards.append(LineSim(tmp_path, name, "--remote", broker.url, "--lobby"))
            started.callback(boards[-1].close)
            boards[-1].type("lobby")
            boards[-1].expect(rf"offered: {game} ")
        os.kill(host.proc.pid, signal.SIGSTOP)   # (our own child: held still while both take)
        stopped = [True]

        def let_go() -> None:
            if stopped.pop():
                os.kill(host.proc.pid, signal.SIGCONT)
        started.callback(lambda: stopped and let_go())   # (before the sims close)
        yield host, boards, let_go


@contextlib.contextmanager
def racing(tmp_path, broker, game: str):
    """The offering board held, the board that will take its offer, and the browser."""
    with contextlib.ExitStack() as started:
        browser = Browser(broker, game)
        started.callback(browser.close)
        host, (taker,), let_go = started.enter_context(held(tmp_path, broker, game, "taker"))
        yield host, taker, browser, let_go


def board_took(broker, game: str) -> None:
    """Wait until the taking board's presence (the way a board takes a seat) is on the broker."""
    wait_for(lambda: retained(broker, f"treeboard/v1/{game}/presence/1",
                              f"treeboard/v1/{game}/presence/0"), 20,
             "the taking board's presence on the seat")


def test_the_browser_first_gets_the_seat_and_the_board_is_told_and_joins_nothing(tmp_path,
                                                                              broker):
    with racing(tmp_path, broker, "race1") as (host, taker, browser, let_go):
        browser.take()
        taker.type("join race1")
        board_took(broker, "race1")   # both have taken; the host has seen neither
        let_go()
        taker.expect("a player in a browser took race1 first: this board joins no game", 30)
        host.expect("the player in the browser is here")
        host.expect("other board: connected")
        # The browser plays the game: its view is the game's, the host's moves are its.
        wait_for(lambda: (v := browser.last()) is not None and v["type"] == "view"
                 and v["host_online"], 10, "the browser's view")
        host.type("place h0.0")
        wait_for(lambda: browser.last()["index"] == 1, 10, "the host's move in the browser's view")
        # The board is in no game: the lobby again, and no offer left to take.
        taker.type("join race1")
        taker.expect("no game race1 is offered in the lobby now")
        assert not any("took race1 from the lobby" in line for line in taker.seen)
        assert not any("a board took the lobby's offer" in line for line in host.seen)
        assert offers_in(broker) == []


def test_the_board_first_gets_the_seat_and_the_browser_is_told_its_gone(tmp_path, broker):
    with racing(tmp_path, broker, "race2") as (host, taker, browser, let_go):
        taker.type("join race2")
        board_took(broker, "race2")
        browser.take()
        let_go()
        taker.expect("^other board: connected", 30)
        taker.expect("took race2 from the lobby: this board plays seat 1")
        host.expect("a board took the lobby's offer of race2")
        # The browser is told, signed with its seat key and in the board's words; its presence
        # on the seat is cleared, and no view of the game follows.
        wait_for(lambda: (v := browser.last()) is not None and v["type"] == "gone", 20,
                 "the browser told the seat is gone")
        assert "another board took this seat first" in browser.last()["text"]
        assert retained(broker, "treeboard/v1/race2/seat/1/presence",
                        "treeboard/v1/race2/presence/0") is None
        assert not any("the player in the browser is here" in line for line in host.seen)
        # The two boards play.
        host.type("place h0.0")
        taker.expect(r"make the other board's move at h0\.0")
        assert browser.last()["type"] == "gone"


def presence_nonce(broker, game: str, seat: int) -> str | None:
    """The nonce of the board presence retained on `seat`'s topic (which board took it last)."""
    payload = retained(broker, f"treeboard/v1/{game}/presence/{seat}",
                       f"treeboard/v1/{game}/presence/0")
    return json.loads(payload)["nonce"] if payload else None


def test_two_boards_take_at_once_the_first_plays_and_the_other_joins_nothing(tmp_path, broker):
    # Both boards' presence reaches the broker while the offering board is held: the second
    # is the one the broker retains, but the first is the one the offering board reads first.
    with held(tmp_path, broker, "race3", "first", "second") as (host, (first, second), let_go):
        first.type("join race3")
        board_took(broker, "race3")
        firsts = presence_nonce(broker, "race3", 1)
        second.type("join race3")
        wait_for(lambda: presence_nonce(broker, "race3", 1) not in (None, firsts), 20,
                 "the second board's presence on the seat")
        let_go()
        first.expect("took race3 from the lobby: this board plays seat 1", 30)
        second.expect("another board took race3 first: this board joins no game", 30)
        host.expect("a board took the lobby's offer of race3")
        # The offering board plays with the first board only: its move reaches it, the first
        # board's reaches the offering board, and nothing of either board is refused.
        host.type("place h0.0")
        first.expect(r"make the other board's move at h0\.0")
        first.type("place h0.0")
        first.type("place v0.0")
        host.expect(r"move 2: v0\.0.*put it on the board")
        assert not any("took race3 from the lobby" in line for line in second.seen)
        for sim in (host, first):
            assert not any("refused a message" in line for line in sim.seen), sim.seen
        # The board that lost is in no game: the lobby again, with no offer left to take.
        second.type("join race3")
        second.expect("no game race3 is offered in the lobby now")
        assert offers_in(broker) == []

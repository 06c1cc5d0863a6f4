"""A takeback request waiting when the board restarts, with the real parts: a daemon hosting a
browser's seat through a real Mosquitto (tests/broker.py), stopped and started again on the
same journal; the browser stands as a paho client with the seat key (its presence, proposals,
takeback requests and answers, signed as the seat page signs them). A request made before the
restart is answered after it and applied; one whose time ran out during the restart is not."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time

import pytest

from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.daemon.notify import Notifier
from board_driver.remote import protocol as rp
from board_driver.remote import seat as sp
from board_driver.remote.takeback import TAKEBACK_S
from tests.waits import scaled, until

SECRET = "kitchen-table-42"
GAME = "tb-restart"
KEY = sp.seat_key(SECRET, GAME, 1)


class SeatBrowser:
    """The browser's side of seat 1: what the board sends it (the last view, every answer),
    and what it says, signed with the seat key."""

    def __init__(self, port: int):
        import paho.mqtt.client as mqtt

        self.lock = threading.Lock()
        self.view: dict | None = None
        self.answers: list[dict] = []
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.c.on_message = self._message
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        for what in ("view", "answer"):
            self.c.subscribe(sp.seat_topic(GAME, 1, what), qos=1)

    def _message(self, client, userdata, message):
        if not message.payload:
            return
        body = sp.open_sealed(KEY, message.payload, sp.MAX_VIEW)
        with self.lock:
            if message.topic.endswith("/view"):
                self.view = body
            else:
                self.answers.append(body)

    def say(self, what: str, body: dict, retain: bool = False) -> None:
        self.c.publish(sp.seat_topic(GAME, 1, what),
                       sp.seal(KEY, dict(body, game_id=GAME, seat=1)), qos=1,
                       retain=retain).wait_for_publish(scaled(30))

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def board(tmp_path, broker) -> Daemon:
    cfg = sim_config(journal=str(tmp_path / "journal.sqlite"), layout="tree-planting-classic-pins",
                     players=("human", "remote"),
                     remote={"broker": broker.url, "game": GAME, "secret": SECRET,
                             "guest": True, "keepalive": 2})
    cfg.web_port = 0
    return Daemon(cfg, notifier=Notifier(None))


async def running(daemon: Daemon, scenario) -> None:
    """`scenario(daemon)` with the daemon running and its link up; then the daemon stopped (a
    restart of the board is one of these, then another on the same journal)."""
    run = asyncio.ensure_future(daemon.run())
    try:
        await until(lambda: daemon.remote is not None and daemon.remote.status == "connected",
                    30, "the link up, the browser seen")
        await scenario(daemon)
    finally:
        daemon.stop()
        await asyncio.gather(run, return_exceptions=True)


def moves(daemon: Daemon) -> list[str]:
    return [str(m) for m in daemon.session.referee.state.moves]


@pytest.mark.timeout(180)
def test_a_takeback_request_survives_a_restart_and_one_lapsed_meanwhile_is_not_applied(
        tmp_path, broker):
    browser = SeatBrowser(broker.port)
    kept = tmp_path / f"journal.remote-{GAME}-seat0.takeback.json"

    async def browser_asks(daemon):
        loop = asyncio.get_running_loop()
        hw = daemon.session.hardware.board
        hw.place("h0.0")
        await until(lambda: browser.view and browser.view["index"] == 1, 20, "the board's move")
        await loop.run_in_executor(None, browser.say, "play", {
            "type": "play", "epoch": browser.view["epoch"], "index": 1, "move": "v0.0",
            "id": "00000000b1"})
        await until(lambda: moves(daemon) == ["h0.0", "v0.0"], 20, "the browser's move")
        hw.place("v0.0")
        await loop.run_in_executor(None, browser.say, "takeback", {
            "type": "takeback", "epoch": browser.view["epoch"], "index": 2, "id": "00000000d1"})
        await until(lambda: daemon.remote.takeback_request == 1, 20, "the browser's request")

    async def board_accepts(daemon):
        # Restarted: the request waits again, said as before; the people at the board accept.
        assert daemon.remote.summary()["request"] == 1
        daemon.door.answer_takeback(True)
        assert moves(daemon) == ["h0.0"] and daemon.remote.takebacks == 1
        await until(lambda: any(a["id"] == "00000000d1" for a in browser.answers), 20,
                    "the browser told")
        (ok,) = [a for a in browser.answers if a["id"] == "00000000d1"]
        assert ok["ok"] and not kept.exists()
        daemon.session.hardware.board.lift("v0.0")
        # The browser plays again, the board replies and asks the browser for its move back.
        await until(lambda: browser.view["index"] == 1, 20, "the view after the takeback")
        await asyncio.get_running_loop().run_in_executor(None, browser.say, "play", {
            "type": "play", "epoch": browser.view["epoch"], "index": 1, "move": "v1.0",
            "id": "00000000b2"})
        await until(lambda: len(moves(daemon)) == 2, 20, "the browser's move")
        daemon.session.hardware.board.place("v1.0")
        daemon.session.hardware.board.place("h1.0")
        await until(lambda: len(moves(daemon)) == 3, 20, "the board's reply")
        assert daemon.door.takeback() == "asked the player in the browser to take back move 3"
        await until(lambda: browser.view["takeback"]["asked"] is not None, 20, "asked")

    async def browser_accepts(daemon):
        asked = browser.view["takeback"]["asked"]
        assert daemon.remote.summary()["asked_to"] == 2 and asked["index"] == 2
        await asyncio.get_running_loop().run_in_executor(None, browser.say, "takeback", {
            "type": "takeback-answer", "epoch": browser.view["epoch"], "index": 2,
            "ask": asked["ask"], "id": "00000000c1", "accept": True})
        await until(lambda: moves(daemon) == ["h0.0", "v1.0"], 20, "taken back")
        assert daemon.remote.takebacks == 2
        daemon.session.hardware.board.lift("h1.0")
        assert daemon.door.takeback() == "asked the player in the browser to take back move 1"
        await until(lambda: browser.view["takeback"]["asked"] is not None
                    and browser.view["index"] == 2, 20, "asked again")

    async def too_late(daemon):
        # Its time ran out while the board was down: lapsed (said), and an answer is refused.
        said = daemon.remote.summary()["takeback_said"]
        assert said is not None and "did not answer the takeback in time" in said[1]
        assert daemon.remote.summary()["asked_to"] is None and not kept.exists()
        refused = daemon.remote.refused
        await asyncio.get_running_loop().run_in_executor(None, browser.say, "takeback", {
            "type": "takeback-answer", "epoch": late["epoch"], "index": 0, "ask": late["ask"],
            "id": "00000000c2", "accept": True})
        await until(lambda: daemon.remote.refused > refused, 20, "the late answer refused")
        assert moves(daemon) == ["h0.0", "v1.0"] and daemon.remote.takebacks == 2
        # The browser asks for its own move back; the board goes down past its time.
        await asyncio.get_running_loop().run_in_executor(None, browser.say, "takeback", {
            "type": "takeback", "epoch": browser.view["epoch"], "index": 2, "id": "00000000d2"})
        await until(lambda: daemon.remote.takeback_request == 1, 20, "the browser's request")

    async def browser_told(daemon):
        # Lapsed during the restart: the browser is answered so, and nothing waits here.
        await until(lambda: any(a["id"] == "00000000d2" for a in browser.answers), 20,
                    "the browser told its request lapsed")
        (lapsed,) = [a for a in browser.answers if a["id"] == "00000000d2"]
        assert not lapsed["ok"] and "in time" in lapsed["reason"]
        assert daemon.remote.takeback_request is None and moves(daemon) == ["h0.0", "v1.0"]

    try:
        browser.say("presence", {"type": "presence", "online": True}, retain=True)
        asyncio.run(running(board(tmp_path, broker), browser_asks))
        assert json.loads(kept.read_text())["request"]["id"] == "00000000d1"
        asyncio.run(running(board(tmp_path, broker), board_accepts))
        asyncio.run(running(board(tmp_path, broker), browser_accepts))
        late = dict(browser.view["takeback"]["asked"], epoch=browser.view["epoch"])
        # The board stays down longer than the request's time: as if TAKEBACK_S went by.
        data = json.loads(kept.read_text())
        assert data["asked"]["deadline"] <= time.time() + TAKEBACK_S
        data["asked"]["deadline"] = time.time() - 1
        kept.write_text(json.dumps(data))
        asyncio.run(running(board(tmp_path, broker), too_late))
        data = json.loads(kept.read_text())
        data["request"]["deadline"] = time.time() - 1
        kept.write_text(json.dumps(data))
        asyncio.run(running(board(tmp_path, broker), browser_told))
    finally:
        browser.close()


def test_a_kept_request_about_another_position_is_dropped(tmp_path):
    """The kept request names the position: the same position takes it up again; a journal
    that moved on without it leaves it unread, and it is deleted."""
    from board_driver.referee.tracer import Tracer
    from board_driver.remote.guest import GuestLink
    from board_driver.remote.link import RemoteSettings

    def host():
        """The board as it restarts with its game (h0.0; a Tracer does not resume a journal)."""
        tracer = Tracer(sim_config(journal=str(tmp_path / "j.sqlite")))
        tracer.referee.set_seats(("human", "remote"))
        tracer.step("place", ["h0.0"])
        link = GuestLink(RemoteSettings(host="h", port=1, tls=False, game_id="g1",
                                        secret=SECRET, seat=1, state_dir=str(tmp_path),
                                        journal_stem="j", guest=True),
                         tracer.referee, tracer.clock)
        link.view_of = lambda: {}
        return tracer, link

    tracer, link = host()
    try:
        link._client, link.peer_online = object(), True
        link.request_takeback()
        link._save_takebacks()   # (the nonce, as the link keeps it once connected)
        assert link.takeback_part._kept.exists()
    finally:
        tracer.close()
    tracer, again = host()
    try:
        assert again.summary()["asked_to"] == 0     # the same position: it waits again
        other = tracer.referee.state.copy()
        other.play(other.parse_move("v0.0"))
    finally:
        tracer.close()
    data = json.loads(again.takeback_part._kept.read_text())
    data["hash"] = rp.position_hash(other)          # as if the journal had gone on without it
    again.takeback_part._kept.write_text(json.dumps(data))
    tracer, third = host()
    try:
        assert third.summary()["asked_to"] is None and not third.takeback_part._kept.exists()
    finally:
        tracer.close()


@pytest.mark.parametrize("damage", [b"\xff\xfe not UTF-8", b'{"game_id": "g1"', b'["a list"]',
                                    b'{"game_id": "g1", "nonce": 7, "asked": "soon"}'])
def test_a_damaged_kept_request_is_logged_with_its_file_and_the_board_starts(tmp_path, caplog,
                                                                             damage):
    """A kept request the card mangled (not UTF-8, cut short, another shape): the board starts
    with no request waiting, says which file, and the next request writes it afresh."""
    from board_driver.referee.tracer import Tracer
    from board_driver.remote.guest import GuestLink
    from board_driver.remote.link import RemoteSettings

    kept = tmp_path / "j.remote-g1-seat0.takeback.json"   # (the browser plays seat 0)
    kept.write_bytes(damage)
    tracer = Tracer(sim_config(journal=str(tmp_path / "j.sqlite")))
    try:
        tracer.referee.set_seats(("human", "remote"))
        tracer.step("place", ["h0.0"])
        with caplog.at_level(logging.ERROR, logger="treeboard.remote"):
            link = GuestLink(RemoteSettings(host="h", port=1, tls=False, game_id="g1",
                                            secret=SECRET, seat=1, state_dir=str(tmp_path),
                                            journal_stem="j", guest=True),
                             tracer.referee, tracer.clock)
        assert link.takeback_part._kept == kept
        assert link.summary()["asked_to"] is None
        assert any(str(kept) in r.getMessage() and "unreadable" in r.getMessage()
                   for r in caplog.records), caplog.text
        link.view_of = lambda: {}
        link._client, link.peer_online = object(), True
        link.request_takeback()
        assert json.loads(kept.read_text(encoding="utf-8"))["game_id"] == "g1"
    finally:
        tracer.close()

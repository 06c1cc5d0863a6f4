"""A player away, with the real parts: a daemon hosting a browser's seat through a real
Mosquitto (tests/broker.py), the browser standing as a paho client that says its signed presence
(online, then offline as its will would). The board hears it through its link, asks the present
player after the grace, pauses the clocks on the page's choice, and runs them again when the
browser is back."""

from __future__ import annotations

import asyncio

import pytest

from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.daemon.notify import Notifier
from board_driver.referee.clock import parse_time_control
from board_driver.remote import seat as sp
from tests.waits import scaled, until

SECRET = "kitchen-table-42"
GAME = "away-1"


def say_presence(port: int, online: bool) -> None:
    """The browser's presence on its seat, signed with its seat key, retained."""
    import paho.mqtt.client as mqtt

    body = {"type": "presence", "game_id": GAME, "seat": 1, "online": online}
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        client.publish(sp.seat_topic(GAME, 1, "presence"),
                       sp.seal(sp.seat_key(SECRET, GAME, 1), body), qos=1,
                       retain=True).wait_for_publish(scaled(30))
    finally:
        client.disconnect()
        client.loop_stop()


@pytest.mark.timeout(120)
def test_the_board_hears_the_browser_go_asks_pauses_and_runs_again_when_it_is_back(
        tmp_path, broker):
    cfg = sim_config(away_grace_seconds=1.0,   # (a minute by default)
                     journal=str(tmp_path / "journal.sqlite"),
                     layout="tree-planting-classic-pins", players=("human", "remote"),
                     time_control=parse_time_control("5"),
                     remote={"broker": broker.url, "game": GAME, "secret": SECRET,
                             "guest": True, "keepalive": 2})
    cfg.web_port = 0
    daemon = Daemon(cfg, notifier=Notifier(None))

    async def scenario():
        loop = asyncio.get_running_loop()
        referee = daemon.session.referee
        await loop.run_in_executor(None, say_presence, broker.port, True)
        await until(lambda: daemon.remote.peer_online, 20, "the browser seen")
        daemon.session.hardware.board.place("h0.0")       # the board's move: the browser's turn
        await until(lambda: referee.state.to_move == 1, 20, "the board's move")
        await loop.run_in_executor(None, say_presence, broker.port, False)   # the tab closed
        await until(lambda: (m := referee.moment(loop.time()).absent) is not None and m.asked,
                    20, "the present player asked")
        daemon.door.absent_choice("pause")
        kept = referee.clocks_left(loop.time())[1]
        await asyncio.sleep(0.3)   # (time passes; a paused clock shows no less)
        assert referee.clocks_left(loop.time())[1] == kept
        face = referee.moment(loop.time()).absent
        assert face.paused and referee.clocks.running is None
        await loop.run_in_executor(None, say_presence, broker.port, True)    # back
        await until(lambda: referee.clocks.running == 1, 20, "its clock running again")
        assert referee.moment(loop.time()).absent.seat is None

    async def main():
        run = asyncio.ensure_future(daemon.run())
        try:
            await until(lambda: daemon.remote is not None and daemon.remote.status != "connecting "
                        "to the broker", 30, "the link up")
            await scenario()
        finally:
            daemon.stop()
            await asyncio.gather(run, return_exceptions=True)

    asyncio.run(main())

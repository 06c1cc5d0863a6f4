"""A hostile client of the broker overwrites the board's retained seat view (board_driver/
remote/view_guard.py): the board notices and publishes its own signed view again at once, and
a flood of forgeries cannot make it spin. On a real Mosquitto (tests/broker.py), with a hostile
paho client and a fresh subscriber standing for a seat page opened after the forgery."""

from __future__ import annotations

import asyncio
import queue
import time

import pytest

from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from board_driver.remote import seat as sp
from board_driver.remote.guest import GuestLink
from board_driver.remote.link import RemoteSettings
from board_driver.remote.view_guard import MIN_GAP_S, ViewGuard
from tests.waits import Deadline, scaled, until

SECRET = b"kitchen-table-42"
GAME = "guarded"


class Later:
    """What the loop's call_later would book, run by hand."""

    def __init__(self):
        self.booked: list[tuple[float, object]] = []

    def __call__(self, delay, fn):
        entry = [delay, fn, False]
        self.booked.append(entry)
        return type("Handle", (), {"cancel": lambda _self: entry.__setitem__(2, True)})()


def test_a_forgery_is_answered_at_once_and_a_flood_at_most_once_a_gap():
    now = [100.0]
    put: list[bytes] = []
    later = Later()
    guard = ViewGuard(put.append, lambda: now[0], later)
    assert not guard.heard(b"forged")          # nothing published yet: nothing to defend
    guard.published(b"view 1")
    guard.published(b"view 2")
    assert not guard.heard(b"view 1") and not guard.heard(b"view 2") and put == []   # echoes
    assert guard.heard(b"forged") and put == [b"view 2"]          # answered at once
    for _ in range(1000):                                          # a flood within the gap
        now[0] += MIN_GAP_S / 2000
        assert guard.heard(b"forged again")
    assert put == [b"view 2"] and len(later.booked) == 1          # one republish booked
    delay, fn, cancelled = later.booked[0]
    assert 0 < delay <= MIN_GAP_S and not cancelled
    now[0] += delay
    fn()                                                           # the gap has passed
    assert put == [b"view 2", b"view 2"] and not guard.owed
    assert guard.heard(b"") and len(put) == 2 and guard.owed      # (a cleared view too)
    guard.forget()                                                 # a reconnect: owed no more
    assert not guard.owed and later.booked[1][2]


def _subscriber(port: int, topic: str, got: queue.Queue):
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.on_message = lambda _c, _u, msg: got.put(bytes(msg.payload))
    client.on_connect = lambda c, *_: c.subscribe(topic, qos=1)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def _hostile(port: int, topic: str, payloads: list[bytes]) -> None:
    """Another client of the broker, with no key, retaining what it likes on the view topic."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        for payload in payloads:
            client.publish(topic, payload, qos=1, retain=True).wait_for_publish(scaled(30))
    finally:
        client.disconnect()
        client.loop_stop()


def _retained_now(port: int, topic: str) -> bytes:
    """What a seat page opened now reads first: the retained view."""
    got: queue.Queue = queue.Queue()
    client = _subscriber(port, topic, got)
    try:
        return got.get(timeout=scaled(10))
    finally:
        client.disconnect()
        client.loop_stop()


def _is_boards(payload: bytes, key: bytes) -> bool:
    try:
        return sp.open_sealed(key, payload, sp.MAX_VIEW)["type"] == "view"
    except sp.RemoteError:
        return False


async def _boards_view_retained(port: int, topic: str, key: bytes, what: str) -> None:
    """Wait until a seat page opened now reads the board's own view first."""
    loop = asyncio.get_running_loop()
    deadline = Deadline(20)
    while not _is_boards(await loop.run_in_executor(None, _retained_now, port, topic), key):
        if deadline.passed():
            raise deadline.failure(what)
        await asyncio.sleep(0.05)


@pytest.mark.timeout(120)
def test_a_forged_retained_view_is_replaced_by_the_boards_own_soon(tmp_path, broker):
    tracer = Tracer(sim_config(journal=str(tmp_path / "j.sqlite")))
    tracer.referee.set_seats(("human", "remote"))
    key = sp.seat_key(SECRET, GAME, 1)
    topic = sp.seat_topic(GAME, 1, "view")
    forged = sp.seal(b"\0" * 32, {"type": "view", "game_id": GAME, "seat": 1, "sentence": "x"})

    async def scenario():
        loop = asyncio.get_running_loop()
        settings = RemoteSettings(host="127.0.0.1", port=broker.port, tls=False, game_id=GAME,
                                  secret=SECRET, seat=1, state_dir=str(tmp_path), guest=True,
                                  keepalive=5)
        link = GuestLink(settings, tracer.referee, loop.time)
        link.view_of = lambda: {"moves": [str(m) for m in tracer.referee.state.moves]}
        task = asyncio.ensure_future(link.run())
        try:
            await until(lambda: link._client is not None and link.view_guard._latest, 20,
                        "the board connected and published its view")
            await until(lambda: link._outbox.empty(), 10, "the view sent")
            first = await loop.run_in_executor(None, _retained_now, broker.port, topic)
            assert _is_boards(first, key)
            # One forgery: a tab opened soon after reads the board's view again.
            await loop.run_in_executor(None, _hostile, broker.port, topic, [forged])
            await until(lambda: link.view_guard.answered >= 1, 20, "the board to notice")
            await _boards_view_retained(broker.port, topic, key, "a fresh subscriber to read "
                                                                  "the board's view")
            # A flood: the board republishes at most once a gap, and has the last word.
            start, before = time.monotonic(), link.view_guard.answered
            await loop.run_in_executor(None, _hostile, broker.port, topic, [forged] * 300)
            await until(lambda: link.refused >= 301, 30, "every forgery heard")
            spent = time.monotonic() - start
            await until(lambda: not link.view_guard.owed, 20, "the last forgery answered")
            made = link.view_guard.answered - before
            assert 1 <= made <= spent / MIN_GAP_S + 2, (made, spent)
            await until(lambda: link._outbox.empty(), 10, "the view sent")
            await _boards_view_retained(broker.port, topic, key, "the board's view retained "
                                                                  "after the flood")
        finally:
            task.cancel()
            await asyncio.wait({task}, timeout=5)

    try:
        asyncio.run(scenario())
    finally:
        tracer.close()

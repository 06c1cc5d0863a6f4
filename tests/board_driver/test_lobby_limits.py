"""The family broker's size limits (docs/remote.md, step 6: `message_size_limit` and
`max_packet_size`), read from the docs and run in the real Mosquitto: a forgery larger than a
game's whole state is refused by the broker itself, so no client (a board, a browser's seat
page opened during a flood) is ever sent it, and nothing of it is retained; the largest
message treeboard sends, a browser's view, still goes through."""

from __future__ import annotations

import re
import threading

import paho.mqtt.client as paho

from board_driver.remote import protocol as rp
from board_driver.remote import seat as sp
from tests.board_driver.browser_harness import browser, chromium, sims  # noqa: F401
from tests.board_driver.test_lobby_acl import DOCS, Client
from tests.board_driver.test_seat_browser import ws_broker  # noqa: F401
from tests.broker import Broker
from tests.waits import scaled, wait_for

VIEW = sp.seat_topic("lim1", 1, "view")
MARKER = sp.seat_topic("lim1", 1, "host")


def documented_limits() -> dict[str, int]:
    """The size limits of the broker config docs/remote.md gives (step 6)."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"`/etc/mosquitto/conf\.d/treeboard\.conf`:\n\n\s*```\n(.*?)```", text,
                      re.S)
    assert block, "docs/remote.md has no treeboard.conf block"
    return {m[1]: int(m[2]) for m in
            re.finditer(r"^\s*(message_size_limit|max_packet_size) (\d+)$", block.group(1), re.M)}


def retained_view(broker: Broker) -> bytes | None:
    """What the broker keeps retained on the view topic, read by a client of its own: the
    marker topic, retained after it, comes after the view's message would."""
    watcher = Client(broker, "board")   # (any account: this broker lets anyone in)
    try:
        watcher.subscribe(VIEW)
        watcher.subscribe(MARKER)
        wait_for(lambda: MARKER in watcher.got, 10, "the marker")
        return watcher.got.get(VIEW)
    finally:
        watcher.close()


def test_the_documented_limits_follow_the_boards_own_and_keep_oversized_forgeries_off(
        tmp_path):
    limits = documented_limits()
    assert limits == {"message_size_limit": rp.MAX_MESSAGE, "max_packet_size": rp.MAX_PACKET}
    assert sp.MAX_VIEW < rp.MAX_MESSAGE
    broker = Broker(tmp_path, extra=tuple(f"{k} {v}" for k, v in limits.items()))
    broker.start()
    try:
        hostile = paho.Client(paho.CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
        gone = threading.Event()
        hostile.on_disconnect = lambda *args: gone.set()
        hostile.connect("127.0.0.1", broker.port)
        hostile.loop_start()
        # Over the payload limit, under the packet limit: acknowledged with an error
        # ("implementation specific error", MQTT 5), kept by no one.
        over = hostile.publish(VIEW, b"x" * (rp.MAX_MESSAGE + 1), qos=1, retain=True)
        over.wait_for_publish(scaled(10))
        # A 1 MB forgery: the client that sends it is put off the broker.
        hostile.publish(VIEW, b"y" * (1024 * 1024), qos=1, retain=True)
        assert gone.wait(scaled(10)), "the client of a 1 MB packet was not disconnected"
        hostile.loop_stop()
        board = paho.Client(paho.CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
        board.connect("127.0.0.1", broker.port)
        board.loop_start()
        board.publish(MARKER, b"here", qos=1, retain=True).wait_for_publish(scaled(10))
        assert retained_view(broker) is None     # neither forgery was kept
        # The largest thing a board sends, a browser's view, is kept and relayed.
        view = b"v" * sp.MAX_VIEW
        board.publish(VIEW, view, qos=1, retain=True).wait_for_publish(scaled(10))
        assert retained_view(broker) == view
        board.loop_stop()
        board.disconnect()
    finally:
        broker.stop()


def test_a_seat_page_opened_over_an_oversized_forged_view_never_shows_it(
        tmp_path, ws_broker, sims, browser, monkeypatch):
    """A broker without the limits keeps a forged view too large for the board to see (over
    its maximum packet size: it cannot answer it with its own). A tab opened then reads the
    forgery first: it ignores it without showing anything of it (no "this link does not open
    this game" flashed: the board's signed presence says the link is right), and draws the
    board's view, which the board publishes again as the browser says it is here."""
    from tests.board_driver.test_seat_browser import SECRET, host, invite, seat_view

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    sim = host(sims, ws_broker, "lim2", "--game", "tree-planting")
    link = invite(ws_broker, "lim2", 1, TREEBOARD_REMOTE_SECRET=SECRET)
    view = sp.seat_topic("lim2", 1, "view")
    wait_for(lambda: sim.state()["remote"]["status"] != "connecting to the broker", 20,
             "the board on the broker")
    hostile = paho.Client(paho.CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
    hostile.connect("127.0.0.1", ws_broker.port)
    hostile.loop_start()
    try:
        body = {"type": "view", "game_id": "lim2", "seat": 1, "svg": "<svg></svg>",
                "index": 0, "sentence": "forged" + " " * (rp.MAX_PACKET + 1024),
                "title": "forged", "you": "", "moves": []}
        hostile.publish(view, sp.seal(bytes(32), body), qos=1,
                        retain=True).wait_for_publish(scaled(10))
    finally:
        hostile.loop_stop()
        hostile.disconnect()
    watcher = Client(ws_broker, "board")   # (the forgery is what the broker keeps now)
    try:
        watcher.subscribe(view)
        wait_for(lambda: len(watcher.got.get(view, b"")) > rp.MAX_PACKET, 10, "the forgery kept")
    finally:
        watcher.close()
    # Record whether the page ever shows the bad-link line, from before its own script runs.
    page = browser.new_page()
    page.add_init_script("""
        window.__shown = [];
        document.addEventListener("DOMContentLoaded", () => {
          const bad = document.getElementById("bad-link");
          new MutationObserver(() => { if (!bad.hidden) window.__shown.push(bad.textContent); })
            .observe(bad, { attributes: true, childList: true });
        });""")
    page.goto(link)
    page.wait_for_selector("#picture svg [data-site]", state="attached")
    page.wait_for_function("document.body.dataset.board === 'here'")
    assert seat_view(page)["index"] == 0 and page.inner_text("#sentence") != "forged"
    assert page.evaluate("window.__shown") == [] and page.is_hidden("#bad-link")

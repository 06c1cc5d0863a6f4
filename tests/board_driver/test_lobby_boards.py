"""Two boards meeting in the family's lobby, with the real parts: Debian's Mosquitto and two
`treeboard sim`s in their own processes. One hosts a game and offers its open seat
(`--guest --offer`); the other, with no game arranged (`--remote URL --lobby`), lists the
lobby (`lobby`, and `treeboard lobby` on the command line) and takes the offer (`join GAME`):
both then play board to board, the game id, options and seats from the offer alone."""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading

from tests.board_driver.browser_harness import browser, chromium, page_reading, sims  # noqa: F401
from tests.board_driver.test_remote_sim import Sim
from tests.waits import scaled, wait_for

SECRET = "kitchen-table-42"


class LineSim(Sim):
    """`treeboard sim --no-web ARGS` in a process; its printed lines read as they come."""

    def __init__(self, tmp_path, name: str, *args: str, secret: str = SECRET):
        env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"),
                   TREEBOARD_REMOTE_SECRET=secret, NO_COLOR="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "board_driver.cli", "sim", "--no-web", "--verbose",
             "--journal", str(tmp_path / f"{name}.sqlite"), *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=env)
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()


def lobby_cli(broker) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "board_driver.cli", "lobby", "--broker",
                           broker.url], capture_output=True, text=True, timeout=scaled(60),
                          env=dict(os.environ, TREEBOARD_REMOTE_SECRET=SECRET))


def retained(broker, topic: str, marker: str) -> bytes | None:
    """The message retained on `topic`, or None: `marker`, a topic known to hold one and
    subscribed after it, comes after it would."""
    import paho.mqtt.client as paho

    got: dict[str, bytes] = {}
    client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="test-retained")
    client.on_message = lambda c, u, m: got.setdefault(m.topic, m.payload)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        client.subscribe(topic, qos=1)
        client.subscribe(marker, qos=1)
        wait_for(lambda: marker in got, 10, f"the retained message on {marker}")
        return got.get(topic)
    finally:
        client.loop_stop()
        client.disconnect()


def test_two_boards_meet_in_the_lobby_and_play_board_to_board(tmp_path, broker):
    with contextlib.ExitStack() as started:
        host = LineSim(tmp_path, "host", "--remote", broker.url, "--join", "meet1", "--seat",
                       "0", "--guest", "--offer")
        started.callback(host.close)
        host.expect("offered seat 1 of meet1 in the lobby")
        wait_for(lambda: retained(broker, "treeboard/v1/meet1/seat/1/view",
                                  "treeboard/v1/meet1/presence/0"), 10,
                 "the view for a browser (until a board takes the seat)")
        # The command line lists it (the family secret makes the lobby's id and key).
        out = lobby_cli(broker)
        assert out.returncode == 0 and out.stdout.startswith("meet1: "), out
        guest = LineSim(tmp_path, "guest", "--remote", broker.url, "--lobby")
        started.callback(guest.close)
        guest.type("lobby")
        guest.expect(r"offered: meet1 .*join meet1")
        guest.type("join meet1")
        # (taken once the offering board plays it with this one: remote/meet.py's outcome)
        guest.expect("^other board: connected", 20)
        guest.expect("took meet1 from the lobby: this board plays seat 1")
        host.expect("a board took the lobby's offer of meet1")
        host.expect("the lobby's offer of meet1 is withdrawn")
        host.expect("other board: connected", 20)
        # The offer is gone from the lobby, and the browser's view from its seat: in its
        # place the board's signed word that a board took the seat (a browser that took it
        # at the same moment, or opens it later, is told so: remote/guest.py clear_view).
        out = lobby_cli(broker)
        assert out.returncode == 0 and out.stdout == "", out
        from board_driver.remote import seat as sp
        gone = sp.open_sealed(sp.seat_key(SECRET, "meet1", 1), retained(
            broker, "treeboard/v1/meet1/seat/1/view", "treeboard/v1/meet1/presence/0"))
        assert gone["type"] == "gone" and "another board took this seat first" in gone["text"]
        # They play: a move at the host is the guest board's to put, and back.
        host.type("place h0.0")
        host.expect(r"move 1: h0\.0")
        guest.expect(r"make the other board's move at h0\.0: put a rod here")
        guest.type("place h0.0")
        guest.type("place v0.0")
        guest.expect(r"^move 2: v0\.0")
        host.expect(r"move 2: v0\.0.*put it on the board")
    assert host.proc.returncode == 0 and guest.proc.returncode == 0


def offers_in(broker) -> list[str]:
    """The game ids the lobby lists now, read as a board reads them (remote/meet.py)."""
    import asyncio

    from board_driver.remote.link import parse_broker
    from board_driver.remote.meet import Broker, read_offers

    from concurrent.futures import ThreadPoolExecutor

    host, port, tls = parse_broker(broker.url)
    reading = Broker(host, port, tls, SECRET.encode())
    try:   # (a thread of its own: a browser test's thread runs Playwright's loop)
        with ThreadPoolExecutor(1) as pool:
            offers = pool.submit(asyncio.run, read_offers(reading)).result()
    except OSError:   # (the broker not up yet)
        return []
    return [o.game_id for o in offers]


def test_the_offer_comes_back_after_the_broker_restarts(tmp_path, broker):
    """A broker without persistence forgets the retained offer as it restarts; the offer's own
    connection drops with it and, connected again, offers the game again."""
    with contextlib.ExitStack() as started:
        host = LineSim(tmp_path, "host", "--remote", broker.url, "--join", "again1", "--seat",
                       "0", "--guest", "--offer")
        started.callback(host.close)
        host.expect("offered seat 1 of again1 in the lobby")
        assert offers_in(broker) == ["again1"]
        broker.stop()
        broker.start()
        wait_for(lambda: offers_in(broker) == ["again1"], 30,
                 "the offer to be made again on the restarted broker")
        # ... and it still goes when taken.
        guest = LineSim(tmp_path, "guest", "--remote", broker.url, "--lobby")
        started.callback(guest.close)
        guest.type("join again1")
        guest.expect("took again1 from the lobby")
        wait_for(lambda: offers_in(broker) == [], 30, "the taken offer to go")


def test_a_board_that_met_another_stays_in_that_game_after_a_restart(tmp_path, broker):
    """The host's game, taken by a board, is kept as a board-to-board game: restarted, the
    host plays it with that board again, and offers nothing to a browser."""
    with contextlib.ExitStack() as started:
        args = ("--remote", broker.url, "--join", "kept1", "--seat", "0", "--guest", "--offer")
        host = LineSim(tmp_path, "host", *args)
        started.callback(host.close)
        host.expect("offered seat 1 of kept1 in the lobby")
        guest = LineSim(tmp_path, "guest", "--remote", broker.url, "--lobby")
        started.callback(guest.close)
        guest.type("join kept1")
        host.expect("other board: connected", 20)
        host.type("place h0.0")
        guest.expect(r"make the other board's move at h0\.0")
        host.close()
        again = LineSim(tmp_path, "host", *args)
        started.callback(again.close)
        again.expect("other board: connected", 20)
        assert not any("offered seat" in line for line in again.seen)
        assert offers_in(broker) == []
        guest.type("place h0.0")
        guest.type("place v0.0")
        again.expect(r"move 2: v0\.0.*put it on the board")


def test_the_page_lists_the_lobby_and_takes_an_offer_or_says_why_not(tmp_path, broker, sims,
                                                                     browser, monkeypatch):
    import json
    import urllib.error
    import urllib.request

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    with contextlib.ExitStack() as started:
        host = LineSim(tmp_path, "host", "--remote", broker.url, "--join", "page1", "--seat",
                       "0", "--guest", "--offer")
        started.callback(host.close)
        host.expect("offered seat 1 of page1 in the lobby")
        board = sims("--remote", broker.url, "--lobby")

        def post(path: str, body: dict):
            request = urllib.request.Request(board.url + path, json.dumps(body).encode(),
                                             {"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=scaled(30)) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as exc:
                return exc.code, json.loads(exc.read())["error"]

        with urllib.request.urlopen(board.url + "api/lobby", timeout=scaled(30)) as r:
            offers = json.loads(r.read())["offers"]
        assert [(o["game_id"], o["seat"], o["game"]) for o in offers] == [
            ("page1", 1, "tree-planting")]
        assert "wrapped" not in json.dumps(offers) and "login" not in json.dumps(offers)
        status, reason = post("api/lobby/take", {"game": "nowhere"})
        assert status == 409 and "no game nowhere is offered" in reason, reason
        # The page lists the offer and takes it with a button.
        page = page_reading(browser, board, ["en"])
        page.click("#join summary")
        page.click("#lobby-look")
        page.click("#lobby-offers li[data-game=page1] button")
        state = board.wait(lambda s: (s.get("remote") or {}).get("game") == "page1", 20)
        assert state["remote"]["game"] == "page1", state
        host.expect("other board: connected", 20)
        board.wait(lambda s: s["remote"]["status"] == "connected", 20)
        assert offers_in(broker) == []

"""What a seat's broker account may touch, with the real Mosquitto and the very ACL lines
docs/remote.md gives a family: a seat's account is named `<game id>/seat/<seat>`, the path of
its seat's topics, and Mosquitto's pattern ACLs (`%u`, the account's name) let it read what the
board says to that seat and write what the seat says, and nothing of the other seat or any
other game; the lobby account reads the lobby's offers only. `family` is the documented set-up
a browser test plays through (here and in test_seat_browser.py)."""

from __future__ import annotations

import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as paho
import pytest

from board_driver.remote import seat as sp
from tests.broker import Broker
from tests.board_driver.browser_harness import TREEBOARD, browser, chromium, sims  # noqa: F401
from tests.waits import scaled, wait_for

DOCS = Path(__file__).resolve().parents[2] / "docs" / "remote.md"
SECRET = "kitchen-table-42"
PASSWORDS = {"board": "board-pw-1", "lobby": "lobby-pw-1",
             "acl1/seat/1": "acl1-pw-1", "acl2/seat/1": "acl2-pw-1"}


def documented_acl() -> str:
    """The ACL file docs/remote.md tells a family to write (its step "What each may touch")."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"`/etc/mosquitto/acl`:\n\n\s*```\n(.*?)```", text, re.S)
    assert block, "docs/remote.md has no /etc/mosquitto/acl block"
    return "\n".join(line.strip() for line in block.group(1).splitlines()) + "\n"


@dataclass
class Family:
    """The documented set-up on one machine: the broker (passwords, the documented ACL, the
    seat page on its WebSockets listener), the login files, and a board's config hosting
    `game` with seat 1 played from a browser through that seat's own account."""

    broker: Broker
    config: Path
    files: Path
    seat_login: tuple[str, str]

    def invite(self, *args: str) -> str:
        """`treeboard invite` for the family's seat page and broker, with `args`."""
        out = subprocess.run([TREEBOARD, "invite", "--page",
                              f"http://127.0.0.1:{self.broker.ws_port}/index.html", "--broker",
                              self.broker.ws_url, "--secret-file", str(self.files / "secret"),
                              *args], capture_output=True, text=True, timeout=scaled(60))
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()


@pytest.fixture
def family(tmp_path, monkeypatch):
    """`family(game, offer=False)`: the documented set-up started (stopped after the test)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    brokers: list[Broker] = []

    def make(game: str, offer: bool = False) -> Family:
        site = tmp_path / "site"
        subprocess.run([TREEBOARD, "seat-page", "--out", str(site)], check=True,
                       capture_output=True, timeout=scaled(60))
        seat_login = sp.game_login(SECRET, game, 1)
        broker = Broker(tmp_path, users={**PASSWORDS, seat_login[0]: seat_login[1]},
                        websockets=site, acl=documented_acl())
        broker.start()
        brokers.append(broker)
        for name, text in (("board", "board:board-pw-1"), ("lobby", "lobby:lobby-pw-1"),
                           ("secret", SECRET)):
            (tmp_path / name).write_text(text + "\n")
            (tmp_path / name).chmod(0o600)
        config = tmp_path / "board.toml"
        config.write_text(f'''backend = "sim"
layout = "tree-planting-4x4-matrix"
players = ["human", "remote"]
[remote]
broker = "{broker.url}"
game = "{game}"
secret_file = "{tmp_path / 'secret'}"
credentials_file = "{tmp_path / 'board'}"
guest = true
offer = {str(offer).lower()}
game_login = true
''')
        config.chmod(0o600)
        return Family(broker, config, tmp_path, seat_login)

    yield make
    for broker in brokers:
        broker.stop()


@pytest.fixture
def family_broker(tmp_path):
    broker = Broker(tmp_path, users=PASSWORDS, acl=documented_acl())
    broker.start()
    yield broker
    broker.stop()


class Client:
    """A paho client of one account: what it receives, by topic, and its subscriptions'
    answers (MQTT 5 reason codes)."""

    def __init__(self, broker: Broker, user: str, password: str | None = None):
        self.got: dict[str, bytes] = {}
        self.granted: list[list[int]] = []
        self.lock = threading.Lock()
        self.c = paho.Client(paho.CallbackAPIVersion.VERSION2,
                             client_id=f"test-{user.replace('/', '-')}", protocol=paho.MQTTv5)
        self.c.username_pw_set(user, password or PASSWORDS[user])
        self.c.on_message = self._message
        self.c.on_subscribe = self._subscribed
        self.c.connect("127.0.0.1", broker.port)
        self.c.loop_start()

    def _message(self, client, userdata, message):
        with self.lock:
            self.got[message.topic] = message.payload

    def _subscribed(self, client, userdata, mid, reasons, properties):
        with self.lock:
            self.granted.append([r.value for r in reasons])

    def subscribe(self, topic: str) -> int:
        """Subscribe and wait for the broker's answer (its reason code)."""
        before = len(self.granted)
        self.c.subscribe(topic, qos=1)
        wait_for(lambda: len(self.granted) > before, 10, f"the SUBACK for {topic}")
        return self.granted[before][0]

    def publish(self, topic: str, payload: bytes, retain: bool = True) -> None:
        self.c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(scaled(10))

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


def test_a_seats_account_touches_its_own_seat_and_nothing_else(family_broker):
    board = Client(family_broker, "board")
    lobby_topic = "treeboard/v1/lobby/0123456789abcdef/offer/acl1"
    try:
        # What boards hosting acl1 and acl2 keep on the broker (retained): both seats' views
        # (a game may have a browser on each), the board's presence for the browser and for
        # boards, its state.
        for game in ("acl1", "acl2"):
            for seat in (0, 1):
                board.publish(f"treeboard/v1/{game}/seat/{seat}/view",
                              f"view of {game} {seat}".encode())
            board.publish(f"treeboard/v1/{game}/seat/1/host", f"host of {game}".encode())
            board.publish(f"treeboard/v1/{game}/presence/0", f"board of {game}".encode())
            board.publish(f"treeboard/v1/{game}/state/0", f"state of {game}".encode())
        board.publish(lobby_topic, b"offer")
        guest = Client(family_broker, "acl1/seat/1")
        try:
            # The other seat's view, the game's presence and state, another game's, and
            # wildcards over every game: the broker grants the subscriptions (Mosquitto 2.0
            # checks reads as it delivers) and delivers nothing of them. Its own seat's
            # topics, asked last, are the marker: their retained messages come after any of
            # those would.
            for topic in ("treeboard/v1/acl1/seat/0/view", "treeboard/v1/acl1/seat/+/view",
                          "treeboard/v1/acl1/presence/0", "treeboard/v1/acl1/state/0",
                          "treeboard/v1/acl2/seat/1/view", "treeboard/v1/acl2/seat/1/host",
                          "treeboard/v1/+/seat/#", "treeboard/#", "treeboard/v1/lobby/#"):
                guest.subscribe(topic)
            guest.subscribe("treeboard/v1/acl1/seat/1/view")
            guest.subscribe("treeboard/v1/acl1/seat/1/host")
            wait_for(lambda: "treeboard/v1/acl1/seat/1/host" in guest.got, 10,
                     "acl1's board presence for seat 1")
            assert guest.got == {"treeboard/v1/acl1/seat/1/view": b"view of acl1 1",
                                 "treeboard/v1/acl1/seat/1/host": b"host of acl1"}
            # It cannot say it is the board (presence, its seat's host topic), write its own
            # view, or write the other seat's or another game's: the broker drops them all.
            # Its own proposal, sent last, is the marker: it reaches the board account after
            # anything the guest sent before it would.
            seen = Client(family_broker, "board")
            try:
                for topic in ("treeboard/v1/+/presence/0", "treeboard/v1/+/seat/+/host",
                              "treeboard/v1/+/seat/+/view", "treeboard/v1/+/seat/+/play"):
                    seen.subscribe(topic)
                wait_for(lambda: len(seen.got) == 8, 10, "the boards' retained messages")
                before = dict(seen.got)
                for topic in ("treeboard/v1/acl1/presence/0", "treeboard/v1/acl1/seat/1/host",
                              "treeboard/v1/acl1/seat/1/view", "treeboard/v1/acl1/seat/0/view",
                              "treeboard/v1/acl2/presence/0", "treeboard/v1/acl2/seat/1/view"):
                    guest.publish(topic, b"forged")
                for topic in ("treeboard/v1/acl1/seat/0/play", "treeboard/v1/acl2/seat/1/play"):
                    guest.publish(topic, b"probe", retain=False)
                guest.publish("treeboard/v1/acl1/seat/1/play", b"mine", retain=False)
                wait_for(lambda: "treeboard/v1/acl1/seat/1/play" in seen.got, 10,
                         "the guest's own proposal to reach the board")
                assert seen.got == {**before, "treeboard/v1/acl1/seat/1/play": b"mine"}
            finally:
                seen.close()
        finally:
            guest.close()
        # The lobby's account reads the offers, and no game's seat.
        lobby = Client(family_broker, "lobby")
        try:
            lobby.subscribe("treeboard/v1/acl1/seat/1/view")
            lobby.subscribe("treeboard/v1/+/presence/+")
            lobby.subscribe("treeboard/v1/lobby/0123456789abcdef/offer/+")
            wait_for(lambda: lobby.got, 10, "the offer")
            assert lobby.got == {lobby_topic: b"offer"}
        finally:
            lobby.close()
    finally:
        board.close()


def test_a_browser_takes_an_offer_through_the_lobby_account_and_plays_as_the_seats_guest(
        family, sims, browser):
    """The documented set-up end to end: the lobby link carries the lobby's account, which
    reads offers only; the offer carries the seat's own account (wrapped for lobby members),
    with which the browser opens the seat it took and plays."""
    import random
    from urllib.parse import quote

    from tests.board_driver.test_seat_browser import play_tree_planting

    home = family("acl3", offer=True)
    sim = sims("--config", str(home.config))
    page = browser.new_page()
    page.goto(home.invite("--lobby", "--login", str(home.files / "lobby")))
    page.click("#offers li[data-game=acl3] button")
    page.wait_for_selector("#picture svg [data-site]", state="attached")
    page.wait_for_function("document.body.dataset.board === 'here'")
    assert f"user={quote(home.seat_login[0], safe='')}" in page.url
    assert "user=lobby" not in page.url
    play_tree_planting(sim, page, sim.state()["options"], random.Random(3), 3)

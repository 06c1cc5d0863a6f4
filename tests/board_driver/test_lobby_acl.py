"""What a guest's broker account may read, with the real Mosquitto and the very ACL lines
docs/remote.md gives a family: a guest account is named after its game id, and Mosquitto's
pattern ACLs (`%u`, the account's name) let it read that game's seat topics and board presence
and nothing of any other game; the lobby account reads the lobby's offers only."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import paho.mqtt.client as paho
import pytest

from tests.broker import Broker
from tests.board_driver.browser_harness import browser, chromium, sims  # noqa: F401
from tests.waits import scaled, wait_for

DOCS = Path(__file__).resolve().parents[2] / "docs" / "remote.md"
PASSWORDS = {"board": "board-pw-1", "lobby": "lobby-pw-1", "acl1": "acl1-pw-1",
             "acl2": "acl2-pw-1"}


def documented_acl() -> str:
    """The ACL file docs/remote.md tells a family to write (its step "What each may touch")."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"`/etc/mosquitto/acl`:\n\n\s*```\n(.*?)```", text, re.S)
    assert block, "docs/remote.md has no /etc/mosquitto/acl block"
    return "\n".join(line.strip() for line in block.group(1).splitlines()) + "\n"


@pytest.fixture
def family_broker(tmp_path):
    broker = Broker(tmp_path, users=PASSWORDS, acl=documented_acl())
    broker.start()
    yield broker
    broker.stop()


class Client:
    """A paho client of one account: what it receives, by topic, and its subscriptions'
    answers (MQTT 5 reason codes)."""

    def __init__(self, broker: Broker, user: str):
        self.got: dict[str, bytes] = {}
        self.granted: list[list[int]] = []
        self.lock = threading.Lock()
        self.c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=f"test-{user}",
                             protocol=paho.MQTTv5)
        self.c.username_pw_set(user, PASSWORDS[user])
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


def test_a_guest_account_reads_its_own_game_and_nothing_of_another(family_broker):
    board = Client(family_broker, "board")
    lobby_topic = "treeboard/v1/lobby/0123456789abcdef/offer/acl1"
    try:
        # What two boards hosting acl1 and acl2 keep on the broker (retained).
        for game in ("acl1", "acl2"):
            board.publish(f"treeboard/v1/{game}/seat/1/view", f"view of {game}".encode())
            board.publish(f"treeboard/v1/{game}/presence/0", f"board of {game}".encode())
            board.publish(f"treeboard/v1/{game}/state/0", f"state of {game}".encode())
        board.publish(lobby_topic, b"offer")
        guest = Client(family_broker, "acl1")
        try:
            # Another game's view, presence and state, and wildcards over every game: the
            # broker grants the subscriptions (Mosquitto 2.0 checks reads as it delivers) and
            # delivers nothing of them. Its own game's seat topics and board presence, asked
            # last, are the marker: their retained messages come after any of those would.
            for topic in ("treeboard/v1/acl2/seat/1/view", "treeboard/v1/acl2/presence/0",
                          "treeboard/v1/+/seat/#", "treeboard/#", "treeboard/v1/acl1/state/0",
                          "treeboard/v1/lobby/#"):
                guest.subscribe(topic)
            guest.subscribe("treeboard/v1/acl1/seat/1/#")
            guest.subscribe("treeboard/v1/acl1/presence/+")
            wait_for(lambda: "treeboard/v1/acl1/presence/0" in guest.got, 10,
                     "acl1's board presence")
            assert guest.got == {"treeboard/v1/acl1/seat/1/view": b"view of acl1",
                                 "treeboard/v1/acl1/presence/0": b"board of acl1"}
            # It cannot say it is the board (presence is read only), nor write another game's
            # seat: the broker drops both. Its own proposal, sent last, is the marker: it
            # reaches the board account after anything the guest sent before it would.
            seen = Client(family_broker, "board")
            try:
                seen.subscribe("treeboard/v1/+/presence/0")
                seen.subscribe("treeboard/v1/+/seat/1/play")
                wait_for(lambda: len(seen.got) == 2, 10, "the boards' retained presence")
                guest.publish("treeboard/v1/acl1/presence/0", b"forged")
                guest.publish("treeboard/v1/acl2/presence/0", b"forged")
                guest.publish("treeboard/v1/acl2/seat/1/play", b"probe", retain=False)
                guest.publish("treeboard/v1/acl1/seat/1/play", b"mine", retain=False)
                wait_for(lambda: "treeboard/v1/acl1/seat/1/play" in seen.got, 10,
                         "the guest's own proposal to reach the board")
                assert seen.got == {"treeboard/v1/acl1/presence/0": b"board of acl1",
                                    "treeboard/v1/acl2/presence/0": b"board of acl2",
                                    "treeboard/v1/acl1/seat/1/play": b"mine"}
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


def test_a_browser_takes_an_offer_through_the_lobby_account_and_plays_as_the_games_guest(
        tmp_path, sims, browser, monkeypatch):
    """The documented set-up end to end: the lobby link carries the lobby's account, which
    reads offers only; the offer carries the game's own account (wrapped for lobby members),
    with which the browser opens the seat it took and plays."""
    import random
    import subprocess

    from board_driver.remote import seat as sp
    from tests.board_driver.browser_harness import TREEBOARD
    from tests.board_driver.test_seat_browser import SECRET, play_tree_planting

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    site = tmp_path / "site"
    subprocess.run([TREEBOARD, "seat-page", "--out", str(site)], check=True,
                   capture_output=True, timeout=scaled(60))
    game, password = sp.game_login(SECRET, "acl3")
    broker = Broker(tmp_path, users={**PASSWORDS, game: password}, websockets=site,
                    acl=documented_acl())
    broker.start()
    try:
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
game = "acl3"
secret_file = "{tmp_path / 'secret'}"
credentials_file = "{tmp_path / 'board'}"
guest = true
offer = true
game_login = true
''')
        config.chmod(0o600)
        sim = sims("--config", str(config))
        out = subprocess.run([TREEBOARD, "invite", "--lobby", "--page",
                              f"http://127.0.0.1:{broker.ws_port}/index.html", "--broker",
                              broker.ws_url, "--login", str(tmp_path / "lobby"), "--secret-file",
                              str(tmp_path / "secret")], capture_output=True, text=True,
                             timeout=scaled(60))
        assert out.returncode == 0, out.stderr
        page = browser.new_page()
        page.goto(out.stdout.strip())
        page.click("#offers li[data-game=acl3] button")
        page.wait_for_selector("#picture svg [data-site]", state="attached")
        page.wait_for_function("document.body.dataset.board === 'here'")
        assert f"user={game}" in page.url and "user=lobby" not in page.url
        play_tree_planting(sim, page, sim.state()["options"], random.Random(3), 3)
    finally:
        broker.stop()

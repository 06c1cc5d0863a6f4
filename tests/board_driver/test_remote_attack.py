"""A hostile client of the broker against a board in remote play, on a real Mosquitto: anyone
who may publish on the game's topics (no secret needed) sends what it likes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import pytest

from remote_board import ProcessBoard
from tests.waits import Deadline, scaled

GAME = "attack-1"
BIG = 100 * 1024 * 1024


def publish(port: int, topic: str, payload: bytes, retain: bool = False) -> None:
    """One message from another client of the broker (paho, as any MQTT client would)."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"attacker-{topic[-6:]}")
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(scaled(60))
    finally:
        client.disconnect()
        client.loop_stop()


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/PID/status")


@pytest.mark.timeout(240)
def test_a_100_mb_message_from_anyone_never_reaches_the_boards_memory(tmp_path, broker):
    """The board asks the broker (MQTT 5's Maximum Packet Size in CONNECT) not to send it a
    packet over MAX_PACKET; Mosquitto drops such a message for it. A retained 100 MB message
    was received again on every reconnect and each board peaked at ~412 MB."""
    base = f"treeboard/v1/{GAME}"
    publish(broker.port, f"{base}/state/1", b"x" * BIG, retain=True)   # waiting for it
    board = ProcessBoard({"journal": str(tmp_path / "j.sqlite"), "players": ["human", "remote"],
                   "remote": {"broker": f"mqtt://127.0.0.1:{broker.port}", "game": GAME,
                              "secret": "a shared secret"}})

    async def scenario():
        await board.start()
        try:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, publish, broker.port, f"{base}/move", b"[" * BIG)
            # a message after them on the same topics: once it is in, they were dealt with
            await loop.run_in_executor(None, publish, broker.port, f"{base}/presence/1",
                                       b"x" * 100, True)
            deadline = Deadline(30)
            while (status := await board.status())["refused"] < 1:
                if deadline.passed():
                    raise deadline.failure(f"the board to refuse the message: {status}")
                await asyncio.sleep(0.05)
            return peak_rss_mb(board.proc.pid), status
        finally:
            await board.close()

    peak, status = asyncio.run(scenario())
    print(f"peak RSS of the board under a 100 MB message: {peak:.1f} MB")
    assert peak < 100, f"peak RSS {peak:.1f} MB"
    assert "attack-1/presence/1: message is not JSON" in status["last_refusal"]


def test_deeply_nested_json_and_huge_numbers_are_refused_with_a_reason_not_a_traceback():
    from board_driver.remote import protocol as rp

    signer = rp.Signer(b"a shared secret", GAME)
    for payload, words in ((b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
                           (b'{"index": ' + b"7" * 5000 + b"}", "not JSON text we take"),
                           (b"x" * (rp.MAX_MESSAGE + 1), "is over")):
        with pytest.raises(rp.RemoteError, match=words):
            signer.decode(payload)


class Referee:
    """What the link reads and calls on the referee, over a real game."""

    def __init__(self):
        import games

        from board_driver.referee.clock import NONE, Clocks

        self.state = games.get_game("tree-planting").new_state(board="2x2")
        self.listeners = []
        self.played = []
        self.flagged = None                   # (an untimed game: no clock, no flag)
        self.clocks = Clocks((NONE, NONE))
        self.endings = SimpleNamespace(ended=None)   # (not ended by its players)

    @property
    def over(self):
        return self.state.is_over()

    def play_for_seat(self, move, now, origin):
        self.state.play(self.state.parse_move(move))
        self.played.append(str(move))


def test_a_reused_game_id_is_a_new_game_and_forged_presence_is_refused(tmp_path):
    """Each board makes a nonce when it joins a game afresh; the key of every message but
    presence is bound to both (the game's epoch). Reusing a game id with the same secret, the
    old game's messages no longer check, even with the old presence replayed alongside."""
    from board_driver.remote import protocol as rp
    from board_driver.remote.link import RemoteLink, RemoteSettings

    settings = RemoteSettings(host="h", port=1, tls=False, game_id="g1",
                              secret=b"a shared secret", seat=0, state_dir=str(tmp_path))
    base = rp.Signer(b"a shared secret", "g1")
    presence = rp.presence_topic("g1", 0)
    move_topic = rp.topics("g1")["move"]

    async def scenario():
        old = RemoteLink(settings, Referee(), clock=lambda: 0.0)   # plays seat 1
        old.handle(presence, base.encode(rp.presence_message(0, True, "1" * 16)))
        first = Referee().state
        first.play(first.legal_moves()[0])
        old_move = old.signer.encode(rp.move_message(first, 0, 0))   # seat 0's first move
        old.handle(move_topic, old_move)
        assert old.referee.played == [str(first.moves[0])]          # (it was a good move)

        referee = Referee()
        new = RemoteLink(settings, referee, clock=lambda: 0.0)       # the id joined again
        assert new.nonce != old.nonce
        new.handle(presence, base.encode(rp.presence_message(0, True, "2" * 16)))
        new.handle(move_topic, old_move)
        assert referee.played == [] and "another playing of this game id" in new.last_refusal
        new.handle(presence, base.encode(rp.presence_message(0, True, "1" * 16)))  # replayed
        new.handle(move_topic, old_move)
        assert referee.played == [] and new.refused == 2
        # presence from anyone without the secret, or unsigned as it was, changes nothing
        new.handle(presence, base.encode(rp.presence_message(0, False, "2" * 16)))
        assert new.peer_online is False
        for forged in (b"online", rp.Signer(b"not the secret", "g1").encode(
                rp.presence_message(0, True, "3" * 16))):
            new.handle(presence, forged)
            assert new.peer_online is False
        assert new.refused == 4 and new.nonces[0] == "2" * 16

    asyncio.run(scenario())

"""A hostile client of the broker against a board in remote play, on a real Mosquitto: anyone
who may publish on the game's topics (no secret needed) sends what it likes."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

GAME = "attack-1"
BIG = 100 * 1024 * 1024


def publish(port: int, topic: str, payload: bytes, retain: bool = False) -> None:
    """One message from another client of the broker (paho, as any MQTT client would)."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"attacker-{topic[-6:]}")
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(60)
    finally:
        client.disconnect()
        client.loop_stop()


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/PID/status")


class Board:
    """A board in a process of its own (tests/board_driver/remote_board.py): its memory is
    its own to measure."""

    def __init__(self, fields: dict):
        self.fields = fields
        self.proc = None

    async def start(self) -> None:
        script = Path(__file__).with_name("remote_board.py")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, str(script), json.dumps(self.fields),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        line = await asyncio.wait_for(self.proc.stdout.readline(), 30)
        assert line.strip() == b"READY", line

    async def ask(self, command: str) -> str:
        self.proc.stdin.write(command.encode() + b"\n")
        await self.proc.stdin.drain()
        return (await asyncio.wait_for(self.proc.stdout.readline(), 30)).decode().strip()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.stdin.close()
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except asyncio.TimeoutError:
                self.proc.kill()
                await self.proc.wait()


@pytest.mark.timeout(240)
def test_a_100_mb_message_from_anyone_never_reaches_the_boards_memory(tmp_path, broker):
    """The board asks the broker (MQTT 5's Maximum Packet Size in CONNECT) not to send it a
    packet over MAX_PACKET; Mosquitto drops such a message for it. A retained 100 MB message
    was received again on every reconnect and each board peaked at ~412 MB."""
    base = f"treeboard/v1/{GAME}"
    publish(broker.port, f"{base}/state/1", b"x" * BIG, retain=True)   # waiting for it
    board = Board({"journal": str(tmp_path / "j.sqlite"), "players": ["human", "remote"],
                   "remote": {"broker": f"mqtt://127.0.0.1:{broker.port}", "game": GAME,
                              "secret": "a shared secret"}})

    async def scenario():
        await board.start()
        try:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, publish, broker.port, f"{base}/move", b"[" * BIG)
            # a message after them on the same topics: once it is in, they were dealt with
            await loop.run_in_executor(None, publish, broker.port, f"{base}/state/1", b"x" * 100,
                                       True)
            for _ in range(600):
                status = json.loads(await board.ask("status"))
                if status["refused"] >= 1:
                    break
                await asyncio.sleep(0.05)
            assert status["refused"] >= 1, status
            return peak_rss_mb(board.proc.pid), status
        finally:
            await board.stop()

    peak, status = asyncio.run(scenario())
    print(f"peak RSS of the board under a 100 MB message: {peak:.1f} MB")
    assert peak < 100, f"peak RSS {peak:.1f} MB"
    assert "attack-1/state/1: message is not JSON" in status["last_refusal"]


def test_deeply_nested_json_and_huge_numbers_are_refused_with_a_reason_not_a_traceback():
    from board_driver.remote import protocol as rp

    signer = rp.Signer(b"a shared secret", GAME)
    for payload, words in ((b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
                           (b'{"index": ' + b"7" * 5000 + b"}", "not JSON text we take"),
                           (b"x" * (rp.MAX_MESSAGE + 1), "is over")):
        with pytest.raises(rp.RemoteError, match=words):
            signer.decode(payload)

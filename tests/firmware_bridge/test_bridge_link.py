"""The host link against the simulated firmware over a real pty: a whole game, and the ways a
USB serial line fails (garbage, restarts, unplugging, a wrong firmware, a dead line)."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from tests.firmware_bridge.fast import FAST
from tests.waits import wait_for
from firmware_bridge import host
from firmware_bridge.firmware import protocol
from firmware_bridge.host import (BridgeError, IncompatibleFirmware, find_bridge_port, open_bridge)
from gameplay import board_values, frame_for, play, tree_planting_moves
from hardware.base import PRESENT, HardwareError
from tests.waits import scaled

pytestmark = pytest.mark.timeout(30)


class Recorder:
    def __init__(self):
        self.events = []

    def __call__(self, event):
        self.events.append(event)

    def check_consistent(self, start, end):
        """Replaying the events over the starting snapshot gives the end board, and every
        event is a real change (a duplicated frame must not make a second event)."""

        def replay():
            board = dict(start)
            for e in list(self.events):
                assert board[e.channel] != e.value, f"event {e} changes nothing"
                board[e.channel] = e.value
            return board

        # The host updates its snapshot just before it calls back: the last event may lag.
        wait_for(lambda: replay() == end, 1.0, "the events to add up to the board")


def test_whole_tree_planting_game_end_to_end(make_firmware, make_bridge):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    assert sink.count == 40
    start = source.snapshot()
    assert start == {c: None for c in range(40)}
    rec = Recorder()
    source.start(rec)
    moves = tree_planting_moves()
    assert sum(1 for a, _ in moves if a == "place") == 41  # 29 rods + 11 trees + 1 mistake
    play(fw, source, sink, moves)
    rec.check_consistent(start, board_values(fw))
    assert len(rec.events) == len(moves)
    assert all(isinstance(e.channel, int) and e.value in (None, PRESENT) for e in rec.events)
    stats = sink.link.stats
    assert stats["led_partial"] > 0  # one move changes two pixels: not the whole strip
    assert stats["bad_frames"] == stats["gaps"] == stats["duplicates"] == 0


def test_board_set_up_before_connecting_is_in_the_first_snapshot(make_firmware, make_bridge):
    fw = make_firmware(rows=20, cols=20, leds=400)  # an Arbos board
    for channel in (0, 21, 399):
        fw.place(channel)
    wait_for(lambda: fw._fw.stable[399] == 1)
    source, sink = make_bridge(fw.port)
    assert [c for c, v in source.snapshot().items() if v] == [0, 21, 399]
    frame = [(i % 256, 0, 255 - i % 256) for i in range(400)]
    sink.show(frame)
    assert sink.flush(2.0)
    assert fw.leds() == frame


def test_garbage_before_hello(make_firmware, make_bridge):
    noise = bytes(range(256)) + b"\x00\x07garbage\x00" + os.urandom(300)
    fw = make_firmware(boot_noise=noise)
    fw.place(5)
    wait_for(lambda: fw._fw.stable[5] == 1)
    fw.restart()  # the noise is now waiting in the line, right before the HELLO
    source, sink = make_bridge(fw.port)
    assert source.snapshot()[5] == PRESENT


def test_firmware_restart_mid_game(make_firmware, make_bridge, caplog):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    rec = Recorder()
    source.start(rec)
    moves = tree_planting_moves(seed=2)
    half = len(moves) // 2
    play(fw, source, sink, moves[:half])
    frame = fw.leds()
    boot = sink.link.boot_id
    with caplog.at_level(logging.WARNING, logger="firmware_bridge.host"):
        t0 = time.monotonic()
        fw.restart()  # the reboot starts with a dark strip and a new boot id
        assert fw.boots == 2
        wait_for(lambda: fw.leds() == frame, 1.0, "the host to relight the strip after the restart")
        assert time.monotonic() - t0 < 1.0
    assert sink.link.boot_id != boot
    assert "restarted" in caplog.text
    play(fw, source, sink, moves[half:])
    rec.check_consistent({c: None for c in range(40)}, board_values(fw))


def test_unplug_and_replug_mid_game_loses_no_board_state(make_firmware, make_bridge, caplog):
    fw = make_firmware()
    states = []
    source, sink = make_bridge(fw.port, on_state=states.append)
    rec = Recorder()
    source.start(rec)
    moves = tree_planting_moves(seed=3)
    play(fw, source, sink, moves[:20])
    frame = fw.leds()
    with caplog.at_level(logging.INFO, logger="firmware_bridge.host"):
        fw.unplug()
        wait_for(lambda: sink.link.state == host.DISCONNECTED, 1.0, "the host to notice")
        # Pieces move while the cable is out; the snapshot keeps the last known board.
        before = source.snapshot()
        fw.place(moves[20][1])
        fw.lift(moves[0][1])
        assert source.snapshot() == before
        # Let the back-off grow to its longest before the cable goes back in.
        tries = sink.link.open_attempts
        wait_for(lambda: sink.link.open_attempts >= tries + 5, 2.0, "a few reconnect attempts")
        t0 = time.monotonic()
        fw.replug()
        board = board_values(fw)
        wait_for(lambda: source.snapshot() == board and fw.leds() == frame, 1.0, "recovery after replug")
        recovery = time.monotonic() - t0
    assert recovery < 1.0
    assert states[-2:] == [host.CONNECTING, host.CONNECTED] and host.DISCONNECTED in states
    assert "line lost" in caplog.text and "in sync" in caplog.text
    fw.place(moves[0][1])  # put the lifted rod back and go on
    play(fw, source, sink, moves[21:])
    rec.check_consistent({c: None for c in range(40)}, board_values(fw))


def test_unplugged_at_start_then_plugged_in(make_firmware, caplog):
    fw = make_firmware()
    fw.unplug()
    source = sink = None
    import threading
    result = {}

    def opener():
        try:
            result["bridge"] = open_bridge(fw.port, timings=FAST, connect_timeout=scaled(3))
        except Exception as exc:  # reported below
            result["error"] = exc

    caplog.set_level(logging.DEBUG, logger="firmware_bridge.host")
    t = threading.Thread(target=opener)
    t.start()
    # The cable really is out for a while: the host tries the port, fails, and keeps trying.
    wait_for(lambda: sum("cannot open" in r.getMessage() for r in caplog.records) >= 2,
             what="two failed attempts to open the port")
    fw.replug()
    t.join(scaled(5))
    assert "error" not in result, result
    source, sink = result["bridge"]
    try:
        assert source.snapshot() == {c: None for c in range(40)}
    finally:
        source.close()
        sink.close()


def test_wrong_protocol_version_is_not_a_dead_line(make_firmware):
    fw = make_firmware(version=protocol.VERSION + 1)
    t0 = time.monotonic()
    with pytest.raises(IncompatibleFirmware, match=f"protocol version {protocol.VERSION + 1}.*flash"):
        open_bridge(fw.port, timings=FAST, connect_timeout=2.0)
    assert time.monotonic() - t0 < 1.0  # told at once, not after a timeout


def test_a_line_that_never_answers_is_a_dead_line(tmp_path):
    master, slave = os.openpty()
    try:
        os.write(master, b"\x00\x01\x02noise without a single valid frame\x00")
        with pytest.raises(BridgeError, match="no HELLO: dead line") as info:
            open_bridge(os.ttyname(slave), timings=FAST, connect_timeout=0.8)
        assert not isinstance(info.value, IncompatibleFirmware)
    finally:
        os.close(master)
        os.close(slave)


def test_a_missing_device_says_so(tmp_path):
    with pytest.raises(HardwareError, match="cannot open"):
        open_bridge(str(tmp_path / "treeboard-bridge"), timings=FAST, connect_timeout=0.3)


def test_find_bridge_port_prefers_the_udev_link_then_the_usb_id(tmp_path, monkeypatch):
    class Port:
        def __init__(self, device, vid, pid):
            self.device, self.vid, self.pid = device, vid, pid

    link = tmp_path / "treeboard-bridge"
    monkeypatch.setattr(host, "UDEV_PATH", str(link))
    ports = [Port("/dev/ttyUSB0", 0x0403, 0x6001), Port("/dev/ttyACM3", 0x2E8A, 0x0005)]
    monkeypatch.setattr(host.serial.tools.list_ports, "comports", lambda: ports)
    assert find_bridge_port() == "/dev/ttyACM3"
    link.touch()
    assert find_bridge_port() == str(link)
    link.unlink()
    ports.pop()
    with pytest.raises(BridgeError, match="2e8a:0005"):
        find_bridge_port()


def test_udev_rule_names_the_rp2040_and_the_stable_link():
    rule = (Path(host.__file__).parent / "99-treeboard-bridge.rules").read_text()
    line = [l for l in rule.splitlines() if l and not l.startswith("#")]
    assert len(line) == 1
    assert 'ATTRS{idVendor}=="2e8a"' in line[0] and 'ATTRS{idProduct}=="0005"' in line[0]
    assert f'SYMLINK+="{os.path.basename(host.UDEV_PATH)}"' in line[0]


def test_a_failing_callback_does_not_kill_the_line(make_firmware, make_bridge, caplog):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    source.start(lambda event: 1 / 0)
    fw.place(1)
    # the snapshot is updated just before the callback runs: wait for the callback's failure
    wait_for(lambda: "callback failed" in caplog.text, what="the logged failure")
    assert source.snapshot()[1] == PRESENT
    fw.place(2)
    wait_for(lambda: source.snapshot()[2] == PRESENT)


def test_show_refuses_a_frame_of_the_wrong_size_or_colour(make_firmware, make_bridge):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    with pytest.raises(ValueError, match="40 pixels"):
        sink.show([(0, 0, 0)] * 39)
    with pytest.raises(ValueError):
        sink.show([(0, 0, 256)] * 40)
    with pytest.raises(ValueError):
        sink.show([(0, 0)] * 40)


def test_closing_darkens_the_strip_and_stops_the_thread(make_firmware):
    fw = make_firmware()
    source, sink = open_bridge(fw.port, timings=FAST)
    sink.show([(9, 9, 9)] * 40)
    assert sink.flush(1.0)
    source.close()
    assert sink.link.state != host.CLOSED  # the sink still uses the line
    sink.close()
    sink.close()
    assert fw.leds() == [(0, 0, 0)] * 40
    assert sink.link.state == host.CLOSED


def test_closing_from_inside_the_callback(make_firmware):
    fw = make_firmware()
    source, sink = open_bridge(fw.port, timings=FAST)
    sink.close()
    source.start(lambda event: source.close())
    fw.place(3)
    wait_for(lambda: sink.link.state == host.CLOSED, what="the link to close itself")
    sink.link._thread.join(2)
    assert not sink.link._thread.is_alive()
    sink.show([(1, 1, 1)] * 40)  # a late frame after close is ignored, not a crash

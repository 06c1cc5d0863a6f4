"""The firmware's logic on a fake shim: no pty, no threads, a hand-turned clock."""

from __future__ import annotations

import pytest

from firmware_bridge.firmware import protocol as p
from firmware_bridge.firmware.controller import REPEAT_CHANNELS, WAITING_COLOUR, Controller


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
        # the 5 x 8 board as row masks
        return [sum(1 << c for c in range(8) if self.board[r * 8 + c]) for r in range(5)]

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
    hello, snap, hb = fw.hw.take()
    assert (hello.type, hello.version, hello.rows, hello.cols, hello.leds, hello.boot_id) == \
        (p.HELLO, p.VERSION, 5, 8, 40, 0x1234)
    assert snap.type == p.SNAPSHOT and snap.codes[7] == p.CODE_PRESENT and sum(snap.codes) == 1
    # the snapshot's second witness follows at once
    assert hb.type == p.HEARTBEAT and hb.sensor_crc == p.crc32(snap.codes)
    assert fw.hw.shown == bytes(120)


def test_a_bouncing_reed_is_one_change(fw):
    fw.hw.take()
    changes = []
    for reading in [True, False, True, False, True, True, True]:
        fw.hw.board[3] = reading
        changes += step(fw)
    assert [(m.type, m.channel, m.code) for m in changes] == [(p.CHANGE, 3, p.CODE_PRESENT)]


def test_a_change_carries_the_board_crc_and_a_heartbeat_vouches_for_it_at_once(fw):
    fw.hw.take()
    fw.hw.board[3] = True
    sent = []
    for _ in range(3):
        fw.hw.now += 5
        fw.poll()
        sent += fw.hw.take()
    change, hb = sent
    board = bytearray(40)
    board[3] = board[7] = p.CODE_PRESENT
    assert (change.type, change.channel, change.sensor_crc) == (p.CHANGE, 3, p.crc32(board))
    assert (hb.type, hb.sensor_crc) == (p.HEARTBEAT, p.crc32(board))


def test_repeats_say_what_is_true_now_and_stop(fw):
    fw.hw.take()
    fw.hw.board[3] = True
    changes = []
    for _ in range(100):
        changes += step(fw)
        if len(changes) == 2:
            fw.hw.board[3] = False  # lifted again between the first repeat and the second
    assert [m.code for m in changes][:2] == [1, 1]
    lifted = [m for m in changes[2:] if m.code == 0]
    assert lifted and all(m.channel == 3 for m in changes)
    # after the lift nothing says "present" again: a repeat never undoes a newer change
    assert all(m.code == 0 for m in changes[changes.index(lifted[0]):])
    assert len(lifted) == 1 + fw.repeats and not fw.repeating
    board = bytearray(40)
    board[7] = p.CODE_PRESENT
    assert all(m.sensor_crc == p.crc32(board) for m in lifted)


def test_repeats_remember_a_bounded_number_of_channels(fw):
    fw.hw.take()
    for channel in range(40):
        fw.hw.board[channel] = not fw.hw.board[channel]
    for _ in range(3):
        step(fw)
    assert [c for c, _ in fw.recent] == list(range(40 - REPEAT_CHANNELS, 40))


def test_a_snapshot_request_rearms_the_repeats(fw):
    fw.hw.take()
    fw.hw.board[3] = True
    for _ in range(100):
        step(fw)
    assert not fw.repeating
    fw.hw.inbox += p.Encoder().snapshot_request()
    sent = []
    for _ in range(100):
        sent += step(fw)
    assert sent[0].type == p.SNAPSHOT
    assert [(m.channel, m.code) for m in sent[1:]] == [(3, 1)] * fw.repeats


def test_led_frame_and_partial_are_shown_and_acknowledged(fw):
    fw.hw.take()
    host = p.Encoder()
    rgb = bytes(range(120))
    fw.hw.inbox += host.led_frame(rgb)
    [ack] = step(fw)
    assert fw.hw.shown == rgb and (ack.type, ack.acked, ack.led_crc) == (p.ACK, 0, p.crc32(rgb))
    fw.hw.inbox += host.led_partial([(39, 9, 9, 9)])
    [ack] = step(fw)
    expected = rgb[:117] + bytes((9, 9, 9))
    assert fw.hw.shown == expected and ack.acked == 1 and ack.led_crc == p.crc32(expected)


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
    assert hb.sensor_crc == p.crc32(fw.stable) and hb.led_crc == p.crc32(bytes(120))


def test_a_silent_host_is_shown_on_the_strip_until_it_speaks(fw):
    for _ in range(10):
        step(fw, 101)
    assert fw.hw.shown[:3] == bytes(WAITING_COLOUR) and fw.hw.shown[3:12] == bytes(9)
    fw.hw.inbox += p.Encoder().led_frame(bytes([5]) * 120)
    step(fw)
    assert fw.hw.shown == bytes([5]) * 120

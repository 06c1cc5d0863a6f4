"""No single frame becomes a move: a forged or undetectably corrupted frame (valid CRC-32, the
expected sequence number, even the right board checksum) is one witness, and the host reports
a change only when a second, different frame vouches for the same board."""

from __future__ import annotations

import os
import select
import threading

import pytest

from tests.firmware_bridge.fast import FAST
from tests.waits import wait_for
from firmware_bridge.firmware import protocol
from firmware_bridge.host import IncompatibleFirmware, open_bridge
from hardware.base import PRESENT
from test_bridge_link import Recorder

pytestmark = pytest.mark.timeout(20)


def forge(fw, make):
    """Write `make(encoder, board)`'s frame to the host as if the firmware had sent it next:
    the sequence number the host expects, the board the firmware has (a forger who can see
    the board). Returns the seq it used. Holds the firmware's lock, so nothing interleaves."""
    with fw._lock:
        enc = protocol.Encoder()
        enc.seq = seq = fw._fw.encoder.seq
        os.write(fw._pty.master, make(enc, bytearray(fw._fw.stable)))
        return seq


def change_frame(channel, code):
    def make(enc, board):
        board[channel] = code
        return enc.change(channel, code, protocol.crc32(board))
    return make


def a_real_move(fw, source, channel):
    fw.place(channel)
    wait_for(lambda: source.snapshot()[channel] == PRESENT, what=f"the real move on channel {channel}")


def test_a_forged_change_with_valid_crc_and_expected_seq_is_not_a_move(make_firmware, make_bridge):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    rec = Recorder()
    source.start(rec)
    forge(fw, change_frame(9, protocol.CODE_PRESENT))
    a_real_move(fw, source, 3)  # the line is FIFO: by now the forged frame was read
    assert [e.channel for e in rec.events] == [3]
    assert source.snapshot()[9] is None
    assert sink.link.stats["mismatches"] > 0  # the genuine frames after it contradicted it


def test_a_forged_snapshot_is_not_a_move(make_firmware, make_bridge):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    rec = Recorder()
    source.start(rec)

    def snapshot(enc, board):
        board[11] = board[12] = protocol.CODE_PRESENT
        return enc.snapshot(board)

    forge(fw, snapshot)
    a_real_move(fw, source, 3)
    assert [e.channel for e in rec.events] == [3]
    assert source.snapshot()[11] is None and source.snapshot()[12] is None


def test_the_genuine_frame_after_a_forged_one_of_the_same_seq_is_not_dropped(make_firmware, make_bridge):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    rec = Recorder()
    source.start(rec)
    with fw._lock:
        # A forged heartbeat takes the seq of the firmware's next frame, then the firmware
        # sends that frame: the CHANGE of a real move, with the same seq.
        seq = forge(fw, lambda enc, board: enc.heartbeat(protocol.crc32(board), 0))
        assert fw._fw.encoder.seq == seq
        fw._board[5] = 1
        for _ in range(fw._fw.debounce_scans):
            fw._fw.scan()
        fw._fw.repeating = False  # no repeats: the CHANGE and its heartbeat must do it alone
    wait_for(lambda: source.snapshot()[5] == PRESENT, what="the real move")
    assert [e.channel for e in rec.events] == [5]
    assert sink.link.stats["duplicates"] == 0


def test_one_change_needs_a_second_frame_to_be_reported(make_firmware, make_bridge):
    # The firmware's own CHANGE, alone (its heartbeat held back, no repeats): the host hears it
    # but reports it only when the next frame vouches for the same board.
    fw = make_firmware(heartbeat_ms=60_000, repeats=0)
    source, sink = make_bridge(fw.port)
    rec = Recorder()
    source.start(rec)
    with fw._lock:
        fw._fw.send_heartbeat = lambda: None
    fw.place(9)
    wait_for(lambda: sink.link._heard is not None and sink.link._heard[9] == 1, what="the host to hear it")
    assert source.snapshot()[9] is None and rec.events == []
    with fw._lock:
        del fw._fw.send_heartbeat
        fw._fw.send_heartbeat()
    wait_for(lambda: source.snapshot()[9] == PRESENT, what="the heartbeat to vouch for it")
    assert [e.channel for e in rec.events] == [9]


def test_a_firmware_of_protocol_1_is_told_to_reflash():
    def v1_frame(body):
        crc = protocol.crc16(body)
        return b"\x00" + protocol.cobs_encode(body + bytes([crc >> 8, crc & 0xFF])) + b"\x00"

    boot = v1_frame(bytes([protocol.HELLO, 0, 1, 5, 8, 0, 40, 0, 1, 0])) + v1_frame(bytes([protocol.SNAPSHOT, 1]) + bytes(40))
    error = v1_frame(bytes([protocol.ERROR, 2, protocol.ERR_BAD_FRAME, 0]) + b"CRC mismatch")
    master, slave = os.openpty()
    stop = threading.Event()

    def protocol_1_firmware():
        # Boots (HELLO, SNAPSHOT), then answers every frame it cannot read with ERROR.
        os.write(master, boot)
        while not stop.wait(0.02):
            if select.select([master], [], [], 0)[0]:
                os.read(master, 4096)
                os.write(master, error)

    fw = threading.Thread(target=protocol_1_firmware)
    try:
        fw.start()
        with pytest.raises(IncompatibleFirmware, match="protocol version 1.*flash"):
            open_bridge(os.ttyname(slave), timings=FAST, connect_timeout=1.0)
    finally:
        stop.set()
        fw.join()
        os.close(master)
        os.close(slave)


def test_a_forged_change_before_a_genuine_repeat_is_no_gap(make_firmware, make_bridge):
    # A gap is two CHANGEs in a row, out and back (PROTOCOL.md). A forger slips in a CHANGE
    # "channel 3 empty" with the seq the line has just had, right before the firmware repeats
    # "channel 3 present": the pair looks like a gap, but its first frame came out of sequence.
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    a_real_move(fw, source, 3)
    rec = Recorder()
    source.start(rec)
    with fw._lock:
        assert fw._fw.recent and fw._fw.recent[-1][0] == 3  # channel 3's repeats are due
        enc = protocol.Encoder()
        enc.seq = (fw._fw.encoder.seq - 1) & 0xFF
        board = bytearray(fw._fw.stable)
        board[3] = protocol.CODE_EMPTY
        os.write(fw._pty.master, enc.change(3, protocol.CODE_EMPTY, protocol.crc32(board)))
        fw._fw.repeat()  # the genuine CHANGE(3, present), the next seq
    a_real_move(fw, source, 4)  # the line is FIFO: by now both were read
    assert [(e.channel, e.value) for e in rec.events] == [(4, PRESENT)]
    assert sink.link.stats["gaps_said"] == 0

"""A whole game over a line that corrupts, drops, duplicates and injects bytes (seeded), in
both directions: the host's board and the firmware's strip still match at every step."""

from __future__ import annotations

import pytest

from firmware_bridge.faults import LineFaults
from tests.waits import wait_for
from gameplay import board_values, play, tree_planting_moves
from test_bridge_link import Recorder
from tests.waits import scaled

pytestmark = pytest.mark.timeout(40)


def faulty_game(make_firmware, make_bridge, seed, **faults):
    to_host = LineFaults(seed, **faults)
    to_firmware = LineFaults(seed + 1000, **faults)
    fw = make_firmware(faults_to_host=to_host, faults_to_firmware=to_firmware)
    source, sink = make_bridge(fw.port, connect_timeout=scaled(5))
    rec = Recorder()
    start = source.snapshot()
    source.start(rec)
    play(fw, source, sink, tree_planting_moves(seed))
    rec.check_consistent(start, board_values(fw))
    return to_host, to_firmware, sink.link.stats


def test_corrupted_bytes(make_firmware, make_bridge):
    to_host, to_fw, stats = faulty_game(make_firmware, make_bridge, 11, corrupt=0.08)
    assert to_host.counts["corrupted"] > 5 and to_fw.counts["corrupted"] > 3
    assert stats["bad_frames"] > 0


def test_dropped_frames(make_firmware, make_bridge):
    to_host, to_fw, stats = faulty_game(make_firmware, make_bridge, 12, drop=0.08)
    assert to_host.counts["dropped"] > 5 and to_fw.counts["dropped"] > 3
    assert stats["gaps"] > 0


def test_duplicated_frames(make_firmware, make_bridge):
    # Recorder.check_consistent fails on an event that changes nothing: a duplicate CHANGE
    # must be dropped by its sequence number, not reported twice.
    to_host, to_fw, stats = faulty_game(make_firmware, make_bridge, 13, duplicate=0.2)
    assert to_host.counts["duplicated"] > 5 and to_fw.counts["duplicated"] > 3
    assert stats["duplicates"] > 0


def test_garbage_between_frames(make_firmware, make_bridge):
    to_host, to_fw, stats = faulty_game(make_firmware, make_bridge, 14, garbage=0.08)
    assert to_host.counts["garbage"] > 5
    assert stats["bad_frames"] > 0


def test_everything_at_once(make_firmware, make_bridge):
    to_host, to_fw, stats = faulty_game(make_firmware, make_bridge, 15, corrupt=0.04, drop=0.04,
                                        duplicate=0.04, garbage=0.04)
    assert all(to_host.counts[k] > 0 for k in ("corrupted", "dropped", "duplicated", "garbage"))


def test_restart_and_replug_on_a_noisy_line(make_firmware, make_bridge):
    faults = dict(corrupt=0.03, drop=0.03, duplicate=0.03, garbage=0.03)
    fw = make_firmware(faults_to_host=LineFaults(21, **faults), faults_to_firmware=LineFaults(22, **faults))
    source, sink = make_bridge(fw.port, connect_timeout=scaled(5))
    rec = Recorder()
    start = source.snapshot()
    source.start(rec)

    def trouble(i):
        if i == 12:
            fw.restart()
        if i == 25:
            fw.unplug()
            fw.replug()

    play(fw, source, sink, tree_planting_moves(21), between=trouble)
    rec.check_consistent(start, board_values(fw))
    assert fw.boots == 3


def test_a_noisy_line_corrupting_bytes(make_firmware, make_bridge):
    # Every byte may flip a bit: long frames (snapshots, whole LED frames) rarely get through
    # whole, so the game rests on the repeated CHANGEs and the board checksums.
    to_host = LineFaults(31, corrupt_bytes=0.03)
    to_fw = LineFaults(32, corrupt_bytes=0.03)
    fw = make_firmware(faults_to_host=to_host, faults_to_firmware=to_fw)
    source, sink = make_bridge(fw.port, connect_timeout=scaled(5))
    rec = Recorder()
    start = source.snapshot()
    source.start(rec)
    # The sensors only: a whole LED frame of 40 pixels gets through such a line 2 % of the time.
    for i, (action, channel) in enumerate(tree_planting_moves(31)[:24]):
        getattr(fw, action)(channel)
        board = board_values(fw)
        wait_for(lambda: source.snapshot() == board, 4.0, f"the host to see move {i} {action} {channel}")
    rec.check_consistent(start, board_values(fw))
    assert to_host.counts["bytes_corrupted"] > 20 and sink.link.stats["mismatches"] > 0
    fw.faults_to_host = fw.faults_to_firmware = None  # so closing darkens the strip at once

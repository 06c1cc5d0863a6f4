"""A token off its cell for fewer scans than the firmware's debounce (an Arbos seed swapped for
a spore in a few milliseconds) reaches the host as what it was, out and back; a token arriving
with a bounce, or a lift that lasts, is reported as before. On the lockstep bridge
(firmware_bridge/lockstep.py): the real controller and host link, on a hand-turned clock."""

from __future__ import annotations

import pytest

from firmware_bridge.firmware import protocol
from firmware_bridge.lockstep import LockstepBridge
from hardware.base import PRESENT

CELL = 6 * 20 + 2  # row 6, column 2 of the 20 x 20 shift-register board


class Clock:
    def __init__(self):
        self.now = 500.0

    def __call__(self):
        return self.now


@pytest.fixture
def bridge():
    clock = Clock()
    b = LockstepBridge(20, 20, 400, clock, matrix="shift-register")
    b.place(CELL)
    b.settle()
    b.events = []
    b.source.start(lambda e: b.events.append((e.channel, e.value)))
    yield b
    b.source.close()
    b.sink.close()


def off_for(bridge, scans: int) -> None:
    """Lift the token so that `scans` scans (scan_ms apart) read the cell empty, then put one back."""
    fw = bridge.firmware
    bridge.lift(CELL)
    bridge.run_until(fw.next_scan / 1000)  # the first scan that reads it empty
    bridge.run_until(bridge.clock.now + fw.scan_ms / 1000 * (scans - 1))
    assert fw.pending[CELL] == (scans if scans < fw.debounce_scans else 0)
    bridge.place(CELL)
    bridge.settle()
    bridge.run_until(bridge.clock.now + 0.3)  # the repeats and heartbeats after it


@pytest.mark.parametrize("scans", [1, 2, 3])  # the debounce is 4 scans
def test_a_gap_shorter_than_the_debounce_is_reported_out_and_back(bridge, scans):
    off_for(bridge, scans)
    assert bridge.events == [(CELL, None), (CELL, PRESENT)]
    assert bridge.firmware.stable[CELL] == protocol.CODE_PRESENT
    assert bridge.source.snapshot()[CELL] == PRESENT
    assert bridge.link.stats["mismatches"] == 0  # every frame of it vouched for the board it said


def test_a_lift_that_lasts_the_debounce_is_one_change(bridge):
    off_for(bridge, bridge.firmware.debounce_scans)
    # debounce_scans scans empty: the lift was debounced and reported; the token back is a change too
    assert bridge.events == [(CELL, None), (CELL, PRESENT)]
    bridge.events.clear()
    bridge.lift(CELL)
    bridge.settle()
    bridge.run_until(bridge.clock.now + 0.3)
    assert bridge.events == [(CELL, None)]


def test_a_token_arriving_with_a_bounce_is_no_gap(bridge):
    empty = CELL + 1
    bridge.place(empty)
    bridge.run_until(bridge.firmware.next_scan / 1000)  # one scan sees it, then it bounces off ...
    assert bridge.firmware.pending[empty] == 1
    bridge.lift(empty)
    bridge.settle()
    bridge.run_until(bridge.clock.now + 0.3)
    assert bridge.events == []  # ... and an empty cell that flickered is nothing
    bridge.place(empty)
    bridge.settle()
    assert bridge.events == [(empty, PRESENT)]


def test_the_lockstep_needs_a_settable_clock():
    from hardware.base import HardwareError

    with pytest.raises(HardwareError, match="simulated clock"):
        LockstepBridge(2, 2, 4, lambda: 0.0)


class LoseFrames:
    """A line that loses the gap's CHANGE saying `code` for CELL (once), and nothing else."""

    def __init__(self, code):
        self.code = code
        self.lost = 0

    def apply(self, chunk):
        for msg in protocol.FrameDecoder().feed(chunk):
            if not self.lost and msg.type == protocol.CHANGE and msg.channel == CELL \
                    and msg.code == self.code:
                self.lost += 1
                return b""
        return chunk


@pytest.mark.parametrize("lost", ["out", "back"])
def test_a_gap_whose_frame_is_lost_is_nothing_not_a_piece_taken_off(bridge, lost):
    # The gap's two CHANGEs in a row are reported together or not at all: losing the second
    # never leaves the host saying the cell is empty (its referee would take the piece off).
    line = bridge.faults_to_host = LoseFrames(protocol.CODE_EMPTY if lost == "out" else protocol.CODE_PRESENT)
    off_for(bridge, 2)
    assert line.lost == 1
    assert bridge.events == []
    assert bridge.source.snapshot()[CELL] == PRESENT
    assert bridge.firmware.stable[CELL] == protocol.CODE_PRESENT


def test_a_gap_in_the_scan_that_reports_another_cell(bridge):
    # The other cell's CHANGE comes first in the scan (an earlier row), not yet vouched for
    # when the gap's two frames follow: both are reported.
    other = CELL - 20
    fw = bridge.firmware
    bridge.place(other)
    bridge.run_until(fw.next_scan / 1000)          # scan 1: the other cell counts 1
    bridge.lift(CELL)
    bridge.run_until(fw.next_scan / 1000)          # scan 2: 2, and the token's gap 1
    bridge.run_until(fw.next_scan / 1000)          # scan 3: 3, and 2
    assert (fw.pending[other], fw.pending[CELL]) == (3, 2)
    bridge.place(CELL)
    bridge.run_until(fw.next_scan / 1000)          # scan 4: the other cell changes; the gap ends
    bridge.settle()
    assert bridge.events == [(CELL, None), (CELL, PRESENT), (other, PRESENT)]

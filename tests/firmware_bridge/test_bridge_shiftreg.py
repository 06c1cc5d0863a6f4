"""The 20 x 20 board: firmware/shiftreg.py scanning a simulated 74HC595/74HC165 chain, the
controller's row-mask debounce on 400 cells, and the whole bridge with a 400-LED strip."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.waits import wait_for
from firmware_bridge.firmware import protocol as p
from firmware_bridge.firmware.controller import Controller
from firmware_bridge.firmware.shiftreg import ShiftRegisterMatrix
from firmware_bridge.shiftchain import SimulatedShiftChain
from hardware.base import PRESENT
from test_bridge_link import Recorder

pytestmark = pytest.mark.timeout(30)


def cells_of(masks):
    return {(r, c) for r, m in enumerate(masks) for c in range(m.bit_length()) if m >> c & 1}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([(20, 20), (5, 8), (9, 17), (17, 3), (1, 1), (24, 24)]).flatmap(
    lambda shape: st.tuples(st.just(shape), st.sets(st.tuples(st.integers(0, shape[0] - 1),
                                                              st.integers(0, shape[1] - 1)), max_size=40))))
def test_a_scan_reads_exactly_the_closed_reeds(case):
    (rows, cols), closed = case
    board = bytearray(rows * cols)
    for r, c in closed:
        board[r * cols + c] = 1
    chain = SimulatedShiftChain(rows, cols, board)
    matrix = ShiftRegisterMatrix(chain, rows, cols)
    assert cells_of(matrix.scan()) == closed
    assert chain.storage == (1 << chain.row_bits) - 1  # no row left selected after the scan


def test_one_scan_is_one_transfer_per_row_and_one_more():
    chain = SimulatedShiftChain(20, 20, bytearray(400))
    ShiftRegisterMatrix(chain, 20, 20).scan()
    assert chain.clocks == 21 * 3 * 8  # pipelined: the next row shifts in as the columns shift out


def test_row_patterns_select_one_row_low():
    chain = SimulatedShiftChain(20, 20, bytearray(400))
    matrix = ShiftRegisterMatrix(chain, 20, 20)
    for r in (0, 7, 8, 15, 16, 19):
        chain.transfer(matrix.patterns[r], bytearray(3))
        chain.latch()
        assert chain.storage == ((1 << 24) - 1) & ~(1 << r)


class ChainHw:
    """The controller's shim around a simulated chain, with a hand-turned clock."""

    def __init__(self, rows, cols):
        self.now = 0
        self.cells = bytearray(rows * cols)
        self.matrix = ShiftRegisterMatrix(SimulatedShiftChain(rows, cols, self.cells), rows, cols)
        self.decoder = p.FrameDecoder()
        self.sent = []

    def ticks_ms(self):
        return self.now

    def ticks_diff(self, a, b):
        return a - b

    def read(self):
        return b""

    def write(self, data):
        self.sent += self.decoder.feed(data)

    def scan(self):
        return self.matrix.scan()

    def show(self, rgb):
        pass


def changes(hw):
    out = [(m.channel, m.code) for m in hw.sent if m.type == p.CHANGE]
    hw.sent = []
    return out


def test_the_controller_debounces_a_400_cell_board_cell_by_cell():
    hw = ChainHw(20, 20)
    hw.cells[399] = 1
    fw = Controller(hw, 20, 20, 400, boot_id=1, scan_ms=5, debounce_scans=3, repeats=0)
    fw.boot()
    assert fw.stable[399] == p.CODE_PRESENT and fw.stable_rows[19] == 1 << 19
    changes(hw)

    def scans(n):
        for _ in range(n):
            hw.now += 5
            fw.poll()

    # cell C7 (row 6, column 2) bounces as a spore slides in; t20 (399) is lifted cleanly
    for reading in (1, 0, 1, 1):
        hw.cells[6 * 20 + 2] = reading
        scans(1)
    hw.cells[399] = 0
    assert changes(hw) == []
    scans(1)
    assert changes(hw) == [(122, p.CODE_PRESENT)]
    scans(2)
    assert changes(hw) == [(399, p.CODE_EMPTY)]
    assert fw.busy_rows == [0] * 20 and not any(fw.pending)
    # a cell that flickers for less than the debounce never changes
    hw.cells[200] = 1
    scans(2)
    hw.cells[200] = 0
    scans(5)
    assert changes(hw) == [] and fw.stable[200] == p.CODE_EMPTY


def test_a_whole_20x20_board_over_the_bridge(make_firmware, make_bridge):
    fw = make_firmware(rows=20, cols=20, leds=400, matrix="shift-register")
    source, sink = make_bridge(fw.port)
    assert sink.count == 400
    rec = Recorder()
    start = source.snapshot()
    source.start(rec)
    corners_and_more = [0, 19, 20, 199, 200, 380, 399, 7 * 20 + 8, 8 * 20 + 7]
    for channel in corners_and_more:
        fw.place(channel)
        wait_for(lambda: source.snapshot()[channel] == PRESENT, what=f"cell {channel}")
    fw.lift(199)
    wait_for(lambda: source.snapshot()[199] is None, what="the lift")
    frame = [(i % 256, (7 * i) % 256, 255 - i % 256) for i in range(400)]
    sink.show(frame)
    assert sink.flush(2.0) and fw.leds() == frame
    rec.check_consistent(start, {c: (PRESENT if v else None) for c, v in enumerate(fw.sensors())})


def test_an_unknown_matrix_kind_is_refused(make_firmware):
    with pytest.raises(ValueError, match="matrix 'mcp23017': expected one of pins, shift-register"):
        make_firmware(matrix="mcp23017")

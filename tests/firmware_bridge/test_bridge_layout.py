"""A bridge layout's own fields ([sensors.bridge] matrix, rows, cols), the shipped 20 x 20
board that uses them, and `treeboard sim --bridge`'s simulated firmware built from them."""

from __future__ import annotations

import pytest

from tests.waits import wait_for
from firmware_bridge.board import open_bridge_hardware
from hardware.base import PRESENT
from hardware.layout import LayoutError, load_layout

LAYOUT = """
[board]
grid = "2x2"
[sensors.bridge]
matrix = "shift-register"
rows = 2
cols = 2
[sensors.bridge.sites]
a1 = 0
b1 = 1
a2 = 2
b2 = 3
[leds]
count = 4
chain = ["a1", "b1", "b2", "a2"]
"""

BAD = {
    "unknown key": (('cols = 2\n', 'cols = 2\nscan = "fast"\n'), "[sensors.bridge] scan", "sites, matrix, rows or cols"),
    "unknown matrix": (('"shift-register"', '"mcp23017"'), "[sensors.bridge] matrix", '"pins" or "shift-register"'),
    "rows without cols": (("cols = 2\n", ""), "[sensors.bridge] rows", "rows and cols together, or neither"),
    "rows not a number": (("rows = 2", 'rows = "2"'), "[sensors.bridge] rows", "an integer from 1 to 255"),
    "channel off the matrix": (("b2 = 3", "b2 = 4"), "[sensors.bridge] sites.b2", "from 0 to 3"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_bridge_section_is_refused_naming_file_key_and_expectation(case, tmp_path):
    (old, new), key, expected = BAD[case]
    assert old in LAYOUT
    path = tmp_path / "board.toml"
    path.write_text(LAYOUT.replace(old, new, 1))
    with pytest.raises(LayoutError) as err:
        load_layout(path)
    message = str(err.value)
    assert str(path) in message and key in message and expected in message, message


@pytest.mark.parametrize("name,first,last", [("grid-20x20-bridge", "T1", "A20"),
                                             ("arbos-20x20-bridge", "A1", "T20")])
def test_the_20x20_boards_are_shift_register_matrices(name, first, last):
    layout = load_layout(name)
    wired = layout.bridge
    assert (wired.matrix, wired.rows, wired.cols) == ("shift-register", 20, 20)
    assert wired.channels[0] == first and wired.channels[399] == last and layout.leds.count == 400


def test_sim_bridge_builds_the_layouts_matrix_and_plays_on_it():
    layout = load_layout("grid-20x20-bridge")
    hw = open_bridge_hardware(layout, "sim", 1_000_000)
    try:
        firmware = hw.board.firmware
        assert (firmware.rows, firmware.cols, firmware.matrix, firmware.led_count) == (20, 20, "shift-register", 400)
        hw.board.place("N3")  # wired from the bottom-left: row N is the 7th from the bottom
        channel = layout.channels_of_site["N3"][0]
        assert channel == 6 * 20 + 2
        wait_for(lambda: hw.source.snapshot()[channel] == PRESENT, what="N3 at the host")
    finally:
        hw.board.close()

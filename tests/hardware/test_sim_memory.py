"""What a simulated board keeps grows with nothing but its size: the mock pins' histories and
the recording strip keep their last few entries, however long the board runs."""

import pytest

from hardware.layout import load_layout
from hardware.leds import RecordingStrip
from hardware.sim import PIN_HISTORY, SimulatedBoard


@pytest.mark.parametrize("name", ["tree-planting-classic-matrix", "treeblox-adc"])
def test_scanning_for_ever_keeps_each_pins_history_bounded(name):
    board = SimulatedBoard(load_layout(name), autoscan=False)
    try:
        for _ in range(200):  # a second of the 5 ms scan; seconds of ADC polling
            board.scan_once()
        pins = list(board.factory.pins.values())
        assert max(len(pin.states) for pin in pins) == PIN_HISTORY
        pin = max(pins, key=lambda p: p.states[-1].timestamp)
        pin.clear_states()  # gpiozero's own reset still works, and stays bounded
        assert len(pin.states) == 1
    finally:
        board.close()


def test_the_recording_strip_keeps_the_last_frames_and_counts_them_all():
    strip = RecordingStrip(3, keep=16)
    for i in range(1000):
        strip.show([(i % 256, 0, 0)] * 3)
    assert strip.shows == 1000
    assert len(strip.frames) == len(strip.wire) == 16
    assert strip.last == ((999 % 256, 0, 0),) * 3
    assert [f[0][0] for f in strip.frames] == [i % 256 for i in range(984, 1000)]


def test_a_kept_frame_costs_its_bytes_not_a_tuple_per_pixel():
    import tracemalloc

    strip = RecordingStrip(1000, keep=100)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(100):
            strip.show([(i, 1, 2)] * 1000)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 100 * 1000 * 3 * 2  # the wire bytes and change; (r, g, b) tuples were ~20x
    assert strip.last[999] == (99, 1, 2) and len(strip.frames) == 100

"""Several simulated boards in one process stay apart (two daemons play remote games in one
test): gpiozero shares software SPI buses by pin numbers alone, which our simulator corrects."""

from hardware.layout import load_layout
from hardware.sim import SimulatedBoard


def test_two_simulated_adc_boards_read_their_own_cubes():
    layout = load_layout("treeblox-adc")
    a = SimulatedBoard(layout, autoscan=False)
    b = SimulatedBoard(layout, autoscan=False)
    try:
        a.place("c1", "dark-leaf")
        b.place("d4", "light-branch")
        a.scan_once()
        b.scan_once()
        seen_a = {ch: v for ch, v in a.source.snapshot().items() if v}
        seen_b = {ch: v for ch, v in b.source.snapshot().items() if v}
        assert seen_a == {layout.channels_of_site["c1"][0]: "dark-leaf"}
        assert seen_b == {layout.channels_of_site["d4"][0]: "light-branch"}
    finally:
        a.close()
        b.close()

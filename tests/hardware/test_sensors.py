"""The gpiozero sources on MockFactory pins, driven through the simulated board's models."""

import itertools
import threading

import pytest

from hardware import PRESENT, SensorEvent, open_hardware
from hardware.layout import load_layout
from hardware.sensors import MatrixSource
from hardware.sim import SimulatedBoard
from tests.waits import scaled


def present_sites(board):
    return {board.layout.site_of_channel[ch] for ch, v in board.source.snapshot().items() if v}


def test_a_direct_pin_reports_each_edge_with_the_injected_clock(grid_layout, clock):
    board = SimulatedBoard(grid_layout, clock, autoscan=False)
    events = []
    board.source.start(events.append)
    board.place("c3")
    clock.advance(0.5)
    board.lift("c3")
    assert events == [SensorEvent(4, PRESENT, 100.0), SensorEvent(4, None, 100.5)]
    assert board.factory.pin(4).state == 1  # pulled up again: the real gpiozero pull-up path
    board.close()


def test_matrix_reports_only_when_scanned_and_snapshot_agrees(grid_layout, clock):
    board = SimulatedBoard(grid_layout, clock, autoscan=False)
    events = []
    board.source.start(events.append)
    board.place("b2")
    assert events == []  # nothing until the scanner looks
    board.scan_once()
    assert events == [SensorEvent((1, 1), PRESENT, 100.0)]
    board.scan_once()
    assert len(events) == 1  # no change, no event
    assert present_sites(board) == {"b2"}
    board.close()


def test_pieces_down_before_start_are_in_the_first_snapshot_not_events(grid_layout, clock):
    board = SimulatedBoard(grid_layout, clock, autoscan=False)
    board.close()
    # A fresh board whose model already holds pieces when the source opens.
    board = SimulatedBoard(grid_layout, clock, autoscan=False)
    board.place("a1")
    board.scan_once()
    assert present_sites(board) == {"a1"}


@pytest.mark.parametrize("diodes", [True, False])
def test_many_pieces_down_at_once_show_no_ghosts_with_diodes(grid_layout, diodes):
    # Every set of 3 of the 8 matrix sites, including every "three corners of a rectangle".
    matrix_sites = list(grid_layout.matrix.channels.values())
    board = SimulatedBoard(grid_layout, autoscan=False, diodes=diodes)
    ghosts = 0
    for placed in itertools.combinations(matrix_sites, 3):
        for site in placed:
            board.place(site)
        board.scan_once()
        seen = present_sites(board)
        if diodes:
            assert seen == set(placed)
        ghosts += seen != set(placed)
        for site in placed:
            board.lift(site)
    board.scan_once()
    assert present_sites(board) == set()
    # Without diodes the same scanner sees phantoms: the model is what makes the test bite.
    assert (ghosts == 0) == diodes
    board.close()


def test_a_full_matrix_board_reads_every_site(grid_layout):
    board = SimulatedBoard(grid_layout, autoscan=False)
    for site in grid_layout.sites:
        board.place(site)
    board.scan_once()
    assert present_sites(board) == set(grid_layout.sites)
    board.close()


def test_the_matrix_scan_drives_each_row_low_once_and_leaves_it_high(grid_layout):
    board = SimulatedBoard(grid_layout, autoscan=False)
    row_pins = [board.factory.pin(p) for p in grid_layout.matrix.rows]
    for pin in row_pins:
        pin.clear_states()
    board.scan_once()
    for pin in row_pins:
        assert [s.state for s in pin.states] == [True, False, True]
    board.close()


def test_the_settle_wait_is_taken_after_each_row_is_driven(grid_layout):
    from gpiozero.pins.mock import MockFactory

    waits = []
    source = MatrixSource(grid_layout.matrix, pin_factory=MockFactory(), autoscan=False, sleep=waits.append)
    waits.clear()  # opening takes a first reading
    source.scan_once()
    assert waits == [grid_layout.matrix.settle_s] * len(grid_layout.matrix.rows)
    source.close()
    source.close()


def test_the_scan_thread_reports_from_its_own_thread(grid_layout):
    board = SimulatedBoard(grid_layout, autoscan=True)
    seen = threading.Event()
    threads = []

    def callback(event):
        threads.append(threading.current_thread())
        seen.set()

    board.source.start(callback)
    board.place("a2")
    assert seen.wait(timeout=scaled(5)), "the scan thread reported nothing"
    assert threads[0] is not threading.main_thread()
    board.close()


def test_two_simulated_boards_coexist_and_leave_the_default_factory_alone(grid_layout):
    from gpiozero import Device

    before = Device.pin_factory
    a = SimulatedBoard(grid_layout, autoscan=False)
    b = SimulatedBoard(grid_layout, autoscan=False)
    a.place("a1")
    a.scan_once(), b.scan_once()
    assert present_sites(a) == {"a1"} and present_sites(b) == set()
    assert Device.pin_factory is before
    a.close(), b.close()


@pytest.fixture
def treeblox():
    board = SimulatedBoard(load_layout("treeblox-adc"), autoscan=False)
    yield board
    board.close()


def test_adc_tells_all_four_cube_kinds_through_mcp3008(treeblox):
    events = []
    treeblox.source.start(events.append)
    kinds = ["dark-leaf", "dark-branch", "light-leaf", "light-branch"]
    for site, kind in zip(["a1", "b2", "c3", "d4"], kinds):
        treeblox.place(site, kind)
    treeblox.scan_once()
    got = {treeblox.layout.site_of_channel[e.channel]: e.value for e in events}
    assert got == dict(zip(["a1", "b2", "c3", "d4"], kinds))
    treeblox.lift("b2")
    treeblox.scan_once()
    assert events[-1].value is None and treeblox.layout.site_of_channel[events[-1].channel] == "b2"


def mcp3008_value(raw):
    # gpiozero's MCP3xxx.value for a raw 10-bit reading (min -1024, range 2047).
    return (2 * (raw + 1024) / 2047) - 1


@pytest.mark.parametrize("threshold", [0.20, 0.40, 0.60, 0.80])
def test_adc_classification_at_each_thresholds_edge(treeblox, threshold):
    adc = treeblox.layout.adc
    # The last raw reading below the threshold and the first at or above it.
    upper = next(r for r in range(1024) if mcp3008_value(r) >= threshold)
    below, above = adc.classify(mcp3008_value(upper - 1)), adc.classify(mcp3008_value(upper))
    assert below != above
    events = []
    treeblox.source.start(events.append)
    treeblox.set_level("c2", raw=upper - 1)
    treeblox.scan_once()
    treeblox.set_level("c2", raw=upper)
    treeblox.scan_once()
    values = [e.value for e in events]
    assert values[-2:] == [below, above] or values == [above]  # [above] when below is the resting value


def test_placing_on_an_adc_sensor_needs_a_kind(treeblox):
    with pytest.raises(ValueError, match="say which"):
        treeblox.place("a1")


def test_hands_refuse_unknown_sites(grid_layout):
    board = SimulatedBoard(grid_layout, autoscan=False)
    with pytest.raises(ValueError, match="'z9' is no site"):
        board.place("z9")
    with pytest.raises(KeyError, match="no button 'undo'"):
        board.press("undo")
    board.close()


def test_buttons_are_gpiozero_buttons(grid_layout):
    hw = open_hardware(grid_layout, "sim", autoscan=False)
    pressed = []
    hw.buttons["end_turn"].when_pressed = lambda: pressed.append(True)
    hw.board.press("end_turn")
    hw.board.release("end_turn")
    assert pressed == [True]
    hw.close()


def test_events_from_many_threads_keep_snapshot_and_events_consistent(grid_layout):
    board = SimulatedBoard(grid_layout, autoscan=False)
    events = []
    board.source.start(events.append)
    pin = board.factory.pin(4)

    def flap():
        for _ in range(200):
            pin.drive_low()
            pin.drive_high()

    workers = [threading.Thread(target=flap) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    # Events alternate (no lost or doubled change) and end where the pin ended.
    values = [e.value for e in events]
    assert all(a != b for a, b in zip(values, values[1:]))
    assert board.source.snapshot()[4] == (PRESENT if not pin.state else None)
    assert values[-1] == board.source.snapshot()[4]
    board.close()


def test_open_hardware_refuses_an_unknown_backend(grid_layout):
    with pytest.raises(ValueError, match="unknown hardware backend 'pi'"):
        open_hardware(grid_layout, "pi")


def test_a_bridge_layout_is_not_opened_here():
    from hardware import HardwareError

    with pytest.raises(HardwareError, match="firmware_bridge"):
        SimulatedBoard(load_layout("grid-20x20-bridge"))


@pytest.mark.parametrize("pull, active_low", [("up", False), ("down", False), ("none", True)])
def test_pull_and_active_level_are_configurable(write_layout, grid_text, pull, active_low):
    text = grid_text.replace('pull = "up"\nactive_low = true', f'pull = "{pull}"\nactive_low = {str(active_low).lower()}')
    assert text != grid_text
    board = SimulatedBoard(load_layout(write_layout(text)), autoscan=False)
    pin = board.factory.pin(4)
    assert board.source.snapshot()[4] is None  # the board starts empty, whatever the wiring
    board.source.start(lambda e: None)
    board.place("c3")
    assert pin.state == (0 if active_low else 1) and board.source.snapshot()[4] == PRESENT
    board.lift("c3")
    assert board.source.snapshot()[4] is None
    board.close()

"""`SensorSource.health()`: the watchdog's question to every gpiozero source.

The scan thread is real (autoscan); what stops it is injected (a read that raises, a read that
blocks), and the watchdog's clock is a fake one, so nothing here waits a second."""

import threading

import pytest

from hardware.layout import load_layout
from hardware.sensors import STALL_S, AdcSource, MatrixSource, PinSource
from hardware.sim import SimulatedBoard
from tests.waits import scaled, wait_for


class Tick:
    def __init__(self):
        self.now = 500.0

    def __call__(self):
        return self.now


def _part(board, kind):
    return next(s for s in board.source.sources if isinstance(s, kind))


@pytest.mark.parametrize("layout_name,kind", [("tree-planting-classic-matrix", MatrixSource),
                                              ("treeblox-adc", AdcSource)])
def test_a_scan_thread_that_died_is_named(layout_name, kind, monkeypatch):
    monkeypatch.setattr(threading, "excepthook", lambda args: None)  # the death is expected
    board = SimulatedBoard(load_layout(layout_name), autoscan=True)
    source = _part(board, kind)
    try:
        assert board.source.health() is None  # not started yet: nothing to watch
        board.source.start(lambda event: None)
        assert wait_for(lambda: source._thread is not None) and board.source.health() is None

        def broken():
            raise OSError("the SPI bus went away")

        source._read_all = broken
        assert wait_for(lambda: not source._thread.is_alive())
        problem = board.source.health()
        assert problem is not None
        assert kind.__name__ in problem and "scan thread died" in problem and "SPI bus" in problem
    finally:
        board.close()
    assert board.source.health() is None  # closed on purpose is not a fault


def test_a_scan_that_stalls_for_over_a_second_is_named_and_recovers():
    board = SimulatedBoard(load_layout("tree-planting-classic-matrix"), autoscan=True)
    source = _part(board, MatrixSource)
    tick = Tick()
    source.monotonic = tick
    stuck, entered = threading.Event(), threading.Event()
    read = source._read_all

    def blocking():
        entered.set()
        stuck.wait(5)
        return read()

    try:
        board.source.start(lambda event: None)
        assert wait_for(lambda: source._last_scan == tick.now)
        source._read_all = blocking
        assert entered.wait(scaled(5))
        tick.now += STALL_S / 2
        assert board.source.health() is None
        tick.now += STALL_S
        problem = board.source.health()
        assert problem is not None and "MatrixSource" in problem and "no scan for 1.5 s" in problem
        source._read_all = read
        stuck.set()
        assert wait_for(lambda: board.source.health() is None)
    finally:
        stuck.set()
        board.close()


def test_a_pin_whose_edges_stop_arriving_is_named():
    board = SimulatedBoard(load_layout("tree-planting-classic-pins"), autoscan=False)
    source = _part(board, PinSource)
    tick = Tick()
    source.monotonic = tick
    events = []
    board.source.start(events.append)
    try:
        board.place("t0.0")
        assert len(events) == 1 and board.source.health() is None
        gpio = board.layout.channels_of_site["t0.0"][0]
        # gpiozero's edge thread dies: the pin still reads, but no callback comes.
        device = source._devices[gpio]
        device.when_activated = device.when_deactivated = None
        board.lift("t0.0")
        assert len(events) == 1
        assert board.source.health() is None  # first sighting: could be an edge in flight
        tick.now += STALL_S + 0.5
        problem = board.source.health()
        assert problem is not None and f"GPIO {gpio}" in problem and "no edge" in problem
    finally:
        board.close()

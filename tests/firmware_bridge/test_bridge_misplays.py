"""The bridge's one debounce (the firmware's: 4 equal scans 2 ms apart; the host adds none, so
what the link reports is what the referee gets) against the misplays of docs/hardware.md: a rod
rolling in its groove, a cube wobbling on its sensor, a magnet carried over a neighbour. None of
their short readings reaches the host as a change: the piece that stays is reported once, and a
gap in a piece already reported is said out and back at one instant (PROTOCOL.md, "A gap shorter
than the debounce"), which the host's 1 ms window hands to the referee as one swap, a move only
where a momentary empty cell is one (an Arbos replacement). On the lockstep bridge:
the real controller and host link on a hand-turned clock, through the 74HC595/165 chain."""

from __future__ import annotations

import pytest

from firmware_bridge.lockstep import LockstepBridge
from hardware.base import PRESENT
from misplays import MISPLAYS, SLOW_PIECE

CELLS = {"piece": 6 * 20 + 2, "neighbour": 6 * 20 + 3}


class Clock:
    def __init__(self):
        self.now = 500.0

    def __call__(self):
        return self.now


def play_out(steps):
    clock = Clock()
    bridge = LockstepBridge(20, 20, 400, clock, matrix="shift-register")
    try:
        bridge.settle()
        events = []
        bridge.source.start(lambda e: events.append((e.channel, e.value, clock.now)))
        # a hand moves at a random phase of the scan: start half a scan after one
        start = bridge.firmware.next_scan / 1000 + 0.001
        for ms, cell, on in steps:
            bridge.run_until(start + ms / 1000)
            (bridge.place if on else bridge.lift)(CELLS[cell])
        bridge.run_until(clock.now + 0.3)  # the debounce, repeats and heartbeats after it
        return events, bridge.firmware.debounce_scans, bridge.firmware.scan_ms
    finally:
        bridge.source.close()
        bridge.sink.close()


@pytest.mark.parametrize("name", sorted(MISPLAYS))
def test_a_misplay_reaches_the_host_as_the_piece_that_stays(name):
    events, scans, scan_ms = play_out(MISPLAYS[name])
    assert (scans, scan_ms) == (4, 2)  # main.py's, as on the board
    piece = CELLS["piece"]
    assert [(ch, v) for ch, v, _ in events[:1]] == [(piece, PRESENT)], name
    rest = events[1:]
    assert len(rest) % 2 == 0, name
    for out, back in zip(rest[::2], rest[1::2]):  # only gaps, each at one instant
        assert out[:2] == (piece, None) and back[:2] == (piece, PRESENT) and out[2] == back[2], name


def test_a_piece_that_stays_10_ms_is_reported_both_ways():
    events, _, _ = play_out(SLOW_PIECE)
    assert [(ch, v) for ch, v, _ in events] == [(CELLS["neighbour"], PRESENT), (CELLS["neighbour"], None)]


def test_every_simulation_debounces_as_main_py_does():
    # The firmware's timing is main.py's, and the simulations (the pty one the fault tests and
    # `treeboard sim --bridge` run, the lockstep one of `treeboard trace`) take it unchanged.
    import inspect

    from firmware_bridge.firmware.controller import Controller
    from firmware_bridge.mpy import FIRMWARE_DIR
    from firmware_bridge.sim import start_simulated_firmware

    settings = {}
    for line in (FIRMWARE_DIR / "main.py").read_text().splitlines():
        name, _, value = line.partition(" = ")
        if name in ("SCAN_MS", "DEBOUNCE_SCANS"):
            settings[name] = int(value.split("#")[0])
    assert settings == {"SCAN_MS": 2, "DEBOUNCE_SCANS": 4}
    defaults = inspect.signature(Controller).parameters
    assert (defaults["scan_ms"].default, defaults["debounce_scans"].default) == (2, 4)
    with start_simulated_firmware(5, 8, 40) as fw:
        assert (fw.controller_options["scan_ms"], fw.controller_options["debounce_scans"]) == (2, 4)

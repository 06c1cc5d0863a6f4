"""A bridge board as the daemon sees it: the hardware layer's `Hardware` (a sensor source and
the LED frame API) on a microcontroller over USB serial, or on the simulated firmware.

`port = "sim"` starts the simulated firmware on a pseudo-terminal and opens it exactly as the
USB device would be opened; the returned `board` then offers the same hands as the GPIO
simulator (`place`, `lift`, `press`), by site, so `treeboard sim --bridge` plays like
`treeboard sim`. `port = "lockstep"` runs the same firmware logic and host link on the
caller's simulated clock instead (firmware_bridge/lockstep.py): `treeboard trace` uses it.

A layout's `[buttons]` (an end-turn button) are on the Pi's own GPIO, beside the bridge: real
gpiozero buttons on a real board, mock pins on a simulated one.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Callable, Iterable

from firmware_bridge.host import open_bridge
from hardware import Hardware
from hardware.base import HardwareError
from hardware.leds import Leds

log = logging.getLogger("treeboard.bridge")

SIM_COLS = 8  # the simulated matrix's width when the layout names no size; channel = row * cols + col


class BridgeSimBoard:
    """Hands on the simulated firmware's board, by site (the layout maps site -> channel)."""

    def __init__(self, layout, firmware, source, sink, buttons=None):
        self.layout = layout
        self.firmware = firmware
        self._source, self._sink = source, sink
        self.buttons = buttons or {}

    def _channels(self, site: str):
        channels = self.layout.channels_of_site.get(site)
        if not channels:
            raise ValueError(f"{site!r} is no site with a sensor on layout {self.layout.name}")
        return channels

    def place(self, site: str, kind: str | None = None) -> None:
        for channel in self._channels(site):
            self.firmware.place(channel)

    def lift(self, site: str) -> None:
        for channel in self._channels(site):
            self.firmware.lift(channel)

    def scan_once(self) -> None:
        """The firmware scans by itself on its own thread."""

    def press(self, name: str) -> None:
        self._button_pin(name).drive_low()

    def release(self, name: str) -> None:
        self._button_pin(name).drive_high()

    def _button_pin(self, name: str):
        if name not in self.buttons:
            raise KeyError(f"no button {name!r}; layout {self.layout.name} has "
                           f"{sorted(self.buttons) or 'none'}")
        return self.buttons[name].pin

    def close(self) -> None:
        self._source.close()
        self._sink.close()
        self.firmware.stop()
        for button in self.buttons.values():
            button.close()


class LockstepBoard(BridgeSimBoard):
    """The hands on a lockstep bridge (firmware_bridge/lockstep.py): after a hand moved a
    piece, `scan_once` runs simulated time until the firmware's debounce is through and the
    host has reported the change; `run_until` lets time pass."""

    def scan_once(self) -> None:
        self.firmware.settle()

    def run_until(self, t: float) -> None:
        self.firmware.run_until(t)

    def flush(self) -> None:
        """Let the last LED frame reach the firmware's strip (no simulated time passes)."""
        self.firmware.flush(0.0)


#: `port` for the bridge on the caller's simulated clock (`treeboard trace`).
LOCKSTEP = "lockstep"


def _sim_shape(wired) -> tuple[int, int]:
    """The simulated matrix: the layout's rows and cols as wired, else SIM_COLS wide."""
    if wired.rows is not None:
        return wired.rows, wired.cols
    return math.ceil((max(wired.channels) + 1) / SIM_COLS), SIM_COLS


def _buttons(layout, simulated: bool) -> dict:
    """The layout's buttons on the Pi's GPIO (mock pins for a simulated board)."""
    if not layout.buttons:
        return {}
    from gpiozero import Button

    factory = None
    if simulated:
        from gpiozero.pins.mock import MockFactory

        from hardware.sim import MOCK_REVISION
        factory = MockFactory(revision=MOCK_REVISION)
    return {name: Button(pin, pin_factory=factory) for name, pin in layout.buttons.items()}


def open_bridge_hardware(layout, port: str, baud: int, *,
                         clock: Callable[[], float] = time.monotonic,
                         pieces: Iterable[str] = ()) -> Hardware:
    """The bridge's sensors, strip and buttons. `pieces`: on the simulated firmware (port
    "sim"), the sites with a piece on them when it comes up (a restored game's)."""
    if layout.bridge is None:
        raise HardwareError(f"layout {layout.name} has no [sensors.bridge]: it is not wired to a "
                            "microcontroller (use backend gpio or sim)")
    if port == LOCKSTEP:
        from firmware_bridge.lockstep import LockstepBridge

        bridge = LockstepBridge(*_sim_shape(layout.bridge), layout.led_count, clock,
                                matrix=layout.bridge.matrix)
        buttons = _buttons(layout, simulated=True)
        board = LockstepBoard(layout, bridge, bridge.source, bridge.sink, buttons)
        return Hardware(bridge.source, Leds(layout, bridge.sink), buttons, board)
    firmware = None
    if port == "sim":
        from firmware_bridge.sim import start_simulated_firmware

        rows, cols = _sim_shape(layout.bridge)
        channels = [ch for site in pieces for ch in layout.channels_of_site.get(site, ())]
        firmware = start_simulated_firmware(rows, cols, layout.led_count,
                                            matrix=layout.bridge.matrix, pieces=channels)
        port = firmware.port
    try:
        source, sink = open_bridge(port, baud, clock=clock,
                                   on_state=lambda s: log.info("bridge link: %s", s))
    except Exception:
        if firmware is not None:
            firmware.stop()
        raise
    leds = Leds(layout, sink)
    try:
        buttons = _buttons(layout, simulated=firmware is not None)
    except Exception:
        source.close()
        sink.close()
        if firmware is not None:
            firmware.stop()
        raise
    if firmware is None:
        return Hardware(source, leds, buttons, None)
    return Hardware(source, leds, buttons, BridgeSimBoard(layout, firmware, source, sink, buttons))

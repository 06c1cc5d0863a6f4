"""Sensors and LEDs: gpiozero pins, scanned matrices, MCP3008 ADCs, NeoPixel strips, and their
simulated twins, behind the two interfaces in `hardware.base`.

    >>> from hardware import open_hardware
    >>> from hardware.layout import load_layout
    >>> hw = open_hardware(load_layout("tree-planting-classic-matrix"), "sim")
    >>> hw.source.start(print); hw.board.place("h0.0")
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from hardware.base import PRESENT, HardwareError, PixelSink, SensorEvent, SensorSource

__all__ = ["PRESENT", "HardwareError", "PixelSink", "SensorEvent", "SensorSource", "Hardware", "open_hardware", "BACKENDS"]

BACKENDS = ("gpio", "sim")


@dataclass
class Hardware:
    """What a layout opens to: a sensor source, the LED frame API, the named buttons.

    `buttons` maps a layout's button name to a gpiozero `Button` (use `when_pressed`).
    `board` is the `SimulatedBoard` for backend "sim" (place / lift / press / scan_once),
    None on a real board.
    """

    source: SensorSource
    leds: Any  # hardware.leds.Leds
    buttons: dict[str, Any] = field(default_factory=dict)
    board: Any = None

    def close(self) -> None:
        """Release everything (idempotent): sensors, buttons, and blank the strip."""
        if self.board is not None:
            self.board.close()
            return
        self.source.close()
        for button in self.buttons.values():
            button.close()
        self.leds.close()


def open_hardware(layout, backend: str, clock: Callable[[], float] | None = None, *, autoscan: bool = True) -> Hardware:
    """Open a layout's sensors, LEDs and buttons on backend "gpio" (a real Pi) or "sim".

    `clock` timestamps events (default time.monotonic). `autoscan=False` leaves out the scan
    thread of matrix / ADC sources; the caller then calls `source.scan_once()`. A layout whose
    sensors are on a microcontroller bridge is opened by `firmware_bridge`, not here.
    """
    clock = clock or time.monotonic
    if backend == "sim":
        from hardware.sim import SimulatedBoard

        board = SimulatedBoard(layout, clock, autoscan=autoscan)
        return Hardware(board.source, board.leds, board.buttons, board)
    if backend != "gpio":
        raise ValueError(f"unknown hardware backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    from gpiozero import Button

    from hardware.leds import Leds, open_strip
    from hardware.sensors import open_sensors

    source = open_sensors(layout, clock=clock, autoscan=autoscan)
    buttons: dict[str, Any] = {}
    try:
        buttons = {name: Button(pin) for name, pin in layout.buttons.items()}
        strip = open_strip(layout.leds.pin, layout.led_count, layout.leds.pixel_order)
    except Exception:
        source.close()
        for button in buttons.values():
            button.close()
        raise
    return Hardware(source, Leds(layout, strip), buttons)

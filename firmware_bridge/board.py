"""A bridge board as the daemon sees it: the hardware layer's `Hardware` (a sensor source and
the LED frame API) on a microcontroller over USB serial, or on the simulated firmware.

`port = "sim"` starts the simulated firmware on a pseudo-terminal and opens it exactly as the
USB device would be opened; the returned `board` then offers the same hands as the GPIO
simulator (`place`, `lift`), by site, so `treeboard sim --bridge` plays like `treeboard sim`.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Callable

from firmware_bridge.host import open_bridge
from hardware import Hardware
from hardware.base import HardwareError
from hardware.leds import Leds

log = logging.getLogger("treeboard.bridge")

SIM_COLS = 8  # the simulated matrix's width when the layout names no size; channel = row * cols + col


class BridgeSimBoard:
    """Hands on the simulated firmware's board, by site (the layout maps site -> channel)."""

    def __init__(self, layout, firmware, source, sink):
        self.layout = layout
        self.firmware = firmware
        self._source, self._sink = source, sink

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
        raise KeyError(f"no button {name!r} on a bridge board")

    release = press

    def close(self) -> None:
        self._source.close()
        self._sink.close()
        self.firmware.stop()


def open_bridge_hardware(layout, port: str, baud: int, *,
                         clock: Callable[[], float] = time.monotonic) -> Hardware:
    if layout.bridge is None:
        raise HardwareError(f"layout {layout.name} has no [sensors.bridge]: it is not wired to a "
                            "microcontroller (use backend gpio or sim)")
    firmware = None
    if port == "sim":
        from firmware_bridge.sim import start_simulated_firmware

        wired = layout.bridge
        rows, cols = wired.rows, wired.cols
        if rows is None:
            cols = SIM_COLS
            rows = math.ceil((max(wired.channels) + 1) / cols)
        firmware = start_simulated_firmware(rows, cols, layout.led_count, matrix=wired.matrix)
        port = firmware.port
    try:
        source, sink = open_bridge(port, baud, clock=clock,
                                   on_state=lambda s: log.info("bridge link: %s", s))
    except Exception:
        if firmware is not None:
            firmware.stop()
        raise
    leds = Leds(layout, sink)
    if firmware is None:
        return Hardware(source, leds, {}, None)
    return Hardware(source, leds, {}, BridgeSimBoard(layout, firmware, source, sink))

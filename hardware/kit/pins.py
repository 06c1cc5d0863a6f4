"""The controllers' pins: the Raspberry Pi's 40-pin header (BCM GPIO -> physical pin), the
Raspberry Pi Pico's (RP2040), and the lines a layout uses on each.

The Pico's wiring is `firmware_bridge/firmware/main.py`'s defaults (its constants are repeated
here because that file runs on MicroPython and imports `machine`; tests/hardware/test_kit.py
reads main.py and checks they agree). A bridge matrix of another size gets rows and columns on
the first free pins, which `wiring.svg` tells the maker to set in main.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hardware.kit.board import KitError
from hardware.layout import SPI_CLOCK, SPI_MISO, SPI_MOSI, Layout

#: The Pi's header, physical pin -> what it is (a BCM GPIO number, or a supply pin's name).
PI_HEADER: dict[int, int | str] = {
    1: "3V3", 2: "5V", 3: 2, 4: "5V", 5: 3, 6: "GND", 7: 4, 8: 14, 9: "GND", 10: 15,
    11: 17, 12: 18, 13: 27, 14: "GND", 15: 22, 16: 23, 17: "3V3", 18: 24, 19: 10, 20: "GND",
    21: 9, 22: 25, 23: 11, 24: 8, 25: "GND", 26: 7, 27: 0, 28: 1, 29: 5, 30: "GND",
    31: 6, 32: 12, 33: 13, 34: "GND", 35: 19, 36: 16, 37: 26, 38: 20, 39: "GND", 40: 21,
}
PI_PIN_OF_GPIO = {v: k for k, v in PI_HEADER.items() if isinstance(v, int)}

#: The Pico's pins, physical pin -> a GPIO (GPn) or a supply pin's name.
PICO_HEADER: dict[int, int | str] = {
    1: 0, 2: 1, 3: "GND", 4: 2, 5: 3, 6: 4, 7: 5, 8: "GND", 9: 6, 10: 7,
    11: 8, 12: 9, 13: "GND", 14: 10, 15: 11, 16: 12, 17: 13, 18: "GND", 19: 14, 20: 15,
    21: 16, 22: 17, 23: "GND", 24: 18, 25: 19, 26: 20, 27: 21, 28: "GND", 29: 22, 30: "RUN",
    31: 26, 32: 27, 33: "AGND", 34: 28, 35: "ADC_VREF", 36: "3V3", 37: "3V3_EN", 38: "GND",
    39: "VSYS", 40: "VBUS",
}
PICO_PIN_OF_GPIO = {v: k for k, v in PICO_HEADER.items() if isinstance(v, int)}

#: firmware_bridge/firmware/main.py's defaults.
FIRMWARE_ROW_PINS = (0, 1, 2, 3, 4)
FIRMWARE_COL_PINS = (5, 6, 7, 8, 9, 10, 11, 12)
FIRMWARE_SCK, FIRMWARE_MOSI, FIRMWARE_MISO = 2, 3, 4
FIRMWARE_RCLK, FIRMWARE_PL = 5, 6
FIRMWARE_LED_PIN = 16
FIRMWARE_MAINTENANCE_PIN = 22
#: A bridge matrix of no stated size is this many columns wide (firmware_bridge/board.py's
#: SIM_COLS, and main.py's eight COL_PINS): channel = row * cols + col.
BRIDGE_COLS = len(FIRMWARE_COL_PINS)
#: Each 74HC595 drives eight rows, each 74HC165 reads eight columns.
SHIFT_REGISTER_BITS = 8


@dataclass(frozen=True)
class Line:
    """One line a layout uses on a controller: its GPIO and what it does."""

    gpio: int
    role: str     # "row", "col", "pin", "led", "spi", "select", "button", "strobe", "jumper"
    label: str


def bridge_shape(layout: Layout) -> tuple[int, int]:
    """The bridge matrix's rows and columns: as the layout wires it, else BRIDGE_COLS wide."""
    bridge = layout.bridge
    assert bridge is not None
    if bridge.rows is not None:
        return bridge.rows, bridge.cols
    return math.ceil((max(bridge.channels) + 1) / BRIDGE_COLS), BRIDGE_COLS


def bridge_matrix_pins(layout: Layout) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """ROW_PINS and COL_PINS for a bridge wired to the Pico's own pins: main.py's defaults
    when the size is theirs, else the first free GPIOs (rows first), leaving the LED pin, the
    maintenance jumper and the pins the Pico does not break out."""
    rows, cols = bridge_shape(layout)
    if (rows, cols) == (len(FIRMWARE_ROW_PINS), len(FIRMWARE_COL_PINS)):
        return FIRMWARE_ROW_PINS, FIRMWARE_COL_PINS
    free = [g for g in sorted(PICO_PIN_OF_GPIO) if g not in (FIRMWARE_LED_PIN, FIRMWARE_MAINTENANCE_PIN)]
    if rows + cols > len(free):
        raise KitError(f"{layout.path}: a {rows} x {cols} matrix needs {rows + cols} lines and a "
                       f"Pico has {len(free)} free: wire it through shift registers "
                       "([sensors.bridge] matrix = \"shift-register\")")
    return tuple(free[:rows]), tuple(free[rows:rows + cols])


def pi_lines(layout: Layout) -> list[Line]:
    """Every GPIO of the Pi the layout uses, with its role."""
    lines: list[Line] = []
    if layout.pins is not None:
        lines += [Line(g, "pin", f"{site} (reed to GND)") for g, site in layout.pins.channels.items()]
    if layout.matrix is not None:
        lines += [Line(g, "row", f"matrix row {r}") for r, g in enumerate(layout.matrix.rows)]
        lines += [Line(g, "col", f"matrix column {c}") for c, g in enumerate(layout.matrix.cols)]
    if layout.adc is not None:
        lines += [Line(SPI_CLOCK, "spi", "SPI0 SCLK: MCP3008 CLK"),
                  Line(SPI_MOSI, "spi", "SPI0 MOSI: MCP3008 DIN"),
                  Line(SPI_MISO, "spi", "SPI0 MISO: MCP3008 DOUT")]
        lines += [Line(g, "select", f"CE{i}: MCP3008 #{i} CS") for i, g in enumerate(layout.adc.selects)]
    if layout.leds.pin is not None:
        lines.append(Line(layout.leds.pin, "led", "LED data (through the 74AHCT125 and 330 ohm)"))
    lines += [Line(g, "button", f"button {name} (to GND)") for name, g in layout.buttons.items()]
    return lines


def pico_lines(layout: Layout) -> list[Line]:
    """Every GPIO of the Pico a bridge layout uses, as main.py must be set."""
    assert layout.bridge is not None
    lines: list[Line] = []
    if layout.bridge.matrix == "shift-register":
        lines += [Line(FIRMWARE_SCK, "spi", "SPI0 SCK: 74HC595 SRCLK, 74HC165 CLK"),
                  Line(FIRMWARE_MOSI, "spi", "SPI0 TX: the first 74HC595's SER"),
                  Line(FIRMWARE_MISO, "spi", "SPI0 RX: the first 74HC165's QH"),
                  Line(FIRMWARE_RCLK, "strobe", "RCLK of every 74HC595"),
                  Line(FIRMWARE_PL, "strobe", "/PL of every 74HC165")]
    else:
        rows, cols = bridge_matrix_pins(layout)
        lines += [Line(g, "row", f"matrix row {r}") for r, g in enumerate(rows)]
        lines += [Line(g, "col", f"matrix column {c}") for c, g in enumerate(cols)]
    lines.append(Line(FIRMWARE_LED_PIN, "led", "LED data (through the 74AHCT125)"))
    lines.append(Line(FIRMWARE_MAINTENANCE_PIN, "jumper", "maintenance jumper to GND (open in play)"))
    return lines

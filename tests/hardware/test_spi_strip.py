"""The SPI NeoPixel sink (neopixel_spi through Blinka), on Blinka's OS-agnostic board, and the
choice of sink by the layout's data pin."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from hardware.layout import load_layout, shipped_layouts
from hardware.leds import SPI_MOSI_BUS
from tests.waits import scaled

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_blinka(code: str) -> subprocess.CompletedProcess:
    # A fresh interpreter, so Blinka sees the variable before it picks a board.
    env = dict(os.environ, BLINKA_OS_AGNOSTIC="1")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                          text=True, timeout=scaled(60), cwd=REPO)


def test_a_strip_on_spi0s_mosi_goes_through_neopixel_spi():
    result = run_blinka("""
        from hardware.leds import open_strip
        strip = open_strip(10, 3, "GRB")
        strip.show([(255, 0, 0), (0, 255, 0), (0, 0, 255)])
        print(type(strip).__name__, type(strip._buffer).__module__, *strip._buffer[0])
        strip.close()
        strip.close()  # idempotent: blanks once
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["NeoPixelSpiStrip", "neopixel_spi", "255", "0", "0"]


def test_a_bus_the_board_lacks_is_a_clear_error():
    result = run_blinka("""
        from hardware.leds import NeoPixelSpiStrip
        from hardware import HardwareError
        try:
            NeoPixelSpiStrip(1, 3)
        except HardwareError as exc:
            print(exc)
    """)
    assert result.returncode == 0, result.stderr
    assert "no SPI1 for the LED strip" in result.stdout


@pytest.mark.parametrize("name", shipped_layouts())
def test_every_shipped_gpio_layout_drives_its_strip_over_spi(name):
    layout = load_layout(name)
    if layout.bridge is not None:
        assert layout.leds.pin is None  # the microcontroller drives it
        return
    assert layout.leds.pin in SPI_MOSI_BUS
    # The bus's pins are no sensor's or button's (SPI0: MOSI and clock, and what the overlay
    # the layout's comment names claims as well; SPI1 with one chip select: 18-21).
    text = layout.path.read_text()
    bus_pins = ({10, 11} | ({9} if "no_miso" not in text else set())
                | ({8} if "spi0-0cs" not in text else set())
                | ({7} if "dtparam=spi=on" in text and "spi0-" not in text else set())
                if SPI_MOSI_BUS[layout.leds.pin] == 0 else {18, 19, 20, 21})
    used = set(layout.buttons.values())
    if layout.pins:
        used |= set(layout.pins.channels)
    if layout.matrix:
        used |= set(layout.matrix.rows) | set(layout.matrix.cols)
    assert not used & bus_pins

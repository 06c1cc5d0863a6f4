"""LED output: a frame API over any `PixelSink`, and the two strips built on PixelBuf.

`Leds` takes what the daemon wants to show, `{site: colour}` or `{index: colour}`, and
turns it into what the strip gets: gamma-corrected (the eye is not linear), scaled by a
brightness cap, and scaled down further when its estimated current draw would exceed the
power supply's budget. It writes to the sink only when that corrected frame changed, since a
WS2812 write blocks for ~30 us per pixel and interrupts would otherwise flicker.

`NeoPixelSpiStrip` drives a real strip from an SPI bus's MOSI pin (neopixel_spi: no root, no
PWM or DMA, every Pi from the Zero 2 W to the Pi 5; the shipped layouts' default);
`NeoPixelStrip` drives one from any other GPIO (adafruit-circuitpython-neopixel: rpi_ws281x
as root on Pi 0-4, the RP1 PIO driver on a Pi 5); both import their driver only inside;
`RecordingStrip` is the same `adafruit_pixelbuf.PixelBuf` machinery with a transmit
that records, so tests see exactly the bytes the Pi would send, in the strip's pixel order.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Hashable, Mapping, Sequence

from hardware.base import Colour, HardwareError, PixelSink
from hardware.layout import Layout

#: A WS2812 draws about 20 mA per colour channel at full duty: 60 mA for full white.
MILLIAMPS_PER_CHANNEL = 20.0

BLACK: Colour = (0, 0, 0)


def gamma_table(gamma: float) -> tuple[int, ...]:
    """0..255 -> 0..255 so that equal steps of input look like equal steps of light."""
    return tuple(round(255 * (v / 255) ** gamma) for v in range(256))


def estimate_milliamps(frame: Sequence[Colour]) -> float:
    """The strip's estimated draw for `frame` (colour values as sent to the LEDs)."""
    return sum(r + g + b for r, g, b in frame) * MILLIAMPS_PER_CHANNEL / 255


# Colours already checked, so that a frame of the same few colours (every frame, in practice)
# costs one dict lookup a pixel. Keys are exact int tuples; lookups of anything else miss.
# Shared by every strip in the process, whichever thread shows it: inserts (rare: a colour
# seen for the first time) take the lock, so the bound holds; a lookup is one atomic get.
_checked: dict[tuple, Colour] = {}
_checked_lock = threading.Lock()


def _check_colour(key: Hashable, colour) -> Colour:
    if type(colour) is tuple and len(colour) == 3 and type(colour[0]) is int:
        known = _checked.get(colour)
        if known is not None and type(colour[1]) is int and type(colour[2]) is int:
            return known
    if (not isinstance(colour, (tuple, list)) or len(colour) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in colour)):
        raise ValueError(f"colour for {key!r} must be (r, g, b) with each 0..255, got {colour!r}")
    checked = (colour[0], colour[1], colour[2])
    with _checked_lock:
        if len(_checked) < 4096:
            _checked[checked] = checked
    return checked


class Leds:
    """Frames of site or index colours, corrected and shown only when they changed.

    `gamma`, `brightness` (the cap) and `max_milliamps` come from the layout unless given.
    Corrections, in order: gamma; brightness (a linear scale of light, so after gamma);
    current limit (every pixel scaled by the same factor, so colours keep their hue).
    """

    def __init__(self, layout: Layout, sink: PixelSink, *, brightness: float | None = None,
                 max_milliamps: float | None = None, gamma: float | None = None):
        if sink.count != layout.led_count:
            raise HardwareError(f"strip has {sink.count} pixels, layout {layout.name} says {layout.led_count}")
        self.layout = layout
        self.sink = sink
        self.count = layout.led_count
        self.brightness_cap = layout.leds.brightness if brightness is None else brightness
        self._brightness = self.brightness_cap
        self.max_milliamps = layout.leds.max_milliamps if max_milliamps is None else max_milliamps
        self._gamma = gamma_table(layout.leds.gamma if gamma is None else gamma)
        self._leds_of_site = layout.leds_of_site
        self._named = layout.named_leds
        self.shown: tuple[Colour, ...] | None = None  # the last corrected frame sent to the sink
        self.limited = False  # whether the current limit scaled the last frame down

    @property
    def brightness(self) -> float:
        return self._brightness

    @brightness.setter
    def brightness(self, value: float) -> None:
        """Dim (e.g. at night); never brighter than the cap."""
        self._brightness = max(0.0, min(float(value), self.brightness_cap))

    def indexes(self, key: Hashable) -> tuple[int, ...]:
        """The LEDs a frame key addresses: an index, a site, or a named LED group."""
        if isinstance(key, int) and not isinstance(key, bool):
            if not 0 <= key < self.count:
                raise KeyError(f"LED index {key} is past the strip's end ({self.count} pixels)")
            return (key,)
        if key in self._leds_of_site:
            return self._leds_of_site[key]
        if key in self._named:
            return self._named[key]
        if key in self.layout.sites:
            return ()  # a site with no LED beside it: nothing to light
        raise KeyError(f"{key!r} is no LED index, site or named LED of layout {self.layout.name}")

    def raw_frame(self, frame: Mapping[Hashable, Colour]) -> list[Colour]:
        """Strip order colours, before correction; pixels not named are off."""
        pixels = [BLACK] * self.count
        for key, colour in frame.items():
            colour = _check_colour(key, colour)
            for i in self.indexes(key):
                pixels[i] = colour
        return pixels

    def correct(self, pixels: Sequence[Colour]) -> tuple[Colour, ...]:
        g = self._gamma
        scale = self._brightness
        out = [(round(g[r] * scale), round(g[gg] * scale), round(g[b] * scale)) for r, gg, b in pixels]
        draw = estimate_milliamps(out)
        self.limited = draw > self.max_milliamps
        if self.limited:
            # Floor, not round: rounding up could land just above the budget again.
            factor = self.max_milliamps / draw
            out = [(int(r * factor), int(gg * factor), int(b * factor)) for r, gg, b in out]
        return tuple(out)

    def show(self, frame: Mapping[Hashable, Colour]) -> bool:
        """Show `frame` ({site|index|name: (r, g, b)}). Returns whether the strip was written."""
        corrected = self.correct(self.raw_frame(frame))
        if corrected == self.shown:
            return False
        self.sink.show(corrected)
        self.shown = corrected
        return True

    def clear(self) -> bool:
        return self.show({})

    def close(self) -> None:
        self.sink.close()


class _PixelBufStrip(PixelSink):
    """A sink that writes whole frames into a PixelBuf (NeoPixel is one) and shows them."""

    _buffer: Any

    def show(self, frame: Sequence[Colour]) -> None:
        if self._closed:
            raise HardwareError("strip is closed")
        if len(frame) != self.count:
            raise ValueError(f"frame has {len(frame)} pixels, strip has {self.count}")
        self._buffer[:] = list(frame)
        self._buffer.show()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._release()

    def _release(self) -> None:
        # Like NeoPixel.deinit: blank the strip once.
        self._buffer.fill(0)
        self._buffer.show()


class RecordingStrip(_PixelBufStrip):
    """A strip on the real `adafruit_pixelbuf.PixelBuf` that records the frames it shows.

    `wire` holds the bytes each show sent (in the strip's pixel order, after PixelBuf's own
    brightness, as a NeoPixel would send them); `frames` holds them decoded back to (r, g, b)
    per pixel: what each LED actually lights; `last` is the latest of those. Both hold the
    last `keep` frames only (a simulated board runs for days, blinking); `shows` counts every
    frame ever shown. Closing blanks the strip (one more, all-dark frame), as
    `NeoPixel.deinit` does.
    """

    def __init__(self, count: int, pixel_order: str = "GRB", brightness: float = 1.0,
                 keep: int = 256):
        import adafruit_pixelbuf

        record = self._record

        class _Buffer(adafruit_pixelbuf.PixelBuf):
            def _transmit(self, buffer: bytearray) -> None:
                record(bytes(buffer))

        self.count = count
        self.pixel_order = pixel_order
        # Only the bytes are kept (3 a pixel); `frames` decodes them when asked, since a frame
        # of (r, g, b) tuples costs ~20 times the memory and only tests look at it.
        self.wire: deque[bytes] = deque(maxlen=keep)
        self.shows = 0
        self._buffer = _Buffer(count, byteorder=pixel_order, brightness=brightness, auto_write=False)
        self._closed = False

    def _record(self, data: bytes) -> None:
        self.shows += 1
        self.wire.append(data)

    def _decode(self, data: bytes) -> tuple[Colour, ...]:
        bpp = len(self.pixel_order)
        r, g, b = (self.pixel_order.index(c) for c in "RGB")
        return tuple((data[i + r], data[i + g], data[i + b]) for i in range(0, bpp * self.count, bpp))

    @property
    def frames(self) -> list[tuple[Colour, ...]]:
        """The kept frames, oldest first, as (r, g, b) per pixel."""
        return [self._decode(data) for data in self.wire]

    @property
    def last(self) -> tuple[Colour, ...] | None:
        return self._decode(self.wire[-1]) if self.wire else None


class NeoPixelStrip(_PixelBufStrip):
    """A WS2812 strip through adafruit-circuitpython-neopixel (and Blinka), on a real Pi.

    `pin` is a BCM GPIO number (board.D18 for 18) or the name of a `board` attribute.
    Brightness is left at 1.0 in the driver: `Leds` applies the cap itself so that its
    current estimate sees the values actually sent.
    """

    def __init__(self, pin: int | str, count: int, pixel_order: str = "GRB", brightness: float = 1.0):
        try:
            import board
            import neopixel
        except (ImportError, NotImplementedError, RuntimeError) as exc:
            raise HardwareError(f"cannot load the NeoPixel driver (is this a Pi with adafruit-blinka?): {exc}") from exc
        name = f"D{pin}" if isinstance(pin, int) else pin
        board_pin = getattr(board, name, None)
        if board_pin is None:
            raise HardwareError(f"this board has no pin {name} for the LED strip")
        self.count = count
        try:
            self._buffer = neopixel.NeoPixel(board_pin, count, brightness=brightness, auto_write=False,
                                             pixel_order=pixel_order)
        except (RuntimeError, ValueError, OSError) as exc:
            raise HardwareError(f"cannot open the LED strip on {name}: {exc}") from exc
        self._closed = False

    def _release(self) -> None:
        self._buffer.deinit()  # blanks the strip and releases the pin


#: The MOSI pin of each SPI bus on the Pi's header, and the bus: a strip whose data line is on
#: one of these is driven through that bus. SPI1 needs `dtoverlay=spi1-1cs` in config.txt.
SPI_MOSI_BUS = {10: 0, 20: 1}
#: Blinka's names of each bus's clock and MOSI pins (every board module has SCK; a Pi also SCLK).
_SPI_PINS = {0: (("SCK", "SCLK"), "MOSI"), 1: (("SCK_1", "SCLK_1"), "MOSI_1")}


class NeoPixelSpiStrip(_PixelBufStrip):
    """A WS2812 strip on an SPI bus's MOSI pin, through adafruit-circuitpython-neopixel-spi.

    Each colour bit goes out as an SPI byte at 6.4 MHz, so the kernel's SPI driver does the
    timing: no root, no PWM or DMA channel (no clash with audio), on every Pi. The bus's
    spidev node (/dev/spidev0.0, /dev/spidev1.0) must exist: `raspi-config nonint do_spi 0`.
    """

    def __init__(self, bus: int, count: int, pixel_order: str = "GRB", brightness: float = 1.0):
        try:
            import board
            import busio
            import neopixel_spi
        except (ImportError, NotImplementedError, RuntimeError) as exc:
            raise HardwareError(f"cannot load the SPI NeoPixel driver (is this a Pi with "
                                f"adafruit-circuitpython-neopixel-spi?): {exc}") from exc
        clocks, mosi_name = _SPI_PINS[bus]
        clock = next((getattr(board, c) for c in clocks if hasattr(board, c)), None)
        mosi = getattr(board, mosi_name, None)
        if clock is None or mosi is None:
            raise HardwareError(f"this board has no SPI{bus} for the LED strip")
        self.count = count
        try:
            self._spi = busio.SPI(clock, MOSI=mosi)
            self._buffer = neopixel_spi.NeoPixel_SPI(self._spi, count, brightness=brightness,
                                                     auto_write=False, pixel_order=pixel_order)
        except (RuntimeError, ValueError, OSError) as exc:
            raise HardwareError(f"cannot open SPI{bus} for the LED strip ({exc}); is SPI on? "
                                "(sudo raspi-config nonint do_spi 0" +
                                (", and dtoverlay=spi1-1cs in /boot/firmware/config.txt" if bus else "")
                                + ")") from exc
        self._closed = False

    def _release(self) -> None:
        self._buffer.deinit()  # blanks the strip
        self._spi.deinit()


def open_strip(pin: int, count: int, pixel_order: str = "GRB") -> _PixelBufStrip:
    """The real strip for a layout's `[leds] pin`: SPI where the pin is a bus's MOSI."""
    if pin in SPI_MOSI_BUS:
        return NeoPixelSpiStrip(SPI_MOSI_BUS[pin], count, pixel_order)
    return NeoPixelStrip(pin, count, pixel_order)

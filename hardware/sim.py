"""The simulated board: gpiozero's `MockFactory` pins with models of the wiring behind them.

`SimulatedBoard` builds the *same* sources a real board gets (`hardware.sensors.open_sensors`)
on mock pins, and models what is behind those pins:

- direct pins: placing a piece drives the pin to its active level;
- a diode matrix (`MatrixModel`): the row pins are outputs the scanner drives; each column
  reads low when some row driven low reaches it through a closed switch and its diode;
- MCP3008 ADCs (`MockMCP3008`): a mock SPI slave that answers gpiozero's bit-banged SPI with
  a level per channel; placing a piece sets the level in the middle of its kind's band.

LEDs go to a `RecordingStrip`; named buttons are gpiozero `Button`s on mock pins.

Threads: the scan thread drives the row pins and reads the ADCs while the hands (the terminal,
the page, a test) place and lift pieces on another thread. Each model keeps what both touch
(the closed switches, the ADC levels) under its own lock.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from hardware.base import HardwareError
from hardware.layout import ADC_CHANNELS, SPI_CLOCK, SPI_MISO, SPI_MOSI, Layout
from hardware.leds import Leds, RecordingStrip
from hardware.sensors import open_sensors

#: The mock Pi is a Pi Zero 2 W, the smallest board treeboard supports.
MOCK_REVISION = "902120"

#: State changes each mock pin remembers. gpiozero's MockPin keeps every one (for tests'
#: assert_states), and the matrix scan and the ADC polling toggle pins hundreds of times a
#: second: unbounded, a simulated board grew by ~0.25 to 8 MiB/s.
PIN_HISTORY = 64


def _mock_classes():
    """The model classes, defined on first use so that importing this module needs no gpiozero."""
    global MockMCP3008, MatrixRowPin, MatrixColumnPin, TwinFactory
    if "MockMCP3008" in globals():
        return
    from collections import deque

    from gpiozero.pins.mock import MockFactory, MockPin, MockSPIDevice, MockSPIInterfaceShared
    from gpiozero.pins.spi import SPISoftwareBus

    # gpiozero shares SPI interfaces and buses by pin numbers alone, across every pin factory,
    # so a second simulated board would read the first board's ADCs. On a Pi there is one
    # factory and this changes nothing; here each board's factory gets its own.
    SPISoftwareBus._shared_key = classmethod(
        lambda cls, clock_pin, mosi_pin, miso_pin, *, pin_factory=None:
        (clock_pin, mosi_pin, miso_pin, pin_factory))
    MockSPIInterfaceShared._shared_key = classmethod(
        lambda cls, clock_pin, mosi_pin, miso_pin, select_pin, pin_factory:
        (clock_pin, select_pin, pin_factory))

    bounded: dict[type, type] = {}

    def bounded_class(cls: type) -> type:
        """`cls` with its state history kept to the last PIN_HISTORY changes."""
        if cls not in bounded:
            def clear_states(self):
                cls.clear_states(self)
                self.states = deque(self.states, maxlen=PIN_HISTORY)

            bounded[cls] = type(cls.__name__, (cls,), {"clear_states": clear_states})
        return bounded[cls]

    class _TwinFactory(MockFactory):
        """gpiozero's MockFactory whose pins (of whatever mock class asked for: plain, SPI
        clock and select, the matrix's) keep a bounded history."""

        def pin(self, name, pin_class=None, **kwargs):
            return super().pin(name, pin_class=bounded_class(pin_class or self.pin_class), **kwargs)

    class _MockMCP3008(MockSPIDevice):
        """The slave side of an MCP3008 on gpiozero's mock SPI.

        The master sends a start bit, then single/differential and three channel bits; the chip
        answers with a null bit and ten data bits, MSB first (datasheet figure 6-1).
        """

        def __init__(self, select_pin: int, *, pin_factory):
            super().__init__(SPI_CLOCK, SPI_MOSI, SPI_MISO, select_pin, pin_factory=pin_factory)
            # The hands set these while the scan thread reads them: both under `lock`.
            self.lock = threading.Lock()
            self.levels = [0.0] * ADC_CHANNELS  # fraction of the reference voltage per channel
            self.raw: list[int | None] = [None] * ADC_CHANNELS  # an exact reading, if set

        def set_channel(self, channel: int, level: float | None, raw: int | None) -> None:
            """Set one channel's reading: a `level` (None: keep it) and an exact `raw` or None."""
            with self.lock:
                self.raw[channel] = raw
                if level is not None:
                    self.levels[channel] = level

        def on_start(self):
            super().on_start()
            self._started = False

        def on_bit(self):
            if not self._started:
                if self.rx_buf[-1]:  # the start bit
                    self._started = True
                    self.rx_buf = []
                return
            if len(self.rx_buf) == 4:  # single/diff + 3 channel bits received
                channel = (self.rx_buf[1] << 2) | (self.rx_buf[2] << 1) | self.rx_buf[3]
                with self.lock:
                    raw, level = self.raw[channel], self.levels[channel]
                if raw is None:
                    raw = round(min(1.0, max(0.0, level)) * 1023)
                # One more sampling clock, the null bit, then ten data bits.
                self.tx_word(raw, 12)

    class _MatrixRowPin(MockPin):
        """A row line: when the scanner drives it, the columns it reaches follow."""

        def __init__(self, factory, info, model=None, row=0):
            super().__init__(factory, info)
            self.model, self.row = model, row

        def _change_state(self, value):
            changed = super()._change_state(value)
            if changed and self.model is not None and self._function == "output":
                self.model.row_changed(self.row)
            return changed

    class _MatrixColumnPin(MockPin):
        """A column line: its pull-up sets the idle level; the model pulls it low."""

        def __init__(self, factory, info, model=None, col=0):
            super().__init__(factory, info)
            self.model, self.col = model, col

        def _set_pull(self, value):
            super()._set_pull(value)
            if self.model is not None:
                self.model.update_column(self.col)

    MockMCP3008, MatrixRowPin, MatrixColumnPin = _MockMCP3008, _MatrixRowPin, _MatrixColumnPin
    TwinFactory = _TwinFactory


class MatrixModel:
    """The electrics of a switch matrix: which columns a low row pulls low.

    With `diodes=True` (how a board must be built) a column is low only when a row driven
    low has a closed switch on that column. With `diodes=False` current also flows backwards
    through other closed switches, so the model shows the ghosts a diode-less matrix has: a
    test that the scanner is ghost-free can fail.

    The scan thread changes rows (`row_changed`) while the hands close switches
    (`set_switch`): `closed` and the column levels are read and written only under `_lock`.
    Re-entrant, because a column pin's pull-up calls back into `update_column`.
    """

    def __init__(self, factory, rows: tuple[int, ...], cols: tuple[int, ...], diodes: bool = True):
        _mock_classes()
        self.diodes = diodes
        self._lock = threading.RLock()
        self.closed: set[tuple[int, int]] = set()
        #: Crossings whose diode was soldered the wrong way round: it never lets its switch
        #: pull the column low (a fault a maker makes; `SimulatedBoard.faults`).
        self.backwards: set[tuple[int, int]] = set()
        self.row_pins = [factory.pin(p, pin_class=MatrixRowPin, model=self, row=r) for r, p in enumerate(rows)]
        self.col_pins = [factory.pin(p, pin_class=MatrixColumnPin, model=self, col=c) for c, p in enumerate(cols)]

    def _row_low(self, r: int) -> bool:
        pin = self.row_pins[r]
        return pin._function == "output" and not pin._state

    def _reaches(self, c: int) -> bool:
        """Whether column c is pulled low."""
        if self.diodes:
            return any(self._row_low(r) for r, cc in self.closed
                       if cc == c and (r, cc) not in self.backwards)
        # No diodes: walk the switch graph from the column, both ways through every switch.
        seen_cols, seen_rows, todo = {c}, set(), [c]
        while todo:
            col = todo.pop()
            for r, cc in self.closed:
                if cc == col and r not in seen_rows:
                    if self._row_low(r):
                        return True
                    seen_rows.add(r)
                    for r2, c2 in self.closed:
                        if r2 == r and c2 not in seen_cols:
                            seen_cols.add(c2)
                            todo.append(c2)
        return False

    def update_column(self, c: int) -> None:
        with self._lock:
            pin = self.col_pins[c]
            if pin._function != "input":
                return
            if self._reaches(c):
                pin.drive_low()
            elif pin._pull == "up":
                pin.drive_high()
            elif pin._pull == "down":
                pin.drive_low()

    def row_changed(self, r: int) -> None:
        with self._lock:
            cols = range(len(self.col_pins)) if not self.diodes else {c for rr, c in self.closed if rr == r}
            for c in cols:
                self.update_column(c)

    def set_switch(self, r: int, c: int, closed: bool) -> None:
        with self._lock:
            (self.closed.add if closed else self.closed.discard)((r, c))
            for col in range(len(self.col_pins)):
                self.update_column(col)


@dataclass
class Faults:
    """Wiring faults of a board as a maker may build it, for the tests of `treeboard selftest`:
    channels whose switch never closes (`dead`: a dead reed or a broken joint), two channels'
    wires swapped (`crossed`: a piece over one closes the other; give both ways), and matrix
    crossings whose diode is in backwards (`backwards`, (row, col): the switch closes but never
    pulls its column low). Add to `SimulatedBoard.faults`' own sets before placing pieces."""

    dead: set = field(default_factory=set)
    crossed: dict = field(default_factory=dict)
    backwards: set = field(default_factory=set)


class SimulatedBoard:
    """A board on mock pins: the real sources and LED frame path, with hands to move pieces.

    `autoscan=False` (tests, traces) keeps the matrix / ADC sources from starting a scan
    thread; call `scan_once()` to scan. `diodes=False` builds the matrix without diodes
    (to show what ghosting looks like). Several boards may exist at once: each owns its own
    `MockFactory`, passed to every device, and gpiozero's global default is left alone.
    """

    def __init__(self, layout: Layout, clock: Callable[[], float] = time.monotonic, *,
                 autoscan: bool = True, diodes: bool = True):
        from gpiozero import Button

        if layout.bridge is not None:
            raise HardwareError(f"{layout.name}: a bridge board is simulated by firmware_bridge's simulated firmware")
        _mock_classes()
        self.layout = layout
        self.factory = TwinFactory(revision=MOCK_REVISION)
        self.matrix = None
        self.adcs: list = []
        #: Add to its sets (and dict) to break the board as a maker might (`Faults`).
        self.faults = Faults()
        # The models must own their pins before gpiozero's devices ask the factory for them.
        if layout.matrix is not None:
            self.matrix = MatrixModel(self.factory, layout.matrix.rows, layout.matrix.cols, diodes=diodes)
            self.matrix.backwards = self.faults.backwards   # one set: the faults' own
        if layout.adc is not None:
            self.adcs = [MockMCP3008(select, pin_factory=self.factory) for select in layout.adc.selects]
            empty = layout.adc.level_of(None)
            for adc in self.adcs:
                adc.levels = [empty] * ADC_CHANNELS
        # The settle wait is for real wires; mock pins settle at once and tests never sleep.
        self.source = open_sensors(layout, pin_factory=self.factory, clock=clock, autoscan=autoscan,
                                   sleep=lambda s: None)
        # The board starts empty: drive every direct pin to its idle level (a floating input or
        # a normally-closed switch would otherwise start wherever its pull leaves it).
        if layout.pins is not None:
            for gpio in layout.pins.channels:
                self._set(gpio, False, None)
        self.strip = RecordingStrip(layout.led_count, layout.leds.pixel_order)
        self.leds = Leds(layout, self.strip)
        self.buttons = {name: Button(pin, pin_factory=self.factory) for name, pin in layout.buttons.items()}

    # -- hands

    def _channels(self, site: str):
        channels = self.layout.channels_of_site.get(site)
        if not channels:
            if site in self.layout.sites:
                raise ValueError(f"site {site!r} has no sensor in layout {self.layout.name}")
            raise ValueError(f"{site!r} is no site of layout {self.layout.name}")
        return channels

    def place(self, site: str, kind: str | None = None) -> None:
        """Put a piece on `site` (a classifying sensor needs its `kind`)."""
        for channel in self._channels(site):
            self._set(channel, True, kind)

    def lift(self, site: str) -> None:
        """Take the piece off `site`."""
        for channel in self._channels(site):
            self._set(channel, False, None)

    def set_level(self, site: str, level: float | None = None, *, raw: int | None = None) -> None:
        """Set an ADC site's reading directly: a fraction 0..1, or an exact 10-bit `raw` value."""
        for channel in self._channels(site):
            if self.layout.adc is None or channel not in self.layout.adc.channels:
                raise ValueError(f"site {site!r} is not on an ADC")
            chip, ch = channel
            self.adcs[chip].set_channel(ch, level, raw)

    def _set(self, channel, present: bool, kind: str | None) -> None:
        layout = self.layout
        channel = self.faults.crossed.get(channel, channel)
        if channel in self.faults.dead:
            return
        if layout.pins is not None and channel in layout.pins.channels:
            pin = self.factory.pin(channel)
            (pin.drive_low if present == layout.pins.active_low else pin.drive_high)()
        elif layout.matrix is not None and channel in layout.matrix.channels:
            self.matrix.set_switch(*channel, present)
        else:  # ADC
            if present and kind is None:
                raise ValueError(f"an ADC sensor tells piece kinds; say which: one of {[k for k in layout.adc.kinds if k]}")
            chip, ch = channel
            self.adcs[chip].set_channel(ch, layout.adc.level_of(kind if present else None), None)

    def press(self, name: str) -> None:
        self._button_pin(name).drive_low()

    def release(self, name: str) -> None:
        self._button_pin(name).drive_high()

    def _button_pin(self, name: str):
        if name not in self.buttons:
            raise KeyError(f"no button {name!r}; layout {self.layout.name} has {sorted(self.buttons) or 'none'}")
        return self.buttons[name].pin

    def scan_once(self) -> None:
        """Scan the matrix and poll the ADCs once (pins report by themselves)."""
        self.source.scan_once()

    def close(self) -> None:
        self.source.close()
        for button in self.buttons.values():
            button.close()
        for adc in self.adcs:
            adc.close()
        self.strip.close()

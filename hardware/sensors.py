"""Sensor sources on gpiozero: direct pins, a scanned diode matrix, MCP3008 hall sensors.

Each source takes a `pin_factory` (the real one on a Pi, a `MockFactory` in the simulator and
the tests: the same code path either way) and an injectable `clock` for event timestamps.
gpiozero is imported inside the constructors, so importing this module needs no GPIO.

Thread safety: on a Pi, gpiozero calls back on its own threads and the matrix / ADC sources
poll on a thread of their own. Every source keeps its state under one lock and calls the
consumer's callback under it, so events come out in the order the state changed and
`snapshot()` always agrees with the events delivered so far. The callback must not block
(the daemon's hands the event to its loop with `call_soon_threadsafe`).
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Hashable

from hardware.base import (DIED, PRESENT, SILENT, EventCallback, HardwareError, Problem, SensorEvent,
                           SensorSource)
from hardware.layout import SPI_CLOCK, SPI_MISO, SPI_MOSI, AdcSensors, Layout, MatrixSensors, PinSensors

Clock = Callable[[], float]

#: A source whose readings stop for longer than this is reported unhealthy (`health()`).
STALL_S = 1.0


class _ChannelState(SensorSource):
    """The bookkeeping every source shares: current values, the callback, the lock."""

    def __init__(self, clock: Clock):
        self._clock = clock
        self._lock = threading.RLock()  # re-entrant: a callback may call snapshot()
        self._values: dict[Hashable, str | None] = {}
        self._callback: EventCallback | None = None
        self._closed = False

    def _set(self, channel: Hashable, value: str | None) -> None:
        """Record a reading; report it if it is a change and the source has started."""
        with self._lock:
            if self._closed or self._values.get(channel) == value:
                return
            self._values[channel] = value
            if self._callback is not None:
                self._callback(SensorEvent(channel, value, self._clock()))

    def start(self, callback: EventCallback) -> None:
        with self._lock:
            if self._closed:
                raise HardwareError(f"{type(self).__name__} is closed")
            self._callback = callback

    def snapshot(self) -> dict[Hashable, str | None]:
        with self._lock:
            return dict(self._values)


class PinSource(_ChannelState):
    """One gpiozero `DigitalInputDevice` per sensor; gpiozero's edge callbacks drive it."""

    def __init__(self, config: PinSensors, *, pin_factory=None, clock: Clock = time.monotonic):
        from gpiozero import DigitalInputDevice

        super().__init__(clock)
        # gpiozero ties active_state to the pull: a pulled-up input is active when low. A wiring
        # that disagrees (pulled up, active high: a normally-closed reed) is read inverted here.
        if config.pull == "none":
            pull_up, active_state, self._invert = None, not config.active_low, False
        else:
            pull_up, active_state = config.pull == "up", None
            self._invert = config.active_low != pull_up
        self._devices = {}
        self.monotonic: Clock = time.monotonic  # the watchdog's clock (health); tests replace it
        self._missed: dict[int, float] = {}  # gpio -> when health() first saw it disagree
        try:
            for gpio in config.channels:
                device = DigitalInputDevice(gpio, pull_up=pull_up, active_state=active_state, pin_factory=pin_factory)
                self._devices[gpio] = device
                self._values[gpio] = self._read(device)
                device.when_activated = self._on_edge(gpio)
                device.when_deactivated = self._on_edge(gpio)
        except Exception:
            self.close()
            raise

    def _read(self, device) -> str | None:
        return PRESENT if device.is_active != self._invert else None

    def health(self) -> str | None:
        """A pin whose level disagrees with the last edge we heard, for over STALL_S: gpiozero's
        edge callbacks (its own thread on a Pi) have stopped reaching us."""
        if self._closed:
            return None
        now = self.monotonic()
        with self._lock:
            for gpio, device in self._devices.items():
                if device.closed:
                    return Problem(f"pin source: GPIO {gpio} was closed under it", DIED)
                if self._read(device) == self._values.get(gpio):
                    self._missed.pop(gpio, None)
                    continue
                since = self._missed.setdefault(gpio, now)
                if now - since > STALL_S:
                    return Problem(f"pin source: GPIO {gpio} changed {now - since:.1f} s ago and "
                                   "no edge came (gpiozero's edge callbacks stopped)", SILENT)
        return None

    def revive(self) -> None:
        """Edge callbacks that stopped reaching us: set them again and take each pin's level
        as it is now (a change missed meanwhile is reported)."""
        with self._lock:
            if self._closed:
                raise HardwareError("pin source is closed")
            closed = [gpio for gpio, device in self._devices.items() if device.closed]
            if closed:
                raise HardwareError(f"pin source: GPIO {closed[0]} was closed under it")
            for gpio, device in self._devices.items():
                device.when_activated = self._on_edge(gpio)
                device.when_deactivated = self._on_edge(gpio)
                self._set(gpio, self._read(device))
            self._missed.clear()

    def _on_edge(self, gpio: int):
        # gpiozero passes the device; read its value now rather than trusting which callback
        # fired, so a pair of fast edges can never leave the state inverted.
        return lambda device: self._set(gpio, self._read(device))

    def close(self) -> None:
        with self._lock:
            self._closed = True
        for device in self._devices.values():
            device.close()
        self._devices.clear()


class _PolledSource(_ChannelState):
    """A source read by polling (`scan_once`), on a thread at a fixed period once started.

    `autoscan=False` leaves the thread out: the caller then calls `scan_once()` itself, which
    is how tests and the simulator's trace mode scan deterministically.
    """

    def __init__(self, period_s: float, clock: Clock, autoscan: bool):
        super().__init__(clock)
        self.period_s = period_s
        self._autoscan = autoscan
        self._scan_lock = threading.Lock()  # one scan at a time, thread or caller
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._devices: list = []  # every gpiozero device, to close
        # The watchdog's view of the scan thread (health). Written by the scan thread, read by
        # the loop's: single attribute stores, each whole.
        self.monotonic: Clock = time.monotonic  # tests replace it
        self._last_scan = self.monotonic()
        self._died: BaseException | None = None

    def _read_all(self) -> dict[Hashable, str | None]:
        raise NotImplementedError

    def _open(self, open_devices: Callable[[], None]) -> None:
        """Create the devices (into self._devices), then take the first reading, events-free."""
        try:
            open_devices()
        except Exception:
            self.close()
            raise
        self._values.update(self._read_all())

    def scan_once(self) -> None:
        """Read every channel once and report what changed (what the thread does each period)."""
        with self._scan_lock:
            if self._closed:
                return
            readings = self._read_all()
        for channel, value in readings.items():
            self._set(channel, value)

    def start(self, callback: EventCallback) -> None:
        super().start(callback)
        if self._autoscan and self._thread is None:
            self._thread = threading.Thread(target=self._run, name=type(self).__name__, daemon=True)
            self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                started = time.monotonic()
                self.scan_once()
                self._last_scan = self.monotonic()
                # Event.wait: close() ends the wait at once. A scan that overran starts the next now.
                self._stop.wait(max(0.0, self.period_s - (time.monotonic() - started)))
        except BaseException as exc:
            self._died = exc  # for health(); the thread's excepthook still logs the traceback
            raise

    def revive(self) -> None:
        """A scan thread that died: a new one (one that is only slow is left to finish)."""
        if self._closed:
            raise HardwareError(f"{type(self).__name__} is closed")
        thread = self._thread
        if not self._autoscan or (thread is not None and thread.is_alive()):
            return
        self._died = None
        self._last_scan = self.monotonic()
        self._thread = threading.Thread(target=self._run, name=type(self).__name__, daemon=True)
        self._thread.start()

    def health(self) -> str | None:
        """The scan thread died, or has not finished a scan for over STALL_S."""
        thread = self._thread
        if self._closed or thread is None:
            return None  # not started, or scanned by the caller (autoscan=False)
        name = f"{type(self).__name__} ({self._what()})"
        if not thread.is_alive():
            why = f": {type(self._died).__name__}: {self._died}" if self._died is not None else ""
            return Problem(f"{name}: its scan thread died{why}", DIED)
        quiet = self.monotonic() - self._last_scan
        if quiet > STALL_S:
            return Problem(f"{name}: no scan for {quiet:.1f} s", SILENT)
        return None

    def _what(self) -> str:
        raise NotImplementedError

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._thread = None
        for device in self._devices:
            device.close()
        self._devices = []


class MatrixSource(_PolledSource):
    """A diode matrix scanned on gpiozero devices (gpiozero has no matrix class).

    Rows are `DigitalOutputDevice`s, idle high; columns are `DigitalInputDevice`s pulled up.
    To scan row r, drive it low, wait `settle_s`, read every column: a closed switch in (r, c)
    pulls column c low through its diode. The diode in series with each switch stops current
    flowing back through another closed switch, so any number of pieces may be down at once
    without ghosts (a phantom at the fourth corner of a rectangle of three closed switches).
    """

    def __init__(self, config: MatrixSensors, *, pin_factory=None, clock: Clock = time.monotonic,
                 autoscan: bool = True, sleep: Callable[[float], None] = time.sleep):
        from gpiozero import DigitalInputDevice, DigitalOutputDevice

        super().__init__(config.scan_period_s, clock, autoscan)
        self.config = config
        self._sleep = sleep
        self._rows: list = []
        self._cols: list = []

        def open_devices():
            # active_high=False: "on" drives the row low, the level that selects it.
            for p in config.rows:
                self._rows.append(DigitalOutputDevice(p, active_high=False, initial_value=False, pin_factory=pin_factory))
                self._devices.append(self._rows[-1])
            for p in config.cols:
                self._cols.append(DigitalInputDevice(p, pull_up=True, pin_factory=pin_factory))
                self._devices.append(self._cols[-1])

        self._open(open_devices)

    def _what(self) -> str:
        return f"rows on GPIO {', '.join(map(str, self.config.rows))}"

    def _read_all(self) -> dict[Hashable, str | None]:
        readings: dict[Hashable, str | None] = {}
        channels = self.config.channels
        for r, row in enumerate(self._rows):
            row.on()
            try:
                if self.config.settle_s:
                    self._sleep(self.config.settle_s)
                for c, col in enumerate(self._cols):
                    if (r, c) in channels:
                        readings[(r, c)] = PRESENT if col.is_active else None
            finally:
                row.off()
        return readings


class AdcSource(_PolledSource):
    """Analog hall sensors on MCP3008 chips (gpiozero's `MCP3008`), classified by thresholds.

    Each reading is a fraction of the reference voltage; the layout's bands turn it into a
    piece kind (polarity: dark or light; field strength: leaf or branch) or None.
    """

    def __init__(self, config: AdcSensors, *, pin_factory=None, clock: Clock = time.monotonic,
                 autoscan: bool = True):
        from gpiozero import MCP3008

        super().__init__(config.poll_period_s, clock, autoscan)
        self.config = config
        self._adcs: dict[tuple[int, int], object] = {}

        def open_devices():
            with _default_factory(pin_factory):
                for chip, channel in config.channels:
                    self._adcs[(chip, channel)] = MCP3008(
                        channel=channel, clock_pin=SPI_CLOCK, mosi_pin=SPI_MOSI, miso_pin=SPI_MISO,
                        select_pin=config.selects[chip], pin_factory=pin_factory)
                    self._devices.append(self._adcs[(chip, channel)])

        self._open(open_devices)

    def levels(self) -> dict[tuple[int, int], float]:
        """The raw readings (0..1), for calibrating thresholds."""
        with self._scan_lock:
            return {ch: dev.value for ch, dev in self._adcs.items()}

    def _what(self) -> str:
        return f"MCP3008 selects on GPIO {', '.join(map(str, self.config.selects))}"

    def _read_all(self) -> dict[Hashable, str | None]:
        return {ch: self.config.classify(dev.value) for ch, dev in self._adcs.items()}


class _default_factory:
    """Make `factory` gpiozero's default for the duration, if there is no default yet.

    gpiozero 2.0.1's software SPI bus (`SPISoftwareBus`) calls `Device.__init__` without
    passing on the pin factory it was given, so on a machine with no GPIO it would go looking
    for a default factory and fail. Lending ours for the construction keeps the explicit
    factory in charge; an existing default (a Pi's) is left alone.
    """

    def __init__(self, factory):
        self.factory = factory
        self.lent = False

    def __enter__(self):
        from gpiozero import Device

        if self.factory is not None and Device.pin_factory is None:
            Device.pin_factory = self.factory
            self.lent = True

    def __exit__(self, *exc):
        from gpiozero import Device

        if self.lent and Device.pin_factory is self.factory:
            Device.pin_factory = None


class CombinedSource(SensorSource):
    """Several sources as one (e.g. holes on direct pins, grooves on a matrix)."""

    def __init__(self, sources: list[SensorSource]):
        self.sources = sources

    def start(self, callback: EventCallback) -> None:
        for source in self.sources:
            source.start(callback)

    def snapshot(self) -> dict[Hashable, str | None]:
        out: dict[Hashable, str | None] = {}
        for source in self.sources:
            out.update(source.snapshot())
        return out

    def health(self) -> str | None:
        for source in self.sources:
            problem = source.health()
            if problem is not None:
                return problem
        return None

    def revive(self) -> None:
        for source in self.sources:
            if source.health() is not None:
                source.revive()

    def scan_once(self) -> None:
        """Scan every polled part once (pins need no scan: their edges call back)."""
        for source in self.sources:
            if isinstance(source, _PolledSource):
                source.scan_once()

    def close(self) -> None:
        for source in self.sources:
            source.close()


def open_sensors(layout: Layout, *, pin_factory=None, clock: Clock = time.monotonic, autoscan: bool = True,
                 sleep: Callable[[float], None] = time.sleep) -> CombinedSource:
    """The sources a layout's GPIO sensors need, as one source. (A bridge is firmware_bridge's.)"""
    if layout.bridge is not None:
        raise HardwareError(f"{layout.path}: sensors are on a microcontroller bridge; open them with firmware_bridge")
    sources: list[SensorSource] = []
    try:
        if layout.pins is not None:
            sources.append(PinSource(layout.pins, pin_factory=pin_factory, clock=clock))
        if layout.matrix is not None:
            sources.append(MatrixSource(layout.matrix, pin_factory=pin_factory, clock=clock, autoscan=autoscan, sleep=sleep))
        if layout.adc is not None:
            sources.append(AdcSource(layout.adc, pin_factory=pin_factory, clock=clock, autoscan=autoscan))
    except Exception:
        for source in sources:
            source.close()
        raise
    return CombinedSource(sources)

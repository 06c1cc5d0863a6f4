"""A simulated bridge firmware: the real firmware logic (firmware/controller.py) on a real
pseudo-terminal, so the host opens it with pyserial exactly as it opens the USB device.

    fw = start_simulated_firmware(rows=5, cols=8, leds=40)   # matrix="shift-register": 74HC595/165
    source, sink = open_bridge(fw.port)      # fw.port: a stable symlink, like /dev/treeboard-bridge
    fw.place(12); fw.lift(12)                # a magnet on / off channel 12
    fw.leds()                                # what the strip shows now
    fw.restart()                             # the firmware reboots (same line)
    fw.unplug(); fw.replug()                 # the USB cable out and back in: a new tty, a fresh boot
    fw.stop()

The board itself (which sensors see a magnet) is physical, so it survives restarts and
unplugging; the LEDs go dark, as a bus-powered strip would. `treeboard sim --bridge` and the
tests use this; the firmware runs in one thread of the calling process.
"""

from __future__ import annotations

import contextlib

import logging
import os
import random
import select
import tempfile
import threading
import time
import tty
from collections.abc import Iterable
from pathlib import Path

from firmware_bridge.faults import LineFaults
from firmware_bridge.flash import firmware_digests
from firmware_bridge.firmware.controller import Controller
from firmware_bridge.firmware.shiftreg import ShiftRegisterMatrix
from firmware_bridge.shiftchain import SimulatedShiftChain

#: How the simulated firmware reads its matrix: GPIO rows and columns (firmware/main.py's
#: Rp2040.scan), or a chain of 74HC595s and 74HC165s (firmware/shiftreg.py, over a simulated chain).
MATRICES = ("pins", "shift-register")

log = logging.getLogger(__name__)

#: What MicroPython prints on a soft reset before main.py runs: realistic garbage before HELLO.
BOOT_NOISE = b"MPY: soft reboot\r\n"


def pin_scan(board, rows: int, cols: int) -> list[int]:
    """A matrix on GPIO rows and columns (firmware/main.py's Rp2040.scan), read from
    `board[r * cols + c]`: one bit mask per row."""
    return [sum(1 << c for c in range(cols) if board[r * cols + c]) for r in range(rows)]


class Pty:
    """One plug-in of the cable: a pty pair whose slave end the host opens by name."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        # Raw at once: until pyserial configures it, a cooked tty would echo our own frames
        # back to us and mangle CR/LF.
        tty.setraw(self.slave)
        # A real USB CDC device drops what nobody reads instead of blocking the firmware.
        os.set_blocking(self.master, False)
        self.name = os.ttyname(self.slave)

    def close(self) -> None:
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class _Shim:
    """The controller's hardware shim on the host: the pty as the USB line, a bytearray board."""

    def __init__(self, sim: "SimulatedFirmware", pty: Pty) -> None:
        self.sim = sim
        self.pty = pty
        self.matrix = None
        if sim.matrix == "shift-register":
            self.matrix = ShiftRegisterMatrix(SimulatedShiftChain(sim.rows, sim.cols, sim._board),
                                              sim.rows, sim.cols)

    @staticmethod
    def ticks_ms() -> int:
        return int(time.monotonic() * 1000)

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b

    def read(self) -> bytes:
        try:
            data = os.read(self.pty.master, 65536)
        except (BlockingIOError, OSError):
            return b""
        faults = self.sim.faults_to_firmware
        return faults.apply(data) if faults else data

    def write(self, data: bytes) -> None:
        faults = self.sim.faults_to_host
        if faults:
            data = faults.apply(data)
        try:
            os.write(self.pty.master, data)
        except (BlockingIOError, OSError):
            pass  # nobody reading: dropped, as on USB

    def scan(self) -> list[int]:
        if self.matrix is not None:
            return self.matrix.scan()
        return pin_scan(self.sim._board, self.sim.rows, self.sim.cols)

    def show(self, rgb) -> None:
        self.sim._shown = shown = bytes(rgb)
        on_show = self.sim.on_show
        if on_show is not None:
            on_show(shown)


class SimulatedCells:
    """The physical side of a simulated microcontroller board: magnets over channels
    (row * cols + col) and the strip it lights. The three simulations (this module's firmware on
    a pty, the lockstep bridge, the firmware under real MicroPython) share it; each says what a
    change does in `_put` (its `_board`, `rows`, `cols` and `_shown` are its own)."""

    def place(self, channel: int) -> None:
        """A magnet (a rod, a peg, a counter) now sits over `channel`."""
        self._set(channel, 1)

    def lift(self, channel: int) -> None:
        self._set(channel, 0)

    def _set(self, channel: int, value: int) -> None:
        if not 0 <= channel < len(self._board):
            raise IndexError(f"channel {channel} is not on a {self.rows}x{self.cols} board")
        self._put(channel, value)

    def _put(self, channel: int, value: int) -> None:
        raise NotImplementedError

    def sensors(self) -> list[bool]:
        return [bool(v) for v in self._board]

    def leds(self) -> list[tuple[int, int, int]]:
        """What the strip shows now."""
        rgb = self._shown
        return [(rgb[i], rgb[i + 1], rgb[i + 2]) for i in range(0, len(rgb), 3)]

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class SimulatedFirmware(SimulatedCells):
    def __init__(self, rows: int, cols: int, leds: int, *, link_path: str | Path | None = None,
                 faults_to_host: LineFaults | None = None,
                 faults_to_firmware: LineFaults | None = None,
                 boot_noise: bytes = BOOT_NOISE, seed: int = 0, matrix: str = "pins",
                 pieces: Iterable[int] = (), **controller_options) -> None:
        """`pieces`: the channels with a magnet over them from the start (a real board keeps
        its pieces through a restart; so does this one, before its first scan)."""
        if matrix not in MATRICES:
            raise ValueError(f"matrix {matrix!r}: expected one of {', '.join(MATRICES)}")
        self.rows, self.cols, self.led_count = rows, cols, leds
        self.matrix = matrix
        #: Called with the strip's bytes whenever the firmware shows a frame (from its thread).
        self.on_show = None
        self.faults_to_host = faults_to_host
        self.faults_to_firmware = faults_to_firmware
        self.boot_noise = boot_noise
        # scan_ms, debounce_scans, heartbeat_ms, host_timeout_ms: see Controller. The timing
        # is main.py's (a scan every 2 ms, 4 equal scans to change) unless told otherwise, so
        # `treeboard sim --bridge` and the fault tests run the board's own debounce.
        self.controller_options = {"scan_ms": 2, "debounce_scans": 4, **controller_options}
        self._rng = random.Random(seed)
        self._board = bytearray(rows * cols)
        for channel in pieces:
            if not 0 <= channel < len(self._board):
                raise IndexError(f"channel {channel} is not on a {rows}x{cols} board")
            self._board[channel] = 1
        self._shown = bytes(leds * 3)
        self._lock = threading.RLock()
        self._tmpdir = None
        if link_path is None:
            self._tmpdir = tempfile.TemporaryDirectory(prefix="treeboard-sim-")
            link_path = Path(self._tmpdir.name) / "treeboard-bridge"
        #: The stable name the host opens, like udev's /dev/treeboard-bridge.
        self.port = str(link_path)
        self._pty: Pty | None = None
        self._fw: Controller | None = None
        self.boots = 0
        self._wake_r, self._wake_w = os.pipe()
        self._stopping = False
        self._plug_in()
        self._thread = threading.Thread(target=self._run, name="simulated-firmware", daemon=True)
        self._thread.start()

    # --- the physical board

    @contextlib.contextmanager
    def at_once(self):
        """Changes made inside land between two scans, as pieces put down together do: the
        scan waits for the block (a busy machine can otherwise scan between two lines)."""
        with self._lock:
            yield
        self._wake()

    def _put(self, channel: int, value: int) -> None:
        with self._lock:
            self._board[channel] = value
        self._wake()

    @property
    def tty(self) -> str | None:
        """The pty the stable port points at now (None while unplugged)."""
        pty = self._pty
        return pty.name if pty else None

    # --- faults of the whole device

    def restart(self) -> None:
        """The firmware reboots (a watchdog reset, a brown-out): same line, fresh state."""
        with self._lock:
            if self._pty is not None:
                self._boot()
        self._wake()

    def unplug(self) -> None:
        """The cable comes out: the tty disappears, the host's reads fail, the strip goes dark."""
        with self._lock:
            if self._pty is None:
                return
            try:
                os.unlink(self.port)
            except FileNotFoundError:
                pass
            self._pty.close()
            self._pty = None
            self._fw = None
            self._shown = bytes(self.led_count * 3)
        log.info("simulated firmware unplugged")
        self._wake()

    def replug(self) -> None:
        """The cable goes back in: a new tty behind the same stable name, and a fresh boot."""
        with self._lock:
            if self._pty is None:
                self._plug_in()
        log.info("simulated firmware plugged in at %s", self.tty)
        self._wake()

    def stop(self) -> None:
        if self._stopping:
            return
        self._stopping = True
        self._wake()
        self._thread.join(timeout=5)
        self.unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)
        if self._tmpdir is not None:
            self._tmpdir.cleanup()

    # --- inside

    def _plug_in(self) -> None:
        self._pty = Pty()
        # Point the stable name at the new tty in one step, as udev does.
        tmp = f"{self.port}.{os.getpid()}.tmp"
        os.symlink(self._pty.name, tmp)
        os.replace(tmp, self.port)
        self._boot()

    def _boot(self) -> None:
        shim = _Shim(self, self._pty)
        if self.boot_noise:
            shim.write(self.boot_noise)
        # (the simulated flash holds the host's own files: its INFO says so)
        self._fw = Controller(shim, self.rows, self.cols, self.led_count, self._rng.getrandbits(16),
                              digests=firmware_digests,
                              **self.controller_options)
        self._shown = bytes(self.led_count * 3)
        self._fw.boot()
        self.boots += 1

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def _run(self) -> None:
        while not self._stopping:
            with self._lock:
                fw = self._fw
                fd = self._pty.master if self._pty else None
                if fw is not None:
                    fw.poll()
            fds = [self._wake_r] + ([fd] if fd is not None else [])
            wait = self.controller_options["scan_ms"] / 1000 if fw is not None else 0.1
            try:
                ready, _, _ = select.select(fds, [], [], wait)
            except (OSError, ValueError):
                continue  # the pty was closed under us by unplug(): go round again
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)


def start_simulated_firmware(rows: int, cols: int, leds: int, **options) -> SimulatedFirmware:
    """Start a simulated firmware on a fresh pty; see SimulatedFirmware for the options."""
    return SimulatedFirmware(rows, cols, leds, **options)

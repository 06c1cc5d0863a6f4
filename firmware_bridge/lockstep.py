"""The bridge on simulated time, in the caller's thread: the firmware's own controller (its scan,
through the simulated 74HC595/165 chain on a shift-register board; its debounce, repeats,
heartbeats and LED buffer) and the host's own link (frame decoding, the two witnesses, LED
updates and their ACKs), joined by a line in memory instead of a pty, and stepped from one due
event to the next of a simulated clock. `treeboard trace` on a bridge layout runs on it, so a
trace exercises the firmware's debounce and the host's frame handling and still gives the same
output every time, as fast as the code runs.

    clock = SimClock()                                  # anything with a settable `now`, seconds
    bridge = LockstepBridge(20, 20, 400, clock, matrix="shift-register")
    bridge.source, bridge.sink                          # the host's BridgeSensorSource / PixelSink
    bridge.place(42); bridge.settle()                   # debounced, reported, vouched for
    bridge.run_until(clock.now + 0.25)                  # time passes: scans, heartbeats, repeats
    bridge.flush(); bridge.leds()                       # what the firmware's strip shows

Why not the simulated firmware on its pty (firmware_bridge/sim.py): that firmware runs on its
own thread on the real clock, and the host's link thread reads the pty on the real clock too,
so what happens between two trace lines would depend on the machine's load. Here the two ends
take turns: at each instant the firmware polls, the host takes what it sent and does what its
timers say, until neither has anything on the line; then the clock jumps to the earliest time
either end has something due (a scan while a cell is being debounced, a repeat, a heartbeat, an
ACK wait). The line itself takes no time; it loses nothing unless given seeded faults
(`faults_to_host`, `faults_to_firmware`: firmware_bridge/faults.py's LineFaults, applied to each
frame one end writes, as on the pty), so a misplay on a noisy line replays the same every time.
"""

from __future__ import annotations

from firmware_bridge.faults import LineFaults
from firmware_bridge.firmware.controller import Controller
from firmware_bridge.firmware.shiftreg import ShiftRegisterMatrix
from firmware_bridge.host import (CONNECTED, BridgeLink, BridgePixelSink, BridgeSensorSource,
                                  BridgeTimings)
from firmware_bridge.shiftchain import SimulatedShiftChain
from firmware_bridge.sim import MATRICES, SimulatedCells, pin_scan
from hardware.base import HardwareError

#: What a timer "due at t" is stepped to: both ends compare strictly (`now - then > interval`).
EPSILON = 1e-6
#: The firmware's boot id: a fixed one, so that nothing in a trace depends on chance.
BOOT_ID = 0x7B1D
#: Exchanges at one instant before the line is declared stuck (a bug: each turn of the two ends
#: answers what the other sent, and nothing answers an answer).
MAX_EXCHANGES = 64


class _Line:
    """One direction of the USB line, in memory: bytes written, in order, until taken.
    `faults` (a LineFaults, or a callable returning one or None) damages each write."""

    def __init__(self, faults=lambda: None) -> None:
        self.buf = bytearray()
        self.faults = faults

    def write(self, data: bytes) -> int:
        faults = self.faults()
        self.buf += faults.apply(data) if faults else data
        return len(data)

    def take(self) -> bytes:
        data = bytes(self.buf)
        self.buf.clear()
        return data

    def close(self) -> None:
        """(The host's port: nothing to release.)"""


class _FirmwareShim:
    """The controller's `hw` (firmware/controller.py): the simulated clock's milliseconds, the
    line in memory, the matrix, the strip's buffer."""

    def __init__(self, bridge: "LockstepBridge") -> None:
        self.bridge = bridge

    def ticks_ms(self) -> int:
        return int(self.bridge.clock.now * 1000 + EPSILON)

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b

    def read(self) -> bytes:
        return self.bridge._to_firmware.take()

    def write(self, data: bytes) -> None:
        self.bridge._to_host.write(data)

    def scan(self) -> list[int]:
        return self.bridge._scan()

    def show(self, rgb) -> None:
        self.bridge._shown = bytes(rgb)


class _SteppedLink(BridgeLink):
    """The host's link without its thread: `LockstepBridge` calls its `_receive` and `_keep`."""

    def __init__(self, bridge: "LockstepBridge", timings: BridgeTimings) -> None:
        super().__init__("lockstep", clock=lambda: bridge.clock.now, timings=timings, thread=False)
        self.bridge = bridge

    def flush(self, timeout: float) -> bool:
        # The line runs only when time is stepped: step it (`timeout` in simulated seconds).
        return self.bridge.flush(timeout)


class LockstepBridge(SimulatedCells):
    def __init__(self, rows: int, cols: int, leds: int, clock, *, matrix: str = "pins",
                 timings: BridgeTimings = BridgeTimings(), connect_timeout: float = 3.0,
                 faults_to_host: LineFaults | None = None,
                 faults_to_firmware: LineFaults | None = None, **controller_options) -> None:
        """`clock`: the simulated clock the caller reads, with a settable `now` in seconds (the
        bridge moves it forward). `controller_options` as firmware/controller.Controller's;
        the defaults are the firmware's own (a scan every 2 ms, 4 equal scans to change).
        `faults_to_host`, `faults_to_firmware`: what a noisy line does to each frame written
        (settable at any time; None is a clean line)."""
        if matrix not in MATRICES:
            raise ValueError(f"matrix {matrix!r}: expected one of {', '.join(MATRICES)}")
        if not hasattr(clock, "now"):
            raise HardwareError("a lockstep bridge runs on a simulated clock (one with a settable "
                                f"`now`), not {clock!r}")
        self.rows, self.cols, self.led_count = rows, cols, leds
        self.clock = clock
        self._board = bytearray(rows * cols)
        # The matrix as last read. A board nobody touched reads the same through the chain
        # every time, so it is read again only after a hand moved a piece (the firmware still
        # scans, debounces and sends as always; the 400-cell chain is not clocked bit by bit
        # for every heartbeat of an hour's wait).
        self._masks: list[int] | None = None
        self._chain = None
        if matrix == "shift-register":
            self._chain = ShiftRegisterMatrix(SimulatedShiftChain(rows, cols, self._board), rows, cols)
        self.faults_to_host = faults_to_host
        self.faults_to_firmware = faults_to_firmware
        self._to_host = _Line(lambda: self.faults_to_host)
        self._to_firmware = _Line(lambda: self.faults_to_firmware)
        self._shown = bytes(leds * 3)
        self.firmware = Controller(_FirmwareShim(self), rows, cols, leds, BOOT_ID, **controller_options)
        self.link = _SteppedLink(self, timings)
        self.link._serial = self._to_firmware
        self.firmware.boot()
        self.link._begin()
        self._run(lambda: self.link.state == CONNECTED, connect_timeout,
                  "the host to be in sync with the firmware")
        self.link._users = 2
        self.source, self.sink = BridgeSensorSource(self.link), BridgePixelSink(self.link)

    # --- the physical board (channel = row * cols + col), as firmware_bridge.sim's

    def _put(self, channel: int, value: int) -> None:
        self._board[channel] = value
        self._masks = None

    def stop(self) -> None:
        """(Nothing runs between steps: nothing to stop.)"""

    # --- time

    def run_until(self, t: float) -> None:
        """Let simulated time pass up to `t`, both ends doing whatever falls due on the way."""
        self._exchange()
        while (due := self._next_due()) <= t:
            self._step_to(due)
        self.clock.now = max(self.clock.now, t)
        self._exchange()

    def settle(self, timeout: float = 1.0) -> None:
        """Run until the firmware has no cell counting and the host reports all it heard."""
        self._run(self._quiet, timeout, "the firmware's debounce and the host to agree")

    def flush(self, timeout: float = 1.0) -> bool:
        """Run until the firmware acknowledged showing the host's last frame; False if it did
        not within `timeout` simulated seconds."""
        try:
            self._run(self.link._flushed, timeout, "")
        except HardwareError:
            return False
        return True

    def _run(self, done, timeout: float, what: str) -> None:
        end = self.clock.now + timeout
        self._exchange()
        while not done():
            due = self._next_due()
            if due > end:
                raise HardwareError(f"lockstep bridge: waited {timeout} s (simulated) for {what}")
            self._step_to(due)

    def _step_to(self, due: float) -> None:
        self.clock.now = max(self.clock.now, due)
        self._exchange()

    def _quiet(self) -> bool:
        link = self.link
        with link._lock:
            reported = link._codes
        return self._masks is not None and not any(self.firmware.busy_rows) \
            and link._heard is not None and link._heard == reported

    def _scan(self) -> list[int]:
        if self._masks is None:
            self._masks = self._chain.scan() if self._chain is not None else \
                pin_scan(self._board, self.rows, self.cols)
        return list(self._masks)

    def _exchange(self) -> None:
        """At the present instant: the firmware polls, the host reads what it sent and does
        what is due, until the line is empty both ways."""
        fw, link = self.firmware, self.link
        for _ in range(MAX_EXCHANGES):
            fw.poll()
            data = self._to_host.take()
            if data:
                link._receive(data)
            link._keep(self.clock.now)
            if not self._to_firmware.buf and not self._to_host.buf:
                return
        raise RuntimeError("lockstep bridge: the two ends kept answering each other at one instant")

    def _next_due(self) -> float:
        """The earliest time either end has something to do."""
        fw = self.firmware
        due_ms = [fw.next_heartbeat]
        if self._masks is None or any(fw.busy_rows):
            due_ms.append(fw.next_scan)  # a scan can see something new only then
        if fw.repeating:
            due_ms.append(fw.next_repeat)
        if not fw.waiting:
            due_ms.append(fw.host_seen + fw.host_timeout_ms + 1)
        return max(min(min(due_ms) / 1000, self.link._next_due() + EPSILON),
                   self.clock.now + EPSILON)

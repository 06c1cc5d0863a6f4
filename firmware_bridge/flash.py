"""Updating the bridge's firmware over its own USB line: `treeboard firmware update`.

The line is the one the bridge runs on; MicroPython's raw REPL (Ctrl-A) is what mpremote
speaks, and mpremote's SerialTransport is the library that speaks it here (write, exec,
hash on the device). The steps, each named as `checkpoint` hears it (the fault tests unplug
the device at every one):

1. stop the bridge: a MAINTENANCE frame (release 3 and later end their main loop and give the
   line to the REPL; an older firmware ignores Ctrl-C and needs the GP22 jumper once), then
   enter the raw REPL;
2. for each file of protocol.FIRMWARE_FILES: write it as NAME.new ("before write NAME",
   "after write NAME"), hash it on the device with MicroPython's hashlib.sha256 and compare
   ("after hash NAME"). main.py is the host's with the wiring lines of the device's own
   main.py (its pins and sizes), so an update never rewires a board;
3. boot.py into place ("after rename boot.py"), then the journal update.txt (written under a
   temporary name, checked, renamed: "after journal");
4. the rest renamed into place, main.py last ("after rename NAME"), the journal removed;
5. a hard reset ("before reset").

An unplug before the journal leaves the old files (and stray NAME.new files, which the next
update overwrites): the old firmware boots. An unplug after it leaves a journal that boot.py
finishes before main.py runs: the new firmware boots. Either way `treeboard firmware update`
again brings the board to the host's files.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.firmware import controller, protocol
from treeboard.exc import TreeboardError

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
JOURNAL = "update.txt"  # boot.py's JOURNAL
TEMP_SUFFIX = ".new"
#: Bytes per exec when writing a file: raw-paste mode (the REPL's own flow control) carries
#: them; a kilobyte keeps the round trips few and the RP2040's heap (~190 KB) untroubled.
CHUNK = 1024
#: How long the firmware is given to end its loop after a MAINTENANCE frame before mpremote
#: tries the raw REPL (tried again, with the frame again, until repl_timeout).
STOP_GAP_S = 0.2


class FirmwareUpdateError(TreeboardError, RuntimeError):
    """The firmware could not be updated (what happened and what to do are in the message)."""


@dataclass(frozen=True)
class FirmwareStatus:
    """What the bridge's INFO said against the host's own files."""

    device_release: int | None  # None: a firmware older than INFO (before release 3)
    host_release: int
    differing: tuple[str, ...]  # files whose digests differ from the host's

    @property
    def needs_update(self) -> bool:
        if self.device_release is None or self.device_release < self.host_release:
            return True
        return self.device_release == self.host_release and bool(self.differing)

    @property
    def needs_jumper(self) -> bool:
        """A firmware before release 3 ignores MAINTENANCE: GP22 to GND, once."""
        return self.device_release is None


def steps() -> list[str]:
    """Every step an update tells its `checkpoint`, in order (the fault tests unplug at each)."""
    out = ["before raw REPL"]
    for name in protocol.FIRMWARE_FILES:
        out += [f"before write {name}", f"after write {name}", f"after hash {name}"]
    out.append("after rename boot.py")
    out += ["before write journal", "after write journal", "after hash journal", "after journal"]
    out += [f"after rename {name}" for name in protocol.FIRMWARE_FILES if name != "boot.py"]
    return out + ["before reset"]


def host_files(firmware_dir: Path = FIRMWARE_DIR) -> dict[str, bytes]:
    return {name: (firmware_dir / name).read_bytes() for name in protocol.FIRMWARE_FILES}


def digest(data: bytes) -> bytes:
    """protocol.file_digest of a file's bytes, as the firmware computes it on the flash."""
    lines = iter(data.splitlines(keepends=True))
    return protocol.file_digest(lambda: next(lines, b""), hashlib.sha256)


def firmware_digests(firmware_dir: Path = FIRMWARE_DIR) -> list[tuple[str, bytes]]:
    """INFO's file list for these files: what a flash holding them reports."""
    return [(name, digest(data)) for name, data in host_files(firmware_dir).items()]


def compare(release: int | None, files: dict[str, bytes] | None,
            firmware_dir: Path = FIRMWARE_DIR) -> FirmwareStatus:
    """The device's INFO (release, {name: digest}) against the host's files."""
    ours = host_files(firmware_dir)
    differing = tuple(name for name, data in ours.items()
                      if files is None or files.get(name) != digest(data))
    return FirmwareStatus(release, controller.RELEASE, differing)


def _assignment(line: bytes) -> bytes | None:
    """The names a wiring line assigns (`ROWS, COLS = 20, 20` -> b"ROWS, COLS"), else None."""
    if line[:1].isspace() or line.startswith(b"#") or b" = " not in line:
        return None
    return line.split(b" = ", 1)[0]


def keep_wiring(new_main: bytes, device_main: bytes | None) -> bytes:
    """The host's main.py with each wiring line (NAME = ...) that the device's main.py also
    assigns taken from the device's: the board's pins and sizes stay; a setting the new
    release adds comes with its default."""
    if not device_main:
        return new_main
    theirs = {}
    inside = False
    for line in device_main.splitlines(keepends=True):
        if line.startswith(protocol.WIRING_BEGIN):
            inside = True
        elif line.startswith(protocol.WIRING_END) or line.startswith((b"class ", b"def ")):
            inside = False  # a main.py before release 3 has no end line: its wiring ends here
        elif inside and _assignment(line) is not None:
            theirs[_assignment(line)] = line
    out = []
    inside = False
    for line in new_main.splitlines(keepends=True):
        if line.startswith(protocol.WIRING_BEGIN):
            inside = True
        elif line.startswith(protocol.WIRING_END):
            inside = False
        elif inside and _assignment(line) in theirs:
            line = theirs[_assignment(line)]
        out.append(line)
    return b"".join(out)


def _quote(name: str) -> str:
    return repr(name)


class FirmwareUpdate:
    """One update over `port` (a serial device, or a pty in the tests)."""

    def __init__(self, port: str, *, baud: int = 115200, firmware_dir: Path = FIRMWARE_DIR,
                 checkpoint: Callable[[str], None] | None = None,
                 say: Callable[[str], None] = lambda text: None,
                 repl_timeout: float = 10.0) -> None:
        self.port = port
        self.baud = baud
        self.firmware_dir = firmware_dir
        self.checkpoint = checkpoint or (lambda step: None)
        self.say = say
        self.repl_timeout = repl_timeout
        self.transport = None

    def run(self) -> list[str]:
        """Update the device; returns the files written. Raises FirmwareUpdateError."""
        from mpremote.transport import TransportError, TransportExecError

        try:
            self._open()
            try:
                return self._update()
            finally:
                self._close()
        except (TransportError, TransportExecError, OSError) as exc:
            raise FirmwareUpdateError(self._lost(exc)) from exc

    # --- the steps

    def _open(self) -> None:
        from mpremote.transport import TransportError
        from mpremote.transport_serial import SerialTransport

        try:
            self.transport = SerialTransport(self.port, baudrate=self.baud)
        except TransportError as exc:
            raise FirmwareUpdateError(
                f"cannot open {self.port}: {exc} (is the board plugged in? Stop the treeboard "
                "service first if it holds the line: sudo systemctl stop treeboard)") from exc
        # The running bridge ignores Ctrl-C; a MAINTENANCE frame ends its loop. Until it has
        # ended, the firmware reads the line itself (and would eat mpremote's Ctrl-A): so the
        # frame, a moment, the raw REPL, and again until the time is up.
        stop = protocol.Encoder().maintenance()
        self.transport.serial.write(stop)
        self.checkpoint("before raw REPL")
        deadline = time.monotonic() + self.repl_timeout
        while True:
            time.sleep(STOP_GAP_S)
            left = deadline - time.monotonic()
            try:
                # (mpremote prints what it got when it fails: kept off our output)
                with contextlib.redirect_stdout(io.StringIO()):
                    self.transport.enter_raw_repl(soft_reset=False,
                                                  timeout_overall=max(0.5, min(2.0, left)))
                return
            except TransportError as exc:
                if time.monotonic() >= deadline:
                    raise FirmwareUpdateError(
                        f"the firmware on {self.port} did not give up the line: a firmware "
                        f"before release 3 ignores the request. Put a jumper from GP22 to GND, "
                        f"unplug and plug the board in again, run `treeboard firmware update` "
                        f"again, then remove the jumper (firmware_bridge/README.md, "
                        f"\"Updating\")") from exc
                self.transport.serial.write(stop)

    def _update(self) -> list[str]:
        t = self.transport
        t.exec("import os, hashlib")
        present = set(t.eval("os.listdir()"))
        files = host_files(self.firmware_dir)
        if "main.py" in present:
            files["main.py"] = keep_wiring(files["main.py"], bytes(t.fs_readfile("main.py")))
        for name in protocol.FIRMWARE_FILES:
            self._write_checked(name, files[name])
        self._rename("boot.py")
        journal = "".join(f"{name}{TEMP_SUFFIX} {name}\n" for name in protocol.FIRMWARE_FILES
                          if name != "boot.py").encode()
        self._write_checked(JOURNAL, journal, name_in_steps="journal")
        self.checkpoint("after journal")
        for name in protocol.FIRMWARE_FILES:
            if name != "boot.py":
                self._rename(name)
        t.exec(f"os.remove({_quote(JOURNAL)})")
        self.checkpoint("before reset")
        # The reset ends the line under us: nothing comes back to read. Its "OK" may not come
        # either: a Pico's USB (or the sim's line) can go before the acknowledgement is read,
        # and the read then fails (EIO). Every file is in place by now: that is no failure.
        from mpremote.transport import TransportError

        try:
            t.exec_raw_no_follow("import machine\nmachine.reset()")
        except (TransportError, OSError) as exc:
            self.say(f"the line went with the reset ({exc}); the update was complete")
        return list(protocol.FIRMWARE_FILES)

    def _write_checked(self, name: str, data: bytes, name_in_steps: str | None = None) -> None:
        step = name_in_steps or name
        temp = name + TEMP_SUFFIX
        self.checkpoint(f"before write {step}")
        self.say(f"writing {name} ({len(data)} bytes)")
        self.transport.fs_writefile(temp, data, chunk_size=CHUNK)
        self.checkpoint(f"after write {step}")
        # Read back and hashed by MicroPython itself: what is on the flash, not what we sent.
        on_device = self.transport.fs_hashfile(temp, "sha256", chunk_size=CHUNK)
        if on_device != hashlib.sha256(data).digest():
            raise FirmwareUpdateError(
                f"{temp} on {self.port} does not hash as sent ({on_device.hex()[:16]} != "
                f"{hashlib.sha256(data).hexdigest()[:16]}): the old firmware is untouched; "
                "run `treeboard firmware update` again (a failing flash or cable if it repeats)")
        self.checkpoint(f"after hash {step}")
        if name_in_steps == "journal":
            self._rename(JOURNAL)

    def _rename(self, name: str) -> None:
        # os.rename onto an existing file: atomic on littlefs (the Pico's) and on POSIX.
        self.transport.exec(f"os.rename({_quote(name + TEMP_SUFFIX)}, {_quote(name)})")
        if name != JOURNAL:
            self.checkpoint(f"after rename {name}")

    def _close(self) -> None:
        if self.transport is not None:
            try:
                self.transport.close()
            except OSError:
                pass
            self.transport = None

    def _lost(self, exc: BaseException) -> str:
        return (f"the line to {self.port} broke during the firmware update ({exc}). The board "
                "boots whole either way (the old firmware, or the new one that its boot.py "
                "finishes); plug it in again and run `treeboard firmware update` once more")


def update_firmware(port: str, **options) -> list[str]:
    return FirmwareUpdate(port, **options).run()

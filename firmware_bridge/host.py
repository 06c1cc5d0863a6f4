"""The host end of the bridge: a SensorSource and a PixelSink over one USB serial line.

    source, sink = open_bridge()                 # finds /dev/treeboard-bridge or 2e8a:0005
    source.start(callback)                       # SensorEvent(channel, value, t) from the link thread
    sink.show(frame)                             # never blocks: the link thread sends it
    source.close(); sink.close()

One thread (`BridgeLink`) owns the serial port: it opens it, says HOST_HELLO, reads frames,
sends heartbeats and LED updates, and when the line dies (read error, no frame for
`heartbeat_timeout`) closes it and reopens with back-off, resyncing from the firmware's
fresh SNAPSHOT and re-sending the whole LED frame. Board state is never lost: the snapshot the
host holds survives a reconnect, and the new snapshot is diffed against it so the daemon sees
an event for everything that changed while the line was down.

No single frame becomes a sensor event. What the frames say goes into `_heard`; the board the
daemon sees (`_codes`) takes it over only when two different frames vouch for the same board
checksum (a CHANGE carries the board's CRC-32 with the change in, a HEARTBEAT and a SNAPSHOT
carry or are the board). A forged or corrupted frame that passed the frame CRC is one witness;
the next genuine frame contradicts it, and a SNAPSHOT puts `_heard` right.
"""

from __future__ import annotations

import logging
import os
import select
import termios
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

import serial
import serial.tools.list_ports

from firmware_bridge.firmware import protocol
from hardware.base import (DIED, INCOMPATIBLE as WRONG_PROTOCOL, MISSING, PRESENT, SILENT, EventCallback,
                           PixelSink, Problem, SensorEvent, SensorSource)
# The bridge's family in the project's tree of errors (treeboard/exc.py), re-exported here: the
# firmware's ProtocolError never leaves this link (a damaged frame is counted and dropped).
from treeboard.exc import BridgeError, TreeboardError

log = logging.getLogger(__name__)

#: The udev rule (firmware_bridge/99-treeboard-bridge.rules) makes this symlink.
UDEV_PATH = "/dev/treeboard-bridge"
#: Raspberry Pi RP2040 running MicroPython.
USB_VID, USB_PID = 0x2E8A, 0x0005

# Link states, as `BridgeLink.state` and the `on_state` callback name them.
CONNECTING = "connecting"      # port open, waiting for HELLO + SNAPSHOT
CONNECTED = "connected"        # in sync
DISCONNECTED = "disconnected"  # no port, or the line died; retrying with back-off
INCOMPATIBLE = "incompatible"  # the firmware answers but speaks another protocol version
UPDATING = "updating"          # the port lent to a firmware update (lend_port): no frames meanwhile
CLOSED = "closed"


#: Protocol 1 framed with CRC-16, which this host cannot read; its frames still pass that
#: CRC. This many of them before any HELLO of ours name it (one could be a corrupted frame).
LEGACY_FRAMES = 2
#: A line that brings frames, all of them damaged, is given this many dead-line timeouts.
NOISY_LINE_PATIENCE = 4


class IncompatibleFirmware(BridgeError):
    """The firmware answered with a HELLO of another protocol version (reflash it)."""


class _LineDead(TreeboardError):
    """Internal: this connection is over; close the port and reconnect."""


@dataclass(frozen=True)
class BridgeTimings:
    """Every interval the link waits for, in seconds; tests shrink them."""

    heartbeat_interval: float = 0.25   # send one this often; the firmware sends its own
    heartbeat_timeout: float = 1.0     # no valid frame for this long: the line is dead
    ack_timeout: float = 0.2           # an LED update or snapshot request not answered: resend
    backoff_initial: float = 0.05      # first wait before reopening the port
    backoff_max: float = 0.5           # back-off doubles up to this (keeps replug recovery < 1 s)


def find_bridge_port() -> str:
    """The bridge's serial port: the udev symlink if present, else the first RP2040 by USB id."""
    if os.path.exists(UDEV_PATH):
        return UDEV_PATH
    for port in serial.tools.list_ports.comports():
        if port.vid == USB_VID and port.pid == USB_PID:
            return port.device
    raise BridgeError(
        f"no treeboard bridge found: {UDEV_PATH} does not exist (is "
        f"99-treeboard-bridge.rules installed?) and no USB device {USB_VID:04x}:{USB_PID:04x} is plugged in")


class BridgeLink:
    """The serial line and its thread. Use `open_bridge`, which returns its source and sink."""

    def __init__(self, port: str | None, baud: int = 115200, *,
                 clock: Callable[[], float] = time.monotonic,
                 timings: BridgeTimings = BridgeTimings(),
                 on_state: Callable[[str], None] | None = None, thread: bool = True) -> None:
        # thread=False: no link thread and no port of its own; the caller drives the same
        # frame handling step by step (firmware_bridge/lockstep.py, on simulated time).
        self.port = port
        self.baud = baud
        self.clock = clock
        self.timings = timings
        self.on_state = on_state
        self.state = DISCONNECTED
        #: Why the last connection attempt failed or the line was dropped, for messages.
        self.last_problem = "not tried yet"
        self._open_failed = False   # the last try could not even open the port
        #: From the firmware's HELLO.
        self.rows = self.cols = self.leds = None
        self.kinds: list[str] = []
        self.boot_id: int | None = None
        #: From the firmware's INFO, asked after each HELLO: (release, {file: digest}); (None,
        #: None) for a firmware before release 3, which does not know INFO; None: not known yet.
        self.firmware_info: tuple[int | None, dict[str, bytes] | None] | None = None
        self._info_seq: int | None = None  # our INFO_REQUEST's seq, to know its ERROR answer
        self._lending = False   # lend_port: the link lets go of the port while set
        self.opened_port: str | None = None  # the port last opened (the one found, if port is None)
        self.reconnects = 0    # connections lost
        #: When the last valid frame came from the firmware (the link's clock), for health().
        self.last_valid_frame = clock()
        #: Why the link thread died (a bug), or None while it runs.
        self.died: str | None = None
        self.open_attempts = 0  # every try to open the port, failed or not
        self.stats = {"bad_frames": 0, "gaps": 0, "duplicates": 0, "snapshots": 0, "mismatches": 0,
                      "gaps_said": 0,
                      "led_full": 0, "led_partial": 0, "led_resends": 0}

        self._lock = threading.Condition()
        self._callback: EventCallback | None = None
        self._codes: bytearray | None = None      # the board as the host reports it (value codes)
        # Owned by the link thread: the board as the frames since the last SNAPSHOT tell it
        # (None: unknown since a HELLO), and the first frame (seq, frame CRC) that vouched for it.
        self._heard: bytearray | None = None
        self._witness: tuple[int, int] | None = None
        self._mismatch_since: float | None = None  # frames disagree with _heard since then
        self._desired: bytes | None = None        # the LED frame the daemon last showed
        self._fw_rgb: bytes | None = None         # what we believe the firmware shows (None: unknown)
        self._pending_led: tuple[int, int, float] | None = None  # (seq, crc, sent at)
        self._confirmed_crc: int | None = None    # the firmware's LED CRC from its last ACK
        self._serial: serial.Serial | None = None
        self._users = 0  # open_bridge hands out a source and a sink; the last close() ends the line
        self._stopping = False
        self._wake_r = self._wake_w = -1
        self._thread: threading.Thread | None = None
        if thread:
            self._wake_r, self._wake_w = os.pipe()
            self._thread = threading.Thread(target=self._run, name="bridge-link", daemon=True)
            self._thread.start()

    # --- the daemon's side (any thread)

    def wait_state(self, states: Sequence[str], timeout: float) -> str:
        deadline = time.monotonic() + timeout
        with self._lock:
            while self.state not in states:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._lock.wait(left)
            return self.state

    def health(self) -> str | None:
        """None while the firmware is heard from; else a sentence for the watchdog's log."""
        if self._stopping or self.state == UPDATING:
            return None  # (an update is bounded by its own timeouts, flash.py)
        name = f"bridge on {self.port or 'its USB port'}"
        if self._thread is not None and not self._thread.is_alive():
            return Problem(f"{name}: its link thread has stopped "
                           f"({self.died or 'no reason logged'})", DIED)
        silent = self.clock() - self.last_valid_frame
        if silent > self.timings.heartbeat_timeout:
            why = "" if self.state == CONNECTED else f"; {self.state}: {self.last_problem}"
            # (the kind: the port would not open, the firmware speaks another protocol, or it
            # is there and says nothing)
            kind = (WRONG_PROTOCOL if self.state == INCOMPATIBLE else
                    MISSING if self.state == DISCONNECTED and self._open_failed else SILENT)
            return Problem(f"{name}: no heartbeat or change from the firmware for "
                           f"{silent:.1f} s{why}", kind)
        return None

    def snapshot(self) -> dict[int, str | None]:
        with self._lock:
            codes = self._codes
            return {} if codes is None else {i: self._value(c) for i, c in enumerate(codes)}

    def set_callback(self, callback: EventCallback | None) -> None:
        with self._lock:
            self._callback = callback

    def show(self, rgb: bytes) -> None:
        with self._lock:
            self._desired = rgb
        self._wake()

    def flush(self, timeout: float) -> bool:
        """Wait until the firmware has acknowledged showing the last frame; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                if self._flushed():
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)

    def _flushed(self) -> bool:
        """Whether the firmware has acknowledged showing the last frame shown."""
        with self._lock:
            return self._desired is not None and self._pending_led is None \
                and self._confirmed_crc == protocol.crc32(self._desired) and self._fw_rgb == self._desired

    def close(self) -> None:
        if self._stopping:
            return
        self._stopping = True
        self._wake()
        if self._thread is None:
            self._set_state(CLOSED)
        elif self._thread is not threading.current_thread():  # close() from a callback: no join
            self._thread.join(timeout=5)

    def lend_port(self, use: Callable[[str], Any], timeout: float = 5.0) -> Any:
        """`use(port)` with the port closed to the link (a firmware update over the same line,
        flash.py); the link connects again afterwards, whatever `use` did or raised."""
        if self._thread is None:
            raise BridgeError("a lockstep bridge has no port to lend")
        with self._lock:
            if self._lending:
                raise BridgeError("the bridge's port is lent already (an update under way)")
            self._lending = True
        self._wake()
        try:
            with self._lock:
                if not self._lock.wait_for(lambda: self.state in (UPDATING, CLOSED), timeout):
                    raise BridgeError("the bridge link did not let go of its port")
            return use(self.port or self.opened_port or find_bridge_port())
        finally:
            with self._lock:
                self._lending = False
                self.firmware_info = None  # asked again at the next HELLO
                self._lock.notify_all()
            self._wake()

    def revive(self) -> None:
        """A link thread that died (a bug of ours): a new one, which reconnects from scratch.
        The daemon's supervisor calls it; the board's state comes back with the firmware's
        SNAPSHOT."""
        if self._stopping:
            raise BridgeError("the bridge link is closed")
        thread = self._thread
        if thread is None or thread.is_alive():
            return
        self._wake_r, self._wake_w = os.pipe()
        self.died = None
        self.last_valid_frame = self.clock()  # (a fresh start: heard from as it connects)
        self._thread = threading.Thread(target=self._run, name="bridge-link", daemon=True)
        self._thread.start()
        log.warning("bridge: link thread restarted")

    # --- the link thread

    def _run(self) -> None:
        try:
            self._reconnect_forever()
        except Exception as exc:  # a bug of ours: health() tells the watchdog, the log tells why
            self.died = f"{type(exc).__name__}: {exc}"
            log.exception("bridge: the link thread died")
        finally:
            self._set_state(CLOSED)
            r, w = self._wake_r, self._wake_w
            self._wake_r = self._wake_w = -1  # first, so a late _wake() cannot hit a reused fd
            os.close(r)
            os.close(w)

    def _reconnect_forever(self) -> None:
        backoff = self.timings.backoff_initial
        while not self._stopping:
            if self._lending:
                self._set_state(UPDATING)
                while self._lending and not self._stopping:
                    self._sleep(0.1)
                backoff = self.timings.backoff_initial
                self.last_valid_frame = self.clock()  # a fresh start, as after revive()
                continue
            self.open_attempts += 1
            try:
                self._open()
            except (serial.SerialException, OSError, BridgeError, termios.error) as exc:
                # (termios.error: the port vanished between open() and pyserial's tcsetattr,
                # on a quick replug; it is no OSError)
                self.last_problem = f"cannot open {self.port or 'the bridge'}: {exc}"
                self._open_failed = True
                self._set_state(DISCONNECTED)
                log.debug("%s; retrying in %.2f s", self.last_problem, backoff)
                self._sleep(backoff)
                backoff = min(backoff * 2, self.timings.backoff_max)
                continue
            self._open_failed = False
            try:
                self._serve()
            except _LineDead as exc:
                self.last_problem = str(exc)
            except (serial.SerialException, OSError, termios.error) as exc:
                self.last_problem = f"serial line failed: {exc}"
            finally:
                self._close_port()
            if self._stopping:
                break
            if self._lending:
                continue  # let go on purpose: no back-off, no warning
            if self.state == CONNECTED:
                backoff = self.timings.backoff_initial  # it worked: the next try is quick
            if self.state == INCOMPATIBLE:
                log.error("%s", self.last_problem)
                backoff = 5 * self.timings.backoff_max  # someone has to reflash: don't hammer it
            else:
                log.warning("bridge line lost (%s); reconnecting", self.last_problem)
                self._set_state(DISCONNECTED)
            self.reconnects += 1
            self._sleep(backoff)
            backoff = min(backoff * 2, self.timings.backoff_max)

    def _open(self) -> None:
        port = self.port or find_bridge_port()
        ser = serial.Serial()
        ser.port = port
        ser.baudrate = self.baud
        ser.timeout = 0
        ser.write_timeout = 1.0
        ser.open()
        self.opened_port = port
        try:
            ser.reset_input_buffer()  # stale bytes from before we came: the decoder would cope, but why
        except BaseException:
            ser.close()  # (the port vanished again: no descriptor left behind)
            raise
        self._serial = ser
        log.info("bridge port %s open at %d baud", port, self.baud)

    def _close_port(self) -> None:
        ser, self._serial = self._serial, None
        if ser is not None:
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass

    def _serve(self) -> None:
        ser = self._serial
        self._begin()
        while not self._stopping:
            timeout = self.timings.heartbeat_interval / 2
            ready, _, _ = select.select([ser.fileno(), self._wake_r], [], [], timeout)
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            if self._lending:
                raise _LineDead("the port is lent to a firmware update")
            if ser.fileno() in ready:
                self._receive(ser.read(max(1, ser.in_waiting)))  # raises SerialException when unplugged
            self._keep(self.clock())

    def _begin(self) -> None:
        """A fresh connection on the open port: forget the line's state, say HOST_HELLO."""
        enc = protocol.Encoder()
        self._set_state(CONNECTING)
        self._enc = enc
        self._dec = protocol.FrameDecoder()
        self._rx_seq: int | None = None
        self._in_sequence = False  # whether the frame being handled came right after the last
        self._rx_key: tuple[int, int] | None = None  # (seq, frame CRC) of the last frame
        self._synced = False
        self._snapshot_asked: float | None = None
        self._heard = None
        self._witness = None
        self._last_change = None
        self._mismatch_since = None
        with self._lock:
            self._fw_rgb = None          # unknown until we send a whole frame
            self._pending_led = None
        now = self.clock()
        self._write(b"\x00" + enc.host_hello())
        self._hello_sent = self._last_rx = self._last_frame = self._last_hb = now
        self._hello_seen = False
        self._legacy = 0  # frames of protocol 1 before any HELLO of ours

    def _receive(self, data: bytes) -> None:
        """Bytes from the firmware: every frame in them handled, every damaged one counted."""
        for item in self._dec.feed(data):
            self._last_frame = self.clock()
            if isinstance(item, protocol.ProtocolError):
                self.stats["bad_frames"] += 1
                log.debug("bridge: dropped a frame: %s", item)
                if isinstance(item, protocol.LegacyFrame) and not self._hello_seen:
                    self._legacy += 1
                    if self._legacy >= LEGACY_FRAMES:
                        self._incompatible(1)
                continue
            self._last_rx = self.last_valid_frame = self.clock()
            self._handle(item)

    def _keep(self, now: float) -> None:
        """What is due at `now`: the dead-line check, HELLO again, heartbeats, a SNAPSHOT
        asked again, LED updates."""
        t = self.timings
        last_rx, last_frame = self._last_rx, self._last_frame
        # Silence is a dead line. Frames that all fail their CRC are a noisy line with a
        # firmware behind it: reconnecting would not help it, so it gets longer.
        if now - last_rx > t.heartbeat_timeout * (1 if now - last_frame > t.heartbeat_timeout else NOISY_LINE_PATIENCE):
            raise _LineDead(
                f"no valid frame from the firmware for {now - last_rx:.2f} s "
                + ("(dead line)" if self._hello_seen else "(no HELLO: dead line, or not a treeboard bridge)"))
        if not self._hello_seen and now - self._hello_sent > t.heartbeat_interval:
            self._write(b"\x00" + self._enc.host_hello())  # the first may have been lost in noise
            self._hello_sent = now
        if now - self._last_hb > t.heartbeat_interval:
            self._write(self._enc.heartbeat())
            self._last_hb = now
        if self._snapshot_asked is not None and now - self._snapshot_asked > t.ack_timeout:
            self._ask_snapshot()
        elif self._snapshot_asked is None and self._mismatch_since is not None \
                and now - self._mismatch_since > t.ack_timeout:
            # The firmware's repeats did not put it right within a round trip: ask for it all.
            self._ask_snapshot()
        if self._synced:
            self._send_leds(now)

    def _next_due(self) -> float:
        """The earliest time at which `_keep` has something to do (the line's timers; an LED
        update to send is due at once). For a caller that steps time (lockstep.py)."""
        t = self.timings
        due = [self._last_hb + t.heartbeat_interval]
        if not self._hello_seen:
            due.append(self._hello_sent + t.heartbeat_interval)
        if self._snapshot_asked is not None:
            due.append(self._snapshot_asked + t.ack_timeout)
        elif self._mismatch_since is not None:
            due.append(self._mismatch_since + t.ack_timeout)
        with self._lock:
            pending, desired, known = self._pending_led, self._desired, self._fw_rgb
        if pending is not None:
            due.append(pending[2] + t.ack_timeout)
        elif self._synced and desired is not None and desired != known:
            return self.clock()
        return min(due)

    def _handle(self, msg: protocol.Message) -> None:
        if msg.type == protocol.HELLO:
            self._on_hello(msg)
            return
        key = (msg.seq, msg.frame_crc)
        if key == self._rx_key:
            # The line sent it twice: once is enough. Same seq with other contents is no
            # duplicate: one of the two was forged or garbled, and the board checksums decide.
            self.stats["duplicates"] += 1
            return
        self._in_sequence = self._rx_seq is not None and msg.seq == (self._rx_seq + 1) & 0xFF
        if self._rx_seq is not None and not self._in_sequence:
            # Something from the firmware was lost. No need to ask: if it was a change, the
            # board CRC in the next CHANGE or HEARTBEAT disagrees with ours.
            self.stats["gaps"] += 1
        self._rx_seq = msg.seq
        self._rx_key = key
        if not self._hello_seen:
            return  # a previous session's leftovers
        t = msg.type
        if t == protocol.SNAPSHOT:
            self._on_snapshot(msg)
        elif t == protocol.CHANGE:
            self._on_change(msg)
        elif t == protocol.ACK:
            self._on_ack(msg)
        elif t == protocol.HEARTBEAT:
            self._on_heartbeat(msg)
        elif t == protocol.INFO:
            self._on_info(msg.release, msg.files)
        elif t == protocol.ERROR:
            log.debug("bridge firmware reports error %d about #%d: %s", msg.code, msg.about, msg.text)
            if msg.code == protocol.ERR_UNKNOWN_TYPE and msg.about == self._info_seq:
                self._on_info(None, None)  # a firmware before release 3: no INFO
            if msg.code == protocol.ERR_BAD_FRAME:
                with self._lock:
                    self._fw_rgb = None  # whatever we sent may be the frame it lost
        else:
            log.debug("bridge: ignoring %r", msg)

    def _on_info(self, release: int | None, files: dict[str, bytes] | None) -> None:
        self._info_seq = None
        with self._lock:
            self.firmware_info = (release, files)
            self._lock.notify_all()
        log.info("bridge firmware release %s", release if release is not None else "before 3")

    def _incompatible(self, version: int) -> None:
        self.last_problem = (
            f"the bridge firmware speaks protocol version {version}, this host speaks "
            f"{protocol.VERSION}: flash the firmware from firmware_bridge/firmware (see its README)")
        self._set_state(INCOMPATIBLE)
        raise _LineDead(self.last_problem)

    def _on_hello(self, msg: protocol.Message) -> None:
        if msg.version != protocol.VERSION:
            self._incompatible(msg.version)
        size = (msg.rows, msg.cols, msg.leds)
        if self.rows is not None and size != (self.rows, self.cols, self.leds):
            self.last_problem = (
                f"the bridge firmware now reports a {msg.rows}x{msg.cols} board with {msg.leds} LEDs, "
                f"it was {self.rows}x{self.cols} with {self.leds}: a different board was plugged in")
            self._set_state(INCOMPATIBLE)
            raise _LineDead(self.last_problem)
        if self._hello_seen and msg.boot_id == self.boot_id and (msg.seq, msg.frame_crc) == self._rx_key:
            self.stats["duplicates"] += 1
            return
        if self._hello_seen and msg.boot_id != self.boot_id:
            log.warning("bridge firmware restarted (boot %04x -> %04x); resyncing", self.boot_id, msg.boot_id)
        self.rows, self.cols, self.leds, self.kinds = msg.rows, msg.cols, msg.leds, list(msg.kinds)
        self.boot_id = msg.boot_id
        self._hello_seen = True
        self._rx_seq = msg.seq
        self._rx_key = (msg.seq, msg.frame_crc)
        self._synced = False  # the SNAPSHOT that follows every HELLO brings us back in sync
        if self._thread is not None:
            # What the firmware is: its release and files' digests (the board offers an
            # update when they are not the host's). The lockstep bridge's trace never asks.
            self._info_seq = self._enc.seq
            self._write(self._enc.info_request())
        self._snapshot_asked = self.clock()  # ... and if it is lost, ask again after ack_timeout
        self._heard = None  # a restarted firmware's board is unknown until its SNAPSHOT
        self._witness = None
        self._last_change = None
        self._mismatch_since = None
        with self._lock:
            self._fw_rgb = None
            self._pending_led = None
            if self._codes is None:
                self._codes = bytearray(msg.rows * msg.cols)
            self._lock.notify_all()

    def _on_snapshot(self, msg: protocol.Message) -> None:
        codes = msg.codes
        self._snapshot_asked = None
        if len(codes) != self.rows * self.cols:
            log.debug("bridge: SNAPSHOT of %d channels for a %d-channel board", len(codes), self.rows * self.cols)
            self._ask_snapshot()
            return
        self.stats["snapshots"] += 1
        self._heard = bytearray(codes)
        self._witness = None
        self._last_change = None
        self._vouch(msg, protocol.crc32(codes))

    def _on_change(self, msg: protocol.Message) -> None:
        heard = self._heard
        if heard is None:
            return  # no SNAPSHOT since the HELLO: nothing to apply it to (one is on its way)
        if msg.channel >= len(heard):
            log.debug("bridge: change on channel %d of a %d-channel board", msg.channel, len(heard))
            return
        before = self._last_change
        if heard[msg.channel] != msg.code:
            heard[msg.channel] = msg.code
            self._witness = None  # a new board: it needs its own two witnesses
        agrees = protocol.crc32(heard) == msg.sensor_crc
        # (a gap's first frame must also come in sequence: a frame slipped in with a seq the
        # line has had already, just before a genuine repeat of the same channel, would
        # otherwise make a gap of one forged frame)
        self._last_change = (msg.seq, msg.channel, msg.code, agrees and self._in_sequence)
        if agrees and before is not None and self._is_gap(before, msg):
            self.stats["gaps_said"] += 1
            self._apply(msg.channel, before[2])   # out and back at one instant
            self._apply(msg.channel, msg.code)
        self._vouch(msg, msg.sensor_crc)

    def _is_gap(self, before: tuple[int, int, int, bool], msg: protocol.Message) -> bool:
        """Whether `msg` and the CHANGE right before it (`before`: seq, channel, code, whether
        it came in sequence and agreed with the heard board) are a gap shorter than the
        debounce (PROTOCOL.md): the same channel said off the reported value and back to it in
        two frames in a row, each vouching for the board it said. Nothing else sends that pair (a scan closes with a
        HEARTBEAT; a repeat pass names a channel once). Other cells that changed in the same
        scan are reported as ever, on the scan's closing HEARTBEAT."""
        seq, channel, code, agreed = before
        if not agreed or seq != (msg.seq - 1) & 0xFF or channel != msg.channel or code == msg.code:
            return False
        with self._lock:
            return self._codes[channel] == msg.code

    def _vouch(self, msg: protocol.Message, sensor_crc: int) -> None:
        """`msg` says the firmware's board has CRC `sensor_crc`. The second different frame
        that agrees with `_heard` makes it the reported board."""
        if protocol.crc32(self._heard) != sensor_crc:
            # A change was lost (the firmware's repeats or a SNAPSHOT will bring it), or a
            # frame was forged: either way nothing is reported until two frames agree.
            self.stats["mismatches"] += 1
            self._witness = None
            if self._mismatch_since is None:
                self._mismatch_since = self.clock()
            return
        self._mismatch_since = None
        self._snapshot_asked = None  # in agreement again: whatever was lost has come
        key = (msg.seq, msg.frame_crc)
        if self._witness is None:
            self._witness = key
        elif key != self._witness:
            self._commit()

    def _commit(self) -> None:
        with self._lock:
            same = self._codes == self._heard
        if not same:  # every heartbeat vouches again: most commits change nothing
            for channel, code in enumerate(self._heard):
                self._apply(channel, code)
        if not self._synced:
            self._synced = True
            self._set_state(CONNECTED)
            log.info("bridge in sync: %dx%d board, %d LEDs, firmware boot %04x",
                     self.rows, self.cols, self.leds, self.boot_id)

    def _on_ack(self, msg: protocol.Message) -> None:
        with self._lock:
            self._confirmed_crc = msg.led_crc
            pending = self._pending_led
            if pending is not None and msg.acked == pending[0]:
                self._pending_led = None
                if msg.led_crc != pending[1]:
                    self._fw_rgb = None  # it shows something else than we think: send it all
            self._lock.notify_all()

    def _on_heartbeat(self, msg: protocol.Message) -> None:
        if msg.sensor_crc is None:
            return
        if self._heard is not None:
            self._vouch(msg, msg.sensor_crc)
        if not self._synced:
            return
        with self._lock:
            if self._pending_led is None and self._fw_rgb is not None \
                    and msg.led_crc != protocol.crc32(self._fw_rgb):
                # An update was lost or garbled in a way the ACKs did not show: resend.
                self._fw_rgb = None
            self._confirmed_crc = msg.led_crc

    def _apply(self, channel: int, code: int) -> None:
        with self._lock:
            if self._codes[channel] == code:
                return
            self._codes[channel] = code
            callback = self._callback
        if callback is not None:
            event = SensorEvent(channel, self._value(code), self.clock())
            try:
                callback(event)
            except Exception:  # the daemon's bug must not kill the line
                log.exception("bridge: sensor callback failed on %r", event)

    def _value(self, code: int) -> str | None:
        if code == protocol.CODE_EMPTY:
            return None
        if code == protocol.CODE_PRESENT:
            return PRESENT
        kind = code - protocol.KIND_BASE
        return self.kinds[kind] if kind < len(self.kinds) else PRESENT

    def _ask_snapshot(self) -> None:
        self._snapshot_asked = self.clock()
        self._write(self._enc.snapshot_request())

    def _send_leds(self, now: float) -> None:
        with self._lock:
            desired, known, pending = self._desired, self._fw_rgb, self._pending_led
            if pending is not None and now - pending[2] > self.timings.ack_timeout:
                self.stats["led_resends"] += 1
                known = self._fw_rgb = None  # no answer: it may have been lost, send it all
                pending = None
            if desired is None or known == desired:
                return  # nothing new (a frame in flight is judged by its ACK)
            seq = self._enc.seq
            if known is None:
                frame = self._enc.led_frame(desired)
                self.stats["led_full"] += 1
            else:
                updates = [(i // 3, desired[i], desired[i + 1], desired[i + 2])
                           for i in range(0, len(desired), 3) if desired[i:i + 3] != known[i:i + 3]]
                if 5 * len(updates) < len(desired):
                    frame = self._enc.led_partial(updates)
                    self.stats["led_partial"] += 1
                else:
                    frame = self._enc.led_frame(desired)
                    self.stats["led_full"] += 1
            self._fw_rgb = desired
            self._pending_led = (seq, protocol.crc32(desired), now)
        self._write(frame)

    def _write(self, data: bytes) -> None:
        try:
            self._serial.write(data)
        except serial.SerialTimeoutException as exc:
            raise _LineDead(f"the firmware stopped reading: {exc}")

    def _set_state(self, state: str) -> None:
        with self._lock:
            if state == self.state:
                return
            self.state = state
            self._lock.notify_all()
        log.info("bridge %s", state)
        if self.on_state is not None:
            try:
                self.on_state(state)
            except Exception:
                log.exception("bridge: on_state callback failed")

    def _sleep(self, seconds: float) -> None:
        # Interruptible by close(): wait on the wake pipe, not time.sleep.
        ready, _, _ = select.select([self._wake_r], [], [], seconds)
        if ready:
            os.read(self._wake_r, 4096)

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass


class BridgeSensorSource(SensorSource):
    """The firmware's sensor matrix. Channels are ints: row * cols + col."""

    def __init__(self, link: BridgeLink) -> None:
        self.link = link
        self._closed = False

    def start(self, callback: EventCallback) -> None:
        self.link.set_callback(callback)

    def snapshot(self) -> dict[Hashable, str | None]:
        return self.link.snapshot()

    def health(self) -> str | None:
        return self.link.health()

    def revive(self) -> None:
        self.link.revive()

    def firmware_info(self) -> tuple[int | None, dict[str, bytes] | None] | None:
        """The firmware's (release, {file: digest}) from its INFO; None until it has answered."""
        return self.link.firmware_info

    def lend_port(self, use: Callable[[str], Any]) -> Any:
        """`use(port)` with the line free (a firmware update, firmware_bridge/flash.py)."""
        return self.link.lend_port(use)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.link.set_callback(None)
            _release(self.link)


class BridgePixelSink(PixelSink):
    """The firmware's LED strip. `show` never blocks; the link thread sends the frame and
    re-sends it after every reconnect or firmware restart."""

    def __init__(self, link: BridgeLink) -> None:
        self.link = link
        self.count = link.leds
        self._closed = False

    def show(self, frame: Sequence[tuple[int, int, int]]) -> None:
        if len(frame) != self.count:
            raise ValueError(f"frame has {len(frame)} colours, the strip has {self.count} pixels")
        try:
            rgb = bytes(c for colour in frame for c in colour)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"frame colours must be (r, g, b) of 0..255: {exc}") from None
        if len(rgb) != 3 * self.count:
            raise ValueError("frame colours must be (r, g, b) triples")
        self.link.show(rgb)

    def flush(self, timeout: float = 1.0) -> bool:
        """Wait until the firmware confirms it shows the last frame; False on timeout."""
        return self.link.flush(timeout)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.link.show(bytes(3 * self.count))
            if self.link.health() is None:  # a dead or silent link would only make us wait
                self.link.flush(0.5)  # best effort: dark before we let go
            _release(self.link)


def _release(link: BridgeLink) -> None:
    # The source and the sink share the line; it closes when both have let go.
    link._users -= 1
    if link._users <= 0:
        link.close()


def open_bridge(port: str | None = None, baud: int = 115200, *,
                clock: Callable[[], float] = time.monotonic,
                timings: BridgeTimings = BridgeTimings(),
                connect_timeout: float = 3.0,
                on_state: Callable[[str], None] | None = None,
                ) -> tuple[BridgeSensorSource, BridgePixelSink]:
    """Open the bridge and wait until it is in sync (HELLO and a full SNAPSHOT).

    `port` None finds the device (find_bridge_port) on every (re)connect. Raises
    IncompatibleFirmware for a wrong protocol version and BridgeError when nothing answers
    within `connect_timeout`. After that the link reconnects by itself for ever; `on_state`
    hears every change of state (connecting / connected / disconnected / incompatible).
    """
    link = BridgeLink(port, baud, clock=clock, timings=timings, on_state=on_state)
    state = link.wait_state((CONNECTED, INCOMPATIBLE), connect_timeout)
    if state != CONNECTED:
        problem = link.last_problem
        link.close()
        if state == INCOMPATIBLE:
            raise IncompatibleFirmware(problem)
        raise BridgeError(f"the bridge did not answer within {connect_timeout:.1f} s: {problem}")
    link._users = 2
    return BridgeSensorSource(link), BridgePixelSink(link)

"""The firmware's logic: scan and debounce the sensor matrix, drive the LEDs, speak the protocol.

Runs on MicroPython (main.py gives it the RP2040's pins, NeoPixel strip and USB serial) and on
CPython (firmware_bridge.sim gives it a pseudo-terminal and an in-memory board). Everything it
touches goes through `hw`, a tiny shim with:

    hw.ticks_ms() -> int            hw.ticks_diff(a, b) -> a - b, wrap-safe
    hw.read() -> bytes              whatever arrived from the host (b"" when nothing)
    hw.write(data)                  send to the host (may drop when nobody listens)
    hw.scan() -> sequence of int    the raw matrix, one int per row: bit c set where a magnet
                                    sits at column c (direct pins in main.py, a 74HC595/74HC165
                                    chain in shiftreg.py)
    hw.show(rgb)                    light the strip from a bytes-like of r,g,b triples

So this module imports nothing but the protocol.
"""

try:
    from . import protocol  # as part of the firmware_bridge package on the host
except ImportError:
    import protocol  # flat on the microcontroller's filesystem

# The firmware's release: one more with every change to its files. A host whose own files are
# of a later release (or whose digests differ) offers to update the board (flash.py).
RELEASE = 3

# When the host has been silent this long the firmware shows it on the strip: the host can't.
WAITING_COLOUR = (0, 0, 24)
# How many recently changed channels are remembered for repeating (a burst bigger than this,
# e.g. a board swept clear, falls back to the SNAPSHOT); bounds the firmware's memory and the
# line's load (8 channels x 16 bytes every 25 ms is 51 kbit/s, for 200 ms).
REPEAT_CHANNELS = 8


class Controller:
    def __init__(self, hw, rows, cols, leds, boot_id, scan_ms=2, debounce_scans=4,
                 heartbeat_ms=250, host_timeout_ms=1500, repeat_ms=25, repeats=8,
                 version=protocol.VERSION, digests=None):
        self.hw = hw
        # digests() -> [(file name, digest)] for INFO (main.py hashes its files on the flash);
        # None: a simulation without files, which reports none.
        self.digests = digests
        # Set by the host's MAINTENANCE: the main loop ends and leaves the line to the REPL.
        self.stopped = False
        self.version = version  # only a test makes a firmware of another version
        self.rows = rows
        self.cols = cols
        self.channels = rows * cols
        self.leds = leds
        self.boot_id = boot_id & 0xFFFF
        self.scan_ms = scan_ms
        self.debounce_scans = debounce_scans
        self.heartbeat_ms = heartbeat_ms
        self.host_timeout_ms = host_timeout_ms
        self.repeat_ms = repeat_ms
        self.repeats = repeats
        self.encoder = protocol.Encoder()
        self.decoder = protocol.FrameDecoder()
        # stable[i] is the debounced state (a value code: the SNAPSHOT payload); stable_rows[r]
        # the same as a bit mask per row, so an idle row costs one xor per scan, not a loop over
        # its cells (a 20 x 20 board is 400 cells every 5 ms on a 133 MHz MicroPython).
        # pending[i] counts the scans in a row that disagreed with stable[i]; busy_rows[r] has a
        # bit set for every cell of row r whose count is not zero.
        self.stable = bytearray(self.channels)
        self.stable_rows = [0] * rows
        self.busy_rows = [0] * rows
        self.pending = bytearray(self.channels)
        # CRC-32 of `stable`, kept with it: heartbeats and repeats send it, and without
        # binascii.crc32 (the pure-Python fallback) 400 bytes cost milliseconds on an RP2040.
        self.board_crc = protocol.crc32(self.stable)
        self.rgb = bytearray(leds * 3)
        self.waiting = False
        # [channel, repeats left], oldest first: a change is said again, as "this channel is
        # now ..., the board's CRC is now ...", so one lost frame costs a repeat, not a
        # SNAPSHOT round trip. A SNAPSHOT_REQUEST (the host lost something) re-arms them.
        self.recent = []
        self.repeating = False
        now = hw.ticks_ms()
        self.next_scan = now
        self.next_heartbeat = now
        self.next_repeat = now
        self.host_seen = now

    # --- the main loop calls these

    def boot(self):
        """Take a first reading without debounce (nothing moved yet) and introduce ourselves."""
        masks = self.hw.scan()
        for r in range(self.rows):
            self.stable_rows[r] = masks[r]
            for c in range(self.cols):
                self.stable[r * self.cols + c] = protocol.CODE_PRESENT if masks[r] >> c & 1 else protocol.CODE_EMPTY
        self.board_crc = protocol.crc32(self.stable)
        self.hw.show(self.rgb)
        self.send_hello()

    def poll(self):
        """One pass of the main loop: read the host, scan when due, heartbeat when due."""
        data = self.hw.read()
        if data:
            for item in self.decoder.feed(data):
                if isinstance(item, protocol.ProtocolError):
                    # The frame is gone; the host resends its LED state when told.
                    self.send(self.encoder.error(protocol.ERR_BAD_FRAME, 0, str(item)))
                else:
                    self.host_seen = self.hw.ticks_ms()
                    self.handle(item)
        now = self.hw.ticks_ms()
        if self.hw.ticks_diff(now, self.next_scan) >= 0:
            self.next_scan = now + self.scan_ms
            self.scan()
        if self.repeating and self.hw.ticks_diff(now, self.next_repeat) >= 0:
            self.next_repeat = now + self.repeat_ms
            self.repeat()
        if self.hw.ticks_diff(now, self.next_heartbeat) >= 0:
            self.send_heartbeat()
        if not self.waiting and self.hw.ticks_diff(now, self.host_seen) > self.host_timeout_ms:
            self.show_waiting()

    # --- sensors

    def scan(self):
        masks = self.hw.scan()
        stable_rows = self.stable_rows
        busy_rows = self.busy_rows
        changed = False
        for r in range(self.rows):
            raw = masks[r]
            delta = raw ^ stable_rows[r]
            busy = busy_rows[r]
            if not (delta | busy):
                continue  # the idle row: nothing differs, nothing counting
            base = r * self.cols
            back = busy & ~delta  # cells that read their stable value again: count from zero
            gaps = back & stable_rows[r]  # of those, tokens that were off for a scan or two
            c = 0
            while back:
                if back & 1:
                    self.pending[base + c] = 0
                    if gaps >> c & 1:
                        self.gap(base + c)
                        changed = True
                back >>= 1
                c += 1
            stable_rows[r], busy_rows[r], row_changed = self.count(base, raw, delta, stable_rows[r])
            changed = changed or row_changed
        if changed:
            # The second witness at once: the host reports a change only when a second frame
            # vouches for the same board (PROTOCOL.md, "Two witnesses").
            self.send_heartbeat()
            self.next_repeat = self.hw.ticks_ms() + self.repeat_ms

    def count(self, base, raw, delta, stable):
        """Count one more disagreeing scan for every cell in `delta` (one row's bits); a cell
        that disagreed debounce_scans scans in a row changes. Returns the row's new stable
        mask, its busy mask and whether anything changed."""
        pending = self.pending
        busy = 0
        changed = False
        c = 0
        while delta:
            if delta & 1:
                i = base + c
                # A reed switch bounces for a few ms as a piece slides in: only a reading
                # that holds for debounce_scans scans in a row counts.
                pending[i] += 1
                if pending[i] >= self.debounce_scans:
                    pending[i] = 0
                    stable ^= 1 << c
                    code = protocol.CODE_PRESENT if raw >> c & 1 else protocol.CODE_EMPTY
                    self.stable[i] = code
                    self.board_crc = protocol.crc32(self.stable)
                    changed = True
                    # Each CHANGE carries the board's CRC with it in: a frame that says
                    # otherwise than the board (a forged one, a lost one before it) shows.
                    self.send(self.encoder.change(i, code, self.board_crc))
                    self.remember(i)
                else:
                    busy |= 1 << c
            delta >>= 1
            c += 1
        return stable, busy, changed

    def gap(self, channel):
        """A cell that holds a token read empty for fewer scans than the debounce, then held
        one again: a seed swapped for a spore faster than the debounce (or a knock). The host's
        referee must see that the cell went empty (an Arbos replacement), so it is said as
        the two changes it was, out and back, in two CHANGEs in a row (PROTOCOL.md, "A gap
        shorter than the debounce"). A token arriving with a bounce is no such thing: only a present
        cell's gap is said."""
        stable = self.stable
        code = stable[channel]
        stable[channel] = protocol.CODE_EMPTY
        gone = protocol.crc32(stable)
        stable[channel] = code
        # Out and back in two frames in a row, and no witness between: the host reports the
        # empty cell only with the piece back at the same instant, so a line that loses the
        # second frame loses the gap, never leaves the piece taken off. The scan's closing
        # HEARTBEAT vouches for the board with the piece back; the repeats say it again.
        self.send(self.encoder.change(channel, protocol.CODE_EMPTY, gone))
        self.send(self.encoder.change(channel, code, self.board_crc))
        self.remember(channel)

    def remember(self, channel):
        recent = self.recent
        for i in range(len(recent)):
            if recent[i][0] == channel:
                del recent[i]
                break
        if len(recent) >= REPEAT_CHANNELS:
            del recent[0]
        recent.append([channel, self.repeats])
        self.repeating = self.repeats > 0

    def rearm(self):
        for entry in self.recent:
            entry[1] = self.repeats
        self.repeating = bool(self.recent) and self.repeats > 0

    def repeat(self):
        # Every repeat says what is true now (the channel's code and the board's CRC now), so
        # repeats of an older change can never undo a newer one at the host.
        crc = self.board_crc
        repeating = False
        for entry in self.recent:
            if entry[1] > 0:
                self.send(self.encoder.change(entry[0], self.stable[entry[0]], crc))
                entry[1] -= 1
                repeating = repeating or entry[1] > 0
        self.repeating = repeating

    # --- the host's messages

    def handle(self, msg):
        t = msg.type
        if t == protocol.HOST_HELLO:
            if msg.version != self.version:
                self.send(self.encoder.error(
                    protocol.ERR_BAD_VERSION, msg.seq,
                    "firmware speaks protocol %d" % self.version))
            # Always answer with our HELLO: it carries our version, so the host can tell.
            self.send_hello()
        elif t == protocol.SNAPSHOT_REQUEST:
            self.send_snapshot()
            # On a noisy line a short CHANGE gets through where a long SNAPSHOT does not.
            self.rearm()
            self.next_repeat = self.hw.ticks_ms() + self.repeat_ms
        elif t == protocol.LED_FRAME:
            if len(msg.rgb) != len(self.rgb):
                self.send(self.encoder.error(
                    protocol.ERR_BAD_MESSAGE, msg.seq,
                    "LED_FRAME has %d pixels, strip has %d" % (len(msg.rgb) // 3, self.leds)))
                return
            self.rgb[:] = msg.rgb
            self.lit(msg.seq)
        elif t == protocol.LED_PARTIAL:
            for index, r, g, b in msg.updates:
                if index >= self.leds:
                    self.send(self.encoder.error(
                        protocol.ERR_BAD_MESSAGE, msg.seq, "pixel %d out of range" % index))
                    return
            for index, r, g, b in msg.updates:
                self.rgb[3 * index] = r
                self.rgb[3 * index + 1] = g
                self.rgb[3 * index + 2] = b
            self.lit(msg.seq)
        elif t == protocol.INFO_REQUEST:
            files = self.digests() if self.digests is not None else []
            self.send(self.encoder.info(RELEASE, files))
        elif t == protocol.MAINTENANCE:
            self.stopped = True
        elif t == protocol.HEARTBEAT:
            pass  # host_seen is already refreshed
        elif t == protocol.ERROR:
            pass  # nothing we can do about the host's complaints but keep going
        else:
            self.send(self.encoder.error(
                protocol.ERR_UNKNOWN_TYPE, msg.seq, "not for the firmware: 0x%02x" % t))

    def lit(self, seq):
        self.waiting = False
        self.hw.show(self.rgb)
        self.send(self.encoder.ack(seq, protocol.crc32(self.rgb)))

    def show_waiting(self):
        # Every fourth pixel dim blue: "powered, scanning, no host". The host's next frame
        # replaces it; the host re-sends its whole frame on every (re)connect.
        self.waiting = True
        for i in range(self.leds):
            colour = WAITING_COLOUR if i % 4 == 0 else (0, 0, 0)
            self.rgb[3 * i] = colour[0]
            self.rgb[3 * i + 1] = colour[1]
            self.rgb[3 * i + 2] = colour[2]
        self.hw.show(self.rgb)

    # --- sending

    def send_hello(self):
        # HELLO then a full SNAPSHOT: the host never depends on having seen every change.
        self.send(self.encoder.hello(self.rows, self.cols, self.leds, self.boot_id, (), self.version))
        self.send_snapshot()

    def send_snapshot(self):
        # The HEARTBEAT right after is the snapshot's second witness (see scan)
        self.send(self.encoder.snapshot(self.stable))
        self.send_heartbeat()

    def send_heartbeat(self):
        self.next_heartbeat = self.hw.ticks_ms() + self.heartbeat_ms
        self.send(self.encoder.heartbeat(self.board_crc, protocol.crc32(self.rgb)))

    def send(self, frame):
        self.hw.write(frame)

"""The treeboard bridge wire protocol: framing, message types and their codec.

Shared by the host (CPython) and the firmware (MicroPython on an RP2040), so this module
imports nothing and uses only what MicroPython has: no struct, dataclasses, typing, enum,
bytes.hex. The spec is firmware_bridge/PROTOCOL.md; keep the two in step.

A frame on the wire is  00 | COBS(type, seq, payload..., crc32 (4 bytes, big-endian)) | 00.
COBS removes every zero from the body, so a zero always means "frame boundary" and a
receiver resynchronises at the next zero after any garbage. The leading zero costs one
byte and ends whatever garbage came before, so line noise costs at most the frame it hit.
"""

# 2: CRC-32 frames, CHANGE carries the board's CRC-32, HEARTBEAT and ACK carry CRC-32s.
VERSION = 2

# The value a binary sensor reports; equal to hardware.base.PRESENT (not imported: this
# module must run on the microcontroller, which has no hardware package).
PRESENT = "present"

# Sensor value codes on the wire. Codes from KIND_BASE up name the piece kinds a classifying
# firmware lists in its HELLO (kinds[code - KIND_BASE]).
CODE_EMPTY = 0
CODE_PRESENT = 1
KIND_BASE = 2

# Message types. 0x0_: firmware -> host, 0x1_: host -> firmware, 0x2_: either way.
HELLO = 0x01
SNAPSHOT = 0x02
CHANGE = 0x03
ACK = 0x04
INFO = 0x05            # the firmware's release and its files' digests (answers INFO_REQUEST)
HOST_HELLO = 0x10
LED_FRAME = 0x11
LED_PARTIAL = 0x12
SNAPSHOT_REQUEST = 0x13
INFO_REQUEST = 0x14
MAINTENANCE = 0x15     # stop the bridge and give the line to MicroPython's REPL (an update)
HEARTBEAT = 0x20
ERROR = 0x21

TYPE_NAMES = {
    HELLO: "HELLO", SNAPSHOT: "SNAPSHOT", CHANGE: "CHANGE", ACK: "ACK",
    HOST_HELLO: "HOST_HELLO", LED_FRAME: "LED_FRAME", LED_PARTIAL: "LED_PARTIAL",
    SNAPSHOT_REQUEST: "SNAPSHOT_REQUEST", HEARTBEAT: "HEARTBEAT", ERROR: "ERROR",
    INFO: "INFO", INFO_REQUEST: "INFO_REQUEST", MAINTENANCE: "MAINTENANCE",
}

# The firmware's files, in the order an update renames them into place: main.py, the boot
# file, last (firmware_bridge/flash.py). boot.py finishes an update an unplug interrupted.
FIRMWARE_FILES = ("protocol.py", "controller.py", "shiftreg.py", "boot.py", "main.py")
# MAINTENANCE's payload: a frame that means "stop" says so in words, not in one byte.
MAINTENANCE_WORD = b"REPL"
# main.py's wiring block lies between these lines: the board's own pins and sizes, which an
# update keeps and which the files' digests leave out.
WIRING_BEGIN = b"# --- wiring"
WIRING_END = b"# --- end of wiring"
DIGEST_BYTES = 8

# ERROR codes.
ERR_BAD_FRAME = 1     # a frame failed COBS/CRC: the receiver lost something, resend state
ERR_BAD_VERSION = 2   # HOST_HELLO named another protocol version
ERR_BAD_MESSAGE = 3   # a well-formed frame whose payload made no sense (length, range)
ERR_UNKNOWN_TYPE = 4

CRC_BYTES = 4

# The largest decoded frame (type + seq + payload + crc). A 400-LED frame is 1200 bytes of
# payload; the limit bounds the receiver's buffer so garbage cannot grow it without end.
MAX_FRAME = 2048
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 2


class ProtocolError(ValueError):
    """Bytes that are not a valid frame or message. Always recoverable: drop and go on."""


class LegacyFrame(ProtocolError):
    """A frame that fails CRC-32 but passes protocol 1's CRC-16: maybe a firmware of
    protocol 1, maybe a corrupted frame (one in 65,536). The host decides after a few."""


# --- CRC-32/ISO-HDLC (zlib's, ZIP's, Ethernet's: reflected poly 0xEDB88320, init and final
# xor 0xFFFFFFFF; check("123456789") = 0xCBF43926). It guards every frame, and it is the
# checksum of the board and of the LED buffer that CHANGE, HEARTBEAT and ACK carry. A 16-bit
# CRC let one corrupted frame in 65,536 through; 32 bits make that one in 4 billion, and a
# change still needs a second frame to vouch for it (PROTOCOL.md, "Two witnesses").

def _make_crc_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
        table.append(crc)
    return table


def crc32_table(data, crc=0):
    """CRC-32 in pure Python: the fallback for a MicroPython built without binascii.crc32."""
    global _CRC_TABLE
    if _CRC_TABLE is None:
        _CRC_TABLE = _make_crc_table()
    table = _CRC_TABLE
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


_CRC_TABLE = None

try:
    from binascii import crc32  # in C on CPython and on MicroPython builds that have it
except (ImportError, AttributeError):
    crc32 = crc32_table


# --- CRC-16/CCITT-FALSE: protocol 1's frame check, kept only so that a host can tell a
# firmware of protocol 1 (reflash it) from a dead line.

def crc16(data, crc=0xFFFF):
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        crc &= 0xFFFF
    return crc


# --- COBS (Consistent Overhead Byte Stuffing)

def cobs_encode(data):
    out = bytearray()
    code_at = 0
    out.append(0)  # placeholder for the first code byte
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise ProtocolError("COBS block runs past the end of the frame")
        out.extend(data[i + 1:end])
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


# --- Messages

def _u16(data, i):
    return (data[i] << 8) | data[i + 1]


def _put_u16(buf, value):
    buf.append((value >> 8) & 0xFF)
    buf.append(value & 0xFF)


def _u32(data, i):
    return (data[i] << 24) | (data[i + 1] << 16) | (data[i + 2] << 8) | data[i + 3]


def _put_u32(buf, value):
    buf.append((value >> 24) & 0xFF)
    buf.append((value >> 16) & 0xFF)
    buf.append((value >> 8) & 0xFF)
    buf.append(value & 0xFF)


class Message:
    """A decoded message: `type`, `seq`, `frame_crc` (the CRC-32 its frame ended with, which
    tells two frames of the same seq apart), and the attributes of its type (see decode_body)."""

    def __init__(self, mtype, seq):
        self.type = mtype
        self.seq = seq
        self.frame_crc = None

    def __repr__(self):
        fields = ", ".join(
            "%s=%r" % (k, v) for k, v in sorted(self.__dict__.items()) if k not in ("type", "seq", "frame_crc")
        )
        return "Message(%s, seq=%d%s)" % (
            TYPE_NAMES.get(self.type, hex(self.type)), self.seq, (", " + fields) if fields else "")


def _need(payload, n, name):
    if len(payload) != n:
        raise ProtocolError("%s payload is %d bytes, expected %d" % (name, len(payload), n))


def decode_body(body):
    """Parse one decoded, CRC-checked frame body (type, seq, payload) into a Message."""
    if len(body) < 2:
        raise ProtocolError("frame too short")
    mtype = body[0]
    msg = Message(mtype, body[1])
    p = body[2:]
    if mtype == HELLO:
        # version first, always: a host must be able to read the version of any firmware.
        if len(p) < 1:
            raise ProtocolError("HELLO without a version")
        msg.version = p[0]
        if msg.version != VERSION:
            return msg  # the rest is another version's business
        if len(p) < 8:
            raise ProtocolError("HELLO payload is %d bytes, expected at least 8" % len(p))
        msg.rows = p[1]
        msg.cols = p[2]
        msg.leds = _u16(p, 3)
        msg.boot_id = _u16(p, 5)
        nkinds = p[7]
        kinds = []
        i = 8
        for _ in range(nkinds):
            if i >= len(p) or i + 1 + p[i] > len(p):
                raise ProtocolError("HELLO kind list runs past the end")
            try:
                kinds.append(bytes(p[i + 1:i + 1 + p[i]]).decode())
            except UnicodeError:
                raise ProtocolError("HELLO kind name is not UTF-8")
            i += 1 + p[i]
        if i != len(p):
            raise ProtocolError("HELLO has trailing bytes")
        msg.kinds = kinds
    elif mtype == SNAPSHOT:
        msg.codes = bytes(p)
    elif mtype == CHANGE:
        _need(p, 7, "CHANGE")
        msg.channel = _u16(p, 0)
        msg.code = p[2]
        msg.sensor_crc = _u32(p, 3)
    elif mtype == ACK:
        _need(p, 5, "ACK")
        msg.acked = p[0]
        msg.led_crc = _u32(p, 1)
    elif mtype == HOST_HELLO:
        _need(p, 1, "HOST_HELLO")
        msg.version = p[0]
    elif mtype == LED_FRAME:
        if len(p) % 3:
            raise ProtocolError("LED_FRAME length %d is not a multiple of 3" % len(p))
        msg.rgb = bytes(p)
    elif mtype == LED_PARTIAL:
        if len(p) % 5:
            raise ProtocolError("LED_PARTIAL length %d is not a multiple of 5" % len(p))
        msg.updates = [(_u16(p, i), p[i + 2], p[i + 3], p[i + 4]) for i in range(0, len(p), 5)]
    elif mtype == SNAPSHOT_REQUEST:
        _need(p, 0, "SNAPSHOT_REQUEST")
    elif mtype == INFO_REQUEST:
        _need(p, 0, "INFO_REQUEST")
    elif mtype == MAINTENANCE:
        if bytes(p) != MAINTENANCE_WORD:
            raise ProtocolError("MAINTENANCE without its word")
    elif mtype == INFO:
        if len(p) < 3:
            raise ProtocolError("INFO payload too short")
        msg.release = _u16(p, 0)
        files = {}
        i = 3
        for _ in range(p[2]):
            if i >= len(p) or i + 1 + p[i] + DIGEST_BYTES > len(p):
                raise ProtocolError("INFO file list runs past the end")
            try:
                name = bytes(p[i + 1:i + 1 + p[i]]).decode()
            except UnicodeError:
                raise ProtocolError("INFO file name is not UTF-8")
            i += 1 + p[i]
            files[name] = bytes(p[i:i + DIGEST_BYTES])
            i += DIGEST_BYTES
        if i != len(p):
            raise ProtocolError("INFO has trailing bytes")
        msg.files = files
    elif mtype == HEARTBEAT:
        if len(p) == 0:
            msg.sensor_crc = None
            msg.led_crc = None
        else:
            _need(p, 8, "HEARTBEAT")
            msg.sensor_crc = _u32(p, 0)
            msg.led_crc = _u32(p, 4)
    elif mtype == ERROR:
        if len(p) < 2:
            raise ProtocolError("ERROR payload too short")
        msg.code = p[0]
        msg.about = p[1]
        try:
            msg.text = bytes(p[2:]).decode()
        except UnicodeError:
            raise ProtocolError("ERROR text is not UTF-8")
    else:
        raise ProtocolError("unknown message type 0x%02x" % mtype)
    return msg


def file_digest(readline, sha256):
    """The first DIGEST_BYTES of the sha256 of a firmware file read line by line through
    `readline` (bytes), leaving out main.py's wiring block. The firmware (MicroPython's
    hashlib) and the host (CPython's) both call it, so their digests of one file agree."""
    h = sha256()
    skipping = False
    while True:
        line = readline()
        if not line:
            break
        if line.startswith(WIRING_BEGIN):
            skipping = True
        if not skipping:
            h.update(line)
        if line.startswith(WIRING_END):
            skipping = False
    return h.digest()[:DIGEST_BYTES]


def decode_frame(encoded):
    """Decode one frame's bytes between two zero delimiters. Raises ProtocolError."""
    if len(encoded) > MAX_ENCODED:
        raise ProtocolError("frame longer than %d bytes" % MAX_ENCODED)
    raw = cobs_decode(encoded)
    if len(raw) < 2 + CRC_BYTES:
        raise ProtocolError("frame of %d bytes is too short" % len(raw))
    end = len(raw) - CRC_BYTES
    frame_crc = _u32(raw, end)
    if crc32(raw[:end]) != frame_crc:
        if crc16(raw[:-2]) == _u16(raw, len(raw) - 2):
            raise LegacyFrame("a frame of protocol 1 (CRC-16)")
        raise ProtocolError("CRC mismatch")
    msg = decode_body(raw[:end])
    msg.frame_crc = frame_crc
    return msg


class FrameDecoder:
    """Turns a byte stream into messages. `feed(data)` returns a list whose items are
    Message or ProtocolError (a frame that was dropped); it never raises."""

    def __init__(self):
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data):
        out = []
        for b in data:
            if b != 0:
                if len(self._buf) < MAX_ENCODED:
                    self._buf.append(b)
                else:
                    self._overflow = True
                continue
            if self._overflow:
                out.append(ProtocolError("frame longer than %d bytes" % MAX_ENCODED))
            elif self._buf:
                try:
                    out.append(decode_frame(self._buf))
                except ProtocolError as exc:
                    out.append(exc)
            # an empty frame (two zeros in a row) is the normal gap between frames
            self._buf = bytearray()
            self._overflow = False
        return out


class Encoder:
    """Builds framed messages for one sender, numbering them 0..255 and around again."""

    def __init__(self):
        self.seq = 0

    def frame(self, mtype, payload=b""):
        body = bytearray()
        body.append(mtype)
        body.append(self.seq)
        body.extend(payload)
        _put_u32(body, crc32(body))
        self.seq = (self.seq + 1) & 0xFF
        return b"\x00" + cobs_encode(body) + b"\x00"

    # firmware -> host
    def hello(self, rows, cols, leds, boot_id, kinds=(), version=VERSION):
        p = bytearray((version, rows, cols))
        _put_u16(p, leds)
        _put_u16(p, boot_id)
        p.append(len(kinds))
        for kind in kinds:
            name = kind.encode()
            p.append(len(name))
            p.extend(name)
        return self.frame(HELLO, p)

    def snapshot(self, codes):
        return self.frame(SNAPSHOT, codes)

    def change(self, channel, code, sensor_crc):
        # sensor_crc: the CRC-32 of the whole board (the SNAPSHOT payload) with this change in
        p = bytearray()
        _put_u16(p, channel)
        p.append(code)
        _put_u32(p, sensor_crc)
        return self.frame(CHANGE, p)

    def ack(self, acked, led_crc):
        p = bytearray((acked,))
        _put_u32(p, led_crc)
        return self.frame(ACK, p)

    def info(self, release, files):
        # files: [(name, digest of DIGEST_BYTES)]; a missing file has b"" (sent as zeros)
        p = bytearray()
        _put_u16(p, release)
        p.append(len(files))
        for name, digest in files:
            raw = name.encode()
            p.append(len(raw))
            p.extend(raw)
            p.extend((digest + bytes(DIGEST_BYTES))[:DIGEST_BYTES])
        return self.frame(INFO, p)

    # host -> firmware
    def info_request(self):
        return self.frame(INFO_REQUEST)

    def maintenance(self):
        return self.frame(MAINTENANCE, MAINTENANCE_WORD)

    def host_hello(self, version=VERSION):
        return self.frame(HOST_HELLO, bytes((version,)))

    def led_frame(self, rgb):
        return self.frame(LED_FRAME, rgb)

    def led_partial(self, updates):
        p = bytearray()
        for index, r, g, b in updates:
            _put_u16(p, index)
            p.append(r)
            p.append(g)
            p.append(b)
        return self.frame(LED_PARTIAL, p)

    def snapshot_request(self):
        return self.frame(SNAPSHOT_REQUEST)

    # either way
    def heartbeat(self, sensor_crc=None, led_crc=None):
        p = bytearray()
        if sensor_crc is not None:
            _put_u32(p, sensor_crc)
            _put_u32(p, led_crc)
        return self.frame(HEARTBEAT, p)

    def error(self, code, about=0, text=""):
        p = bytearray((code, about & 0xFF))
        p.extend(text.encode())
        return self.frame(ERROR, p)

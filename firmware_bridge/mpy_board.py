# This file runs under MicroPython (the unix port), not CPython: see firmware_bridge/mpy.py.
"""A scripted board for the real firmware on the real MicroPython interpreter.

    micropython mpy_board.py FIRMWARE_DIR COMMANDS [cells=N,N,...] [NAME=VALUE ...]

Runs firmware/main.py itself, unchanged but for the wiring constants given as NAME=VALUE (as a
maker edits them at its top), with what the unix port lacks shimmed, and only that:

- `machine`: Pin and SPI. SPI0 and the RCLK and /PL pins drive a simulated 74HC595/74HC165
  chain over a board of reed switches (the same chips as firmware_bridge/shiftchain.py, which
  CPython runs; it is written again here because that module is CPython's). The maintenance
  jumper is off.
- `neopixel`: a NeoPixel with micropython-lib's buffer (GRB, `ORDER`, `bpp`); `write()` tells the
  host test what the strip shows, on stderr: `shown <hex r,g,b ...>`.
- `time`: the real ticks and sleeps; main.py's 1 ms sleep in its loop is where the scripted hand
  acts: it reads the commands file (a FIFO) for `place N`, `lift N`, `heap`.

Everything else is MicroPython's own: `micropython.kbd_intr`, `select.poll` on stdin,
`sys.stdin.buffer` / `sys.stdout.buffer` (the serial line: pipes to the host test, which
relays them to a pty the host's link opens), `os.urandom`, `binascii.crc32`, `gc`. Anything
main.py, controller.py, protocol.py or shiftreg.py uses that MicroPython lacks raises here,
and the traceback goes to stderr (not stdout: that is the line).
"""

import sys
import time as _time
import gc
import select
import binascii

FIRMWARE_DIR = sys.argv[1]
COMMANDS = sys.argv[2]
SETTINGS = sys.argv[3:]


def say(*words):
    sys.stderr.write(" ".join(str(w) for w in words) + "\n")


class Chain:
    """74HC595s (rows) and 74HC165s (columns), bit by bit, over `board` (one byte per cell)."""

    def __init__(self, rows, cols):
        self.rows = rows
        self.cols = cols
        self.board = bytearray(rows * cols)
        self.row_bits = 8 * ((rows + 7) // 8)
        self.col_bits = 8 * ((cols + 7) // 8)
        self.shift = (1 << self.row_bits) - 1
        self.storage = self.shift
        self.out = (1 << self.col_bits) - 1

    def transfer(self, out, into):
        row_mask = (1 << self.row_bits) - 1
        top = 1 << (self.col_bits - 1)
        for n in range(len(out)):
            byte = out[n]
            got = 0
            for bit in range(7, -1, -1):
                got = (got << 1) | (self.out & 1)
                self.out = (self.out >> 1) | top
                self.shift = ((self.shift << 1) | (byte >> bit & 1)) & row_mask
            if n < len(into):
                into[n] = got

    def latch(self):
        self.storage = self.shift

    def load(self):
        low_rows = [r for r in range(self.rows) if not self.storage >> r & 1]
        out = 0
        for c in range(self.col_bits):
            level = 1
            if c < self.cols:
                for r in low_rows:
                    if self.board[r * self.cols + c]:
                        level = 0
                        break
            chip = c // 8
            pin = c % 8
            out |= level << (8 * chip + 7 - pin)
        self.out = out


class Board:
    def __init__(self):
        self.settings = {}
        # The cells holding a magnet at power-up: the board is physical, it outlives a reboot.
        self.cells = ()
        for item in SETTINGS:
            name, value = item.split("=", 1)
            if name == "cells":
                self.cells = [int(c) for c in value.split(",") if c]
            else:
                self.settings[name] = value
        self.chain = None
        self.pins = {}
        self.commands = open(COMMANDS, "rb")
        self.poll = select.poll()
        self.poll.register(self.commands, select.POLLIN)
        self.line = bytearray()
        self.main_ns = None

    def act(self):
        """The scripted hand: whatever the host test wrote to the commands file."""
        while self.poll.poll(0):
            b = self.commands.read(1)
            if not b:
                return
            if b != b"\n":
                self.line.extend(b)
                continue
            words = bytes(self.line).decode().split()
            self.line = bytearray()
            if not words:
                continue
            if words[0] in ("place", "lift") and BOARD.chain is None:
                raise RuntimeError("no matrix yet: main.py has not made its SPI bus")
            if words[0] == "place":
                self.chain.board[int(words[1])] = 1
            elif words[0] == "lift":
                self.chain.board[int(words[1])] = 0
            elif words[0] == "heap":
                gc.collect()
                say("heap", gc.mem_alloc(), gc.mem_free())
            say("done", " ".join(words))


BOARD = Board()


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, number, mode=None, pull=None, value=None):
        self.number = number
        self.level = value
        BOARD.pins[number] = self
        self.init(mode, pull, value)

    def init(self, mode=None, pull=None, value=None):
        self.mode = mode
        if value is not None:
            self.level = value

    def value(self, level=None):
        ns = BOARD.main_ns
        if level is None:
            if self.number == ns["MAINTENANCE_PIN"]:
                return 1  # no jumper: the bridge runs
            raise NotImplementedError("this scripted board wires only a shift-register matrix")
        rising = self.level == 0 and level == 1
        falling = self.level == 1 and level == 0
        self.level = level
        if rising and self.number == ns["RCLK_PIN"]:
            BOARD.chain.latch()
        if falling and self.number == ns["PL_PIN"]:
            BOARD.chain.load()


class SPI:
    def __init__(self, spi_id, baudrate=1000000, polarity=0, phase=0, sck=None, mosi=None,
                 miso=None):
        if polarity != 0 or phase != 0:
            raise ValueError("the 74HC595/165 chain wants SPI mode 0")
        # The board behind the chips, as main.py's wiring says (ROWS, COLS).
        BOARD.chain = chain = Chain(BOARD.main_ns["ROWS"], BOARD.main_ns["COLS"])
        for c in BOARD.cells:
            chain.board[c] = 1

    def write_readinto(self, out, into):
        if len(out) != len(into):
            raise ValueError("write_readinto: buffers of different lengths")
        BOARD.chain.transfer(out, into)


class Machine:
    pass


machine = Machine()
machine.Pin = Pin
machine.SPI = SPI


class NeoPixel:
    """As micropython-lib's neopixel: a buffer in the strip's order (GRB), `ORDER`, `bpp`."""

    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)

    def write(self):
        b = self.buf
        rgb = bytearray(3 * self.n)
        for i in range(self.n):
            rgb[3 * i] = b[self.bpp * i + 1]
            rgb[3 * i + 1] = b[self.bpp * i]
            rgb[3 * i + 2] = b[self.bpp * i + 2]
        say("shown", binascii.hexlify(rgb).decode())


class Neopixel:
    pass


neopixel = Neopixel()
neopixel.NeoPixel = NeoPixel


class Time:
    """The real clock; the main loop's sleep lets the scripted hand act."""

    ticks_ms = staticmethod(_time.ticks_ms)
    ticks_us = staticmethod(_time.ticks_us)
    ticks_diff = staticmethod(_time.ticks_diff)
    ticks_add = staticmethod(_time.ticks_add)
    sleep_us = staticmethod(_time.sleep_us)

    @staticmethod
    def sleep_ms(ms):
        BOARD.act()
        _time.sleep_ms(ms)


sys.modules["machine"] = machine
sys.modules["neopixel"] = neopixel
sys.modules["time"] = Time()
sys.path.insert(0, FIRMWARE_DIR)


def main_source():
    """firmware/main.py with the wiring constants of SETTINGS, as a maker edits them."""
    f = open(FIRMWARE_DIR + "/main.py")
    lines = f.read().split("\n")
    f.close()
    left = dict(BOARD.settings)
    for i in range(len(lines)):
        for name in list(left):
            if lines[i].startswith(name + " = "):
                lines[i] = name + " = " + left.pop(name)
    if left:
        raise KeyError("main.py has no setting " + ", ".join(left))
    return "\n".join(lines)


source = main_source()
ns = {"__name__": "main"}
BOARD.main_ns = ns
gc.collect()
say("booting", gc.mem_alloc())
try:
    exec(source, ns)
except BaseException as exc:
    # MicroPython's unix port prints an uncaught traceback on stdout, which is the serial line
    # here (as on a Pico): say it where the host test reads.
    sys.print_exception(exc, sys.stderr)
    sys.exit(1)

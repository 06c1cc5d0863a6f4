# This file runs under MicroPython (the unix port), not CPython: see firmware_bridge/mpy.py.
"""A scripted board for the real firmware on the real MicroPython interpreter.

    micropython mpy_board.py FIRMWARE_DIR COMMANDS [cells=N,N,...] [jumper=1] [NAME=VALUE ...]

Runs firmware/main.py itself, unchanged but for the wiring constants given as NAME=VALUE (as a
maker edits them at its top), with what the unix port lacks shimmed, and only that:

- `machine`: Pin and SPI, over a board of reed switches with a diode each. On a
  shift-register board (MATRIX = "shift-register") SPI0 and the RCLK and /PL pins drive a
  simulated 74HC595/74HC165 chain (the same chips as firmware_bridge/shiftchain.py, which
  CPython runs; it is written again here because that module is CPython's). On a direct-pin
  board (MATRIX = "pins", main.py's 5 x 8 default) a column pin, pulled up, reads low while a
  row pin driven low (output, value 0) has a closed switch at that crossing; a row left an
  input is high-Z. Reading a pin main.py did not set up so (a row, a column without its
  pull-up) raises. The maintenance jumper is off, or on with the argument `jumper=1`.
- `neopixel`: a NeoPixel with micropython-lib's buffer (GRB, `ORDER`, `bpp`); `write()` tells the
  host test what the strip shows, on stderr: `shown <hex r,g,b ...>`.
- `time`: the real ticks and sleeps; main.py's 1 ms sleep in its loop is where the scripted hand
  acts: it reads the commands file (a FIFO) for `place N`, `lift N`, `heap`, `scans` (how many
  whole scans of the matrix main.py has made: a test waits for the firmware to have seen), and
  `hand N PATTERN`: cell N follows PATTERN, one character per millisecond of the firmware's
  own clock ("1" a magnet, "0" none) from now, and keeps its last: a bounce, a wobble or a
  magnet passing over. The switches are read where the hand is at the moment of each read, so
  the scans see the pattern on their own clock whatever the host machine's load (a process
  that is not run skips time for its scans too).

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

    def __init__(self, rows, cols, board):
        self.rows = rows
        self.cols = cols
        self.board = board
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
        if BOARD.hands:
            BOARD.move_hands()  # the hand where it is as the 165s capture
        low_rows = [r for r in range(self.rows) if not self.storage >> r & 1]
        if self.rows - 1 in low_rows:
            BOARD.scans += 1  # the last row read: a whole scan
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
        self.jumper = False  # GP22 to GND (the maintenance jumper): set by "jumper=1"
        for item in SETTINGS:
            name, value = item.split("=", 1)
            if name == "cells":
                self.cells = [int(c) for c in value.split(",") if c]
            elif name == "jumper":
                self.jumper = value == "1"
            else:
                self.settings[name] = value
        self.chain = None
        self.grid = None  # the reed switches, row * cols + col: made when main.py wires them
        self.shape = None
        self.hands = {}   # cell -> [start ms, pattern]: hands still moving
        self.scans = 0    # whole scans of the matrix main.py has made (`scans` says how many)
        self.pins = {}
        self.commands = open(COMMANDS, "rb")
        self.poll = select.poll()
        self.poll.register(self.commands, select.POLLIN)
        self.line = bytearray()
        self.main_ns = None

    def matrix(self, rows, cols):
        """The board of reed switches, as main.py's wiring makes it (once)."""
        if self.grid is None:
            self.shape = (rows, cols)
            self.grid = bytearray(rows * cols)
            for c in self.cells:
                self.grid[c] = 1
        elif self.shape != (rows, cols):
            raise RuntimeError("main.py wired a %dx%d matrix, then a %dx%d one" % (self.shape + (rows, cols)))
        return self.grid

    def act(self):
        """The scripted hand: whatever the host test wrote to the commands file."""
        if self.hands:
            self.move_hands()
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
            if words[0] in ("place", "lift", "hand") and self.grid is None:
                raise RuntimeError("no matrix yet: main.py has not wired its rows and columns")
            if words[0] == "place":
                self.grid[int(words[1])] = 1
            elif words[0] == "lift":
                self.grid[int(words[1])] = 0
            elif words[0] == "hand":
                self.hands[int(words[1])] = [_time.ticks_ms(), words[2]]
                self.move_hands()
            elif words[0] == "heap":
                gc.collect()
                say("heap", gc.mem_alloc(), gc.mem_free())
            elif words[0] == "scans":
                say("scans", self.scans)
            say("done", " ".join(words))

    def move_hands(self):
        now = _time.ticks_ms()
        for cell in list(self.hands):
            start, pattern = self.hands[cell]
            at = _time.ticks_diff(now, start)
            self.grid[cell] = 1 if pattern[min(at, len(pattern) - 1)] == "1" else 0
            if at >= len(pattern) - 1:
                del self.hands[cell]
                say("done", "hand", cell, "over")


BOARD = Board()


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, number, mode=None, pull=None, value=None):
        self.number = number
        self.level = value
        self.pull = None
        BOARD.pins[number] = self
        self.init(mode, pull, value)

    def init(self, mode=None, pull=None, value=None):
        self.mode = mode
        if pull is not None:
            self.pull = pull
        if value is not None:
            self.level = value

    def value(self, level=None):
        ns = BOARD.main_ns
        if level is None:
            if self.number == ns["MAINTENANCE_PIN"]:
                return 0 if BOARD.jumper else 1  # the jumper to GND: main.py keeps the REPL
            return self.read_column()
        rising = self.level == 0 and level == 1
        falling = self.level == 1 and level == 0
        self.level = level
        if ns["MATRIX"] != "shift-register":
            return
        if rising and self.number == ns["RCLK_PIN"]:
            BOARD.chain.latch()
        if falling and self.number == ns["PL_PIN"]:
            BOARD.chain.load()

    def read_column(self):
        """A column of the direct-pin matrix: low while a row driven low closes a switch on it."""
        ns = BOARD.main_ns
        rows, cols = ns["ROW_PINS"], ns["COL_PINS"]
        if ns["MATRIX"] != "pins" or self.number not in cols:
            raise NotImplementedError("pin %d read: only the pin matrix's columns and the "
                                      "maintenance jumper have inputs on this board" % self.number)
        if self.mode != Pin.IN or self.pull != Pin.PULL_UP:
            raise RuntimeError("column pin %d read without being an input with its pull-up" % self.number)
        grid = BOARD.matrix(len(rows), len(cols))
        if BOARD.hands:
            BOARD.move_hands()  # the hand where it is at this very read
        c = cols.index(self.number)
        last_row = BOARD.pins.get(rows[-1])
        if c == len(cols) - 1 and last_row is not None and last_row.mode == Pin.OUT \
                and last_row.level == 0:
            BOARD.scans += 1  # the last column of the last row read: a whole scan
        for r in range(len(rows)):
            row = BOARD.pins.get(rows[r])
            if row is not None and row.mode == Pin.OUT and row.level == 0 \
                    and grid[r * len(cols) + c]:
                return 0
        return 1


class SPI:
    def __init__(self, spi_id, baudrate=1000000, polarity=0, phase=0, sck=None, mosi=None,
                 miso=None):
        if polarity != 0 or phase != 0:
            raise ValueError("the 74HC595/165 chain wants SPI mode 0")
        # The board behind the chips, as main.py's wiring says (ROWS, COLS).
        rows, cols = BOARD.main_ns["ROWS"], BOARD.main_ns["COLS"]
        BOARD.chain = Chain(rows, cols, BOARD.matrix(rows, cols))

    def write_readinto(self, out, into):
        if len(out) != len(into):
            raise ValueError("write_readinto: buffers of different lengths")
        BOARD.chain.transfer(out, into)


class Machine:
    @staticmethod
    def reset():
        # A Pico's hard reset: this process ends (code 3); the host test boots the files again.
        say("reset")
        sys.exit(3)


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


def run_boot_file():
    """boot.py before main.py, as the rp2 port runs them (an update's journal is finished
    there); in the current directory, which is the flash on a device test."""
    try:
        f = open(FIRMWARE_DIR + "/boot.py")
    except OSError:
        return
    code = f.read()
    f.close()
    exec(code, {"__name__": "boot"})


run_boot_file()
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

"""treeboard bridge firmware for an RP2040 running MicroPython (runs at boot as main.py).

Copy main.py, controller.py, protocol.py and shiftreg.py to the board (see
firmware_bridge/README.md). Edit the wiring below to match your board. The logic lives in
controller.py (and shiftreg.py for a shift-register matrix); this file is only the hardware
shim: the matrix, the NeoPixel strip and the USB serial line.
"""

import hashlib
import sys
import time

import machine
import micropython
import neopixel
import os
import select

import protocol
from controller import Controller
from shiftreg import ShiftRegisterMatrix

# --- wiring (edit to match the board) ---------------------------------------------------
# Rows are driven low one at a time; columns have pull-ups, so a closed reed switch pulls its
# column low while its row is selected. A diode per switch stops ghosting.
#
# MATRIX = "pins": rows and columns on GPIOs. The default is a 5 x 8 matrix (40 sensors: the
# 29 grooves and 11 holes of a Tree Planting board) and a 40-LED strip.
#
# MATRIX = "shift-register": a Pico breaks out 26 GPIOs, too few for a 20 x 20 Arbos board
# (40 lines), so 74HC595s drive the rows and 74HC165s read the columns, all on SPI0
# (firmware_bridge/SHIFT-REGISTERS.md). For it set MATRIX = "shift-register", ROWS = COLS = 20,
# LED_COUNT = 400.
MATRIX = "pins"
ROW_PINS = (0, 1, 2, 3, 4)
COL_PINS = (5, 6, 7, 8, 9, 10, 11, 12)
ROWS, COLS = 20, 20           # shift-register only: the matrix's size
SPI_ID, SPI_BAUD = 0, 4_000_000  # 74HC595/165 at 3.3 V are good for far more; 4 MHz is robust
SCK_PIN, MOSI_PIN, MISO_PIN = 2, 3, 4  # SPI0: SCK to both chains, MOSI to the first 595's SER,
                                       # MISO from the first 165's QH
RCLK_PIN = 5                  # the 595s' RCLK (storage clock), all in parallel
PL_PIN = 6                    # the 165s' /PL (parallel load), all in parallel
SETTLE_US = 5                 # a row's column lines settle (pull-ups, diode capacitance)
LED_PIN = 16
LED_COUNT = 40
# Hold this pin low (a jumper to GND) while powering up to skip the bridge and keep the REPL.
# Only a firmware older than release 3 needs it for an update: from 3 on the host stops the
# bridge with a MAINTENANCE frame (`treeboard firmware update`), no jumper.
MAINTENANCE_PIN = 22
# The one debounce on a bridge board (the host adds none): a cell changes after 4 equal scans
# 2 ms apart, so a reading that holds under 6 ms (reed bounce, a rod rolling in its groove, a
# magnet carried over a cell) never counts and one that holds 8 ms always does
# (docs/hardware.md, "Debounce").
SCAN_MS = 2
DEBOUNCE_SCANS = 4
# --- end of wiring: an update keeps the lines above as this board has them (flash.py)


class ShiftBus:
    """The bus shiftreg.ShiftRegisterMatrix scans through: SPI0 and two strobe pins."""

    def __init__(self):
        Pin = machine.Pin
        self.spi = machine.SPI(SPI_ID, baudrate=SPI_BAUD, polarity=0, phase=0,
                               sck=Pin(SCK_PIN), mosi=Pin(MOSI_PIN), miso=Pin(MISO_PIN))
        self.rclk = Pin(RCLK_PIN, Pin.OUT, value=0)
        self.pl = Pin(PL_PIN, Pin.OUT, value=1)

    def transfer(self, out, into):
        self.spi.write_readinto(out, into)

    def latch(self):
        self.rclk.value(1)  # rising edge: the 595s' outputs take the shifted pattern
        self.rclk.value(0)

    def load(self):
        self.pl.value(0)    # low: the 165s capture their inputs
        self.pl.value(1)

    def settle(self):
        time.sleep_us(SETTLE_US)


class Rp2040:
    def __init__(self):
        if MATRIX == "shift-register":
            self.matrix = ShiftRegisterMatrix(ShiftBus(), ROWS, COLS)
            self.shape = (ROWS, COLS)
        else:
            self.matrix = None
            self.rows = [machine.Pin(p, machine.Pin.IN) for p in ROW_PINS]  # high-Z when idle
            self.cols = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in COL_PINS]
            self.shape = (len(ROW_PINS), len(COL_PINS))
        self.strip = neopixel.NeoPixel(machine.Pin(LED_PIN), LED_COUNT)
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)
        self.stdin = sys.stdin.buffer
        self.stdout = sys.stdout.buffer

    ticks_ms = staticmethod(time.ticks_ms)
    ticks_diff = staticmethod(time.ticks_diff)

    def read(self):
        data = bytearray()
        # one byte at a time: stdin has no non-blocking bulk read; cap it so scans keep time
        while len(data) < 512 and self.poll.poll(0):
            data.extend(self.stdin.read(1))
        return data

    def write(self, data):
        self.stdout.write(data)

    def scan(self):
        if self.matrix is not None:
            return self.matrix.scan()
        masks = []
        for row in self.rows:
            row.init(machine.Pin.OUT, value=0)
            time.sleep_us(10)  # let the column lines settle
            m = 0
            for c, col in enumerate(self.cols):
                if col.value() == 0:
                    m |= 1 << c
            masks.append(m)
            row.init(machine.Pin.IN)
        return masks

    def show(self, rgb):
        # Straight into the driver's buffer in the strip's own order (a WS2812 wants G, R, B):
        # one tuple per pixel through strip[i] = ... costs 400 allocations a frame.
        buf = self.strip.buf
        order = self.strip.ORDER  # e.g. (1, 0, 2, 3): where r, g, b go within a pixel
        bpp = self.strip.bpp
        for i in range(LED_COUNT):
            j = bpp * i
            k = 3 * i
            buf[j + order[0]] = rgb[k]
            buf[j + order[1]] = rgb[k + 1]
            buf[j + order[2]] = rgb[k + 2]
        self.strip.write()


_digests = []


def digests():
    """Each firmware file's digest as protocol.file_digest reads it (the host compares). Read
    once: the files do not change while the bridge runs, and hashing ~40 KB holds the scans
    up for a moment on an RP2040."""
    if _digests:
        return _digests
    out = []
    for name in protocol.FIRMWARE_FILES:
        try:
            f = open(name, "rb")
        except OSError:
            out.append((name, b""))  # not on the flash: reported as zeros
            continue
        try:
            out.append((name, protocol.file_digest(f.readline, hashlib.sha256)))
        finally:
            f.close()
    _digests.extend(out)
    return _digests


def main():
    if machine.Pin(MAINTENANCE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        print("treeboard bridge: maintenance jumper set, staying in the REPL")
        return
    # The line carries binary frames: a 0x03 byte must not raise KeyboardInterrupt.
    micropython.kbd_intr(-1)
    hw = Rp2040()
    rnd = os.urandom(2)
    boot_id = (rnd[0] << 8) | rnd[1]
    fw = Controller(hw, hw.shape[0], hw.shape[1], LED_COUNT, boot_id,
                    scan_ms=SCAN_MS, debounce_scans=DEBOUNCE_SCANS, digests=digests)
    fw.boot()
    while not fw.stopped:
        fw.poll()
        time.sleep_ms(1)
    # The host asked for the REPL (an update): Ctrl-C works again, and the REPL that follows
    # main.py takes the line, where mpremote's raw REPL (Ctrl-A) finds it.
    micropython.kbd_intr(3)
    print("treeboard bridge: stopped for maintenance")


main()

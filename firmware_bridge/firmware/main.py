"""treeboard bridge firmware for an RP2040 running MicroPython (runs at boot as main.py).

Copy main.py, controller.py and protocol.py to the board (see firmware_bridge/README.md).
Edit the pin lists below to match your wiring. The logic lives in controller.py; this file
is only the hardware shim: matrix pins, the NeoPixel strip and the USB serial line.
"""

import sys
import time

import machine
import micropython
import neopixel
import os
import select

from controller import Controller

# --- wiring (edit to match the board) ---------------------------------------------------
# Rows are driven low one at a time; columns are inputs with pull-ups, so a closed reed
# switch pulls its column low while its row is selected. A diode per switch stops ghosting.
# The default is a 5 x 8 matrix (40 sensors: the 29 grooves and 11 holes of a Tree Planting
# board) and a 40-LED strip. A Pico breaks out 26 GPIOs, so a 20 x 20 Arbos board needs 74HC595
# / 74HC165 shift registers in front of the matrix: replace Rp2040.scan, nothing else changes.
ROW_PINS = (0, 1, 2, 3, 4)
COL_PINS = (5, 6, 7, 8, 9, 10, 11, 12)
LED_PIN = 16
LED_COUNT = 40
# Hold this pin low (a jumper to GND) while powering up to skip the bridge and keep the REPL,
# e.g. to copy a new version with mpremote: the bridge switches Ctrl-C off, see main().
MAINTENANCE_PIN = 22
SCAN_MS = 5
DEBOUNCE_SCANS = 3


class Rp2040:
    def __init__(self):
        self.rows = [machine.Pin(p, machine.Pin.IN) for p in ROW_PINS]  # high-Z when idle
        self.cols = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in COL_PINS]
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
        out = []
        for row in self.rows:
            row.init(machine.Pin.OUT, value=0)
            time.sleep_us(10)  # let the column lines settle
            for col in self.cols:
                out.append(col.value() == 0)
            row.init(machine.Pin.IN)
        return out

    def show(self, rgb):
        strip = self.strip
        for i in range(LED_COUNT):
            strip[i] = (rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])
        strip.write()


def main():
    if machine.Pin(MAINTENANCE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        print("treeboard bridge: maintenance jumper set, staying in the REPL")
        return
    # The line carries binary frames: a 0x03 byte must not raise KeyboardInterrupt.
    micropython.kbd_intr(-1)
    hw = Rp2040()
    rnd = os.urandom(2)
    boot_id = (rnd[0] << 8) | rnd[1]
    fw = Controller(hw, len(ROW_PINS), len(COL_PINS), LED_COUNT, boot_id,
                    scan_ms=SCAN_MS, debounce_scans=DEBOUNCE_SCANS)
    fw.boot()
    while True:
        fw.poll()
        time.sleep_ms(1)


main()

# MicroPython code: run by benchmarks/firmware_micropython.py on the unix port, and as it is on
# a Pico with the firmware flashed (mpremote run benchmarks/firmware_mpy_scan.py).
"""The firmware's live heap and a scan's time per pass on a 20 x 20 board, under MicroPython.

Prints one line per figure, `name value`:
- heap_before: gc.mem_alloc() after a collection, before the firmware's modules are imported;
- heap_modules: the same after importing protocol, controller, shiftreg (their bytecode is in the
  heap when they are .py files, as on the Pico);
- heap_live: the same with a 20 x 20 Controller booted, a 400-LED frame taken and acknowledged,
  a change debounced and repeated (what the firmware holds between two scans);
- scan_idle_us / scan_busy_us: one Controller.scan() through ShiftRegisterMatrix.scan() over a
  bus that costs nothing (no SPI, no chips: MicroPython's own share, the interpreter's work per
  row), on an idle board, and with one cell in every row counting (the debounce's worst case);
- loop_us: a reference loop (100,000 iterations of an add and a compare), to scale by.
"""

import gc
import sys
import time

gc.collect()
heap_before = gc.mem_alloc()

import protocol  # noqa: E402
import controller  # noqa: E402
import shiftreg  # noqa: E402

gc.collect()
heap_modules = gc.mem_alloc()

ROWS = COLS = 20
LEDS = 400


class Bus:
    """No chips: every transfer reads the columns this row pattern was given."""

    def __init__(self):
        self.columns = bytearray(b"\xff\xff\xff")

    def transfer(self, out, into):
        into[0] = self.columns[0]
        into[1] = self.columns[1]
        into[2] = self.columns[2]

    def latch(self):
        pass

    def load(self):
        pass

    def settle(self):
        pass


class Hw:
    def __init__(self, matrix):
        self.matrix = matrix
        self.out = 0
        self.now = 0

    def ticks_ms(self):
        return self.now

    def ticks_diff(self, a, b):
        return a - b

    def read(self):
        return b""

    def write(self, data):
        self.out += len(data)

    def scan(self):
        return self.matrix.scan()

    def show(self, rgb):
        pass


bus = Bus()
hw = Hw(shiftreg.ShiftRegisterMatrix(bus, ROWS, COLS))
fw = controller.Controller(hw, ROWS, COLS, LEDS, 0x1234)
fw.boot()
frame = protocol.Encoder().led_frame(bytes(i % 251 for i in range(3 * LEDS)))
for msg in protocol.FrameDecoder().feed(frame):
    fw.handle(msg)
bus.columns[0] = 0xFE  # column 0 closed (on every row: the bus ignores the row)
for _ in range(fw.debounce_scans):
    fw.scan()
fw.repeat()
bus.columns[0] = 0xFF
for _ in range(fw.debounce_scans):
    fw.scan()
gc.collect()
heap_live = gc.mem_alloc()


def timed(n, fn):
    t0 = time.ticks_us()
    for _ in range(n):
        fn()
    return time.ticks_diff(time.ticks_us(), t0) / n


N = 200
scan_idle = timed(N, fw.scan)


def busy():
    # column 0 flips every scan: every row has a cell counting, none ever reaches the debounce
    bus.columns[0] ^= 0x01
    fw.scan()


scan_busy = timed(N, busy)


def reference():
    x = 0
    for i in range(100000):
        x += i
        if x > 1000000000:
            x = 0


loop = timed(3, reference)
print("implementation", sys.implementation.name, sys.platform)
print("heap_before", heap_before)
print("heap_modules", heap_modules)
print("heap_live", heap_live)
print("scan_idle_us", scan_idle)
print("scan_busy_us", scan_busy)
print("loop_us", loop)

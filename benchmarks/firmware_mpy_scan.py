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

On a Pico (sys.platform "rp2") it goes on with main.py's own hardware shim, built from the
main.py flashed beside the firmware's files (its wiring as edited there; its main() is not
run): `Rp2040()` (the SPI bus or the pins, the strip, the serial poll) and a Controller on it:
- wired_scan_idle_us: one Controller.scan() through the real bus (SPI at SPI_BAUD and the
  row's settle, or the pin matrix's drive-and-read), on the board as it lies;
- wired_show_us: one `Rp2040.show()` of a whole frame (the reordering into the driver's buffer
  and the strip's write, which blocks the main loop: 30 us a pixel at 800 kHz);
- wired_matrix: which matrix main.py is wired for, and its size.
Elsewhere these print as `n/a`.

On a Pico the bridge's main.py holds the USB line and ignores Ctrl-C, so `mpremote` cannot
interrupt it: power it up with the maintenance jumper (GP22 to GND, firmware_bridge/README.md),
then `mpremote run benchmarks/firmware_mpy_scan.py`. It lights nothing (the strip is written
dark) and sends nothing on the line but these lines.
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


def main_py_source():
    """main.py's text (beside the firmware's modules on sys.path; / on a Pico), without the
    call of main() at its end: its wiring, ShiftBus and Rp2040, and nothing run."""
    for folder in sys.path:
        try:
            f = open((folder or "") + "/main.py")
        except OSError:
            continue
        text = f.read()
        f.close()
        if "\nmain()" in text:
            return text.replace("\nmain()", "\n")
    return None


def wired():
    """The figures through main.py's own shim, on a Pico; None elsewhere."""
    if sys.platform != "rp2" and not globals().get("SHIMMED_PICO"):
        # (the unix port has a `machine` of its own, but no pins, SPI or strip; a test runs
        # this part with `machine` and `neopixel` shimmed and SHIMMED_PICO set)
        return None
    source = main_py_source()
    if source is None:
        raise OSError("no main.py with a main() beside the firmware's files: flash all four")
    ns = {"__name__": "main_py"}
    exec(source, ns)
    rp = ns["Rp2040"]()
    # Its frames stay here: the USB line is mpremote's now, and a frame's 0x04 byte would end
    # mpremote's raw-REPL output.
    rp.write = lambda data: None
    rows, cols = rp.shape
    leds = ns["LED_COUNT"]
    wired_fw = controller.Controller(rp, rows, cols, leds, 0x4321)
    wired_fw.boot()
    dark = bytearray(3 * leds)
    figures = {"wired_matrix": "%s %dx%d, %d LEDs" % (ns["MATRIX"], rows, cols, leds),
               "wired_scan_idle_us": timed(N, wired_fw.scan),
               "wired_show_us": timed(10, lambda: rp.show(dark))}
    return figures


pico = wired()
print("implementation", sys.implementation.name, sys.platform)
print("heap_before", heap_before)
print("heap_modules", heap_modules)
print("heap_live", heap_live)
print("scan_idle_us", scan_idle)
print("scan_busy_us", scan_busy)
print("loop_us", loop)
for name in ("wired_matrix", "wired_scan_idle_us", "wired_show_us"):
    print(name, "n/a" if pico is None else pico[name])

"""firmware/main.py, the RP2040 shim, run on CPython against fake MicroPython modules: the
matrix scan (GPIO pins, and 74HC595/74HC165 on SPI against the simulated chips), the strip,
the maintenance jumper and the Ctrl-C switch."""

from __future__ import annotations

import builtins
import re
import types
from pathlib import Path

import pytest

from firmware_bridge.firmware import controller, protocol, shiftreg
from firmware_bridge.shiftchain import SimulatedShiftChain

MAIN = Path(protocol.__file__).parent / "main.py"


class FakePin:
    IN, OUT, PULL_UP = "in", "out", "pull_up"

    def __init__(self, board, number, mode=None, pull=None, value=None):
        self.board, self.number = board, number
        board.pins[number] = self
        self.init(mode, pull, value)

    def init(self, mode=None, pull=None, value=None):
        self.mode = mode
        self.level = value

    def value(self, level=None):
        if level is not None:  # an output: RCLK and /PL strobe the simulated chips
            rising = self.level == 0 and level == 1
            falling = self.level == 1 and level == 0
            self.level = level
            chain = self.board.chain
            if chain is not None and rising and self.number == self.board.ns["RCLK_PIN"]:
                chain.latch()
            if chain is not None and falling and self.number == self.board.ns["PL_PIN"]:
                chain.load()
            return None
        if self.number == self.board.ns["MAINTENANCE_PIN"]:
            return 0 if self.board.jumper else 1
        # a column reads low when a closed reed connects it to the row driven low
        for r, row_pin in enumerate(self.board.ns["ROW_PINS"]):
            row = self.board.pins.get(row_pin)
            c = self.board.ns["COL_PINS"].index(self.number)
            if row is not None and row.mode == FakePin.OUT and row.level == 0 and (r, c) in self.board.closed:
                return 0
        return 1


class FakeBoard:
    def __init__(self, jumper):
        self.jumper = jumper
        self.pins = {}
        self.closed = set()
        self.strip = None
        self.kbd_intr = None
        self.ns = {}
        self.chain = None  # a SimulatedShiftChain behind the fake SPI
        self.spi_args = None

    def modules(self):
        board = self

        class NeoPixel:  # as micropython-lib's: a GRB buffer, ORDER says where r, g, b go
            ORDER = (1, 0, 2, 3)

            def __init__(self, pin, n, bpp=3):
                self.n, self.bpp = n, bpp
                self.buf = bytearray(n * bpp)
                self.written = None
                board.strip = self

            def write(self):
                b = self.buf
                self.written = [(b[3 * i + 1], b[3 * i], b[3 * i + 2]) for i in range(self.n)]

        class SPI:
            def __init__(self, *args, **kwargs):
                board.spi_args = (args, kwargs)

            def write_readinto(self, out, into):
                assert len(out) == len(into)
                board.chain.transfer(out, into)

        machine = types.SimpleNamespace(Pin=lambda *a, **k: FakePin(board, *a, **k), SPI=SPI)
        machine.Pin.IN, machine.Pin.OUT, machine.Pin.PULL_UP = FakePin.IN, FakePin.OUT, FakePin.PULL_UP

        def kbd_intr(c):
            board.kbd_intr = c
            raise SystemExit  # stop before the endless main loop

        return {
            "machine": machine,
            "neopixel": types.SimpleNamespace(NeoPixel=NeoPixel),
            "micropython": types.SimpleNamespace(kbd_intr=kbd_intr),
            "time": types.SimpleNamespace(ticks_ms=lambda: 0, ticks_diff=lambda a, b: a - b,
                                          sleep_us=lambda us: None, sleep_ms=lambda ms: None),
            "select": types.SimpleNamespace(poll=lambda: types.SimpleNamespace(register=lambda *a: None,
                                                                               poll=lambda t: []),
                                            POLLIN=1),
            "controller": controller,
            "protocol": protocol,
            "shiftreg": shiftreg,
        }


def run_main(board, **settings):
    fakes = board.modules()
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        return fakes[name] if name in fakes else real_import(name, *args, **kwargs)

    ns = board.ns
    ns["__builtins__"] = {**vars(builtins), "__import__": fake_import}
    text = MAIN.read_text()
    for name, value in settings.items():  # what a maker edits at the top of main.py
        text, n = re.subn(rf"^{name} = .*$", f"{name} = {value!r}", text, count=1, flags=re.M)
        assert n == 1, name
    code = compile(text, str(MAIN), "exec")
    try:
        exec(code, ns)
    except SystemExit:
        pass
    return ns


def test_the_maintenance_jumper_keeps_the_repl(capsys):
    board = FakeBoard(jumper=True)
    run_main(board)
    assert "maintenance" in capsys.readouterr().out
    assert board.kbd_intr is None


def test_without_the_jumper_ctrl_c_is_switched_off():
    board = FakeBoard(jumper=False)
    run_main(board)
    assert board.kbd_intr == -1


def test_the_matrix_scan_and_the_strip():
    board = FakeBoard(jumper=True)
    ns = run_main(board)
    hw = ns["Rp2040"]()
    cols = len(ns["COL_PINS"])
    board.closed = {(0, 0), (2, 5), (4, 7)}
    reading = hw.scan()
    assert reading == [1 << 0, 0, 1 << 5, 0, 1 << 7] and hw.shape == (len(ns["ROW_PINS"]), cols)
    assert all(board.pins[p].mode == FakePin.IN for p in ns["ROW_PINS"])  # rows left high-Z
    rgb = bytes(range(3 * ns["LED_COUNT"]))
    hw.show(rgb)
    assert board.strip.written[1] == (3, 4, 5) and len(board.strip.written) == ns["LED_COUNT"]


def test_the_shift_register_matrix_on_spi():
    board = FakeBoard(jumper=True)
    ns = run_main(board, MATRIX="shift-register", LED_COUNT=400)
    rows, cols = ns["ROWS"], ns["COLS"]
    cells = bytearray(rows * cols)
    board.chain = SimulatedShiftChain(rows, cols, cells)
    hw = ns["Rp2040"]()
    assert board.spi_args[1]["polarity"] == 0 and board.spi_args[1]["phase"] == 0
    assert hw.shape == (20, 20) and hw.scan() == [0] * 20
    closed = [(0, 0), (0, 19), (7, 8), (8, 7), (19, 0), (19, 19), (12, 13)]
    for r, c in closed:
        cells[r * cols + c] = 1
    masks = hw.scan()
    assert sorted((r, c) for r in range(rows) for c in range(cols) if masks[r] >> c & 1) == sorted(closed)
    assert board.chain.storage == (1 << 24) - 1  # every row high again between scans

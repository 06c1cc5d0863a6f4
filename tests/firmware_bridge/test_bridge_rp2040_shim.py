"""firmware/main.py, the RP2040 shim, run on CPython against fake MicroPython modules: the
matrix scan, the strip, the maintenance jumper and the Ctrl-C switch."""

from __future__ import annotations

import builtins
import types
from pathlib import Path

import pytest

from firmware_bridge.firmware import controller, protocol

MAIN = Path(protocol.__file__).parent / "main.py"


class FakePin:
    IN, OUT, PULL_UP = "in", "out", "pull_up"

    def __init__(self, board, number, mode=None, pull=None):
        self.board, self.number = board, number
        board.pins[number] = self
        self.init(mode, pull)

    def init(self, mode=None, pull=None, value=None):
        self.mode = mode
        self.level = value

    def value(self):
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

    def modules(self):
        board = self
        machine = types.SimpleNamespace(Pin=lambda *a, **k: FakePin(board, *a, **k))
        machine.Pin.IN, machine.Pin.OUT, machine.Pin.PULL_UP = FakePin.IN, FakePin.OUT, FakePin.PULL_UP

        class NeoPixel(list):
            def __init__(self, pin, n):
                super().__init__([(0, 0, 0)] * n)
                self.written = None
                board.strip = self

            def write(self):
                self.written = list(self)

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
        }


def run_main(board):
    fakes = board.modules()
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        return fakes[name] if name in fakes else real_import(name, *args, **kwargs)

    ns = board.ns
    ns["__builtins__"] = {**vars(builtins), "__import__": fake_import}
    code = compile(MAIN.read_text(), str(MAIN), "exec")
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
    assert len(reading) == len(ns["ROW_PINS"]) * cols
    assert [i for i, on in enumerate(reading) if on] == [0, 2 * cols + 5, 4 * cols + 7]
    assert all(board.pins[p].mode == FakePin.IN for p in ns["ROW_PINS"])  # rows left high-Z
    rgb = bytes(range(3 * ns["LED_COUNT"]))
    hw.show(rgb)
    assert board.strip.written[1] == (3, 4, 5) and len(board.strip.written) == ns["LED_COUNT"]

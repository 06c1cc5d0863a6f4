"""Shared helpers for the hardware tests: a fake clock and small layouts written to tmp files."""

from __future__ import annotations

import textwrap

import pytest

from hardware.layout import load_layout


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


@pytest.fixture
def clock():
    return FakeClock()


#: A 3x3 grid (a1..c3) with one site on a direct pin and the rest on a 3x3 matrix: small
#: enough to read, and its sites are computable without any game module.
GRID_LAYOUT = """
[board]
grid = "3x3"

[sensors]
debounce_ms = 20

[sensors.pins]
pull = "up"
active_low = true
[sensors.pins.sites]
c3 = 4

[sensors.matrix]
rows = [5, 6, 12]
cols = [13, 16, 17]
settle_us = 10
scan_period_ms = 5
sites = [
    "a1 b1 c1",
    "a2 b2 c2",
    "a3 b3 -",
]

[leds]
pin = 18
count = 10
pixel_order = "GRB"
brightness = 1.0
max_milliamps = 10000
gamma = 1.0
chain = ["a1", "b1", "c1", "c2", "b2", "a2", "a3", "b3", "c3"]
named = { turn = 9 }

[buttons]
end_turn = 26
"""


@pytest.fixture
def write_layout(tmp_path):
    """write_layout(text, name="board") -> path of a layout file holding `text`."""

    def write(text: str, name: str = "board"):
        path = tmp_path / f"{name}.toml"
        path.write_text(textwrap.dedent(text))
        return path

    return write


@pytest.fixture
def grid_text():
    """The text of GRID_LAYOUT, for tests that change one line of it."""
    return GRID_LAYOUT


@pytest.fixture
def grid_layout(write_layout):
    return load_layout(write_layout(GRID_LAYOUT, "grid3"))

"""The simulated board under two threads: the scan thread and the hands (the input thread).

`sys.setswitchinterval(1e-6)` makes the interpreter switch threads every few bytecodes, so a
structure the two threads share without a lock breaks within a few thousand actions.
"""

import random
import sys
import threading

import pytest

from hardware.layout import load_layout
from hardware.sim import SimulatedBoard


@pytest.fixture
def busy_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


@pytest.fixture
def thread_errors(monkeypatch):
    """Exceptions that ended a thread (the scan thread dies silently otherwise)."""
    errors = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(args.exc_value))
    return errors


def _hands(board, sites, actions, seed):
    rng = random.Random(seed)
    down = set()
    for _ in range(actions):
        site = rng.choice(sites)
        if site in down:
            board.lift(site)
            down.discard(site)
        else:
            board.place(site, _kind(board) if board.layout.adc is not None else None)
            down.add(site)
    return down


def _kind(board):
    return next(k for k in board.layout.adc.kinds if k)


@pytest.mark.parametrize("layout_name,diodes", [
    ("tree-planting-classic-matrix", True),
    ("tree-planting-classic-matrix", False),
    ("treeblox-adc", True),
])
def test_thousands_of_place_and_lift_while_the_scan_thread_runs(layout_name, diodes, busy_switching,
                                                                thread_errors):
    layout = load_layout(layout_name)
    board = SimulatedBoard(layout, autoscan=True, diodes=diodes)
    for source in board.source.sources:
        source.period_s = 0.0  # scan back to back: the most overlap with the hands
    board.source.start(lambda event: None)
    sites = [s for s in layout.channels_of_site]
    try:
        down = _hands(board, sites, 3000 if layout.matrix is not None else 600, seed=len(layout_name))
        assert thread_errors == []
        assert board.source.health() is None
        board.scan_once()
        seen = {layout.site_of_channel[ch] for ch, v in board.source.snapshot().items() if v}
        if diodes:
            assert seen == down
        else:
            assert down <= seen  # ghosts may add sites; none may go missing
    finally:
        board.close()
    assert thread_errors == []

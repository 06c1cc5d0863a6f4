"""Shared fixtures of the board-level tests."""

import pytest

from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer


@pytest.fixture
def tracer(tmp_path):
    """Makes simulated boards (`tracer(layout=..., moves=...)`: sim config overrides), each
    with its journal in the test's directory, and closes them after the test."""
    made = []

    def make(**overrides):
        cfg = sim_config(journal=str(tmp_path / "journal.sqlite"), **overrides)
        t = Tracer(cfg)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


@pytest.fixture
def broker(tmp_path):
    """A real Mosquitto on a free localhost port, for the remote-play tests (tests/broker.py)."""
    from tests.broker import Broker

    b = Broker(tmp_path)
    b.start()
    yield b
    b.stop()

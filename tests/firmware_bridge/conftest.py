"""Fixtures for the bridge tests: a simulated firmware on a real pty, a host link with fast
timings (fast.py), and a check that nothing is left running after a test. Tests import what
they share by its own module (tests/waits.py, fast.py, gameplay.py), never from conftest."""

from __future__ import annotations

import threading
import time

import pytest

from firmware_bridge.host import open_bridge
from firmware_bridge.sim import start_simulated_firmware
from tests.firmware_bridge.fast import FAST, FAST_FIRMWARE
from tests.waits import Deadline


@pytest.fixture(autouse=True)
def no_threads_left():
    before = set(threading.enumerate())
    yield
    # close()/stop() join their threads; give a just-ended thread a moment to leave the list
    deadline = Deadline(2)
    while True:
        left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not left:
            return
        if deadline.passed():
            pytest.fail(f"threads left running: {left}")
        time.sleep(0.005)


@pytest.fixture
def make_firmware():
    started = []

    def make(rows=5, cols=8, leds=40, **options):
        options = {**FAST_FIRMWARE, **options}
        fw = start_simulated_firmware(rows, cols, leds, **options)
        started.append(fw)
        return fw

    yield make
    for fw in started:
        fw.stop()


@pytest.fixture
def make_bridge():
    opened = []

    def make(port, **options):
        options.setdefault("timings", FAST)
        source, sink = open_bridge(port, **options)
        opened.append((source, sink))
        return source, sink

    yield make
    for source, sink in opened:
        source.close()
        sink.close()


def pytest_collection_modifyitems(items):
    # An exception in the link or firmware thread is a failure here, not a warning.
    for item in items:
        if "firmware_bridge" in str(item.path):
            item.add_marker(pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning"))

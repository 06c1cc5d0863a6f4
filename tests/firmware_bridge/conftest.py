"""Fixtures for the bridge tests: a simulated firmware on a real pty, a host link with fast
timings, bounded polling (tests/waits.py's, its deadlines stretched on a busy machine), and a
check that nothing is left running after a test."""

from __future__ import annotations

import threading
import time

import pytest

from firmware_bridge.host import BridgeTimings, open_bridge
from firmware_bridge.sim import start_simulated_firmware
from tests.waits import Deadline, wait_for  # noqa: F401  (the bridge tests' bounded poll)

#: Fast enough for tests, with the same ratios as the defaults (timeout = 4+ heartbeats).
FAST = BridgeTimings(heartbeat_interval=0.02, heartbeat_timeout=0.25, ack_timeout=0.06,
                     backoff_initial=0.01, backoff_max=0.1)
FAST_FIRMWARE = {"heartbeat_ms": 20, "host_timeout_ms": 2000}


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

"""BridgeSensorSource.health(): what the daemon's watchdog asks every source. None while the
firmware is heard from; one sentence naming the bridge and what stopped otherwise."""

from __future__ import annotations

import pytest

from conftest import wait_for
from hardware.base import PRESENT

pytestmark = pytest.mark.timeout(20)


def test_healthy_while_the_firmware_is_heard_from(make_firmware, make_bridge):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    fw.place(4)
    wait_for(lambda: source.snapshot()[4] == PRESENT)
    assert source.health() is None


def test_a_silent_firmware_is_named_and_recovers(make_firmware, make_bridge):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    with fw._lock:  # the firmware's loop is stuck: no heartbeat, no scan
        said = wait_for(source.health, 2.0, "health() to notice the silence")
    assert said.startswith(f"bridge on {fw.port}: no heartbeat or change from the firmware for ")
    wait_for(lambda: source.health() is None, 2.0, "health() to recover once the firmware speaks")


def test_an_unplugged_firmware_says_why(make_firmware, make_bridge):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    fw.unplug()
    said = wait_for(lambda: source.health() if "disconnected" in (source.health() or "") else None,
                    2.0, "health() to report the lost line")
    assert "cannot open" in said or "serial line failed" in said or "no valid frame" in said
    fw.replug()
    wait_for(lambda: source.health() is None, 3.0, "health() to recover after the replug")


def test_a_dead_link_thread_is_named(make_firmware, make_bridge, caplog):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    link = source.link

    def broken(msg):
        raise RuntimeError("a bug in the frame handler")

    link._handle = broken  # the next frame from the firmware kills the thread
    said = wait_for(source.health, 2.0, "health() to notice the dead thread")
    assert said == f"bridge on {fw.port}: its link thread has stopped (RuntimeError: a bug in the frame handler)"
    assert "link thread died" in caplog.text
    # closing a source whose thread is gone still works, and then nobody asks
    source.close()
    sink.close()
    assert source.health() is None

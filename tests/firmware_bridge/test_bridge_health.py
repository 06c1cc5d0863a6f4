"""BridgeSensorSource.health(): what the daemon's watchdog asks every source. None while the
firmware is heard from; one sentence naming the bridge and what stopped otherwise."""

from __future__ import annotations

import pytest

from tests.waits import wait_for
from hardware.base import DIED, MISSING, PRESENT, SILENT

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
    assert said.kind == SILENT   # the board's few words: "no answer"
    wait_for(lambda: source.health() is None, 2.0, "health() to recover once the firmware speaks")


def test_an_unplugged_firmware_says_why(make_firmware, make_bridge):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    fw.unplug()
    said = wait_for(lambda: source.health() if "disconnected" in (source.health() or "") else None,
                    2.0, "health() to report the lost line")
    assert "cannot open" in said or "serial line failed" in said or "no valid frame" in said
    # once the port itself will not open, the board says the device is missing
    gone = wait_for(lambda: source.health() if "cannot open" in (source.health() or "") else None,
                    3.0, "health() to find the port gone")
    assert gone.kind == MISSING, gone
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
    assert said.kind == DIED
    assert "link thread died" in caplog.text
    # closing a source whose thread is gone still works, and then nobody asks
    source.close()
    sink.close()
    assert source.health() is None


def test_a_port_that_vanishes_mid_open_is_retried_not_the_end_of_the_link(make_firmware, make_bridge,
                                                                          monkeypatch):
    """A quick replug: the port opens, then pyserial's tcsetattr meets a vanished device and
    raises termios.error (no OSError). The link thread treated it as a bug and died (twice in
    about 8,000 replugs); it is a failed open, retried like any other."""
    import termios

    import serial

    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    link = source.link
    opened = serial.Serial.open
    failures = []

    def vanishing_open(self):
        if not failures:
            failures.append(self.port)
            raise termios.error(5, "Input/output error")
        return opened(self)

    monkeypatch.setattr(serial.Serial, "open", vanishing_open)
    fw.unplug()
    wait_for(lambda: source.health() if "disconnected" in (source.health() or "") else None,
             2.0, "the lost line")
    fw.replug()
    wait_for(lambda: source.health() is None, 5.0, "the link to reconnect after the failed open")
    assert failures and link.died is None and link._thread.is_alive()
    fw.place(4)
    wait_for(lambda: source.snapshot()[4] == PRESENT)


def test_a_dead_link_thread_is_revived_and_the_board_comes_back(make_firmware, make_bridge):
    fw = make_firmware()
    source, sink = make_bridge(fw.port)
    link = source.link
    handle = link._handle

    def broken(msg):
        link._handle = handle
        raise RuntimeError("a bug in the frame handler")

    link._handle = broken
    wait_for(source.health, 2.0, "health() to notice the dead thread")
    fw.place(5)   # while nobody listens
    source.revive()
    wait_for(lambda: source.health() is None, 5.0, "the revived link to hear the firmware")
    wait_for(lambda: source.snapshot()[5] == PRESENT)

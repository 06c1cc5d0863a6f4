"""The systemd notify protocol against real unix datagram sockets."""

import asyncio
import logging
import os
import socket
import uuid

import pytest

from board_driver.daemon.notify import Notifier, keep_watchdog
from tests.waits import scaled


@pytest.fixture
def listener(tmp_path):
    """A socket standing in for systemd's notification socket, bound in a temp dir."""
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(2.0)  # a missing datagram fails the test instead of hanging it
    yield path, sock
    sock.close()


def received(sock) -> list[str]:
    return sock.recv(4096).decode().split("\n")


def test_each_message_reaches_the_socket(listener):
    path, sock = listener
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": path})
    assert notifier.ready("playing tree-planting")
    assert received(sock) == ["READY=1", "STATUS=playing tree-planting"]
    assert notifier.ready()
    assert received(sock) == ["READY=1"]
    assert notifier.watchdog()
    assert received(sock) == ["WATCHDOG=1"]
    assert notifier.status("two lines\nbecome one")
    assert received(sock) == ["STATUS=two lines become one"]
    assert notifier.stopping()
    assert received(sock) == ["STOPPING=1"]
    assert notifier.reloading()
    reload_lines = received(sock)
    assert reload_lines[0] == "RELOADING=1"
    assert reload_lines[1].startswith("MONOTONIC_USEC=") and int(reload_lines[1].split("=")[1]) > 0
    notifier.close()


@pytest.fixture
def closing():
    """Closes the notifiers a test opens (each holds a socket once it sent something)."""
    opened = []
    yield lambda notifier: opened.append(notifier) or notifier
    for notifier in opened:
        notifier.close()


def test_abstract_namespace_address(closing):
    name = f"treeboard-test-{uuid.uuid4().hex}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(2.0)
    try:
        notifier = closing(Notifier.from_environment({"NOTIFY_SOCKET": "@" + name}))
        assert notifier.watchdog()
        assert sock.recv(4096) == b"WATCHDOG=1"
    finally:
        sock.close()


def test_without_notify_socket_everything_is_a_quiet_no_op(caplog):
    notifier = Notifier.from_environment({"WATCHDOG_USEC": "10000000"})
    assert not notifier.enabled
    with caplog.at_level(logging.DEBUG, logger="board_driver.daemon.notify"):
        assert notifier.ready("x") is False
        assert notifier.watchdog() is False
        assert notifier.stopping() is False
    assert caplog.records == []
    assert notifier.watchdog_interval() is None


def test_send_failures_are_logged_once_never_raised(tmp_path, caplog, closing):
    notifier = closing(Notifier.from_environment({"NOTIFY_SOCKET": str(tmp_path / "nobody-listens")}))
    with caplog.at_level(logging.DEBUG, logger="board_driver.daemon.notify"):
        assert notifier.ready() is False
        assert notifier.watchdog() is False
    levels = [r.levelno for r in caplog.records]
    assert levels == [logging.WARNING, logging.DEBUG]
    assert "nobody-listens" in caplog.records[0].getMessage()


def test_a_full_socket_drops_messages_instead_of_blocking(listener, closing):
    path, sock = listener  # never read: the receive queue fills up
    notifier = closing(Notifier(path))
    results = [notifier.watchdog() for _ in range(5000)]
    assert results[0] is True
    assert False in results


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"WATCHDOG_USEC": "10000000"}, 5.0),
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}, 5.0),
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid() + 1)}, None),
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "soon"}, None),
        ({}, None),
    ],
)
def test_watchdog_interval_is_half_the_period_and_only_for_our_pid(env, expected):
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": "/run/systemd/notify", **env})
    assert notifier.watchdog_interval() == expected


def test_keep_watchdog_pings_only_while_healthy(listener, closing):
    path, sock = listener
    notifier = closing(Notifier.from_environment({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"}))
    health = iter([True, True, False, True])
    slept = []

    class Done(Exception):
        pass

    async def fake_sleep(seconds):
        slept.append(seconds)
        if len(slept) == 4:
            raise Done

    with pytest.raises(Done):
        asyncio.run(keep_watchdog(notifier, lambda: next(health), sleep=fake_sleep))
    assert slept == [2.0] * 4
    pings = []
    sock.setblocking(False)  # unix datagrams are queued by the time sendto returns
    try:
        while True:
            pings.append(sock.recv(4096))
    except BlockingIOError:
        pass
    assert pings == [b"WATCHDOG=1"] * 3  # the unhealthy turn sent nothing


def test_keep_watchdog_returns_without_a_watchdog():
    notifier = Notifier.from_environment({})
    asyncio.run(asyncio.wait_for(keep_watchdog(notifier, lambda: True), timeout=scaled(2)))

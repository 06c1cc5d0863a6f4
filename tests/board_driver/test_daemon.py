"""The asyncio daemon on the simulated board: real loop, real clock, the matrix scan thread on
mock pins, and the systemd notify protocol over a real unix datagram socket."""

from __future__ import annotations

import asyncio
import os
import socket
import time

import pytest

from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.daemon.notify import Notifier
from tests.waits import scaled, wait_for
from web_harness import started


@pytest.fixture
def notify_socket(tmp_path):
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(scaled(10))   # (the daemon's READY, on a busy machine)
    yield path, sock
    sock.close()


def test_daemon_plays_moves_from_the_scan_thread_and_talks_to_systemd(tmp_path, notify_socket):
    path, sock = notify_socket
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000",
                                          "WATCHDOG_PID": str(os.getpid())})
    daemon = Daemon(sim_config(journal=str(tmp_path / "j.sqlite")), notifier=notifier)

    async def scenario():
        runner = asyncio.ensure_future(daemon.run())
        loop = asyncio.get_running_loop()
        ready = await loop.run_in_executor(None, sock.recv, 4096)
        assert ready.startswith(b"READY=1")
        board = daemon.session.hardware.board
        # The hands act from another thread, as a player's would on the real board.
        await loop.run_in_executor(None, board.place, "h0.0")
        ok = await loop.run_in_executor(None, wait_for,
                                        lambda: len(daemon.session.referee.state.moves) == 1)
        assert ok, "the rod was not played"
        strip = daemon.session.hardware.board.strip
        frames_before = strip.shows
        await loop.run_in_executor(None, board.place, "t2.2")  # a peg in an open square
        ok = await loop.run_in_executor(None, wait_for,
                                        lambda: daemon.session.referee.corrections)
        assert ok and [c.site for c in daemon.session.referee.corrections] == ["t2.2"]
        assert strip.shows > frames_before  # the correction was lit
        beats = []
        while len(beats) < 2:
            msg = await loop.run_in_executor(None, sock.recv, 4096)
            if msg == b"WATCHDOG=1":
                beats.append(msg)
        daemon.stop()
        await runner
        rest = []
        sock.settimeout(0.5)
        try:
            while True:
                rest.append(sock.recv(4096))
        except socket.timeout:
            pass
        assert b"STOPPING=1" in rest

    asyncio.run(scenario())
    assert daemon.session.journal is not None


def test_unhealthy_loop_withholds_the_watchdog(tmp_path):
    daemon = Daemon(sim_config(journal=str(tmp_path / "j.sqlite")), notifier=Notifier(None))

    async def scenario():
        daemon.loop = asyncio.get_running_loop()
        assert daemon.healthy()
        daemon._tick_handle = daemon.loop.call_at(daemon.loop.time() - 2.0, lambda: None)
        assert not daemon.healthy()
        daemon._tick_handle.cancel()

    asyncio.run(scenario())


def test_daemon_on_the_bridge_referees_through_the_simulated_firmware(tmp_path):
    """`treeboard sim --bridge`: the daemon opens the simulated RP2040's pty with pyserial;
    rods go in at the firmware's matrix, frames come back out on its strip."""
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), backend="bridge", bridge_port="sim",
                     layout="tree-planting-classic-bridge")
    daemon = Daemon(cfg, notifier=Notifier(None))

    async def scenario():
        runner = asyncio.ensure_future(daemon.run())
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(None, wait_for, lambda: daemon.session is not None)
        board = daemon.session.hardware.board
        firmware = board.firmware
        for n, site in enumerate(["h0.0", "h1.0", "v0.0"], 1):
            board.place(site)
            assert await loop.run_in_executor(
                None, wait_for, lambda n=n: len(daemon.session.referee.state.moves) == n)
        # the firmware's strip shows what the daemon rendered (the turn LEDs: player 1's colour)
        turn = daemon.session.layout.named_leds["turn"][0]
        want = daemon.session.hardware.leds.shown[turn]
        assert await loop.run_in_executor(None, wait_for, lambda: firmware.leds()[turn] == want)
        daemon.stop()
        await runner

    asyncio.run(scenario())


def test_a_scan_thread_that_stays_dead_withholds_the_watchdog_and_names_the_source(
        tmp_path, notify_socket, caplog, monkeypatch):
    """The supervisor restarts a dead scan thread; one that dies again at once, every time, is
    down: the watchdog ping is withheld (systemd restarts the daemon), the log says why once.
    Mended, the thread comes back and the pings resume."""
    import threading

    from hardware.sensors import MatrixSource

    monkeypatch.setattr(threading, "excepthook", lambda args: None)  # the death is the point
    path, sock = notify_socket
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000",
                                          "WATCHDOG_PID": str(os.getpid())})
    daemon = Daemon(sim_config(journal=str(tmp_path / "j.sqlite"), layout="tree-planting-classic-matrix"),
                    notifier=notifier,
                    supervision=dict(backoff_initial=0.01, backoff_max=0.02, give_up_after=2))

    def recv_all(seconds):
        """Every datagram that arrives within `seconds`."""
        got, deadline = [], time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            try:
                got.append(sock.recv(4096))
            except socket.timeout:
                break
        return got

    async def scenario():
        runner = asyncio.ensure_future(daemon.run())
        loop = asyncio.get_running_loop()
        assert (await loop.run_in_executor(None, sock.recv, 4096)).startswith(b"READY=1")
        assert await loop.run_in_executor(None, sock.recv, 4096) == b"WATCHDOG=1"
        scanner = next(s for s in daemon.session.hardware.source.sources if isinstance(s, MatrixSource))
        working = scanner._read_all

        def broken():
            raise OSError("row driver shorted")

        scanner._read_all = broken
        part = daemon.supervisor.parts["sensors"]
        assert await loop.run_in_executor(None, wait_for, lambda: part.state == "down")
        assert part.total_restarts >= 2
        await loop.run_in_executor(None, recv_all, 0.01)  # a ping already on its way
        later = await loop.run_in_executor(None, recv_all, 0.4)  # four watchdog intervals
        scanner._read_all = working
        assert await loop.run_in_executor(None, wait_for, lambda: part.state == "up")
        mended = await loop.run_in_executor(None, recv_all, scaled(0.3))   # pings again
        daemon.stop()
        await runner
        return later, mended

    caplog.set_level("WARNING")
    later, mended = asyncio.run(scenario())
    assert b"WATCHDOG=1" not in later
    assert b"WATCHDOG=1" in mended
    withheld = [r.getMessage() for r in caplog.records if "withholding" in r.getMessage()]
    assert len(withheld) == 1, withheld  # once per change, not once per ping
    assert "MatrixSource" in withheld[0] and "scan thread died" in withheld[0] \
        and "row driver shorted" in withheld[0]
    assert any(r.getMessage().startswith("sensors is up again") for r in caplog.records)


def test_the_daemon_books_the_flag_on_its_own_loop(tmp_path):
    """Nothing happens on the board; the running clock's deadline alone wakes the loop, which
    flags the player and keeps the result (the clocks' tick is booked like a sensor's)."""
    from board_driver.referee.clock import parse_time_control
    from board_driver.referee.journal import Journal

    config = sim_config(journal=str(tmp_path / "j.sqlite"),
                        time_control=parse_time_control("0.01,1"))   # 0.6 s for player 1
    daemon = Daemon(config, notifier=Notifier.from_environment({}))

    async def scenario():
        async with started(daemon):
            await asyncio.get_running_loop().run_in_executor(
                None, wait_for, lambda: daemon.session.referee.flagged is not None, 5,
                "the flag to fall")

    asyncio.run(scenario())
    assert daemon.session.referee.flagged == 0
    with Journal(tmp_path / "j.sqlite") as journal:
        (lost,) = journal.history()
        assert lost.summary["flag"] == 0 and lost.summary["winner"] == 1
        assert lost.clocks["left_ms"] == [0, 60_000]

"""The remote link as a part of the daemon: its stop is bounded, whatever the link's task does."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import pytest

from board_driver.daemon import remote_part
from board_driver.daemon.remote_part import RemotePart


def test_a_link_task_that_swallows_its_cancel_does_not_hold_the_boards_stop(monkeypatch, caplog):
    monkeypatch.setattr(remote_part, "STOP_S", 0.2)
    removed, detached = [], []
    daemon = SimpleNamespace(supervisor=SimpleNamespace(remove=removed.append))
    part = RemotePart(daemon)

    release = asyncio.Event()

    async def stubborn():
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:   # dropped, as a library's wait_for dropped it
            await release.wait()

    async def scenario():
        task = asyncio.ensure_future(stubborn())
        part._task = task
        part.link = SimpleNamespace(detach=lambda: detached.append(True))
        await asyncio.sleep(0)
        await asyncio.wait_for(part.stop(), 5)   # bounded: it returns though the task runs on
        assert not task.done()
        release.set()
        await task

    caplog.set_level(logging.ERROR)
    asyncio.run(scenario())
    assert removed == ["remote link"] and detached == [True] and part.link is None
    assert any("did not stop within" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("when", ["as it connects", "waiting for the broker's answer"])
def test_a_stop_while_aiomqtt_connects_leaves_no_socket_open(tmp_path, when):
    """A link stopped while aiomqtt connects (paho's connect in aiomqtt's executor thread, or
    the wait for the broker's CONNACK) left its socket to the broker open: aiomqtt closes
    nothing when its connect is cancelled. The broker saw the board stay connected, and the
    socket was a ResourceWarning whenever the garbage collector found it."""
    import gc
    import socket
    import threading
    import warnings

    from board_driver.config import sim_config
    from board_driver.referee.tracer import Tracer
    from board_driver.remote.link import RemoteLink, RemoteSettings
    from tests.waits import wait_for

    # A broker that takes the connection and never answers: the CONNACK is always on its way.
    server = socket.create_server(("127.0.0.1", 0))
    taken, heard = [], []

    def broker():
        try:
            conn, _ = server.accept()
        except OSError:
            return
        taken.append(conn)
        while chunk := conn.recv(4096):
            heard.append(chunk)
        heard.append(b"")   # the board closed its end

    thread = threading.Thread(target=broker, daemon=True)
    thread.start()
    t = Tracer(sim_config(journal=str(tmp_path / "j.sqlite"), players=("human", "remote")))
    settings = RemoteSettings(host="127.0.0.1", port=server.getsockname()[1], tls=False,
                              game_id="g1", secret=b"correct horse battery", seat=1,
                              state_dir=str(tmp_path))

    async def scenario():
        task = asyncio.ensure_future(RemoteLink(settings, t.referee, t.clock).run())
        if when == "as it connects":
            await asyncio.sleep(0)
        else:
            while not heard:   # (the CONNECT sent: aiomqtt waits for the answer)
                await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always", ResourceWarning)
            asyncio.run(scenario())
            wait_for(lambda: taken and heard and heard[-1] == b"", 10,
                     "the board to close its connection to the broker")
            gc.collect()
        assert not [w for w in warned if issubclass(w.category, ResourceWarning)]
    finally:
        server.close()
        for conn in taken:
            conn.close()
        thread.join(timeout=5)
        t.close()

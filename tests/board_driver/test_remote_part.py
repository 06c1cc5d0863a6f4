"""The remote link as a part of the daemon: its stop is bounded, whatever the link's task does."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

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

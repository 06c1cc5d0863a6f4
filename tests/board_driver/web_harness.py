"""A real daemon on the simulated board with its companion page on a free port, for the web
and browser tests: real loop, real clock, the scan thread on mock pins, aiohttp on the loop."""

from __future__ import annotations

import asyncio
import contextlib
import time

import aiohttp

from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon


@contextlib.asynccontextmanager
async def running(tmp_path, *, layout: str | None = None, token: str | None = None,
                  port: int = 0, journal: str | None = None, new_game: bool = True,
                  voice=None):
    overrides = {"layout": layout} if layout else {}
    if voice is not None:
        overrides["voice"] = voice
    config = sim_config(journal=journal or str(tmp_path / "j.sqlite"), **overrides)
    config.web_port, config.web_token = port, token
    daemon = Daemon(config, new_game=new_game, web=True)
    runner = asyncio.ensure_future(daemon.run())
    deadline = time.monotonic() + 10
    while daemon.web is None and not runner.done() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    if runner.done():
        runner.result()
    assert daemon.web is not None, "the page did not start"
    try:
        yield daemon
    finally:
        daemon.stop()
        await asyncio.wait_for(runner, 10)


def base_url(daemon) -> str:
    return f"http://127.0.0.1:{daemon.web.port}"


async def hands(daemon, verb: str, site: str, kind: str | None = None) -> None:
    """Place or lift a piece through the simulated sensors, from another thread as a player's
    hands would (the scan thread reports it; the daemon debounces on its real clock)."""
    board = daemon.session.hardware.board
    call = (lambda: board.place(site, kind)) if verb == "place" else (lambda: board.lift(site))
    await asyncio.get_running_loop().run_in_executor(None, call)


async def next_push(ws: aiohttp.ClientWebSocketResponse, until, timeout: float = 3.0) -> dict:
    """The first pushed state that satisfies `until` (bounded by `timeout`)."""
    async def wait():
        while True:
            msg = await ws.receive()
            if msg.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the socket closed: {msg.type}")
            state = msg.json()
            if until(state):
                return state
    return await asyncio.wait_for(wait(), timeout)

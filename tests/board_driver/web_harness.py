"""A real daemon on the simulated board for a block of a test (`started`), or with its companion
page on a free port (`running`), for the daemon's, the web's and the browser's tests: real loop,
real clock, the scan thread on mock pins, aiohttp on the loop; stopped whatever fails."""

from __future__ import annotations

import asyncio
import contextlib
import json

import aiohttp

from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from tests.waits import scaled, until, within


@contextlib.asynccontextmanager
async def started(daemon: Daemon, timeout: float = 30):
    """`daemon.run()` on this loop for the block, which begins once the daemon has started (its
    page served, if it has one). After the block the daemon is stopped and its end awaited,
    whether the block, or the start itself, failed: a test leaves no daemon, thread or socket
    behind to fail the next one. Yields the task that runs it."""
    runner = asyncio.ensure_future(daemon.run())
    try:
        await until(lambda: daemon.started.is_set() or runner.done(), timeout,
                    "the daemon to start")
        if runner.done():
            runner.result()   # why it could not start
            raise AssertionError("the daemon ended before it started")
        yield runner
    except BaseException:
        daemon.stop()
        await asyncio.wait([runner], timeout=scaled(timeout))
        if not runner.done():
            runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)   # (the failure above is the news)
        raise
    daemon.stop()
    await within(runner, timeout, "the daemon to stop")


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
    async with started(daemon):
        assert daemon.web is not None, "the daemon started without serving its page"
        yield daemon


def base_url(daemon) -> str:
    return f"http://127.0.0.1:{daemon.web.port}"


JSON = {"Content-Type": "application/json"}


def run(coro):
    return asyncio.run(coro)


async def post(http, daemon, path, body=None, headers=None) -> tuple[int, dict]:
    """A control action's POST to the daemon's page (JSON): its status and its answer."""
    async with http.post(base_url(daemon) + path, data=json.dumps(body or {}),
                         headers={**JSON, **(headers or {})}) as r:
        return r.status, await r.json()


async def hands(daemon, verb: str, site: str, kind: str | None = None) -> None:
    """Place or lift a piece through the simulated sensors, from another thread as a player's
    hands would (the scan thread reports it; the daemon debounces on its real clock)."""
    board = daemon.session.hardware.board
    call = (lambda: board.place(site, kind)) if verb == "place" else (lambda: board.lift(site))
    await asyncio.get_running_loop().run_in_executor(None, call)


async def next_push(ws: aiohttp.ClientWebSocketResponse, until, timeout: float = 3.0) -> dict:
    """The first pushed state that satisfies `until` (bounded by `timeout`, scaled)."""
    async def wait():
        while True:
            msg = await ws.receive()
            if msg.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the socket closed: {msg.type}")
            state = msg.json()
            if until(state):
                return state
    return await asyncio.wait_for(wait(), scaled(timeout))

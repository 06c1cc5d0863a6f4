"""The microcontroller's firmware on the page: whether it is the board's own, and the update.

    GET  /api/firmware          {"bridge": false} on a board without a microcontroller; else
         the firmware's release and the host's, whether an update is offered (and the sentence
         that offers it, in the page's language), and the last update's state
    POST /api/firmware/update   {} a control action (the token where one is set): the firmware
         updated over the bridge's own line (firmware_bridge/flash.py), the link let go of
         the port meanwhile and connecting again after the board's reset; refused mid-game

The update runs off the loop (it takes seconds to a minute on a Pico). One at a time; its
outcome (done, or what went wrong and what to do) stays in GET's "last" until the next.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from aiohttp import web

from board_driver.views import words
from firmware_bridge import flash

log = logging.getLogger("treeboard.web")


class FirmwareUpdates:
    """The firmware's routes, on the page's server. `language(request)`: the page's language."""

    def __init__(self, door: Any, language: Callable[[web.Request], str]):
        self.door = door
        self.language = language
        self._running: asyncio.Future | None = None
        self.last: dict[str, Any] | None = None   # the last update: {"ok": bool, "said": str}

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get("/api/firmware", self.status)
        router.add_post("/api/firmware/update", self.update)

    def _status(self) -> flash.FirmwareStatus | None:
        bridge = self.door.bridge
        info = bridge.firmware_info() if bridge is not None else None
        return flash.compare(*info) if info is not None else None

    async def status(self, request: web.Request) -> web.Response:
        if self.door.bridge is None:
            return web.json_response({"bridge": False})
        found = self._status()
        out: dict[str, Any] = {"bridge": True, "host_release": flash.controller.RELEASE,
                               "known": found is not None, "updating": self._busy(),
                               "last": self.last}
        if found is not None:
            out.update(release=found.device_release, differing=list(found.differing),
                       offer=found.needs_update, needs_jumper=found.needs_jumper)
            with words.speaking(self.language(request)):
                out["said"] = offer_words(found)
        return web.json_response(out)

    def _busy(self) -> bool:
        return self._running is not None and not self._running.done()

    async def update(self, request: web.Request) -> web.Response:
        bridge = self.door.bridge
        if bridge is None:
            return _refused(409, "this board has no microcontroller bridge")
        if self._busy():
            return _refused(409, "an update of the firmware is under way")
        state = self.door.state
        if state.moves and not state.is_over():
            # Its sensors are away for the update: a move made meanwhile would be missed.
            with words.speaking(self.language(request)):
                return _refused(409, words.tr("Finish the game first: the board cannot see "
                                              "the pieces while its firmware is updated."))
        loop = asyncio.get_running_loop()
        self._running = loop.run_in_executor(None, bridge.lend_port, flash.update_firmware)
        try:
            files = await asyncio.shield(self._running)
        except flash.FirmwareUpdateError as exc:
            log.error("firmware update: %s", exc)
            self.last = {"ok": False, "said": str(exc)}
            return _refused(503, str(exc))
        except Exception as exc:   # (the link would not let go of the port, say)
            log.exception("firmware update failed")
            self.last = {"ok": False, "said": f"{type(exc).__name__}: {exc}"}
            return _refused(503, self.last["said"])
        log.info("firmware update: %d files written; the board resets", len(files))
        self.last = {"ok": True, "said": f"updated {', '.join(files)}; the board restarts"}
        return web.json_response({"updated": files})


def offer_words(found: flash.FirmwareStatus) -> str | None:
    """The page's sentence about the firmware (in the speaking language), None when it is
    the board's own."""
    if found.needs_jumper:
        return words.tr("The microcontroller's firmware is older than this board's. Update it "
                        "once with the jumper from GP22 to ground (see the firmware's README).")
    if found.needs_update:
        return words.tr("The microcontroller's firmware is older than this board's: update it "
                        "from here, it takes under a minute.")
    return None


def _refused(status: int, reason: str) -> web.Response:
    return web.json_response({"error": reason}, status=status)

"""The maker's kit of the board the page runs on: `GET /api/kit/parts.csv`, `/api/kit/wiring.svg`
and `/api/kit/template.svg`, drawn by hardware/kit/ from the board's own layout (the same files
`treeboard kit` writes). The page links them under "Build this board".

A kit is drawn once per file, off the loop (a 400-cell board's wiring takes a Pi's core a
moment), and kept: the layout never changes while the board runs. Viewing needs no token.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from hardware.kit import FILES, KitError, kit_file


class KitFiles:
    """The kit's files of the door's board, made on first asking."""

    def __init__(self, door: Any):
        self.door = door
        self._made: dict[str, asyncio.Future] = {}

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get("/api/kit/{name}", self.get)

    async def get(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in FILES:
            raise web.HTTPNotFound(reason=f"the kit holds {', '.join(FILES)}")
        layout = self.door.session.layout
        if name not in self._made:
            loop = asyncio.get_running_loop()
            self._made[name] = loop.run_in_executor(None, kit_file, layout, name)
        try:
            text = await asyncio.shield(self._made[name])
        except KitError as exc:   # a layout the kit cannot draw (a Pico with too few pins)
            raise web.HTTPConflict(reason=str(exc)) from None
        kind = "attachment" if name.endswith(".csv") else "inline"
        return web.Response(text=text, content_type=FILES[name], charset="utf-8", headers={
            "Content-Disposition": f'{kind}; filename="{layout.name}-{name}"'})

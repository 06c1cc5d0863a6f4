"""The invitation to the browser's seat of a game this board hosts (docs/remote.md, "A seat in
a browser"): `POST /api/invitation` answers the link (the same `treeboard invite` prints) and
its QR code as SVG, for a phone to scan. A control action (the page's token where one is set):
the link grants the seat, so it is not in the state every viewer of the page receives."""

from __future__ import annotations

import io
from typing import Any

from aiohttp import web


def qr_svg(link: str) -> str:
    """`link` as a QR code (segno), an SVG that scales to its box."""
    import segno

    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False,
                                     svgns=True, title="invitation", omitsize=True)
    return out.getvalue().decode("utf-8")


class Invitation:
    def __init__(self, door: Any):
        self.door = door

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_post("/api/invitation", self.post)

    async def post(self, request: web.Request) -> web.Response:
        link = self.door.invitation()
        if link is None:
            raise web.HTTPConflict(reason="no invitation: this board hosts no game with a seat "
                                          "in a browser, or its config names no remote.page "
                                          "and remote.ws_broker")
        return web.json_response({"link": link, "qr": qr_svg(link)})

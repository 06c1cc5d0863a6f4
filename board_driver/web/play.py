"""A web seat's moves on the page (docs/board.md, "A seat on the page"):

    POST /api/play {"move": "<notation>"}   the web seat's move (a control action: the token
         where one is set; JSON only, as every POST); answered with the page's state, or 409
         with the reason a player reads (not the web seat's turn, against the rules), and
         nothing changed
    GET  /api/entry      the entry model of the position (board_driver/views/entry.py): every
         move the mover may make with the taps on the pictures that make it; the page's state
         carries it too ("entry") while a web seat is to move

The move goes through the door (`Door.play`), which plays it as the computer's is played: the
board lights it for the people there to put down.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from aiohttp import web

from board_driver.views import entry, words


class Play:
    """The web seat's routes, on the page's server: `body(request, fields)` reads a POST's
    checked JSON fields, `act(do)` does `do()` through the door and answers (both the
    server's, so the refusals read as every other control action's); `language(request)` is
    the page's language."""

    def __init__(self, door: Any, body: Callable[..., Awaitable[dict]],
                 act: Callable[[Callable[[], Any]], web.Response],
                 language: Callable[[web.Request], str]):
        self.door = door
        self.body = body
        self.act = act
        self.language = language

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_post("/api/play", self.play)
        router.add_get("/api/entry", self.entry)

    async def play(self, request: web.Request) -> web.Response:
        data = await self.body(request, {"move": True})
        return self.act(lambda: self.door.play(data["move"]))

    async def entry(self, request: web.Request) -> web.Response:
        with words.speaking(self.language(request)):   # (the buttons in the page's words)
            return web.json_response({**entry.model(self.door.state),
                                      "seats": list(self.door.seats)})

"""The page's endings: resign, offer a draw and answer one, put the game away and take a game
put away up again (board_driver/referee/endings.py, docs/board.md "Ending and pausing a game").

    POST /api/resign {"seat": "0" | "1"}        a seat played here resigns (no seat: the player
                                                to move if played here, else the one played here)
    POST /api/draw {"seat": "0" | "1"}          a seat played here offers a draw
    POST /api/draw-answer {"answer": "accept" | "refuse"}   a person here answers one
    POST /api/away {}                           the game put away; a new game starts
    POST /api/take-up {"id": "N"}               game N, put away, taken up again
    POST /api/absent {"choice": "pause" | "wait" | "claim" | "draw"}   the player to move is
                                                away (referee/absence.py): pause the clocks until
                                                they return, wait with the clock running, or (a
                                                timed game this board decides) claim the game or
                                                call it a draw
    GET  /api/away                              the games put away, newest first

Each acts through the board's door and answers the page's state (409 with the reason when the
board refuses: nothing changed); the POSTs are control actions (the token where one is set).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from board_driver.records import library
from board_driver.referee.absence import CHOICES as ABSENT_CHOICES
from board_driver.views import words


class Endings:
    """The endings' routes, on the page's server (`server` its WebServer: its body checks,
    `_act` and the page's language)."""

    def __init__(self, server: Any):
        self.server = server

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_post("/api/resign", self.resign)
        router.add_post("/api/draw", self.draw)
        router.add_post("/api/draw-answer", self.answer)
        router.add_post("/api/away", self.put_away)
        router.add_post("/api/take-up", self.take_up)
        router.add_post("/api/absent", self.absent)
        router.add_get("/api/away", self.listed)

    @property
    def door(self):
        return self.server.door

    async def _seat(self, request: web.Request) -> int | None:
        data = await self.server._body(request, {"seat": False})
        if "seat" in data and data["seat"] not in ("0", "1"):
            raise web.HTTPBadRequest(reason="seat must be 0 (moves first) or 1")
        return int(data["seat"]) if "seat" in data else None

    async def resign(self, request: web.Request) -> web.Response:
        seat = await self._seat(request)
        return self.server._act(lambda: self.door.resign(seat))

    async def draw(self, request: web.Request) -> web.Response:
        seat = await self._seat(request)
        return self.server._act(lambda: self.door.offer_draw(seat))

    async def answer(self, request: web.Request) -> web.Response:
        data = await self.server._body(request, {"answer": True})
        if data["answer"] not in ("accept", "refuse"):
            raise web.HTTPBadRequest(reason="answer must be accept or refuse")
        return self.server._act(lambda: self.door.answer_draw(data["answer"] == "accept"))

    async def put_away(self, request: web.Request) -> web.Response:
        await self.server._body(request, {})
        return self.server._act(lambda: self.door.put_away())

    async def absent(self, request: web.Request) -> web.Response:
        data = await self.server._body(request, {"choice": True})
        if data["choice"] not in ABSENT_CHOICES:
            raise web.HTTPBadRequest(reason=f"choice must be one of {', '.join(ABSENT_CHOICES)}")
        return self.server._act(lambda: self.door.absent_choice(data["choice"]))

    async def take_up(self, request: web.Request) -> web.Response:
        data = await self.server._body(request, {"id": True})
        text = data["id"]
        if not text.isdigit() or len(text) > 18:
            raise web.HTTPBadRequest(reason="id must be a game's number")
        return self.server._act(lambda: self.door.take_up(int(text)))

    async def listed(self, request: web.Request) -> web.Response:
        """The games put away that this board can take up, as the library lists a game."""
        with words.speaking(self.server._language(request)):
            found = [library.entry(g) for g in self.door.away()]
        return web.json_response({"games": found})

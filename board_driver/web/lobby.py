"""The family's lobby on the board's page (docs/remote.md, "The lobby"): a board with no game
arranged lists what the family's boards offer and takes one, as `sim`'s lobby and take do.

    GET  /api/lobby                  {"offers": [{"game_id", "seat", "game", "summary",
                                     "time_control"}]}: the games offered now (read from the
                                     broker, with the config's [remote] broker and secret)
    POST /api/lobby/take {"game": ID}   take that offer: this board plays its open seat as a
                                     remote board (a control action: the token where one is
                                     set); answered with the page's state, or 409 with why not

Nothing secret is answered: an offer's wrapped keys stay on the broker.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from aiohttp import web

import games


class LobbyRoutes:
    def __init__(self, door: Any, body: Callable[..., Awaitable[dict]],
                 act: Callable[[Callable[[], Any]], web.Response]):
        self.door = door
        self.body = body
        self.act = act

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get("/api/lobby", self.offers)
        router.add_post("/api/lobby/take", self.take)

    def _part(self) -> Any:
        part = getattr(self.door.host, "remote_part", None)
        if part is None:
            raise games.IllegalMove("lobby", games.base.Reason(
                "remote play needs a running board"))
        return part

    async def offers(self, request: web.Request) -> web.Response:
        try:
            offers = await self._part().offers()
        except games.IllegalMove as exc:
            return self.act(_raising(exc))
        return web.json_response({"offers": [
            {"game_id": o.game_id, "seat": o.seat, "game": o.game, "summary": o.summary,
             "time_control": o.time_control} for o in offers]})

    async def take(self, request: web.Request) -> web.Response:
        data = await self.body(request, {"game": True})
        try:
            await self._part().take(data["game"])
        except games.IllegalMove as exc:
            return self.act(_raising(exc))   # (answered as every refused control action)
        return self.act(lambda: None)        # the page's state, in the game taken


def _raising(exc: Exception) -> Callable[[], None]:
    def do() -> None:
        raise exc
    return do

"""The page's door to the modes that bring a position to the board (docs/study.md): puzzles, a
record studied on the board, and the branch played from it.

    GET  /api/puzzles                the board's game's shipped set: each puzzle's number, grade
                                     and theme (the page lists them)
    POST /api/puzzle {"number": N}   set puzzle N up on the board (none: the next one)
    POST /api/study {"game": ID, "at": K}              study journal game ID from move K
    POST /api/study {"name": F, "data": BASE64, "at": K}   study an SGF record file's first game
    POST /api/study/step {"count": N}   N moves forward (negative: back)
    POST /api/study/branch {"other": "human" | "computer:LEVEL"}   play on from the study

Each POST answers the page's state (as every action does) or a refusal: 400 for what cannot be
asked, 409 (with the reason in the page's language) for what cannot be done now. Control
actions: the token where one is set (the server's guard checks it).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, Callable

from aiohttp import web

import games
from board_driver.records import sgf
from board_driver.records.record import RecordError
from board_driver.views import words
from games.ai.puzzles import PuzzleError, shipped_set

#: The largest body these routes take (an SGF record in base64).
MAX_BODY = 2 * 1024 * 1024


class Positions:
    """The routes, acting through the board's door; `current()` is the page's state as JSON,
    `language(request)` the page's language."""

    def __init__(self, door: Any, current: Callable[[], str],
                 language: Callable[[web.Request], str]):
        self.door = door
        self.current = current
        self.language = language

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get("/api/puzzles", self.puzzles)
        router.add_post("/api/puzzle", self.puzzle)
        router.add_post("/api/study", self.study)
        router.add_post("/api/study/step", self.step)
        router.add_post("/api/study/branch", self.branch)

    async def puzzles(self, request: web.Request) -> web.Response:
        try:
            found = shipped_set(self.door.state.game.name)
        except PuzzleError as exc:
            return _refused(404, str(exc))
        return web.json_response({"game": found["game"], "exact": found["exact"], "puzzles": [
            {"number": i, "free": p.get("free"), "theme": p.get("theme"), "goal": p["goal"]}
            for i, p in enumerate(found["puzzles"], 1)]})

    async def puzzle(self, request: web.Request) -> web.Response:
        data = await _body(request)
        number = data.get("number")
        if number is not None and (isinstance(number, bool) or not isinstance(number, int)):
            return _refused(400, "number must be a whole number")
        return self._act(request, lambda: self.door.puzzle(number))

    async def study(self, request: web.Request) -> web.Response:
        data = await _body(request)
        at = data.get("at", 0)
        if isinstance(at, bool) or not isinstance(at, int):
            return _refused(400, "at must be a whole number")
        if "game" in data:
            if isinstance(data["game"], bool) or not isinstance(data["game"], int):
                return _refused(400, "game must be a journal game's id")
            return self._act(request, lambda: self.door.study(data["game"], at))
        if not isinstance(data.get("data"), str):
            return _refused(400, "the body must name a journal game (game) or carry a record "
                                 "file (name, data: base64)")
        try:
            records = sgf.read(base64.b64decode(data["data"], validate=True))
        except (binascii.Error, ValueError) as exc:
            if isinstance(exc, RecordError):
                with words.speaking(self.language(request)):
                    return _refused(400, words.reason(exc.reason))
            return _refused(400, "data must be base64")
        if not records:
            return _refused(400, "the file holds no game")
        record = records[0]
        comments = {n: m.comment for n, m in enumerate(record.moves, 1) if m.comment}
        title = " - ".join(p.shown for p in record.players if p.shown) or None
        return self._act(request, lambda: self.door.study_moves(
            record.game, record.options, [m.text for m in record.moves], at=at,
            comments=comments, title=title))

    async def step(self, request: web.Request) -> web.Response:
        data = await _body(request)
        count = data.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or count == 0:
            return _refused(400, "count must be a whole number, not 0 (negative: back)")
        return self._act(request, lambda: self.door.step(count))

    async def branch(self, request: web.Request) -> web.Response:
        data = await _body(request)
        other = data.get("other", "human")
        if not isinstance(other, str):
            return _refused(400, "other must be human or computer:LEVEL")
        return self._act(request, lambda: self.door.branch(other))

    def _act(self, request: web.Request, do: Callable[[], Any]) -> web.Response:
        try:
            do()
        except games.IllegalMove as exc:
            with words.speaking(self.language(request)):
                return _refused(409, words.reason(exc.reason))
        except (games.GameError, ValueError) as exc:
            return _refused(400, str(exc))
        return web.Response(text=self.current(), content_type="application/json")


async def _body(request: web.Request) -> dict:
    """The POST's JSON object (an empty body: {}); a bad one is a 400 with what was expected."""
    raw = await request.content.read(MAX_BODY + 1)
    if len(raw) > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=len(raw))
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, RecursionError):
        raise web.HTTPBadRequest(reason="the body must be a JSON object") from None
    if not isinstance(data, dict):
        raise web.HTTPBadRequest(reason="the body must be a JSON object")
    return data


def _refused(status: int, reason: str) -> web.Response:
    return web.json_response({"error": reason}, status=status)

"""The page's library: every game of the journal, searched, downloaded as a record, and
records imported (board_driver/records/, docs/records.md).

    GET  /api/library?game=&player=&result=&ended=&from=&to=   the games that answer, newest
         first, in the page's words (and every game's title, for the page's choice)
    GET  /api/games/{id}/record?format=sgf|json   a game's record as a file, with the
         review's marks and sentences when the page has reviewed it
    POST /api/records {"name": FILE, "data": BASE64}   a record file's games into the journal
         (a control action: the token where one is set); refused with the line and the reason,
         the journal untouched

The file is read and checked off the loop (the rules replay every move); only the journal's
one transaction is written on it. Viewing needs no token.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from typing import Any, Callable

from aiohttp import web

from board_driver.records import library, sgf
from board_driver.records.record import RecordError
from board_driver.referee.journal import JournalError
from board_driver.views import words

#: The largest record file the page takes (a long game is tens of kilobytes), and its body
#: in base64 with room for the JSON around it.
MAX_RECORD = 1024 * 1024
MAX_IMPORT_BODY = MAX_RECORD * 4 // 3 + 4096
#: The longest the import's body may take to arrive.
BODY_TIMEOUT_S = 20.0
#: The most games a search answers.
LISTED = 200


class Library:
    """The library's routes, on the page's server. `language(request)` is the page's language
    (the server's), `reviews` the server's reviews by game id (Futures of their rows)."""

    def __init__(self, door: Any, language: Callable[[web.Request], str], reviews: dict):
        self.door = door
        self.language = language
        self.reviews = reviews

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get("/api/library", self.search)
        router.add_get("/api/games/{id:\\d+}/record", self.record)
        router.add_post("/api/records", self.take)

    @property
    def journal(self):
        return self.door.session.journal

    async def search(self, request: web.Request) -> web.Response:
        try:
            query = library.Query.of(request.query)
        except library.BadQuery as exc:
            return _refused(400, str(exc))
        with words.speaking(self.language(request)):
            found = [library.entry(g) for g in library.search(self.journal, query, LISTED)]
            titles = library.titles()
        return web.json_response({"games": found, "titles": titles})

    async def record(self, request: web.Request) -> web.Response:
        text = request.match_info["id"]
        kind = request.query.get("format", "sgf")
        if kind not in ("sgf", "json"):
            return _refused(400, "format must be sgf or json")
        game_id = int(text) if len(text) <= 18 else -1
        try:
            with words.speaking(self.language(request)):   # (the review's sentences)
                record = library.export(self.journal, [game_id],
                                        {game_id: self._reviewed(game_id)})[0]
                body = (sgf.dumps([record]) if kind == "sgf" else json.dumps(
                    library.as_json(record), indent=1, ensure_ascii=False).encode("utf-8"))
        except JournalError:
            return _refused(404, f"no game {text[:24]} in the journal")
        except RecordError as exc:
            return _refused(409, str(exc))
        return web.Response(body=body, charset="utf-8", content_type=(
            "application/x-go-sgf" if kind == "sgf" else "application/json"), headers={
            "Content-Disposition":
                f'attachment; filename="treeboard-{record.game}-{game_id}.{kind}"'})

    def _reviewed(self, game_id: int) -> list | None:
        """The page's review of a game, when it has one done (never asked for here)."""
        pending = self.reviews.get(game_id)
        if pending is None or not pending.done() or pending.cancelled() or pending.exception():
            return None
        return pending.result()

    async def take(self, request: web.Request) -> web.Response:
        lang = self.language(request)
        try:
            async with asyncio.timeout(BODY_TIMEOUT_S):
                raw = await request.clone(client_max_size=MAX_IMPORT_BODY).read()
        except TimeoutError:
            return _refused(408, "the record did not all come in time")
        except web.HTTPRequestEntityTooLarge:
            return _refused(413, f"a record file is at most {MAX_RECORD // 1024} KB")
        try:
            data, name = _file(raw)
        except ValueError as exc:
            return _refused(400, str(exc))
        try:
            found = await asyncio.get_running_loop().run_in_executor(
                None, library.read_records, data)
            ids = self.journal.add_games(found)
        except RecordError as exc:
            with words.speaking(lang):
                said = words.reason(exc.reason)
                if exc.line is not None:
                    said = words.tr("line {line}: {reason}").format(line=exc.line, reason=said)
                return _refused(400, words.tr("{file} was not imported: {why}").format(
                    file=name, why=said))
        except JournalError as exc:
            return _refused(503, f"the journal could not keep it: {exc}")
        return web.json_response({"imported": ids})


def _file(raw: bytes) -> tuple[bytes, str]:
    """The file a POST carries ({"name": ..., "data": base64}) and its name; raises
    ValueError saying what is wrong."""
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, RecursionError):
        raise ValueError("the body must be a JSON object") from None
    if not isinstance(body, dict) or not isinstance(body.get("data"), str) \
            or set(body) - {"name", "data"}:
        raise ValueError("the body must be a JSON object: name (the file's), data (its bytes, "
                         "base64)")
    name = body.get("name")
    name = name[:64] if isinstance(name, str) and name else "the file"
    try:
        data = base64.b64decode(body["data"], validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("data must be the file's bytes in base64") from None
    if len(data) > MAX_RECORD:
        raise ValueError(f"a record file is at most {MAX_RECORD // 1024} KB")
    return data, name


def _refused(status: int, reason: str) -> web.Response:
    return web.json_response({"error": reason}, status=status)

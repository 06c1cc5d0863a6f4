"""The companion page's server: aiohttp on the daemon's own asyncio loop.

It owns no game state. Every request is handled on the loop, so it reads the referee between
two sensor events, never during one; it acts only through the board's door
(`board_driver.referee.door`: entries, the end-turn button, takeback, new game, seats, hints,
remote play), which lights the LEDs and pushes the new state to every open page.

Safety on a home network:
- On localhost (the default), requests must name localhost in their Host header: a web page
  elsewhere that rebinds its DNS name to 127.0.0.1 gets nothing.
- Beyond localhost the config must hold `web.token`; every control action (POST) must then
  send it in the `X-Treeboard-Token` header. Never a cookie: a browser adds cookies to
  requests another site makes, but no site can add our header without our CORS consent,
  which we never give. Viewing needs no token.
- Every POST must be JSON (`Content-Type: application/json`, which a plain HTML form cannot
  send) and, when the browser says where it comes from (Origin), come from this page.
- Nothing a client sends is evaluated or put into HTML: the page sets text with textContent,
  and the SVG pictures are made here from the game alone.
- A request must arrive whole in time: its head within `guard.HEADER_TIMEOUT_S` of the
  connection (or of the answer before it on the same connection), its body within
  BODY_TIMEOUT_S; otherwise the connection is closed. One client holds at most
  `guard.MAX_PER_CLIENT` connections, the page at most `guard.MAX_CONNECTIONS` (web/guard.py),
  and what clients do is logged in one line at most, a few a minute: a half-sent or malformed
  request costs the board no more.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import hmac
import math
import secrets
import sqlite3
import json
import logging
import time
from concurrent.futures import BrokenExecutor
from importlib import resources
from typing import Any, Callable

from aiohttp import WSMsgType, web

import games
from board_driver import views
from board_driver.config import ConfigError, is_loopback
from board_driver.referee.journal import JournalError
from board_driver.web.positions import Positions
from board_driver.views import words
from board_driver.views.narrate import last_moves
from board_driver.web import guard, snapshot
from board_driver.web.firmware import FirmwareUpdates
from board_driver.web.kit import KitFiles
from board_driver.web.endings import Endings
from board_driver.web.invite import Invitation
from board_driver.web.lobby import LobbyRoutes
from board_driver.web.library import Library
from board_driver.web.play import Play
from board_driver.web.presence import SeatPresence
from board_driver.web.update import UpdatePanel
from treeboard.exc import TreeboardError

log = logging.getLogger("treeboard.web")

TOKEN_HEADER = "X-Treeboard-Token"
MAX_CLIENTS = 32          # open pages at once; each costs a socket and a sender task
MAX_BODY = 16 * 1024      # no request of ours needs more
MAX_TEXT = 64             # a site, a kind, an option value
HISTORY_LIMIT = 100
REVIEW_CACHE = 16         # reviewed games kept (a review costs seconds of the worker's time)
ASSETS = {"/": ("index.html", "text/html"), "/app.js": ("app.js", "text/javascript"),
          "/app.css": ("app.css", "text/css"),
          "/entry.js": ("entry.js", "text/javascript")}   # the picture as entry (a web seat)
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
LOCAL_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
#: Wrong tokens: after WRONG_TOKENS_ALLOWED within WRONG_TOKEN_WINDOW_S from one address, its
#: control actions are refused (429) until the window has passed; at most WRONG_TOKEN_PEERS
#: addresses are remembered (the oldest forgotten first), so the table cannot grow.
WRONG_TOKENS_ALLOWED = 5
WRONG_TOKEN_WINDOW_S = 60.0
WRONG_TOKEN_PEERS = 1024
#: A game id SQLite can hold (a signed 64-bit integer); a longer one is no game of ours.
MAX_GAME_ID = 2 ** 63 - 1
#: The longest a POST's body (at most MAX_BODY bytes) may take to arrive after its head.
BODY_TIMEOUT_S = 10.0


# The language of the page a request came from (its ?lang=), for what the answer says: the
# state it returns and a refusal's reason. Per request (a task): the board's own words (the
# voice, the sim) stay in the board's language.
_PAGE_LANGUAGE: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "treeboard_page_language", default=None)


class Refused(TreeboardError):
    """A request refused with a status and a reason a player can read."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status, self.reason = status, reason


class Client:
    """One open page. Holds only the newest state not yet sent: a slow phone gets the latest
    picture, not a growing queue of old ones."""

    def __init__(self, ws: web.WebSocketResponse, language: str = words.DEFAULT):
        self.ws = ws
        self.language = language   # the page's language (its ?lang=)
        self.pending: str | None = None
        self.wake = asyncio.Event()

    def offer(self, text: str) -> None:
        self.pending = text
        self.wake.set()

    async def pump(self) -> None:
        try:
            while not self.ws.closed:
                await self.wake.wait()
                self.wake.clear()
                text, self.pending = self.pending, None
                if text is not None:
                    await self.ws.send_str(text)
        except (ConnectionError, RuntimeError) as exc:  # the page went away mid-send
            log.debug("a page's socket closed while sending: %s", exc)


class WrongTokens:
    """The wrong tokens each address sent lately (WRONG_TOKENS_ALLOWED within
    WRONG_TOKEN_WINDOW_S bar its control actions until the window has passed), for at most
    WRONG_TOKEN_PEERS addresses: the oldest is forgotten first, so the table cannot grow."""

    def __init__(self):
        # address -> when its recent wrong tokens came
        self.by_peer: collections.OrderedDict[str, collections.deque] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self.by_peer)

    def check(self, peer: str, now: float) -> None:
        """Refused (429) while `peer` is barred; forgets its tries older than the window."""
        tries = self.by_peer.get(peer)
        while tries and now - tries[0] > WRONG_TOKEN_WINDOW_S:
            tries.popleft()
        if tries is not None and len(tries) >= WRONG_TOKENS_ALLOWED:
            wait = WRONG_TOKEN_WINDOW_S - (now - tries[0])
            raise Refused(429, f"too many wrong tokens from {peer}; try again in "
                               f"{max(1, math.ceil(wait))} s")

    def count(self, peer: str, now: float) -> None:
        """`peer` sent a wrong token now (logged once, when that bars it)."""
        tries = self.by_peer.get(peer)
        if tries is None:
            tries = self.by_peer[peer] = collections.deque(maxlen=WRONG_TOKENS_ALLOWED)
            while len(self.by_peer) > WRONG_TOKEN_PEERS:
                self.by_peer.popitem(last=False)
        tries.append(now)
        self.by_peer.move_to_end(peer)
        if len(tries) == WRONG_TOKENS_ALLOWED:
            log.warning("%d wrong tokens from %s within %.0f s; its control actions are "
                        "refused for a while", WRONG_TOKENS_ALLOWED, peer, WRONG_TOKEN_WINDOW_S)


async def read_body(request: web.Request) -> bytes:
    """A request's body, whole within BODY_TIMEOUT_S; Refused (408) when it trickles, and (400)
    when the client went away before sending it all (no one reads that answer)."""
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            return await request.read()
    except TimeoutError:
        raise Refused(408, f"the request's body did not all come within {BODY_TIMEOUT_S:g} s"
                      ) from None
    except ConnectionError:
        raise Refused(400, "the connection closed before the request's body had all come"
                      ) from None


def json_fields(raw: bytes, fields: dict[str, bool]) -> dict[str, str]:
    """A POST's body as a JSON object whose fields are all in `fields` (name -> required), each
    text of 1 to MAX_TEXT characters; Refused (400) saying what is wrong."""
    try:
        data = json.loads(raw or b"{}")
    except RecursionError:
        raise Refused(400, "the body is JSON nested too deeply") from None
    except ValueError as exc:  # (not JSON, not UTF-8, or a number of over 4,300 digits)
        why = " (a number in it has too many digits)" if "digits" in str(exc) else ""
        raise Refused(400, f"the body must be a JSON object{why}") from None
    if not isinstance(data, dict):
        raise Refused(400, "the body must be a JSON object")
    for key in data:
        if key not in fields:
            raise Refused(400, f"unknown field {str(key)[:MAX_TEXT]!r}; expected "
                               + ", ".join(fields))
    for key, required in fields.items():
        if key not in data:
            if required:
                raise Refused(400, f"missing field {key!r}")
            continue
        value = data[key]
        if not isinstance(value, str) or not 0 < len(value) <= MAX_TEXT:
            raise Refused(400, f"{key} must be text of 1 to {MAX_TEXT} characters")
    return data


class WebServer:
    def __init__(self, door: Any, *, listen: str, port: int, token: str | None):
        self.door = door
        self.listen, self.port, self.token = listen, port, token
        self.local = is_loopback(listen)
        self.clients: set[Client] = set()
        self._listener: guard.Listener | None = None
        self._assets: dict[str, bytes] = {}
        self._key: Any = None
        self._version = 0
        self._text: dict[str, str] = {}   # the current state as JSON by language, once per change
        self._page_words: list[str] = []  # the page's own texts (index.html, app.js's tr)
        self.instance = secrets.token_hex(4)
        # game id -> its review (a Future while the worker computes it: a second page asking
        # meanwhile waits for the same one); the oldest leave first.
        self._reviews: collections.OrderedDict[int, asyncio.Future] = collections.OrderedDict()
        self._wrong = WrongTokens()
        self.clock: Callable[[], float] = time.monotonic  # tests replace it
        self.presence = SeatPresence(door, self._body, self._language)   # web/presence.py

    # --- lifecycle ---------------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._guard])
        r = app.router
        for path in ASSETS:
            r.add_get(path, self._asset)
        r.add_get("/api/state", self._state)
        r.add_get("/api/words", self._words)
        r.add_get("/api/picture3d", self._picture3d)
        r.add_get("/api/games", self._games)
        r.add_get("/api/games/{id:\\d+}", self._game)
        r.add_get("/api/games/{id:\\d+}/position", self._position)
        r.add_post("/api/enter", self._enter)
        r.add_post("/api/press", self._press)
        r.add_post("/api/takeback", self._takeback)
        r.add_post("/api/repeat", self._repeat)
        r.add_post("/api/takeback-answer", self._takeback_answer)
        r.add_post("/api/remote/join", self._remote_join)
        r.add_post("/api/remote/leave", self._remote_leave)
        r.add_post("/api/new-game", self._new_game)
        r.add_post("/api/hint", self._hint)
        r.add_post("/api/seats", self._seats)
        r.add_get("/api/voice", self._voice)
        r.add_post("/api/voice", self._set_voice)
        r.add_get("/api/games/{id:\\d+}/review", self._review)
        r.add_get("/ws", self._ws)
        KitFiles(self.door).add_routes(r)   # the maker's kit of this board (web/kit.py)
        Library(self.door, self._language, self._reviews).add_routes(r)   # web/library.py
        Invitation(self.door).add_routes(r)   # a browser's seat, by invitation (web/invite.py)
        Play(self.door, self._body, self._act, self._language).add_routes(r)   # web/play.py
        self.presence.add_routes(r)   # the pages holding a web seat (web/presence.py)
        Endings(self).add_routes(r)   # resign, a draw, put away, take up (web/endings.py)
        UpdatePanel(self.door).add_routes(r)   # the software's version and update (web/update.py)
        Positions(self.door, self.current, self._language).add_routes(r)   # web/positions.py
        FirmwareUpdates(self.door, self._language).add_routes(r)   # web/firmware.py
        LobbyRoutes(self.door, self._body, self._act).add_routes(r)   # the lobby (web/lobby.py)
        return app

    async def start(self) -> None:
        static = resources.files("board_driver.web") / "static"
        self._assets = {path: (static / name).read_bytes() for path, (name, _) in ASSETS.items()}
        self._page_words = sorted(
            {t for _, t in words.html_texts(self._assets["/"].decode("utf-8"))}
            | {t for _, t in words.script_texts(self._assets["/app.js"].decode("utf-8"))})
        self._listener = guard.Listener(self.app(), self.listen, self.port)
        self.port = await self._listener.start()   # (with port 0, the port the OS chose)
        log.info("companion page: %s", self.url)

    def problem(self) -> str | None:
        """None while the page's listening socket serves; else why not (the supervisor asks)."""
        if self._listener is None or not self._listener.serving():
            return f"its listening socket on {self.listen}:{self.port} is closed"
        return None

    @property
    def url(self) -> str:
        host = "localhost" if self.local else self.listen
        if host in ("0.0.0.0", "::"):
            host = "<this board's address>"
        return f"http://{host}:{self.port}/"

    async def stop(self) -> None:
        self.presence.close()
        for client in list(self.clients):
            # 1001 "going away": the page reconnects by itself when the daemon is back.
            await client.ws.close(code=1001, message=b"the board is restarting")
        if self._listener is not None:
            await self._listener.stop()
            self._listener = None

    # --- the state, pushed ----------------------------------------------------------------------

    def current(self, language: str | None = None) -> str:
        """The state as JSON, in a page's language (None: the board's); remade only when the
        game, the corrections or the hint changed."""
        ref = self.door.referee
        link = self.door.link_summary()
        now = self.door.clock()
        parts, parts_down = self.door.parts()
        key = (ref.state.to_json(), tuple(ref.corrections), tuple(ref.completions),
               ref.settings.moves, tuple(ref.seats), json.dumps(link),
               json.dumps([(p["name"], p["state"], p.get("why")) for p in parts]),
               snapshot.clocks_key(ref, now),   # (the clocks: to the second while one runs)
               repr(ref.endings.face()),        # (a draw on offer, a resignation: endings.py)
               repr(ref.absence.face(now)),     # (a player away, asked or paused: absence.py)
               tuple(ref.absence.away(seat) for seat in (0, 1)),   # (away, not to move too)
               # (a mode begun or ended: its steps and verdicts change the game itself)
               ref.mode is None or ref.mode.kind, ref.setting_up is None)
        if key != self._key:
            self._key = key
            self._version += 1
            self._text = {}
        lang = language or _PAGE_LANGUAGE.get() or words.language()
        if lang not in self._text:
            with words.speaking(lang):
                self._text[lang] = json.dumps(snapshot.page_state(
                    ref, layout_name=self.door.session.layout.name,
                    token_required=self.token is not None, version=self._version,
                    instance=self.instance, now=now, remote=link, parts=parts,
                    parts_down=parts_down), ensure_ascii=False)
        return self._text[lang]

    def frame_shown(self) -> None:
        """Called by the daemon on the loop after every LED frame: push what changed."""
        self.presence.check()   # (a seat made a web seat, or one no longer: web/presence.py)
        if not self.clients:
            return  # made when someone asks
        version = self._version
        self.current()
        if self._version != version:
            for client in self.clients:
                client.offer(self.current(client.language))

    # --- guards ---------------------------------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Callable) -> web.StreamResponse:
        asked = _PAGE_LANGUAGE.set(self._language(request) if "lang" in request.query else None)
        try:
            self._check_host(request)
            if request.method == "POST" or request.path == "/ws":
                self._check_origin(request)
            if request.method == "POST":
                self._check_control(request)
            response = await handler(request)
        except Refused as exc:
            response = web.json_response({"error": exc.reason}, status=exc.status)
            if exc.status == 408:
                response.force_close()   # (what is left of its body is not waited for)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            response = web.json_response({"error": exc.reason}, status=exc.status)
        finally:
            _PAGE_LANGUAGE.reset(asked)
        if not isinstance(response, web.WebSocketResponse):
            response.headers.update(SECURITY_HEADERS)
        return response

    def _check_host(self, request: web.Request) -> None:
        if "Host" not in request.headers:
            # (HTTP/1.0 allows none; aiohttp would answer as if it named our own address)
            raise Refused(400, "a request must name the board in its Host header")
        if not self.local:
            return
        host = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else request.host
        if host not in LOCAL_NAMES:
            raise Refused(403, f"this page answers only to localhost, not {host[:MAX_TEXT]!r}")

    def _check_origin(self, request: web.Request) -> None:
        # Browsers name the page a request comes from; another site's page gets nothing here.
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{request.host}":
            raise Refused(403, "only the board's own page may do this")

    def _check_control(self, request: web.Request) -> None:
        if request.content_type != "application/json":
            raise Refused(415, "control actions send JSON (Content-Type: application/json)")
        if self.token is not None:
            given = request.headers.get(TOKEN_HEADER)
            if not given:
                raise Refused(401, "this board needs its token for control: enter it on the page")
            peer = request.remote or "?"
            now = self.clock()
            self._wrong.check(peer, now)
            # (a header's bytes come as text, undecodable ones as surrogates: compared as bytes)
            if not hmac.compare_digest(given.encode("utf-8", "surrogateescape"),
                                       self.token.encode()):
                self._wrong.count(peer, now)
                raise Refused(403, "wrong token")

    async def _body(self, request: web.Request, fields: dict[str, bool]) -> dict[str, str]:
        """The JSON object of a POST, with its string fields checked (name -> required)."""
        return json_fields(await read_body(request), fields)

    # --- acting through the referee ---------------------------------------------------------------

    def _act(self, do: Callable[[], Any]) -> web.Response:
        """Do `do()` through the door (which relights the board and pushes to every page); a
        refusal is the answer's status and reason."""
        try:
            do()
        except games.IllegalMove as exc:
            with words.speaking(_PAGE_LANGUAGE.get() or words.language()):
                raise Refused(409, words.reason(exc.reason)) from None
        except ConfigError as exc:
            # (joining a remote game) the key as the page names it (remote.broker -> broker)
            raise Refused(400, f"{exc.key.removeprefix('remote.') or 'remote'}: "
                               f"{exc.expected}") from None
        except (games.GameError, ValueError) as exc:
            raise Refused(400, str(exc)) from None
        return web.Response(text=self.current(), content_type="application/json")

    async def _enter(self, request: web.Request) -> web.Response:
        data = await self._body(request, {"site": True, "kind": True})
        return self._act(lambda: self.door.enter(data["site"], data["kind"]))

    async def _press(self, request: web.Request) -> web.Response:
        data = await self._body(request, {"button": True})
        return self._act(lambda: self.door.press(data["button"]))

    async def _repeat(self, request: web.Request) -> web.Response:
        """Say it again: the board says the last moves, whose turn and the score (aloud, with a
        voice); the answer is the state with those sentences as "said"."""
        await self._body(request, {})
        try:
            self.door.repeat()   # aloud, in the board's language
        except games.IllegalMove as exc:
            raise Refused(409, words.reason(exc.reason)) from None
        lang = self._language(request)
        with words.speaking(lang):   # and on the page, in the page's
            said = [s.text for s in last_moves(self.door.referee.moment(self.door.clock()),
                                               self.door.voice()["repeat_moves"])]
        state = json.loads(self.current(lang))
        return web.json_response({**state, "said": said})

    async def _takeback(self, request: web.Request) -> web.Response:
        await self._body(request, {})
        return self._act(lambda: self.door.takeback())

    async def _remote_join(self, request: web.Request) -> web.Response:
        data = await self._body(request, {"broker": True, "game": True, "seat": True,
                                          "secret": True})
        if data["seat"] not in ("0", "1", "watch"):
            raise Refused(400, "seat must be 0 (moves first), 1, or watch")
        seat = None if data["seat"] == "watch" else int(data["seat"])
        table = {"broker": data["broker"], "game": data["game"], "secret": data["secret"]}
        return self._act(lambda: self.door.join_remote(table, seat))

    async def _remote_leave(self, request: web.Request) -> web.Response:
        await self._body(request, {})
        try:
            await self.door.leave_remote()
        except games.IllegalMove as exc:
            raise Refused(409, words.reason(exc.reason)) from None
        return web.Response(text=self.current(), content_type="application/json")

    async def _takeback_answer(self, request: web.Request) -> web.Response:
        data = await self._body(request, {"answer": True})
        if self.door.link is None:
            raise Refused(409, "this board plays no remote game")
        if data["answer"] not in ("accept", "refuse"):
            raise Refused(400, "answer must be accept or refuse")
        return self._act(lambda: self.door.answer_takeback(data["answer"] == "accept"))

    async def _new_game(self, request: web.Request) -> web.Response:
        data = await self._body(request, {k: False for k in self.door.state.game.options()})
        return self._act(lambda: self.door.new_game(data or None))

    async def _seats(self, request: web.Request) -> web.Response:
        data = await self._body(request, {"seat": True, "player": True})
        if data["seat"] not in ("0", "1"):
            raise Refused(400, "seat must be 0 (moves first) or 1")
        return self._act(lambda: self.door.set_seat(int(data["seat"]), data["player"]))

    async def _hint(self, request: web.Request) -> web.Response:
        data = await self._body(request, {"mode": True})
        return self._act(lambda: self.door.set_hint_mode(data["mode"]))

    async def _set_voice(self, request: web.Request) -> web.Response:
        """The voice's settings from the page: a JSON object of any of enabled (true/false),
        language (a shipped one, or "" for the board's), voice ("" for the language's own), rate,
        volume, quiet_hours ("21:30-07:00", or "" for none), repeat_moves."""
        raw = await read_body(request)
        try:
            data = json.loads(raw or b"{}")
        except (ValueError, RecursionError):
            raise Refused(400, "the body must be a JSON object") from None
        try:
            settings = self.door.set_voice(data)
        except ConfigError as exc:
            got = str(exc).partition("; got ")[2]
            raise Refused(400, (f"{exc.key}: expected {exc.expected}" if exc.key else
                                f"expected {exc.expected}") + (f"; got {got}" if got else "")
                          ) from None
        except games.IllegalMove as exc:
            raise Refused(409, words.reason(exc.reason)) from None
        except (JournalError, OSError, sqlite3.Error) as exc:   # (kept first: nothing changed)
            raise Refused(503, f"the voice's settings could not be kept: {exc}") from None
        return web.json_response(settings)

    # --- reading ----------------------------------------------------------------------------------

    async def _voice(self, request: web.Request) -> web.Response:
        try:
            return web.json_response(self.door.voice())
        except games.IllegalMove as exc:
            raise Refused(409, words.reason(exc.reason)) from None

    async def _asset(self, request: web.Request) -> web.Response:
        _, content_type = ASSETS[request.path]
        return web.Response(body=self._assets[request.path], content_type=content_type,
                            charset="utf-8")

    @staticmethod
    def _language(request: web.Request) -> str:
        """The page's ?lang= (a browser's code, "zh-CN"), as a shipped language; the board's
        own when none is asked or none is shipped."""
        asked = request.query.get("lang", "")[:MAX_TEXT]
        return words.normalize(asked) or words.language()

    async def _state(self, request: web.Request) -> web.Response:
        return web.Response(text=self.current(self._language(request)),
                            content_type="application/json")

    async def _words(self, request: web.Request) -> web.Response:
        """The page's own texts in its language, and the languages it may switch to."""
        lang = self._language(request)
        return web.json_response({
            "language": lang, "board": words.language(),
            "languages": words.names(), "tag": words.page_tag(lang),
            "words": words.page_words(lang, self._page_words)})

    async def _picture3d(self, request: web.Request) -> web.Response:
        """The game's 3D picture seen from another side (?turn=0..3 quarter turns)."""
        ref = self.door.referee
        module = views.view_of(ref.state.game.name)
        if module.svg_3d is None:
            raise Refused(404, f"{ref.state.game.short_title} has no 3D picture")
        turn = request.query.get("turn", "0")
        if turn not in ("0", "1", "2", "3"):
            raise Refused(400, "turn must be 0, 1, 2 or 3 (quarter turns)")
        places = sorted({e["site"] for e in snapshot.entries(ref.state, set(ref.sensed))})
        moment = ref.moment(self.door.clock()).shown()
        return web.json_response({"svg3d": module.svg_3d(moment.state, moment, places, int(turn))})

    async def _games(self, request: web.Request) -> web.Response:
        journal = self.door.session.journal
        with words.speaking(self._language(request)):   # (the results in the page's language)
            found = [snapshot.history_entry(g) for g in journal.history(limit=HISTORY_LIMIT)]
        return web.json_response({"games": found})

    def _saved(self, request: web.Request):
        text = request.match_info["id"]
        try:
            if len(text) > 19 or int(text) > MAX_GAME_ID:
                raise JournalError("too large")  # (SQLite's OverflowError otherwise)
            return self.door.session.journal.game(int(text))
        except JournalError:
            raise Refused(404, f"no game {text[:24]}{'…' if len(text) > 24 else ''} "
                               "in the journal") from None

    async def _game(self, request: web.Request) -> web.Response:
        """The replay object of a finished game (download=1: as a file)."""
        saved = self._saved(request)
        try:
            body = snapshot.saved_state(saved).summary()
        except games.GameError as exc:
            raise Refused(409, f"game {saved.game_id} does not replay: {exc}") from None
        response = web.json_response(body, dumps=lambda o: json.dumps(o, indent=1))
        if request.query.get("download"):
            response.headers["Content-Disposition"] = \
                f'attachment; filename="treeboard-{saved.game}-{saved.game_id}.json"'
        return response

    async def _position(self, request: web.Request) -> web.Response:
        """A finished game's picture after its first `move` moves (for viewing move by move)."""
        saved = self._saved(request)
        try:
            upto = int(request.query.get("move", len(saved.moves)))
        except ValueError:
            raise Refused(400, "move must be a whole number") from None
        if not 0 <= upto <= len(saved.moves):
            raise Refused(400, f"move must be 0 to {len(saved.moves)}")
        try:
            state = snapshot.saved_state(saved, upto)
        except games.GameError as exc:
            raise Refused(409, f"game {saved.game_id} does not replay: {exc}") from None
        view = views.Moment.still(self.door.referee.settings.colours, moves="off", state=state)
        module = views.view_of(saved.game)
        with words.speaking(self._language(request)):   # (the moves in the page's language)
            shown = views.move_words(saved.game, list(saved.moves))
        return web.json_response({
            "id": saved.game_id, "move": upto, "moves": saved.moves,
            "move_words": shown,
            "scores": list(state.scores()), "svg": module.svg(state, view),
            "svg3d": module.svg_3d(state, view, []) if module.svg_3d is not None else None})

    async def _review(self, request: web.Request) -> web.Response:
        """A saved game reviewed move by move (games.ai.review, as `treeboard review`): the
        value before each move for its mover, and the moves that changed the result."""
        saved = self._saved(request)
        try:
            snapshot.saved_state(saved)
        except games.GameError as exc:
            raise Refused(409, f"game {saved.game_id} does not replay: {exc}") from None
        pending = self._reviews.get(saved.game_id)
        if pending is None:
            pending = self.door.in_worker(snapshot.review_rows, saved.game, dict(saved.options),
                                            list(saved.moves))
            self._reviews[saved.game_id] = pending
            while len(self._reviews) > REVIEW_CACHE:
                self._reviews.popitem(last=False)
        self._reviews.move_to_end(saved.game_id)
        try:
            rows = await asyncio.shield(pending)  # a page that goes away leaves it to the next
        except BrokenExecutor:  # the worker died (the daemon's supervisor starts another)
            self._reviews.pop(saved.game_id, None)
            raise Refused(503, f"the computer's worker stopped while reviewing game "
                               f"{saved.game_id}; it is restarted: ask again") from None
        except Exception as exc:
            self._reviews.pop(saved.game_id, None)  # asked again, it is tried again
            log.exception("review of game %d failed", saved.game_id)
            raise Refused(500, f"the review of game {saved.game_id} failed: {exc}") from None
        with words.speaking(self._language(request)):
            shown = snapshot.review_words(saved.game, rows)
        return web.json_response({"id": saved.game_id, "game": saved.game, "moves": rows,
                                  "words": shown})

    async def _ws(self, request: web.Request) -> web.StreamResponse:
        if len(self.clients) >= MAX_CLIENTS:
            raise Refused(503, f"too many open pages (at most {MAX_CLIENTS})")
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=MAX_BODY)
        await ws.prepare(request)
        client = Client(ws, self._language(request))
        self.clients.add(client)
        client.offer(self.current(client.language))
        pump = asyncio.ensure_future(client.pump())
        tab = self.presence.socket_opened(request)   # (its last socket closing: seats let go)
        try:
            async for msg in ws:  # the page only listens; anything it sends is ignored
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            self.clients.discard(client)
            pump.cancel()
            self.presence.socket_closed(tab)
        return ws

"""Whether the player of a web seat is there (docs/board.md, "A seat on the page"): the pages
that hold the seat.

    POST /api/presence {"tab": ID, "seats": "1"}   the page (a tab: ID, 8 to 32 hex digits)
         holds the web seats named ("0", "1", "0 1"; "none" lets go); a control action (the
         token where one is set). A hold lasts HOLD_S unless the page says it again: the page
         does every HEARTBEAT_S while it is shown, lets go as it is hidden or closed
         (visibilitychange, pagehide with a keepalive request), and its last socket
         (/ws?tab=ID) closing lets go at once. Answered {"held": [seats any page holds now],
         "away": [...]}; 409 with the reason for a seat that is not a web seat.
    GET  /api/presence   {"held": [...], "away": [web seats whose player is away]}

A web seat is there while at least one page holds it: several tabs may hold it, and its player
is away only when none does (and, after the board starts or the seat becomes a web seat, once
HOLD_S has passed without one: a page reconnecting after a restart holds it again first). The
board hears each change through the door (`Door.seen`), as it hears a browser's presence across
the internet from its link: referee/absence.py then says it and, in a timed game, asks the
present player what to do. At most MAX_TABS tabs are remembered (the one heard from longest
ago goes first), and each hold lapses by itself: the memory is bounded.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import re
from typing import Any, Awaitable, Callable

from aiohttp import web

from board_driver.views import words
from games.base import Reason

log = logging.getLogger("treeboard.web")

#: A hold not said again lapses after this long (the page says it every HEARTBEAT_S while
#: shown: a phone whose page froze, lost its network or was killed is away after HOLD_S).
HOLD_S = 30.0
#: How often a shown page says its hold again (app.js's PRESENCE_MS is the same).
HEARTBEAT_S = 10.0
#: The last page letting go is said only once no page has held the seat for this long: a page
#: reloaded, or its socket reconnecting after a blink, holds it again first (no "away, back").
SETTLE_S = 2.0
#: The tabs remembered at most (more than the page's MAX_CLIENTS sockets: a program may hold
#: a seat with no socket).
MAX_TABS = 32
TAB = re.compile(r"[0-9a-f]{8,32}")
SEATS = {"none": frozenset(), "0": frozenset({0}), "1": frozenset({1}),
         "0 1": frozenset({0, 1}), "1 0": frozenset({0, 1})}


class Holds:
    """Which tabs hold which seats, until when. Pure and clock-injected; bounded (MAX_TABS)."""

    def __init__(self, hold_s: float = HOLD_S, max_tabs: int = MAX_TABS):
        self.hold_s, self.max_tabs = hold_s, max_tabs
        # tab -> (the seats it holds, until when); the tab heard from longest ago first
        self._tabs: collections.OrderedDict[str, tuple[frozenset, float]] = \
            collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._tabs)

    def hold(self, tab: str, seats: frozenset, now: float) -> None:
        """`tab` holds `seats` (none: it lets go) for hold_s from `now`."""
        self._tabs.pop(tab, None)
        if seats:
            self._tabs[tab] = (seats, now + self.hold_s)
            while len(self._tabs) > self.max_tabs:
                self._tabs.popitem(last=False)

    def drop(self, tab: str) -> bool:
        """`tab` went away (its socket closed). Returns whether it held anything."""
        return self._tabs.pop(tab, None) is not None

    def held(self, now: float) -> frozenset:
        """The seats some tab holds at `now` (lapsed holds are forgotten)."""
        for tab in [t for t, (_, until) in self._tabs.items() if until <= now]:
            del self._tabs[tab]
        return frozenset().union(*(seats for seats, _ in self._tabs.values()))

    def next_lapse(self) -> float | None:
        """When the first hold lapses, or None."""
        return min((until for _, until in self._tabs.values()), default=None)


class SeatPresence:
    """The web seats' presence on the page's server: its routes, the tabs' holds, and what the
    board was last told of each web seat (`door.seen`). On the daemon's loop only. `body` and
    `language` are the server's (a POST's checked JSON fields, the page's language)."""

    def __init__(self, door: Any, body: Callable[..., Awaitable[dict]],
                 language: Callable[[web.Request], str], hold_s: float = HOLD_S):
        self.door = door
        self.body = body
        self.language = language
        self.holds = Holds(hold_s)
        self._told: dict[int, bool] = {}     # web seat -> here, as the board was last told
        self._since: dict[int, float] = {}   # web seat -> since when it is one (its grace)
        self._gone: dict[int, float] = {}    # web seat -> since when no page holds it
        self._timer: asyncio.TimerHandle | None = None
        self._booked: float | None = None    # when the timer looks next
        # tab -> its sockets open now (as many as the page's MAX_CLIENTS at most)
        self._sockets: dict[str, int] = {}

    @property
    def hold_s(self) -> float:
        return self.holds.hold_s

    @hold_s.setter
    def hold_s(self, seconds: float) -> None:   # (tests shorten it)
        self.holds.hold_s = seconds

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_post("/api/presence", self.post)
        router.add_get("/api/presence", self.get)

    # --- the routes ---------------------------------------------------------------------------

    async def post(self, request: web.Request) -> web.Response:
        data = await self.body(request, {"tab": True, "seats": True})
        tab, seats = data["tab"], data["seats"]
        if not TAB.fullmatch(tab):
            return web.json_response({"error": "tab must be 8 to 32 hex digits"}, status=400)
        if seats not in SEATS:
            return web.json_response({"error": 'seats must be "0", "1", "0 1" or "none"'},
                                     status=400)
        wanted = SEATS[seats]
        kinds = self.door.seats
        for seat in sorted(wanted):
            if kinds[seat] != "web":
                with words.speaking(self.language(request)):
                    why = words.reason(Reason(
                        "seat {n} is not a web seat: no page plays it", n=seat + 1))
                return web.json_response({"error": why}, status=409)
        self.holds.hold(tab, wanted, self.door.clock())
        self.check()
        return web.json_response(self.summary())

    async def get(self, request: web.Request) -> web.Response:
        return web.json_response(self.summary())

    def summary(self) -> dict[str, list[int]]:
        now = self.door.clock()
        return {"held": sorted(self.holds.held(now)),
                "away": sorted(s for s, here in self._told.items() if not here)}

    # --- what the board hears ------------------------------------------------------------------

    def socket_opened(self, request: web.Request) -> str | None:
        """A page's socket opened (/ws?tab=ID: a page that may hold a web seat): its tab, counted
        until the socket closes (None: it names none)."""
        tab = request.query.get("tab")
        if tab is None or not TAB.fullmatch(tab):
            return None
        self._sockets[tab] = self._sockets.get(tab, 0) + 1
        return tab

    def socket_closed(self, tab: str | None) -> None:
        """A page's socket closed (its tab closed, or its network went): once the tab's last
        socket is gone, its holds go at once (an old socket found dead after the page
        reconnected on a new one lets nothing go)."""
        if tab is None:
            return
        left = self._sockets.pop(tab, 1) - 1
        if left > 0:
            self._sockets[tab] = left
        elif self.holds.drop(tab):
            self.check()

    def check(self) -> None:
        """Tell the board of each web seat whose player came or went since it was last told
        (after a hold, a socket closing, a lapse, a change of seats: the daemon's every frame),
        and book the next look for when a hold lapses or a grace ends."""
        now = self.door.clock()
        kinds = self.door.seats
        held = self.holds.held(now)
        for seat in (0, 1):
            if kinds[seat] != "web":
                self._since.pop(seat, None)
                self._gone.pop(seat, None)
                if self._told.pop(seat, True) is False:
                    self.door.seen(seat, True)   # (no longer a web seat: no longer away)
                continue
            since = self._since.setdefault(seat, now)
            here = seat in held
            if here:
                self._gone.pop(seat, None)
            elif seat not in self._told and now < since + self.hold_s:
                continue   # (a page may be reconnecting still: not said away yet)
            elif self._told.get(seat) and now < self._gone.setdefault(seat, now) + SETTLE_S:
                continue   # (a page reloading holds it again first)
            if self._told.get(seat) != here:
                self._told[seat] = here
                log.info("web seat %d: %s", seat, "a page holds it" if here else
                         "no page holds it")
                self.door.seen(seat, here)
            if not here:
                self._gone.pop(seat, None)   # (said away: nothing more to wait for)
        self._book(now)

    def _book(self, now: float) -> None:
        """The next look: when the first hold lapses or a web seat's grace ends."""
        times = [t for t in [self.holds.next_lapse()] +
                 [since + self.hold_s for seat, since in self._since.items()
                  if seat not in self._told] +
                 [gone + SETTLE_S for gone in self._gone.values()] if t is not None]
        when = min(times, default=None)
        if self._timer is not None and self._booked == when:
            return   # (booked already: the daemon looks at every frame)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._booked = when
        if when is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return   # (no loop: a test calls it by hand)
        self._timer = loop.call_later(max(0.0, when - now) + 0.01, self._looked)

    def _looked(self) -> None:
        self._timer = None
        self.check()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

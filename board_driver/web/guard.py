"""The page's connections under a hostile client: how long a request may take to arrive, how
many connections each client may hold, and log lines that cannot flood.

    Listener(app, host, port)  the page's listening socket(s) and aiohttp's server behind the
                               gate: start() (the port), serving(), stop()
    Gate(make)                 the listening socket's protocol factory: admits a connection
                               while its client holds fewer than MAX_PER_CLIENT and the page
                               fewer than MAX_CONNECTIONS, then hands the socket to `make()`'s
                               protocol (aiohttp's); closes any other at once
    OneLine(burst, window_s)   a logging filter: each record one line (an exception's type and
                               words, never its traceback), at most `burst` of them a window

A client is an IPv4 address, or an IPv6 /64 network (one machine may hold a whole /64: its
addresses would otherwise be as many clients). A request's head must arrive within
HEADER_TIMEOUT_S (its body: `server.BODY_TIMEOUT_S`); the gate bounds how many such requests
one client can keep open meanwhile, so one client on the home network (the page needs no token
to be read) can no longer take every file the service may open.
"""

from __future__ import annotations

import asyncio
import collections
import ipaddress
import logging
import time
from typing import Any, Callable

from aiohttp import web

#: What clients did: aiohttp's lines about their requests (a malformed one, a client gone
#: mid-body) and the gate's. The server puts a OneLine filter on it while it serves.
clients_log = logging.getLogger("treeboard.web.clients")

#: The longest a request's head may take to arrive (from the connection, or from the answer
#: before it on the same connection): also how long an idle connection stays open. Seconds are
#: plenty on a home network; a half-sent request holds its socket no longer.
HEADER_TIMEOUT_S = 10.0
#: After a refused body, how long the rest of it is read and dropped before the connection
#: closes (so the client reads the answer rather than a reset).
LINGER_S = 2.0
#: asyncio's line when the listening socket finds no file to accept with (EMFILE): once a
#: second while it lasts, so it is rate-limited as the clients' lines are.
ACCEPT_FAILED = "socket.accept() out of system resource"
#: Connections one client may hold at once: a browser opens up to 6 to a host, and a WebSocket
#: for each of the board's pages it shows.
MAX_PER_CLIENT = 16
#: Connections the page holds at once, from all clients: well below the service's file limit
#: (systemd/treeboard.service's LimitNOFILE), whatever the clients do.
MAX_CONNECTIONS = 256
#: The page's log lines about a client (a malformed request, one refused at the gate): at most
#: LOG_BURST within LOG_WINDOW_S; the lines left out are counted in the next one.
LOG_BURST = 5
LOG_WINDOW_S = 60.0


def client_of(peer: Any) -> str:
    """Who a connection is from, as the gate counts: the address (IPv4, or IPv4 mapped into
    IPv6), or an IPv6 address's /64 network."""
    host = peer[0] if isinstance(peer, (tuple, list)) and peer else str(peer)
    try:
        address = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError:
        return str(host)
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class OneLine(logging.Filter):
    """Makes each record it passes one line (a traceback becomes its exception's type and
    words) at WARNING at the most: what a client sends is not the board's error. Passes at most
    `burst` records within `window_s` seconds; the ones held back are counted in the next line
    that passes. With `starts`, only the records whose message starts so are touched."""

    def __init__(self, burst: int = LOG_BURST, window_s: float = LOG_WINDOW_S, *,
                 starts: str | None = None, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.burst, self.window_s, self.starts, self.clock = burst, window_s, starts, clock
        self._passed: collections.deque[float] = collections.deque()
        self.held = 0   # records held back since the last that passed

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if self.starts is not None and not text.startswith(self.starts):
            return True
        now = self.clock()
        while self._passed and now - self._passed[0] >= self.window_s:
            self._passed.popleft()
        if len(self._passed) >= self.burst:
            self.held += 1
            return False
        self._passed.append(now)
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            text += f": {type(exc).__name__}: {' '.join(str(exc).split())}"
        text = text[:300]
        if self.held:
            text += f" ({self.held} more such lines left out)"
            self.held = 0
        record.msg, record.args = text, ()
        record.exc_info = record.exc_text = record.stack_info = None
        if record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


class Gate:
    """The listening socket's protocol factory (see the module docstring). `make` makes the
    protocol an admitted connection is handed to (aiohttp's server)."""

    def __init__(self, make: Callable[[], asyncio.BaseProtocol], *,
                 per_client: int = MAX_PER_CLIENT, total: int = MAX_CONNECTIONS):
        self.make, self.per_client, self.total = make, per_client, total
        # client -> its connections' transports (closed ones are dropped at the next arrival)
        self.open: dict[str, list[asyncio.BaseTransport]] = {}
        self.refused = 0

    def __call__(self) -> asyncio.Protocol:
        return _Admission(self)

    def count(self) -> int:
        return sum(len(t) for t in self.open.values())

    def admit(self, transport: asyncio.BaseTransport) -> bool:
        """Whether a new connection may stay (then it is counted until it closes)."""
        self.open = {who: live for who, mine in self.open.items()
                     if (live := [t for t in mine if not t.is_closing()])}
        who = client_of(transport.get_extra_info("peername"))
        mine = self.open.get(who, [])
        if len(mine) >= self.per_client or self.count() >= self.total:
            self.refused += 1
            clients_log.warning("a connection from %s closed at once: %s", who,
                                f"it holds {len(mine)} (at most {self.per_client})"
                                if len(mine) >= self.per_client else
                                f"the page holds {self.total} (its most)")
            return False
        self.open[who] = mine + [transport]
        return True


class _Admission(asyncio.Protocol):
    """A connection just accepted: admitted (handed to the server's protocol, which then owns
    the socket) or closed at once."""

    def __init__(self, gate: Gate):
        self.gate = gate

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if not self.gate.admit(transport):
            transport.abort()
            return
        protocol = self.gate.make()
        transport.set_protocol(protocol)
        protocol.connection_made(transport)


class Listener:
    """The page's listening socket(s), ours, whose connections the gate admits (aiohttp's
    TCPSite would hand every one to its server), and aiohttp's server behind it: requests time
    out (HEADER_TIMEOUT_S), and the clients' log lines and asyncio's accept failures are one line
    each, a few a minute, while it serves."""

    def __init__(self, app: web.Application, host: str, port: int):
        self.app, self.host, self.port = app, host, port
        self.gate: Gate | None = None
        self._runner: web.AppRunner | None = None
        self._server: asyncio.AbstractServer | None = None
        self._quiet = ((clients_log, OneLine()),
                       (logging.getLogger("asyncio"), OneLine(starts=ACCEPT_FAILED)))

    async def start(self) -> int:
        """Listen; returns the port (the one the OS chose, for port 0)."""
        # keepalive_timeout: aiohttp closes a connection that has not sent a whole request's
        # head this long after it opened or after its last answer (a half-sent one included).
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False,
                                     keepalive_timeout=HEADER_TIMEOUT_S, lingering_time=LINGER_S,
                                     logger=clients_log)
        await self._runner.setup()
        for logger, quiet in self._quiet:
            logger.addFilter(quiet)
        self.gate = Gate(self._runner.server)
        self._server = await asyncio.get_running_loop().create_server(
            self.gate, self.host, self.port, reuse_address=True)
        if self._server.sockets:
            self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    def serving(self) -> bool:
        return self._server is not None and self._server.is_serving()

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for logger, quiet in self._quiet:
            logger.removeFilter(quiet)

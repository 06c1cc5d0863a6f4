"""The systemd notify protocol, spoken directly over the notification socket.

systemd (Type=notify) passes the daemon a unix datagram socket in ``NOTIFY_SOCKET``
and, with WatchdogSec=, the watchdog period in ``WATCHDOG_USEC``. The protocol is
one datagram of ``KEY=value`` lines per notification, so we write it ourselves
instead of depending on libsystemd bindings.

How the daemon uses it::

    notifier = Notifier.from_environment()
    ...                                   # open sensors, LEDs, journal
    notifier.ready("playing tree-planting")
    interval = notifier.watchdog_interval()   # None: no watchdog wanted
    # in an asyncio task on the loop, so a stuck loop stops the pings:
    #   await keep_watchdog(notifier, is_healthy=lambda: loop_is_healthy)
    ...
    notifier.stopping()

Nothing here ever raises into the daemon: a board that cannot tell systemd it is
alive must go on refereeing (systemd will restart it if the watchdog expires).
Without ``NOTIFY_SOCKET`` (run from a terminal, in tests) every call is a no-op.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Mapping

log = logging.getLogger(__name__)


class Notifier:
    """Sends sd_notify messages to one socket address (or to nobody)."""

    def __init__(self, address: str | None, watchdog_usec: int | None = None) -> None:
        # A leading "@" names a socket in the abstract namespace (Linux): on the wire
        # it is a leading NUL byte.
        if address and address.startswith("@"):
            address = "\0" + address[1:]
        self.address = address or None
        self.watchdog_usec = watchdog_usec
        self._sock: socket.socket | None = None
        self._failing = False  # log the first failure loudly, the repeats quietly
        self.pings = 0         # WATCHDOG=1 sent so far (an update's trial waits for the first)

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> Notifier:
        """Read NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID (os.environ by default)."""
        env = os.environ if env is None else env
        watchdog_usec = _positive_int(env.get("WATCHDOG_USEC"))
        # WATCHDOG_PID says which process the watchdog is meant for; a child that
        # inherited the environment must not take the pings over.
        pid = env.get("WATCHDOG_PID")
        if watchdog_usec is not None and pid and _positive_int(pid) != os.getpid():
            watchdog_usec = None
        return cls(env.get("NOTIFY_SOCKET"), watchdog_usec)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def watchdog_interval(self) -> float | None:
        """Seconds between pings: half the watchdog period, or None without a watchdog."""
        if not self.enabled or self.watchdog_usec is None:
            return None
        return self.watchdog_usec / 2 / 1_000_000

    # The messages ---------------------------------------------------------------

    def ready(self, status: str | None = None) -> bool:
        """The hardware is up and the loop runs: systemd may consider the start done."""
        return self.send("READY=1", *([_status(status)] if status is not None else []))

    def watchdog(self) -> bool:
        """One ping; send it only while the loop is healthy."""
        sent = self.send("WATCHDOG=1")
        self.pings += sent
        return sent

    def status(self, text: str) -> bool:
        """A one-line status shown by `systemctl status treeboard`."""
        return self.send(_status(text))

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def reloading(self) -> bool:
        # MONOTONIC_USEC lets Type=notify-reload (systemd 253+) match the reload to
        # this message; older systemd ignores the extra line.
        return self.send("RELOADING=1", f"MONOTONIC_USEC={time.monotonic_ns() // 1000}")

    def send(self, *lines: str) -> bool:
        """Send one datagram; True when it was sent, False (logged) otherwise."""
        if self.address is None:
            return False
        payload = "\n".join(lines).encode()
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            # Never block the event loop on a full socket buffer: drop the message.
            self._sock.setblocking(False)
            self._sock.sendto(payload, self.address)
        except OSError as exc:
            level = logging.DEBUG if self._failing else logging.WARNING
            log.log(level, "systemd notify to %r failed: %s", self.address, exc)
            self._failing = True
            return False
        if self._failing:
            log.info("systemd notify to %r works again", self.address)
            self._failing = False
        return True

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


async def keep_watchdog(
    notifier: Notifier,
    is_healthy: Callable[[], bool],
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> None:
    """Ping the watchdog from the event loop while ``is_healthy()`` says so.

    Run it as a task on the daemon's loop: since the ping is sent by the loop
    itself, a blocked loop stops pinging, and so does an unhealthy one (the
    daemon decides, e.g. sensors silent or the journal failing). Returns at once
    when no watchdog is configured.
    """
    interval = notifier.watchdog_interval()
    if interval is None:
        return
    while True:
        if is_healthy():
            notifier.watchdog()
        await sleep(interval)


def _status(text: str) -> str:
    # One datagram line per key: a newline in the text would start a bogus key.
    return "STATUS=" + " ".join(str(text).splitlines())


def _positive_int(value: str | None) -> int | None:
    try:
        number = int(value) if value else 0
    except ValueError:
        return None
    return number if number > 0 else None

"""The board keeps its retained seat view its own (docs/remote.md, threat model).

Anyone who may publish on a game's seat topics can overwrite the board's retained, signed view
with a forgery (or clear it). An open seat page refuses what does not check with its key and
keeps the last good view, but a tab opened after the forgery reads only the forgery and says
"this link does not open this game" until the board publishes again. So the board listens to
its own retained view topic: anything there that is not one of the views it published itself
is answered at once with the board's newest view, retained again.

A flood of forgeries must not make the board spin: it republishes at most once in MIN_GAP_S;
a forgery heard sooner is answered once when the gap has passed (one booked republish at a
time, never a queue), so the last word on the topic is always the board's. What it remembers
is bounded: the digests of the last RECENT views it published (its own, echoed back by the
broker, are not forgeries).
"""

from __future__ import annotations

import collections
import hashlib
import logging
from typing import Any, Callable

log = logging.getLogger("treeboard.remote")

#: At most one republish in this many seconds, however many forgeries arrive.
MIN_GAP_S = 1.0
#: The board's own views remembered (their digests): the broker echoes each back to the board,
#: perhaps after the next is published.
RECENT = 8


def _digest(payload: bytes) -> bytes:
    return hashlib.sha256(payload).digest()


class ViewGuard:
    """`put(payload)` publishes a view retained; `clock()` is the loop's time; `later(delay,
    fn)` books `fn` after `delay` seconds (the loop's call_later), or returns None where no
    loop runs (a test driving the link by hand: `owed` then says a republish waits)."""

    def __init__(self, put: Callable[[bytes], None], clock: Callable[[], float],
                 later: Callable[[float, Callable[[], None]], Any]):
        self._put, self._clock, self._later = put, clock, later
        self._latest: bytes | None = None
        self._ours: collections.deque[bytes] = collections.deque(maxlen=RECENT)
        self._last_at: float | None = None   # when the board last republished for a forgery
        self._booked: Any = None             # the republish booked for when the gap has passed
        self.owed = False                    # a forgery heard and not yet answered
        self.answered = 0                    # republishes made for forgeries (the page, tests)

    def published(self, payload: bytes) -> None:
        """The board published `payload` as its view (retained)."""
        self._latest = payload
        self._ours.append(_digest(payload))

    def forget(self) -> None:
        """A new connection: the broker may have lost the retained view; the board publishes
        its view again itself (GuestLink._serve), and nothing booked is still owed."""
        self._cancel()
        self.owed = False

    def heard(self, payload: bytes) -> bool:
        """A retained view on the board's own topic. Returns whether it is a forgery (not one
        the board published: another client's, or the view cleared); one is answered with the
        board's newest view, now or when MIN_GAP_S since the last answer has passed."""
        if self._latest is None or _digest(payload) in self._ours:
            return False
        self.owed = True
        now = self._clock()
        if self._last_at is None or now - self._last_at >= MIN_GAP_S:
            self.republish()
        elif self._booked is None:
            self._booked = self._later(self._last_at + MIN_GAP_S - now, self.republish)
        return True

    def republish(self) -> None:
        """The board's newest view, retained again in place of a forgery."""
        self._cancel()
        if not self.owed or self._latest is None:
            return
        self.owed = False
        self._last_at = self._clock()
        self.answered += 1
        self._put(self._latest)

    def _cancel(self) -> None:
        if self._booked is not None:
            self._booked.cancel()
            self._booked = None

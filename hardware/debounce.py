"""Debounce: a channel's change counts once it has been stable for a window.

Reed switches bounce for a few milliseconds when a rod or peg lands; a hall sensor read near
a threshold flickers. `Debouncer` is pure logic with no clock and no thread of its own: the
caller feeds raw events (with their timestamps) and asks, at a time of its choosing, which
changes have settled. The daemon calls `feed` from its asyncio loop and schedules `due` at
`next_deadline()`; tests drive it with made-up timestamps.

Guarantees (tested): a bounce that returns to the settled value before the window ends never
produces an event; a change that stays is always reported, exactly once, with its final value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Mapping

from hardware.base import SensorEvent

#: A reed switch's contacts bounce for under 0.5 ms; a piece's own flicker (a rod rolling in its
#: groove, a cube wobbling on its hall sensor, a magnet carried over a cell) lasts under 6 ms.
#: 8 ms outlasts both with a 2 ms scan (docs/hardware.md, "Debounce"). (The best-known e-board
#: software waits 250 ms.)
DEFAULT_WINDOW_S = 0.008


@dataclass(slots=True)
class _Pending:
    value: str | None
    edge: float  # timestamp of the last raw edge on this channel


class Debouncer:
    """Turns raw sensor events into settled changes.

    An event reported by `due` carries the settled value and, as timestamp, the time of the
    *last raw edge* (the moment the value became what it now is, not the moment the window
    ran out): that is when the player actually moved, which is what latency is measured from.
    """

    def __init__(self, window_s: float = DEFAULT_WINDOW_S, initial: Mapping[Hashable, str | None] | None = None):
        if window_s < 0:
            raise ValueError(f"debounce window must be >= 0 seconds, got {window_s}")
        self.window_s = window_s
        # Channels not seen yet are taken to hold nothing (None).
        self._settled: dict[Hashable, str | None] = dict(initial or {})
        self._pending: dict[Hashable, _Pending] = {}

    def reset(self, snapshot: Mapping[Hashable, str | None]) -> None:
        """Take `snapshot` as the settled state, dropping anything pending (e.g. at start-up)."""
        self._settled = dict(snapshot)
        self._pending.clear()

    def settled(self) -> dict[Hashable, str | None]:
        """The settled value of every channel seen so far."""
        return dict(self._settled)

    def feed(self, event: SensorEvent) -> None:
        """Record a raw change. Returning to the settled value cancels what was pending."""
        if event.value == self._settled.get(event.channel):
            self._pending.pop(event.channel, None)
        else:
            pending = self._pending.get(event.channel)
            # Events from one thread arrive in order; max() keeps a late straggler from
            # moving a deadline backwards.
            edge = event.timestamp if pending is None else max(pending.edge, event.timestamp)
            self._pending[event.channel] = _Pending(event.value, edge)

    def due(self, now: float) -> list[SensorEvent]:
        """Changes stable for at least the window at `now`, each reported once, oldest first."""
        ready = [(p.edge, ch, p) for ch, p in self._pending.items() if now - p.edge >= self.window_s]
        ready.sort(key=lambda item: item[0])
        out = []
        for _, channel, pending in ready:
            del self._pending[channel]
            self._settled[channel] = pending.value
            out.append(SensorEvent(channel, pending.value, pending.edge))
        return out

    def next_deadline(self) -> float | None:
        """When `due` will next have something to report, or None if nothing is pending."""
        if not self._pending:
            return None
        return min(p.edge for p in self._pending.values()) + self.window_s

    def pending(self) -> dict[Hashable, str | None]:
        """Channels whose change has not settled yet, with the value they are heading for."""
        return {ch: p.value for ch, p in self._pending.items()}

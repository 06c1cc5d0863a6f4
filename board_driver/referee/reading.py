"""What the sensors say the board holds: raw events in, settled sites out.

The referee owns one BoardReading. It debounces each channel, maps channels to the game's
sites through the layout (a site watched by several sensors holds a piece when any of them sees
one), and remembers the pieces that came off since the last decision, so that a piece swapped
faster than the debounce (an Arbos seed lifted and a spore put down in one movement) is still
seen as a lift and a put. Pure and clock-injected like the referee.
"""

from __future__ import annotations

import logging
from typing import Hashable, Iterable, Iterator, Mapping

from hardware.base import PRESENT, SensorEvent
from hardware.debounce import Debouncer

log = logging.getLogger("treeboard.referee")


class BoardReading:
    def __init__(self, layout, window_s: float):
        self.layout = layout
        self.debouncer = Debouncer(window_s)
        self.window_s = window_s
        self.sensed: list[str] = []
        self.physical: dict[str, str | None] = {}   # settled reading of every sensed site
        self._values: dict[Hashable, str | None] = {}
        # Channels whose piece came off since the last decision (raw edges, before debounce):
        # one that is back on when the board is quiet was swapped faster than the debounce.
        self._lifted: dict[Hashable, float] = {}

    def watch(self, sites: Iterable[str]) -> None:
        """The game's sites a sensor watches (a new game may have other sites)."""
        self.sensed = [s for s in sites if s in self.layout.channels_of_site]

    def resync(self, snapshot: Mapping[Hashable, str | None]) -> None:
        """Take a full snapshot as the settled board (at start, after a reconnect)."""
        self.debouncer.reset(snapshot)
        self._lifted.clear()
        self._values = dict(snapshot)
        self.physical = {site: self._site_value(site) for site in self.sensed}

    def feed(self, event: SensorEvent) -> None:
        """A raw sensor change. Acted on once it settles (`settle`)."""
        if event.value is None and self._values.get(event.channel) is not None:
            self._lifted.setdefault(event.channel, event.timestamp)
        self.debouncer.feed(event)

    def next_deadline(self) -> float | None:
        deadline = self.debouncer.next_deadline()
        if deadline is None and self._lifted:
            # Only a swap faster than the debounce is waiting: decide when its lift would have
            # settled.
            deadline = min(self._lifted.values()) + self.window_s
        return deadline

    def settle(self, now: float) -> Iterator[str | None]:
        """Take in the changes settled by `now`, one at a time: yields the site each changed
        (None for a channel in no site), after taking it in and before the next."""
        for event in self.debouncer.due(now):
            self._values[event.channel] = event.value
            site = self.layout.site_of_channel.get(event.channel)
            if site is None:
                log.warning("sensor channel %r is in no site of layout %s", event.channel,
                            self.layout.name)
            else:
                self.physical[site] = self._site_value(site)
            yield site

    @property
    def quiet(self) -> bool:
        """Whether no change is still settling."""
        return not self.debouncer.pending()

    @property
    def lifting(self) -> bool:
        """Whether a piece came off since the last decision."""
        return bool(self._lifted)

    def swapped(self) -> list[str]:
        """Sites whose piece came off and went back on faster than the debounce (the board is
        quiet, so every lifted channel has either settled empty or is back); forgets them."""
        sites = {self.layout.site_of_channel.get(ch) for ch in self._lifted
                 if self._values.get(ch) is not None}
        self._lifted.clear()
        return sorted(s for s in sites if s is not None and self.physical.get(s) is not None)

    def forget_lifts(self) -> None:
        self._lifted.clear()

    def occupied(self) -> set[str]:
        return {site for site in self.sensed if self.physical.get(site) is not None}

    def _site_value(self, site: str) -> str | None:
        # A site watched by several sensors holds a piece when any of them sees one.
        values = [self._values.get(ch) for ch in self.layout.channels_of_site.get(site, ())]
        found = [v for v in values if v is not None]
        if not found:
            return None
        kinds = [v for v in found if v != PRESENT]
        return kinds[0] if kinds else PRESENT

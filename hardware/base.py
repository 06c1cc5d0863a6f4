"""The two small interfaces every hardware backend implements.

A *sensor source* reports changes as `SensorEvent(channel, value, timestamp)` and gives a
full snapshot on demand, so a consumer never depends on having seen every event.
A *pixel sink* takes a whole RGB frame and shows it.

Backends: gpiozero pins / scanned matrix / MCP3008 ADCs (`hardware.sensors`), NeoPixel and a
recording PixelBuf strip (`hardware.leds`), and the microcontroller bridge
(`firmware_bridge.host`). Real backends import their libraries lazily, inside the backend,
so everything else runs on any machine.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable, Hashable, Sequence

# The hardware's family in the project's tree of errors (treeboard/exc.py), re-exported here.
from treeboard.exc import HardwareError

#: The value a binary (reed / digital hall) sensor reports when something sits on it:
#: it cannot tell what. A classifying sensor (an ADC hall sensor) reports a piece kind instead.
PRESENT = "present"

Colour = tuple[int, int, int]


#: What kind of trouble a `Problem` is, where the source knows it (the board says it in a few
#: words in the family's language; the sentence itself stays in the log and the page's details).
MISSING, SILENT, DIED, INCOMPATIBLE = "missing", "silent", "died", "incompatible"


class Problem(str):
    """What `health()` finds wrong: the sentence for the log (the str itself, as before) and
    `kind`, what kind of trouble it is where the source knows it: MISSING (the device is not
    there), SILENT (it does not answer), DIED (its thread or process stopped), INCOMPATIBLE
    (it answers in another protocol); None when the source cannot tell."""

    kind: str | None

    def __new__(cls, text: str, kind: str | None = None) -> "Problem":
        self = super().__new__(cls, text)
        self.kind = kind
        return self


def kind_of(problem: str | None) -> str | None:
    """The kind of a problem (None for a plain sentence, or no problem)."""
    return problem.kind if isinstance(problem, Problem) else None


@dataclass(frozen=True, slots=True)
class SensorEvent:
    #: The channel as the layout names it: a GPIO pin number, a (row, col) of a matrix,
    #: a (chip, channel) of an ADC, a firmware's channel index.
    channel: Hashable
    #: None when nothing is sensed; PRESENT, or a piece kind for a classifying sensor.
    value: str | None
    #: Seconds on the source's clock (time.monotonic unless a clock was injected).
    timestamp: float


EventCallback = Callable[[SensorEvent], None]


class SensorSource(ABC):
    """Reports sensor changes. Thread-safe: callbacks may come from a backend thread."""

    @abstractmethod
    def start(self, callback: EventCallback) -> None:
        """Begin reporting: `callback(event)` for every raw change, from any thread.

        The callback must not block; the daemon's hands events to its loop with
        `call_soon_threadsafe`.
        """

    @abstractmethod
    def snapshot(self) -> dict[Hashable, str | None]:
        """Every channel's current raw value."""

    def health(self) -> str | None:
        """None while the source is reporting; otherwise one sentence naming the source and
        what stopped (its scan thread died, no scan for over a second, its reader thread is
        gone), a `Problem` with its kind where the source knows it. The daemon withholds systemd's watchdog ping, and logs the sentence, while any
        source says something here. Called from the event loop's thread."""
        return None

    def revive(self) -> None:
        """Bring back what `health()` reports dead (a scan thread, a link thread, edge
        callbacks that stopped), keeping the channels' values; the daemon's supervisor calls
        it, then resyncs from `snapshot()`. Raises HardwareError when it cannot. A source with
        nothing of its own that can die has nothing to do."""

    def close(self) -> None:
        """Stop reporting and release the hardware. Safe to call twice."""


class PixelSink(ABC):
    """Shows whole RGB frames on a strip of `count` pixels."""

    count: int

    @abstractmethod
    def show(self, frame: Sequence[Colour]) -> None:
        """Show `frame` (exactly `count` colours, 0..255 each, already corrected)."""

    def close(self) -> None:
        """Turn the strip off and release it. Safe to call twice."""

"""Tools for the maker wiring a board: `treeboard selftest` and `treeboard map`.

`selftest` lights each LED in turn and says whose it is; walks the maker through the board
(empty for a while, then a piece on each site in turn) and names the sensors that never change,
change by themselves or answer for the wrong site (hardware/kit/diagnose.py judges); prints
every sensor change (debounced at the layout's window) for a while; and sums up which sensors
were seen and which sites never were. `map` keeps a layout's hardware (pins, matrix, ADC
wiring, LED chain) but finds out which sensor sits under which site: it blinks each site's LED,
waits for a piece there, and writes a new layout file with what it found. On the simulated
board the hands are the maker's typed actions (cli/typed_hands.py).

Both scan a matrix at *every* row x column crossing, and an MCP3008 at every channel of each
chip, not only the ones the layout names: a switch soldered to the wrong crossing shows up
(selftest: "(no site)") and can be mapped. Direct pins are the GPIOs the layout lists.

Time, waiting and output are injected (`clock`, `wait`, `out`, `err`), and a `hands` hook is
called once per poll with a `Step` (what the tool is waiting for, the open `Hardware`), so a
test plays the maker on the simulated board without sleeping:

    clock = FakeClock()
    map_layout(sim_config(), "board.toml", clock=clock, wait=clock.advance,
               hands=lambda step: step.hardware.board.place(step.site) if step.phase == "place" else ...)
"""

from __future__ import annotations

import collections
import dataclasses
import json
import re
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, TextIO

from board_driver.config import Config
from board_driver.referee.session import load_board_layout
from hardware.base import HardwareError, SensorEvent
from hardware.debounce import Debouncer
from hardware.kit.diagnose import SiteCheck, diagnose, report
from hardware.layout import ADC_CHANNELS, NO_SITE, Layout, load_layout
from treeboard.exc import TreeboardError

#: How often the tools scan the sensors and look for settled changes.
POLL_S = 0.01
#: Exit status of `map` stopped with Ctrl-C (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130
EXIT_FAILED = 2

#: Selftest's walk: a sensor other than the site's own that goes on is taken as the one under
#: the piece (a crossed wire) once it has stayed on this long with the site's own still silent.
WRONG_SITE_HOLD_S = 1.0
#: Selftest's LED colour: full white before the layout's brightness cap and current limit.
TEST_WHITE = (255, 255, 255)
#: Map: mapped sites glow dim green, so the maker sees the progress.
DONE_COLOUR = (0, 60, 30)

NO_SITE_LABEL = "(no site)"


@dataclass(frozen=True)
class Step:
    """What a tool is doing at one poll: handed to the `hands` hook before each scan.

    phase: "led" (selftest lights LED `led`), "listen" (selftest prints changes), "quiet"
    (selftest's walk: the board lies empty), "place" (map, or selftest's walk, waits for a
    piece on `site`), "lift" (waits for it to go).
    `hardware` is the open `hardware.Hardware`; on the simulator `hardware.board` has the hands
    (`place`, `lift`) and `hardware.board.layout.site_of_channel` names every crossing scanned.
    """

    now: float
    phase: str
    hardware: Any
    site: str | None = None
    led: int | None = None


Hands = Callable[[Step], None]


class HandsStopped(TreeboardError):
    """The maker's hands stopped the tool (typed actions that ended): it stops as on Ctrl-C,
    and map writes nothing. The message says why."""


# --- the layout as scanned ------------------------------------------------------------------


def unmapped_name(channel: Hashable, kind: str) -> str:
    """The placeholder name a scanned channel with no site gets inside the tools."""
    if kind == "matrix":
        return f"{NO_SITE}r{channel[0]}c{channel[1]}"
    return f"{NO_SITE}adc{channel[0]}.{channel[1]}"


def discovery_layout(layout: Layout) -> Layout:
    """`layout` with every matrix crossing and every ADC channel of each chip as a channel.

    The crossings / channels the layout does not name get placeholder sites (`unmapped_name`),
    which are not sites of the board: `Leds` and the board's site list are unchanged. Opened on
    a simulated board, `board.place(placeholder)` closes that crossing.
    """
    changes: dict[str, Any] = {}
    if layout.matrix is not None:
        m = layout.matrix
        channels = {(r, c): m.channels.get((r, c), unmapped_name((r, c), "matrix"))
                    for r in range(len(m.rows)) for c in range(len(m.cols))}
        changes["matrix"] = dataclasses.replace(m, channels=channels)
    if layout.adc is not None:
        a = layout.adc
        channels = {(chip, ch): a.channels.get((chip, ch), unmapped_name((chip, ch), "adc"))
                    for chip in range(len(a.selects)) for ch in range(ADC_CHANNELS)}
        changes["adc"] = dataclasses.replace(a, channels=channels)
    return dataclasses.replace(layout, **changes) if changes else layout


def channel_name(layout: Layout, channel: Hashable) -> str:
    """A channel as a maker reads it: GPIO4, matrix r1c2, adc chip0 ch3, bridge 5."""
    if layout.pins is not None and channel in layout.pins.channels:
        return f"GPIO{channel}"
    if layout.matrix is not None and isinstance(channel, tuple) and (
            channel in layout.matrix.channels or layout.adc is None):
        return f"matrix r{channel[0]}c{channel[1]}"
    if layout.adc is not None and isinstance(channel, tuple):
        return f"adc chip{channel[0]} ch{channel[1]}"
    if layout.bridge is not None:
        return f"bridge {channel}"
    return str(channel)


def _value_text(value: str | None) -> str:
    return "empty" if value is None else value


# --- the polling bench both tools share -----------------------------------------------------


class _Bench:
    """Open hardware, raw events queued from any thread, debounced on each poll."""

    def __init__(self, config: Config, layout: Layout, scanned: Layout, *, clock, wait, hands, out, err,
                 poll_s: float):
        self.layout, self.scanned = layout, scanned
        self.clock, self.wait, self.hands = clock, wait, hands
        self.out, self.err = out, err
        self.poll_s = poll_s
        self.hw = _open(config, scanned, clock)
        self._events: collections.deque[SensorEvent] = collections.deque()
        self.debouncer = Debouncer(layout.debounce_s)
        try:
            self.hw.source.start(self._events.append)  # deque.append is thread-safe
            self.resync()
        except BaseException:
            self.hw.close()
            raise

    def say(self, line: str = "") -> None:
        print(line, file=self.out, flush=True)

    def name(self, channel: Hashable) -> str:
        return channel_name(self.scanned, channel)

    def site_label(self, channel: Hashable) -> str:
        return self.layout.site_of_channel.get(channel, NO_SITE_LABEL)

    def _scan(self) -> None:
        scan = getattr(self.hw.source, "scan_once", None)
        if scan is not None:
            scan()

    def resync(self) -> None:
        """Take the board as it is now as settled: no change is reported for what is already there."""
        self._scan()
        self._events.clear()
        self.debouncer.reset(self.hw.source.snapshot())

    def poll(self, step: Step) -> list[SensorEvent]:
        """One poll: the hands act, the sensors are scanned, settled changes come back."""
        if self.hands is not None:
            self.hands(step)
        self._scan()
        while self._events:
            self.debouncer.feed(self._events.popleft())
        return self.debouncer.due(self.clock())

    def pause(self, until: float) -> None:
        """Wait one poll period, or less if `until` comes sooner."""
        self.wait(max(0.0, min(self.poll_s, until - self.clock())))

    def show(self, frame: dict) -> None:
        self.hw.leds.show(frame)

    def close(self) -> None:
        try:
            self.hw.leds.clear()
        except Exception:  # a strip that is gone already
            pass
        self.hw.close()


def _reached(now: float, until: float) -> bool:
    # A nanosecond of slack: a float clock may never add up to `until` exactly.
    return now >= until - 1e-9


def _open(config: Config, scanned: Layout, clock):
    """The hardware of `scanned` on the config's backend; the scan is ours (autoscan off)."""
    if config.backend == "bridge":
        raise HardwareError("selftest and map scan GPIO wiring (backend gpio or sim); a bridge board's "
                            "firmware scans its own sensors")
    if scanned.bridge is not None:
        raise HardwareError(f"{scanned.path}: sensors are on a microcontroller bridge; selftest and map "
                            "scan GPIO wiring only")
    from hardware import open_hardware

    hw = open_hardware(scanned, config.backend, clock=clock, autoscan=False)
    from board_driver.referee.session import apply_led_limits

    apply_led_limits(hw.leds, config)
    return hw


# --- selftest -------------------------------------------------------------------------------


def led_owner(layout: Layout, index: int) -> str:
    """Whose LED `index` is: a site, a named group ("turn (named)"), or nobody's."""
    site = layout.site_of_led.get(index)
    if site is not None:
        return site
    for name, indexes in layout.named_leds.items():
        if index in indexes:
            return f"{name} (named)"
    return NO_SITE_LABEL


def selftest(config: Config, *, seconds_per_led: float = 0.3, listen_seconds: float = 60.0,
             walk: bool = False, site_seconds: float = 20.0, quiet_seconds: float = 5.0,
             out: TextIO | None = None, err: TextIO | None = None,
             clock: Callable[[], float] = time.monotonic, wait: Callable[[float], None] = time.sleep,
             hands: Hands | None = None, poll_s: float = POLL_S) -> int:
    """Light each LED in turn; with `walk`, walk the maker through every site; then print each
    sensor change for `listen_seconds`; 0 when done.

    Prints one line per LED (`LED 3: h0.3`). The walk first asks for an empty board for
    `quiet_seconds` (a sensor that changes then changes by itself), then lights each sensed
    site's LEDs in turn, asks for a piece there and waits up to `site_seconds` for a sensor to
    see it and for it to be lifted. Listening prints one line per settled change
    (`GPIO4 -> t0.0: present`). Then a summary: the sensors seen changing, the sites never seen,
    and the walk's findings (hardware/kit/diagnose.py: sensors that never change, that change
    by themselves, that answer for the wrong site). Ctrl-C (or the typed hands stopping) ends
    any phase early, still with the summary; the LEDs go dark and the hardware is released
    whatever happens. Errors opening the board raise (ConfigError, LayoutError,
    HardwareError), as for `treeboard run`.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    layout = load_board_layout(config)
    scanned = discovery_layout(layout)
    bench = _Bench(config, layout, scanned, clock=clock, wait=wait, hands=hands, out=out, err=err, poll_s=poll_s)
    seen: dict[Hashable, int] = {}  # channel -> settled changes seen
    walked = _Walk()
    try:
        bench.say(f"selftest of {layout.name} ({config.backend}): {layout.led_count} LEDs, "
                  f"{len(scanned.site_of_channel)} sensor channels, {len(layout.sites)} sites")
        try:
            _light_each_led(bench, seconds_per_led)
            if walk:
                _walk(bench, walked, seen, quiet_seconds, site_seconds)
            if listen_seconds > 0:
                _listen(bench, listen_seconds, seen)
        except KeyboardInterrupt:
            bench.say("stopped")
        except HandsStopped as exc:
            bench.say(f"stopped: {exc}")
        _summary(bench, seen)
        if walk:
            findings = diagnose(layout, walked.checks, walked.quiet, set(seen))
            for line in report(layout, findings, bench.name):
                bench.say(line)
    finally:
        bench.close()
    return 0


def _light_each_led(bench: _Bench, seconds: float) -> None:
    layout = bench.layout
    bench.say(f"LEDs, {seconds:g} s each:")
    for i in range(layout.led_count):
        bench.show({i: TEST_WHITE})
        bench.say(f"LED {i}: {led_owner(layout, i)}")
        start = bench.clock()
        while True:
            now = bench.clock()
            if bench.hands is not None:
                bench.hands(Step(now, "led", bench.hw, led=i))
            if _reached(now, start + seconds):
                break
            bench.pause(start + seconds)
    bench.show({})


def _listen(bench: _Bench, seconds: float, seen: dict[Hashable, int]) -> None:
    bench.say(f"sensors, for {seconds:g} s (Ctrl-C to stop): channel -> site: value")
    bench.resync()  # what is on the board now is where we start from
    start = bench.clock()
    while True:
        now = bench.clock()
        for event in bench.poll(Step(now, "listen", bench.hw)):
            seen[event.channel] = seen.get(event.channel, 0) + 1
            bench.say(f"{bench.name(event.channel)} -> {bench.site_label(event.channel)}: {_value_text(event.value)}")
        if _reached(now, start + seconds):
            return
        bench.pause(start + seconds)


class _Walk:
    """What the walk saw: the changes while the board lay empty, each site's turn."""

    def __init__(self):
        self.quiet: dict[Hashable, int] = {}
        self.checks: list[SiteCheck] = []


def _walk(bench: _Bench, walked: _Walk, seen: dict[Hashable, int], quiet_seconds: float,
          site_seconds: float) -> None:
    """The board empty for `quiet_seconds`, then each sensed site in turn: lit, a piece asked
    for and (once a sensor sees it) lifted, `site_seconds` for each."""
    layout = bench.layout
    bench.say(f"leave the board empty for {quiet_seconds:g} s: a sensor that changes now changes by itself")
    bench.resync()
    start = bench.clock()
    while True:
        now = bench.clock()
        for event in bench.poll(Step(now, "quiet", bench.hw)):
            seen[event.channel] = seen.get(event.channel, 0) + 1
            walked.quiet[event.channel] = walked.quiet.get(event.channel, 0) + 1
            bench.say(f"  {bench.name(event.channel)} -> {bench.site_label(event.channel)}: "
                      f"{_value_text(event.value)}, by itself")
        if _reached(now, start + quiet_seconds):
            break
        bench.pause(start + quiet_seconds)
    sites = [s for s in layout.sites if s in layout.channels_of_site]
    bench.say(f"now a piece on each of the {len(sites)} sensed sites in turn, {site_seconds:g} s each:")
    for n, site in enumerate(sites, 1):
        check = SiteCheck(site)
        _walk_site(bench, check, seen, n, len(sites), site_seconds)
        walked.checks.append(check)   # (a turn cut short by Ctrl-C is not judged)
    bench.show({})


def _walk_site(bench: _Bench, check: SiteCheck, seen: dict[Hashable, int], n: int, total: int,
               seconds: float) -> None:
    """One site's turn: lit, a piece asked for, the sensor that answers, the piece lifted.

    The site's own sensor answers at once. Another one that goes on is taken as the answer
    (a crossed wire) only once it has stayed on for WRONG_SITE_HOLD_S (or to the end of the
    turn) with the site's own still silent: one that flickers meanwhile (a reed closing by
    itself) is only counted."""
    layout, site = bench.layout, check.site
    own = layout.channels_of_site[site]
    leds = layout.leds_of_site.get(site, ())
    bench.show({site: TEST_WHITE} if leds else {})
    where = f"LED {', '.join(map(str, leds))} lit" if leds else "no LED beside it"
    bench.say(f"put a piece on {site} ({n}/{total}; {where})")
    start = bench.clock()
    lifting_since = None
    candidate: tuple[Hashable, float] | None = None   # another sensor on, and since when

    def count(channel: Hashable, changes: int = 1) -> None:
        check.others[channel] = check.others.get(channel, 0) + changes

    while True:
        now = bench.clock()
        phase = "place" if check.answered is None else "lift"
        for event in bench.poll(Step(now, phase, bench.hw, site=site)):
            channel = event.channel
            seen[channel] = seen.get(channel, 0) + 1
            if check.answered is not None:
                if channel != check.answered:
                    count(channel)
            elif event.value is not None and channel in own:
                lifting_since = _answer(bench, check, channel, now)
            elif event.value is not None and candidate is None:
                candidate = (channel, now)
            elif candidate is not None and channel == candidate[0]:
                count(channel, 2)   # on and off again before it could count: a flicker
                candidate = None
            else:
                count(channel)
        if check.answered is None and candidate is not None and (
                _reached(now, candidate[1] + WRONG_SITE_HOLD_S) or _reached(now, start + seconds)):
            lifting_since = _answer(bench, check, candidate[0], now)   # still on: it is the one
        if check.answered is not None and bench.debouncer.settled().get(check.answered) is None:
            return
        if check.answered is None and _reached(now, start + seconds):
            bench.say(f"  not seen within {seconds:g} s")
            return
        if lifting_since is not None and _reached(now, lifting_since + seconds):
            bench.say(f"  still on after {seconds:g} s; going on")
            return
        until = start + seconds if lifting_since is None else lifting_since + seconds
        if candidate is not None and check.answered is None:
            until = min(until, candidate[1] + WRONG_SITE_HOLD_S)
        bench.pause(until)


def _answer(bench: _Bench, check: SiteCheck, channel: Hashable, now: float) -> float:
    """Take `channel` as the sensor that answered for the site; say so; the lift starts now."""
    check.answered = channel
    owner = bench.layout.site_of_channel.get(channel)
    if channel in bench.layout.channels_of_site[check.site]:
        bench.say(f"  seen: {bench.name(channel)}; lift it")
    else:
        whose = f"which the layout gives to {owner}" if owner else "which the layout gives no site"
        bench.say(f"  seen on {bench.name(channel)}, {whose}; lift it")
    return now


def _summary(bench: _Bench, seen: dict[Hashable, int]) -> None:
    layout = bench.layout
    total = len(bench.scanned.site_of_channel)
    listed = ", ".join(f"{bench.name(ch)} -> {bench.site_label(ch)}" for ch in seen)
    bench.say(f"sensors seen changing ({len(seen)} of {total})" + (f": {listed}" if listed else ""))
    seen_sites = {layout.site_of_channel[ch] for ch in seen if ch in layout.site_of_channel}
    never = [s for s in layout.sites if s in layout.channels_of_site and s not in seen_sites]
    bench.say(f"sites never seen ({len(never)})" + (": " + " ".join(never) if never else ""))
    if layout.unsensed_sites:
        bench.say(f"sites with no sensor in the layout: {' '.join(layout.unsensed_sites)}")


# --- map ------------------------------------------------------------------------------------


class MapFailed(TreeboardError):
    """Map gave up (a timeout); the message says on which site."""


def map_layout(config: Config, output: str | Path, *, timeout: float = 120.0,
               out: TextIO | None = None, err: TextIO | None = None,
               clock: Callable[[], float] = time.monotonic, wait: Callable[[float], None] = time.sleep,
               hands: Hands | None = None, poll_s: float = POLL_S) -> int:
    """Find which sensor channel is under each site and write the layout to `output`.

    Uses the hardware of the config's layout (its pins, every crossing of its matrix, every
    channel of its ADCs, its LED chain). For each site in board order: blink its LED(s), print
    `put a piece on SITE`, wait until exactly one channel settles non-empty, record it, wait
    for the piece to be lifted. A channel already mapped is refused (lift it and try again).
    Returns 0 when the file is written (it loads with `load_layout`), 2 when `output` exists
    (never overwritten) or a site times out (`timeout` seconds per site; nothing written),
    130 on Ctrl-C (nothing written).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    output = Path(output)
    if output.exists():
        print(f"treeboard map: {output} exists; not overwriting it (remove it or choose another --output)",
              file=err, flush=True)
        return EXIT_FAILED
    try:
        # Can the file be written at all? Asked now, not after every site is mapped by hand
        # (or, on the sim with no hands, after a site's whole timeout).
        with open(output, "x", encoding="utf-8"):
            pass
        output.unlink()
    except FileExistsError:
        print(f"treeboard map: {output} exists; not overwriting it (remove it or choose another --output)",
              file=err, flush=True)
        return EXIT_FAILED
    except OSError as exc:
        print(f"treeboard map: cannot write {output}: {exc.strerror or exc}; nothing mapped "
              "(choose another --output)", file=err, flush=True)
        return EXIT_FAILED
    layout = load_board_layout(config)
    scanned = discovery_layout(layout)
    bench = _Bench(config, layout, scanned, clock=clock, wait=wait, hands=hands, out=out, err=err, poll_s=poll_s)
    mapping: dict[Hashable, str] = {}  # channel -> site
    try:
        candidates = len(scanned.site_of_channel)
        sites = layout.sites
        bench.say(f"mapping {len(sites)} sites of {layout.name} ({config.backend}) onto {candidates} sensor "
                  f"channels; {timeout:g} s per site, Ctrl-C to stop")
        if candidates < len(sites):
            bench.say(f"note: the wiring has only {candidates} channels for {len(sites)} sites")
        for n, site in enumerate(sites, 1):
            _map_site(bench, site, n, mapping, timeout, config.blink_hz, config.colours["waiting"])
    except MapFailed as exc:
        print(f"treeboard map: {exc}; {len(mapping)} of {len(layout.sites)} sites mapped, nothing written",
              file=err, flush=True)
        return EXIT_FAILED
    except KeyboardInterrupt:
        bench.say(f"stopped after {len(mapping)} of {len(layout.sites)} sites; nothing written")
        return EXIT_INTERRUPTED
    except HandsStopped as exc:
        print(f"treeboard map: {exc} after {len(mapping)} of {len(layout.sites)} sites; nothing "
              "written", file=err, flush=True)
        return EXIT_FAILED
    finally:
        bench.close()

    text = layout_toml(layout, mapping)
    _check_written_layout(text, mapping)
    try:
        with open(output, "x", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        print(f"treeboard map: {output} appeared while mapping; not overwriting it", file=err, flush=True)
        return EXIT_FAILED
    except OSError as exc:
        print(f"treeboard map: cannot write {output}: {exc.strerror}", file=err, flush=True)
        return EXIT_FAILED
    print(f"wrote {output}: {len(mapping)} sites mapped", file=out, flush=True)
    return 0


def _map_site(bench: _Bench, site: str, n: int, mapping: dict[Hashable, str], timeout: float,
              blink_hz: float, waiting: tuple[int, int, int]) -> None:
    layout = bench.layout
    leds = layout.leds_of_site.get(site, ())
    where = f"LED {', '.join(map(str, leds))} blinking" if leds else "no LED beside it"
    bench.say(f"put a piece on {site} ({n}/{len(layout.sites)}; {where})")
    start = bench.clock()
    deadline = start + timeout
    done = {s: DONE_COLOUR for s in mapping.values()}
    fresh: set[Hashable] = set()  # channels that went on since the prompt and were not judged yet
    found: Hashable | None = None
    while True:
        now = bench.clock()
        phase = "place" if found is None else "lift"
        blink_on = int((now - start) * 2 * blink_hz) % 2 == 0
        bench.show({**done, site: (DONE_COLOUR if found is not None
                                   else (waiting if blink_on else (0, 0, 0)))})
        events = bench.poll(Step(now, phase, bench.hw, site=site))
        for event in events:
            (fresh.add if event.value is not None else fresh.discard)(event.channel)
        on = [ch for ch, v in bench.debouncer.settled().items() if v is not None]
        if found is None and events and fresh:
            # Judge only when something changed: each message is said once per change.
            if len(on) > 1:
                bench.say(f"  {len(on)} sensors are on ({', '.join(_describe(bench, mapping, ch) for ch in on)}); "
                          f"leave only the piece on {site}")
            elif on and on[0] in fresh:  # (a piece down since before the prompt is not it)
                channel = on[0]
                fresh.discard(channel)
                if channel in mapping:
                    bench.say(f"  {bench.name(channel)} is already mapped to {mapping[channel]}; "
                              f"lift that piece and put one on {site}")
                else:
                    found = channel
                    mapping[channel] = site
                    bench.say(f"  {site} = {bench.name(channel)}; lift the piece")
        if found is not None and bench.debouncer.settled().get(found) is None:
            return
        if _reached(now, deadline):
            if found is None:
                still = f" (sensors on: {', '.join(_describe(bench, mapping, ch) for ch in on)})" if on else ""
                raise MapFailed(f"timed out after {timeout:g} s waiting for a piece on {site}{still}")
            raise MapFailed(f"timed out after {timeout:g} s waiting for the piece on {site} to be lifted")
        bench.pause(deadline)


def _describe(bench: _Bench, mapping: dict[Hashable, str], channel: Hashable) -> str:
    name = bench.name(channel)
    return f"{name} = {mapping[channel]}" if channel in mapping else name


# --- writing the layout ---------------------------------------------------------------------


def layout_toml(layout: Layout, mapping: dict[Hashable, str]) -> str:
    """The layout file for `layout`'s hardware with sensors mapped as `mapping` (channel -> site).

    Every section but the sensor sites is the input file's, as read ([board], [leds],
    [buttons], pull levels, matrix lines and timing, ADC bands).
    """
    data = tomllib.loads(layout.path.read_text(encoding="utf-8"))
    sensors = data["sensors"]
    order = {s: i for i, s in enumerate(layout.sites)}
    ordered = sorted(mapping.items(), key=lambda item: order.get(item[1], len(order)))
    if layout.pins is not None:
        sensors["pins"]["sites"] = {site: ch for ch, site in ordered if ch in layout.pins.channels}
    if layout.matrix is not None:
        m = layout.matrix
        names = [[mapping.get((r, c), NO_SITE) for c in range(len(m.cols))] for r in range(len(m.rows))]
        width = max(len(name) for row in names for name in row)
        sensors["matrix"]["sites"] = [" ".join(name.ljust(width) for name in row).rstrip() for row in names]
    if layout.adc is not None:
        adc_channels = {(chip, ch) for chip in range(len(layout.adc.selects)) for ch in range(ADC_CHANNELS)}
        sensors["adc"]["sites"] = {site: list(ch) for ch, site in ordered if ch in adc_channels}
    header = (f"# Written by `treeboard map` from the hardware of {layout.name} ({layout.path.name}):\n"
              f"# the sensor sites were found by placing a piece on each site in turn.\n")
    return header + _toml_document(data)


def _check_written_layout(text: str, mapping: dict[Hashable, str]) -> None:
    """Load the text as a layout before writing it: it must validate and map what was found."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mapped.toml"
        path.write_text(text, encoding="utf-8")
        loaded = load_layout(path)  # LayoutError if it does not check (a bug here)
    if loaded.site_of_channel != mapping:
        raise AssertionError(f"the written layout maps {loaded.site_of_channel}, not {mapping}")


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _toml_string(key)


def _toml_string(text: str) -> str:
    # JSON's escapes are TOML's; DEL is the one control character JSON leaves raw.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(value: Any, indent: str = "") -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        items = [_toml_value(v, indent + "    ") for v in value]
        one_line = "[" + ", ".join(items) + "]"
        if len(one_line) <= 80:
            return one_line
        if all(len(item) <= 12 for item in items):  # short scalars: several a line
            rows, line = [], ""
            for item in items:
                if line and len(line) + len(item) + 2 > 92:
                    rows.append(line)
                    line = ""
                line += item + ", "
            rows.append(line)
            return "[\n" + "".join(f"{indent}    {row.rstrip()}\n" for row in rows) + f"{indent}]"
        return "[\n" + "".join(f"{indent}    {item},\n" for item in items) + f"{indent}]"
    raise TypeError(f"cannot write {value!r} as TOML")


def _toml_document(data: dict[str, Any]) -> str:
    lines: list[str] = []

    def small(value: Any) -> bool:
        # A small table of scalars (e.g. [board] options, [leds] named) stays inline.
        return (isinstance(value, dict) and bool(value) and len(_toml_value(value)) <= 80
                and all(not isinstance(v, dict) for v in value.values()))

    def table(path: list[str], body: dict[str, Any]) -> None:
        plain = {k: v for k, v in body.items() if not isinstance(v, dict) or (len(path) > 0 and small(v))}
        subtables = {k: v for k, v in body.items() if k not in plain}
        if plain or not subtables:
            if lines:
                lines.append("")
            lines.append("[" + ".".join(_toml_key(p) for p in path) + "]")
            lines.extend(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in plain.items())
        for key, sub in subtables.items():
            table(path + [key], sub)

    for key, body in data.items():
        table([key], body)
    return "\n".join(lines) + "\n"

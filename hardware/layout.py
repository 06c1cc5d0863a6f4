"""Layout files: which wire and which LED belongs to which site of the board.

A layout (`hardware/layouts/NAME.toml`, or any path) says what board it is for, how its
sensors are wired (direct GPIO pins, a scanned diode matrix, MCP3008 ADCs, or a
microcontroller bridge), and which LED of the strip sits by which site, so a maker may wire
in any order. `load_layout` checks everything it can without hardware and refuses a bad file
with a `LayoutError` that names the file, the key and what was expected. The format is
described in docs/hardware.md.
"""

from __future__ import annotations

import bisect
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

from treeboard.exc import TreeboardError

LAYOUT_DIR = Path(__file__).with_name("layouts")

#: BCM GPIO numbers on the 40-pin header of every Pi from the Zero 2 W to the Pi 5.
GPIO_PINS = range(0, 28)
#: The SPI0 pins an MCP3008 is wired to (clock, MOSI, MISO) and its chip selects CE0, CE1.
SPI_CLOCK, SPI_MOSI, SPI_MISO = 11, 10, 9
SPI_SELECTS = (8, 7)
#: Each MCP3008 has eight single-ended channels.
ADC_CHANNELS = 8
#: Mark for "no site here" in matrix rows and LED chains.
NO_SITE = "-"
#: Grids name cells chess-style, so at most 26 files (columns).
MAX_GRID_SIDE = 26

PIXEL_ORDERS = ("RGB", "RBG", "GRB", "GBR", "BRG", "BGR", "RGBW", "GRBW")


class LayoutError(TreeboardError, ValueError):
    """A layout file that does not describe a board: names the file, the key and what was expected."""

    def __init__(self, path: str | Path, key: str, expected: str, got: Any = None, *, detail: str = ""):
        self.path = str(path)
        self.key = key
        self.expected = expected
        message = f"{self.path}: {key}: expected {expected}"
        if got is not None:
            message += f", got {got!r}"
        if detail:
            message += f" ({detail})"
        super().__init__(message)


@dataclass(frozen=True)
class PinSensors:
    """One gpiozero input per sensor. Channel = GPIO number."""

    pull: str  # "up", "down" or "none"
    active_low: bool
    channels: dict[int, str]  # GPIO -> site


@dataclass(frozen=True)
class MatrixSensors:
    """A diode matrix: rows are driven low one at a time, columns read with pull-ups.

    Channel = (row index, column index).
    """

    rows: tuple[int, ...]  # GPIO of each row output
    cols: tuple[int, ...]  # GPIO of each column input
    settle_s: float  # wait after driving a row before reading the columns
    scan_period_s: float  # one full scan every this many seconds
    channels: dict[tuple[int, int], str]


@dataclass(frozen=True)
class AdcSensors:
    """Analog hall sensors on MCP3008 chips. Channel = (chip index, ADC channel).

    A reading (0.0 .. 1.0 of the reference voltage) falls into one of len(thresholds)+1
    bands; `kinds[i]` is what band i means (None: nothing there). A reading exactly on a
    threshold belongs to the band above it.
    """

    selects: tuple[int, ...]  # chip-select GPIO of each chip (8 = CE0, 7 = CE1)
    thresholds: tuple[float, ...]
    kinds: tuple[str | None, ...]
    poll_period_s: float
    channels: dict[tuple[int, int], str]

    def classify(self, value: float) -> str | None:
        return self.kinds[bisect.bisect_right(self.thresholds, value)]

    def level_of(self, kind: str | None) -> float:
        """The middle of `kind`'s band: the reading a simulated sensor gives for it."""
        try:
            band = self.kinds.index(kind)
        except ValueError:
            raise ValueError(f"no band for piece kind {kind!r}; bands hold {self.kinds}") from None
        edges = (0.0, *self.thresholds, 1.0)
        return (edges[band] + edges[band + 1]) / 2


@dataclass(frozen=True)
class BridgeSensors:
    """Sensors scanned by a microcontroller on USB serial (firmware_bridge). Channel = index,
    row * cols + col of the firmware's matrix."""

    channels: dict[int, str]
    #: The firmware's matrix as wired ("pins": GPIO rows and columns; "shift-register":
    #: 74HC595 rows and 74HC165 columns) and its size; None: as small as the channels need.
    #: The real firmware says its size in HELLO; `treeboard sim --bridge` builds it from these.
    matrix: str = "pins"
    rows: int | None = None
    cols: int | None = None


@dataclass(frozen=True)
class LedSettings:
    pin: int | None  # GPIO of the strip's data line (None for a bridge, whose firmware drives it)
    count: int
    pixel_order: str
    brightness: float  # cap, 0..1
    max_milliamps: float
    gamma: float


@dataclass(frozen=True)
class Layout:
    name: str
    path: Path
    game: str | None  # registry name, None for a generic grid
    game_options: dict[str, Any]
    grid: tuple[int, int] | None  # (cols, rows) of a generic grid
    sites: tuple[str, ...]  # every sensed site of the board, in the game's order
    pins: PinSensors | None
    matrix: MatrixSensors | None
    adc: AdcSensors | None
    bridge: BridgeSensors | None
    debounce_s: float
    leds: LedSettings
    leds_of_site: dict[str, tuple[int, ...]]
    named_leds: dict[str, tuple[int, ...]]  # LEDs that belong to no site: turn, score...
    buttons: dict[str, int]  # name -> GPIO
    site_of_channel: dict[Hashable, str] = field(init=False)
    channels_of_site: dict[str, tuple[Hashable, ...]] = field(init=False)

    def __post_init__(self):
        site_of_channel: dict[Hashable, str] = {}
        for group in (self.pins, self.matrix, self.adc, self.bridge):
            if group is not None:
                site_of_channel.update(group.channels)
        channels_of_site: dict[str, list[Hashable]] = {}
        for channel, site in site_of_channel.items():
            channels_of_site.setdefault(site, []).append(channel)
        object.__setattr__(self, "site_of_channel", site_of_channel)
        object.__setattr__(self, "channels_of_site", {s: tuple(c) for s, c in channels_of_site.items()})

    @property
    def led_count(self) -> int:
        return self.leds.count

    @property
    def sensor_types(self) -> tuple[str, ...]:
        """Which kinds of sensors are wired: some of "pins", "matrix", "adc", "bridge"."""
        return tuple(k for k in ("pins", "matrix", "adc", "bridge") if getattr(self, k) is not None)

    @property
    def site_of_led(self) -> dict[int, str]:
        return {i: site for site, leds in self.leds_of_site.items() for i in leds}

    @property
    def unsensed_sites(self) -> tuple[str, ...]:
        """Sites of the board with no sensor (allowed: e.g. a game played by touch)."""
        return tuple(s for s in self.sites if s not in self.channels_of_site)


# --- board sites ----------------------------------------------------------------------------


def grid_sites(cols: int, rows: int) -> list[str]:
    """Cells of a generic grid, chess-style: files a.. from the left, ranks 1.. from the bottom.

    Listed rank by rank from the bottom: a1 b1 ... a2 b2 ...
    """
    files = "abcdefghijklmnopqrstuvwxyz"[:cols]
    return [f"{f}{r}" for r in range(1, rows + 1) for f in files]


def board_sites(game: str | None, options: dict[str, Any], grid: tuple[int, int] | None) -> list[str]:
    """Every sensed site of the board: from the game module, or computed for a generic grid.

    Raises LookupError when the game is unknown or its module cannot be imported, ValueError
    when the game refuses the options.
    """
    if game is None:
        assert grid is not None
        return grid_sites(*grid)
    import games  # late: a layout for a grid needs no rules engine

    try:
        rules = games.get_game(game)
    except ImportError as exc:  # registered, but the module is missing or broken
        raise LookupError(f"game {game!r} cannot be loaded: {exc}") from exc
    except KeyError as exc:
        raise LookupError(exc.args[0]) from exc
    return list(rules.new_state(**options).sites())


def check_piece_kinds(game: str, kinds: Sequence[str | None], fail: Callable[..., Exception]) -> None:
    """Every kind an ADC band names must be one the game has (when it declares them): a band
    named for another game's piece would read as a piece no move explains. Raises
    `fail("[sensors.adc] kinds", expected, got)`."""
    import games

    known = games.get_game(game).piece_kinds
    if known is None:
        return
    unknown = [k for k in kinds if k and k not in known]
    if unknown:
        raise fail("[sensors.adc] kinds", f"piece kinds of {game} ({', '.join(sorted(known))}) "
                   "and \"\" for an empty hole", unknown[0])


# --- loading --------------------------------------------------------------------------------


def shipped_layouts() -> list[str]:
    """Names of the layouts shipped in hardware/layouts."""
    return sorted(p.stem for p in LAYOUT_DIR.glob("*.toml"))


def load_layout(name_or_path: str | Path) -> Layout:
    """Load and check a layout, by shipped name (file stem) or by path."""
    path = Path(name_or_path)
    if path.suffix != ".toml" and not path.exists():
        path = LAYOUT_DIR / f"{name_or_path}.toml"
        if not path.exists():
            raise LayoutError(path, "file", "a shipped layout name or a .toml path", str(name_or_path),
                              detail="shipped: " + ", ".join(shipped_layouts()))
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LayoutError(path, "file", "a readable layout file", detail=str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise LayoutError(path, "file", "a text file in UTF-8",
                          detail=f"byte 0x{exc.object[exc.start]:02x} at offset {exc.start} is not UTF-8"
                          ) from None
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError(path, "file", "valid TOML (each key once)", detail=str(exc)) from exc
    return _Parser(path, data).layout()


class _Parser:
    """Reads one layout's TOML data, checking as it goes; every error names a key."""

    def __init__(self, path: Path, data: dict[str, Any]):
        self.path = path
        self.data = data
        # GPIO -> the key that uses it, to refuse a pin used twice.
        self.pins_used: dict[int, str] = {}
        # site -> key that senses it, to refuse a site sensed twice.
        self.sensed: dict[str, str] = {}

    def fail(self, key: str, expected: str, got: Any = None, detail: str = "") -> LayoutError:
        return LayoutError(self.path, key, expected, got, detail=detail)

    # -- typed getters

    def table(self, parent: dict, key: str, full: str, required: bool = True) -> dict | None:
        value = parent.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, dict):
            raise self.fail(full, "a table", value)
        return value

    def number(self, table: dict, key: str, full: str, default: float, lo: float, hi: float) -> float:
        value = table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
            raise self.fail(full, f"a number from {lo} to {hi}", value)
        return float(value)

    def integer(self, value: Any, full: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise self.fail(full, f"an integer from {lo} to {hi}", value)
        return value

    def gpio(self, value: Any, full: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value not in GPIO_PINS:
            raise self.fail(full, "a BCM GPIO number 0..27 (a pin on the Pi's header)", value)
        if value in self.pins_used:
            raise self.fail(full, "a GPIO no other key uses", value, detail=f"already used by {self.pins_used[value]}")
        self.pins_used[value] = full
        return value

    def site(self, site: Any, full: str) -> str:
        if not isinstance(site, str) or site not in self.board:
            raise self.fail(full, f"a site of {self.board_name}", site,
                            detail="sites: " + " ".join(self.board[:12]) + (" ..." if len(self.board) > 12 else ""))
        return site

    def sense(self, site: Any, full: str) -> str:
        site = self.site(site, full)
        if site in self.sensed:
            raise self.fail(full, "each site sensed once", site, detail=f"already sensed by {self.sensed[site]}")
        self.sensed[site] = full
        return site

    # -- sections

    def layout(self) -> Layout:
        for key in self.data:
            if key not in ("board", "sensors", "leds", "buttons"):
                raise self.fail(key, "one of the sections [board], [sensors], [leds], [buttons]", key)
        game, options, grid = self.board_section()
        sensors = self.table(self.data, "sensors", "[sensors]")
        for key in sensors:
            if key not in ("pins", "matrix", "adc", "bridge", "debounce_ms"):
                raise self.fail(f"[sensors] {key}", "pins, matrix, adc, bridge or debounce_ms", key)
        debounce_s = self.number(sensors, "debounce_ms", "[sensors] debounce_ms", 8, 0, 1000) / 1000
        pins = self.pin_sensors(sensors)
        matrix = self.matrix_sensors(sensors)
        adc = self.adc_sensors(sensors)
        bridge = self.bridge_sensors(sensors)
        if bridge is not None and (pins or matrix or adc):
            raise self.fail("[sensors.bridge]", "a bridge alone (its firmware scans every sensor)",
                            detail="remove [sensors.pins], [sensors.matrix] and [sensors.adc]")
        if not (pins or matrix or adc or bridge):
            raise self.fail("[sensors]", "at least one of [sensors.pins], [sensors.matrix], [sensors.adc], [sensors.bridge]")
        if adc is not None and game is not None:
            check_piece_kinds(game, adc.kinds, self.fail)
        leds, leds_of_site, named = self.led_section(bridge is not None)
        buttons = self.buttons_section()
        return Layout(
            name=self.path.stem, path=self.path, game=game, game_options=options, grid=grid,
            sites=tuple(self.board), pins=pins, matrix=matrix, adc=adc, bridge=bridge,
            debounce_s=debounce_s, leds=leds, leds_of_site=leds_of_site, named_leds=named, buttons=buttons,
        )

    def board_section(self):
        board = self.table(self.data, "board", "[board]")
        game = board.get("game")
        options = board.get("options", {})
        grid_text = board.get("grid")
        if not isinstance(options, dict):
            raise self.fail("[board] options", "a table of game options, e.g. { board = \"classic\" }", options)
        grid = None
        if game is None:
            if not isinstance(grid_text, str):
                raise self.fail("[board] grid", "\"COLSxROWS\" (e.g. \"8x8\") when no game is named", grid_text)
            try:
                cols, rows = (int(n) for n in grid_text.lower().split("x"))
            except ValueError:
                raise self.fail("[board] grid", "\"COLSxROWS\", e.g. \"8x8\"", grid_text) from None
            if not (1 <= cols <= MAX_GRID_SIDE and 1 <= rows <= MAX_GRID_SIDE):
                raise self.fail("[board] grid", f"1..{MAX_GRID_SIDE} columns and rows", grid_text)
            grid = (cols, rows)
            self.board_name = f"a {cols}x{rows} grid"
        else:
            if not isinstance(game, str):
                raise self.fail("[board] game", "a game's registry name, e.g. \"tree-planting\"", game)
            if grid_text is not None:
                raise self.fail("[board] grid", "no grid when a game is named (its board comes from options)", grid_text)
            self.board_name = f"{game} {options}" if options else game
        try:
            self.board = board_sites(game, options, grid)
        except LookupError as exc:
            raise self.fail("[board] game", "a game whose rules module loads", game, detail=str(exc)) from exc
        except ValueError as exc:  # games.BadOptions
            raise self.fail("[board] options", f"options {game} accepts", options, detail=str(exc)) from exc
        return game, options, grid

    def site_table(self, table: dict, full: str, channel) -> dict:
        """A `sites` table: site = channel. Returns channel -> site, refusing a channel used twice."""
        sites = self.table(table, "sites", f"{full} sites")
        out: dict = {}
        for site, raw in sites.items():
            key = f"{full} sites.{site}"
            self.sense(site, key)
            ch = channel(raw, key)
            if ch in out:
                raise self.fail(key, "a channel no other site uses", raw, detail=f"already wired to {out[ch]}")
            out[ch] = site
        return out

    def pin_sensors(self, sensors: dict) -> PinSensors | None:
        table = self.table(sensors, "pins", "[sensors.pins]", required=False)
        if table is None:
            return None
        pull = table.get("pull", "up")
        if pull not in ("up", "down", "none"):
            raise self.fail("[sensors.pins] pull", "\"up\", \"down\" or \"none\"", pull)
        active_low = table.get("active_low", pull == "up")
        if not isinstance(active_low, bool):
            raise self.fail("[sensors.pins] active_low", "true or false", active_low)
        channels = self.site_table(table, "[sensors.pins]", self.gpio)
        return PinSensors(pull, active_low, channels)

    def matrix_sensors(self, sensors: dict) -> MatrixSensors | None:
        table = self.table(sensors, "matrix", "[sensors.matrix]", required=False)
        if table is None:
            return None
        lines = {}
        for key in ("rows", "cols"):
            value = table.get(key)
            if not isinstance(value, list) or not value:
                raise self.fail(f"[sensors.matrix] {key}", "a list of GPIO numbers", value)
            lines[key] = tuple(self.gpio(p, f"[sensors.matrix] {key}[{i}]") for i, p in enumerate(value))
        rows, cols = lines["rows"], lines["cols"]
        settle_s = self.number(table, "settle_us", "[sensors.matrix] settle_us", 10, 0, 10_000) / 1e6
        period_s = self.number(table, "scan_period_ms", "[sensors.matrix] scan_period_ms", 2, 0.1, 1000) / 1000
        grid = table.get("sites")
        if not isinstance(grid, list) or len(grid) != len(rows):
            raise self.fail("[sensors.matrix] sites", f"a list of {len(rows)} strings, one per row", grid)
        channels = {}
        for r, line in enumerate(grid):
            key = f"[sensors.matrix] sites[{r}]"
            names = line.split() if isinstance(line, str) else None
            if names is None or len(names) != len(cols):
                raise self.fail(key, f"{len(cols)} site names (or \"{NO_SITE}\") separated by spaces, one per column", line)
            for c, name in enumerate(names):
                if name != NO_SITE:
                    channels[(r, c)] = self.sense(name, f"{key} column {c}")
        return MatrixSensors(rows, cols, settle_s, period_s, channels)

    def adc_sensors(self, sensors: dict) -> AdcSensors | None:
        table = self.table(sensors, "adc", "[sensors.adc]", required=False)
        if table is None:
            return None
        selects = table.get("selects", [SPI_SELECTS[0]])
        if not isinstance(selects, list) or not 1 <= len(selects) <= len(SPI_SELECTS) or any(
            s not in SPI_SELECTS for s in selects
        ) or len(set(selects)) != len(selects):
            raise self.fail("[sensors.adc] selects", "a list of chip-select GPIOs from 8 (CE0) and 7 (CE1)", selects)
        for name, pin in (("clock", SPI_CLOCK), ("mosi", SPI_MOSI), ("miso", SPI_MISO)):
            self.gpio(pin, f"[sensors.adc] (SPI {name})")
        for i, pin in enumerate(selects):
            self.gpio(pin, f"[sensors.adc] selects[{i}]")
        thresholds = table.get("thresholds")
        if (not isinstance(thresholds, list) or not thresholds
                or any(isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t < 1 for t in thresholds)
                or any(a >= b for a, b in zip(thresholds, thresholds[1:]))):
            raise self.fail("[sensors.adc] thresholds", "increasing numbers between 0 and 1 (fractions of the reference voltage)", thresholds)
        kinds = table.get("kinds")
        if not isinstance(kinds, list) or len(kinds) != len(thresholds) + 1 or not all(isinstance(k, str) for k in kinds):
            raise self.fail("[sensors.adc] kinds", f"{len(thresholds) + 1} piece kinds, one per band (\"\" for nothing)", kinds)
        named = [k for k in kinds if k]
        if len(set(named)) != len(named) or "" not in kinds:
            raise self.fail("[sensors.adc] kinds", "each kind in one band, and one band \"\" for an empty hole", kinds)
        poll_s = self.number(table, "poll_period_ms", "[sensors.adc] poll_period_ms", 10, 0.1, 1000) / 1000

        def channel(raw, key):
            if (not isinstance(raw, list) or len(raw) != 2
                    or not all(isinstance(n, int) and not isinstance(n, bool) for n in raw)
                    or not 0 <= raw[0] < len(selects) or not 0 <= raw[1] < ADC_CHANNELS):
                raise self.fail(key, f"[chip, channel] with chip 0..{len(selects) - 1} and channel 0..{ADC_CHANNELS - 1}", raw)
            return (raw[0], raw[1])

        channels = self.site_table(table, "[sensors.adc]", channel)
        return AdcSensors(tuple(selects), tuple(float(t) for t in thresholds),
                          tuple(k or None for k in kinds), poll_s, channels)

    def bridge_sensors(self, sensors: dict) -> BridgeSensors | None:
        table = self.table(sensors, "bridge", "[sensors.bridge]", required=False)
        if table is None:
            return None
        for key in table:
            if key not in ("sites", "matrix", "rows", "cols"):
                raise self.fail(f"[sensors.bridge] {key}", "sites, matrix, rows or cols", key)
        matrix = table.get("matrix", "pins")
        if matrix not in ("pins", "shift-register"):
            raise self.fail("[sensors.bridge] matrix", "\"pins\" or \"shift-register\"", matrix)
        size = {}
        for key in ("rows", "cols"):
            if key in table:
                size[key] = self.integer(table[key], f"[sensors.bridge] {key}", 1, 255)
        if len(size) == 1:
            raise self.fail("[sensors.bridge] rows", "rows and cols together, or neither", table.get("rows"))
        limit = size["rows"] * size["cols"] - 1 if size else 4095
        channels = self.site_table(table, "[sensors.bridge]", lambda raw, key: self.integer(raw, key, 0, limit))
        return BridgeSensors(channels, matrix, size.get("rows"), size.get("cols"))

    def led_section(self, bridge: bool):
        table = self.table(self.data, "leds", "[leds]")
        count = self.integer(table.get("count"), "[leds] count", 1, 10_000)
        pin = None
        if not bridge or "pin" in table:
            pin = self.gpio(table.get("pin"), "[leds] pin")
        order = table.get("pixel_order", "GRB")
        if order not in PIXEL_ORDERS:
            raise self.fail("[leds] pixel_order", "one of " + ", ".join(PIXEL_ORDERS), order)
        brightness = self.number(table, "brightness", "[leds] brightness", 0.5, 0, 1)
        milliamps = self.number(table, "max_milliamps", "[leds] max_milliamps", 1000, 0, 100_000)
        gamma = self.number(table, "gamma", "[leds] gamma", 2.2, 1, 4)
        settings = LedSettings(pin, count, order, brightness, milliamps, gamma)

        owner: dict[int, str] = {}  # LED index -> key, to refuse an LED used twice

        def claim(index: Any, key: str) -> int:
            if isinstance(index, bool) or not isinstance(index, int) or index < 0:
                raise self.fail(key, "an LED index 0 or more", index)
            if index >= count:
                raise self.fail(key, f"an LED index below the strip's length {count} ([leds] count)", index)
            if index in owner:
                raise self.fail(key, "an LED no other key uses", index, detail=f"already used by {owner[index]}")
            owner[index] = key
            return index

        leds_of_site: dict[str, list[int]] = {}
        chain = table.get("chain", [])
        if not isinstance(chain, list) or not all(isinstance(s, str) for s in chain):
            raise self.fail("[leds] chain", "a list of site names in strip order (\"-\" for an LED by no site)", chain)
        if len(chain) > count:
            raise self.fail("[leds] chain", f"at most {count} entries ([leds] count)", len(chain))
        for i, site in enumerate(chain):
            if site != NO_SITE:
                self.site(site, f"[leds] chain[{i}]")
                leds_of_site.setdefault(site, []).append(claim(i, f"[leds] chain[{i}]"))

        def indexes(raw, key) -> list[int]:
            items = raw if isinstance(raw, list) else [raw]
            return [claim(i, key) for i in items]

        for site, raw in (self.table(table, "sites", "[leds] sites", required=False) or {}).items():
            key = f"[leds] sites.{site}"
            self.site(site, key)
            leds_of_site.setdefault(site, []).extend(indexes(raw, key))
        named = {}
        for name, raw in (self.table(table, "named", "[leds] named", required=False) or {}).items():
            if ":" in name:  # a part of a square ("c3:ne"): the square must be one of the board's
                self.site(name.split(":", 1)[0], f"[leds] named.{name}")
            named[name] = tuple(indexes(raw, f"[leds] named.{name}"))
        for key in table:
            if key not in ("count", "pin", "pixel_order", "brightness", "max_milliamps", "gamma", "chain", "sites", "named"):
                raise self.fail(f"[leds] {key}", "count, pin, pixel_order, brightness, max_milliamps, gamma, chain, sites or named", key)
        return settings, {s: tuple(v) for s, v in leds_of_site.items()}, named

    def buttons_section(self) -> dict[str, int]:
        table = self.table(self.data, "buttons", "[buttons]", required=False) or {}
        return {name: self.gpio(pin, f"[buttons] {name}") for name, pin in table.items()}


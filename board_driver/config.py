"""The daemon's configuration: a TOML file, checked in full before anything starts.

A bad config is refused with the file, the key and what was expected, e.g.
`/etc/treeboard/config.toml: display.moves: expected one of off, legal, safe; got 'fast'`.
"""

from __future__ import annotations

import dataclasses

import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treeboard.exc import TreeboardError

Colour = tuple[int, int, int]

DEFAULT_PATH = Path("/etc/treeboard/config.toml")
BACKENDS = ("gpio", "sim", "bridge")
MOVE_MODES = ("off", "legal", "safe", "best")
#: The LED current budget: a WS2812 strip on a Pi's supply; beyond this it is a typo.
MAX_MILLIAMPS = 100_000
#: Serial rates a USB CDC bridge and pyserial take; beyond these the port open would fail.
BAUD_RANGE = (300, 4_000_000)

# Okabe-Ito colours, chosen to stay distinct for the common kinds of colour blindness:
# blue and yellow for the players, bluish green for "safe", orange for "gives a square away",
# and red only for "this piece must go", which also never blinks (missing pieces blink).
DEFAULT_COLOURS: dict[str, Colour] = {
    "player0": (0, 114, 178),    # blue
    "player1": (240, 228, 66),   # yellow
    "safe": (0, 158, 115),       # bluish green
    "unsafe": (230, 159, 0),     # orange
    "wrong": (255, 0, 0),        # red: remove this piece
    "rod": (48, 48, 48),         # a drawn groove: dim white
    "waiting": (200, 200, 255),  # the board waits for an entry it cannot sense
    "choice": (204, 121, 167),   # reddish purple: you may take this piece (a capture to choose)
    "best": (86, 180, 233),      # sky blue: the computer's best move (display.moves = "best")
    "flag": (213, 94, 0),        # vermillion: time ran out (the turn LEDs, with the winner's)
}


_QUIET = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$")


@dataclass
class Voice:
    """The [voice] table: the board saying what happens (board_driver/daemon/speech.py)."""

    enabled: bool = False
    language: str | None = None     # None: the board's language
    voice: str | None = None        # an espeak-ng voice; None: the language's own ("cmn" for zh)
    rate: int = 160                 # words a minute as English counts them (speech.PACE: others)
    volume: int = 100               # espeak-ng's amplitude, 0..200
    device: str | None = None       # an ALSA device ("plughw:CARD=Headphones"); None: the default
    quiet_hours: tuple[int, int] | None = None  # (start, end) minutes after midnight, or None
    repeat_moves: int = 3           # how many moves "say it again" reads back
    wav_dir: str | None = None      # write each utterance as a WAV here, not to a device

    def quiet_at(self, minute_of_day: int) -> bool:
        """Whether the board keeps quiet at this minute after midnight."""
        if self.quiet_hours is None:
            return False
        start, end = self.quiet_hours
        if start <= end:
            return start <= minute_of_day < end
        return minute_of_day >= start or minute_of_day < end  # over midnight: 22:00-07:00


def parse_quiet_hours(text: str) -> tuple[int, int] | None:
    """ "22:00-07:00" -> (1320, 420); "" -> None; anything else -> None with ValueError."""
    if text == "":
        return None
    m = _QUIET.match(text)
    if m is None:
        raise ValueError(text)
    h1, m1, h2, m2 = (int(g) for g in m.groups())
    return h1 * 60 + m1, h2 * 60 + m2


class ConfigError(TreeboardError, ValueError):
    """A config the daemon cannot run with; the message names the file, key and expectation."""

    def __init__(self, path: str | Path, key: str, expected: str, got: Any = None):
        self.path, self.key, self.expected = str(path), key, expected
        msg = f"{path}: {key}: expected {expected}" if key else f"{path}: expected {expected}"
        if got is not None:
            msg += f"; got {got!r}"
        super().__init__(msg)


@dataclass(frozen=True)
class UpdateSettings:
    """The [update] table: where releases come from and how they are tried (board_driver/update/)."""
    public_key: str = "/etc/treeboard/release.pub"   # the maintainer's Ed25519 key (PEM)
    source: str | None = None       # a folder or an http(s) URL holding release.json
    check: str = "off"              # off | daily | weekly: the schedule (treeboard-update.timer)
    trial_seconds: float = 180.0    # a new version not confirmed by then is rolled back
    max_starts: int = 3             # nor one that failed to start this many times


UPDATE_CHECKS = ("off", "daily", "weekly")


@dataclass
class Config:
    path: str = "<built-in>"
    layout: str = "tree-planting-classic-pins"
    backend: str = "gpio"
    game: str | None = None                  # None: the layout's game
    game_options: dict[str, Any] | None = None  # None: the layout's options
    debounce_ms: float | None = None          # None: the layout's
    moves: str = "safe"
    takeback: bool = True
    brightness: float | None = None          # None: the layout's
    max_milliamps: float | None = None       # None: the layout's
    blink_hz: float = 2.0
    winner_seconds: float = 6.0
    turn_seconds: float | None = None         # None: the game's own limit (Arbos: 300); 0: none
    # The players' clocks (board_driver/referee/clock.py), one TimeControl a seat; None: from
    # turn_seconds, else the game's own (Arbos: 300 s a turn), else none.
    time_control: tuple | None = None
    # How long the player to move may be away before the present player is asked what to do
    # (referee/absence.py); None: its GRACE_S, a minute.
    away_grace_seconds: float | None = None
    colours: dict[str, Colour] = field(default_factory=lambda: dict(DEFAULT_COLOURS))
    journal: str = "/var/lib/treeboard/journal.sqlite"
    bridge_port: str = "/dev/treeboard-bridge"
    bridge_baud: int = 1_000_000
    # Who plays each seat: "human" (at this board), "web" (on the page, with no board:
    # POST /api/play), "computer[:LEVEL]", or "remote".
    players: tuple[str, str] = ("human", "human")
    # How many processes the computer's search may use (None: every core but one, at least
    # one): a level's iterations spread over them (games/ai/parallel.py).
    computer_processes: int | None = None
    remote: dict[str, Any] | None = None     # the [remote] table, checked (remote play)
    web_listen: str = "127.0.0.1"            # the companion page's address
    web_port: int = 8080
    web_token: str | None = None             # needed for control when listening beyond localhost
    language: str = "en"                     # what the board says and shows: en | zh
    voice: Voice = field(default_factory=Voice)
    update: UpdateSettings = field(default_factory=lambda: UpdateSettings())

    def search_processes(self) -> int:
        """`computer_processes`, or every core but one, which the board's daemon keeps (at
        least one)."""
        return self.computer_processes or max(1, (os.cpu_count() or 1) - 1)

    def freeze(self) -> "Config":
        """Read only from here on (a board opened from it): what a session changes lives in the
        referee and the journal's settings (referee/kept.py, the voice's), never in the config,
        which stays what the file said. A new value is `dataclasses.replace`. Returns itself."""
        object.__setattr__(self, "_frozen", True)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_frozen"):
            raise dataclasses.FrozenInstanceError(
                f"cannot assign to field {name!r}: the config is read once at start and never "
                "changed after (a session's changes are kept in the journal)")
        object.__setattr__(self, name, value)


SEAT = re.compile(r"^(human|web|remote|computer(:[A-Za-z0-9_.-]+)?)$")


def seat_name(who: str) -> str:
    """A seat as the board keeps it: an old level name becomes today's ("computer:perfect"
    -> "computer:strongest", `games.ai.ALIASES`), so the page's select shows what plays."""
    import games.ai

    if who.startswith("computer:"):
        name = who.split(":", 1)[1].strip().lower()
        return "computer:" + games.ai.ALIASES.get(name, name)
    return who


def check_seats(path: str | Path, key: str, seats) -> None:
    """Every "computer:LEVEL" seat names a level the computer has; raises a ConfigError naming
    the seat as it was written and the levels there are."""
    import games.ai

    for seat in seats:
        if isinstance(seat, str) and seat.startswith("computer:"):
            try:
                games.ai.level(seat.split(":", 1)[1])
            except ValueError as exc:
                expected = str(exc).split("expected ", 1)[-1]
                raise ConfigError(path, key, f"a computer level: {expected}", seat) from None


_HEX = re.compile(r"^#?([0-9a-fA-F]{6})$")


def _colour(path, key, value) -> Colour:
    if isinstance(value, str) and _HEX.match(value):
        h = _HEX.match(value).group(1)
        return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))
    if (isinstance(value, list) and len(value) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in value)):
        return tuple(value)  # type: ignore[return-value]
    raise ConfigError(path, key, 'a colour "#rrggbb" or [r, g, b] with 0..255 each', value)


def _take(path, table: dict, prefix: str, key: str, kind: type | tuple, default, check=None,
          expected: str = ""):
    full = f"{prefix}{key}"
    if key not in table:
        return default
    value = table.pop(key)
    if isinstance(value, bool) and kind is not bool:  # TOML true is not the number 1
        raise ConfigError(path, full, expected, value)
    if not isinstance(value, kind):
        raise ConfigError(path, full, expected or getattr(kind, "__name__", str(kind)), value)
    if isinstance(value, float) and not math.isfinite(value):  # TOML allows inf and nan
        raise ConfigError(path, full, expected or "a finite number", value)
    if isinstance(value, str) and kind is str and "\0" in value:
        raise ConfigError(path, full, expected or "text", value)
    if check is not None and not check(value):
        raise ConfigError(path, full, expected, value)
    return value


def _languages() -> tuple[str, ...]:
    """The languages a board speaks and shows: a shipped catalog each, as
    board_driver/views/words.py finds them (imported here, not at the top: every room reads
    the config, and the views' package is theirs to arrange)."""
    from board_driver.views import words

    return words.languages()


def read_voice(path, v: dict, voice: Voice, prefix: str = "voice.") -> None:
    """The [voice] table's keys into `voice` (each taken out of `v`); ConfigError naming
    `prefix` + the key. The keys left over are the caller's to refuse."""
    voice.enabled = _take(path, v, prefix, "enabled", bool, voice.enabled, None, "true or false")
    shipped = _languages()
    voice.language = _take(path, v, prefix, "language", str, voice.language,
                           lambda x: x in shipped, "one of " + ", ".join(shipped))
    voice.voice = _take(path, v, prefix, "voice", str, voice.voice,
                        lambda x: re.fullmatch(r"[A-Za-z0-9_+.-]{1,40}", x) is not None,
                        'an espeak-ng voice name such as "en-gb" or "cmn" (espeak-ng --voices)')
    voice.rate = _take(path, v, prefix, "rate", int, voice.rate, lambda x: 80 <= x <= 450,
                       "words a minute from 80 to 450")
    voice.volume = _take(path, v, prefix, "volume", int, voice.volume, lambda x: 0 <= x <= 200,
                         "a volume from 0 to 200 (100 is normal)")
    voice.device = _take(path, v, prefix, "device", str, voice.device,
                         lambda x: re.fullmatch(r"[A-Za-z0-9_:=,.-]{1,80}", x) is not None,
                         'an ALSA device name such as "plughw:CARD=Headphones" (aplay -L)')
    if "quiet_hours" in v:
        quiet = _take(path, v, prefix, "quiet_hours", str, "", None, '"HH:MM-HH:MM"')
        try:
            voice.quiet_hours = parse_quiet_hours(quiet)
        except ValueError:
            raise ConfigError(path, f"{prefix}quiet_hours", '"HH:MM-HH:MM", such as '
                              '"21:30-07:00", or "" for none', quiet) from None
    voice.repeat_moves = _take(path, v, prefix, "repeat_moves", int, voice.repeat_moves,
                               lambda x: 1 <= x <= 20, "a number of moves from 1 to 20")


#: What the page may change of [voice] (not the device: that is the board's wiring).
PAGE_VOICE_KEYS = ("enabled", "language", "voice", "rate", "volume", "quiet_hours",
                   "repeat_moves")


def voice_settings(voice: Voice) -> dict[str, Any]:
    """The page's view of [voice]: PAGE_VOICE_KEYS as JSON values (language and voice None:
    the board's language and its own voice; quiet_hours "" for none)."""
    quiet = voice.quiet_hours
    return {"enabled": voice.enabled, "language": voice.language, "voice": voice.voice,
            "rate": voice.rate, "volume": voice.volume, "repeat_moves": voice.repeat_moves,
            "quiet_hours": "" if quiet is None else
            f"{quiet[0] // 60:02d}:{quiet[0] % 60:02d}-{quiet[1] // 60:02d}:{quiet[1] % 60:02d}"}


def voice_from_page(data: Any, base: Voice, where: str = "page") -> Voice:
    """`base` with the page's changes (any of PAGE_VOICE_KEYS; null or "" for language and
    voice: the board's own). ConfigError naming the field and what was expected; `base` is
    never changed."""
    import dataclasses

    if not isinstance(data, dict):
        raise ConfigError(where, "", "a JSON object of " + ", ".join(PAGE_VOICE_KEYS), data)
    table = dict(data)
    for key in table:
        if key not in PAGE_VOICE_KEYS:
            raise ConfigError(where, str(key)[:40], "one of " + ", ".join(PAGE_VOICE_KEYS))
    voice = dataclasses.replace(base)
    for key in ("language", "voice"):
        if key in table and table[key] in (None, ""):
            del table[key]
            setattr(voice, key, None)
    read_voice(where, table, voice, prefix="")
    return voice


#: A TOML number: an integer or a float.
_NUMBER = (int, float)


def parse_config(data: dict[str, Any], path: str | Path = "<built-in>") -> Config:
    """A Config from parsed TOML, or ConfigError naming the first problem."""
    data = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    cfg = Config(path=str(path))
    _read_top(path, data, cfg)
    sections = {}
    for name in ("sensors", "display", "colours", "bridge", "remote", "web", "voice", "update"):
        value = data.pop(name, {})
        if not isinstance(value, dict):
            raise ConfigError(path, name, "a table", value)
        sections[name] = value
    _read_clocks(path, data, cfg)

    s = sections["sensors"]
    debounce = _take(path, s, "sensors.", "debounce_ms", _NUMBER, None,
                     lambda v: 0 <= v <= 2000, "a number of ms from 0 to 2000")
    cfg.debounce_ms = None if debounce is None else float(debounce)
    _read_display(path, sections["display"], cfg)
    c = sections["colours"]
    for key in list(c):
        if key not in DEFAULT_COLOURS:
            raise ConfigError(path, f"colours.{key}", "one of " + ", ".join(DEFAULT_COLOURS), key)
        cfg.colours[key] = _colour(path, f"colours.{key}", c.pop(key))
    b = sections["bridge"]
    cfg.bridge_port = _take(path, b, "bridge.", "port", str, cfg.bridge_port, bool, "a device path")
    cfg.bridge_baud = _take(path, b, "bridge.", "baud", int, cfg.bridge_baud,
                            lambda v: BAUD_RANGE[0] <= v <= BAUD_RANGE[1],
                            "a baud rate from %d to %d" % BAUD_RANGE)
    _read_remote(path, sections["remote"], cfg)
    _read_web(path, sections["web"], cfg)
    read_voice(path, sections["voice"], cfg.voice)
    cfg.update = _read_update(path, sections["update"])

    for name, table in [("", data)] + [(n + ".", t) for n, t in sections.items()]:
        if table:
            key = sorted(table)[0]
            raise ConfigError(path, f"{name}{key}", "no such key (a typo?)", key)
    return cfg


def _read_top(path, data: dict, cfg: Config) -> None:
    """The keys at the top that name the board, the game, the journal, the players and the
    language (each taken out of `data`)."""
    if "layout" in data:
        cfg.layout = _take(path, data, "", "layout", str, cfg.layout, bool, "a layout name or path")
        check_layout(path, "layout", cfg.layout)
    cfg.backend = _take(path, data, "", "backend", str, cfg.backend, lambda v: v in BACKENDS,
                        "one of " + ", ".join(BACKENDS))
    cfg.game = _take(path, data, "", "game", str, None, None, "a game name")
    if cfg.game is not None:
        import games
        if cfg.game not in games.names():
            raise ConfigError(path, "game", "one of " + ", ".join(games.names()), cfg.game)
    cfg.game_options = _take(path, data, "", "game_options", dict, None, None, "a table")
    cfg.journal = _take(path, data, "", "journal", str, cfg.journal, bool, "a file path")

    players = _take(path, data, "", "players", list, None,
                    lambda v: len(v) == 2 and all(isinstance(p, str) and SEAT.match(p) for p in v),
                    'two seats, each "human", "web", "computer", "computer:LEVEL" or "remote"')
    if players is not None:
        check_seats(path, "players", players)
        cfg.players = tuple(seat_name(p) for p in players)
    cfg.computer_processes = _take(path, data, "", "computer_processes", int, None,
                                   lambda v: 1 <= v <= 64, "a number of processes, 1 to 64")

    shipped = _languages()
    cfg.language = _take(path, data, "", "language", str, cfg.language,
                         lambda v: v in shipped, "one of " + ", ".join(shipped))


def check_layout(path, key: str, layout: str) -> None:
    """A layout the config names: a shipped one, or a file that is a layout. ConfigError naming
    the config, the key and, for a file that is no layout, what is wrong with it (its own
    LayoutError's words)."""
    from hardware.layout import LayoutError, load_layout, shipped_layouts

    shipped = shipped_layouts()
    if layout in shipped:
        return
    expected = f"a shipped layout ({', '.join(shipped)}) or an existing layout file"
    if not Path(layout).is_file():
        raise ConfigError(path, key, expected, layout)
    try:
        load_layout(layout)
    except LayoutError as exc:
        detail = str(exc).removeprefix(f"{exc.path}: ")
        raise ConfigError(path, key, f"{expected}, and {layout} is none ({detail})") from None


#: The config's keys that hold a secret themselves (the others name a file that holds one).
SECRET_KEYS = (("web", "token"), ("remote", "secret"))


def check_private(path, data: dict[str, Any], mode: int) -> None:
    """A config that holds a secret (SECRET_KEYS) must not be readable by every account, as a
    secret_file must not (remote/link.py). Its group may read it: the service's user reads
    /etc/treeboard/config.toml, root's, through its group (install-service writes it 0640,
    group treeboard). ConfigError naming the file and the key; `mode`: the file's st_mode."""
    if not mode & 0o004:
        return
    for table, key in SECRET_KEYS:
        section = data.get(table)
        if isinstance(section, dict) and key in section:
            raise ConfigError(path, f"{table}.{key}", f"a secret kept in a file not every "
                              f"account can read, and {path} is (mode {mode & 0o777:o}): "
                              f"chmod o-rwx {path} (the service reads it through its group: "
                              f"chgrp treeboard {path})")


def _read_clocks(path, data: dict, cfg: Config) -> None:
    """turn_seconds or time_control, and away_grace_seconds, at the top (each taken out of
    `data`)."""
    grace = _take(path, data, "", "away_grace_seconds", _NUMBER, None,
                  lambda v: 1 <= v <= 3600, "a number of seconds from 1 to 3600")
    cfg.away_grace_seconds = None if grace is None else float(grace)
    turn = _take(path, data, "", "turn_seconds", _NUMBER, None, lambda v: 0 <= v <= 86_400,
                 "a number of seconds from 0 (no limit) to 86400")
    cfg.turn_seconds = None if turn is None else float(turn)
    control = _take(path, data, "", "time_control", str, None, None,
                    'a time control such as "none", "10", "5+3", "30s/move" or "10,3+2"')
    if control is not None:
        from board_driver.referee.clock import GRAMMAR, ClockError, parse_time_control

        if turn is not None:
            raise ConfigError(path, "time_control", "either time_control or turn_seconds, not "
                              "both (turn_seconds = N is time_control = \"Ns/move\")", control)
        try:
            cfg.time_control = parse_time_control(control)
        except ClockError:
            raise ConfigError(path, "time_control", GRAMMAR, control) from None


def _read_display(path, d: dict, cfg: Config) -> None:
    """The [display] table (each key taken out of `d`)."""
    num = _NUMBER
    cfg.moves = _take(path, d, "display.", "moves", str, cfg.moves, lambda v: v in MOVE_MODES,
                      "one of " + ", ".join(MOVE_MODES))
    cfg.takeback = _take(path, d, "display.", "takeback", bool, cfg.takeback, None, "true or false")
    cfg.brightness = _take(path, d, "display.", "brightness", num, None, lambda v: 0 < v <= 1,
                           "a number above 0 and at most 1")
    cfg.max_milliamps = _take(path, d, "display.", "max_milliamps", num, None,
                              lambda v: 0 < v <= MAX_MILLIAMPS,
                              f"a number of milliamps above 0 and at most {MAX_MILLIAMPS}")
    cfg.blink_hz = float(_take(path, d, "display.", "blink_hz", num, cfg.blink_hz,
                               lambda v: 0.2 <= v <= 10, "a number from 0.2 to 10"))
    cfg.winner_seconds = float(_take(path, d, "display.", "winner_seconds", num,
                                     cfg.winner_seconds, lambda v: 0 <= v <= 600,
                                     "a number of seconds from 0 to 600"))


def _read_remote(path, r: dict, cfg: Config) -> None:
    """The [remote] table (each key taken out of `r`), checked against the players: a remote
    game needs a remote seat, and a remote seat the table."""
    if not (r or "remote" in cfg.players):
        return
    remote = {}
    for key, expected in (("broker", "mqtt://host[:port] or mqtts://host[:port]"),
                          ("game", "a game id both boards use"),
                          ("secret", "the shared secret (or secret_file)"),
                          ("secret_file", "a file holding the shared secret"),
                          ("credentials_file", "a file 'username:password'"),
                          ("ca_file", "a CA certificate file for mqtts"),
                          ("page", "the seat page's URL, for invitations (docs/remote.md)"),
                          ("ws_broker", "the broker's ws:// or wss:// URL, for invitations")):
        value = _take(path, r, "remote.", key, str, None, None, expected)
        if value is not None:
            remote[key] = value
    for key, expected in (("guest", "true: the remote seat is played from a browser"),
                          ("offer", "true: offer the browser's seat in the family's lobby"),
                          ("game_login", "true: the broker has the browser's seat's own "
                                         "guest account (docs/remote.md)")):
        remote[key] = _take(path, r, "remote.", key, bool, False, None, expected)
    remote["keepalive"] = _take(path, r, "remote.", "keepalive", int, 30,
                                lambda v: 2 <= v <= 600, "whole seconds from 2 to 600")
    # (no game and no remote seat: a board that meets another in the family's lobby, and
    # takes the game id an offer names: remote/meet.py)
    lobby_only = "game" not in remote and "remote" not in cfg.players
    for key in ("broker",) if lobby_only else ("broker", "game"):
        if key not in remote:
            raise ConfigError(path, f"remote.{key}", "a value (remote play needs it)")
    if ("secret" in remote) == ("secret_file" in remote):
        raise ConfigError(path, "remote.secret", "exactly one of secret and secret_file")
    if cfg.players.count("remote") == 0 and not lobby_only:
        raise ConfigError(path, "players", 'one "remote" seat with [remote] set (or two, to '
                          'watch a game two other boards play)', list(cfg.players))
    cfg.remote = remote


def _read_web(path, w: dict, cfg: Config) -> None:
    """The [web] table (each key taken out of `w`): where the page listens, and its token."""
    cfg.web_listen = _take(path, w, "web.", "listen", str, cfg.web_listen, lambda v: v.strip() != "",
                           "an address to listen on, such as 127.0.0.1 or 0.0.0.0")
    cfg.web_port = _take(path, w, "web.", "port", int, cfg.web_port, lambda v: 0 <= v <= 65535,
                         "a port number from 0 to 65535")
    token = w.pop("token", None)
    if token is not None and not (isinstance(token, str) and len(token) >= 12):
        # Not echoed: a config error lands in logs, and this is a secret (or meant to be).
        raise ConfigError(path, "web.token", "a secret of at least 12 characters")
    cfg.web_token = token
    if not is_loopback(cfg.web_listen) and cfg.web_token is None:
        raise ConfigError(path, "web.token", f"a token whenever web.listen is beyond localhost "
                          f"({cfg.web_listen!r}), so that no one else on the network can act")


def _read_update(path, u: dict) -> UpdateSettings:
    """The [update] table (each key taken out of `u`)."""
    d = UpdateSettings()
    return UpdateSettings(
        public_key=_take(path, u, "update.", "public_key", str, d.public_key, bool, "a file path"),
        source=_take(path, u, "update.", "source", str, d.source, bool,
                     "a folder or an http(s) URL holding release.json"),
        check=_take(path, u, "update.", "check", str, d.check, lambda v: v in UPDATE_CHECKS,
                    "one of " + ", ".join(UPDATE_CHECKS)),
        trial_seconds=float(_take(path, u, "update.", "trial_seconds", _NUMBER, d.trial_seconds,
                                  lambda v: 10 <= v <= 3600, "seconds from 10 to 3600")),
        max_starts=_take(path, u, "update.", "max_starts", int, d.max_starts,
                         lambda v: 1 <= v <= 9, "a number of starts from 1 to 9"))


def is_loopback(address: str) -> bool:
    """Whether an address to listen on is reachable from this machine only."""
    import ipaddress

    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def load_config(path: str | Path) -> Config:
    """Read and check a config file."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            raw = f.read()
    except FileNotFoundError:
        raise ConfigError(path, "", "a config file here (see `treeboard install-service`)") from None
    except OSError as exc:
        raise ConfigError(path, "", f"a readable file ({exc.strerror})") from None
    data = read_toml(path, raw)
    check_private(path, data, mode)
    return parse_config(data, path)


def read_toml(path, raw: bytes) -> dict[str, Any]:
    """A config file's bytes as TOML; ConfigError naming the file. A byte-order mark at the
    start is accepted and dropped: Windows' Notepad writes one, it means nothing in UTF-8, and
    TOML's parser would call it an "Invalid statement" at line 1, column 1."""
    try:
        return tomllib.loads(raw.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(path, "", f"valid TOML ({exc})") from None


def sim_config(**overrides: Any) -> Config:
    """The built-in config of `treeboard sim`: the classic board on simulated pins, its journal
    in the user's state directory so a simulated game also survives a restart."""
    state_home = Path(os.environ.get("XDG_STATE_HOME", Path.home() / ".local" / "state"))
    cfg = Config(path="<sim>", backend="sim", journal=str(state_home / "treeboard" / "sim.sqlite"))
    for key, value in overrides.items():
        setattr(cfg, key, value)
    return cfg

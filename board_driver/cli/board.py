"""The board's subcommands: run, sim, trace, selftest, map, match, install-service."""

from __future__ import annotations

import argparse
import logging
import re
import sys
from pathlib import Path

from board_driver.cli.common import add_game_options, fail, game_options
from board_driver.config import (DEFAULT_PATH, SEAT, Config, ConfigError, check_seats,
                                  load_config, seat_name, sim_config)
from board_driver.views import words


def _logging(verbose: bool) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s",
                        stream=sys.stderr)


def _start_errors():
    """The errors that mean "this board cannot start as configured" (exit 2, no traceback)."""
    from hardware.base import HardwareError
    from hardware.layout import LayoutError

    from board_driver.referee.journal import JournalError
    return (ConfigError, LayoutError, HardwareError, JournalError)


def _no_gpio(config, exc: Exception) -> str:
    """`backend = "gpio"` where gpiozero finds no pins: one line that says what to do."""
    where = "backend " if config is None or config.path.startswith("<") else f"{config.path}: backend: "
    return (f"{where}\"gpio\" needs a Raspberry Pi's GPIO pins, and gpiozero found "
            f"none here ({exc}); on a Pi install the pi extra (pip install 'treeboard[pi]'), "
            "elsewhere use `treeboard sim` or backend = \"sim\"")


def _quiet_pin_fallbacks() -> None:
    """gpiozero warns once for every pin library it tries and lacks; where none works, the
    one line of `_no_gpio` says it better, and where one does, the fallbacks do not matter."""
    import warnings

    from gpiozero.exc import PinFactoryFallback
    warnings.filterwarnings("ignore", category=PinFactoryFallback)


def cmd_run(args: argparse.Namespace) -> int:
    from gpiozero.exc import BadPinFactory

    from board_driver.daemon.loop import run_daemon

    _logging(args.verbose)
    _quiet_pin_fallbacks()
    config = None
    try:
        config = load_config(args.config)
        _web_options(config, args)
        run_daemon(config, new_game=args.new_game, web=not args.no_web)
    except _start_errors() as exc:
        return fail(str(exc))
    except BadPinFactory as exc:
        return fail(_no_gpio(config, exc))
    return 0


def simulated_config(args: argparse.Namespace) -> Config:
    """The config of a simulated board (`sim`, `trace`, `selftest --sim`, `map --sim`): the
    built-in one or --config's, on simulated hardware, with the command line's choices."""
    config = load_config(args.config) if args.config else sim_config()
    bridge = getattr(args, "bridge", False)
    config.backend = "bridge" if bridge else "sim"
    if bridge:
        config.bridge_port = "sim"
        if not args.config and not args.layout:
            config.layout = "tree-planting-classic-bridge"
    _command_line_choices(config, args)
    if not bridge and config.backend == "sim" and _bridge_layout(config):
        # A bridge layout's sensors are on a microcontroller: simulate that, as --bridge would.
        config.backend, config.bridge_port = "bridge", "sim"
    if not args.config and not getattr(args, "journal", None):
        config.journal = str(sim_journal(config))
    return config


def _bridge_layout(config: Config) -> bool:
    from board_driver.referee.session import load_board_layout

    return load_board_layout(config).bridge is not None


def _board_config(args: argparse.Namespace) -> Config:
    """`selftest` and `map`: the real board (--config, by default the installed one, or the
    built-in config on GPIO with --layout), the simulated one only with --sim."""
    if args.sim:
        return simulated_config(args)
    if args.config is None and not DEFAULT_PATH.exists():
        if not args.layout:
            raise ConfigError(DEFAULT_PATH, "", "a config file here (see `treeboard install-service`); "
                              "or name the board's layout with --layout NAME, or add --sim "
                              "for the simulated board")
        config = Config(path="<command line>", backend="gpio")  # before install-service
    else:
        config = load_config(args.config or DEFAULT_PATH)
    _command_line_choices(config, args)
    return config


def _command_line_choices(config: Config, args: argparse.Namespace) -> None:
    """--layout, --moves, --journal and the game options override the config's."""
    from board_driver.referee.session import load_board_layout

    if getattr(args, "layout", None):
        config.layout = args.layout
    if getattr(args, "game", None):
        config.layout = layout_for_game(args.game, getattr(args, "layout", None))
    if getattr(args, "moves", None):
        config.moves = args.moves
    if getattr(args, "journal", None):
        config.journal = args.journal
    if getattr(args, "time_control", None) is not None:
        from board_driver.referee.clock import GRAMMAR, ClockError, parse_time_control

        try:
            config.time_control = parse_time_control(args.time_control)
        except ClockError:
            raise ConfigError("<command line>", "--time-control", GRAMMAR,
                              args.time_control) from None
        config.turn_seconds = None
    if getattr(args, "players", None):
        # The config file's check, which the command line skipped (`robot` started a game).
        for who in args.players:
            if not SEAT.match(who) or who == "remote":
                raise ConfigError("<command line>", "--players",
                                  'two seats, each "human", "web", "computer" or '
                                  '"computer:LEVEL"', who)
        check_seats("<command line>", "--players", args.players)
        config.players = tuple(seat_name(who) for who in args.players)
    try:
        options = game_options(args)
    except ValueError as exc:
        raise ConfigError("<command line>", "--option", str(exc)) from None
    if options:
        # On top of the layout's (or the config's) options: --cubes 2 keeps the layout's board.
        layout = load_board_layout(config)
        base = config.game_options if config.game_options is not None else layout.game_options
        config.game_options = {**base, **options}
        _check_sites(config, layout)


def layouts_of(game: str) -> list[str]:
    """The shipped layouts a game is played on, pieces on GPIO or a matrix first."""
    from hardware.layout import load_layout, shipped_layouts

    return sorted((n for n in shipped_layouts() if load_layout(n).game == game),
                  key=lambda n: ("bridge" in n, n))


def layout_for_game(game: str, layout: str | None) -> str:
    """--game NAME: the layout to play it on (its first shipped one, or --layout's if that is
    one of its). Raises ConfigError naming the games, or the game's layouts."""
    import games

    if game not in games.names():
        raise ConfigError("<command line>", "--game", "one of " + ", ".join(games.names()), game)
    fits = layouts_of(game)
    if layout is None:
        return fits[0]
    from hardware.layout import load_layout

    if not layout.endswith(".toml") and layout not in fits:
        raise ConfigError("<command line>", "--layout", f"a layout of {game}: "
                          + ", ".join(fits), layout)
    if layout.endswith(".toml") and load_layout(layout).game != game:
        raise ConfigError("<command line>", "--layout", f"a layout of {game}: "
                          + ", ".join(fits), layout)
    return layout


def _check_sites(config: Config, layout) -> None:
    """Options that change the board (--board 4x4) need a layout with sensors for its sites."""
    import games
    from hardware.layout import load_layout, shipped_layouts

    name = config.game or layout.game
    try:
        sites = set(games.get_game(name).new_state(**config.game_options).sites())
    except (KeyError, games.GameError) as exc:
        # The options may be another game's (--cubes is Treeblox's): name its layouts.
        given = set(config.game_options) - set(layout.game_options)
        others = [g for g in games.names() if g != name and given
                  and given <= set(games.get_game(g).options())]
        hint = "".join(f"; {g} takes them: --layout {' or '.join(layouts_of(g))}"
                       for g in others)
        raise ConfigError("<command line>", "game options",
                          f"options {name} accepts ({exc}{hint})") from None
    missing = sorted(sites - set(layout.sites))
    if missing:
        fits = [n for n in shipped_layouts() if (lay := load_layout(n)).game == name
                and set(lay.sites) >= sites]
        raise ConfigError("<command line>", "game options",
                          f"a board that layout {layout.name} has sites for (it has none for "
                          f"{', '.join(missing[:5])}{'...' if len(missing) > 5 else ''}); "
                          + (f"try --layout {' or '.join(fits)}" if fits else "give a layout for it with --layout"))


def _file_slug(text: str, limit: int) -> str:
    """`text` made safe for a file name, at most `limit` characters."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)[:limit]


def sim_journal(config: Config) -> Path:
    """One journal per layout and game options: switching --layout resumes each board's own
    game instead of abandoning the other's."""
    name = Path(config.layout).stem if config.layout.endswith(".toml") else config.layout
    options = "".join(f"-{k}{v}" for k, v in sorted((config.game_options or {}).items()))
    slug = _file_slug(f"{name}{options}", 120)
    return Path(config.journal).with_name(f"sim-{slug}.sqlite")


def cmd_sim(args: argparse.Namespace) -> int:
    from board_driver.cli.sim import run_sim

    logging.basicConfig(level=logging.WARNING if not args.verbose else logging.DEBUG)
    try:
        config = simulated_config(args)
        _web_options(config, args)
        _remote_options(config, args)
        _voice_options(config, args)
        return run_sim(config, new_game=args.new_game, web=not args.no_web)
    except _start_errors() as exc:
        return fail(str(exc))


def _voice_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--language", choices=words.languages(),
                   help="what the board says and shows: " + ", ".join(
                       f"{code} ({name})" for code, name in words.names().items()) +
                   " (default: the config's language, en)")
    p.add_argument("--voice-dir", metavar="DIR",
                   help="say each sentence into a WAV file in DIR (espeak-ng; no audio device "
                        "needed)")


def _voice_options(config, args: argparse.Namespace) -> None:
    """--language and --voice-dir override the config's language and [voice]."""
    if args.language:
        config.language = args.language
    if args.voice_dir:
        config.voice.enabled = True
        config.voice.wav_dir = args.voice_dir


def _web_options(config, args: argparse.Namespace) -> None:
    if args.web_port is not None:
        config.web_port = args.web_port


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535, not {text!r}")
    return port


def _remote_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("remote play (docs/remote.md)")
    g.add_argument("--remote", metavar="URL", help="play against another board through this "
                   "MQTT broker, mqtt://host[:port] or mqtts://host[:port]")
    g.add_argument("--join", metavar="GAME", help="the game id both boards use")
    g.add_argument("--seat", type=int, choices=(0, 1),
                   help="the seat played at this board (0 moves first); the other is remote")
    g.add_argument("--watch", action="store_true",
                   help="play no seat: follow a game two other boards play, read-only")
    g.add_argument("--secret-file", metavar="FILE", help="the shared secret (or the "
                   "TREEBOARD_REMOTE_SECRET environment variable)")
    g.add_argument("--guest", action="store_true", help="the other seat is played from a "
                   "browser (the seat page, by invitation: treeboard invite), not a board")
    g.add_argument("--page", metavar="URL", help="with --guest: the seat page's URL, for the "
                   "invitation this board shows")
    g.add_argument("--ws-broker", metavar="URL", help="with --guest: the broker's ws:// or "
                   "wss:// URL, as the browser reaches it")
    g.add_argument("--offer", action="store_true", help="with --guest: offer the seat in the "
                   "family's lobby (docs/remote.md), to a browser or another board")
    g.add_argument("--game-login", action="store_true", help="with --guest: the broker has "
                   "the browser's seat's own guest account (treeboard invite --game-login; "
                   "docs/remote.md)")
    g.add_argument("--lobby", action="store_true", help="no game arranged: meet another board "
                   "in the family's lobby (sim: lobby lists the offers, join GAME takes one)")


def _remote_options(config, args: argparse.Namespace) -> None:
    """`sim --remote URL --join GAME --seat N`: this board plays seat N, the other board the
    other seat. Each game and seat gets a journal of its own, so two simulated boards of one
    game can run side by side on one machine."""
    if args.remote is None:
        if args.join or args.seat is not None or args.watch or args.lobby:
            raise ConfigError("<command line>", "--remote", "a broker URL with --join and --seat"
                              " (or --lobby)")
        return
    if args.lobby:
        if args.join or args.seat is not None or args.watch or args.guest:
            raise ConfigError("<command line>", "--lobby", "no --join, --seat, --watch or "
                              "--guest with --lobby: the offer taken names the game and seat")
        config.remote = {"broker": args.remote, "keepalive": 30, **_secret_table(args)}
        if not args.config and not getattr(args, "journal", None):
            journal = Path(config.journal)
            config.journal = str(journal.with_name(f"{journal.stem}-remote-lobby.sqlite"))
        return
    if getattr(args, "players", None):
        # (it was dropped silently: the seats of a remote game are --seat's or --watch's)
        raise ConfigError("<command line>", "--players",
                          "no --players with --remote: --seat N plays seat N here and the "
                          "other board the other seat (--watch: both are remote)",
                          " ".join(args.players))
    if not args.join or (args.seat is None) == (not args.watch):
        raise ConfigError("<command line>", "--join and --seat",
                          "both with --remote (or --join and --watch, to follow a game)")
    remote = {"broker": args.remote, "game": args.join, "keepalive": 30}
    if (args.page or args.ws_broker or args.offer or args.game_login) and not args.guest:
        raise ConfigError("<command line>", "--guest", "--guest with --page, --ws-broker, "
                          "--offer or --game-login (they are about a seat played from a "
                          "browser)")
    if args.guest:
        if args.watch:
            raise ConfigError("<command line>", "--guest", "--seat N with --guest, not --watch")
        remote.update(guest=True, offer=args.offer, page=args.page, ws_broker=args.ws_broker,
                      game_login=args.game_login)
    remote.update(_secret_table(args))
    players = ["remote", "remote"]
    if not args.watch:
        players[args.seat] = "human"
    config.players, config.remote = tuple(players), remote
    if not args.config and not getattr(args, "journal", None):
        journal = Path(config.journal)
        role = "watch" if args.watch else f"seat{args.seat}"
        config.journal = str(journal.with_name(
            f"{journal.stem}-remote-{_file_slug(args.join, 64)}-{role}.sqlite"))


def _secret_table(args: argparse.Namespace) -> dict[str, str]:
    import os

    if args.secret_file:
        return {"secret_file": args.secret_file}
    if os.environ.get("TREEBOARD_REMOTE_SECRET"):
        return {"secret": os.environ["TREEBOARD_REMOTE_SECRET"]}
    raise ConfigError("<command line>", "--secret-file", "the game's shared secret: "
                      "--secret-file FILE, or TREEBOARD_REMOTE_SECRET in the environment")


def _web_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--web-port", type=_port, metavar="N",
                   help="the companion page's port (default: the config's web.port, 8080)")
    p.add_argument("--no-web", action="store_true", help="do not serve the companion page")


def cmd_trace(args: argparse.Namespace) -> int:
    import games
    from board_driver.daemon.speech import SpeechError, open_speech
    from board_driver.referee.tracer import TraceError, print_trace, read_lines

    logging.basicConfig(level=logging.WARNING)
    try:
        config = simulated_config(args)
        config.backend = "sim"
        config.journal = ":temporary:"
        _voice_options(config, args)
        speech = open_speech(config.voice, config.language) if config.voice.wav_dir else None
        lines = read_lines(args.file)
        try:
            print_trace(lines, config, "<stdin>" if args.file == "-" else args.file, speech)
        finally:
            lines.close()
    except SpeechError as exc:
        return fail(f"--voice-dir: {exc}")
    except OSError as exc:
        return fail(f"cannot read {args.file}: {exc.strerror}")
    except (TraceError, games.GameError) as exc:
        return fail(str(exc))
    except _start_errors() as exc:
        return fail(str(exc))
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    from board_driver.cli.maker import selftest

    from gpiozero.exc import BadPinFactory

    _logging(False)
    _quiet_pin_fallbacks()
    config = None
    try:
        config = _board_config(args)
        simulated = config.backend == "sim"
        # On the simulated board only typed actions change a sensor: no walk and no listening
        # unless asked for. A real board walks through every site, then listens if asked.
        walk = args.walk if args.walk is not None else not simulated
        listen = args.listen if args.listen is not None else 0.0 if simulated or walk else 60.0
        hands = _typed_hands() if simulated and (walk or listen > 0) else None
        return selftest(config, seconds_per_led=args.led_seconds, listen_seconds=listen, walk=walk,
                        site_seconds=args.site_seconds, quiet_seconds=args.quiet_seconds,
                        hands=hands)
    except _start_errors() as exc:
        return fail(str(exc))
    except BadPinFactory as exc:
        return fail(_no_gpio(config, exc) + "; or try the simulated board with --sim")


def cmd_map(args: argparse.Namespace) -> int:
    from board_driver.cli.maker import map_layout

    from gpiozero.exc import BadPinFactory

    _logging(False)
    _quiet_pin_fallbacks()
    config = None
    try:
        config = _board_config(args)
        hands = _typed_hands() if config.backend == "sim" and not Path(args.output).exists() else None
        return map_layout(config, args.output, timeout=args.timeout, hands=hands)
    except _start_errors() as exc:
        return fail(str(exc))
    except BadPinFactory as exc:
        return fail(_no_gpio(config, exc) + "; or try the simulated board with --sim")


def _typed_hands():
    """The simulated board's hands: the sim's actions typed on stdin (cli/typed_hands.py)."""
    from board_driver.cli.typed_hands import typed_hands

    return typed_hands()


def register(sub: argparse._SubParsersAction) -> None:
    def simulated(p, *, journal: bool = False):
        p.add_argument("--config", help="a config file instead of the built-in simulated one")
        p.add_argument("--layout", help="a shipped layout name or a layout file")
        p.add_argument("--game", help="the game to play, on its first shipped layout (or on "
                                      "--layout's): see `treeboard games`")
        p.add_argument("--moves", choices=["off", "legal", "safe", "best"],
                           help="move display mode")
        p.add_argument("--time-control", metavar="TC",
                       help="the players' clocks: none, 10 (minutes each), 5+3 (minutes + "
                            "seconds a turn), 30s/move (a limit per turn), or one a seat: "
                            "10,3+2 (default: the config's; Arbos: 300s/move)")
        if journal:
            p.add_argument("--journal", help="journal file (default: one per layout and game "
                                             "options in ~/.local/state/treeboard/)")
        add_game_options(p)

    def real(p):
        p.add_argument("--config", help=f"config file (default {DEFAULT_PATH}; without one, "
                                        "--layout on the Pi's GPIO)")
        p.add_argument("--layout", help="a shipped layout name or a layout file (overrides the config's)")
        p.add_argument("--sim", action="store_true", help="the simulated board instead of the real one")

    p = sub.add_parser("run", help="the daemon: referee a game on the board")
    p.add_argument("--config", default=str(DEFAULT_PATH), help="config file (TOML)")
    p.add_argument("--new-game", action="store_true", help="abandon the journal's game in progress")
    p.add_argument("-v", "--verbose", action="store_true")
    _web_flags(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("sim", help="the daemon on simulated hardware, played from the terminal")
    simulated(p, journal=True)
    p.add_argument("--bridge", action="store_true",
                   help="through a simulated microcontroller on a pseudo-terminal")
    p.add_argument("--new-game", action="store_true", help="abandon the journal's game in progress")
    p.add_argument("--players", nargs=2, metavar="SEAT",
                   help="who plays each seat: human (at the board), web (on the page, with no "
                        "board), computer or computer:LEVEL (beginner, easy, medium, hard, "
                        "strongest, or seconds to think), e.g. --players human computer:easy")
    p.add_argument("-v", "--verbose", action="store_true")
    _web_flags(p)
    _remote_flags(p)
    _voice_flags(p)
    p.set_defaults(func=cmd_sim)

    p = sub.add_parser("trace", help="play physical actions from a file on the simulated board")
    simulated(p)
    p.add_argument("file", help="actions, one a line; - for stdin")
    _voice_flags(p)
    p.set_defaults(func=cmd_trace)

    p = sub.add_parser("selftest", help="light each LED in turn, print each sensor as it changes")
    real(p)
    p.add_argument("--led-seconds", type=float, default=0.3, help="how long each LED stays lit")
    p.add_argument("--listen", type=float,
                   help="seconds to print sensor changes (default 0; 60 with --no-walk on a real "
                        "board)")
    p.add_argument("--walk", action=argparse.BooleanOptionalAction,
                   help="ask for a piece on each site in turn and report dead sensors, sensors "
                        "that change by themselves and crossed wires (default: on a real board)")
    p.add_argument("--site-seconds", type=float, default=20.0,
                   help="the walk: how long to wait for each site's piece")
    p.add_argument("--quiet-seconds", type=float, default=5.0,
                   help="the walk: how long the board lies empty first")
    p.set_defaults(func=cmd_selftest)

    p = sub.add_parser("map", help="write a layout by placing a piece on each lit site")
    real(p)
    p.add_argument("--output", required=True, help="the layout file to write")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for each site")
    p.set_defaults(func=cmd_map)




"""The board's subcommands: run, sim, trace, selftest, map, match, install-service."""

from __future__ import annotations

import argparse
import logging
import sys

from board_driver.cli import EXIT_BAD_INPUT, _EXTRA_COMMANDS, _fail
from board_driver.config import DEFAULT_PATH, ConfigError, load_config, sim_config


def _logging(verbose: bool) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s",
                        stream=sys.stderr)


def _start_errors():
    """The errors that mean "this board cannot start as configured" (exit 2, no traceback)."""
    from hardware.base import HardwareError
    from hardware.layout import LayoutError

    from board_driver.journal import JournalError
    return (ConfigError, LayoutError, HardwareError, JournalError)


def cmd_run(args: argparse.Namespace) -> int:
    from board_driver.daemon import run_daemon

    _logging(args.verbose)
    try:
        config = load_config(args.config)
        _web_options(config, args)
        run_daemon(config, new_game=args.new_game, web=not args.no_web)
    except _start_errors() as exc:
        return _fail(str(exc))
    return 0


def _sim_config(args: argparse.Namespace):
    overrides = {}
    if args.layout:
        overrides["layout"] = args.layout
    if getattr(args, "journal", None):
        overrides["journal"] = args.journal
    if args.moves:
        overrides["moves"] = args.moves
    if getattr(args, "bridge", False):
        overrides["backend"] = "bridge"
        overrides["bridge_port"] = "sim"
        overrides.setdefault("layout", "tree-planting-classic-bridge")
    return sim_config(**overrides)


def cmd_sim(args: argparse.Namespace) -> int:
    from board_driver.sim import run_sim

    logging.basicConfig(level=logging.WARNING if not args.verbose else logging.DEBUG)
    try:
        config = load_config(args.config) if args.config else _sim_config(args)
        if args.config:
            config.backend = "bridge" if args.bridge else "sim"
            if args.bridge:
                config.bridge_port = "sim"
        _web_options(config, args)
        return run_sim(config, new_game=args.new_game, web=not args.no_web)
    except _start_errors() as exc:
        return _fail(str(exc))


def _web_options(config, args: argparse.Namespace) -> None:
    if args.web_port is not None:
        config.web_port = args.web_port


def _web_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--web-port", type=int, metavar="N",
                   help="the companion page's port (default: the config's web.port, 8080)")
    p.add_argument("--no-web", action="store_true", help="do not serve the companion page")


def cmd_trace(args: argparse.Namespace) -> int:
    import games
    from board_driver.trace import TraceError, print_trace

    logging.basicConfig(level=logging.WARNING)
    try:
        config = load_config(args.config) if args.config else _sim_config(args)
        config.backend = "sim"
        config.journal = ":temporary:"
        if args.file == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(args.file, encoding="utf-8") as f:
                lines = f.read().splitlines()
        print_trace(lines, config)
    except OSError as exc:
        return _fail(f"cannot read {args.file}: {exc.strerror}")
    except (TraceError, games.GameError) as exc:
        return _fail(str(exc))
    except _start_errors() as exc:
        return _fail(str(exc))
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from games.match import main as match_main

    return match_main(args.rest)


def cmd_selftest(args: argparse.Namespace) -> int:
    from board_driver.maker import selftest

    _logging(False)
    try:
        config = load_config(args.config) if args.config else _sim_config(args)
        return selftest(config, seconds_per_led=args.led_seconds, listen_seconds=args.listen)
    except _start_errors() as exc:
        return _fail(str(exc))


def cmd_map(args: argparse.Namespace) -> int:
    from board_driver.maker import map_layout

    _logging(False)
    try:
        config = load_config(args.config) if args.config else _sim_config(args)
        return map_layout(config, args.output, timeout=args.timeout)
    except _start_errors() as exc:
        return _fail(str(exc))


def register(sub: argparse._SubParsersAction) -> None:
    def board_options(p, default_config: bool):
        if default_config:
            p.add_argument("--config", default=str(DEFAULT_PATH), help="config file (TOML)")
        else:
            p.add_argument("--config", help="a config file instead of the built-in sim config")
            p.add_argument("--layout", help="a shipped layout name or a layout file")
            p.add_argument("--moves", choices=["off", "legal", "safe"], help="move display mode")

    p = sub.add_parser("run", help="the daemon: referee a game on the board")
    board_options(p, True)
    p.add_argument("--new-game", action="store_true", help="abandon the journal's game in progress")
    p.add_argument("-v", "--verbose", action="store_true")
    _web_flags(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("sim", help="the daemon on simulated hardware, played from the terminal")
    board_options(p, False)
    p.add_argument("--bridge", action="store_true",
                   help="through a simulated microcontroller on a pseudo-terminal")
    p.add_argument("--journal", help="journal file (default: ~/.local/state/treeboard/sim.sqlite)")
    p.add_argument("--new-game", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true")
    _web_flags(p)
    p.set_defaults(func=cmd_sim)

    p = sub.add_parser("trace", help="play physical actions from a file on the simulated board")
    board_options(p, False)
    p.add_argument("file", help="actions, one a line; - for stdin")
    p.set_defaults(func=cmd_trace)

    p = sub.add_parser("selftest", help="light each LED in turn, print each sensor as it changes")
    board_options(p, False)
    p.add_argument("--led-seconds", type=float, default=0.3)
    p.add_argument("--listen", type=float, default=60.0, help="seconds to print sensor changes")
    p.set_defaults(func=cmd_selftest)

    p = sub.add_parser("map", help="write a layout by placing a piece on each lit site")
    board_options(p, False)
    p.add_argument("--output", required=True, help="the layout file to write")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for each site")
    p.set_defaults(func=cmd_map)

    p = sub.add_parser("match", help="total a Treeblox match (colours switch every game)",
                       add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_match)

    from board_driver.service import register_cli
    register_cli(sub)


_EXTRA_COMMANDS.append(register)

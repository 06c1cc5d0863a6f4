"""The `treeboard` command line.

Each subcommand is a small function taking parsed arguments and returning an exit status:
0 success, 2 bad input (a bad move, file, config or option), 1 a failure at run time.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Sequence

import games

EXIT_BAD_INPUT = 2


def _fail(message: str, status: int = EXIT_BAD_INPUT) -> int:
    print(f"treeboard: {message}", file=sys.stderr)
    return status


def _game_options(args: argparse.Namespace) -> dict[str, str]:
    options = {}
    if getattr(args, "board", None):
        options["board"] = args.board
    for item in getattr(args, "option", None) or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--option takes KEY=VALUE, not {item!r}")
        options[key] = value
    return options


def cmd_games(args: argparse.Namespace) -> int:
    """List the games, their boards and options."""
    for name in games.names():
        game = games.get_game(name)
        print(f"{name}: {game.title}")
        for option, desc in game.options().items():
            print(f"  --{option}: {desc}")
        if game.boards():
            print(f"  boards: {', '.join(game.boards())}")
    return 0


def _read_moves(path: str) -> list[str]:
    if path == "-":
        text = sys.stdin.read()
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    return text.split()


def cmd_replay(args: argparse.Namespace) -> int:
    """Play the moves of a file (or stdin) and print the resulting game as one JSON object."""
    try:
        game = games.get_game(args.game)
        state = game.new_state(**_game_options(args))
    except KeyError as exc:
        return _fail(exc.args[0])
    except (games.GameError, ValueError) as exc:
        return _fail(str(exc))
    try:
        moves = _read_moves(args.file)
    except OSError as exc:
        return _fail(f"cannot read {args.file}: {exc.strerror}")
    for i, text in enumerate(moves, 1):
        try:
            state.play(state.parse_move(text))
        except games.IllegalMove as exc:
            return _fail(f"move {i} ({text}): {exc.reason}")
    print(json.dumps(state.summary()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="treeboard",
        description="A smart board for tree games: rules engines, sensors, LEDs, and the daemon.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("games", help="list the games, their boards and options")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("replay", help="play moves from a file and print the game as JSON")
    p.add_argument("--game", required=True, help="a game name (see `treeboard games`)")
    p.add_argument("--board", help="the board, for games that have one")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="another game option")
    p.add_argument("file", nargs="?", default="-", help="whitespace-separated moves; - for stdin")
    p.set_defaults(func=cmd_replay)

    for register in _EXTRA_COMMANDS:
        register(sub)
    return parser


# Subcommands defined in other modules add themselves here (each a function taking the
# subparsers object), so this file stays the index of commands, not their implementation.
_EXTRA_COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = []


def main(argv: Sequence[str] | None = None) -> int:
    import board_driver.commands  # noqa: F401  (registers the board's subcommands)
    import board_driver.ai_commands  # noqa: F401  (registers solve and review)

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    # Run as `python -m board_driver.cli`: use the imported module, where the board's
    # subcommands register themselves, not this __main__ copy of it.
    from board_driver.cli import main as _main
    sys.exit(_main())

"""The `treeboard` command line.

Each subcommand is a small function taking parsed arguments and returning an exit status:
0 success, 2 bad input (a bad move, file, config or option), 1 a failure at run time.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import signal
import sys
from typing import BinaryIO, Callable, Iterator, Sequence

import games

EXIT_BAD_INPUT = 2


def _fail(message: str, status: int = EXIT_BAD_INPUT) -> int:
    print(f"treeboard: {message}", file=sys.stderr)
    return status


def _game_options(args: argparse.Namespace) -> dict[str, str]:
    """The game options given as `--NAME VALUE` (every option `treeboard games` lists) or
    `--option NAME=VALUE`, as `Game.new_state` takes them."""
    options = {}
    for name in all_game_options():
        value = getattr(args, _dest(name), None)
        if value is not None:
            options[name] = value
    for item in getattr(args, "option", None) or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--option takes KEY=VALUE, not {item!r}")
        options[key] = value
    return options


def all_game_options() -> dict[str, str]:
    """Every option of every game, with what it means (games that share a name share a flag)."""
    found: dict[str, list[str]] = {}
    for name in games.names():
        for option, desc in games.get_game(name).options().items():
            found.setdefault(option, []).append(f"{name}: {desc}")
    return {option: "; ".join(descs) for option, descs in found.items()}


def _dest(option: str) -> str:
    return "game_option_" + option.replace("-", "_")


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """`--NAME VALUE` for every game option, and `--option NAME=VALUE` for any: the same
    flags on replay, sim and trace, as `treeboard games` lists them."""
    group = parser.add_argument_group("game options (see `treeboard games`)")
    for option, desc in all_game_options().items():
        # As `treeboard games` lists it, and with dashes too (--quiet-limit), as flags go.
        flags = dict.fromkeys([f"--{option}", f"--{option.replace('_', '-')}"])
        group.add_argument(*flags, dest=_dest(option), metavar="VALUE", help=desc.replace("%", "%%"))
    group.add_argument("--option", action="append", metavar="KEY=VALUE",
                       help="any game option, by name")


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


#: How much of the input `replay` holds at once; a word longer than MAX_TOKEN is no move.
CHUNK = 1 << 16
MAX_TOKEN = 256


class BadText(ValueError):
    """Input that is not moves as text: not UTF-8, or a word far too long to be a move."""


def read_tokens(stream: BinaryIO, name: str) -> Iterator[str]:
    """The whitespace-separated words of a binary stream, decoded as UTF-8 a chunk at a time:
    memory stays bounded by CHUNK and MAX_TOKEN however long the input is, and a caller that
    stops at the first bad move reads no further."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0  # bytes of the stream before this chunk
    tail = ""  # a word the chunk's end may have cut
    while True:
        chunk = stream.read(CHUNK)
        try:
            text = decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            raise BadText(f"{name}: not UTF-8 text (byte 0x{chunk[exc.start]:02x} at offset "
                          f"{offset + exc.start})") from None
        offset += len(chunk)
        words = (tail + text).split()
        # The last word may go on in the next chunk, unless the text ended in a space.
        tail = words.pop() if words and text and not text[-1].isspace() else ""
        yield from words
        if len(tail) > MAX_TOKEN:
            raise BadText(f"{name}: a word of more than {MAX_TOKEN} characters, starting "
                          f"{tail[:40]!r}; moves are short words separated by whitespace")
        if not chunk:
            return


def cut(text: str, limit: int = 40) -> str:
    """Bad input as an error message quotes it: at most `limit` characters of it."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def cmd_replay(args: argparse.Namespace) -> int:
    """Play the moves of a file (or stdin) and print the resulting game as one JSON object."""
    try:
        game = games.get_game(args.game)
        state = game.new_state(**_game_options(args))
    except KeyError as exc:
        return _fail(exc.args[0])
    except (games.GameError, ValueError) as exc:
        return _fail(str(exc))
    stdin = args.file == "-"
    name = "<stdin>" if stdin else args.file
    try:
        stream = sys.stdin.buffer if stdin else open(args.file, "rb")
    except OSError as exc:
        return _fail(f"cannot read {args.file}: {exc.strerror}")
    try:
        # One move at a time, straight from the stream: the first bad one stops the reading.
        for i, text in enumerate(read_tokens(stream, name), 1):
            try:
                state.play(state.parse_move(text))
            except games.IllegalMove as exc:
                return _fail(f"{'' if stdin else name + ': '}move {i} ({cut(text)}): {exc.reason}")
    except BadText as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot read {args.file}: {exc.strerror}")
    finally:
        if not stdin:
            stream.close()
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
    add_game_options(p)
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

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["match"]:
        # `match` has its own parser (games.match): its options go before or after the files,
        # and `treeboard match --help` is its help.
        from games.match import main as match_main
        return match_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `treeboard games | head`: the reader has all it wanted. Point stdout at /dev/null so
        # the interpreter's own flush at exit does not fail again, and end as a shell
        # expects of a command its pipe closed (128 + SIGPIPE).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + signal.SIGPIPE


if __name__ == "__main__":
    # Run as `python -m board_driver.cli`: use the imported module, where the board's
    # subcommands register themselves, not this __main__ copy of it.
    from board_driver.cli import main as _main
    sys.exit(_main())

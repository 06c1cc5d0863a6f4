"""The rules' own commands: `games` (the games, boards and options), `replay` (a game's moves
from a file, as JSON) and `match` (a Treeblox match's totals)."""

from __future__ import annotations

import argparse
import codecs
import json
import sys
from typing import BinaryIO, Iterator

import games
from board_driver.cli.common import add_game_options, fail, game_options
from board_driver.referee.tracer import cut


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


def cmd_replay(args: argparse.Namespace) -> int:
    """Play the moves of a file (or stdin) and print the resulting game as one JSON object."""
    try:
        game = games.get_game(args.game)
        state = game.new_state(**game_options(args))
    except KeyError as exc:
        return fail(exc.args[0])
    except (games.GameError, ValueError) as exc:
        return fail(str(exc))
    stdin = args.file == "-"
    name = "<stdin>" if stdin else args.file
    try:
        stream = sys.stdin.buffer if stdin else open(args.file, "rb")
    except OSError as exc:
        return fail(f"cannot read {args.file}: {exc.strerror}")
    try:
        # One move at a time, straight from the stream: the first bad one stops the reading.
        for i, text in enumerate(read_tokens(stream, name), 1):
            try:
                state.play(state.parse_move(text))
            except games.IllegalMove as exc:
                return fail(f"{'' if stdin else name + ': '}move {i} ({cut(text)}): {exc.reason}")
    except BadText as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"cannot read {args.file}: {exc.strerror}")
    finally:
        if not stdin:
            stream.close()
    print(json.dumps(state.summary()))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list the games, their boards and options")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("replay", help="play moves from a file and print the game as JSON")
    p.add_argument("--game", required=True, help="a game name (see `treeboard games`)")
    add_game_options(p)
    p.add_argument("file", nargs="?", default="-", help="whitespace-separated moves; - for stdin")
    p.set_defaults(func=cmd_replay)

    # Listed here for `treeboard --help`; cli.main hands `match ...` to its own parser.
    sub.add_parser("match", help="total a Treeblox match (colours switch every game)", add_help=False)

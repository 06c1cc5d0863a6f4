"""The rules' own commands: `games` (the games, boards and options), `replay` (a game's moves
from a file, as JSON) and `match` (a match's totals, in a game whose rules have matches:
`Game.match_rules`)."""

from __future__ import annotations

import argparse
import codecs
import json
import sys
from typing import BinaryIO, Iterator, Sequence, TextIO

import games
import games.ai
from board_driver.cli.common import EXIT_BAD_INPUT, add_game_options, fail, game_options
from board_driver.referee.actions import cut
from treeboard.exc import TreeboardError


def cmd_games(args: argparse.Namespace) -> int:
    """List the games, their boards and options."""
    for name in games.names():
        game = games.get_game(name)
        print(f"{name}: {game.title}")
        for option, desc in game.options().items():
            print(f"  --{option}: {desc}")
        if game.boards():
            print(f"  boards: {', '.join(game.boards())}")
        print("  computer levels: " + ", ".join(games.ai.level_label(name, level)
                                                for level in games.ai.LEVELS))
    return 0


#: How much of the input `replay` holds at once; a word longer than MAX_TOKEN is no move.
CHUNK = 1 << 16
MAX_TOKEN = 256


class BadText(TreeboardError, ValueError):
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


def read_moves(state: games.State, words: Iterator[str]
               ) -> Iterator[tuple[str, object, games.IllegalMove | None]]:
    """Each move of `words` as (its text, the move, None), parsed in `state` as it stands when
    the move is asked for (the caller plays each before asking for the next), or (the text,
    None, why not) for the first that is no move. A move's text may be two words where its
    first word alone names no move (Arbos's setup `seed C7`, as its `str(move)` writes it; the
    contract in games/base.py `State.parse_move`): a word the game rejects as no move at all
    (InvalidNotation) is tried again with the word after it. One word waits at most, so memory
    stays bounded as `read_tokens` keeps it."""
    waiting: tuple[str, games.IllegalMove] | None = None   # a first word that is no move
    for word in words:
        if waiting is not None:
            first, why = waiting
            waiting = None
            joined = f"{first} {word}"
            try:
                move = state.parse_move(joined)
            except games.InvalidNotation as exc:
                # The first word was wrong, unless the two together got further (a reason of
                # their own: `seed I1` past the board's edge)
                yield (first, None, why) if str(exc.reason) == str(why.reason) else \
                    (joined, None, exc)
                return
            except games.IllegalMove as exc:
                yield joined, None, exc
                return
            yield joined, move, None
            continue
        try:
            move = state.parse_move(word)
        except games.InvalidNotation as exc:
            waiting = (word, exc)
            continue
        except games.IllegalMove as exc:
            yield word, None, exc
            return
        yield word, move, None
    if waiting is not None:
        yield waiting[0], None, waiting[1]


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
        for i, (text, move, why) in enumerate(read_moves(state, read_tokens(stream, name)), 1):
            try:
                if why is not None:
                    raise why
                state.play(move)
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


def parse_record(text: str) -> list[str]:
    """The moves of one match record: whitespace-separated, `#` to the end of a line ignored."""
    return [m for line in text.splitlines() for m in line.split("#", 1)[0].split()]


def read_records(paths: Sequence[str], stdin: TextIO | None = None
                 ) -> tuple[list[list[str]], list[str]]:
    """(games, sources) of a match: one game per non-blank line of a single file, else one
    per file; `-` is standard input. Raises GameError for a file it cannot read."""
    texts = []
    for path in paths:
        if path == "-":
            texts.append((path, (stdin or sys.stdin).read()))
        else:
            try:
                with open(path, encoding="utf-8") as f:
                    texts.append((path, f.read()))
            except OSError as exc:
                raise games.GameError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(texts) == 1:
        path, text = texts[0]
        records, sources = [], []
        for n, line in enumerate(text.splitlines(), 1):
            moves = parse_record(line)
            if moves:
                records.append(moves)
                sources.append(f"{'stdin' if path == '-' else path} line {n}")
        return records, sources
    return [parse_record(text) for _, text in texts], [p for p, _ in texts]


def match_games() -> list[str]:
    """The games whose rules total a match of several games (`Game.match_rules`)."""
    return [name for name in games.names() if games.get_game(name).match_rules]


def cmd_match(args: argparse.Namespace) -> int:
    """Print a match's summary (`Game.play_match`) as JSON."""
    try:
        if args.game is None:
            matched = match_games()
            if len(matched) != 1:
                raise games.GameError(f"--game: one of {', '.join(matched)}")
            args.game = matched[0]
        try:
            game = games.get_game(args.game)
        except KeyError as exc:
            raise games.GameError(exc.args[0]) from None
        options = game.new_state(**game_options(args)).options()
        records, sources = read_records(args.files)
        summary = game.play_match(records, sources, **options)
    except (games.GameError, ValueError) as exc:
        print(f"treeboard match: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if len(records) % 2:
        print("treeboard match: note: an odd number of games gives one player Dark's first "
              "move once more than the other", file=sys.stderr)
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list the games, their boards and options")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("replay", help="play moves from a file and print the game as JSON")
    p.add_argument("--game", required=True, help="a game name (see `treeboard games`)")
    add_game_options(p)
    p.add_argument("file", nargs="?", default="-", help="whitespace-separated moves; - for stdin")
    p.set_defaults(func=cmd_replay)

    matched = [games.get_game(name) for name in match_games()]
    p = sub.add_parser(
        "match",
        help=f"total a match of several games ({', '.join(g.short_title for g in matched)})",
        description=" ".join(f"Total a {g.short_title} match: {g.match_rules}." for g in matched))
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="one file: a game per line; several files: a game per file; "
                        "- reads standard input")
    p.add_argument("--game", help="the game (default: the one whose rules have matches)")
    add_game_options(p)   # --cubes N, as on replay
    p.set_defaults(func=cmd_match)

"""`treeboard match`: total a Treeblox match (the rulebook's "Match play").

Players switch colours every game: player 1 is Dark in game 1, Light in game 2, and so on.
After each game each player scores their active leaves; the totals decide the match.

Records: with one file, each non-blank line is one game; with several files, each file is
one game. A record is the game's moves separated by whitespace (as `treeboard replay`
prints them); `#` starts a comment. `-` reads standard input. See docs/games/treeblox.md.

Pure apart from `main`, which reads the files and prints the summary as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from games.base import BadOptions, GameError, IllegalMove
from games.treeblox import COLOURS, GAME, MAX_CUBES


class MatchError(GameError):
    """A game of the match that does not replay, or does not finish."""

    def __init__(self, game: int, where: str, reason: str):
        self.game = game
        self.reason = reason
        super().__init__(f"game {game}{f' ({where})' if where else ''}: {reason}")


def player_colours(game: int) -> tuple[str, str]:
    """The colours of (player 1, player 2) in game `game` (1-based)."""
    return ("dark", "light") if game % 2 else ("light", "dark")


def play_game(number: int, moves: Sequence[str], cubes: int = MAX_CUBES, where: str = ""
              ) -> dict[str, Any]:
    """Replay game `number` of a match and score it for player 1 and player 2."""
    state = GAME.new_state(cubes=cubes)
    for i, text in enumerate(moves, 1):
        try:
            state.play(text)
        except IllegalMove as exc:
            raise MatchError(number, where, f"move {i} ({text}): {exc.reason}") from None
    if not state.is_over():
        raise MatchError(number, where, f"the game is not over after its {len(moves)} moves "
                                        f"({COLOURS[state.to_move]} to move)")
    first = 0 if number % 2 else 1  # player 1's seat: Dark in odd games, Light in even
    scores = state.scores()
    winner = state.winner()
    return {
        "game": number,
        "colours": list(player_colours(number)),
        "leaves": [scores[first], scores[1 - first]],
        "winner": None if winner is None else (1 if winner == first else 2),
        "end": state.end_reason,
        "moves": len(moves),
    }


def result_text(totals: Sequence[int]) -> str:
    a, b = totals
    if a == b:
        return f"Draw at {a} active leaves each"
    margin = abs(a - b)
    return f"Player {1 if a > b else 2} won by {margin} point{'s' if margin != 1 else ''}"


def play_match(records: Sequence[Sequence[str]], cubes: int = MAX_CUBES,
               sources: Sequence[str] | None = None) -> dict[str, Any]:
    """The match summary for games given as lists of move texts, game 1 first.

    Raises MatchError naming the game (and its source, if given) that does not replay.
    """
    if not records:
        raise GameError("a match needs at least one game")
    rows = [play_game(i, moves, cubes, sources[i - 1] if sources else "")
            for i, moves in enumerate(records, 1)]
    totals = [sum(r["leaves"][0] for r in rows), sum(r["leaves"][1] for r in rows)]
    winner = 1 if totals[0] > totals[1] else 2 if totals[1] > totals[0] else None
    return {
        "game": GAME.name,
        "cubes": cubes,
        "games": rows,
        "totals": totals,
        "winner": winner,
        "margin": abs(totals[0] - totals[1]),
        "result": result_text(totals),
    }


def parse_record(text: str) -> list[str]:
    """The moves of one record: whitespace-separated, `#` to the end of a line ignored."""
    return [m for line in text.splitlines() for m in line.split("#", 1)[0].split()]


def read_records(paths: Sequence[str], stdin=None) -> tuple[list[list[str]], list[str]]:
    """(games, sources): one game per non-blank line of a single file, else one per file."""
    texts = []
    for path in paths:
        if path == "-":
            texts.append((path, (stdin or sys.stdin).read()))
        else:
            try:
                with open(path, encoding="utf-8") as f:
                    texts.append((path, f.read()))
            except OSError as exc:
                raise GameError(f"cannot read {path}: {exc.strerror or exc}") from None
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


def main(argv: Sequence[str] | None = None, stdout=None, stderr=None, stdin=None) -> int:
    """`treeboard match FILE...`: print the match summary as JSON; 2 on any error."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    parser = argparse.ArgumentParser(
        prog="treeboard match",
        description="Total a Treeblox match: players switch colours every game (player 1 is "
                    "Dark in game 1) and the most active leaves over all games wins.")
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="one file: a game per line; several files: a game per file; "
                             "- reads standard input")
    parser.add_argument("--cubes", default=MAX_CUBES,
                        help=f"cubes of each kind per player (default {MAX_CUBES})")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        cubes = GAME.new_state(cubes=args.cubes).options()["cubes"]
        records, sources = read_records(args.files, stdin)
        summary = play_match(records, cubes, sources)
    except (GameError, BadOptions) as exc:
        print(f"treeboard match: {exc}", file=stderr)
        return 2
    if len(records) % 2:
        print("treeboard match: note: an odd number of games gives one player Dark's first "
              "move once more than the other", file=stderr)
    json.dump(summary, stdout, indent=2)
    stdout.write("\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""The computer's subcommands: `treeboard solve` (the exact value of a Tree Planting position)
and `treeboard review` (every move of a game against the best one)."""

from __future__ import annotations

import argparse
import json
import sys
import time

import games
from board_driver.cli import _EXTRA_COMMANDS, _fail, _game_options


def _moves_of(texts: list[str] | None) -> list[str]:
    # `--moves h0.0 v0.1` and `--moves "h0.0 v0.1"` both work.
    return [m for text in texts or [] for m in text.replace(",", " ").split()]


def _position(args: argparse.Namespace) -> games.State:
    """The game's state after --moves. Raises ValueError with a message for the user."""
    try:
        game = games.get_game(args.game)
    except KeyError as exc:
        raise ValueError(exc.args[0]) from None
    state = game.new_state(**_game_options(args))
    for i, text in enumerate(_moves_of(args.moves), 1):
        try:
            state.play(state.parse_move(text))
        except games.IllegalMove as exc:
            raise ValueError(f"--moves: move {i} ({text}): {exc.reason}") from None
    return state


def cmd_solve(args: argparse.Namespace) -> int:
    """Print {"value", "best", "seconds"}: the final tree margin for the player to move under
    perfect play, the grooves that reach it, and how long the search took."""
    if args.game != "tree-planting":
        return _fail(f"solve: only tree-planting has an exact solver, not {args.game!r}; "
                     "the other games have `treeboard review` and the computer player")
    try:
        state = _position(args)
    except (ValueError, games.GameError) as exc:
        return _fail(f"solve: {exc}")
    if state.is_over():
        return _fail("solve: the game is over after those moves; there is nothing to solve")
    from games.ai.tree_planting import OutOfTime, solve

    start = time.perf_counter()
    deadline = start + args.seconds if args.seconds else None
    try:
        value, best = solve(state, deadline=deadline, clock=time.perf_counter)
    except OutOfTime:
        return _fail(f"solve: no exact value within {args.seconds} s", status=1)
    print(json.dumps({"value": value, "best": [str(g) for g in best],
                      "seconds": round(time.perf_counter() - start, 3)}))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solve", help="the exact value and best moves of a Tree Planting position")
    p.add_argument("--game", default="tree-planting", help="the game (only tree-planting)")
    p.add_argument("--board", default="classic", help="a board name, RxC or ASCII art")
    p.add_argument("--moves", nargs="*", metavar="M", help="the moves played so far")
    p.add_argument("--seconds", type=float, default=None,
                   help="give up after this long (default: no limit)")
    p.set_defaults(func=cmd_solve, option=None)


_EXTRA_COMMANDS.append(register)

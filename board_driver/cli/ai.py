"""The computer's subcommands: `treeboard solve` (the exact value of a position, in a game with
an exact solver: its table in games/ai/tuning/ names it) and `treeboard review` (every move
of a game against the best one)."""

from __future__ import annotations

import argparse
import json
import sys
import time

import games
from board_driver.cli.common import add_game_options, fail, game_options
from games.ai.tuning import exact_solver


#: `solve`'s default time budget, in seconds (--seconds 0: no limit).
SOLVE_SECONDS = 60.0


def _moves_of(texts: list[str] | None) -> list[str]:
    # `--moves h0.0 v0.1` and `--moves "h0.0 v0.1"` both work.
    return [m for text in texts or [] for m in text.replace(",", " ").split()]


def _position(args: argparse.Namespace) -> games.State:
    """The game's state after --moves. Raises ValueError with a message for the user."""
    try:
        game = games.get_game(args.game)
    except KeyError as exc:
        raise ValueError(exc.args[0]) from None
    state = game.new_state(**game_options(args))
    for i, text in enumerate(_moves_of(args.moves), 1):
        try:
            state.play(state.parse_move(text))
        except games.IllegalMove as exc:
            raise ValueError(f"--moves: move {i} ({text}): {exc.reason}") from None
    return state


def cmd_solve(args: argparse.Namespace) -> int:
    """Print {"value", "for", "for_player", "best", "seconds", "core"}: the final margin for
    the player to move (seat "for", named "for_player") under perfect play, the moves that
    reach it, how long the search took and which search it was (compiled or python)."""
    solvable = [name for name in games.names() if exact_solver(games.get_game(name))]
    if args.game is None and len(solvable) == 1:
        args.game = solvable[0]
    if args.game not in solvable:
        return fail(f"solve: only {', '.join(solvable)} has an exact solver, not {args.game!r}; "
                     "the other games have `treeboard review` and the computer player")
    solver = exact_solver(games.get_game(args.game))
    try:
        state = _position(args)
    except (ValueError, games.GameError) as exc:
        return fail(f"solve: {exc}")
    if state.is_over():
        return fail("solve: the game is over after those moves; there is nothing to solve")
    if args.seconds is not None and args.seconds < 0:
        return fail(f"solve: --seconds must be 0 (no limit) or more, not {args.seconds:g}")
    try:
        why = solver.out_of_reach(state)
    except solver.BookError as exc:
        return fail(f"solve: {exc}", status=1)
    if why is not None:
        return fail(f"solve: no exact answer is within reach: {why}; give the moves played so "
                    "far with --moves, or ask `treeboard review` or the computer player, "
                    "which search without an exact answer", status=1)
    seconds = SOLVE_SECONDS if args.seconds is None else args.seconds
    start = time.perf_counter()
    deadline = start + seconds if seconds else None
    progress = _Progress(seconds) if sys.stderr.isatty() else None
    try:
        value, best = solver.solve(state, deadline=deadline, clock=time.perf_counter)
    except solver.OutOfTime as exc:
        return fail(f"solve: no exact value within {seconds:g} s ({exc}); "
                    "--seconds N allows longer, 0 without a limit", status=1)
    except solver.BookError as exc:
        return fail(f"solve: {exc}", status=1)
    finally:
        if progress is not None:
            progress.stop()
    # "value" is the player to move's: say who that is, by seat and by name
    from board_driver.views import players

    print(json.dumps({"value": value, "for": state.to_move,
                      "for_player": players(state.game.name)[state.to_move],
                      "best": [str(m) for m in best],
                      "seconds": round(time.perf_counter() - start, 3),
                      "core": solver.search_core(state)}))
    return 0


class _Progress:
    """On a terminal: a line on stderr saying the search goes on, once a second (a thread: the
    search holds the main one), wiped when it ends."""

    def __init__(self, seconds: float):
        import threading

        self.seconds = seconds
        self.start = time.perf_counter()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="solve-progress", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(1.0):
            took = time.perf_counter() - self.start
            limit = f" of at most {self.seconds:g} s" if self.seconds else ""
            sys.stderr.write(f"\rsolving: {took:.0f} s{limit} (Ctrl-C stops)")
            sys.stderr.flush()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()
        if time.perf_counter() - self.start >= 1.0:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _game_of_file(args: argparse.Namespace) -> games.State:
    """The game a review FILE holds: a replay object (JSON, as `treeboard replay` prints it)
    or whitespace-separated moves of --game on --board. Raises ValueError for the user."""
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
    except OSError as exc:
        raise ValueError(f"cannot read {args.file}: {exc.strerror}") from None
    if text.lstrip().startswith("{"):
        try:
            return games.load_state(text)
        except games.GameError as exc:
            raise ValueError(f"{args.file}: {exc}") from None
    args.moves = [text]
    try:
        return _position(args)
    except ValueError as exc:
        raise ValueError(f"{args.file}: {exc}".replace("--moves: ", "")) from None


def _signed(value) -> str:
    if value is None:
        return "?"
    if isinstance(value, int):
        return f"{value:+d}"
    return f"{value:.2f}"


def cmd_review(args: argparse.Namespace) -> int:
    """Print every move of a game with the value before and after it, the best moves, and a
    mark on the moves that changed the result."""
    try:
        state = _game_of_file(args)
    except (ValueError, games.GameError) as exc:
        return fail(f"review: {exc}")
    if not state.moves:
        return fail(f"review: {args.file} holds no moves")
    from games.ai.review import review

    rows = review(state, seconds=args.seconds, seed=args.seed)
    if args.json:
        print(json.dumps({"game": state.game.name, **state.options(), "moves": rows}))
        return 0
    exact = all(r["exact"] for r in rows)
    options = ", ".join(f"{k} {v}" for k, v in state.options().items())
    print(f"{state.game.short_title}" + (f" ({options})" if options else "") + ": values are "
          + ("final tree margins for the player moving, under perfect play" if exact else
             "exact tree margins (integers) or the search's expected result 0..1 (0.50 even)"))
    from board_driver.views import players

    names = players(state.game.name)  # as the sim and the page name them; the JSON keeps 0/1
    width = max(6, *map(len, names))
    print(f"{'n':>3}  {'player':<{width}}  {'move':<8}  {'before':>6}  {'after':>6}  best")
    for r in rows:
        mark = "  <- changed the result" if r["changed_result"] else ""
        best = " ".join(r["best"][:6]) + (" ..." if len(r["best"]) > 6 else "")
        print(f"{r['n']:>3}  {names[r['player']]:<{width}}  {r['move']:<8}  {_signed(r['before']):>6}  "
              f"{_signed(r['after']):>6}  {best}{mark}")
    return 0


def cmd_puzzles(args: argparse.Namespace) -> int:
    """Write a set of puzzles (games/ai/puzzles.py; docs/study.md): JSON, to --out or stdout."""
    from games.ai.puzzles import make_set

    if args.count < 1:
        return fail(f"puzzles: --count {args.count}: expected at least 1")
    try:
        found = make_set(args.game, args.count, seed=args.seed, options=game_options(args))
    except (ValueError, games.GameError, TypeError) as exc:
        return fail(f"puzzles: {exc}")
    if not found["puzzles"]:
        return fail(f"puzzles: no puzzle found for {args.game} in the games played", 1)
    text = json.dumps(found, indent=1, ensure_ascii=False) + "\n"
    if args.out is None:
        sys.stdout.write(text)
    else:
        try:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            return fail(f"puzzles: {args.out}: {exc.strerror}")
        print(f"{len(found['puzzles'])} puzzles of {args.game} written to {args.out}")
    if len(found["puzzles"]) < args.count:
        print(f"treeboard: puzzles: only {len(found['puzzles'])} found", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solve", help="the exact value and best moves of a position, in a game "
                                     "with an exact solver")
    p.add_argument("--game", help="the game (default: the one with an exact solver)")
    add_game_options(p)   # --board B, as on replay, sim and trace
    p.add_argument("--moves", nargs="*", metavar="M", help="the moves played so far")
    p.add_argument("--seconds", type=float, default=None,
                   help=f"give up after this long (default {SOLVE_SECONDS:g}; 0: no limit)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("review", help="every move of a game against the best one")
    p.add_argument("file", help="a replay object (JSON) or whitespace-separated moves; - stdin")
    p.add_argument("--game", default=games.names()[0],
                   help=f"the game of a plain move list (default {games.names()[0]}, the first "
                        "`treeboard games` lists)")
    add_game_options(p)   # the options of a plain move list, as on replay
    p.add_argument("--seconds", type=float, default=2.0, help="thinking time per position")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    p.set_defaults(func=cmd_review)

    p = sub.add_parser("puzzles", help="positions with one best move, made by the computer "
                                       "(a JSON set; docs/study.md)")
    p.add_argument("--game", required=True, choices=games.names())
    add_game_options(p)   # --board B, as on replay, sim and trace
    p.add_argument("--count", type=int, default=5, help="how many puzzles (default 5)")
    p.add_argument("--seed", type=int, default=1, help="the same seed makes the same set")
    p.add_argument("--out", metavar="FILE", help="write the set here (default: standard output)")
    p.set_defaults(func=cmd_puzzles)


"""Puzzles: positions with one best move, made by the computer (docs/study.md, "Puzzles").

- A game with an exact solver (Tree Planting's; the game's `Tuning.exact_solver`), from it: a
  game played on from empty into its endgame (the solver's `walk_to_endgame`: random grooves
  that hand nothing over while there are such), then every position from there on with at
  most `MAX_FREE` moves left, each move valued exactly (`exact_values`). A puzzle is a position
  where exactly one move keeps the mover's best result (a win, or else a draw) and every other
  one loses it. Graded by its free moves; its theme from the solver's `puzzle_theme` (Tree
  Planting: taking squares in a chain, "chain-endgame"; declining the last two squares of a
  chain to keep control, "sacrifice", the long-chain rule's double deal; the last groove that
  hands nothing over, "long-chain").
- The other games, from reviewing played games: self-play at `LEVEL` (seeded), then each
  position from the end back searched with a fixed number of iterations (seeded, so a set is
  the same on every machine): a puzzle where the best move's estimate is a win (or, failing
  that, a draw) and every other move's is clearly below it (by `MARGIN`, and a result lower):
  the move that changes the result, the others do not. Moves alike (a symmetric twin) may
  share the answer, up to `MOST`. An estimate, not a proof (the set says `"exact": false`).

A set is JSON (`FORMAT`, documented in docs/study.md):

    {"format": "treeboard-puzzles", "version": 1, "game": "fangqi", "seed": 1, "exact": false,
     "puzzles": [{"options": {...}, "moves": ["c3", ...], "to_move": 0, "goal": "win",
                  "answers": ["d4"], "results": {"d4": "win", "c2": "loss", ...},
                  "free": 12, "theme": "turning-point"}, ...]}

`read_set` checks a set (a bad one raises PuzzleError naming the file, the puzzle and the key);
`state_of` replays a puzzle's position. Pure: no I/O but the reading of a set's text by the
caller; the budgets are iterations, not time.
"""

from __future__ import annotations

import json
import random
from typing import Any, Callable, Iterator

import games
from treeboard.exc import TreeboardError

FORMAT = "treeboard-puzzles"
VERSION = 1
#: A game with an exact solver: positions with at most this many moves left are solved.
MAX_FREE = 16
#: The other games: the level of the self-play (a beginner's slips make the positions where one
#: move decides), the search's iterations per position, how far below the best every other
#: move's estimate must be, the estimate that counts as a win, and how many moves at most may
#: keep the result (symmetric moves are one idea; more is no puzzle).
LEVEL = "beginner"
ITERATIONS = 600
MARGIN = 0.25
WIN = 0.7
MOST = 3
#: The other games: only the last this many positions of each game are searched (late positions
#: are cheap, and where one move decides).
TAIL = 30
#: How many games a set may play before it gives up finding more puzzles; how many puzzles one
#: game may give (a set of one game's positions in a row would teach one thing); the fewest
#: moves a puzzle leaves (fewer is no puzzle: a square to close, a last move).
MAX_GAMES = 60
PER_GAME = 2
FEWEST = 4


class PuzzleError(TreeboardError, ValueError):
    """A puzzle set that cannot be used: names the file, the puzzle and what was expected."""


def result_of(value: float, exact: bool) -> str:
    """A move's value for its mover, as a result: win, draw or loss."""
    if exact:
        return "win" if value > 0 else "loss" if value < 0 else "draw"
    return "win" if value >= WIN else "loss" if value <= 1 - WIN else "draw"


def one_best(values: dict[str, float], exact: bool, most: int = 1
             ) -> tuple[str, list[str]] | None:
    """(the goal, the moves that keep it) where at most `most` moves (and fewer than half of
    them) keep the best result and every other move falls to a lower one (an estimate: by
    MARGIN too); else None. Moves the search never tried are not in `values`."""
    if len(values) < 2:
        return None
    rank = {"loss": 0, "draw": 1, "win": 2}
    results = {m: result_of(v, exact) for m, v in values.items()}
    best = max(results.values(), key=rank.__getitem__)
    if best == "loss":
        return None
    keep = sorted(m for m, r in results.items() if r == best)
    if len(keep) > most or 2 * len(keep) >= len(values):
        return None
    if not exact:
        low = min(values[m] for m in keep)
        if any(v > low - MARGIN for m, v in values.items() if m not in keep):
            return None
    return best, keep


# --- a game with an exact solver ---------------------------------------------------------------

def exact_puzzles(name: str, solver: Any, options: dict, seed: int,
                  clock: Callable[[], float]) -> Iterator[dict]:
    """Puzzles from the game's exact solver (its module, `Tuning.exact_solver`): a game walked
    into its endgame by the solver's `walk_to_endgame`, then each position valued exactly; the
    theme from the solver's `puzzle_theme`."""
    rng = random.Random(seed)
    game = games.get_game(name)
    for _ in range(MAX_GAMES):
        state = game.new_state(**options)
        solver.walk_to_endgame(state, rng, MAX_FREE)
        given = 0
        while not state.is_over() and given < PER_GAME and len(state.legal_moves()) >= FEWEST:
            values = solver.exact_values(state, deadline=clock() + 30.0, clock=clock,
                                         free=MAX_FREE)
            if values is None:
                break
            found = one_best({str(g): v for g, v in values.items()}, exact=True)
            if found is not None:
                goal, answers = found
                given += 1
                yield {"options": state.options(), "moves": [str(m) for m in state.moves],
                       "to_move": state.to_move, "goal": goal, "answers": answers,
                       "results": {str(g): result_of(v, True) for g, v in values.items()},
                       "free": len(values),
                       "theme": solver.puzzle_theme(state, state.parse_move(answers[0]))}
            # On down the game: a move that keeps the mover's best result (as players would).
            top = max(values.values())
            state.play(rng.choice([g for g, v in values.items() if v == top]))


# --- the other games: reviewing self-play -------------------------------------------------------

def reviewed_puzzles(name: str, options: dict, seed: int, clock: Callable[[], float]
                     ) -> Iterator[dict]:
    from games.ai import LEVELS, analyse, play_level

    game = games.get_game(name)
    rng = random.Random(seed)
    for _ in range(MAX_GAMES):
        state = game.new_state(**options)
        while not state.is_over() and len(state.moves) < 400:
            state.play(play_level(state, LEVELS[LEVEL], seed=rng.randrange(1 << 30), clock=clock))
        played = list(state.moves)
        positions = []
        for _ in range(min(TAIL, len(played))):
            state.undo()
            positions.append(state.copy())
        given = 0
        for position in positions:   # from the end back
            if len(position.legal_moves()) < FEWEST or given >= PER_GAME:
                continue
            rows = analyse(position, seconds=1e9, seed=seed, iterations=ITERATIONS, clock=clock)
            exact = bool(rows) and rows[0].exact
            values = {str(r.move): r.value for r in rows if r.exact or r.visits}
            found = one_best(values, exact, 1 if exact else MOST)
            if found is None:
                continue
            goal, answers = found
            given += 1
            yield {"options": position.options(), "moves": [str(m) for m in position.moves],
                   "to_move": position.to_move, "goal": goal, "answers": answers,
                   "results": {m: result_of(v, exact) for m, v in values.items()},
                   "free": len(position.legal_moves()), "theme": "turning-point"}


def make_set(name: str, count: int, *, seed: int = 1, options: dict | None = None,
             clock: Callable[[], float] | None = None) -> dict:
    """A set of `count` puzzles of game `name` (its options: the game's defaults over
    `options`), the same for the same seed; sorted easiest (fewest moves left) first."""
    import time

    from games.ai.tuning import exact_solver

    clock = clock or time.perf_counter
    game = games.get_game(name)
    options = game.new_state(**(options or {})).options()
    solver = exact_solver(game)
    exact = solver is not None
    source = exact_puzzles(name, solver, options, seed, clock) if exact else \
        reviewed_puzzles(name, options, seed, clock)
    found, seen = [], set()
    for puzzle in source:
        key = tuple(puzzle["moves"])
        if key in seen:
            continue
        seen.add(key)
        found.append(puzzle)
        if len(found) >= count:
            break
    found.sort(key=lambda p: (p["free"], len(p["moves"])))
    return {"format": FORMAT, "version": VERSION, "game": name, "seed": seed, "exact": exact,
            "puzzles": found}


# --- reading a set ------------------------------------------------------------------------------

def read_set(text: str, source: str = "<puzzles>") -> dict:
    """A set from its JSON text, every puzzle checked (its position replayed, its answers
    legal there). Raises PuzzleError naming `source`, the puzzle and the key."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PuzzleError(f"{source}: line {exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PuzzleError(f"{source}: not a puzzle set (expected \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise PuzzleError(f"{source}: version {data.get('version')!r}: expected {VERSION}")
    name = data.get("game")
    if name not in games.names():
        raise PuzzleError(f"{source}: game {name!r}: expected one of {', '.join(games.names())}")
    puzzles = data.get("puzzles")
    if not isinstance(puzzles, list) or not puzzles:
        raise PuzzleError(f"{source}: puzzles: expected a list of at least one puzzle")
    for i, puzzle in enumerate(puzzles, 1):
        _check(name, puzzle, f"{source}: puzzle {i}")
    return data


def _check(name: str, puzzle: Any, where: str) -> None:
    if not isinstance(puzzle, dict):
        raise PuzzleError(f"{where}: expected an object")
    for key, kind in (("options", dict), ("moves", list), ("answers", list), ("goal", str)):
        if not isinstance(puzzle.get(key), kind):
            raise PuzzleError(f"{where}: {key}: expected a {kind.__name__}")
    if puzzle["goal"] not in ("win", "draw"):
        raise PuzzleError(f"{where}: goal {puzzle['goal']!r}: expected win or draw")
    state = state_of(name, puzzle, where)
    if state.is_over():
        raise PuzzleError(f"{where}: moves: the game is over there, no move to find")
    if not puzzle["answers"]:
        raise PuzzleError(f"{where}: answers: expected at least one move")
    for answer in puzzle["answers"]:
        try:
            state.copy().play(state.parse_move(str(answer)))
        except games.GameError as exc:
            raise PuzzleError(f"{where}: answers: {answer!r} is not a legal move there "
                              f"({exc})") from None


def state_of(name: str, puzzle: dict, where: str = "puzzle") -> Any:
    """The puzzle's position: its game with its options, its moves played."""
    try:
        state = games.get_game(name).new_state(**puzzle["options"])
    except (games.GameError, TypeError) as exc:
        raise PuzzleError(f"{where}: options: {exc}") from None
    for n, text in enumerate(puzzle["moves"], 1):
        try:
            state.play(state.parse_move(str(text)))
        except games.GameError as exc:
            raise PuzzleError(f"{where}: moves: move {n} {text!r}: {exc}") from None
    return state


def shipped_set(name: str) -> dict:
    """The set shipped for game `name` (games/ai/data/puzzles-<name>.json, made by
    `treeboard puzzles`). Raises PuzzleError when it is missing or damaged."""
    from importlib import resources

    path = resources.files("games.ai.data") / f"puzzles-{name}.json"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise PuzzleError(f"{path}: no puzzle set ships for {name}") from None
    return read_set(text, str(path))

"""The computer player and the hints: exact where it can be, a strong search everywhere else.

    >>> import games, games.ai
    >>> state = games.get_game("tree-planting").new_state(board="2x2")
    >>> move = games.ai.best_move(state, seconds=1.0, seed=1)
    >>> rows = games.ai.analyse(state, seconds=1.0)   # every legal move with its value

A game that declares `exact_solver` (Tree Planting: `games.ai.tree_planting`) is solved
exactly whenever the solver finishes within the budget; otherwise, and for every other game, a
generic MCTS (`games.ai.mcts`) searches through the common game interface.

Pure: no I/O, no threads of its own. The budget is wall time read from an injected clock
(`clock`, default `time.perf_counter`); pass `iterations` as well for a result that depends
only on the seed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from games.ai.mcts import Search, tuning

__all__ = ["best_move", "analyse", "Level", "level", "LEVELS", "MoveValue"]


@dataclass(frozen=True)
class Level:
    """A strength: how long the computer thinks and how much it varies its play."""

    name: str
    seconds: float
    noise: float = 0.0


LEVELS: dict[str, Level] = {
    "easy": Level("easy", 0.3, noise=1.0),
    "medium": Level("medium", 1.0, noise=0.3),
    "hard": Level("hard", 3.0),
    "perfect": Level("perfect", 10.0),
}


def level(text: str) -> Level:
    """The level a seat names: one of LEVELS, or a number of seconds (full strength).
    Raises ValueError naming what is accepted."""
    text = str(text).strip().lower()
    if text in LEVELS:
        return LEVELS[text]
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= 600:
        raise ValueError(f"computer level {text!r}: expected one of {', '.join(LEVELS)} "
                         "or a number of seconds to think (0 < s <= 600)")
    return Level(text, seconds)


@dataclass(frozen=True)
class MoveValue:
    """One legal move and what it is worth to the player making it.

    exact: `value` is the final tree margin (mover minus opponent) under perfect play after
    this move. Otherwise `value` is the search's mean reward in [0, 1] (1: a sure win) over
    `visits` simulations."""

    move: Any
    value: float
    exact: bool
    visits: int = 0


#: The exact solver is tried when at most this many grooves are free (a 3x3 board from empty
#: takes about a second here), or when the board's opening book holds the position
#: (`games.ai.book`); otherwise the MCTS gets the whole budget.
EXACT_FREE_GROOVES = 24
#: The share of the budget the exact solver may use before the MCTS takes over.
EXACT_SHARE = 0.6


def _exact(state: Any, deadline: float, clock: Callable[[], float], *, only_best: bool = False):
    """Move -> final margin for the mover, or None when no exact solver applies, the position
    is too large for it, or it runs out of time. With `only_best`, just the best moves (each
    other move needs only a null-window test, not its exact value; the first found will do)."""
    if not state.game.exact_solver or state.is_over():
        return None
    from games.ai.tree_planting import OutOfTime, solver_for

    solver = solver_for(state.board)
    edges = state.position_key()[0]
    if len(state.legal_moves()) > EXACT_FREE_GROOVES and not solver.in_book(edges):
        return None
    a, b = state.scores()
    so_far = a - b if state.to_move == 0 else b - a
    try:
        if only_best:
            value, best = solver.best_moves(edges, first_only=True, deadline=deadline,
                                            clock=clock)
            values = dict.fromkeys(best, value)
        else:
            values = solver.move_values(edges, deadline=deadline, clock=clock)
    except OutOfTime:
        return None
    grooves = state.board.grooves
    return {grooves[g]: so_far + v for g, v in values.items()}


def analyse(state: Any, *, seconds: float, seed: int | None = None,
            iterations: int | None = None,
            clock: Callable[[], float] = time.perf_counter) -> list[MoveValue]:
    """Every legal move with its value for the player to move, best first."""
    if state.is_over():
        return []
    start = clock()
    exact = _exact(state, start + seconds * EXACT_SHARE, clock)
    if exact is not None:
        rows = [MoveValue(m, v, True) for m, v in exact.items()]
        rows.sort(key=lambda r: (-r.value, str(r.move)))
        return rows
    search = Search(state, seed=seed, **tuning(state))
    search.run(seconds=max(0.0, seconds - (clock() - start)), iterations=iterations, clock=clock)
    return [MoveValue(m, round(w, 4), False, n) for m, n, w in search.stats()]


def best_move(state: Any, *, seconds: float, seed: int | None = None, noise: float = 0.0,
              iterations: int | None = None,
              clock: Callable[[], float] = time.perf_counter) -> Any:
    """The move the computer plays. With noise 0 and an exact value, a best move (the first
    the solver proves best: the others need not be searched)."""
    if state.is_over():
        raise ValueError("the game is over: there is no move to play")
    legal = state.legal_moves()
    if len(legal) == 1:
        return legal[0]  # nothing to think about (a forced pass, say): answer at once
    start = clock()
    exact = _exact(state, start + seconds * EXACT_SHARE, clock, only_best=noise <= 0)
    if exact is not None:
        import random

        top = max(exact.values())
        if noise > 0:
            # Weaker play: sometimes a move one or two trees worse than the best.
            rng = random.Random(seed)
            keep = [m for m, v in exact.items() if v >= top - round(2 * noise)]
            return rng.choice(sorted(keep, key=str))
        best = sorted((m for m, v in exact.items() if v == top), key=lambda g: g.index)
        return best[0] if seed is None else random.Random(seed).choice(best)
    search = Search(state, seed=seed, **tuning(state))
    search.run(seconds=max(0.0, seconds - (clock() - start)), iterations=iterations, clock=clock)
    return search.best(noise)

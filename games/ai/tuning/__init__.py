"""How the computer plays each game: one table per game, the defaults here.

A game's table is `games/ai/tuning/<module>.py`, where <module> is the game's registry name
with dashes as underscores (as its view's is): a subclass of `Tuning` that sets what the
measurements chose for that game, and `TUNING`, its instance. It is found by that name
(`of`), so adding a game adds its file here and changes nothing else; a game without one
plays with the defaults. The rules modules (games/<game>.py) say what a game is; how hard
the computer searches it, how its beginner glances and which exact solver it has are said
here, and why (every measurement behind a number) in docs/ai.md.

Pure: no I/O. May import: games.ai's own modules (a table names its solver's module, which
is imported only when it is asked for).
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any, ClassVar, Mapping


class Tuning:
    """The defaults: what a game's table does not set, the computer plays this way."""

    #: How many of the search's iterations make one unit of a level's effort (games.ai.LEVELS;
    #: docs/ai.md, "Levels"): a game whose iterations are very cheap needs many more of them
    #: for the same strength.
    search_effort: ClassVar[int] = 1
    #: Keyword options of the generic search for this game (`games.ai.mcts.Search`: widening,
    #: prior, prior_bias, safe_root, playout_cap, playout_options, ...); {}: the defaults.
    search_options: ClassVar[Mapping[str, Any]] = {}
    #: This game's own effort for some levels, where the ladder measured the common levels'
    #: steps (games.ai.LEVELS) too large or too small for it: level name -> {"iterations": N,
    #: "exact_free": M, "slips": S, "search": {OPTION: VALUE}} (any of the keys), which
    #: replace that level's common values in this game (the iterations are still times
    #: `search_effort`; "slips": the share of moves a glance plays instead of the search;
    #: "search": options of the search over `search_options`, for that level only). {}: the
    #: common levels. `games.ai.game_level` applies it.
    level_effort: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: How this game's beginner glances (`games.ai.glance_move`), where the common glance
    #: plays too weak or too strong for it: {"miss": M, "answer": A} (either key). "miss": the
    #: share of gains overlooked (default `games.ai.GLANCE_MISS`); "answer": the share of
    #: glances that also see the opponent's answer, one move deep (the most the opponent gains
    #: at once after each move: a square handed over, a recapture), and avoid what gives it
    #: (default 0: never). {}: the common glance. `games.ai.game_glance` reads it.
    glance: ClassVar[Mapping[str, float]] = {}
    #: The module of this game's exact solver (games/ai/<module>.py), or None: the search alone
    #: plays and hints. `games.ai` and `treeboard solve` ask such a module only this:
    #: `exact_values(state, deadline=, clock=, only_best=, free=)`, move -> the final margin
    #: for the mover under perfect play, in the order the computer draws a best move from,
    #: or None where it gives no answer (a position beyond
    #: its reach, more than `free` moves left, out of time); `out_of_reach(state)`, why no
    #: exact answer can be had however long it runs, or None; `solve(state, deadline=,
    #: clock=)`, (the margin for the player to move, the best moves), raising `OutOfTime`
    #: (saying how much was left) past the deadline and `BookError` when data it ships is
    #: missing or damaged; `search_core(state)`, which search answers it ("compiled" or
    #: "python", for `treeboard solve`'s JSON). And for puzzles (games/ai/puzzles.py): `walk_to_endgame(state, rng,
    #: free)`, a game played on until at most `free` moves are left; `puzzle_theme(state,
    #: move)`, what the one best move teaches (a key of board_driver/views/modes.py's THEMES).
    exact_solver: ClassVar[str | None] = None
    #: The fewest iterations one process's share of a search may have when the search is
    #: spread over several (games.ai.parallel), where the common MIN_SHARE splits this game's
    #: searches into trees too small for their level (a ladder re-played over 3 processes
    #: said so); None: the common one.
    min_share: ClassVar[int | None] = None


_tables: dict[str, Tuning] = {}


def of(game: Any) -> Tuning:
    """`game`'s table (`games/ai/tuning/<module>.py`'s `TUNING`), or the defaults for a game
    without one."""
    table = _tables.get(game.name)
    if table is None:
        module = f"{__name__}.{game.name.replace('-', '_')}"
        found = importlib.util.find_spec(module) is not None
        table = _tables[game.name] = importlib.import_module(module).TUNING if found else Tuning()
    return table


def exact_solver(game: Any) -> ModuleType | None:
    """The module of `game`'s exact solver (`Tuning.exact_solver`), imported on the first
    question; None for a game without one."""
    name = of(game).exact_solver
    return None if name is None else importlib.import_module(name)

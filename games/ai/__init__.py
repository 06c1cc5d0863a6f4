"""The computer player and the hints: exact where it can be, a strong search everywhere else.

    >>> import games, games.ai
    >>> state = games.get_game("tree-planting").new_state(board="2x2")
    >>> move = games.ai.best_move(state, seconds=1.0, seed=1)
    >>> rows = games.ai.analyse(state, seconds=1.0)   # every legal move with its value

A game whose table (`games.ai.tuning`) names an exact solver is solved exactly whenever the
solver finishes within the budget; otherwise, and for every other game, a generic MCTS
(`games.ai.mcts`) searches through the common game interface. How hard each level searches a
game, how its beginner glances and the search's options are the game's table's, read here.

Pure: no I/O, no threads of its own. The budget is wall time read from an injected clock
(`clock`, default `time.perf_counter`); pass `iterations` as well for a result that depends
only on the seed.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from games.ai import tuning
from games.ai.mcts import Search, search_options

__all__ = ["best_move", "analyse", "play_level", "think_level", "level_search", "Thought",
           "game_level", "game_glance", "glance_move", "Level", "level", "LEVELS", "ALIASES",
           "MoveValue", "ratings", "level_label"]


@dataclass(frozen=True)
class Level:
    """A strength, defined by search effort so that a slow Pi plays the same opponent as a fast
    machine: `iterations` of the search a move, times the game's `search_effort` (None: as
    many as `seconds` allow; 0: no search, a glance), with `seconds` only a cap on the wall
    time (where a slow core reaches it, that level plays a little weaker than its rating).
    `exact`: the game's exact solver, where it has one, may answer. `slips`: the share of
    moves a beginner plays from a glance instead of the search (`glance_move`: the mistakes
    people make). `noise` > 0: a move drawn by its visits instead of the most visited (kept
    for a level given as seconds)."""

    name: str
    seconds: float
    noise: float = 0.0
    iterations: int | None = None
    exact: bool = True
    slips: float = 0.0
    #: With `exact`: the solver answers only when at most this many moves are free (the
    #: endgame it sees to the end), None: wherever it finishes (the whole board with a book).
    exact_free: int | None = None
    #: Search options for this level over the game's own (its table's `search_options`), as
    #: (name, value) pairs: how a game's level spends its effort, where the ladder measured
    #: it better so (its table's `level_effort`, "search"). (): the game's own.
    search: tuple[tuple[str, Any], ...] = ()


#: The ladder, weakest first (docs/ai.md has each level's rating per game, measured by
#: `benchmarks/strength.py ladder`). `beginner` does not search: every move is a glance
#: (`glance_move`), with a person's mistakes. From `easy` up, each level searches four times
#: as much as the one below, and in a game with an exact solver sees the endgame exactly
#: from three more free moves on (the solver's effort grows with them).
LEVELS: dict[str, Level] = {
    "beginner": Level("beginner", 5.0, iterations=0, exact=False, slips=1.0),
    "easy": Level("easy", 10.0, iterations=40, exact_free=12),
    "medium": Level("medium", 20.0, iterations=160, exact_free=15),
    "hard": Level("hard", 30.0, iterations=640, exact_free=18),
    "strongest": Level("strongest", 60.0, iterations=2560),
}
#: Names from before the ladder, still accepted: the old top level is the strongest.
ALIASES: dict[str, str] = {"perfect": "strongest"}


def level(text: str) -> Level:
    """The level a seat names: one of LEVELS (or an old name in ALIASES), or a number of
    seconds (full strength: as many iterations as the time allows). Raises ValueError naming
    what is accepted."""
    text = str(text).strip().lower()
    text = ALIASES.get(text, text)
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


#: Where `benchmarks/strength.py ladder --write` keeps the ratings (shipped in the wheel).
RATINGS_FILE = Path(__file__).parent / "data" / "ratings.json"


def ratings(game_name: str) -> dict[str, dict[str, Any]]:
    """Level -> {"rating", "ci95"} for a game, as `benchmarks/strength.py ladder --write`
    measured them (Elo, a greedy player 1000); {} for a game not measured yet. Raises
    ValueError naming the file when it is not the JSON the ladder writes."""
    path = RATINGS_FILE
    try:
        stat = path.stat()
        table = _ratings_table(path, stat.st_mtime_ns, stat.st_size)
    except FileNotFoundError:
        return {}
    entry = table.get(game_name, {}).get("ratings", {}) if isinstance(table, dict) else None
    if not isinstance(entry, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("rating"), (int, float))
            for v in entry.values()):
        raise ValueError(f"{path}: {game_name}: expected ratings as "
                         '{"LEVEL": {"rating": N, "ci95": [LO, HI]}}')
    return {name: entry[name] for name in LEVELS if name in entry}


@lru_cache(maxsize=4)
def _ratings_table(path: Path, mtime_ns: int, size: int) -> Any:
    """The ratings file's JSON, read once per version of the file (the page asks at every
    change)."""
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: expected the JSON benchmarks/strength.py ladder writes: "
                         f"{exc}") from None


def level_label(game_name: str, name: str) -> str:
    """A level as a person reads it beside its name: "easy (1180)", or just "easy"."""
    rated = ratings(game_name).get(name)
    return name if rated is None else f"{name} ({round(rated['rating'])})"


#: The share of gains a glance overlooks (a beginner's missed capture), where a game's table
#: does not say otherwise (docs/ai.md, "Levels", how it was chosen).
GLANCE_MISS = 0.1


def glance_move(state: Any, rng: Any, *, miss: float = GLANCE_MISS, answer: float = 0.0) -> Any:
    """A beginner's move: what a person sees at a glance. The mover's own gain right after
    each move (the score margin, `greedy_prior`; not the game's prior, whose strategy a
    beginner does not have: docs/ai.md, "Levels"), and, unless `answer` says otherwise, no
    thought of the opponent's answer (a two-move threat unseen). Gains of one size (a power of
    ten above the least: a capture in Fangqi, a closed square in Tree Planting) are overlooked
    together with probability `miss`, as a person misses a capture, not one of its variants.
    With probability `answer` (a game's own glance, its table's `glance`; 0 by default) the
    glance also looks one move further, as someone told once to mind it: each move that hands the
    turn over counts the most the opponent then gains at once (a square handed over in Tree
    Planting; never what follows it, a chain), and a move that hands nothing over goes first.
    Ties, and everything overlooked, at random."""
    import math

    from games.ai.mcts import greedy_prior

    moves = list(state.legal_moves())
    rng.shuffle(moves)
    guess = greedy_prior(state, moves)
    base = min(guess)
    sizes = {g: int(math.log10(g - base)) if g - base >= 1 else None for g in set(guess)}
    overlooked = {size for size in sorted(set(sizes.values()) - {None})
                  if rng.random() < miss}
    seen = [base if sizes[g] in overlooked else g for g in guess]
    if answer > 0 and rng.random() < answer:  # no draw at 0: the common glance is unchanged
        me = state.to_move
        for i, m in enumerate(moves):
            state.play(m)
            if not state.is_over() and state.to_move != me:
                # The opponent's margin is now -guess[i]; its best move at once gains this.
                gains = max(greedy_prior(state, list(state.legal_moves()))) + guess[i]
                seen[i] -= max(0, gains)
            state.undo()
    return moves[max(range(len(moves)), key=seen.__getitem__)]


#: What a game's own glance (its table's `glance`) may set: glance_move's keyword arguments.
GLANCE_KEYS = ("miss", "answer")


def game_glance(game: Any) -> dict[str, float]:
    """`glance_move`'s keyword arguments as `game`'s beginner glances (its table's `glance`;
    {}: the common glance). Raises ValueError naming the game and the key it does not know,
    or the value that is not a share from 0 to 1."""
    own = dict(tuning.of(game).glance)
    unknown = set(own) - set(GLANCE_KEYS)
    if unknown:
        raise ValueError(f"{game.name}: glance names {sorted(unknown)[0]!r}: "
                         "expected only 'miss' and 'answer'")
    for key, value in own.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"{game.name}: glance[{key!r}] is {value!r}: "
                             "expected a share from 0 to 1")
    return own


#: The options a level's "search" may name (a table's `level_effort`): the Search's own
#: keywords, read once here rather than at every move.
SEARCH_OPTIONS = frozenset(inspect.signature(Search).parameters) - {"state", "seed"}


def game_level(game: Any, lvl: Level) -> Level:
    """Level `lvl` as `game` plays it: the common level, or with the game's own effort for it
    (its table's `level_effort`) where the table declares one. A level given as seconds is the
    same everywhere. Raises ValueError naming the game and the key it does not know."""
    from dataclasses import replace

    # A named level with another cap (the board's seat gives a timed game's clock share,
    # seats.think_seconds) is still that level: its effort is the game's own.
    base = LEVELS.get(lvl.name)
    named = base is not None and replace(lvl, seconds=base.seconds) == base
    own = tuning.of(game).level_effort.get(lvl.name) if named else None
    if not own:
        return lvl
    unknown = set(own) - {"iterations", "exact_free", "slips", "search"}
    if unknown:
        raise ValueError(f"{game.name}: level_effort[{lvl.name!r}] names {sorted(unknown)[0]!r}: "
                         "expected only 'iterations', 'exact_free', 'slips' and 'search'")
    own = dict(own)
    slips = own.get("slips", 0)
    if isinstance(slips, bool) or not isinstance(slips, (int, float)) or not 0 <= slips <= 1:
        raise ValueError(f"{game.name}: level_effort[{lvl.name!r}]['slips'] is {slips!r}: "
                         "expected a share from 0 to 1")
    if "search" in own:
        unknown = set(own["search"]) - SEARCH_OPTIONS
        if unknown:
            raise ValueError(f"{game.name}: level_effort[{lvl.name!r}]['search'] names "
                             f"{sorted(unknown)[0]!r}: expected search options "
                             f"({', '.join(sorted(SEARCH_OPTIONS))})")
        own["search"] = tuple(sorted(own["search"].items()))
    return replace(lvl, **own)


def play_level(state: Any, lvl: Level, *, seed: int | None = None,
               clock: Callable[[], float] = time.perf_counter) -> Any:
    """The move the computer plays at level `lvl` (as its game plays it, `game_level`): its
    search effort, its slips (a glance as the game's beginner glances, `game_glance`)."""
    return think_level(state, lvl, seed=seed, clock=clock).move


@dataclass(frozen=True)
class Thought:
    """A level's move and the effort behind it: `iterations` the search did of the `wanted`
    (None: no search, or a level given as seconds). `limited`: the wall-time cap cut the
    search short of its level's effort, so the move is weaker than the level's rating."""

    move: Any
    iterations: int = 0
    wanted: int | None = None

    @property
    def limited(self) -> bool:
        return self.wanted is not None and self.iterations < self.wanted


def level_search(state: Any, lvl: Level, seed: int | None) -> tuple[Any, ...]:
    """How level `lvl` answers at `state` with `seed`: ("glance", move) for a slip, else
    ("search", the level as the game plays it, the search's seed, its iterations (None: as
    many as the cap allows), its options). One place for `think_level` and pondering
    (games/ai/ponder.py), so that a pondered search is the one the level would run."""
    import random

    lvl = game_level(state.game, lvl)
    if lvl.slips > 0 and not state.is_over() and len(state.legal_moves()) > 1:
        rng = random.Random(seed)
        if lvl.slips >= 1 or rng.random() < lvl.slips:
            return "glance", glance_move(state, rng, **game_glance(state.game))
        seed = rng.randrange(1 << 30)
    effort = tuning.of(state.game).search_effort
    iterations = None if lvl.iterations is None else lvl.iterations * effort
    return "search", lvl, seed, iterations, {**search_options(state), **dict(lvl.search)}


def think_level(state: Any, lvl: Level, *, seed: int | None = None,
                clock: Callable[[], float] = time.perf_counter, pool: Any = None,
                processes: int = 1, pondered: Any = None) -> Thought:
    """`play_level`, saying whether the level's effort was done (`Thought.limited`). With
    `processes` > 1 and a `pool` (an Executor of processes), the search is spread over that
    many processes, the level's iterations in all (`games.ai.parallel`). `pondered`: a
    `games.ai.ponder.Ponder` whose search of this position (begun while the opponent
    thought) is continued to the level's iterations instead of starting afresh."""
    plan = level_search(state, lvl, seed)
    if plan[0] == "glance":
        return Thought(plan[1])
    _, lvl, seed, iterations, _ = plan
    done: list[int] = []
    move = best_move(state, seconds=lvl.seconds, seed=seed, noise=lvl.noise,
                     iterations=iterations, exact=lvl.exact, exact_free=lvl.exact_free,
                     search=dict(lvl.search), clock=clock, done=done, pool=pool,
                     processes=processes, pondered=pondered)
    return Thought(move, done[0], iterations) if done else Thought(move)


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


#: The share of the budget the exact solver may use before the MCTS takes over.
EXACT_SHARE = 0.6


def _exact(state: Any, deadline: float, clock: Callable[[], float], *, only_best: bool = False,
           free: int | None = None):
    """Move -> final margin for the mover, or None when no exact solver applies, the position
    is too large for it, or it runs out of time. With `only_best`, just the best moves (each
    other move needs only a null-window test, not its exact value; the first found will do).
    `free`: only with at most that many moves left (a level's endgame)."""
    solver = tuning.exact_solver(state.game)
    if solver is None or state.is_over():
        return None
    return solver.exact_values(state, deadline=deadline, clock=clock, only_best=only_best,
                               free=free)


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
    search = Search(state, seed=seed, **search_options(state))
    search.run(seconds=max(0.0, seconds - (clock() - start)), iterations=iterations, clock=clock)
    return [MoveValue(m, round(w, 4), False, n) for m, n, w in search.stats()]


def best_move(state: Any, *, seconds: float, seed: int | None = None, noise: float = 0.0,
              iterations: int | None = None, exact: bool = True, exact_free: int | None = None,
              search: dict[str, Any] | None = None,
              clock: Callable[[], float] = time.perf_counter, done: list | None = None,
              pool: Any = None, processes: int = 1, pondered: Any = None) -> Any:
    """The move the computer plays. With noise 0 and an exact value, a best move (the first
    the solver proves best: the others need not be searched). `exact` False: the search
    only (a level below the strongest), `iterations` its effort, `search` options over the
    game's own (a level's: `Level.search`). `done`: a list that gets the iterations the
    search did (nothing when no search ran: one legal move, or the exact solver answered).
    `pool`, `processes`: a search of fixed `iterations` spread over that many processes
    (`games.ai.parallel.root_parallel`; one process: this search itself). `pondered`: a
    Ponder that may hold this very search begun earlier (same position, seed, options and
    budget; with several processes, its shares): it is continued, its iterations counting
    toward `iterations`."""
    if state.is_over():
        raise ValueError("the game is over: there is no move to play")
    legal = state.legal_moves()
    if len(legal) == 1:
        return legal[0]  # nothing to think about (a forced pass, say): answer at once
    start = clock()
    exact = _exact(state, start + seconds * EXACT_SHARE, clock, only_best=noise <= 0,
                   free=exact_free) if exact else None
    if exact is not None:
        import random

        top = max(exact.values())
        if noise > 0:
            # Weaker play: sometimes a move one or two trees worse than the best.
            rng = random.Random(seed)
            keep = [m for m, v in exact.items() if v >= top - round(2 * noise)]
            return rng.choice(sorted(keep, key=str))
        best = [m for m, v in exact.items() if v == top]  # in the solver's order
        return best[0] if seed is None else random.Random(seed).choice(best)
    options = {**search_options(state), **(search or {})}
    from games.ai.parallel import root_parallel, spread

    processes = spread(iterations, processes, noise, tuning.of(state.game).min_share)
    if pool is not None and processes > 1:
        move, ran = root_parallel(state, seconds=max(0.0, seconds - (clock() - start)),
                                  seed=seed, iterations=iterations, options=options,
                                  pool=pool, processes=processes, clock=clock,
                                  pondered=pondered)
        if done is not None:
            done.append(ran)
        return move
    searcher = pondered.take(state, seed, options, iterations) if pondered is not None else None
    if searcher is None:
        searcher = Search(state, seed=seed, **options)
    left = None if iterations is None else max(0, iterations - searcher.iterations)
    searcher.run(seconds=max(0.0, seconds - (clock() - start)), iterations=left, clock=clock)
    if done is not None:
        done.append(searcher.iterations)   # (with what pondering did before)
    return searcher.best(noise)

"""Root parallelism: one level's search spread over several processes, its effort unchanged.

Each process searches its own tree from the same position with its own seed and a share of
the level's iterations (the shares add up to exactly the level's); their roots' visits and
rewards are added move by move, and the most visited move is played (ties: the first
process's prior order, as `Search.best` breaks them). With one process it is the plain search,
the same move for the same seed. With several the trees are smaller and independent (root
parallelism, Chaslot, Winands & van den Herik 2008): the same effort, not the same search,
so a level's play there is its own (docs/ai.md, "Several processes").

The processes are an Executor's (the seat's worker keeps one, `pool`); this module starts
none itself.
"""

from __future__ import annotations

import random
import time
from concurrent.futures import Executor
from typing import Any, Callable


#: The fewest iterations a process's share may have: a search smaller than MIN_SHARE * 2 is
#: not spread. Small trees searched apart play weaker than one tree of their sum (Treeblox's
#: `medium` against `easy`, 64 and 10 iterations, over 3 processes: 0.617 over 64 games, one
#: process 0.734; docs/ai.md), and such a search is quick on one core anyway.
MIN_SHARE = 128


def spread(iterations: int | None, processes: int, noise: float = 0.0,
           min_share: int | None = None) -> int:
    """How many processes a search of `iterations` is spread over when `processes` may be
    used: 1 (the plain search) for a search without an iteration budget, with noise, or too
    small to give every process `min_share` iterations (the game's table's, games/ai/tuning;
    MIN_SHARE when it sets none)."""
    if not iterations or noise > 0:
        return 1
    return max(1, min(processes, iterations // (min_share or MIN_SHARE)))


def shares(iterations: int, processes: int) -> list[int]:
    """`iterations` split over `processes` as evenly as can be (the first ones one more): they
    add up to exactly `iterations`; no process gets none while there are iterations."""
    processes = max(1, min(processes, iterations))
    base, extra = divmod(iterations, processes)
    return [base + (k < extra) for k in range(processes)]


def seeds(seed: int | None, processes: int) -> list[int | None]:
    """Each process's seed: the first the search's own (one process plays as the plain search),
    the others drawn from it."""
    if seed is None:
        return [None] * processes
    rng = random.Random(seed)
    return [seed] + [rng.randrange(1 << 30) for _ in range(processes - 1)]


def search_share(saved: str, seed: int | None, iterations: int, seconds: float,
                 options: dict[str, Any]) -> tuple[list[str], list[int], list[float], int]:
    """In a process: one share of the search. The root's moves (as text, its prior order),
    their visits and total rewards, and the iterations done (fewer: the cap cut it)."""
    import games
    from games.ai.mcts import Search

    search = Search(games.load_state(saved), seed=seed, **options)
    search.run(seconds=seconds, iterations=iterations)
    return _answer(search)


def _answer(search: Any) -> tuple[list[str], list[int], list[float], int]:
    root = search.root
    return [str(m) for m in root.moves], list(root.n), list(root.w), search.iterations


def sent_away(left: list[int], parts: list[int]) -> list[int]:
    """Which shares (by index, never the first) the helpers search afresh when this process
    holds pondered shares with `left` iterations still to do each (a share not pondered: its
    whole part): the choice that answers soonest, this process finishing the others. A share
    searched afresh from its seed is the very search continued here, so the choice changes
    the time only, never the answer. Nothing pondered: every share but the first."""
    rest = sorted(range(1, len(parts)), key=lambda i: -left[i])
    best, cost = 0, float("inf")
    for j in range(len(rest) + 1):
        here = left[0] + sum(left[i] for i in rest[j:])
        there = max((parts[i] for i in rest[:j]), default=0)
        if max(here, there) < cost:
            best, cost = j, max(here, there)
    return sorted(rest[:best])


def root_parallel(state: Any, *, seconds: float, seed: int | None, iterations: int,
                  options: dict[str, Any], pool: Executor, processes: int,
                  clock: Callable[[], float] = time.perf_counter,
                  pondered: Any = None) -> tuple[Any, int]:
    """The move of a search of `iterations` spread over `processes` (this one and
    `processes - 1` of `pool`'s), and the iterations done in all (the level's, unless the
    `seconds` cap cut a share short). `pondered`: a `games.ai.ponder.Ponder` that may hold
    shares of this very search begun earlier (pondered with as many processes): each is
    continued to its share, here, and the helpers search the others (`sent_away`)."""
    from games.ai.mcts import Search

    parts = shares(iterations, processes)
    saved = state.to_json()
    start = clock()
    firsts = seeds(seed, len(parts))
    begun = [None if pondered is None else pondered.take(state, s, options, n)
             for s, n in zip(firsts, parts)]
    left = [n - (b.iterations if b is not None else 0) for b, n in zip(begun, parts)]
    away = sent_away(left, parts)
    futures = {i: pool.submit(search_share, saved, firsts[i], parts[i], seconds, options)
               for i in away}
    answers = {}
    for i in range(len(parts)):
        if i in futures:
            continue
        search = begun[i] or Search(state, seed=firsts[i], **options)
        search.run(seconds=max(0.0, seconds - (clock() - start)), iterations=left[i],
                   clock=clock)
        answers[i] = _answer(search)
    answers.update((i, f.result()) for i, f in futures.items())
    visits: dict[str, int] = {}
    for moves, n, _, _ in answers.values():
        for m, k in zip(moves, n):
            visits[m] = visits.get(m, 0) + k
    order = answers[0][0]   # the first process's prior order breaks ties
    most = max(visits.values())
    best = next(m for m in order if visits[m] == most)
    return state.parse_move(best), sum(a[3] for a in answers.values())

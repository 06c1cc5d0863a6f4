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

    state = games.load_state(saved)
    search = Search(state, seed=seed, **options)
    done = search.run(seconds=seconds, iterations=iterations)
    root = search.root
    return [str(m) for m in root.moves], list(root.n), list(root.w), done


def root_parallel(state: Any, *, seconds: float, seed: int | None, iterations: int,
                  options: dict[str, Any], pool: Executor, processes: int,
                  clock: Callable[[], float] = time.perf_counter) -> tuple[Any, int]:
    """The move of a search of `iterations` spread over `processes` (this one and
    `processes - 1` of `pool`'s), and the iterations done in all (the level's, unless the
    `seconds` cap cut a share short)."""
    parts = shares(iterations, processes)
    saved = state.to_json()
    start = clock()
    firsts = seeds(seed, len(parts))
    futures = [pool.submit(search_share, saved, s, n, seconds, options)
               for s, n in zip(firsts[1:], parts[1:])]
    answers = [search_share(saved, firsts[0], parts[0],
                            max(0.0, seconds - (clock() - start)), options)]
    answers += [f.result() for f in futures]
    visits: dict[str, int] = {}
    for moves, n, _, _ in answers:
        for m, k in zip(moves, n):
            visits[m] = visits.get(m, 0) + k
    order = answers[0][0]   # the first process's prior order breaks ties
    most = max(visits.values())
    best = next(m for m in order if visits[m] == most)
    return state.parse_move(best), sum(a[3] for a in answers)

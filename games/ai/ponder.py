"""Thinking while the family thinks: the searches of the positions after the opponent's likely
replies, begun before the reply is made, and continued when it is.

The level stays a fixed effort. A pondered search is the very search the level would run at
that position (`games.ai.level_search`: the same seed, options and iteration budget), only
begun earlier: MCTS iterations run one after another from one random generator, so a search
run as 30 + 610 iterations is the search run as 640 (its tree, its answer, move for move:
tests/games/test_ai_ponder.py). When the reply comes, `think_level(..., pondered=...)` takes
its search and runs only the iterations still missing; a reply not pondered is searched
afresh. Pondering never goes beyond a level's budget, so it makes the answer come sooner,
never stronger or weaker. (A level given as seconds, a search without an iteration budget,
is not pondered: its effort is its time.)

With several processes (`computer_processes`) the level's search is root parallel
(games/ai/parallel.py): each process searches its own share of the iterations from its own
seed. Pondering then begins every share (`Ponder(processes)`), one after another in the
worker; when the reply comes, the shares begun are continued in the worker and the helpers
search the others afresh (`parallel.sent_away` chooses which, for the sooner answer). A share
is the same search wherever it runs, so the answer and the effort are the parallel search's
(tests/games/test_ai_ponder.py).

Not the subtree of the move played (tree reuse): a subtree grown under the previous root was
shaped by that root's choices (its visits are not a fresh search's), which would change the
level's play; the pondered searches are fresh searches of the actual position instead.

Pure: no I/O, no threads; `step` works for the time it is given, by an injected clock.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any, Callable

from games.ai import tuning
from games.ai.mcts import Search

#: How many replies are pondered at once (the most likely first), and how many searches are
#: kept at most (older ones dropped first; times the processes, whose shares are each a
#: search of a share of the iterations): a bound on the worker's memory.
REPLIES = 3
KEPT = 6
#: The quick search that guesses the likely replies: this many iterations at most.
GUESS_ITERATIONS = 64


def key(state: Any, seed: int | None, options: dict[str, Any], budget: int) -> tuple:
    """What makes two searches the same: the position, the seed, the options, the budget (a
    share of a parallel search is not the whole search, though the first has its seed)."""
    return state.to_json(), seed, repr(sorted(options.items())), budget


class Ponder:
    """The pondered searches, each with its budget. One owner: the worker's thread.
    `processes`: the level's search will be spread over that many (computer_processes), so
    its shares are pondered (games/ai/parallel.py)."""

    def __init__(self, processes: int = 1) -> None:
        self.processes = max(1, processes)
        self._searches: OrderedDict[tuple, tuple[Search, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._searches)

    def start(self, state: Any, lvl: Any, seed: int | None) -> bool:
        """Begin the search level `lvl` would run at `state` with `seed` (the seed its
        `think_level` will be given); False when the level would not search there with an
        iteration budget (a glance, a level given as seconds, a game over, one legal move)."""
        from games.ai import level_search
        from games.ai.parallel import seeds, shares, spread

        if state.is_over() or len(state.legal_moves()) < 2:
            return False
        plan = level_search(state, lvl, seed)
        if plan[0] != "search" or plan[3] is None:
            return False
        _, lvl, seed, iterations, options = plan
        budgets = [(seed, iterations)]
        processes = spread(iterations, self.processes, lvl.noise,   # (as best_move spreads)
                           tuning.of(state.game).min_share)
        if processes > 1:
            parts = shares(iterations, processes)
            budgets = list(zip(seeds(seed, len(parts)), parts))
        for s, n in budgets:
            k = key(state, s, options, n)
            if k not in self._searches:
                search = Search(state, seed=s, **options)
                # Its root's order as a fresh search with its whole cap would make it (the
                # ordering's time is half the first run's budget): no time cut here.
                search.run(seconds=1e9, iterations=0)
                self._searches[k] = (search, n)
        while len(self._searches) > KEPT * self.processes:
            self._searches.popitem(last=False)
        return True

    def step(self, seconds: float, clock: Callable[[], float] = time.perf_counter) -> bool:
        """Advance the searches not yet at their budget, a few iterations each in turn, for
        about `seconds`; True while some search still has iterations to do."""
        deadline = clock() + seconds
        while True:
            busy = [(s, n) for s, n in self._searches.values() if s.iterations < n]
            if not busy:
                return False
            for search, budget in busy:
                if clock() >= deadline:
                    return True
                search.run(seconds=1e9, iterations=min(8, budget - search.iterations))

    def take(self, state: Any, seed: int | None, options: dict[str, Any],
             budget: int | None) -> Search | None:
        """The pondered search of this position, seed, options and budget (removed), or
        None."""
        if budget is None:
            return None   # (a search without an iteration budget is never pondered)
        found = self._searches.pop(key(state, seed, options, budget), None)
        return None if found is None else found[0]


def likely_replies(state: Any, options: dict[str, Any], seed: int | None,
                   count: int = REPLIES) -> list:
    """The opponent's most likely replies at `state` (the mover's): the most visited moves of
    a quick search with the game's options."""
    search = Search(state, seed=seed, **options)
    search.run(seconds=1e9, iterations=GUESS_ITERATIONS)
    return [m for m, n, _ in search.stats()[:count] if n]

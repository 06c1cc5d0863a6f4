"""Thinking while the family thinks (games/ai/ponder.py): a pondered search is the level's own
search begun earlier, so the answer and the effort are exactly a fresh search's."""

from __future__ import annotations

import dataclasses
import itertools
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor

import pytest

import games
import games.ai
from board_driver.referee import seats
from games.ai.ponder import Ponder


def _position():
    state = games.get_game("treeblox").new_state()
    state.play_all(["La1", "Ld4", "Lb2"])
    return state


def ticks():
    """A clock that advances one second at every reading: `step(n)` runs about n slices."""
    count = itertools.count()
    return lambda: float(next(count))


def test_a_pondered_search_answers_as_a_fresh_one_with_exactly_the_level_s_effort():
    state = _position()
    hard = games.ai.LEVELS["hard"]
    for seed in (1, 2, 3):
        fresh = games.ai.think_level(state, hard, seed=seed)
        ahead = Ponder()
        assert ahead.start(state, hard, seed)
        assert ahead.step(5, clock=ticks())   # a few slices: more to do
        _, lvl, s, iterations, options = games.ai.level_search(state, hard, seed)
        begun = ahead._searches[next(iter(ahead._searches))][0].iterations
        assert 0 < begun < iterations == 640
        thought = games.ai.think_level(state, hard, seed=seed, pondered=ahead)
        assert len(ahead) == 0   # taken
        assert thought.iterations == thought.wanted == 640 and not thought.limited
        assert str(thought.move) == str(fresh.move)


def test_pondering_stops_at_the_budget_and_the_answer_then_costs_no_iteration():
    state = _position()
    medium = games.ai.LEVELS["medium"]   # Treeblox's own: 64 iterations
    ahead = Ponder()
    assert ahead.start(state, medium, 7)
    while ahead.step(1000, clock=ticks()):
        pass
    search = ahead._searches[next(iter(ahead._searches))][0]
    assert search.iterations == 64   # never beyond the level's effort
    fresh = games.ai.think_level(state, medium, seed=7)
    thought = games.ai.think_level(state, medium, seed=7, pondered=ahead)
    assert search.iterations == 64 and thought.iterations == 64
    assert str(thought.move) == str(fresh.move)
    assert sorted(search.root.n) == sorted(  # the same tree's root as a fresh search's
        n for _, n, _ in _fresh_stats(state, medium, 7))


def _fresh_stats(state, lvl, seed):
    from games.ai.mcts import Search

    _, _, s, iterations, options = games.ai.level_search(state, lvl, seed)
    search = Search(state, seed=s, **options)
    search.run(seconds=1e9, iterations=iterations)
    return search.stats()


def test_a_glance_or_a_level_in_seconds_is_not_pondered():
    state = _position()
    ahead = Ponder()
    assert not ahead.start(state, games.ai.LEVELS["beginner"], 1)
    assert not ahead.start(state, games.ai.level("2"), 1)
    assert len(ahead) == 0 and not ahead.step(1, clock=ticks())


def _worker_pondering(base, processes):
    """The worker pondered to its end while the person (player 0) is to move against the
    computer (player 1, hard): the position, the level, the worker's Ponder."""
    state = games.get_game("treeblox").new_state()
    state.play_all(["La1", "Ld4"])
    # (a cap no machine reaches: on a slow one, an emulated arm64 Pi, the fresh search at the
    # level's own cap was cut short and chose otherwise; the effort is the point here)
    hard = dataclasses.replace(games.ai.LEVELS["hard"], seconds=3600.0)
    seats._pondering = None
    while seats.ponder(state.to_json(), hard, base, 1, 0.5, processes=processes):
        pass
    return state, hard, seats._pondering[1]


def test_the_worker_ponders_the_likely_replies_and_answers_the_same():
    try:
        state, hard, ahead = _worker_pondering(12345, 1)
        assert len(ahead) >= 1   # the positions after its likely replies
        reply = next(m for m in state.legal_moves()
                     if _pondered(ahead, state, m, hard, 12345, 1))
        state.play(reply)
        saved = state.to_json()
        seed = seats.position_seed(12345, saved)
        move, limited = seats.think(saved, hard, seed)
        assert not limited
        seats._pondering = None
        assert seats.think(saved, hard, seed) == (move, False)   # a fresh search: the same
    finally:
        seats._pondering = None


def _pondered(ahead, state, move, lvl, base, processes):
    """Whether `ahead` holds the search (each share of it) of the position after `move`."""
    from games.ai.parallel import seeds, shares
    from games.ai.ponder import key

    state.play(move)
    try:
        _, _, s, n, options = games.ai.level_search(state, lvl,
                                                    seats.position_seed(base, state.to_json()))
        parts = shares(n, processes) if processes > 1 else [n]
        return all(key(state, k, options, b) in ahead._searches
                   for k, b in zip(seeds(s, len(parts)), parts))
    finally:
        state.undo()


# --- pondering and several processes together (computer_processes > 1) ---------------------


@pytest.fixture(scope="module")
def pool():
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as p:
        yield p


class Counted(Executor):
    """A pool that counts the shares sent to it."""

    def __init__(self, pool):
        self.pool, self.sent = pool, 0

    def submit(self, fn, *args, **kwargs):
        self.sent += 1
        return self.pool.submit(fn, *args, **kwargs)


def _shares(ahead):
    return {k: (search, budget) for k, (search, budget) in ahead._searches.items()}


def test_pondered_shares_answer_as_the_parallel_search_with_exactly_the_level_s_effort(pool):
    state = _position()
    hard = games.ai.LEVELS["hard"]
    for seed in (1, 2):
        fresh = games.ai.think_level(state, hard, seed=seed, pool=pool, processes=3)
        assert fresh.iterations == fresh.wanted == 640
        ahead = Ponder(3)
        assert ahead.start(state, hard, seed)
        assert ahead.step(5, clock=ticks())   # a few slices: more to do
        begun = _shares(ahead)
        assert sorted(budget for _, budget in begun.values()) == [213, 213, 214]
        assert 0 < sum(search.iterations for search, _ in begun.values()) < 640
        counted = Counted(pool)
        thought = games.ai.think_level(state, hard, seed=seed, pool=counted, processes=3,
                                       pondered=ahead)
        assert len(ahead) == 0   # every share taken
        assert thought.iterations == thought.wanted == 640 and not thought.limited
        assert str(thought.move) == str(fresh.move)
        # Every pondered share ended at its own budget, never beyond.
        assert all(search.iterations <= budget for search, budget in begun.values())


def test_shares_pondered_to_their_end_are_the_helpers_shares_and_need_no_helper(pool):
    from games.ai.mcts import search_options
    from games.ai.parallel import search_share

    state = _position()
    hard = games.ai.LEVELS["hard"]
    fresh = games.ai.think_level(state, hard, seed=4, pool=pool, processes=3)
    ahead = Ponder(3)
    assert ahead.start(state, hard, 4)
    while ahead.step(1000, clock=ticks()):
        pass
    saved, options = state.to_json(), search_options(state)
    for (_, s, _, budget), (search, _) in _shares(ahead).items():
        assert search.iterations == budget   # never beyond its share
        # The share pondered in the worker is the very share a helper searches from its seed.
        assert list(search.root.n) == search_share(saved, s, budget, 600, options)[1]
    counted = Counted(pool)
    thought = games.ai.think_level(state, hard, seed=4, pool=counted, processes=3,
                                   pondered=ahead)
    assert counted.sent == 0   # all done while the person thought
    assert thought.iterations == thought.wanted == 640
    assert str(thought.move) == str(fresh.move)


def test_a_search_pondered_for_another_count_of_processes_is_not_taken(pool):
    state = _position()
    hard = games.ai.LEVELS["hard"]
    # Pondered as one search, asked over three processes: the shares are searched afresh.
    one = Ponder(1)
    assert one.start(state, hard, 5)
    while one.step(1000, clock=ticks()):
        pass
    thought = games.ai.think_level(state, hard, seed=5, pool=pool, processes=3, pondered=one)
    fresh = games.ai.think_level(state, hard, seed=5, pool=pool, processes=3)
    assert thought.iterations == 640 and str(thought.move) == str(fresh.move)
    assert len(one) == 1   # (its first share has its seed, not its budget: left alone)
    # Pondered as three shares, asked in one process: the plain search afresh.
    three = Ponder(3)
    assert three.start(state, hard, 5)
    assert three.step(3, clock=ticks())
    thought = games.ai.think_level(state, hard, seed=5, pondered=three)
    fresh = games.ai.think_level(state, hard, seed=5)
    assert thought.iterations == 640 and str(thought.move) == str(fresh.move)
    assert len(three) == 3


def test_the_worker_ponders_with_several_processes_and_answers_the_same():
    try:
        state, hard, ahead = _worker_pondering(54321, 2)
        assert ahead.processes == 2 and len(ahead) >= 2   # two shares a likely reply
        reply = next(m for m in state.legal_moves()
                     if _pondered(ahead, state, m, hard, 54321, 2))
        state.play(reply)
        saved = state.to_json()
        seed = seats.position_seed(54321, saved)
        held = len(ahead)
        move, limited = seats.think(saved, hard, seed, processes=2)
        assert not limited and len(ahead) == held - 2   # its two shares taken
        seats._pondering = None
        assert seats.think(saved, hard, seed, processes=2) == (move, False)   # afresh: the same
    finally:
        seats._pondering = None
        seats._drop_helpers()

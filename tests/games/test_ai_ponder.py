"""Thinking while the family thinks (games/ai/ponder.py): a pondered search is the level's own
search begun earlier, so the answer and the effort are exactly a fresh search's."""

from __future__ import annotations

import dataclasses
import itertools

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


def test_the_worker_ponders_the_likely_replies_and_answers_the_same():
    # The person (player 0) to move against the computer (player 1, hard).
    state = games.get_game("treeblox").new_state()
    state.play_all(["La1", "Ld4"])
    # (a cap no machine reaches: on a slow one, an emulated arm64 Pi, the fresh search at the
    # level's own cap was cut short and chose otherwise; the effort is the point here)
    hard, base = dataclasses.replace(games.ai.LEVELS["hard"], seconds=3600.0), 12345
    seats._pondering = None
    try:
        while seats.ponder(state.to_json(), hard, base, 1, 0.5):
            pass
        ahead = seats._pondering[1]
        assert len(ahead) >= 1   # the positions after its likely replies
        reply = next(m for m in state.legal_moves()
                     if _pondered(ahead, state, m, hard, base))
        state.play(reply)
        saved = state.to_json()
        seed = seats.position_seed(base, saved)
        move, limited = seats.think(saved, hard, seed)
        assert not limited
        seats._pondering = None
        assert seats.think(saved, hard, seed) == (move, False)   # a fresh search: the same
    finally:
        seats._pondering = None


def _pondered(ahead, state, move, lvl, base):
    from games.ai.ponder import key

    state.play(move)
    try:
        _, _, s, _, options = games.ai.level_search(state, lvl,
                                                    seats.position_seed(base, state.to_json()))
        return key(state, s, options) in ahead._searches
    finally:
        state.undo()

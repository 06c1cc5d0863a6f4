"""A level's search spread over several processes (games/ai/parallel.py): the effort is
exactly the level's, however many processes; one process is the plain search."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

import games
import games.ai
from games.ai.mcts import search_options
from games.ai.parallel import search_share, seeds, shares


def test_shares_add_up_to_the_iterations():
    for iterations in (1, 2, 10, 64, 640, 2561):
        for processes in (1, 2, 3, 4, 7):
            parts = shares(iterations, processes)
            assert sum(parts) == iterations
            assert len(parts) == min(processes, iterations) and min(parts) >= 1
            assert max(parts) - min(parts) <= 1
    assert seeds(5, 3)[0] == 5 and len(set(seeds(5, 3))) == 3


def _position():
    state = games.get_game("treeblox").new_state()
    state.play_all(["La1", "Ld4", "Lb2"])
    return state


@pytest.fixture(scope="module")
def pool():
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as p:
        yield p


def test_the_effort_is_exactly_the_level_s_with_several_processes(pool):
    state = _position()
    hard = games.ai.LEVELS["hard"]
    thought = games.ai.think_level(state, hard, seed=3, pool=pool, processes=3)
    assert thought.wanted == 640 and thought.iterations == 640 and not thought.limited
    assert thought.move in state.legal_moves()
    # Each share visits its root exactly its iterations' times: the three trees together saw
    # 640 playouts, as one process's tree does.
    saved, options = state.to_json(), search_options(state)
    visits = sum(sum(search_share(saved, s, n, 600, options)[1])
                 for s, n in zip(seeds(3, 3), shares(640, 3)))
    assert visits == 640


def test_one_process_is_the_plain_search(pool):
    state = _position()
    for seed in (1, 2):
        alone = games.ai.think_level(state, games.ai.LEVELS["medium"], seed=seed)
        one = games.ai.think_level(state, games.ai.LEVELS["medium"], seed=seed, pool=pool,
                                   processes=1)
        assert str(alone.move) == str(one.move) and alone.iterations == one.iterations == 64


def test_a_cap_that_cuts_the_shares_says_so(pool):
    state = _position()
    fast = games.ai.Level("hard", 1e-6, iterations=640)
    thought = games.ai.think_level(state, fast, seed=1, pool=pool, processes=2)
    assert thought.limited and 2 <= thought.iterations < 640   # each share's first iteration
    assert json.loads(state.to_json())["moves"] == ["La1", "Ld4", "Lb2"]   # left alone


def test_a_helper_that_died_is_replaced_and_the_search_made_again(monkeypatch):
    """A helper process killed under the worker breaks its pool for good: the worker starts
    new helpers and searches again (the same seeds and shares: the same move), rather than
    failing every search after while it lives on itself."""
    import os
    import signal

    from board_driver.referee import seats

    state = _position()
    saved, hard = state.to_json(), games.ai.LEVELS["hard"]
    monkeypatch.setattr(seats, "_helpers", None)
    try:
        first = seats.think(saved, hard, 7, processes=2)
        pool = seats._helpers[0]
        pool.submit(os.getpid).result()   # (its process is up)
        for pid in list(pool._processes):  # (the pool's own processes: killed as the OOM killer does)
            os.kill(pid, signal.SIGKILL)
        assert seats.think(saved, hard, 7, processes=2) == first
        assert seats._helpers[0] is not pool
    finally:
        seats._drop_helpers()

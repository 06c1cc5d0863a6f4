"""A level's search spread over several processes (games/ai/parallel.py): the effort is
exactly the level's, however many processes; one process is the plain search."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

import games
import games.ai
from games.ai.mcts import search_options
from games.ai.parallel import MIN_SHARE, search_share, seeds, shares, spread


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

    import dataclasses

    state = _position()
    # (a cap no busy machine reaches: helpers at the lowest priority on a loaded machine were
    # cut short by hard's own 30 s, and a limited answer is not the first one)
    saved = state.to_json()
    hard = dataclasses.replace(games.ai.LEVELS["hard"], seconds=3600.0)
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


def test_a_search_too_small_to_share_is_the_plain_search_however_many_processes(pool):
    # Treeblox's medium (64 iterations) and easy (10): their shares would be tiny trees, which
    # play weaker than the one tree the ladder rated. Spread from MIN_SHARE iterations a share.
    assert spread(64, 3) == spread(2 * MIN_SHARE - 1, 3) == 1
    assert spread(2 * MIN_SHARE, 3) == 2 and spread(640, 3) == 3 and spread(640, 8) == 5
    assert spread(None, 3) == 1 and spread(640, 3, noise=0.5) == 1

    class Refusing:
        def submit(self, *args, **kwargs):
            raise AssertionError("a share sent to a helper")

    state = _position()
    for name in ("easy", "medium"):
        lvl = games.ai.LEVELS[name]
        alone = games.ai.think_level(state, lvl, seed=6)
        three = games.ai.think_level(state, lvl, seed=6, pool=Refusing(), processes=3)
        assert str(three.move) == str(alone.move)
        assert three.iterations == alone.iterations == three.wanted


def test_fangqis_hard_is_never_split_and_its_strongest_in_shares_of_a_whole_hard():
    """Fangqi's `hard` split over 3 processes (shares of 213) played weaker than rated (the
    ladder, docs/ai.md): its table's smallest share is a whole `hard`."""
    class Refusing:
        def submit(self, *args, **kwargs):
            raise AssertionError("a share sent to a helper")

    state = games.get_game("fangqi").new_state()
    for _ in range(6):
        state.play(state.legal_moves()[0])
    lvl = dataclasses.replace(games.ai.game_level(state.game, games.ai.LEVELS["hard"]),
                              seconds=3600.0)
    three = games.ai.think_level(state, lvl, seed=3, pool=Refusing(), processes=3)
    assert three.iterations == three.wanted == 640
    medium = games.ai.game_level(state.game, games.ai.LEVELS["medium"])
    assert spread(medium.iterations, 3, min_share=640) == 1   # (256: not split either)
    assert spread(2560, 3, min_share=640) == 3 and spread(2560, 8, min_share=640) == 4
    assert spread(640, 3) == 3   # (the common smallest share still splits other games' hard)

"""The generic search: it plays every game through the common interface, finds obvious
moves, is repeatable for a seed and an iteration budget, and levels parse."""

from __future__ import annotations

import pytest

import games
import games.ai
from games.ai.mcts import Search


def test_finds_the_only_winning_move():
    # A 3x3 position where the exact solver finds one winning groove (v1.1) and every other
    # groove loses.
    state = games.get_game("tree-planting").new_state(board="3x3")
    state.play_all("h2.1 v2.3 v2.1 v1.2 h0.1 h1.1 h1.0 h3.0".split())
    from games.ai.tree_planting import solver_for

    values = solver_for(state.board).move_values(state.position_key()[0])
    winning = [state.board.grooves[g].name for g, v in values.items() if v > 0]
    assert winning == ["v1.1"]
    for seed in range(3):
        search = Search(state, seed=seed)
        search.run(seconds=60, iterations=4000)
        assert str(search.best()) == "v1.1"


def test_same_seed_and_iterations_same_move_on_every_game():
    for name in games.names():
        state = games.get_game(name).new_state()
        # Short playouts: some engines' moves are slow to list (the test is about the search).
        a, b = (Search(state, seed=7, max_playout=20) for _ in range(2))
        for search in (a, b):
            search.run(seconds=60, iterations=6)
        assert str(a.best()) == str(b.best())
        assert a.best() in state.legal_moves()
        state.play(a.best())  # and it is legal
    for name in ("tree-planting", "treeblox"):
        state = games.get_game(name).new_state()
        moves = {str(games.ai.best_move(state, seconds=60, seed=7, iterations=30))
                 for _ in range(2)}
        assert len(moves) == 1


def test_search_leaves_the_given_state_alone():
    state = games.get_game("treeblox").new_state()
    state.play_all(["La1", "Ld4"])
    before = state.summary()
    Search(state, seed=1).run(seconds=60, iterations=50)
    games.ai.analyse(state, seconds=60, iterations=50)
    assert state.summary() == before


def test_analyse_lists_every_legal_move():
    state = games.get_game("treeblox").new_state()
    rows = games.ai.analyse(state, seconds=60, iterations=100, seed=1)
    assert sorted(str(r.move) for r in rows) == sorted(str(m) for m in state.legal_moves())
    assert sum(r.visits for r in rows) == 100
    assert not any(r.exact for r in rows)


def test_tree_planting_small_boards_are_played_exactly():
    state = games.get_game("tree-planting").new_state(board="2x2")
    rows = games.ai.analyse(state, seconds=10)
    assert all(r.exact for r in rows)
    best = games.ai.best_move(state, seconds=10)
    assert best in [r.move for r in rows if r.value == rows[0].value]


def test_no_move_once_the_game_is_over():
    state = games.get_game("tree-planting").new_state(board="1x1")
    state.play_all(["h0.0", "h1.0", "v0.0", "v0.1"])
    with pytest.raises(ValueError, match="over"):
        games.ai.best_move(state, seconds=1)
    assert games.ai.analyse(state, seconds=1) == []


def test_levels():
    assert games.ai.level("hard").seconds == 3.0
    assert games.ai.level("2.5").seconds == 2.5
    for bad in ("", "genius", "0", "-1", "1e9"):
        with pytest.raises(ValueError, match="computer level"):
            games.ai.level(bad)

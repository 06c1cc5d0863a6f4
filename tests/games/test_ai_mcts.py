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
        a, b = (Search(state, seed=7, playout_cap=20) for _ in range(2))
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
    assert games.ai.level("hard") is games.ai.LEVELS["hard"]
    assert games.ai.level("perfect") is games.ai.LEVELS["strongest"]  # the old name works
    assert games.ai.level("2.5").seconds == 2.5 and games.ai.level("2.5").iterations is None
    for bad in ("", "genius", "0", "-1", "1e9"):
        with pytest.raises(ValueError, match="computer level"):
            games.ai.level(bad)


def _never(*_):
    raise AssertionError("the clock was read: the search ran")


def test_a_forced_move_is_answered_without_searching():
    # Arbos with one spore each: once White's is down and Black passes, White can only pass.
    state = games.get_game("arbos").new_state(board="6x6", seeds=1, spores=1, setup="chosen")
    while state.phase == "setup":
        state.play(state.legal_moves()[0])
    state.play(next(m for m in state.legal_moves() if m.kind == "spore"))
    state.play("pass")
    assert [str(m) for m in state.legal_moves()] == ["pass"]
    assert str(games.ai.best_move(state, seconds=60, clock=_never)) == "pass"
    # Tree Planting's last groove, before the exact solver is asked.
    state = games.get_game("tree-planting").new_state(board="1x1")
    state.play_all(["h0.0", "h1.0", "v0.0"])
    assert str(games.ai.best_move(state, seconds=60, clock=_never)) == "v0.1"


def _arbos_in_play(seed: int):
    import random

    rng = random.Random(seed)
    state = games.get_game("arbos").new_state(setup="chosen")
    while state.phase == "setup":
        state.play(rng.choice(state.legal_moves()))
    state.play_all(rng.choice(state.legal_moves()) for _ in range(6))
    return state


def test_arbos_prior_puts_spores_by_ones_own_seeds_first_and_pass_last():
    state = _arbos_in_play(1)
    moves = state.legal_moves()
    prior = state.move_prior(moves)
    assert len(prior) == len(moves)
    by_move = dict(zip(moves, prior))
    p = state.to_move
    mine = {c for c in state.occupancy() if state.occupancy()[c] == f"seed:{p}"}
    names = state.geo.names
    beside = [m for m in moves if m.kind == "spore" and any(
        names[n] in mine for n in state.geo.nb8[state.geo.index[str(m)]])]
    far = [m for m in moves if m.kind == "spore" and m not in beside and
           not any(state.occupancy().get(names[n]) == f"spore:{p}"
                   for n in state.geo.nb8[state.geo.index[str(m)]])]
    assert beside and far
    assert min(by_move[m] for m in beside) > max(by_move[m] for m in far)
    assert by_move[games.get_game("arbos").new_state().parse_move("pass")] == min(prior)


def test_widening_keeps_to_the_best_guesses_and_orders_by_the_prior():
    state = _arbos_in_play(2)
    search = Search(state, seed=3, widening=(1.0, 0.5), prior="game")
    search.run(seconds=60, iterations=100)
    root = search.root
    prior = state.move_prior(root.moves)
    assert prior == sorted(prior, reverse=True)  # best guess first
    visited = [n for n in root.n if n]
    assert len(visited) <= 10 < len(root.moves)  # width 1 * sqrt(100)
    assert all(root.n[i] == 0 for i in range(len(visited), len(root.moves)))
    plain = Search(state, seed=3)
    plain.run(seconds=60, iterations=100)
    assert sum(1 for n in plain.root.n if n) == 100  # without widening: a new move each time


def test_greedy_prior_orders_by_the_margin_after_the_move():
    state = games.get_game("game-for-the-trees").new_state()
    search = Search(state, seed=1, prior="greedy")
    margins, ends = [], []
    for m in search.root.moves:
        state.play(m)
        a, b = state.scores()
        ends.append(state.winner() if state.is_over() else "on")
        state.undo()
        margins.append(a - b)
    # Growing the Pine onto one's own (only) Huckleberry loses at once: last, whatever the margin.
    assert str(search.root.moves[-1]) == "Pd1-e1" and ends[-1] == 1 and margins[-1] == 0
    assert set(ends[:-1]) == {"on"}
    margins = margins[:-1]
    assert margins == sorted(margins, reverse=True) and margins[0] > margins[-1]
    with pytest.raises(ValueError, match="prior"):
        Search(state, prior="clever")


def test_review_does_not_call_a_move_the_search_never_tried_a_blunder():
    from games.ai.review import review

    state = games.get_game("arbos").new_state(setup="chosen")
    state.play_all(["seed A1", "seed T20", "seed J10"])
    ticks = iter(range(10**6))
    rows = review(state, seconds=5, seed=1, clock=lambda: next(ticks))  # 5 iterations each
    assert len(rows) == 3
    # A tried move's mean reward is above 0 (the margin's share of it is); 0.0 is untried.
    assert any(row["after"] is None for row in rows)
    assert all(row["after"] is None or row["after"] > 0 for row in rows)


def test_playout_cap_stops_the_engine_playout_early():
    import random

    state = games.get_game("game-for-the-trees").new_state()
    before = state.summary()
    state.playout(random.Random(1), cap=5)
    assert len(state.moves) == 5 and not state.is_over()
    for _ in range(5):
        state.undo()
    assert state.summary() == before
    for cap in (3, None):
        search = Search(state, seed=1, playout_cap=cap)
        engine, lengths = search.state.playout, []

        def spy(rng, **kw):
            n = len(search.state.moves)
            engine(rng, **kw)
            lengths.append(len(search.state.moves) - n)

        search.state.playout = spy
        search.run(seconds=60, iterations=10)
        assert search.state.summary() == before  # every iteration undone
        assert len(lengths) == 10
        assert max(lengths) <= 3 if cap else min(lengths) > 3


def _loses_at_once(state, move) -> bool:
    """After `move`, can the opponent win with their next move?"""
    me = state.to_move
    state.play(move)
    lost = state.is_over() and state.winner() == 1 - me
    for reply in [] if state.is_over() else state.legal_moves():
        state.play(reply)
        lost = lost or state.is_over() and state.winner() == 1 - me
        state.undo()
    state.undo()
    return lost


def test_safe_root_puts_the_moves_that_let_the_opponent_win_at_once_last():
    # Black's only Huckleberry (e8) is a step from White's Pine (f7): only a leap, which makes
    # Black a second Huckleberry square, keeps the game; every other move loses at once.
    position = "/".join(["....h...", ".....P..", "gggg....", "........", "........",
                         "....GGGG", "........", "....H..."])
    state = games.get_game("game-for-the-trees").new_state(position=position, first=1)
    search = Search(state, seed=1, safe_root=True)
    search.run(seconds=60, iterations=1)
    losing = [_loses_at_once(state, m) for m in search.root.moves]
    assert losing == sorted(losing) and 0 < losing.count(False) < len(losing)
    assert all(str(m).startswith("He8^") for m, lost in zip(search.root.moves, losing)
               if not lost)
    plain = Search(state, seed=1)
    plain.run(seconds=60, iterations=1)
    assert [_loses_at_once(state, m) for m in plain.root.moves] != losing  # not by chance


def test_every_game_plays_out_through_the_interface_with_a_cap_and_undoes_it():
    # `playout(rng, cap)` is part of the common interface (games/base.py): every engine takes
    # the cap, records its moves, and `undo` restores the position exactly.
    import random as _random

    from games.base import State

    for name in games.names():
        state = games.get_game(name).new_state()
        before = state.to_json()
        state.playout(_random.Random(3), cap=5)
        assert len(state.moves) == 5, name
        for _ in range(5):
            state.undo()
        assert state.to_json() == before, name
        # The plain default is the uniform loop, and stops at the cap too.
        State.playout(state, _random.Random(3), cap=4)
        assert len(state.moves) == 4, name
        state.playout(_random.Random(3))
        assert state.is_over() or name == "arbos", name  # Arbos's own default cap: 400 moves


def test_a_capped_playout_leaves_a_state_that_plays_on_correctly():
    # Tree Planting's playout shuffles its free grooves: stopped at a cap, the ones left must
    # still be found where the state thinks they are (else the next play removes another).
    import random as _random

    state = games.get_game("tree-planting").new_state(board="3x3")
    state.playout(_random.Random(5), cap=7)
    rng = _random.Random(6)
    while not state.is_over():
        legal = state.legal_moves()
        drawn = {str(g) for g in state.board.grooves if state.drawn(g)}
        assert {str(g) for g in legal} == {str(g) for g in state.board.grooves} - drawn
        state.play(legal[rng.randrange(len(legal))])
    while state.moves:
        state.undo()
    assert len(state.legal_moves()) == len(state.board.grooves)


def test_moves_visited_alike_are_told_apart_by_the_prior_not_by_noise():
    # Where every playout is won (Arbos: saturated), the most visited moves tie: the move
    # played is the prior's first of them, whatever their means say; without a prior, the
    # means decide as before.
    state = _arbos_in_play(2)
    search = Search(state, seed=3, widening=(1.0, 0.5), prior="game")
    root = search.root
    root.n[:4] = [5, 5, 5, 4]
    root.w[:4] = [4.0, 4.9, 4.5, 4.0]
    assert search.best() == root.moves[0]
    root.n[1] = 6  # visited more: the search told it apart
    assert search.best() == root.moves[1]
    plain = Search(state, seed=3)
    plain.root.n[:3] = [5, 5, 5]
    plain.root.w[:3] = [4.0, 4.9, 4.5]
    assert plain.best() == plain.root.moves[1]


def test_the_margins_weight_in_a_playouts_reward():
    """`margin_weight` (a search option): 0 rewards the result alone, 1 the margin alone;
    the default keeps a tenth of the margin; out of 0..1 is refused naming it."""
    from games.ai.mcts import MARGIN_WEIGHT, outcome

    state = games.get_game("tree-planting").new_state(board="1x1")
    state.play_all(["h0.0", "h1.0", "v0.0", "v0.1"])   # player 1 closes the one square
    assert state.is_over() and state.scores() == (0, 1)
    assert outcome(state, 1, 0.0) == 1.0 and outcome(state, 0, 0.0) == 0.0
    assert outcome(state, 1, 1.0) == pytest.approx(0.5 + 0.5 * 1 / 2)
    assert outcome(state, 1) == pytest.approx((1 - MARGIN_WEIGHT) + MARGIN_WEIGHT * 0.75)
    with pytest.raises(ValueError, match="margin_weight 1.5: expected 0 to 1"):
        Search(games.get_game("treeblox").new_state(), margin_weight=1.5)


def test_the_priors_bias_decides_what_the_playouts_cannot_tell_apart():
    """`prior_bias` (a search option, with a prior): bias / (rank * sqrt(visits)) on top of
    UCB1, so among moves the playouts value alike the prior's first is followed, and a
    clearly better mean still wins; without a prior it is off."""
    state = games.get_game("arbos").new_state()
    search = Search(state, seed=1, prior="game", widening=(1.0, 0.5), prior_bias=1.0)
    node = search.root
    node.tried, node.visits = 3, 300
    node.n[:3], node.w[:3] = [100, 100, 100], [50.0, 50.0, 50.5]
    assert node.select(1.0, 3, bias=0.0) == 2     # the playouts' noise alone: the third
    assert node.select(1.0, 3, bias=1.0) == 0     # alike but for noise: the prior's first
    node.w[:3] = [50.0, 50.0, 70.0]
    assert node.select(1.0, 3, bias=1.0) == 2     # a clearly better mean still wins
    assert Search(state, seed=1, prior=None, prior_bias=1.0).prior_bias == 0.0

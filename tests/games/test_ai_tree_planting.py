"""The exact Tree Planting solver against an independent brute force (every subset of drawn
grooves, no pruning), on whole small boards and on random positions of larger ones."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

import games
from games.ai.tree_planting import SYMMETRIC_DRAWN, INF, OutOfTime, Solver, loony_value, solve
from games.tree_planting import solve as reference_solve

GAME = games.get_game("tree-planting")


def brute_force(state) -> int:
    """The margin the mover gains from here on: plain negamax over drawn-groove sets."""
    board = state.board
    squares = [sum(g.bit for g in sides) for sides in board.square_grooves]
    full = board.all_edges

    @lru_cache(maxsize=None)
    def value(edges: int) -> int:
        if edges == full:
            return 0
        best = -99
        for g in board.grooves:
            if edges & g.bit:
                continue
            after = edges | g.bit
            gained = sum(1 for m in squares if m & g.bit and after & m == m)
            best = max(best, gained + value(after) if gained else -value(after))
        return best

    return value(state.position_key()[0])


def every_value(board) -> list[int]:
    """The value of every set of drawn grooves (the index is the set), bottom-up, no pruning."""
    n = len(board.grooves)
    squares = [sum(g.bit for g in sides) for sides in board.square_grooves]
    touching = [[m for m in squares if m & g.bit] for g in board.grooves]
    value = [0] * (1 << n)
    for edges in range(board.all_edges - 1, -1, -1):
        best = -99
        for g in range(n):
            if edges >> g & 1:
                continue
            after = edges | 1 << g
            gained = sum(1 for m in touching[g] if after & m == m)
            best = max(best, gained + value[after] if gained else -value[after])
        value[edges] = best
    return value


def random_position(board: str, free: int, rng: random.Random):
    state = GAME.new_state(board=board)
    n = len(state.board.grooves)
    for _ in range(max(0, n - free)):
        state.play(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize("board", ["1x1", "1x2", "1x3", "2x2", "##/#.", "#./##/.#", "1x4",
                                   "###/#.#", ".#./###/.#."])
def test_whole_small_boards_match_the_brute_force(board):
    state = GAME.new_state(board=board)
    value, best = solve(state)
    assert value == brute_force(state)
    for g in best:
        after = state.copy()
        after.play(g)
        assert solve(after)[0] * (1 if after.to_move == state.to_move else -1) == value


@pytest.mark.parametrize("board", ["2x2", "2x3", "#./#./##"])
def test_every_position_of_small_boards_matches_the_brute_force(board):
    # One solver for all of them: bounds stored by one search must hold in every later one.
    # (2x3 has chains between three-string coins, the L long chains.)
    board = GAME.new_state(board=board).board
    want = every_value(board)
    solver = Solver(board)
    wrong = [e for e, v in enumerate(want) if solver.value(e) != v]
    assert not wrong, [(bin(e), solver.value(e), want[e]) for e in wrong[:5]]
    # and every move's value from every position, with a fresh solver for a sample
    rng = random.Random(board.spec)
    for edges in rng.sample(range(board.all_edges), 40):
        fresh = Solver(board)
        for g, v in fresh.move_values(edges).items():
            after = edges | 1 << g
            gained = sum(1 for _, mask in board.grooves[g].squares if after & mask == mask)
            assert v == (gained + want[after] if gained else -want[after]), (bin(edges), g)


@pytest.mark.parametrize("board,free", [("2x3", 13), ("3x3", 13), ("classic", 12),
                                        ("##/##/#.", 13), ("1x5", 14)])
def test_every_move_value_of_random_positions_matches_the_brute_force(board, free):
    rng = random.Random(f"{board}{free}")
    for _ in range(12):
        state = random_position(board, rng.randrange(3, free + 1), rng)
        if state.is_over():
            continue
        solver = Solver(state.board)
        edges = state.position_key()[0]
        assert solver.value(edges) == brute_force(state)
        for g, v in solver.move_values(edges).items():
            after = state.copy()
            after.play(state.board.grooves[g])
            rest = brute_force(after)
            planted = after.scores()[state.to_move] - state.scores()[state.to_move]
            assert v == (planted + rest if planted else -rest), (state.moves, g)


def test_agrees_with_the_reference_solver_and_reports_the_final_margin():
    rng = random.Random(5)
    for _ in range(10):
        state = random_position("2x2", rng.randrange(2, 10), rng)
        if state.is_over():
            continue
        ref_margin, ref_best = reference_solve(state)
        ours, best = solve(state)
        # The reference counts player 0's margin; ours the mover's.
        assert ours == (ref_margin if state.to_move == 0 else -ref_margin)
        assert [g.name for g in best] == sorted((g.name for g in ref_best),
                                                key=lambda n: state.board.groove[n].index)


def test_symmetric_boards_find_their_symmetries():
    assert len(Solver(GAME.new_state(board="3x3").board).symmetries) == 7
    assert len(Solver(GAME.new_state(board="2x3").board).symmetries) == 3
    assert len(Solver(GAME.new_state(board="classic").board).symmetries) == 0
    # a symmetry maps every position to one of the same value
    solver = Solver(GAME.new_state(board="2x3").board)
    rng = random.Random(2)
    for _ in range(20):
        state = random_position("2x3", rng.randrange(4, 14), rng)
        edges = state.position_key()[0]
        assert bin(solver.canonical(edges)).count("1") == bin(edges).count("1")


@pytest.mark.parametrize("board", ["3x3", "2x3", "1x3", "4x4"])
def test_symmetric_images_share_a_key_and_the_table_move_maps_back(board):
    state = GAME.new_state(board=board)
    solver = Solver(state.board)
    rng = random.Random(board)
    image = lambda perm, edges: sum(1 << perm[g] for g in range(len(perm)) if edges >> g & 1)
    n = len(state.board.grooves)
    # (keyed by symmetry while at most SYMMETRIC_DRAWN grooves are drawn)
    fewest_free = max(4, n - SYMMETRIC_DRAWN)
    for _ in range(30):
        edges = random_position(board, rng.randrange(fewest_free, n), rng).position_key()[0]
        for perm in solver.symmetries:
            assert solver.canonical(image(perm, edges)) == solver.canonical(edges)
    # a corner's two edge grooves are interchangeable: either drawn alone, one key
    corner = [g.index for g in state.board.square_grooves[0] if len(g.squares) == 1]
    assert solver.canonical(1 << corner[0]) == solver.canonical(1 << corner[1])
    if board == "4x4":
        return
    # The table's move, mapped back to a symmetric image, reaches the stored lower bound there.
    checked = 0
    for _ in range(40):
        edges = random_position(board, rng.randrange(max(6, fewest_free), min(n, 16)),
                                rng).position_key()[0]
        solver.value(edges)
        entry = solver.table.get(solver.canonical(edges))
        if entry is None or entry >> 24 == 0:
            continue  # settled without search, or only an upper bound known
        lower = (entry & 4095) - INF
        for perm in [list(range(len(solver.symmetries[0])))] + solver.symmetries:
            other = image(perm, edges)
            g = solver.table_move(other, entry)
            assert g >= 0 and not other >> g & 1
            assert Solver(state.board).move_values(other)[g] >= lower
            checked += 1
    assert checked


def test_past_the_symmetric_opening_a_position_is_its_own_key():
    board = GAME.new_state(board="4x4").board
    solver = Solver(board)
    rng = random.Random(4)
    edges = random_position("4x4", 40 - SYMMETRIC_DRAWN - 1, rng).position_key()[0]
    assert solver.canonical(edges) == edges


@pytest.mark.parametrize("free", [10, 12])
def test_random_4x4_positions_match_the_brute_force(free):
    """The 16-square board, as the rules name it: positions drawn as players play (no square
    given away while a safe groove is left), against the brute force."""
    rng = random.Random(free)
    checked = 0
    while checked < 6:
        state = GAME.new_state(board="4x4")
        while len(state.legal_moves()) > free:
            legal = list(state.legal_moves())
            safe = [g for g in legal if not state.gives_away(g)]
            state.play(rng.choice(safe or legal))
        if state.is_over():
            continue
        checked += 1
        assert Solver(state.board).value(state.position_key()[0]) == brute_force(state)


def test_loony_endgame_values():
    # one chain of three: the mover opens it and the opponent takes all three
    assert loony_value((3,), ()) == -3
    # two chains of three: the opponent of the opener keeps control with all-but-two
    assert loony_value((3, 3), ()) == min(-(3 + loony_value((3,), ())), 2 + -3 - 1)
    # a loop of four alone is taken whole
    assert loony_value((), (4,)) == -4


def test_a_deadline_stops_the_search():
    ticks = iter(range(10**9))
    state = GAME.new_state(board="4x4")
    with pytest.raises(OutOfTime):
        solve(state, deadline=5, clock=lambda: next(ticks))


def test_the_process_keeps_the_solvers_of_the_last_boards_only():
    # A board runs for months: one solver (and its table) per board ever asked about grew.
    from games.ai import tree_planting as tp
    from games.tree_planting import Board

    kept = dict(tp._solvers)
    try:
        tp._solvers.clear()
        first = tp.solver_for(Board.get("2x2"))
        assert tp.solver_for(Board.get("2x2")) is first  # its table kept between calls
        for spec in ("1x3", "2x3", "3x1"):
            tp.solver_for(Board.get(spec))
        assert len(tp._solvers) == tp.KEPT_SOLVERS
        assert list(tp._solvers) == [Board.get("2x3").spec, Board.get("3x1").spec]
    finally:
        tp._solvers.clear()
        tp._solvers.update(kept)

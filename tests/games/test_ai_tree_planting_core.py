"""The compiled core of the exact Tree Planting solver (games/ai/tree_planting_core.c) against
the pure-Python solver, its reference: the same values, the same moves proved best, on many
random positions of every board it holds; and which core this install uses."""

from __future__ import annotations

import os
import random
import shutil
import sysconfig
import threading
from pathlib import Path

import pytest

import games
from games.ai import tree_planting as tp
from games.ai.tree_planting import OutOfTime, Solver
from games.tree_planting import Board

GAME = games.get_game("tree-planting")

needs_core = pytest.mark.skipif(tp._core is None, reason="the compiled core is not built")


def can_compile() -> bool:
    """A C compiler and this Python's headers: what pip needs to build the core."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(cc) is not None and headers.exists()


def test_which_core_is_in_use():
    """Says which search answers (in the test's output with -rA or on failure), and fails
    where the core could have been built but was not: CI builds it (./dev installs the
    compiler), so a broken build shows here instead of as a silently slower solver."""
    which, where = tp.core()
    print(f"Tree Planting solver core: {which} ({where})")
    if os.environ.get(tp.CHOOSE_ENV, "").lower() == "python":
        assert which == "python"
        return
    if not can_compile():
        pytest.skip(f"no C compiler or Python headers here: the {which} core ({where})")
    assert which == "compiled", (
        f"a C compiler and Python's headers are here but the core is not built: {where} "
        "(reinstall: .venv/bin/python -m pip install -e .)")
    assert tp.solver_for(Board.get("16")).__class__ is tp.CompiledSolver


def position(board: str, free: int, rng: random.Random, careful: bool):
    """A random position with `free` grooves left: as players play (no square given away while
    a safe groove is left) when `careful`, else any groove."""
    state = GAME.new_state(board=board)
    while len(state.legal_moves()) > free:
        legal = list(state.legal_moves())
        safe = [g for g in legal if careful and not state.gives_away(g)]
        state.play(rng.choice(safe or legal))
    return state


def fresh(cls, board, **kw):
    solver = cls(board, **kw)
    solver.book = None  # the search itself, on the classic board too
    return solver


@needs_core
@pytest.mark.parametrize("board,frees", [
    ("2x2", range(1, 12)), ("2x3", range(1, 17)), ("3x3", range(4, 21)),
    ("classic", range(4, 19)), ("16", range(4, 23)), ("1x5", range(1, 16)),
    ("#./##/.#", range(1, 12)), (".#./###/.#.", range(1, 16)), ("1x1", range(1, 4)),
])
def test_every_move_value_matches_the_python_solver(board, frees):
    rng = random.Random(f"core {board}")
    checked = 0
    while checked < 30:
        state = position(board, rng.choice(list(frees)), rng, careful=checked % 2 == 0)
        if state.is_over():
            continue
        checked += 1
        edges = state.position_key()[0]
        reference = fresh(Solver, state.board).move_values(edges)
        solver = fresh(tp.CompiledSolver, state.board)
        assert solver.move_values(edges) == reference, (board, state.moves)
        # the move it proves best first is one of the best
        value, (first,) = solver.best_moves(edges, first_only=True)
        assert value == max(reference.values()) == reference[first]
        assert fresh(tp.CompiledSolver, state.board).best_moves(edges) == (
            value, sorted(g for g, v in reference.items() if v == value))


@needs_core
@pytest.mark.parametrize("free", [24, 26])
def test_random_16_square_positions_match_the_python_solver(free):
    """The 16-square board where the Python solver still answers in milliseconds, with one
    compiled solver for all the positions (what it stored must hold in the later ones)."""
    rng = random.Random(free)
    shared = fresh(tp.CompiledSolver, Board.get("16"))
    for i in range(8):
        state = position("16", free, rng, careful=True)
        if state.is_over():
            continue
        edges = state.position_key()[0]
        want = fresh(Solver, state.board).value(edges)
        assert shared.value(edges) == want
        assert fresh(tp.CompiledSolver, state.board).value(edges) == want


@needs_core
def test_a_table_too_small_for_the_search_loses_speed_not_exactness():
    # 1,024 entries (the least the core holds) for searches of thousands of nodes: buckets
    # overflow and entries are pushed out all the time.
    rng = random.Random(3)
    small = fresh(tp.CompiledSolver, Board.get("3x3"), max_entries=1000)
    assert small.table.capacity == 1024
    for _ in range(12):
        state = position("3x3", rng.randrange(10, 21), rng, careful=True)
        if state.is_over():
            continue
        edges = state.position_key()[0]
        assert small.move_values(edges) == fresh(Solver, state.board).move_values(edges)
    assert len(small.table) <= small.table.capacity


@needs_core
def test_the_same_nodes_keys_and_stored_entries_as_the_python_search():
    """Line for line: from a fresh solver the core visits exactly the Python search's nodes
    (while its table loses nothing, as in searches this small), keys positions as it does
    (symmetries, normal form) and stores the same entry, packed the same way, so
    `table_move` reads either."""
    rng = random.Random(9)
    for board in ("3x3", "16", "2x3", "classic"):
        for _ in range(6):
            state = position(board, rng.randrange(8, 21), rng, careful=True)
            if state.is_over():
                continue
            edges = state.position_key()[0]
            python, core = fresh(Solver, state.board), fresh(tp.CompiledSolver, state.board)
            assert core.value(edges) == python.value(edges)
            assert core.nodes == python.nodes
            key = python.canonical(edges)
            assert core.table.key(edges) == python._key(edges)
            assert core.table.get(key) == python.table.get(key)
            assert core.table.loony(edges) == python._loony(edges)


@needs_core
def test_a_deadline_stops_the_compiled_search_and_it_answers_after():
    ticks = iter(range(10**9))
    solver = tp.CompiledSolver(Board.get("16"))
    with pytest.raises(OutOfTime):
        solver.value(0, deadline=5, clock=lambda: next(ticks))
    # nothing half-searched was stored: the next question is answered exactly
    state = position("16", 20, random.Random(1), careful=True)
    edges = state.position_key()[0]
    assert solver.value(edges) == fresh(Solver, state.board).value(edges)


@needs_core
def test_a_failing_clock_is_reported_not_swallowed():
    def clock():
        raise ValueError("the clock broke")

    with pytest.raises(ValueError, match="the clock broke"):
        tp.CompiledSolver(Board.get("16")).value(0, deadline=1.0, clock=clock)


@needs_core
def test_two_threads_asking_one_solver_take_turns():
    # The core searches without the GIL; its lock keeps one search at a time on its table.
    rng = random.Random(12)
    states = [position("16", 24, rng, careful=True) for _ in range(6)]
    states = [s for s in states if not s.is_over()]
    want = [fresh(Solver, s.board).value(s.position_key()[0]) for s in states]
    shared = tp.CompiledSolver(Board.get("16"))
    got: dict[int, list[int]] = {}

    def ask(k: int) -> None:
        got[k] = [shared.value(s.position_key()[0]) for s in states]

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == {0: want, 1: want}


@needs_core
def test_boards_past_64_grooves_keep_the_python_solver():
    assert tp.fits(Board.get("16"))
    assert not tp.fits(Board.get("29"))  # 69 grooves
    kept = dict(tp._solvers)
    try:
        tp._solvers.clear()
        assert type(tp.solver_for(Board.get("29"))) is Solver
        assert type(tp.solver_for(Board.get("3x3"))) is tp.CompiledSolver
    finally:
        tp._solvers.clear()
        tp._solvers.update(kept)


def test_the_environment_can_choose_the_python_solver(monkeypatch):
    kept = dict(tp._solvers)
    try:
        tp._solvers.clear()
        monkeypatch.setenv(tp.CHOOSE_ENV, "python")
        assert tp.core() == ("python", f"{tp.CHOOSE_ENV}=python")
        solver = tp.solver_for(Board.get("16"))
        assert type(solver) is Solver and solver.exact_free == tp.EXACT_FREE_GROOVES
    finally:
        tp._solvers.clear()
        tp._solvers.update(kept)


@needs_core
def test_the_computer_sees_30_free_grooves_exactly_with_the_core_only(monkeypatch):
    """The reach follows the core: a 16-square position with 30 grooves free is answered
    exactly by the compiled solver (its values are checked against the Python solver's above,
    where that one answers in milliseconds), and left to the search by the Python one."""
    rng = random.Random(30)
    state = position("16", 30, rng, careful=True)
    larger = position("16", 31, rng, careful=True)
    clock = iter(range(10**9)).__next__
    kept = dict(tp._solvers)
    try:
        tp._solvers.clear()
        assert tp.solver_for(state.board).exact_free == 30
        got = tp.exact_values(state, deadline=float("inf"), clock=clock, only_best=True)
        assert got is not None and len(got) == 1
        assert tp.exact_values(larger, deadline=float("inf"), clock=clock) is None
        tp._solvers.clear()
        monkeypatch.setenv(tp.CHOOSE_ENV, "python")
        assert tp.exact_values(state, deadline=float("inf"), clock=clock) is None
    finally:
        tp._solvers.clear()
        tp._solvers.update(kept)

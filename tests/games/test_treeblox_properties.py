"""Treeblox over random games: the engine's bookkeeping checked against the rules written
out the slow, obvious way on the occupancy, and undo / JSON / notation round trips."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.base import IllegalMove
from games.treeblox import END, GAME, Move, parse_cell

SETTINGS = settings(max_examples=60, deadline=None)


def random_game(seed: int, cubes: int, pass_weight: float = 0.05):
    """Yield each position of a random game (the state itself, mutated in place)."""
    rng = random.Random(seed)
    state = GAME.new_state(cubes=cubes)
    yield state
    while not state.is_over():
        moves = state.legal_moves()
        placements = [m for m in moves if m is not END]
        if placements and rng.random() > pass_weight:
            state.play(rng.choice(placements))
        else:
            state.play(rng.choice(moves))
        yield state


def cubes_by_cell(state) -> dict[tuple, tuple[int, str]]:
    out = {}
    for name, piece in state.occupancy().items():
        colour, kind = piece.split("-")
        out[parse_cell(name)] = (("dark", "light").index(colour), kind)
    return out


def slow_active_leaves(state, player: int) -> set:
    cells = cubes_by_cell(state)
    return {c for c, (p, k) in cells.items() if p == player and k == "leaf"
            and not any(o[:2] == c[:2] and o[2] > c[2] for o in cells)}


def slow_available_holes(state, player: int) -> set:
    cells = cubes_by_cell(state)
    holes = {(x, y, 0) for x in range(4) for y in range(4)} - set(cells)
    for (x, y, z), (p, k) in cells.items():
        if p == player and k == "branch":
            for n in ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z),
                      (x, y, z + 1), (x, y, z - 1)):
                if n[2] >= 0 and n not in cells:
                    holes.add(n)
    return holes


def state_view(state) -> tuple:
    return (state.summary(), state.occupancy(), state.legal_moves(), state.phase,
            state.placements_left, state.cubes_left(0), state.cubes_left(1),
            state.growth_rate(0), state.growth_rate(1))


@SETTINGS
@given(seed=st.integers(0, 10**6), cubes=st.integers(1, 16))
def test_bookkeeping_matches_the_rules_written_out_slowly(seed, cubes):
    for state in random_game(seed, cubes):
        cells = cubes_by_cell(state)
        for p in (0, 1):
            left = state.cubes_left(p)
            placed = [k for (q, k) in cells.values() if q == p]
            assert left["leaf"] >= 0 and left["branch"] >= 0
            assert left["leaf"] + placed.count("leaf") == cubes
            assert left["branch"] + placed.count("branch") == cubes
            assert set(state.active_leaves(p)) == slow_active_leaves(state, p)
            assert state.scores()[p] == len(slow_active_leaves(state, p))
            assert set(state.available_holes(p)) == slow_available_holes(state, p)
        if state.is_over():
            break
        if len(state.moves) >= 2:
            # The immediate reading: past the opening, a game still going has no tree
            # without active leaves (the cube that shaded the last one ended it).
            assert all(slow_active_leaves(state, q) for q in (0, 1)), state.moves
        p = state.to_move
        legal = state.legal_moves()
        if state.phase == "first":
            assert {m.kind for m in legal} == {"leaf"} and all(m.cell[2] == 0 for m in legal)
        else:
            expected = {Move(k, c) for c in slow_available_holes(state, p)
                        for k in ("leaf", "branch") if state.cubes_left(p)[k]}
            assert set(legal) - {END} == expected
            assert (END in legal) == (state.phase == "main")
        for move in legal:
            assert state.parse_move(str(move)) == move
    assert state.is_over()
    reason = state.end_reason
    if reason == "final-growth":
        final = state.to_move
        assert not sum(state.cubes_left(final).values()) or not state.available_holes(final)
        assert not sum(state.cubes_left(1 - final).values())
    elif reason == "double-pass":
        assert [str(m) for m in state.moves[-2:]] == ["end", "end"]
    else:
        assert reason == "no-active-leaves"
        assert state.scores()[state.loser_without_leaves] == 0
        assert state.winner() == 1 - state.loser_without_leaves


@SETTINGS
@given(seed=st.integers(0, 10**6), cubes=st.integers(1, 6))
def test_exactly_the_legal_moves_play(seed, cubes):
    """Every move near the trees plays if and only if legal_moves lists it, and a rejected
    move leaves the state as it was."""
    rng = random.Random(seed)
    for state in random_game(seed, cubes):
        if rng.random() > 0.3:
            continue
        occupied = [parse_cell(n) for n in state.occupancy()] or [(0, 0, 0)]
        xs, ys, zs = zip(*occupied)
        candidates = [END] + [
            Move(k, (x, y, z)) for k in ("leaf", "branch")
            for x in range(min(min(xs), 0) - 1, max(max(xs), 3) + 2)
            for y in range(min(min(ys), 0) - 1, max(max(ys), 3) + 2)
            for z in range(0, max(zs) + 2)]
        legal = set(state.legal_moves())
        before = state_view(state)
        for move in candidates:
            try:
                state.play(move)
            except IllegalMove as exc:
                assert move not in legal, f"{move} is listed but rejected: {exc.reason}"
                assert exc.reason
                assert state_view(state) == before
            else:
                assert move in legal, f"{move} plays but is not listed"
                assert state.undo() == move
                assert state_view(state) == before


@SETTINGS
@given(seed=st.integers(0, 10**6), cubes=st.integers(1, 16))
def test_undo_json_and_copy_round_trip(seed, cubes):
    views = []
    for state in random_game(seed, cubes, pass_weight=0.1):
        views.append(state_view(state))
    final = state.copy()
    assert state_view(final) == views[-1]
    again = games.load_state(state.to_json())
    assert again == state and state_view(again) == views[-1]
    assert again.winner() == state.winner() and again.end_reason == state.end_reason
    for view in reversed(views[:-1]):
        state.undo()
        assert state_view(state) == view
    assert state_view(final) == views[-1]  # the copy did not move with the original

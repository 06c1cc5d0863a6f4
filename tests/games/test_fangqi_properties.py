"""Fangqi over random games on random boards: the engine's bit arithmetic checked against the
rules written out the slow, obvious way on the occupancy; undo keeps the phase; a playout ends
the game (the round trips every game keeps: tests/games/test_conformance.py)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.fangqi import GAME

SETTINGS = settings(max_examples=40, deadline=None)

boards = st.tuples(st.integers(2, 6), st.integers(2, 6)).map(lambda rc: f"{rc[0]}x{rc[1]}p")
options = st.fixed_dictionaries({
    "board": boards,
    "extra_removal": st.booleans(),
    "repeat_squares": st.booleans(),
    "quiet_limit": st.integers(1, 30),
})


def random_game(seed: int, opts: dict):
    """Yield (state, move about to be played) through a random game, then (state, None)."""
    rng = random.Random(seed)
    state = GAME.new_state(**opts)
    while not state.is_over():
        move = rng.choice(state.legal_moves())
        yield state, move
        state.play(move)
    yield state, None


def point(name: str) -> tuple[int, int]:
    return "abcdefghijklmnopqrstuvwxyz".index(name[0]), int(name[1:]) - 1


def slow_in_square(occ: dict, colour: str) -> set:
    out = set()
    for name, c in occ.items():
        if c != colour:
            continue
        x, y = point(name)
        block = [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)]
        names = [f"{'abcdefghijklmnopqrstuvwxyz'[bx]}{by + 1}" for bx, by in block]
        if all(occ.get(n) == colour for n in names):
            out.update(names)
    return out


def slow_targets(occ: dict, name: str, rows: int, cols: int) -> list:
    x, y = point(name)
    out = []
    for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        cx, cy = x + dx, y + dy
        while 0 <= cx < cols and 0 <= cy < rows:
            n = f"{'abcdefghijklmnopqrstuvwxyz'[cx]}{cy + 1}"
            if n in occ:
                break
            out.append(n)
            cx, cy = cx + dx, cy + dy
    return out


@SETTINGS
@given(seed=st.integers(0, 10_000), opts=options)
def test_counters_add_up_and_squares_protect(seed, opts):
    taken = [0, 0]
    initial = None
    for state, move in random_game(seed, opts):
        if initial is None:
            initial = state.scores()
        occ = state.occupancy()
        for p in (0, 1):
            assert state.scores()[p] == state.on_board(p) + state.in_hand(p)
            assert state.scores()[p] == initial[p] - taken[p]
        if move is None:
            break
        mover, victim = state.to_move, 1 - state.to_move
        colour = ("black", "white")[victim]
        # every capture is of the victim's counter; a square member only once none is outside
        remaining = dict(occ)
        for c in move.captures:
            assert remaining[c] == colour
            members = slow_in_square(remaining, colour)
            outside = [n for n, k in remaining.items() if k == colour and n not in members]
            if state.phase != "first-removal" and outside and c in members:
                # taken later in the same move, after the outside ones (reading 10)
                assert all(o in move.captures for o in outside)
            del remaining[c]
        taken[victim] += len(move.captures)
        assert state.scores()[mover] > 0


@SETTINGS
@given(seed=st.integers(0, 10_000), opts=options)
def test_the_rules_the_slow_way(seed, opts):
    for state, move in random_game(seed, opts):
        if state.is_over():
            a, b = state.scores()
            if state.end_reason == "reduced":
                loser = 1 - state.winner()
                assert state.scores()[loser] <= 3
                assert loser == 1 - state.last_mover()
            elif state.end_reason == "blocked":
                loser = state.to_move
                occ = state.occupancy()
                colour = ("black", "white")[loser]
                assert all(not slow_targets(occ, n, state.grid.rows, state.grid.cols)
                           for n, k in occ.items() if k == colour)
                assert state.winner() == 1 - loser
            break
        occ = state.occupancy()
        if state.phase == "placement":
            assert sorted(str(m) for m in state.legal_moves()) == sorted(
                n for n in state.sites() if n not in occ)
        elif state.phase == "movement":
            colour = ("black", "white")[state.to_move]
            slides = {(m.frm, m.to) for m in state.legal_moves()}
            assert slides == {(n, t) for n, k in occ.items() if k == colour
                              for t in slow_targets(occ, n, state.grid.rows, state.grid.cols)}
        else:
            colour = ("black", "white")[1 - state.to_move]
            theirs = {n for n, k in occ.items() if k == colour}
            if state.phase == "square-removal":
                outside = theirs - slow_in_square(occ, colour)
                theirs = outside or theirs
            assert sorted(state.takeable()) == sorted(theirs)


# Notation, undo, JSON and playout round trips: tests/games/test_conformance.py, for every game.

@SETTINGS
@given(seed=st.integers(0, 10_000), opts=options)
def test_undo_restores_the_phase(seed, opts):
    for state, move in random_game(seed, opts):
        if move is None:
            break
        phase = state.phase
        state.play(move)
        state.undo()
        assert state.phase == phase


@SETTINGS
@given(seed=st.integers(0, 10_000), opts=options)
def test_a_playout_plays_to_the_end(seed, opts):
    state = GAME.new_state(**opts)
    state.playout(random.Random(seed))
    assert state.is_over()


@SETTINGS
@given(st.integers(0, 10**6), options)
def test_move_prior_guesses_every_legal_move_and_puts_a_capture_first(seed, opts):
    # The search's guess (games/ai/mcts.py): one number per legal move in every phase, and in
    # movement no slide without a capture above one that takes.
    for state, _ in random_game(seed, opts):
        moves = state.legal_moves()
        prior = state.move_prior(moves)
        assert len(prior) == len(moves)
        assert all(isinstance(v, int) for v in prior)
        takes = [v for m, v in zip(moves, prior) if m.frm and m.captures]
        quiet = [v for m, v in zip(moves, prior) if m.frm and not m.captures]
        if takes and quiet:
            assert min(takes) > max(quiet)

"""Arbos's fast random playout (what the search plays out with): from any position it plays
legal moves only, to the end of the game or its cap, records them so `undo` restores the
position exactly, and is repeatable for a seed."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.arbos import GAME, PLAYOUT_CAP

SETTINGS = settings(max_examples=25, deadline=None)
BOARDS = st.sampled_from(["6x6", "8x8", "7x10", "20x20"])


def position(seed: int, board: str, moves: int):
    """A state after `moves` uniformly random legal moves (or fewer, if the game ends): a
    uniform game reaches the setup, follow-ups and removals alike."""
    rng = random.Random(seed)
    # half the games with the drawn setup (reading 13), half with the chosen one
    setup = {"setup": "chosen"} if seed % 2 else {"setup_seed": seed % 2**32}
    state = GAME.new_state(board=board, **setup)
    for _ in range(moves):
        if state.is_over():
            break
        state.play(rng.choice(state.legal_moves()))
    return state


def internals(state) -> tuple:
    """Everything a position is made of, incremental bookkeeping included."""
    return (state.summary(), state.occupancy(), state.legal_moves(), state.trees(0),
            state.trees(1), [state.tree_id(s) for s in state.sites()],
            state._board[:], state._seed_dist[:], state._dist_count[:], state._tree_of[:],
            [{k: sorted(v) for k, v in t.items()} for t in state._trees],
            [sorted(s) for s in state._seeds], state._spores_left[:], state._placed_seeds)


@SETTINGS
@given(seed=st.integers(0, 10**9), board=BOARDS, before=st.integers(0, 120))
def test_playout_plays_legal_moves_to_the_end_and_undo_restores_exactly(seed, board, before):
    state = position(seed, board, before)
    start = len(state.moves)
    snapshot = internals(state)
    scores = state.playout(random.Random(seed))
    played = state.moves[start:]
    assert state.is_over() or len(played) == PLAYOUT_CAP
    assert scores == state.scores()
    # Every move was legal when it was made: a fresh game replays them through `play`.
    replay = GAME.new_state(**state.options())
    replay.play_all(state.moves)
    assert replay.summary() == state.summary()
    assert replay.occupancy() == state.occupancy()
    assert replay.trees(0) == state.trees(0) and replay.trees(1) == state.trees(1)
    for _ in played:
        state.undo()
    assert internals(state) == snapshot


@SETTINGS
@given(seed=st.integers(0, 10**9), board=BOARDS, before=st.integers(0, 80))
def test_playout_is_the_same_game_for_the_same_seed(seed, board, before):
    state = position(seed, board, before)
    twin = state.copy()
    assert state.playout(random.Random(seed)) == twin.playout(random.Random(seed))
    assert state.moves == twin.moves


def test_playout_stops_at_its_cap_and_undo_takes_those_moves_back():
    state = position(3, "20x20", 30)
    snapshot = internals(state)
    state.playout(random.Random(1), cap=7)
    assert len(state.moves) == 37 and not state.is_over()
    for _ in range(7):
        state.undo()
    assert internals(state) == snapshot


def test_playouts_finish_games_on_the_full_board():
    # Uniformly random players never stop making and removing a fourth tree (a uniform game
    # of 20x20 runs past 2000 moves at 0:0); the playout grows at most three trees a player,
    # so its games end, with both players' spores used up, in a few hundred moves.
    for seed in range(5):
        state = GAME.new_state()
        state.playout(random.Random(seed))
        assert state.is_over() and len(state.moves) < 400
        assert state.spores_left(0) < 10 and state.spores_left(1) < 10


@pytest.mark.parametrize("midturn", ["must_remove", "follow_ups_left"])
def test_playout_from_the_middle_of_a_turn(midturn):
    # A uniform game soon owes a removal (a fourth tree) or follow-ups (a replacement): the
    # playout finishes that turn legally, and undo comes back to it.
    rng = random.Random(11)
    state = GAME.new_state(board="8x8", setup="chosen")
    while not getattr(state, midturn):
        state.play(rng.choice(state.legal_moves()))
    snapshot, start = internals(state), len(state.moves)
    state.playout(random.Random(2))
    replay = GAME.new_state(**state.options())
    replay.play_all(state.moves)
    assert replay.is_over() and replay.summary() == state.summary()
    for _ in range(len(state.moves) - start):
        state.undo()
    assert internals(state) == snapshot


@pytest.mark.parametrize("draws", [0, 48])
def test_with_three_trees_a_playout_draws_among_exactly_the_moves_that_keep_three(
        draws, monkeypatch):
    # The playout's draw with three trees (draws over the board, then the short list of the
    # cells beside the mover's spores; with 0 draws, the list alone): every legal
    # spore or replacement that leaves the mover at most three trees is played by some
    # seed, and nothing else is.
    import games.arbos

    monkeypatch.setattr(games.arbos, "_DRAWS", draws)
    found = 0
    for seed in range(60):
        rng = random.Random(seed)
        state = GAME.new_state(board="8x8", setup_seed=seed)
        while not state.is_over() and not (
                state.tree_count(state.to_move) == 3 and state.spores_left(state.to_move)
                and not state.must_remove and not state.follow_ups_left):
            state.playout(rng, cap=1)
        if state.is_over():
            continue
        found += 1
        p = state.to_move
        keeping = set()
        for move in state.legal_moves():
            if move.kind in ("spore", "replace"):
                state.play(move)
                if state.tree_count(p) <= 3:
                    keeping.add(str(move))
                state.undo()
        played = set()
        for k in range(40 * len(keeping) + 40):
            state.playout(random.Random(k), cap=1)
            played.add(str(state.undo()))
        assert played == (keeping or {"pass"}), seed
        if found == 6:
            break
    assert found == 6


def test_a_playout_with_choices_puts_its_spore_on_the_best_cell_it_drew(monkeypatch):
    # `choices` above 1 (the search option `playout_options`, benchmarks/search_pair.py
    # --a-tuning '{"playout_options": {"choices": 4}}'): of the legal cells drawn
    # the playout plays the one `_playout_worth` values most. With enough draws to see every
    # cell of an 8x8 board, that is the best of all the legal ones; with one choice (the
    # default), a uniformly random one, often worse.
    import games.arbos

    monkeypatch.setattr(games.arbos, "_DRAWS", 4000)
    checked, worse = 0, 0
    for seed in range(80):
        state = position(seed, "8x8", 30 + seed % 20)
        if (state.is_over() or state.phase != "play" or state.must_remove
                or state.follow_ups_left or not state.spores_left(state.to_move)):
            continue
        p = state.to_move
        worth = {}
        for move in state.legal_moves():
            if move.kind in ("spore", "replace"):
                r, c = move.cell
                i = r * state.geo.cols + c
                state.play(move)
                keeps = state.tree_count(p) <= 3
                state.undo()
                if keeps:
                    worth[str(move)] = state._playout_worth(p, i)
        if not worth:
            continue
        checked += 1
        state.playout(random.Random(seed), cap=1, choices=10**6)
        assert worth[str(state.undo())] == max(worth.values()), seed
        state.playout(random.Random(seed), cap=1, choices=1)
        worse += worth[str(state.undo())] < max(worth.values())
    assert checked >= 15 and worse >= 3


def test_the_playouts_worth_of_a_cell():
    # White's seed on D4 with one tree (C3) beside it and another (F6) away from it: the cell
    # that brings D4 its second tree (E5) is worth the most; growing the tree that D4 already
    # has (C4), a little more than growing a tree anywhere (B2); a replaced seed, least.
    state = GAME.new_state(board="8x8", seeds=1, spores=20, setup="chosen")
    state.play_all(["seed H8", "seed D4", "C3", "A8", "F6", "B8"])
    at = state.geo.names.index
    worth = {cell: state._playout_worth(0, at(cell)) for cell in ("E5", "C4", "B2", "D4")}
    assert worth == {"E5": 5.0, "C4": 1.5, "B2": 1.0, "D4": -4.0}
    # With D4 scoring (trees C3 and C5 beside it), a spore on C4 would join them: the worst.
    state = GAME.new_state(board="8x8", seeds=1, spores=20, setup="chosen")
    state.play_all(["seed H8", "seed D4", "C3", "A8", "C5", "B8"])
    assert state.scores() == (1, 0)
    assert state._playout_worth(0, at("C4")) == -3.0 < state._playout_worth(0, at("B2"))

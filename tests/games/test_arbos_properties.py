"""Arbos over random games: the incremental trees checked against a flood fill of the
occupancy, the limit of three trees at the end of every turn, the seed spacing, scoring the slow
way, and the trees through undo and copy (the round trips every game keeps:
tests/games/test_conformance.py)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.arbos import GAME, parse_cell, parse_move

SETTINGS = settings(max_examples=25, deadline=None)
BOARDS = st.sampled_from(["6x6", "8x8", "7x10", "20x20"])


def setup_of(seed: int) -> dict:
    """Half the games with the drawn setup (from the seed), half with the chosen one."""
    return {"setup": "chosen"} if seed % 2 else {"setup_seed": seed % 2**32}


def random_game(seed: int, board: str, max_moves: int = 160, pass_weight: float = 0.04):
    """Yield (state, move, mover) after each move of a random game (the state mutated in
    place; `mover` is who played the move)."""
    rng = random.Random(seed)
    state = GAME.new_state(board=board, **setup_of(seed))
    for _ in range(max_moves):
        if state.is_over():
            return
        moves = state.legal_moves()
        placements = [m for m in moves if m.kind != "pass"]
        move = rng.choice(placements) if placements and rng.random() > pass_weight \
            else rng.choice(moves)
        mover = state.to_move
        state.play(move)
        yield state, move, mover


def flood_trees(state, player: int) -> set[frozenset[str]]:
    """The player's trees the slow way: spores of one colour linked side or corner."""
    spores = {parse_cell(s) for s, k in state.occupancy().items() if k == f"spore:{player}"}
    out = set()
    while spores:
        start = spores.pop()
        tree, todo = {start}, [start]
        while todo:
            r, c = todo.pop()
            for n in [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]:
                if n in spores:
                    spores.discard(n)
                    tree.add(n)
                    todo.append(n)
        out.add(frozenset(f"{'ABCDEFGHIJKLMNOPQRST'[r]}{c + 1}" for r, c in tree))
    return out


def slow_scores(state) -> tuple[int, int]:
    occ = state.occupancy()
    trees = [flood_trees(state, p) for p in (0, 1)]
    out = []
    for p in (0, 1):
        n = 0
        for site, kind in occ.items():
            if kind != f"seed:{p}":
                continue
            r, c = parse_cell(site)
            # (names past the board's edge name no tree's cell, so they match nothing)
            near = {f"{'ABCDEFGHIJKLMNOPQRSTU'[r + dr]}{c + dc + 1}"
                    for dr in (-1, 0, 1) for dc in (-1, 0, 1) if r + dr >= 0 and c + dc >= 0}
            n += sum(1 for t in trees[p] if t & near) >= 2
        out.append(n)
    return tuple(out)


@SETTINGS
@given(seed=st.integers(0, 10**9), board=BOARDS)
def test_trees_follow_the_occupancy_and_never_exceed_three_at_a_turns_end(seed, board):
    for state, move, mover in random_game(seed, board):
        for p in (0, 1):
            assert {frozenset(t) for t in state.trees(p)} == flood_trees(state, p)
        if state.to_move != mover or state.is_over():  # the mover's turn is over
            assert state.tree_count(mover) <= 3
        else:
            assert state.tree_count(mover) <= 3 or state.must_remove or state.follow_ups_left
        assert state.scores() == slow_scores(state)


@SETTINGS
@given(seed=st.integers(0, 10**9), board=BOARDS)
def test_seeds_keep_their_distance_unless_no_free_cell_could(seed, board):
    seeds: list[tuple[int, int]] = []
    state = GAME.new_state(board=board, setup="chosen")
    rows, cols = (int(n) for n in board.split("x"))
    rng = random.Random(seed)
    while state.phase == "setup":
        free = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in seeds]

        def spacing(cell):
            return min((max(abs(cell[0] - r), abs(cell[1] - c)) for r, c in seeds), default=3)

        best = min(3, max(spacing(c) for c in free))
        legal = [m.cell for m in state.legal_moves()]
        assert set(legal) == {c for c in free if spacing(c) >= best}
        cell = rng.choice(legal)
        state.play(parse_move(f"seed {'ABCDEFGHIJKLMNOPQRST'[cell[0]]}{cell[1] + 1}"))
        seeds.append(cell)
    assert len(seeds) == 2 * state.options()["seeds"]


# Notation, undo, copy and JSON round trips: tests/games/test_conformance.py, for every game.

@SETTINGS
@given(seed=st.integers(0, 10**9), board=BOARDS)
def test_undo_and_copy_keep_the_trees(seed, board):
    state = GAME.new_state(board=board, **setup_of(seed))
    snapshots = [(state.trees(0), state.trees(1))]
    for state, _, _ in random_game(seed, board, max_moves=90):
        snapshots.append((state.trees(0), state.trees(1)))
    twin = state.copy()
    # undo back to the start, checking every position's trees on the way
    for expected in reversed(snapshots[:-1]):
        state.undo()
        assert (state.trees(0), state.trees(1)) == expected
    # the copy was not touched by the undos, and its trees are the occupancy's
    assert (twin.trees(0), twin.trees(1)) == snapshots[-1]
    assert {frozenset(t) for t in twin.trees(0)} == flood_trees(twin, 0)


@SETTINGS
@given(seed=st.integers(0, 10**9))
def test_moves_at_agrees_with_legal_moves_on_the_big_board(seed):
    for state, _, _ in random_game(seed, "20x20", max_moves=60):
        pass
    by_site: dict[str, list] = {}
    for m in state.legal_moves():
        if m.cell is not None:
            by_site.setdefault(f"{'ABCDEFGHIJKLMNOPQRST'[m.cell[0]]}{m.cell[1] + 1}", []).append(m)
    for site in state.sites():
        assert state.moves_at(site) == by_site.get(site, [])


@SETTINGS
@given(seed=st.integers(0, 10**9), board=BOARDS)
def test_legal_cells_are_the_legal_moves_by_kind(seed, board):
    for state, _, _ in random_game(seed, board, max_moves=60):
        cells = state.legal_cells()
        occupancy = state.occupancy()
        expected = {}
        for m in state.legal_moves():
            if m.cell is None:
                continue
            site = f"{'ABCDEFGHIJKLMNOPQRST'[m.cell[0]]}{m.cell[1] + 1}"
            if m.kind == "spore":
                r, c = m.cell
                near = [f"{'ABCDEFGHIJKLMNOPQRSTU'[r + dr]}{c + dc + 1}"
                        for dr in (-1, 0, 1) for dc in (-1, 0, 1) if r + dr >= 0 and c + dc >= 0]
                own_seed = any(occupancy.get(n) == f"seed:{state.to_move}" for n in near)
                expected[site] = "seed" if own_seed else "free"
            elif m.kind in ("seed", "replace"):
                expected[site] = "setup" if m.kind == "seed" else "replace"
        assert cells == expected

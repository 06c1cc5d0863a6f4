"""The engines whose fast `playout(rng)` promises "the same distribution as repeating
`play(rng.choice(legal_moves()))`" keep that promise: the first moves of many seeded playouts
are compared with the exact probabilities of the uniform loop by a chi-square test.

This is what makes `benchmarks/ai.py`'s comparison with OpenSpiel fair (a faster playout that
played other games would be a different thing), and what the search relies on. Seeded, so the
test is deterministic; a biased draw (an off-by-one in the r-th vacant point, a shuffle that
favours the list's order) puts the statistic far past the bound."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

import games

#: Normal quantile of the bound: a correct engine exceeds it with probability 1e-4 (and a seed
#: that did would do so for ever; the seeds below pass).
Z = 3.72


def chi_square_bound(df: int) -> float:
    """The chi-square quantile for probability 1 - 1e-4 (Wilson-Hilferty approximation)."""
    a = 2 / (9 * df)
    return df * (1 - a + Z * math.sqrt(a)) ** 3


def uniform_loop(state, depth: int) -> dict[tuple[str, ...], float]:
    """The exact probability of each sequence of the next `depth` moves (fewer where the game
    ends) under the uniform loop."""
    if depth == 0 or state.is_over():
        return {(): 1.0}
    moves = state.legal_moves()
    out: dict[tuple[str, ...], float] = {}
    for m in moves:
        state.play(m)
        for rest, p in uniform_loop(state, depth - 1).items():
            out[(str(m), *rest)] = p / len(moves)
        state.undo()
    return out


def position(name: str, board: str | None, seed: int, moves: int):
    rng = random.Random(seed)
    state = games.get_game(name).new_state(**({"board": board} if board else {}))
    for _ in range(moves):
        state.play(rng.choice(state.legal_moves()))
    return state


# (game, board, seed and random moves to the position, moves of each playout compared).
# Chosen to cover each engine's branches: Tree Planting from a few grooves left (whole
# playouts, captures and extra turns included); Treeblox's first cubes and later turns;
# Fangqi's placement, removals and slides with captures.
CASES = [
    ("tree-planting", "2x2", 1, 8, 4),
    ("tree-planting", "3x3", 2, 15, 3),
    ("treeblox", None, 3, 0, 2),
    ("treeblox", None, 4, 9, 2),
    ("fangqi", "4x4", 5, 12, 2),
    ("fangqi", "4x4", 6, 16, 2),
    ("fangqi", "5x5", 7, 40, 2),
]


@pytest.mark.parametrize("name,board,seed,moves,depth", CASES)
def test_fast_playout_draws_like_the_uniform_loop(name, board, seed, moves, depth):
    state = position(name, board, seed, moves)
    assert not state.is_over()
    expected = uniform_loop(state, depth)
    # Enough playouts for at least 25 expected in the least likely sequence.
    n = max(2000, math.ceil(25 / min(expected.values())))
    assert n <= 60_000, f"{name} {board}: {len(expected)} sequences is too wide a case"
    rng = random.Random(seed)
    seen: Counter = Counter()
    for _ in range(n):
        before = len(state.moves)
        state.playout(rng, cap=depth)
        made = state.moves[before:]
        seen[tuple(map(str, made))] += 1
        for _ in made:
            state.undo()
    assert set(seen) <= set(expected), f"{name}: a sequence the uniform loop never plays"
    stat = sum((seen[s] - n * p) ** 2 / (n * p) for s, p in expected.items())
    df = len(expected) - 1
    assert df >= 1
    assert stat < chi_square_bound(df), (name, board, stat, df, chi_square_bound(df))

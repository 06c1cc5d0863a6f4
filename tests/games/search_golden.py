"""The search's answers recorded before its iterations were made cheaper (issue 40), so that a
change meant to cost less and play the same can be shown to play the same: for fixed
positions and seeds, the same legal moves in the same order, the same best move and the same
visit counts at the root.

    .venv/bin/python tests/games/search_golden.py      # (re)records tests/games/data/search_golden.json

Record it only from a tree whose play is the reference (main before a speed-up); the test
(test_search_golden.py) compares the tree it runs in with the file.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

FILE = Path(__file__).parent / "data" / "search_golden.json"
#: game -> (options, positions, iterations a search, seeds a position). Iterations as a
#: level's (a few), positions from random games a random share of the way in.
CASES = {
    "game-for-the-trees": ({}, 4, 48, (1, 2)),
    "treeblox": ({}, 4, 160, (1, 2)),
    "fangqi": ({"board": "6x6"}, 4, 160, (1, 2)),
    "arbos": ({"board": "10x10"}, 3, 80, (1,)),
    "tree-planting": ({"board": "classic"}, 3, 160, (1,)),
}
#: Positions whose whole legal move list is compared (the move generator, not only the search).
MOVE_LISTS = {"game-for-the-trees": 60, "treeblox": 30, "fangqi": 30}


def _positions(name: str, options: dict, count: int, seed: int) -> list:
    import games

    game = games.get_game(name)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = game.new_state(**options)
        limit = rng.randrange(1, 120)
        while not state.is_over() and len(state.moves) < limit:
            moves = state.legal_moves()
            state.play(moves[rng.randrange(len(moves))])
        if not state.is_over() and len(state.legal_moves()) > 1:
            out.append(state)
    return out


def digest(moves) -> str:
    return hashlib.sha256("\n".join(map(str, moves)).encode()).hexdigest()[:16]


def answers(name: str, saved: str, iterations: int, seed: int) -> dict:
    """What the game's search answers for the position `saved` (JSON) at a seed."""
    import games
    from games.ai.mcts import Search, search_options

    state = games.load_state(saved)
    search = Search(state, seed=seed, **search_options(state))
    search.run(seconds=1e9, iterations=iterations)
    return {"best": str(search.best()),
            "visits": [[str(m), n] for m, n, _ in search.stats() if n]}


def record() -> dict:
    out: dict = {"searches": [], "move_lists": []}
    for name, (options, count, iterations, seeds) in CASES.items():
        for state in _positions(name, options, count, 40):
            saved = state.to_json()
            for seed in seeds:
                out["searches"].append({"game": name, "position": saved,
                                        "iterations": iterations, "seed": seed,
                                        **answers(name, saved, iterations, seed)})
    for name, count in MOVE_LISTS.items():
        for state in _positions(name, CASES[name][0], count, 41):
            out["move_lists"].append({"game": name, "position": state.to_json(),
                                      "moves": digest(state.legal_moves())})
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    FILE.write_text(json.dumps(record(), indent=0) + "\n", encoding="utf-8")
    print(f"wrote {FILE}")

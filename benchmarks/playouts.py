"""What the search's playouts can tell it, and whether more search settles on a move.

    python benchmarks/playouts.py --game arbos [--positions 4] [--playouts 25] [--at 50]
        from positions of games the `beginner` level plays against itself (`--at` moves in),
        each position's playouts (the game's own `playout`): the share that end won by the
        player to move, by the other, or level on points (Arbos: a tie, which goes to black),
        and the points they end with. A playout that almost always ends level tells the
        search nothing about a move.
    python benchmarks/playouts.py --game arbos --agreement 160,640,2560 --seeds 3
        from positions of an `easy` game (moves 40, 80, 120), the move the search chooses at
        each number of iterations with `--seeds` different seeds: a search that settles
        chooses the same move whatever its seed, more so the more it searches.

`--state JSON` sets attributes of the game's state class first, `--tuning JSON` search
options over the game's own (Arbos's `{"playout_options": {"choices": 4}}`). Prints one
JSON object. Deterministic for its seeds; a benchmark, not a test (minutes at 2,560).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import games  # noqa: E402
import games.ai  # noqa: E402
from games.ai import tuning as tables  # noqa: E402
from games.ai.mcts import Search, search_options  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from strength import drawn_options  # noqa: E402


def played(game, level: str, stops: list[int], seed: int) -> list:
    """The positions a game between two players at `level` passes through at `stops` moves."""
    rng = random.Random(seed)
    state = game.new_state(**drawn_options(game, {}, rng, 0, {}))
    out = []
    while not state.is_over() and len(out) < len(stops):
        if len(state.moves) in stops and len(state.legal_moves()) > 1:
            out.append(state.copy())
        state.play(games.ai.play_level(state, games.ai.LEVELS[level],
                                       seed=rng.randrange(1 << 30)))
    return out


def outcomes(game, args) -> dict:
    starts = [p for k in range(args.positions)
              for p in played(game, "beginner", [args.at], args.seed + k)]
    rng = random.Random(args.seed)
    ends = collections.Counter()
    points = [0, 0]
    for state in starts:
        me = state.to_move
        for _ in range(args.playouts):
            probe = state.copy()
            a, b = probe.playout(rng)
            mine, theirs = (a, b) if me == 0 else (b, a)
            ends["mover" if mine > theirs else "other" if theirs > mine else "level"] += 1
            points[0] += mine
            points[1] += theirs
    total = sum(ends.values())
    return {"positions": len(starts), "playouts": total,
            "shares": {k: round(ends[k] / total, 3) for k in ("mover", "other", "level")},
            "mean_points": {"mover": round(points[0] / total, 2),
                            "other": round(points[1] / total, 2)}}


def agreement(game, args) -> dict:
    starts = played(game, "easy", [40, 80, 120], args.seed)
    tuning = json.loads(args.tuning)
    out = []
    for state in starts:
        row = {"moves_in": len(state.moves), "legal": len(state.legal_moves())}
        for its in map(int, args.agreement.split(",")):
            picks = collections.Counter()
            for seed in range(args.seeds):
                search = Search(state, seed=seed, **{**search_options(state), **tuning})
                search.run(seconds=3600.0, iterations=its * tables.of(game).search_effort)
                picks[str(search.best())] += 1
            row[str(its)] = {"distinct": len(picks), "most": picks.most_common(1)[0][1],
                             "picks": dict(picks)}
        print(json.dumps(row), file=sys.stderr, flush=True)
        out.append(row)
    return {"positions": out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--playouts", type=int, default=25)
    parser.add_argument("--at", type=int, default=50, help="moves into the game")
    parser.add_argument("--agreement", metavar="ITERATIONS,...")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--state", default="{}", metavar="JSON")
    parser.add_argument("--tuning", default="{}", metavar="JSON")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = games.get_game(args.game)
    cls = type(game.new_state())
    for name, value in json.loads(args.state).items():
        if not hasattr(cls, name):
            raise SystemExit(f"--state: {cls.__name__} has no {name!r}")
        setattr(cls, name, value)
    result = agreement(game, args) if args.agreement else outcomes(game, args)
    print(json.dumps({"game": args.game, "state": json.loads(args.state),
                      "tuning": json.loads(args.tuning), "seed": args.seed, **result}))


if __name__ == "__main__":
    main()

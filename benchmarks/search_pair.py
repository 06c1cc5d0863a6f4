"""Two settings of the search against each other, at a fixed effort (iterations, not time:
the machine's load changes nothing but how long it takes), colours alternating: to measure
a change to the search or a game's playout before making it the game's.

    python benchmarks/search_pair.py --game fangqi --a 160 --b 160 --b-value scores --games 20
        Fangqi's search valuing a stopped playout by the rules (`State.playout_value`: a
        counter lead worth less as the quiet limit nears, which draws) against the same
        search valuing it by the counters as they stand (before issue 29)
    python benchmarks/search_pair.py --game treeblox --a 640 --a-tuning '{"safe_root": true}' --b 640
    python benchmarks/search_pair.py --game arbos --a 160 --b 160 \
            --a-tuning '{"playout_options": {"choices": 4}}'
        Arbos's playouts putting each spore on the best of 4 cells drawn, against uniform ones

Each side is ITERATIONS a move (times the game's `search_effort`, as a level is), with
`--X-tuning JSON` over the game's `search_options` (both from its table,
games/ai/tuning/<game>.py) and `--X-value rules|scores`. Prints a
line per game as it ends (stderr) and one JSON object: A's share of points with its 95 %
interval (benchmarks/strength.py's `interval`).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import games  # noqa: E402
from games.ai import tuning as tables  # noqa: E402
from games.ai.mcts import Search, search_options  # noqa: E402
from games.base import State  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from strength import drawn_options, interval, points_for  # noqa: E402


def search_move(state, iterations: int, tuning: dict, value: str, seed: int,
                attributes: dict | None = None):
    legal = state.legal_moves()
    if len(legal) == 1:
        return legal[0]
    # The state class's attributes this side searches with (valuing by "scores": the scores as
    # they stand, the base State's playout_value), set for this search only.
    cls = type(state)
    if value == "scores":
        attributes = {**(attributes or {}), "playout_value": State.playout_value}
    kept = {name: cls.__dict__[name] for name in attributes or {} if name in cls.__dict__}
    for name, setting in (attributes or {}).items():
        setattr(cls, name, setting)
    try:
        search = Search(state, seed=seed, **{**search_options(state), **tuning})
        search.run(seconds=600.0, iterations=iterations * tables.of(state.game).search_effort)
        return search.best()
    finally:
        for name in attributes or {}:
            if name in kept:
                setattr(cls, name, kept[name])
            else:
                delattr(cls, name)  # inherited before: inherited again


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--option", action="append", metavar="KEY=VALUE")
    for side in ("a", "b"):
        parser.add_argument(f"--{side}", type=int, required=True, metavar="ITERATIONS")
        parser.add_argument(f"--{side}-tuning", default="{}", metavar="JSON")
        parser.add_argument(f"--{side}-value", default="rules", choices=("rules", "scores"))
        parser.add_argument(f"--{side}-state", default="{}", metavar="JSON",
                            help="attributes of the game's state class for this side's "
                                 "search")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--max-moves", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = games.get_game(args.game)
    options = dict(o.split("=", 1) for o in args.option or [])
    sides = [(args.a, json.loads(args.a_tuning), args.a_value, json.loads(args.a_state)),
             (args.b, json.loads(args.b_tuning), args.b_value, json.loads(args.b_state))]
    cls = type(game.new_state(**options))
    unknown = [name for side in sides for name in side[3] if not hasattr(cls, name)]
    if unknown:
        raise SystemExit(f"--a-state/--b-state: {cls.__name__} has no {unknown[0]!r}")
    rng = random.Random(args.seed)
    points, ends, drawn = [], {}, {}
    for i in range(args.games):
        seat_a = i % 2
        drawn = drawn_options(game, options, rng, i, drawn)
        state = game.new_state(**options, **drawn)
        start = time.process_time()
        while not state.is_over() and len(state.moves) < args.max_moves:
            its, tuning, value, attributes = sides[0] if state.to_move == seat_a else sides[1]
            state.play(search_move(state, its, tuning, value, rng.randrange(1 << 30),
                                   attributes))
        points.append(points_for(state, seat_a))
        end = getattr(state, "end_reason", None) if state.is_over() else "capped"
        ends[str(end)] = ends.get(str(end), 0) + 1
        print(f"game {i + 1}: A as player {seat_a}, {len(state.moves)} moves, {end}, scores "
              f"{state.scores()}, A {points[-1]}, {time.process_time() - start:.0f} s CPU",
              file=sys.stderr, flush=True)
    print(json.dumps({"game": args.game, "options": options,
                      "a": {"iterations": args.a, "tuning": sides[0][1], "value": args.a_value,
                            "state": sides[0][3]},
                      "b": {"iterations": args.b, "tuning": sides[1][1], "value": args.b_value,
                            "state": sides[1][3]},
                      "seed": args.seed, "ends": ends, **interval(points)}))


if __name__ == "__main__":
    main()

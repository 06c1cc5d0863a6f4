"""Game for the Trees: how long `legal_moves()` takes where many chains converge.

    python benchmarks/gftt_orders.py [--rounds 5]

Prints one JSON object: for each position, the moves listed, the growths tried (a count that
does not depend on the machine) and the seconds of each round (min / median / max). The
positions: the one `tests/games/test_game_for_the_trees.py` builds (eight chains of five
trees on three squares of a Black Birch, plus White grass), the same with a ninth chain, one
of grass and underbrush (eight chains on two squares) and one of trees and underbrush (nine
chains on two squares, three of them unable to grow).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import game_for_the_trees as engine  # noqa: E402

POSITIONS = {
    "trees 8 chains on 3 squares": dict(
        position="h......./.....A../..E...E./...bbb../..ABP.../GG....A./GGG...../GGG....H",
        roots="e5", chains="e4>d5 e4>e5 e4>f5 c4>e5 f7>e5 g3>f5 c6>d5 d4>d5"),
    "trees 9 chains on 3 squares": dict(
        position="h......./.....A../..E...E./...bbb../..ABP.../GG....A./GGG...../GGG....H",
        roots="e5", chains="e4>d5 e4>e5 e4>f5 c4>e5 f7>e5 g3>f5 c6>d5 d4>d5 g6>f5"),
    "grass 8 chains on 2 squares": dict(
        position="h......./......../...GGU../...G..U./...GG.U./.G..G.../..U...../.......H",
        chains="d4>e5 f6>e5 f6>f5 e6>f5 e4>f5 g5>f5 d6>e5 g4>f5"),
    "trees 9 chains on 2 squares": dict(
        position="h......./....E.../GEB..G../A.UBP.../..UUU.../..GG..../.......U/.......H",
        chains="c3>c4 d3>c4 e7>f6 d5>d4 b6>d4 a5>c4 c5>d4 e5>d4 c6>c4"),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    grow = engine._Turn.grow
    out = {"python": platform.python_version(), "machine": platform.machine(), "positions": {}}
    for name, options in POSITIONS.items():
        state = engine.GAME.new_state(**options)
        tried = [0]

        def counting(turn, item):
            tried[0] += 1
            return grow(turn, item)

        engine._Turn.grow = counting
        moves = state.legal_moves()
        engine._Turn.grow = grow
        seconds = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            state.legal_moves()
            seconds.append(time.perf_counter() - start)
        out["positions"][name] = {
            "moves": len(moves), "growths_tried": tried[0],
            "seconds_min_median_max": [round(min(seconds), 4),
                                       round(statistics.median(seconds), 4),
                                       round(max(seconds), 4)]}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

"""The cost of a frame's Moment (Referee.moment, what the views draw from at every frame) in a
game against the computer, as the game grows.

    .venv/bin/python benchmarks/moment.py [--moves 8 16 24] [--frames 2000] [--rounds 5]

A Tree Planting game on the simulated classic board (`treeboard trace`'s Tracer), its moves
chosen at random (seeded) and made with pieces, then the second seat given to the computer: a
takeback there walks a copy of the game back to the player's last move. Compared in the same run, rounds
alternating: the tree as it is (how many moves a takeback takes back is worked out once a
change) and the reference, the same code made to work it out again at every frame, as it did.
Prints one JSON object: microseconds per frame for each, median and spread (min-max) of the
rounds, at each game length.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_driver.config import sim_config  # noqa: E402
from board_driver.referee.tracer import Tracer  # noqa: E402


def board(tmp: str, moves: int) -> Tracer:
    t = Tracer(sim_config(journal=str(Path(tmp) / f"j{moves}.sqlite"),
                          layout="tree-planting-classic-matrix"))
    t.session.journal.durable(False)
    rng = random.Random(moves)
    state = t.referee.state
    while len(state.moves) < moves and not state.is_over():   # played by hand, as people do
        move = rng.choice(sorted(state.legal_moves(), key=str))
        t.step("place", [str(move)])
        for hole in state.last_planted() if str(state.moves[-1]) == str(move) else []:
            t.step("place", [hole])
    t.referee.set_seats(("human", "computer:easy"))
    return t


def per_frame(t: Tracer, frames: int, reference: bool) -> float:
    moments, ref, now = t.referee.moments, t.referee, t.clock()
    started = time.perf_counter()
    for i in range(frames):
        if reference:
            moments._depth = (None, 0)   # (forgotten: worked out again, as at every frame before)
        ref.moment(now + i * 0.02)
    return (time.perf_counter() - started) / frames * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, nargs="+", default=[8, 16, 24])
    ap.add_argument("--frames", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    out = {"what": "microseconds per frame's Moment, a Tree Planting game against the computer",
           "frames": args.frames, "rounds": args.rounds, "python": platform.python_version()}
    with tempfile.TemporaryDirectory(prefix="treeboard-moment-") as tmp:
        for moves in args.moves:
            t = board(tmp, moves)
            try:
                per_frame(t, args.frames // 4, False)   # warm-up
                rows = {"now": [], "reference_each_frame": []}
                for _ in range(args.rounds):   # alternating, so both see the same machine
                    rows["now"].append(per_frame(t, args.frames, False))
                    rows["reference_each_frame"].append(per_frame(t, args.frames, True))
                out[f"{len(t.referee.state.moves)} moves"] = {
                    name: {"median_us": round(statistics.median(v), 1),
                           "min_max_us": [round(min(v), 1), round(max(v), 1)]}
                    for name, v in rows.items()}
            finally:
                t.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

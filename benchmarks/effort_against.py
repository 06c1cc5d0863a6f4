"""A move's CPU time at every level, this tree against another checkout, alternating: each
tree's own `strength.py effort` (one core: a search is one process) on the same positions
(the same --seed), game by game and tree by tree, `--repeat` rounds.

    .venv/bin/python benchmarks/effort_against.py --against ../wt-main --positions 4

Prints one JSON object: game -> level -> tree -> {"median_s", "max_s"} (the median over the
rounds of each round's median and max over the positions) with "spread_s" (max - min of the
rounds' medians): on a shared machine the spread says how much of a difference is noise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = {"tree-planting": ["board=classic"], "treeblox": [], "fangqi": ["board=6x6"],
         "arbos": [], "game-for-the-trees": []}


def effort(tree: Path, game: str, positions: int, seed: int) -> dict:
    """`tree`'s own strength.py effort for `game` (its code: the script puts its tree first)."""
    cmd = [sys.executable, str(tree / "benchmarks" / "strength.py"), "effort", "--game", game,
           "--positions", str(positions), "--seed", str(seed)]
    for option in GAMES[game]:
        cmd += ["--option", option]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONHASHSEED="0"))
    return json.loads(out.stdout)["levels"]


def _median(values: list[float]) -> float:
    values = sorted(values)
    return values[len(values) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, required=True)
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", default=",".join(GAMES))
    args = parser.parse_args()
    trees = {"this": ROOT, "against": args.against.resolve()}
    runs: dict = {}
    for _ in range(args.repeat):
        for game in args.games.split(","):
            for name, tree in trees.items():   # alternating, game by game
                for level, row in effort(tree, game, args.positions, args.seed).items():
                    runs.setdefault(game, {}).setdefault(level, {}).setdefault(
                        name, []).append((row["median_s"], row["max_s"]))
                print(f"{game} {name} done", file=sys.stderr)
    result: dict = {"unit": "CPU seconds a move (time.process_time), one process",
                    "positions": args.positions, "repeat": args.repeat}
    for game, levels in runs.items():
        result[game] = {level: {name: {"median_s": _median([m for m, _ in rows]),
                                       "max_s": _median([x for _, x in rows]),
                                       "spread_s": round(max(m for m, _ in rows)
                                                         - min(m for m, _ in rows), 3)}
                                for name, rows in by_tree.items()}
                        for level, by_tree in levels.items()}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

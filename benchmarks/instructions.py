"""Instructions, not seconds: the hot paths' cost counted by valgrind's callgrind, which gives the
same count for the same code and input whatever else the machine is doing (a shared 2-core
machine makes timings of a refactor meaningless; a count is not).

    .venv/bin/python benchmarks/instructions.py                  # this tree, every workload
    .venv/bin/python benchmarks/instructions.py --against DIR    # and another checkout, alternating

Each workload runs in a process of its own under `valgrind --tool=callgrind`, fixed seeds and
PYTHONHASHSEED=0; the figure is its instructions minus those of a process that only imports
everything (`startup`). With --against, the two trees run alternately, `--repeat` times each,
and the spread (max - min over the repeats) is printed beside each count: it is 0 or nearly,
which is the point. Prints one JSON object: workload -> {tree: instructions (millions)}.

Workloads (each the code a player waits on, or the computer's inner loop):
- `playouts-<game>`: 2 random games by the move-by-move loop (legal_moves, play), the MCTS's
  path before a game's own playout existed, and the referee's path for legality;
- `fast-playouts-<game>`: 5 of the game's own `playout(rng)`;
- `search-arbos`: one move's search at 160 iterations on the 20x20 board, 60 moves in;
- `search-<game>` (every other game): one move's search at 160 iterations with the game's
  search options, 20 moves in (Game for the Trees: 30 turns);
- `trace-tree-planting`: a 12-move Tree Planting game through the whole pipeline on the
  simulated board (mock pins, matrix scan, debounce, reconcile, journal, LED frame).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = {"tree-planting": {"board": "classic"}, "fangqi": {"board": "6x6"},
         "arbos": {"board": "10x10"}, "treeblox": {}, "game-for-the-trees": {}}


def _tracer():
    try:
        from board_driver.referee.tracer import Tracer
    except ImportError:   # a checkout from before board_driver's rooms
        from board_driver.trace import Tracer
    return Tracer


def _imports() -> None:
    import games
    from board_driver.config import sim_config  # noqa: F401

    _tracer()
    for name in GAMES:
        games.get_game(name)


def _new(name: str):
    import games

    return games.get_game(name).new_state(**GAMES[name])


def _new_full(name: str, **options):
    import games

    return games.get_game(name).new_state(**options)


def run(workload: str) -> None:
    """One workload, in this process (the child valgrind watches)."""
    _imports()
    if workload == "startup":
        return
    rng = random.Random(1)
    if workload.startswith("playouts-"):
        name = workload.removeprefix("playouts-")
        for _ in range(2):
            state = _new(name)
            for _ in range(400):   # (Arbos can go on; the first 400 moves are the cost)
                if state.is_over():
                    break
                moves = state.legal_moves()
                state.play(moves[rng.randrange(len(moves))])
    elif workload.startswith("fast-playouts-"):
        name = workload.removeprefix("fast-playouts-")
        for _ in range(5):
            _new(name).playout(rng)
    elif workload == "search-arbos":
        # The computer's move at `medium` (160 iterations) on the full 20x20 board, from a
        # position 60 random moves in: what rating the levels costs (playouts and the tree).
        from games.ai.mcts import Search, search_options

        state = _new_full("arbos", setup_seed=7)
        for _ in range(60):
            moves = state.legal_moves()
            state.play(moves[rng.randrange(len(moves))])
        Search(state, seed=1, **search_options(state)).run(seconds=1e9, iterations=160)
    elif workload.startswith("search-"):
        # The computer's move at `medium` (160 iterations) with the game's search options,
        # some random moves in (Game for the Trees: 30 turns; the others: 20 moves).
        from games.ai.mcts import Search, search_options

        name = workload.removeprefix("search-")
        state = _new(name)
        for _ in range(30 if name == "game-for-the-trees" else 20):
            moves = state.legal_moves()
            state.play(moves[rng.randrange(len(moves))])
        Search(state, seed=1, **search_options(state)).run(seconds=1e9, iterations=160)
    elif workload == "trace-tree-planting":
        from board_driver.config import sim_config

        Tracer = _tracer()
        with tempfile.TemporaryDirectory() as tmp:
            t = Tracer(sim_config(journal=str(Path(tmp) / "j.sqlite")))
            try:
                for site in ("h0.0", "v0.0", "h0.1", "v0.2", "h2.0", "v1.0", "h1.1", "v1.1",
                             "h2.1", "v0.1", "h1.0", "v1.2"):
                    t.step("place", [site])
            finally:
                t.close()
    else:
        raise SystemExit(f"unknown workload {workload!r}")


WORKLOADS = (["startup"] + [f"playouts-{g}" for g in GAMES]
             + [f"fast-playouts-{g}" for g in GAMES] + ["search-arbos"]
             + [f"search-{g}" for g in GAMES if g != "arbos"] + ["trace-tree-planting"])


def count(tree: Path, workload: str) -> int:
    """Instructions of `workload` run from `tree` under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
        # This script's workloads on `tree`'s code (PYTHONPATH): the same work in both trees,
        # whatever workloads the other checkout's own copy of this script knows.
        script = Path(__file__).resolve()
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        sys.executable, str(script), "--child", workload],
                       cwd=tmp, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no totals")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, help="another checkout to count alternately")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", default="", help="workloads whose name starts so")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, os.environ.get("PYTHONPATH", str(ROOT)))
        run(args.child)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("instructions.py: valgrind is not installed (apt-get install valgrind)")
    trees = {"this": ROOT}
    if args.against:
        trees["against"] = args.against.resolve()
    chosen = [w for w in WORKLOADS if w == "startup" or w.startswith(args.only)]
    counts: dict[str, dict[str, list[int]]] = {w: {t: [] for t in trees} for w in chosen}
    for _ in range(args.repeat):
        for workload in chosen:
            for tree_name, tree in trees.items():   # alternating, workload by workload
                counts[workload][tree_name].append(count(tree, workload))
    result = {"unit": "million instructions, minus startup; [min, spread]",
              "python": sys.version.split()[0]}
    for workload in chosen:
        if workload == "startup":
            continue
        result[workload] = {}
        for tree_name in trees:
            net = [c - s for c, s in zip(counts[workload][tree_name], counts["startup"][tree_name])]
            result[workload][tree_name] = [round(min(net) / 1e6, 2),
                                           round((max(net) - min(net)) / 1e6, 3)]
    result["startup"] = {t: round(min(counts["startup"][t]) / 1e6, 1) for t in trees}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

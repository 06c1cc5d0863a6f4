"""Instructions, not seconds: the hot paths' cost counted by valgrind (cachegrind counting
instructions only, or callgrind), which gives the same count for the same code and input
whatever else the machine is doing (a shared 2-core machine makes timings of a refactor
meaningless; a count is not).

    .venv/bin/python benchmarks/instructions.py                  # this tree, every workload
    .venv/bin/python benchmarks/instructions.py --against DIR    # and another checkout, alternating

Each workload runs in a process of its own under valgrind (`--tool cachegrind`, the default:
`--cache-sim=no`, instructions only, about 2.7 times quicker than callgrind; `--tool callgrind`
counts within 0.2 % of it, the figures docs/ai.md gave before issue 40), fixed seeds and
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
  simulated board (mock pins, matrix scan, debounce, reconcile, journal, LED frame);
- `level-<game>-<level>`: the computer's move at that level (games.ai.play_level: the game's
  own effort, exact solver, slips) from `search-<game>`'s position, seed 1, the clock stood
  still so that no cap cuts it short. Only when named (`--only level-`): every game's levels
  are about 15 minutes of one core under cachegrind, an hour under callgrind.
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


def _position(name: str, rng: random.Random):
    """The position a search workload starts from: Arbos on the full 20x20 board 60 random
    moves in; Game for the Trees 30 turns in; every other game 20 moves in."""
    if name == "arbos":
        state = _new_full("arbos", setup_seed=7)
    else:
        state = _new(name)
    for _ in range({"arbos": 60, "game-for-the-trees": 30}.get(name, 20)):
        moves = state.legal_moves()
        state.play(moves[rng.randrange(len(moves))])
    return state


def _imports_games() -> None:
    import games
    import games.ai.mcts  # noqa: F401

    for name in GAMES:
        games.get_game(name)


def baseline(workload: str) -> str:
    """The startup a workload's count is taken net of: the games' imports alone for a level's
    search (a third of the whole startup: under load, most of these runs' cost), every
    import for the others."""
    return "startup-games" if workload.startswith("level-") else "startup"


def run(workload: str) -> None:
    """One workload, in this process (the child valgrind watches)."""
    if baseline(workload) == "startup-games" or workload == "startup-games":
        _imports_games()
    else:
        _imports()
    if workload.startswith("startup"):
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
    elif workload.startswith("search-"):
        # The computer's move at `medium` (160 iterations) with the game's search options.
        from games.ai.mcts import Search, search_options

        state = _position(workload.removeprefix("search-"), rng)
        Search(state, seed=1, **search_options(state)).run(seconds=1e9, iterations=160)
    elif workload.startswith("level-"):
        # The computer's move at a level as its game plays it (its own effort, exact solver,
        # slips), from the same position as `search-<game>`, seed 1. The clock stands still,
        # so the wall-time cap never cuts the search short (under callgrind a search runs
        # about 50 times slower): the count is the level's whole effort, as on a fast machine.
        from games.ai import level, play_level

        name, _, lvl = workload.removeprefix("level-").rpartition("-")
        play_level(_position(name, rng), level(lvl), seed=1, clock=lambda: 0.0)
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


#: The levels counted by `level-<game>-<level>` (games.ai.LEVELS, named here so that an older
#: checkout counted with --against runs the same workloads).
LEVEL_NAMES = ("beginner", "easy", "medium", "hard", "strongest")
WORKLOADS = (["startup", "startup-games"] + [f"playouts-{g}" for g in GAMES]
             + [f"fast-playouts-{g}" for g in GAMES] + ["search-arbos"]
             + [f"search-{g}" for g in GAMES if g != "arbos"] + ["trace-tree-planting"]
             + [f"level-{g}-{lvl}" for lvl in LEVEL_NAMES for g in GAMES])


TOOLS = {"cachegrind": ["--tool=cachegrind", "--cache-sim=no", "--branch-sim=no"],
         "callgrind": ["--tool=callgrind"]}


def count(tree: Path, workload: str, tool: str = "cachegrind") -> int:
    """Instructions of `workload` run from `tree` under valgrind's `tool`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "valgrind.out"
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
        # This script's workloads on `tree`'s code (PYTHONPATH): the same work in both trees,
        # whatever workloads the other checkout's own copy of this script knows.
        script = Path(__file__).resolve()
        subprocess.run(["valgrind", *TOOLS[tool], f"--{tool}-out-file={out}",
                        sys.executable, str(script), "--child", workload],
                       cwd=tmp, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError(f"{tool} wrote no totals")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, help="another checkout to count alternately")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", default="",
                        help="workloads whose name starts so (several: comma-separated); "
                             "default every workload but the levels' (level-: hours in all)")
    parser.add_argument("--tool", choices=sorted(TOOLS), default="cachegrind")
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
    # In the order --only names them (the cheap ones first: a long run's first counts come
    # soon), each baseline its workloads need first.
    prefixes = [p for p in args.only.split(",") if p] or [""]
    chosen: list[str] = []
    for prefix in prefixes:
        for w in WORKLOADS:
            if w.startswith(prefix) and not w.startswith("startup") and w not in chosen and (
                    prefix or not w.startswith("level-")):
                if baseline(w) not in chosen:
                    chosen.insert(0, baseline(w))
                chosen.append(w)
    for tree in trees.values():
        # Every module compiled before anything is counted: a run that compiles what it
        # imports (the first after a change) counts the compiler too (hundreds of millions).
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "games"),
                        str(tree / "board_driver")], check=True, stdout=subprocess.DEVNULL)
    counts: dict[str, dict[str, list[int]]] = {w: {t: [] for t in trees} for w in chosen}
    for _ in range(args.repeat):
        for workload in chosen:
            for tree_name, tree in trees.items():   # alternating, workload by workload
                counts[workload][tree_name].append(count(tree, workload, args.tool))
                print(f"{workload} {tree_name}: {counts[workload][tree_name][-1]:,}",
                      file=sys.stderr, flush=True)   # progress: a long run's counts so far
    result = {"unit": "million instructions, minus startup; [min, spread]", "tool": args.tool,
              "python": sys.version.split()[0]}
    for workload in chosen:
        if workload.startswith("startup"):
            continue
        result[workload] = {}
        for tree_name in trees:
            net = [c - s for c, s in zip(counts[workload][tree_name],
                                         counts[baseline(workload)][tree_name])]
            result[workload][tree_name] = [round(min(net) / 1e6, 2),
                                           round((max(net) - min(net)) / 1e6, 3)]
    for start in ("startup", "startup-games"):
        if start in counts:
            result[start] = {t: round(min(counts[start][t]) / 1e6, 1) for t in trees}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

"""The exact Tree Planting solver's values against an independent search, where no other
oracle reaches (the plain minimax of benchmarks/solver.py stops at 14 free grooves, and the
compiled core was checked against the Python solver, which shares its algorithm).

    python benchmarks/solver_check.py [--free 24 28 32] [--positions 8] [--board 16]
                                      [--budget 600] [--table 26]

The independent search is benchmarks/solver_check.c (compiled here with the system's C
compiler, called through ctypes): negamax with alpha-beta over every groove, trees first, and a
table of bounds; no forced captures, no safe-move or sacrifice pruning, no long-chain theory,
no symmetries, no MTD(f); it shares only the board's geometry with the solver (from the rules
module). Positions: benchmarks/solver.py's random positions of the board with FREE grooves
left, drawn as players play (the same seeds as its `--reach` and `--core` tables). For each
position it prints the solver's value (`solver_for`: the compiled core where built, book set
aside, a fresh solver) and its CPU seconds, then the independent search's value, nodes and
CPU seconds; a position the independent search does not finish within `--budget` CPU seconds
(checked between positions: one position is never cut) ends that count's run. Any
disagreement makes the exit status 1.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.ai import tree_planting as tp  # noqa: E402

SOURCE = Path(__file__).with_name("solver_check.c")


class Independent:
    """The independent search (solver_check.c) for one board, compiled into `folder`."""

    def __init__(self, board, folder: Path, log_entries: int = 24):
        cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            raise SystemExit("no C compiler (cc): install build-essential (./dev does)")
        lib = folder / "solver_check.so"
        subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(lib), str(SOURCE)], check=True)
        self.lib = ctypes.CDLL(str(lib))
        self.lib.check_setup.argtypes = [ctypes.c_int, ctypes.c_int,
                                         ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]
        self.lib.check_value.argtypes = [ctypes.c_uint64, ctypes.POINTER(ctypes.c_longlong)]
        masks = [sum(g.bit for g in sides) for sides in board.square_grooves]
        array = (ctypes.c_uint64 * len(masks))(*masks)
        if self.lib.check_setup(len(board.grooves), len(masks), array, log_entries) != 0:
            raise SystemExit(f"{board.name}: more than 64 grooves or 32 squares, or no memory "
                             f"for 2**{log_entries} entries")
        self.nodes = 0

    def value(self, edges: int) -> int:
        nodes = ctypes.c_longlong()
        value = self.lib.check_value(edges, ctypes.byref(nodes))
        self.nodes = nodes.value
        return value


def positions(board: str, free: int, count: int) -> list:
    """benchmarks/solver.py's random positions (the same seeds as its reach tables)."""
    spec = importlib.util.spec_from_file_location("solver_benchmark", ROOT / "benchmarks" / "solver.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reach_positions(board, free, count, seed=1000 + free)


def check(board: str, frees: list[int], count: int, budget: float, log_entries: int,
          say=print) -> dict:
    """Per count of free grooves: positions checked, agreeing, and the times (see above)."""
    from games.tree_planting import Board

    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        independent = Independent(Board.get(board), Path(tmp), log_entries)
        for free in frees:
            row = {"checked": 0, "agree": 0, "solver_s": [], "independent_s": [], "nodes": []}
            for state in positions(board, free, count):
                edges = state.position_key()[0]
                solver = (tp.CompiledSolver if tp.compiled_for(state.board) else tp.Solver)(
                    state.board, max_entries=4_000_000)
                solver.book = None
                start = time.process_time()
                theirs = solver.value(edges)
                row["solver_s"].append(time.process_time() - start)
                start = time.process_time()
                ours = independent.value(edges)
                took = time.process_time() - start
                row["independent_s"].append(took)
                row["nodes"].append(independent.nodes)
                row["checked"] += 1
                row["agree"] += theirs == ours
                say(json.dumps({"free": free, "edges": hex(edges), "solver": theirs,
                                "independent": ours, "solver_s": round(row["solver_s"][-1], 3),
                                "independent_s": round(took, 2), "nodes": independent.nodes}),
                    flush=True)
                if sum(row["independent_s"]) > budget:
                    break
            out[str(free)] = summary(row, count)
    return out


def summary(row: dict, count: int) -> dict:
    def mmm(values, digits=3):
        return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values),
                                                       max(values)))
    return {"positions checked": f"{row['checked']} of {count}",
            "values agreeing": row["agree"],
            "solver cpu_s min / median / max": mmm(row["solver_s"]),
            "independent cpu_s min / median / max": mmm(row["independent_s"], 2),
            "independent nodes median": round(statistics.median(row["nodes"]))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--free", type=int, nargs="+", default=[24, 28, 32])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--board", default="16")
    parser.add_argument("--budget", type=float, default=600.0,
                        help="CPU seconds of independent search per count, checked between positions")
    parser.add_argument("--table", type=int, default=25,
                        help="log2 of the independent search's table entries (16 bytes each)")
    args = parser.parse_args()
    which, where = tp.core()
    got = check(args.board, args.free, args.positions, args.budget, args.table,
                say=lambda text, **kw: print(text, file=sys.stderr, **kw))
    print(json.dumps({"board": args.board, "solver": f"{which} ({where})",
                      "independent table entries": 1 << args.table,
                      "load_average": [round(x, 2) for x in os.getloadavg()],
                      "free grooves": got}, indent=1))
    return 0 if all(r["values agreeing"] == int(r["positions checked"].split()[0])
                    for r in got.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())

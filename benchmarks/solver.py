"""The exact Tree Planting solver against a reference copy of itself (by default the one on
`main`), in one run, alternating.

    python benchmarks/solver.py [--rounds 3] [--ref main] [--tasks 3x3 classic mid]
                                [--mid-positions 8] [--mid-drawn 6]
    python benchmarks/solver.py --openspiel N [--openspiel-free 10]
    python benchmarks/solver.py --compare N [--ref main]
    python benchmarks/solver.py --core 28 30 32 [--reach-positions 8] [--python-up-to 30]

Each task runs in a child process per solver and round, so its peak memory (ru_maxrss) is its
own, and the order of the two solvers alternates from round to round. Tasks:
- `3x3`, `classic`: the value from empty (`Solver.value(0)`), one fresh solver.
Every solver has its opening book set aside (`solver.book = None`): this measures the search.
- `mid`: random mid-game classic positions (`--mid-drawn` grooves drawn, as players play: a
  random groove that gives no square away while there is one), every move's value
  (`move_values`, what the hints ask), a fresh solver each; times summed over the positions.
Prints one JSON object: per task and solver, CPU seconds (process_time of the child), nodes,
table entries and peak RSS as min/median/max over the rounds, and the ratio reference/new of
CPU seconds per round. Values must agree between the two solvers; a disagreement is printed
and makes the exit status 1. The machine is shared: note the load average printed with it.

With `--openspiel N`, instead: the final margin of N random positions per rectangle (2x2, 2x3,
3x3, a given number of grooves left) by this solver and by OpenSpiel's alpha-beta on its own
`dots_and_boxes`, and how many agree (exit status 1 unless all do). With `--compare N`: every
move's value of N random 3x3 and classic positions by both solvers, and how many agree.

With `--reach FREE [FREE ...]` (and `--reach-positions N`, `--reach-board 16`): the solver's
reach on random positions of the 4x4 board (40 grooves) with FREE grooves left, drawn as
players play (a groove that gives no square away while there is one): per count, the CPU
seconds of one fresh solver per position (`Solver.value`, book set aside), this solver and the
reference alternating first, min / median / max, and how many answered within 1 s. Each value
is checked against the reference solver (an earlier revision) and, with at most
`--plain-up-to` grooves free (14), against a plain minimax over the rules module itself
(`plain_value`: no pruning, no solver code); any disagreement makes the exit status 1.

With `--core FREE [FREE ...]` (and `--reach-positions N`, `--python-up-to 30`): the compiled core
(games/ai/tree_planting_core.c, `CompiledSolver`) against the pure-Python solver of this tree,
on the same random 4x4 positions as `--reach`, alternating which runs first: per count, the
CPU seconds of one fresh solver per position (`value`, book set aside, 4 million table
entries) min / median / max for each, the ratio Python / compiled per position, the nodes,
how many the compiled core answered within 1 s, and the time of what the computer asks
(`best_moves(first_only=True)`, a fresh compiled solver). Values are checked against the
Python solver up to `--python-up-to` free grooves (beyond, it takes minutes a position and only
the compiled core runs), and with at most `--plain-up-to` against the plain minimax; any
disagreement makes the exit status 1. Needs the core built (`pip install -e .` with a C
compiler: ./dev installs one).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import games  # noqa: E402

MODULE = "games/ai/tree_planting.py"


def spread(values: list[float]) -> str:
    """min / median / max, as one string so the report stays one line per figure."""
    return " / ".join(f"{round(v, 2):g}" if abs(v) < 1000 else str(round(v))
                      for v in (min(values), statistics.median(values), max(values)))


def load(path: str):
    """The solver module at `path` (the working tree's, or a reference copy from git)."""
    spec = importlib.util.spec_from_file_location(f"solver_under_test_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mid_positions(count: int, drawn: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    game = games.get_game("tree-planting")
    out = []
    while len(out) < count:
        state = game.new_state(board="classic")
        for _ in range(drawn):
            free = list(state.legal_moves())
            safe = [g for g in free if not state.gives_away(g)]
            state.play(rng.choice(safe or free))
        if not state.is_over():
            out.append(state.position_key()[0])
    return out


def child(path: str, task: str, mid_count: int, mid_drawn: int) -> None:
    """Run in a child: one task with the solver module at `path`; print what it measured."""
    mod = load(path)
    game = games.get_game("tree-planting")
    nodes = entries = 0
    values: list = []
    if task == "mid":
        board = game.new_state(board="classic").board
        cpu = 0.0
        for edges in mid_positions(mid_count, mid_drawn, seed=15):
            solver = mod.Solver(board)
            solver.book = None  # the search itself, not the opening book (where there is one)
            start = time.process_time()
            got = solver.move_values(edges)
            cpu += time.process_time() - start
            values.append(sorted(got.items()))
            nodes += solver.nodes
            entries += len(solver.table)
    else:
        solver = mod.Solver(game.new_state(board=task).board)
        solver.book = None
        start = time.process_time()
        values.append(solver.value(0))
        cpu = time.process_time() - start
        nodes, entries = solver.nodes, len(solver.table)
    print(json.dumps({"cpu_s": cpu, "nodes": nodes, "table_entries": entries,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "values": values}))


def openspiel_check(boards: list[str], positions: int, free: int) -> dict:
    """This solver's final margins against OpenSpiel's alpha-beta (`minimax.alpha_beta_search`
    over `dots_and_boxes` with `utility_margin`) on random positions of rectangles with `free`
    grooves left: an independent implementation of the rules and of the search."""
    import pyspiel
    from open_spiel.python.algorithms import minimax

    from games.ai.tree_planting import Solver

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from strength import action_of  # our groove -> OpenSpiel's action, kept in one place

    game = games.get_game("tree-planting")
    rng = random.Random(7)
    out = {}
    for board in boards:
        rows, cols = (int(x) for x in board.split("x"))
        spiel_game = pyspiel.load_game("dots_and_boxes", {"num_rows": rows, "num_cols": cols,
                                                          "utility_margin": True})
        agree, times = 0, {"ours": [], "openspiel": []}
        checked = 0
        while checked < positions:
            state = game.new_state(board=board)
            spiel = spiel_game.new_initial_state()
            for _ in range(len(state.board.grooves) - free):
                g = rng.choice(list(state.legal_moves()))
                state.play(g)
                spiel.apply_action(action_of(g.name, rows, cols))
            if state.is_over():
                continue
            checked += 1
            solver = Solver(state.board)
            solver.book = None
            start = time.process_time()
            rest = solver.value(state.position_key()[0])
            times["ours"].append(time.process_time() - start)
            a, b = state.scores()
            ours = rest + (a - b if state.to_move == 0 else b - a)
            start = time.process_time()
            theirs, _ = minimax.alpha_beta_search(spiel_game, spiel.clone(),
                                                  maximizing_player_id=spiel.current_player())
            times["openspiel"].append(time.process_time() - start)
            agree += ours == round(theirs)
        out[board] = {"positions": positions, "free_grooves": free, "agree": agree,
                      "cpu_s_per_position": {k: spread(v) for k, v in times.items()}}
    return out


def compare(ref_path: str, count: int) -> dict:
    """Every move's value of `count` random positions each of 3x3 and the classic board (8 to 20
    grooves drawn at random, or 10 to 20 as players play) by this solver and the reference one:
    how many agree."""
    ref, new = load(ref_path), load(str(ROOT / MODULE))
    game = games.get_game("tree-planting")
    rng = random.Random(11)
    out = {}
    for board in ("3x3", "classic"):
        agree = checked = 0
        while checked < count:
            state = game.new_state(board=board)
            careful = checked % 2  # every other one played as players play (no gifts early)
            for _ in range(rng.randrange(10 if careful else 8, 21)):
                free = list(state.legal_moves())
                safe = [g for g in free if careful and not state.gives_away(g)]
                state.play(rng.choice(safe or free))
            if state.is_over():
                continue
            checked += 1
            edges = state.position_key()[0]
            got = []
            for mod in (ref, new):
                solver = mod.Solver(state.board)
                solver.book = None
                got.append(solver.move_values(edges))
            agree += got[0] == got[1]
        out[board] = {"positions": count, "every_move_value_agrees": agree}
    return out


def reach_positions(board: str, free: int, count: int, seed: int) -> list:
    """`count` random positions of `board` with `free` grooves left, as players play."""
    rng = random.Random(seed)
    game = games.get_game("tree-planting")
    out = []
    while len(out) < count:
        state = game.new_state(board=board)
        while len(state.legal_moves()) > free:
            legal = list(state.legal_moves())
            safe = [g for g in legal if not state.gives_away(g)]
            state.play(rng.choice(safe or legal))
        if not state.is_over():
            out.append(state)
    return out


def plain_value(state, memo: dict | None = None) -> int:
    """The margin the mover gains from here on, by plain minimax over the rules module's
    `legal_moves`, `play`, `undo` and `scores` (memoised by position): an oracle sharing no
    code with the solver."""
    memo = {} if memo is None else memo
    if state.is_over():
        return 0
    key = state.position_key()
    if key in memo:
        return memo[key]
    mover = state.to_move
    before = state.scores()[mover]
    best = -INF_PLAIN
    for g in list(state.legal_moves()):
        state.play(g)
        gained = state.scores()[mover] - before
        rest = plain_value(state, memo)
        value = gained + rest if state.to_move == mover else gained - rest
        state.undo()
        best = max(best, value)
    memo[key] = best
    return best


INF_PLAIN = 1 << 20


def time_values(makers: dict, state, i: int, times: dict, nodes: dict | None = None) -> dict:
    """Name -> the value of `state` by a fresh solver of each maker (4 million table entries,
    book set aside), which runs first alternating with `i`; the CPU seconds of each appended
    to `times[name]` (and its nodes to `nodes[name]`)."""
    edges = state.position_key()[0]
    values = {}
    for name in (list(makers) if i % 2 == 0 else list(reversed(makers))):
        solver = makers[name](state.board, max_entries=4_000_000)
        solver.book = None
        start = time.process_time()
        values[name] = solver.value(edges)
        times[name].append(time.process_time() - start)
        if nodes is not None:
            nodes[name].append(solver.nodes)
    return values


def reach(ref_path: str, frees: list[int], count: int, board: str, plain_up_to: int) -> dict:
    """The solver's time per position by free grooves, against the reference's (see the
    module's docstring)."""
    solvers = {"new": load(str(ROOT / MODULE)), "reference": load(ref_path)}
    out: dict = {}
    for free in frees:
        times: dict = {name: [] for name in solvers}
        disagree = plain_checked = 0
        for i, state in enumerate(reach_positions(board, free, count, seed=1000 + free)):
            values = time_values({name: mod.Solver for name, mod in solvers.items()}, state, i,
                                 times)
            if free <= plain_up_to:
                values["plain minimax"] = plain_value(state.copy())
                plain_checked += 1
            disagree += len(set(values.values())) > 1
        out[str(free)] = {
            **{f"{name} cpu_s min / median / max": " / ".join(
                f"{v:.3f}" for v in (min(t), statistics.median(t), max(t)))
               for name, t in times.items()},
            "new within 1 s": f"{sum(t <= 1.0 for t in times['new'])} of {count}",
            "values disagreeing": disagree, "checked by plain minimax": plain_checked}
    return out


def core_against_python(frees: list[int], count: int, board: str, python_up_to: int,
                        plain_up_to: int) -> dict:
    """The compiled core's time per position by free grooves, against the Python solver's
    (see the module's docstring)."""
    from games.ai.tree_planting import CompiledSolver, Solver, core

    if core()[0] != "compiled":
        raise SystemExit(f"the compiled core is not in use: {core()[1]}")
    out: dict = {}
    for free in frees:
        kinds = {"compiled": CompiledSolver}
        if free <= python_up_to:
            kinds["python"] = Solver
        times: dict = {name: [] for name in kinds}
        nodes: dict = {name: [] for name in kinds}
        asked, ratios = [], []
        disagree = plain_checked = 0
        for i, state in enumerate(reach_positions(board, free, count, seed=1000 + free)):
            edges = state.position_key()[0]
            values = time_values(kinds, state, i, times, nodes)
            if "python" in kinds:
                ratios.append(times["python"][-1] / max(times["compiled"][-1], 1e-6))
            solver = CompiledSolver(state.board, max_entries=4_000_000)
            solver.book = None
            start = time.process_time()
            value, _ = solver.best_moves(edges, first_only=True)
            asked.append(time.process_time() - start)
            values["compiled, best_moves"] = value
            if free <= plain_up_to:
                values["plain minimax"] = plain_value(state.copy())
                plain_checked += 1
            disagree += len(set(values.values())) > 1
        row = {f"{name} cpu_s min / median / max": " / ".join(
            f"{v:.3f}" for v in (min(t), statistics.median(t), max(t)))
            for name, t in times.items()}
        row.update({f"{name} nodes median": round(statistics.median(n))
                    for name, n in nodes.items()})
        if ratios:
            row["python / compiled per position"] = spread(ratios)
        row["compiled best move (what the computer asks) cpu_s min / median / max"] = " / ".join(
            f"{v:.3f}" for v in (min(asked), statistics.median(asked), max(asked)))
        row["compiled within 1 s"] = f"{sum(t <= 1.0 for t in times['compiled'])} of {count}"
        row["values disagreeing"] = disagree
        row["checked by"] = ("the python solver" if "python" in kinds else "nothing else") + (
            f", {plain_checked} by plain minimax" if plain_checked else "")
        out[str(free)] = row
        print(json.dumps({free: row}), file=sys.stderr, flush=True)  # progress: minutes a count
    return out


def run(path: str, task: str, args) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", path, task,
                           "--mid-positions", str(args.mid_positions),
                           "--mid-drawn", str(args.mid_drawn)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ref", default="main", help="git revision of the reference solver")
    parser.add_argument("--tasks", nargs="*", default=["3x3", "classic", "mid"])
    parser.add_argument("--mid-positions", type=int, default=8)
    parser.add_argument("--mid-drawn", type=int, default=6)
    parser.add_argument("--openspiel", type=int, metavar="N", default=0,
                        help="instead: check N random positions of 2x2, 2x3 and 3x3 against "
                             "OpenSpiel's alpha-beta (needs `pip install open_spiel`)")
    parser.add_argument("--openspiel-free", type=int, default=10)
    parser.add_argument("--compare", type=int, metavar="N", default=0,
                        help="instead: every move's value of N random 3x3 and classic positions "
                             "by both solvers, and how many agree")
    parser.add_argument("--reach", type=int, nargs="*", metavar="FREE",
                        help="instead: time per random 4x4 position with FREE grooves free")
    parser.add_argument("--core", type=int, nargs="*", metavar="FREE",
                        help="instead: the compiled core against the Python solver per random "
                             "4x4 position with FREE grooves free")
    parser.add_argument("--python-up-to", type=int, default=30)
    parser.add_argument("--reach-positions", type=int, default=8)
    parser.add_argument("--reach-board", default="16")
    parser.add_argument("--plain-up-to", type=int, default=14)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.mid_positions, args.mid_drawn)
        return 0
    if args.openspiel:
        got = openspiel_check(["2x2", "2x3", "3x3"], args.openspiel, args.openspiel_free)
        print(json.dumps(got, indent=1))
        return 0 if all(r["agree"] == r["positions"] for r in got.values()) else 1
    if args.core:
        got = core_against_python(args.core, args.reach_positions, args.reach_board,
                                  args.python_up_to, args.plain_up_to)
        print(json.dumps({"board": args.reach_board, "positions_each": args.reach_positions,
                          "load_average": [round(x, 2) for x in os.getloadavg()],
                          "free grooves": got}, indent=1))
        return 0 if all(r["values disagreeing"] == 0 for r in got.values()) else 1
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{args.ref}:{MODULE}"],
                            capture_output=True, text=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        ref_path = os.path.join(tmp, "reference_tree_planting.py")
        Path(ref_path).write_text(source)
        if args.reach:
            got = reach(ref_path, args.reach, args.reach_positions, args.reach_board,
                        args.plain_up_to)
            print(json.dumps({"reference": args.ref, "board": args.reach_board,
                              "positions_each": args.reach_positions,
                              "load_average": [round(x, 2) for x in os.getloadavg()],
                              "free grooves": got}, indent=1))
            return 0 if all(r["values disagreeing"] == 0 for r in got.values()) else 1
        if args.compare:
            got = compare(ref_path, args.compare)
            print(json.dumps({"reference": args.ref, **got}, indent=1))
            return 0 if all(r["every_move_value_agrees"] == r["positions"]
                            for r in got.values()) else 1
        solvers = {"reference": ref_path, "new": str(ROOT / MODULE)}
        results: dict = {t: {name: [] for name in solvers} for t in args.tasks}
        disagreements = []
        for r in range(args.rounds):
            for task in args.tasks:
                names = list(solvers) if r % 2 == 0 else list(reversed(solvers))
                got = {name: run(solvers[name], task, args) for name in names}
                if got["reference"]["values"] != got["new"]["values"]:
                    disagreements.append(task)
                for name in solvers:
                    results[task][name].append(got[name])
    out: dict = {"reference": args.ref, "rounds": args.rounds,
                 "load_average": [round(x, 2) for x in os.getloadavg()], "tasks": {}}
    for task, per in results.items():
        row: dict = {}
        for name, runs in per.items():
            row[name] = {key: spread([x[key] for x in runs])
                         for key in ("cpu_s", "nodes", "table_entries", "peak_rss_mb")}
        row["cpu_ratio_reference_over_new"] = spread(
            [a["cpu_s"] / b["cpu_s"] for a, b in zip(per["reference"], per["new"])])
        row["values_agree"] = task not in disagreements
        out["tasks"][task] = row
    print(json.dumps(out, indent=1))
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())

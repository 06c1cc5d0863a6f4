"""The computer player's numbers: playout speed against OpenSpiel, the exact solver's time and
memory, MCTS iterations per second, the sensor path's latency while the computer thinks.

    python benchmarks/ai.py [--rounds 5] [--seconds 1] [--solve 3x3 classic] [--solve-limit 600]

Prints one JSON object. Playouts: each round times, one after the other, `loop`, a random game
played move by move through the interface (`ms = s.legal_moves(); s.play(ms[rng.randrange(len(ms))])`),
`playout`, the interface's `State.playout(rng)` (what the MCTS calls; Tree Planting's own),
and, when `open_spiel` is installed, the loop over OpenSpiel's `dots_and_boxes` from its
Python API on the same rectangle;
the ratios are per round, reported as min/median/max. Times are CPU seconds of this process
(the machine is shared, so wall time would measure the neighbours). The solver runs in a child
process per board, so its peak memory (ru_maxrss) is its own.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import games  # noqa: E402


def spread(values: list[float]) -> dict:
    return {"min": round(min(values), 2), "median": round(statistics.median(values), 2),
            "max": round(max(values), 2)}


def cpu_rate(one, seconds: float) -> float:
    """Calls of `one()` per CPU second, over about `seconds` of CPU time."""
    n = 0
    start = time.process_time()
    while True:
        one()
        n += 1
        if n % 8 == 0 and time.process_time() - start >= seconds:
            break
    return n / (time.process_time() - start)


def playouts(rows: int, cols: int, rounds: int, seconds: float, rng: random.Random) -> dict:
    game = games.get_game("tree-planting")
    board = f"{rows}x{cols}"
    rr = rng.randrange

    def loop() -> None:
        s = game.new_state(board=board)
        while not s.is_over():
            ms = s.legal_moves()
            s.play(ms[rr(len(ms))])

    def playout() -> None:  # State.playout(rng): the interface's own, as the MCTS calls it
        game.new_state(board=board).playout(rng)

    try:
        import pyspiel
        spiel_game = pyspiel.load_game("dots_and_boxes", {"num_rows": rows, "num_cols": cols})
    except ImportError:
        spiel_game = None

    def spiel() -> None:
        s = spiel_game.new_initial_state()
        while not s.is_terminal():
            ms = s.legal_actions()
            s.apply_action(ms[rr(len(ms))])

    out = {"loop": [], "playout": [], "openspiel": []}
    for _ in range(rounds):
        out["loop"].append(cpu_rate(loop, seconds))
        out["playout"].append(cpu_rate(playout, seconds))
        if spiel_game is not None:
            out["openspiel"].append(cpu_rate(spiel, seconds))
    result = {"board": board, "rounds": rounds,
              "playouts_per_cpu_s": {k: spread(v) for k, v in out.items() if v}}
    if spiel_game is not None:
        result["ratio_loop_vs_openspiel"] = spread(
            [a / b for a, b in zip(out["loop"], out["openspiel"])])
        result["ratio_playout_vs_openspiel"] = spread(
            [a / b for a, b in zip(out["playout"], out["openspiel"])])
    else:
        result["openspiel"] = "not installed (pip install open_spiel)"
    return result


def solve_child(board: str) -> None:
    """Run in a child: solve `board` from empty, print CPU seconds, value and peak memory."""
    from games.ai.tree_planting import Solver

    state = games.get_game("tree-planting").new_state(board=board)
    solver = Solver(state.board)
    solver.book = None  # the search itself (benchmarks/book.py measures the opening book)
    start = time.process_time()
    value = solver.value(0)
    cpu = time.process_time() - start
    print(json.dumps({"board": board, "value": value, "cpu_s": round(cpu, 2),
                      "nodes": solver.nodes, "table_entries": len(solver.table),
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                                           / 1024, 1)}))


def depth_child(board: str, drawn: int, positions: int, seed: int) -> None:
    """Run in a child: CPU seconds to answer positions with `drawn` grooves drawn exactly
    (every move's value, as the hints need), each with a fresh solver; peak memory. The
    positions come from play as players play: a random groove that gives no square away while
    there is one, else any (uniformly random play breaks the board up early and is easy)."""
    from games.ai.tree_planting import Solver

    rng = random.Random(seed)
    game = games.get_game("tree-planting")
    times, one = [], []
    for _ in range(positions):
        state = game.new_state(board=board)
        for _ in range(drawn):
            free = list(state.legal_moves())
            safe = [g for g in free if not state.gives_away(g)]
            state.play(rng.choice(safe or free))
        if state.is_over():
            continue
        solver = Solver(state.board)
        solver.book = None  # the search alone: what an opening book must cover
        start = time.process_time()
        solver.move_values(state.position_key()[0])
        times.append(time.process_time() - start)
        solver = Solver(state.board)
        solver.book = None
        start = time.process_time()
        solver.best_moves(state.position_key()[0], first_only=True)
        one.append(time.process_time() - start)
    print(json.dumps({"board": board, "drawn": drawn, "positions": len(times),
                      "every_move_value_cpu_s": spread(times),
                      "one_best_move_cpu_s": spread(one),
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                                           / 1024, 1)}))


def depth_profile(board: str, depths: list[int], positions: int, limit: float) -> list:
    out = []
    for d in depths:
        try:
            done = subprocess.run([sys.executable, __file__, "--depth-child", board, str(d),
                                   str(positions)], capture_output=True, text=True,
                                  timeout=limit, check=True)
            out.append(json.loads(done.stdout))
        except subprocess.TimeoutExpired:
            out.append({"board": board, "drawn": d, "finished": False, "limit_wall_s": limit})
    return out


def solve(board: str, limit: float) -> dict:
    try:
        done = subprocess.run([sys.executable, __file__, "--solve-child", board],
                              capture_output=True, text=True, timeout=limit, check=True)
    except subprocess.TimeoutExpired:
        return {"board": board, "finished": False, "limit_wall_s": limit}
    return json.loads(done.stdout)


def mcts_rate(name: str, seconds: float) -> dict:
    from games.ai.mcts import Search, search_options

    state = games.get_game(name).new_state()
    search = Search(state, seed=1, **search_options(state))  # as the computer plays it
    start = time.process_time()
    search.run(seconds=seconds, clock=time.process_time)
    cpu = time.process_time() - start
    return {"iterations_per_cpu_s": round(search.iterations / cpu, 1), "nodes": search.nodes}


def latency_while_thinking(rounds: int, moves: int) -> dict:
    """The sensor path (a rod edge -> the LED frame through the referee, `latency.py`'s
    edge_to_frame) timed alternately with the computer's worker process idle and thinking
    without pause (one search after another on a 4x4 Tree Planting board, the daemon's own
    worker set-up), round after round."""
    import tempfile
    import threading

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import latency

    from board_driver.referee.seats import think, worker_pool

    pool = worker_pool()
    busy = threading.Event()
    searches = [0]
    position = games.get_game("tree-planting").new_state(board="4x4").to_json()

    def again(_future=None) -> None:
        if busy.is_set():
            searches[0] += 1
            pool.submit(think, position, 0.5, 0.0, searches[0]).add_done_callback(again)

    pool.submit(think, position, 0.01, 0.0, 0).result()  # the worker is up before we time
    out = {"idle": [], "thinking": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            for mode in ("idle", "thinking"):
                if mode == "thinking":
                    busy.set()
                    again()
                    time.sleep(0.2)  # the search is under way
                out[mode].append(latency.edge_to_frame(moves, tmp)["p99_us"])
                busy.clear()
                time.sleep(0.6)  # the last search ends
    pool.shutdown()
    return {"rounds": rounds, "moves_each": moves, "searches_run": searches[0],
            "p99_us": {k: spread(v) for k, v in out.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per timing")
    parser.add_argument("--solve", nargs="*", default=["3x3", "classic"])
    parser.add_argument("--solve-limit", type=float, default=600.0, help="wall seconds per solve")
    parser.add_argument("--solve-child", help=argparse.SUPPRESS)
    parser.add_argument("--depth-child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--depths", type=int, nargs="*", default=[],
                        help="also time exact answers for random classic positions with this "
                             "many grooves drawn (what an opening book must cover)")
    parser.add_argument("--depth-positions", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--latency-rounds", type=int, default=5,
                        help="rounds of the sensor path's latency, idle vs thinking (0: skip)")
    parser.add_argument("--latency-moves", type=int, default=2000)
    args = parser.parse_args()
    if args.solve_child:
        solve_child(args.solve_child)
        return
    if args.depth_child:
        board, drawn, positions = args.depth_child
        depth_child(board, int(drawn), int(positions), args.seed)
        return
    rng = random.Random(args.seed)
    out = {"python": platform.python_version(), "machine": platform.machine(),
           "playouts": [playouts(r, c, args.rounds, args.seconds, rng) for r, c in ((3, 3), (4, 4))],
           "mcts": {name: mcts_rate(name, args.seconds) for name in games.names()},
           "solver": [solve(b, args.solve_limit) for b in args.solve]}
    if args.depths:
        out["classic_by_depth"] = depth_profile("classic", args.depths, args.depth_positions,
                                                args.solve_limit)
    if args.latency_rounds:
        out["sensor_latency_while_thinking"] = latency_while_thinking(args.latency_rounds,
                                                                      args.latency_moves)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

"""The opening book's numbers: CPU seconds to answer classic-board positions exactly at every
depth, with the book and without it, and the peak memory of a process that answers them.

    python benchmarks/book.py [--positions 5] [--limit 1.0] [--seed 1] [--depths 0 1 ...]

Positions come from play as players play (as in benchmarks/ai.py: a random groove that gives
no square away while there is one, else any). For each position, one after the other with the
book and without it (alternating, the same positions), each with a fresh solver: the hint
(every move's exact value, `Solver.move_values`) and one best move (`best_moves(first_only=
True)`). Without the book a search is stopped after `--limit` CPU seconds and counted as
unfinished. The target: at most 0.25 s CPU per answer here (one Pi Zero 2 W core is about a
quarter of this machine's). Times are CPU seconds of this process (the machine is shared).

Memory: a child process plays whole games as players play and asks the hint at every
position through `games.ai.analyse` (the book and the process's shared solver, as on the
board), then asks about fresh positions with 10 grooves drawn until the shared table reaches
its bound (a long session's worst case); its peak RSS (ru_maxrss) against the 100 MB target.
"""

from __future__ import annotations

import argparse
import json
import os
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

TARGET_CPU_S = 0.25
TARGET_MB = 100


def spread(values: list[float]) -> dict:
    if not values:
        return {}
    return {"min": round(min(values), 4), "median": round(statistics.median(values), 4),
            "max": round(max(values), 4)}


def position(drawn: int, rng: random.Random):
    state = games.get_game("tree-planting").new_state(board="classic")
    for _ in range(drawn):
        free = list(state.legal_moves())
        safe = [g for g in free if not state.gives_away(g)]
        state.play(rng.choice(safe or free))
    return state


def timed(board, edges: int, use_book: bool, limit: float | None) -> tuple[float | None, ...]:
    """(hint CPU s, best-move CPU s), each with a fresh solver; None where past `limit`."""
    from games.ai.tree_planting import OutOfTime, Solver

    out = []
    for ask in ("hint", "best"):
        solver = Solver(board)
        if not use_book:
            solver.book = None
        clock = time.process_time
        start = clock()
        deadline = None if limit is None else start + limit
        try:
            if ask == "hint":
                solver.move_values(edges, deadline=deadline, clock=clock)
            else:
                solver.best_moves(edges, first_only=True, deadline=deadline, clock=clock)
            out.append(clock() - start)
        except OutOfTime:
            out.append(None)
    return tuple(out)


def by_depth(depths: list[int], positions: int, limit: float, seed: int) -> dict:
    from games.ai.book import book_for
    from games.tree_planting import Board

    board = Board.get("classic")
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.process_time()
    book = book_for(board)
    load_s = time.process_time() - start
    rows = []
    for d in depths:
        rng = random.Random(seed * 1000 + d)
        got = {"book": ([], []), "search": ([], []), "unfinished": 0}
        for i in range(positions):
            state = position(d, rng)
            if state.is_over():
                continue
            edges = state.position_key()[0]
            # Alternate which goes first, so a neighbour's load falls on both alike.
            order = (True, False) if i % 2 == 0 else (False, True)
            for use_book in order:
                hint, best = timed(board, edges, use_book, None if use_book else limit)
                key = "book" if use_book else "search"
                if hint is None or best is None:
                    got["unfinished"] += 1
                if hint is not None:
                    got[key][0].append(hint)
                if best is not None:
                    got[key][1].append(best)
        hints = got["book"][0]
        rows.append({
            "drawn": d, "positions": len(hints),
            "hint_cpu_s": spread(hints), "best_move_cpu_s": spread(got["book"][1]),
            "without_book": {"hint_cpu_s": spread(got["search"][0]),
                             "best_move_cpu_s": spread(got["search"][1]),
                             f"unfinished_in_{limit}s": got["unfinished"]},
            "within_target": bool(hints) and max(hints + got["book"][1]) <= TARGET_CPU_S,
        })
        print(json.dumps(rows[-1]), file=sys.stderr)
    worst = max((r["hint_cpu_s"]["max"] for r in rows if r["hint_cpu_s"]), default=None)
    return {"book_depth": book.depth, "book_load_cpu_s": round(load_s, 3),
            "rss_before_book_mb": round(rss0, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "target_cpu_s": TARGET_CPU_S, "worst_hint_cpu_s": worst,
            "every_depth_within_target": all(r["within_target"] for r in rows), "depths": rows}


def memory_child(games_played: int, seed: int) -> None:
    """Run in a child: whole games, the hint at every position, one shared solver."""
    import games.ai
    from games.ai.tree_planting import PLAYER_TABLE_ENTRIES, solver_for

    rng = random.Random(seed)
    cpu, worst = time.process_time(), 0.0
    for _ in range(games_played):
        state = games.get_game("tree-planting").new_state(board="classic")
        while not state.is_over():
            start = time.process_time()
            rows = games.ai.analyse(state, seconds=60)
            worst = max(worst, time.process_time() - start)
            assert all(r.exact for r in rows)
            free = list(state.legal_moves())
            safe = [g for g in free if not state.gives_away(g)]
            state.play(rng.choice(safe or free))
    after_games = len(solver_for(state.board).table)
    rss_games = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # The worst case of a long session: the shared table full. Hints at fresh positions
    # past the book until the table reaches its bound (it is then cleared, so it stays there).
    solver, most, asked = solver_for(state.board), 0, 0
    while most < PLAYER_TABLE_ENTRIES and asked < 5000:
        state = position(10, rng)
        if not state.is_over():
            games.ai.analyse(state, seconds=60)
        most = max(most, len(solver.table))
        asked += 1
    print(json.dumps({
        "games": games_played, "player_table_entries": PLAYER_TABLE_ENTRIES,
        "table_entries_after_games": after_games, "peak_rss_after_games_mb": round(rss_games, 1),
        "positions_asked_to_fill_the_table": asked, "table_entries_most": most,
        "worst_hint_cpu_s": round(worst, 3), "cpu_s": round(time.process_time() - cpu, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "target_mb": TARGET_MB}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=5, help="positions per depth")
    ap.add_argument("--limit", type=float, default=1.0,
                    help="CPU seconds before a search without the book counts as unfinished")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--depths", type=int, nargs="*", default=list(range(29)))
    ap.add_argument("--games", type=int, default=3, help="games played in the memory child")
    ap.add_argument("--memory-child", type=int, nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.memory_child:
        memory_child(*args.memory_child)
        return
    out = {"load_average": os.getloadavg(),
           "by_depth": by_depth(args.depths, args.positions, args.limit, args.seed)}
    done = subprocess.run([sys.executable, __file__, "--memory-child", str(args.games),
                           str(args.seed)], capture_output=True, text=True, check=True)
    out["whole_games"] = json.loads(done.stdout)
    out["load_average_after"] = os.getloadavg()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

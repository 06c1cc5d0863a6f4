"""How far past its budget the computer's answer comes back: the margin a timed game needs.

    .venv/bin/python benchmarks/clock_budget.py [--rounds 10] [--budgets 0.02,0.2,1]

For each game, a position some moves in (where the search has something to do), the daemon's
own path: `seats.worker_pool()` (one spawned worker at nice 19), `submit(seats.think, position
as JSON, budget, ...)`, until the Future has the move. The time over the budget is what the
computer's clock pays beyond what it chose to think (the JSON both ways, the process hop, the
search overrunning its deadline by one playout, the scheduler). `seats.RESERVE_S` (1 s) must
stay well above the worst of it, on a Pi-class CPU too: the machine's speed is printed beside
it, measured by the same playouts (`--pi-factor` scales the overrun for a CPU that many times
slower; the Pi 4 runs the pure Python search about 4-6x slower than a desktop core).

Alternating: each round runs every (game, budget) in turn, so a shared machine's load spreads
over all of them. The spread (median, max) is printed; the machine is shared: numbers vary.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games  # noqa: E402
from board_driver.referee.seats import RESERVE_S, think, worker_pool  # noqa: E402

GAMES = {
    "tree-planting": ({"board": "classic"}, 6),
    "treeblox": ({}, 6),
    "fangqi": ({}, 10),
    "arbos": ({}, 10),
    "game-for-the-trees": ({}, 6),
}


def position(name: str, options: dict, moves: int, seed: int) -> str:
    rng = random.Random(seed)
    state = games.get_game(name).new_state(**options)
    for _ in range(moves):
        if state.is_over():
            break
        state.play(rng.choice(sorted(state.legal_moves(), key=str)))
    return state.to_json()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--budgets", default="0.02,0.2,1")
    parser.add_argument("--pi-factor", type=float, default=6.0)
    args = parser.parse_args()
    budgets = [float(b) for b in args.budgets.split(",")]
    positions = {name: position(name, opts, n, 1) for name, (opts, n) in GAMES.items()}
    pool = worker_pool()
    try:
        pool.submit(think, positions["tree-planting"], 0.01, 0.0, 0).result()  # spawned, warm
        over: dict[tuple[str, float], list[float]] = {}
        for r in range(args.rounds):
            for name, saved in positions.items():
                for budget in budgets:
                    start = time.perf_counter()
                    pool.submit(think, saved, budget, 0.0, r).result()
                    over.setdefault((name, budget), []).append(time.perf_counter() - start - budget)
    finally:
        pool.shutdown()
    print(f"time past the budget, ms (median / max over {args.rounds} rounds; shared machine)")
    worst = 0.0
    for (name, budget), values in sorted(over.items()):
        worst = max(worst, max(values))
        print(f"  {name:20s} budget {budget:5.2f} s: {statistics.median(values) * 1000:7.1f} / "
              f"{max(values) * 1000:7.1f}")
    print(f"worst {worst * 1000:.1f} ms here; x{args.pi_factor:g} for a Pi-class CPU: "
          f"{worst * args.pi_factor * 1000:.0f} ms, against RESERVE_S {RESERVE_S * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

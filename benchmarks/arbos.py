"""Arbos on 20x20: what one placement costs the board's referee.

    python benchmarks/arbos.py [--positions 40] [--rounds 15] [--seed 1]

Measures, on mid-game 20x20 positions from random games (400 sensed cells, presence sensors):

- `reconcile`: `board_driver.referee.reconcile.reconcile` of the board with one new spore on it,
  which finds the one move that explains it (through `moves_at`). Target: under 2 ms.
- `reconcile_and_resync`: what the referee does for that placement: reconcile, play the move,
  and reconcile again (in sync).
- reference `reconcile_without_moves_at`: the same reconcile with the game's `moves_at`
  hidden, so it tries every legal move (what a game without `moves_at` costs).
- `play_undo`: one placement played and taken back (incremental trees), against the
  reference `flood_fill`: both players' trees found from scratch over the whole board, what
  an engine without incremental trees would do on every move.
- `led_frame`: the Arbos view's whole LED frame for the position (400 cells, the mover's legal
  cells by kind), what the referee renders after every accepted move; reported beside the
  rest, with no reference of its own.

The measurements alternate round by round (A, reference, A, reference...), each round over
every position; it prints one JSON object with the median and the spread (min, max) of the
per-round means, in milliseconds per operation.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import games  # noqa: E402
from board_driver.config import DEFAULT_COLOURS  # noqa: E402
from board_driver.referee.reconcile import reconcile  # noqa: E402
from board_driver.views import Moment, render  # noqa: E402
from hardware.base import PRESENT  # noqa: E402


def grown(state, move) -> bool:
    """Whether a spore move grows one of the mover's trees (rather than starting a new one)."""
    i = move.cell[0] * state.geo.cols + move.cell[1]
    return state.tree_count(state.to_move) == 0 or any(
        state.tree_id(state.geo.names[n]) is not None
        and state.occupancy()[state.geo.names[n]] == f"spore:{state.to_move}"
        for n in state.geo.nb8[i])


def positions(count: int, seed: int) -> list[tuple]:
    """(state, physical board with one new spore, the move it is) for mid-game positions:
    random games in which players mostly grow their trees, as players do, so that the board
    fills up (uniformly random spores make a fourth tree at once and are removed again)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = games.get_game("arbos").new_state(board="20x20")
        for _ in range(20 + rng.randrange(60, 140)):
            moves = [m for m in state.legal_moves() if m.kind != "pass"]
            if not moves or state.is_over():
                break
            growing = [m for m in moves if m.kind == "spore" and grown(state, m)]
            state.play(rng.choice(growing if growing and rng.random() < 0.9 else moves))
        spores = [m for m in state.legal_moves() if m.kind == "spore"]
        if state.is_over() or state.phase != "play" or not spores:
            continue
        move = rng.choice(spores)
        physical = {site: PRESENT for site in state.occupancy()}
        physical[games.arbos.cell_name(move.cell)] = PRESENT
        out.append((state, physical, move))
    return out


class _NoMovesAt:
    """The state with `moves_at` hidden: reconcile falls back to every legal move."""

    def __init__(self, state):
        self._state = state

    def __getattr__(self, name):
        if name == "moves_at":
            raise AttributeError(name)
        return getattr(self._state, name)


def flood_fill(state) -> int:
    """Both players' trees from the occupancy alone, over the whole board (the reference)."""
    geo = state.geo
    occ = state.occupancy()
    count = 0
    for player in (0, 1):
        want = f"spore:{player}"
        spores = {geo.index[s] for s, k in occ.items() if k == want}
        while spores:
            todo = [spores.pop()]
            while todo:
                j = todo.pop()
                for n in geo.nb8[j]:
                    if n in spores:
                        spores.discard(n)
                        todo.append(n)
            count += 1
    return count


def run_round(fn, cases) -> float:
    start = time.perf_counter()
    for case in cases:
        fn(*case)
    return (time.perf_counter() - start) / len(cases) * 1000  # ms per operation


def measure(pairs: dict[str, tuple], cases, rounds: int) -> dict:
    """Alternate every measurement, round by round; summarise the per-round means."""
    samples: dict[str, list[float]] = {name: [] for name in pairs}
    for _ in range(rounds):
        for name, fn in pairs.items():
            samples[name].append(run_round(fn, cases))
    return {name: {"median_ms": round(statistics.median(v), 4), "min_ms": round(min(v), 4),
                   "max_ms": round(max(v), 4)} for name, v in samples.items()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cases = positions(args.positions, args.seed)
    sites = cases[0][0].sites()

    def check(state, physical, move):
        verdict = reconcile(state, physical, sites)
        assert verdict.action == "play" and verdict.move == move, verdict

    def resync(state, physical, move):
        verdict = reconcile(state, physical, sites)
        state.play(verdict.move)
        assert reconcile(state, physical, sites).action == "in-sync"
        state.undo()

    def without_moves_at(state, physical, move):
        verdict = reconcile(_NoMovesAt(state), physical, sites)
        assert verdict.action == "play" and verdict.move == move, verdict

    def play_undo(state, physical, move):
        state.play(move)
        state.undo()

    def reference_flood(state, physical, move):
        flood_fill(state)

    view = Moment.still(dict(DEFAULT_COLOURS), moves="legal")

    def led_frame(state, physical, move):
        render(state, view, 0.0)

    spores_on_board = statistics.median(
        sum(1 for k in s.occupancy().values() if k.startswith("spore")) for s, _, _ in cases)
    result = {
        "what": "Arbos 20x20: ms per operation, per-round means over all positions; "
                "median and spread (min, max) of the rounds",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "positions": len(cases),
        "rounds": args.rounds,
        "median_spores_on_board": spores_on_board,
        "reconcile": measure({"reconcile": check, "reconcile_and_resync": resync,
                              "reference_reconcile_without_moves_at": without_moves_at},
                             cases, args.rounds),
        "trees": measure({"play_undo": play_undo, "reference_flood_fill": reference_flood},
                         cases, args.rounds),
        "view": measure({"led_frame": led_frame}, cases, args.rounds),
    }
    r = result["reconcile"]
    result["target_reconcile_under_2ms"] = r["reconcile"]["median_ms"] < 2.0
    result["moves_at_speedup"] = round(r["reference_reconcile_without_moves_at"]["median_ms"]
                                       / r["reconcile"]["median_ms"], 1)
    t = result["trees"]
    result["incremental_vs_flood_fill"] = round(t["reference_flood_fill"]["median_ms"]
                                                / t["play_undo"]["median_ms"], 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

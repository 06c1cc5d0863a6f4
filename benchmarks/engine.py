"""Random full playouts per second through the public game interface.

    python benchmarks/engine.py [--seconds 0.5] [--rounds 5] [--seed 1] [--only arbos]

Prints one JSON object. When the optional `open-spiel` package is installed, it also drives
OpenSpiel's `dots_and_boxes` (the same game as Tree Planting on a rectangle) from its Python
API on the same boards in the same run, so the ratio is measured, not quoted.

The contenders of one board take turns: `--rounds` rounds of `--seconds` each, the order
reversed every other round, so a machine that slows down or speeds up (other processes, CPU
frequency) weighs on all of them alike. Each contender's rate and each ratio is printed per
round, with its min / median / max: the spread says how far one figure can be trusted.
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


def timed(one_playout, seconds: float, batch: int = 16) -> dict:
    """Run `one_playout()` (it returns the moves it played, or None) for about `seconds`,
    looking at the clock every `batch` playouts."""
    n = moves = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        moves += one_playout() or 0
        n += 1
        if n % batch == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    out = {"playouts_per_s": round(n / elapsed, 1), "playouts": n}
    if moves:
        out["moves_per_s"] = round(moves / elapsed)
    return out


def playouts_per_second(new_state, seconds: float, rng: random.Random) -> dict:
    """Random games to the end through the interface every game has: legal_moves and play."""
    choice = rng.choice

    def one() -> int:
        state = new_state()
        moves = 0
        while not state.is_over():
            state.play(choice(state.legal_moves()))
            moves += 1
        return moves

    return timed(one, seconds)


def fast_playouts_per_second(new_state, seconds: float, rng: random.Random) -> dict:
    """The same random games through `State.playout(rng)`, the engine's own playout path."""
    return timed(lambda: new_state().playout(rng) and None, seconds)


def alternating(new_state, seconds: float, rng: random.Random, rounds: int = 4) -> dict:
    """The play loop (the reference: legal_moves and play) and the engine's playout, in turns
    of `seconds / rounds` each, so that a busy machine slows both alike; median and spread."""
    rates: dict[str, list[float]] = {"treeboard_play_loop": [], "treeboard_playout": []}
    for _ in range(rounds):
        rates["treeboard_play_loop"].append(
            playouts_per_second(new_state, seconds / rounds, rng)["playouts_per_s"])
        rates["treeboard_playout"].append(
            fast_playouts_per_second(new_state, seconds / rounds, rng)["playouts_per_s"])
    out = {name: {"median_playouts_per_s": round(statistics.median(r), 1),
                  "min": min(r), "max": max(r)} for name, r in rates.items()}
    out["ratio_playout_to_play_loop"] = round(
        statistics.median(rates["treeboard_playout"])
        / statistics.median(rates["treeboard_play_loop"]), 2)
    return out


def openspiel_playouts_per_second(rows: int, cols: int, seconds: float, rng: random.Random):
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("dots_and_boxes", {"num_rows": rows, "num_cols": cols})
    choice = rng.choice

    def one() -> int:
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            moves += 1
        return moves

    return timed(one, seconds)


def spread(values: list[float]) -> dict:
    return {"min": round(min(values), 2), "median": round(statistics.median(values), 2),
            "max": round(max(values), 2)}


def alternate(contenders: dict, rounds: int, seconds: float, ratios: dict[str, tuple[str, str]]) -> dict:
    """Run each contender (name -> a function of `seconds` returning `timed`'s dict) `rounds`
    times in alternating order; per-round rates and ratios, each with min/median/max."""
    names = list(contenders)
    rates: dict[str, list[float]] = {name: [] for name in names}
    moves: dict[str, list[float]] = {name: [] for name in names}  # when a contender counts them
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            result = contenders[name](seconds)
            rates[name].append(result["playouts_per_s"])
            if "moves_per_s" in result:
                moves[name].append(result["moves_per_s"])
    out: dict = {name: {"playouts_per_s_per_round": values, **spread(values)}
                 for name, values in rates.items()}
    for name, values in moves.items():
        if len(values) == rounds:
            out[name]["moves_per_s"] = spread(values)
    for label, (a, b) in ratios.items():
        per_round = [round(x / y, 3) for x, y in zip(rates[a], rates[b])]
        out[label] = {"per_round": per_round, **spread(per_round)}
    return out


def arbos_rates(board: str, rounds: int, seconds: float, rng: random.Random) -> dict:
    """Arbos: `playout()` against the legal_moves/play loop. The two are not the same
    random game: uniformly random Arbos players keep making and removing a fourth tree and
    almost never end the game, so the loop is cut at the playout's cap (what the search does
    to a game without a playout), while `playout()` grows at most three trees a player and
    ends the game. Playouts per second is what a search iteration costs; moves per second
    compares the engines move for move."""
    from games.arbos import GAME, PLAYOUT_CAP

    def loop(seconds: float) -> dict:
        choice = rng.choice

        def one() -> int:
            state = GAME.new_state(board=board)
            moves = 0
            while not state.is_over() and moves < PLAYOUT_CAP:
                state.play(choice(state.legal_moves()))
                moves += 1
            return moves

        return timed(one, seconds, batch=1)  # a capped game of 20x20 takes most of a second

    def fast(seconds: float) -> dict:
        def one() -> int:
            state = GAME.new_state(board=board)
            state.playout(rng)
            return len(state.moves)

        return timed(one, seconds)

    out = alternate({"treeboard_play_loop_capped": loop, "treeboard_playout": fast}, rounds,
                    seconds, {"ratio_playout_to_play_loop": ("treeboard_playout",
                                                             "treeboard_play_loop_capped")})
    out["play_loop_cap_moves"] = PLAYOUT_CAP
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="per contender per round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (at least 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="only the games whose name starts so "
                                                  "(such as arbos)")
    args = parser.parse_args()
    if args.rounds < 5:
        parser.error("--rounds must be at least 5: fewer gives no spread worth the name")
    rng = random.Random(args.seed)
    out: dict = {"python": platform.python_version(), "machine": platform.machine(),
                 "seconds_each": args.seconds, "rounds": args.rounds, "results": {}}

    def wanted(name: str) -> bool:
        return name.startswith(args.only)

    tree = games.get_game("tree-planting")
    for board, rect in (("classic", None), ("4x4", (4, 4))) if wanted("tree-planting") else ():
        def new(board=board):
            return tree.new_state(board=board)
        contenders = {
            "treeboard_play_loop": lambda s, new=new: playouts_per_second(new, s, rng),
            "treeboard_playout": lambda s, new=new: fast_playouts_per_second(new, s, rng),
        }
        ratios = {}
        note = None
        if rect:
            if openspiel_playouts_per_second(*rect, 0.01, rng) is None:
                note = "not installed (pip install open-spiel)"
            else:
                contenders["openspiel_dots_and_boxes"] = \
                    lambda s, rect=rect: openspiel_playouts_per_second(*rect, s, rng)
                ratios = {"ratio_play_loop": ("treeboard_play_loop", "openspiel_dots_and_boxes"),
                          "ratio_playout": ("treeboard_playout", "openspiel_dots_and_boxes")}
        entry = alternate(contenders, args.rounds, args.seconds, ratios)
        if note:
            entry["openspiel_dots_and_boxes"] = note
        out["results"][f"tree-planting {board}"] = entry

    fangqi = games.get_game("fangqi")
    for board in ("6x6", "8x8") if wanted("fangqi") else ():
        out["results"][f"fangqi {board}"] = alternating(
            lambda board=board: fangqi.new_state(board=board), args.seconds, rng)

    for board in ("20x20", "10x10") if wanted("arbos") else ():
        out["results"][f"arbos {board}"] = arbos_rates(board, args.rounds, args.seconds, rng)

    for name in games.names():
        if name in ("tree-planting", "fangqi", "arbos") or not wanted(name):
            continue
        game = games.get_game(name)
        contenders = {"treeboard_play_loop": lambda s, g=game: playouts_per_second(g.new_state, s, rng),
                      # every state has playout (games/base.py's default, or the game's own)
                      "treeboard_playout": lambda s, g=game: fast_playouts_per_second(g.new_state, s, rng)}
        out["results"][name] = alternate(contenders, args.rounds, args.seconds, {})
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

"""How strong the computer is: matches with colours alternating, scored as a share of points
(win 1, draw 1/2) with a 95 % confidence interval.

    python benchmarks/strength.py planting --board 3x3 --games 20
        ours against OpenSpiel's MCTS bot (random rollouts, 1000 simulations), with the same
        time per move as the bot took on its own moves so far (needs `pip install open_spiel`);
        `--check-exact 2` also checks each of our moves against the exact solver
    python benchmarks/strength.py versus --game treeblox --opponent greedy --games 10 --seconds 0.3
        ours against `greedy` (the most points for the mover right after the move: Treeblox's
        active leaves; then the fewest for the opponent) or `random`, any registered game,
        through the common interface only
    python benchmarks/strength.py versus --game treeblox --opponent self:1.2 --seconds 0.3
        ours against ours with another time budget (time buys strength?)
    python benchmarks/strength.py versus --game arbos --opponent random --max-moves 600
        a game still on after 600 moves is scored by the scores as they stand, equal ones a
        draw (a guard: every Arbos game now ends, within 501 moves on 20x20, reading 12 of
        docs/games/arbos.md; before that, random players making and removing a fourth tree
        could go on for ever)

Options a game draws for each game (Arbos's setup_seed, the draw of its random setup) are
drawn from the match's --seed, so a run is repeated by its seed.

Prints one JSON object per match. A benchmark, not a test: it takes minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import games  # noqa: E402
import games.ai  # noqa: E402
from games.ai.mcts import Search, tuning as mcts_tuning  # noqa: E402
from games.ai.review import review  # noqa: E402


def interval(points: list[float]) -> dict:
    """Mean share of points and a 95 % Wilson score interval (draws count as half a win,
    which the interval treats as a binomial share: close enough, and sound at 0 % or 100 %,
    where a normal interval collapses to a point)."""
    n = len(points)
    p = sum(points) / n
    z = 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return {"games": n, "share": round(p, 3),
            "ci95": [round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)]}


def points_for(state, player: int) -> float:
    """Points of a finished game by the game's own winner; of a game stopped at the move cap,
    by the scores as they stand (equal: a draw, whatever a tie-break at the end would say)."""
    if state.is_over():
        w = state.winner()
    else:
        a, b = state.scores()
        w = 0 if a > b else 1 if b > a else None
    return 0.5 if w is None else 1.0 if w == player else 0.0


# --- players -------------------------------------------------------------------------------

def greedy_move(state, rng: random.Random):
    """The move that leaves the mover the most points at once, and of those the opponent the
    fewest (ties: at random). The second key is what makes it greedy in Fangqi, where the
    score is the counters each player has and a capture lowers only the opponent's."""
    p = state.to_move
    best, choices = None, []
    for m in state.legal_moves():
        state.play(m)
        mine_theirs = state.scores()
        state.undo()
        score = (mine_theirs[p], -mine_theirs[1 - p])
        if best is None or score > best:
            best, choices = score, [m]
        elif score == best:
            choices.append(m)
    return rng.choice(choices)


def random_move(state, rng: random.Random):
    return rng.choice(list(state.legal_moves()))


def our_move(state, seconds: float, seed: int, tuning: dict | None):
    """games.ai.best_move, or with `tuning` the MCTS with those options over the game's own
    (its `Game.search_options`): to try options before making them the game's."""
    if tuning is None:
        return games.ai.best_move(state, seconds=seconds, seed=seed)
    legal = state.legal_moves()
    if len(legal) == 1:
        return legal[0]
    search = Search(state, seed=seed, **{**mcts_tuning(state), **tuning})
    search.run(seconds=seconds)
    return search.best()


def versus(args) -> dict:
    game = games.get_game(args.game)
    rng = random.Random(args.seed)
    tuning = json.loads(args.tuning) if args.tuning else None
    results, ours_seconds, capped = [], [], 0
    for i in range(args.games):
        ours = i % 2  # colours alternate
        options = dict(o.split("=", 1) for o in args.option or [])
        state = game.new_state(**options)
        drawn = {k: rng.randrange(1 << 32) for k in sorted(game.drawn_options)
                 if k in state.options() and k not in options}
        if drawn:
            state = game.new_state(**options, **drawn)
        while not state.is_over() and len(state.moves) < args.max_moves:
            if state.to_move == ours:
                start = time.perf_counter()
                move = our_move(state, args.seconds, rng.randrange(1 << 30), tuning)
                ours_seconds.append(time.perf_counter() - start)
            elif args.opponent == "greedy":
                move = greedy_move(state, rng)
            elif args.opponent == "random":
                move = random_move(state, rng)
            else:
                seconds = float(args.opponent.split(":", 1)[1])
                move = games.ai.best_move(state, seconds=seconds, seed=rng.randrange(1 << 30))
            state.play(move)
        results.append(points_for(state, ours))
        capped += not state.is_over()
        # A short digest of the moves: tells apart games that end alike.
        digest = hashlib.sha1(" ".join(map(str, state.moves)).encode()).hexdigest()[:8]
        print(f"game {i + 1}: ours as player {ours}, {len(state.moves)} moves {digest}"
              f"{'' if state.is_over() else ' (capped)'}, scores {state.scores()}, "
              f"points {results[-1]}", file=sys.stderr)
    return {"game": args.game, "options": args.option or [], "opponent": args.opponent,
            "tuning": {**mcts_tuning(state), **(tuning or {})},
            "ours_seconds": args.seconds,
            "ours_mean_move_s": round(sum(ours_seconds) / max(1, len(ours_seconds)), 3),
            "max_moves": args.max_moves, "capped": capped, **interval(results)}


# --- Tree Planting against OpenSpiel ------------------------------------------------------------

def action_of(groove: str, rows: int, cols: int) -> int:
    """OpenSpiel's dots_and_boxes action for our groove name (same row/column convention)."""
    kind, rest = groove[0], groove[1:]
    r, c = (int(x) for x in rest.split("."))
    if kind == "h":
        return r * cols + c
    return (rows + 1) * cols + r * (cols + 1) + c


def planting(args) -> dict:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    rows, cols = (int(x) for x in args.board.lower().split("x"))
    spiel_game = pyspiel.load_game("dots_and_boxes", {"num_rows": rows, "num_cols": cols})
    game = games.get_game("tree-planting")
    rng = random.Random(args.seed)
    results, bot_times, our_times = [], [], []
    checked = inexact = imperfect = 0
    for i in range(args.games):
        bot = mcts.MCTSBot(spiel_game, uct_c=2, max_simulations=args.simulations,
                           evaluator=mcts.RandomRolloutEvaluator(
                               n_rollouts=1, random_state=np.random.RandomState(args.seed + i)),
                           random_state=np.random.RandomState(args.seed + 1000 + i), solve=True)
        ours = i % 2
        state = game.new_state(board=args.board)
        spiel = spiel_game.new_initial_state()
        while not state.is_over():
            if state.to_move == ours:
                # Equal time: what the bot has taken per move so far (a first guess before).
                budget = sum(bot_times) / len(bot_times) if bot_times else args.first_budget
                start = time.perf_counter()
                move = games.ai.best_move(state, seconds=budget, seed=rng.randrange(1 << 30))
                our_times.append(time.perf_counter() - start)
                action = action_of(str(move), rows, cols)
            else:
                start = time.perf_counter()
                action = bot.step(spiel)
                bot_times.append(time.perf_counter() - start)
                move = spiel.action_to_string(spiel.current_player(), action)
                kind, r, c = move[move.index("(") + 1:-1].split(",")
                move = f"{kind}{r}.{c}"
            state.play(move)
            spiel.apply_action(action)
        assert spiel.is_terminal()
        results.append(points_for(state, ours))
        note = ""
        if args.check_exact:
            # "Perfect on every board the solver finishes": each of our moves against the
            # solver's value of its position (review, last position first: cheap).
            reviewed = review(state, seconds=args.check_exact)
            mine = [r for r in reviewed if r["player"] == ours]
            checked += sum(r["exact"] for r in mine)
            bad = [r for r in mine if r["exact"] and r["loss"]]
            inexact += sum(not r["exact"] for r in mine)
            imperfect += len(bad)
            note = f", {len(bad)} of our moves below the exact value" + "".join(
                f" (move {r['n']} {r['move']}: {r['after']} for {r['before']})" for r in bad)
        print(f"game {i + 1}: ours as player {ours}, scores {state.scores()}, "
              f"points {results[-1]}{note}", file=sys.stderr)
    return {"game": "tree-planting", "board": args.board,
            "opponent": f"OpenSpiel MCTSBot, {args.simulations} simulations, random rollouts",
            "bot_mean_move_s": round(sum(bot_times) / len(bot_times), 3),
            "ours_mean_move_s": round(sum(our_times) / len(our_times), 3),
            **({"our_moves_checked_exact": checked, "not_exact": inexact,
                "below_exact_value": imperfect} if args.check_exact else {}),
            **interval(results)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("planting", help="Tree Planting against OpenSpiel's MCTS bot")
    p.add_argument("--board", default="3x3", help="RxC")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--simulations", type=int, default=1000)
    p.add_argument("--first-budget", type=float, default=1.0,
                   help="our seconds for a first move made before the bot has moved")
    p.add_argument("--check-exact", type=float, metavar="SECONDS", default=0,
                   help="after each game, check every move of ours against the exact solver "
                        "(SECONDS per position at most; a position it cannot finish in that "
                        "time is counted as not exact)")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("versus", help="any game against greedy, random or ourselves")
    p.add_argument("--game", default="treeblox")
    p.add_argument("--option", action="append", metavar="KEY=VALUE")
    p.add_argument("--opponent", default="greedy", help="greedy, random or self:SECONDS")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seconds", type=float, default=0.3, help="our time per move")
    p.add_argument("--tuning", metavar="JSON",
                   help='our search options over the game\'s own, e.g. \'{"playout_cap": 12}\' '
                        "(a self:SECONDS opponent keeps the game's own)")
    p.add_argument("--max-moves", type=int, default=1000,
                   help="a game still on after this many moves (both players') is stopped "
                        "and scored as it stands; the JSON says how many were ('capped')")
    p.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = planting(args) if args.what == "planting" else versus(args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

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
    python benchmarks/strength.py versus --game fangqi --opponent greedy --level strongest
        ours at a level (its effort a move) instead of a time (also for `planting`)
    python benchmarks/strength.py versus --game treeblox --opponent self:1.2 --seconds 0.3
        ours against ours with another time budget (time buys strength?)
    python benchmarks/strength.py versus --game arbos --opponent random --max-moves 600
        a game still on after 600 moves is scored by the scores as they stand, equal ones a
        draw (a guard: every Arbos game now ends, within 501 moves on 20x20, reading 12 of
        docs/games/arbos.md; before that, random players making and removing a fourth tree
        could go on for ever)

Options a game draws for each game (Arbos's setup_seed, the draw of its random setup) are
drawn from the match's --seed, so a run is repeated by its seed, once for each two games: the
second plays the same setup with the colours swapped.

    python benchmarks/strength.py effort --game fangqi --positions 6
        each level's effort (iterations a move) and its time: CPU seconds a move on positions
        of random games, and what that is on a quarter of this machine's core (x4)
    python benchmarks/strength.py ladder --game treeblox --games 12 [--write]
        the levels against each other (each against the next) and against the random and
        greedy anchors, colours alternating; Elo ratings fitted to all the results (greedy
        = 1000) with 95 % intervals; --write keeps them in games/ai/data/ratings.json, which
        `treeboard games` and the page show beside each level's name; --out FILE keeps the
        pairs played so far after each pair, --merge FILE fits an earlier run's pairs too,
        --add FILE adds more games of the same pairs, --level-effort JSON tries a game's own
        levels (what its table's level_effort, games/ai/tuning/<game>.py, would declare),
        --glance JSON its own beginner's glance (what its table's glance would declare),
        --processes N each level's search over N processes (a board's computer_processes)

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
from games.ai import tuning as tables  # noqa: E402
from games.ai.mcts import Search, search_options  # noqa: E402
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


def drawn_options(game, options: dict, rng: random.Random, i: int, previous: dict) -> dict:
    """The options game `i` of a match draws (`Game.drawn_options`: Arbos's setup), from the
    match's rng so that a run is repeated by its seed: drawn afresh for each even game and
    kept for the odd one after it, which swaps the colours (as cutechess's `-repeat` plays each
    opening with both colours), so the luck of a setup falls on both players alike."""
    if i % 2:
        return previous
    names = game.new_state(**options).options()
    return {k: rng.randrange(1 << 32) for k in sorted(game.drawn_options)
            if k in names and k not in options}


def random_move(state, rng: random.Random):
    return rng.choice(list(state.legal_moves()))


def our_move(state, seconds: float, seed: int, tuning: dict | None, level: str | None = None):
    """games.ai.best_move, or with `tuning` the MCTS with those options over the game's own
    (its table's `search_options`): to try options before making them the game's; with `level`,
    that level's move (games.ai.play_level: its effort, whatever the time)."""
    if level is not None:
        return games.ai.play_level(state, games.ai.level(level), seed=seed)
    if tuning is None:
        return games.ai.best_move(state, seconds=seconds, seed=seed)
    legal = state.legal_moves()
    if len(legal) == 1:
        return legal[0]
    search = Search(state, seed=seed, **{**search_options(state), **tuning})
    search.run(seconds=seconds)
    return search.best()


def versus(args) -> dict:
    game = games.get_game(args.game)
    rng = random.Random(args.seed)
    tuning = json.loads(args.tuning) if args.tuning else None
    results, ours_seconds, capped, drawn = [], [], 0, {}
    for i in range(args.games):
        ours = i % 2  # colours alternate
        options = dict(o.split("=", 1) for o in args.option or [])
        drawn = drawn_options(game, options, rng, i, drawn)
        state = game.new_state(**options, **drawn)
        while not state.is_over() and len(state.moves) < args.max_moves:
            if state.to_move == ours:
                start = time.perf_counter()
                move = our_move(state, args.seconds, rng.randrange(1 << 30), tuning, args.level)
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
            "tuning": {**search_options(state), **(tuning or {})},
            "ours_seconds": None if args.level else args.seconds, "ours_level": args.level,
            "ours_mean_move_s": round(sum(ours_seconds) / max(1, len(ours_seconds)), 3),
            "max_moves": args.max_moves, "capped": capped, **interval(results)}


# --- levels: effort and the ladder --------------------------------------------------------

def positions(game, options: dict, count: int, rng: random.Random) -> list:
    """Positions a game passes through: random games stopped a random share of the way in."""
    out = []
    while len(out) < count:
        state = game.new_state(**options)
        plies = []
        probe = state.copy()
        while not probe.is_over() and len(probe.moves) < 400:
            plies.append(random_move(probe, rng))
            probe.play(plies[-1])
        stop = rng.randrange(max(1, len(plies) * 3 // 4))
        state.play_all(plies[:stop])
        if not state.is_over() and len(state.legal_moves()) > 1:
            out.append(state)
    return out


def effort(args) -> dict:
    """CPU seconds a move at each level on the same positions (median and max), and a quarter
    core's time: what a Pi's share would take, the cap aside."""
    game = games.get_game(args.game)
    options = dict(o.split("=", 1) for o in args.option or [])
    rng = random.Random(args.seed)
    states = positions(game, options, args.positions, rng)
    out = {"game": args.game, "options": options, "positions": len(states), "levels": {}}
    for name, lvl in games.ai.LEVELS.items():
        if args.levels and name not in args.levels.split(","):
            continue
        lvl = games.ai.game_level(game, lvl)  # the game's own effort, where it declares one
        times = []
        for state in states:
            start = time.process_time()
            games.ai.play_level(state, lvl, seed=rng.randrange(1 << 30))
            times.append(time.process_time() - start)
        times.sort()
        median = times[len(times) // 2]
        out["levels"][name] = {"iterations": lvl.iterations, "exact_free": lvl.exact_free,
                               "cap_s": lvl.seconds, "exact": lvl.exact, "median_s": round(median, 3),
                               "max_s": round(times[-1], 3),
                               "quarter_core_median_s": round(4 * median, 2)}
        print(f"{name}: median {median:.3f} s, max {times[-1]:.3f} s", file=sys.stderr)
    return out


ANCHORS = ("random", "greedy")


#: (pool, processes) while a ladder plays its levels' searches over several processes
#: (`ladder --processes N`, as a board's `computer_processes`); None: one process.
_PARALLEL: tuple | None = None

#: The moves whose search the wall-time cap cut short of its level's effort, by level: such a
#: move is weaker than the level (a machine too loaded, or a run stopped mid-move: the cap is
#: wall time), so a match says how many it had instead of rating them silently.
LIMITED: dict[str, int] = {}


def player_move(who: str, state, rng: random.Random):
    if who == "random":
        return random_move(state, rng)
    if who == "greedy":
        return greedy_move(state, rng)
    seed = rng.randrange(1 << 30)
    pool, processes = _PARALLEL or (None, 1)
    # (one process: play_level's own move, think_level's Thought says whether it was cut)
    thought = games.ai.think_level(state, games.ai.LEVELS[who], seed=seed, pool=pool,
                                   processes=processes)
    if thought.limited:
        LIMITED[who] = LIMITED.get(who, 0) + 1
    return thought.move


def _cut(moves: int) -> str:
    return f"{moves} moves cut by the cap, " if moves else ""


def match(game, options: dict, a: str, b: str, count: int, rng: random.Random,
          max_moves: int) -> list[float]:
    """`count` games of a against b, colours alternating (a game's drawn options, Arbos's
    setup, the same for both colours: `drawn_options`): a's points in each."""
    points, drawn = [], {}
    for i in range(count):
        seat_a = i % 2
        drawn = drawn_options(game, options, rng, i, drawn)
        state = game.new_state(**options, **drawn)
        cut = sum(LIMITED.values())
        while not state.is_over() and len(state.moves) < max_moves:
            who = a if state.to_move == seat_a else b
            state.play(player_move(who, state, rng))
        points.append(points_for(state, seat_a))
        print(f"  {a} v {b} game {i + 1}: {a} as player {seat_a}, {drawn or ''} "
              f"{len(state.moves)} moves"
              f"{'' if state.is_over() else ' (capped)'}, scores {state.scores()}, "
              f"{_cut(sum(LIMITED.values()) - cut)}{a} {points[-1]}", file=sys.stderr)
    return points


def fit_ratings(results: dict[tuple[str, str], list[float]], anchor: str,
                anchor_rating: float = 1000.0, prior_draws: float = 1.0) -> dict:
    """Elo ratings by maximum likelihood (Bradley-Terry on the 400 log10 scale) from every
    pair's points, `anchor` fixed, with 95 % intervals from the observed information (each
    rating's interval relative to the anchor). A pair's `prior_draws` virtual draws keep a
    clean sweep finite (BayesElo does the same): a 12-0 says "far stronger", not "infinitely"."""
    names = sorted({n for pair in results for n in pair})
    free = [n for n in names if n != anchor]
    k = math.log(10) / 400
    r = dict.fromkeys(names, 0.0)
    games_ = {pair: (sum(p) + prior_draws / 2, len(p) + prior_draws)
              for pair, p in results.items()}
    for _ in range(100):  # Newton's method on the log-likelihood
        grad = dict.fromkeys(free, 0.0)
        hess = {(x, y): 0.0 for x in free for y in free}
        for (a, b), (score, n) in games_.items():
            e = 1 / (1 + math.exp(-k * (r[a] - r[b])))
            g, h = k * (score - n * e), k * k * n * e * (1 - e)
            for x, sign in ((a, 1), (b, -1)):
                if x in grad:
                    grad[x] += sign * g
            for x, sx in ((a, 1), (b, -1)):
                for y, sy in ((a, 1), (b, -1)):
                    if x in grad and y in grad:
                        hess[x, y] += sx * sy * h
        step = solve([[hess[x, y] for y in free] for x in free], [grad[x] for x in free])
        for x, d in zip(free, step):
            r[x] += d
        if max(map(abs, step), default=0) < 1e-6:
            break
    cov = invert([[hess[x, y] for y in free] for x in free])
    out = {anchor: {"rating": anchor_rating, "ci95": [anchor_rating, anchor_rating]}}
    for i, x in enumerate(free):
        half = 1.96 * math.sqrt(max(0.0, cov[i][i]))
        out[x] = {"rating": round(anchor_rating + r[x]),
                  "ci95": [round(anchor_rating + r[x] - half), round(anchor_rating + r[x] + half)]}
    return out


def connected(results: dict[tuple[str, str], list[float]], anchor: str) -> bool:
    """Whether every player of `results` meets the anchor through a chain of pairs (else
    the fit has nothing to hold their ratings to)."""
    names = {n for pair in results for n in pair}
    seen, todo = {anchor}, [anchor]
    while todo:
        x = todo.pop()
        for a, b in results:
            for y, z in ((a, b), (b, a)):
                if y == x and z not in seen:
                    seen.add(z)
                    todo.append(z)
    return bool(names) and names <= seen


def solve(m: list[list[float]], v: list[float]) -> list[float]:
    """m x = v by Gaussian elimination with partial pivoting (a handful of players)."""
    n = len(v)
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(a[i][c]))
        a[c], a[p] = a[p], a[c]
        for i in range(n):
            if i != c and a[c][c]:
                f = a[i][c] / a[c][c]
                a[i] = [x - f * y for x, y in zip(a[i], a[c])]
    return [a[i][n] / a[i][i] for i in range(n)]


def invert(m: list[list[float]]) -> list[list[float]]:
    n = len(m)
    cols = [solve(m, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


#: Who meets whom on the ladder: each level the next, the anchors the bottom of it.
LADDER_PAIRS = [("greedy", "random"), ("beginner", "random"), ("beginner", "greedy"),
                ("easy", "greedy"), ("easy", "beginner"), ("medium", "easy"),
                ("hard", "medium"), ("strongest", "hard")]


def read_ladder(path: str, game: str) -> dict:
    """The pairs of a ladder's JSON output (or --out file) for `game`; SystemExit naming the
    file and what was expected otherwise."""
    try:
        earlier = json.loads(Path(path).read_text())
        pairs = earlier["pairs"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit(f"{path}: expected a ladder's JSON output with its 'pairs': "
                         f"{exc}") from None
    if earlier.get("game") != game:
        raise SystemExit(f"{path}: a ladder of {earlier.get('game')!r}, not {game!r}")
    return pairs


def ladder(args) -> dict:
    global _PARALLEL
    processes = getattr(args, "processes", 1)
    if processes > 1:
        # The levels' searches spread as a board's worker spreads them (computer_processes):
        # this process and processes - 1 helpers, root parallelism (games/ai/parallel.py).
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(processes - 1, mp_context=multiprocessing.get_context("spawn"))
        _PARALLEL = (pool, processes)
        try:
            return _ladder(args)
        finally:
            _PARALLEL = None
            pool.shutdown()
    return _ladder(args)


def _ladder(args) -> dict:
    game = games.get_game(args.game)
    table = tables.of(game)
    if getattr(args, "level_effort", None):
        # Levels to try before the game's table declares them (its `level_effort`).
        type(table).level_effort = json.loads(args.level_effort)
    if getattr(args, "glance", None):
        # A beginner's glance to try before the game's table declares it (its `glance`).
        type(table).glance = json.loads(args.glance)
    options = dict(o.split("=", 1) for o in args.option or [])
    rng = random.Random(args.seed)
    only = set(args.pairs.split(",")) if args.pairs else None
    results, shares = {}, {}
    for a, b in LADDER_PAIRS:
        if only is not None and f"{a}-{b}" not in only:
            continue
        start, cut = time.perf_counter(), sum(LIMITED.values())
        points = match(game, options, a, b, args.games, rng, args.max_moves)
        results[a, b] = points
        # The first player's share too: a game that favours a colour shows it here.
        first = sum(p if i % 2 == 0 else 1 - p for i, p in enumerate(points)) / len(points)
        shares[f"{a} v {b}"] = {**interval(points), "first_share": round(first, 3),
                                "seconds": round(time.perf_counter() - start),
                                "cut_by_cap": sum(LIMITED.values()) - cut}
        print(f"{a} v {b}: {shares[f'{a} v {b}']}", file=sys.stderr)
        if args.out:
            # Each pair as it finishes, in the form --merge reads: an interrupted run keeps
            # what it played.
            Path(args.out).write_text(json.dumps(
                {"game": args.game, "options": options, "games_per_pair": args.games,
                 "seed": args.seed, "max_moves": args.max_moves,
                 "level_effort": table.level_effort, "glance": table.glance,
                 "processes": getattr(args, "processes", 1), "pairs": shares}) + "\n")
    for merge in args.merge or []:
        # Pairs played in an earlier run (its JSON output), unless played again here: a
        # share of n games is as good as the points for the fit.
        for key, entry in read_ladder(merge, args.game).items():
            a, b = key.split(" v ")
            if (a, b) not in results:
                n, won = entry["games"], entry["share"] * entry["games"]
                results[a, b] = [won / n] * n  # the same sum and count
                shares[key] = {**entry, **interval(results[a, b]), "from": Path(merge).name}
    for more in getattr(args, "add", None) or []:
        # More games of the same levels (another seed): each pair's games join the pair's.
        for key, entry in read_ladder(more, args.game).items():
            a, b = key.split(" v ")
            n, won = entry["games"], entry["share"] * entry["games"]
            results[a, b] = results.get((a, b), []) + [won / n] * n
            points, before = results[a, b], shares.get(key, {})
            joined = {**interval(points), "seconds": before.get("seconds", 0)
                      + entry.get("seconds", 0), "from": "+".join(
                          filter(None, [before.get("from", "this run"), Path(more).name]))}
            if "first_share" in before and "first_share" in entry:  # (older runs lack it)
                m = before["games"]
                joined["first_share"] = round((before["first_share"] * m + entry["first_share"]
                                               * n) / (m + n), 3)
            shares[key] = joined
    if not connected(results, "greedy"):
        # Nothing to fit the ratings to (the pairs played do not reach the anchor): the
        # pairs alone, for --merge with a run that played the anchors.
        print("ladder: the pairs do not all reach greedy (the anchor): no ratings; "
              "--merge a run with the anchors' pairs to fit them", file=sys.stderr)
        return {"game": args.game, "options": options, "games_per_pair": args.games,
                "seed": args.seed, "max_moves": args.max_moves,
                "level_effort": table.level_effort, "glance": table.glance, "pairs": shares}
    ratings = fit_ratings(results, anchor="greedy")
    out = {"game": args.game, "options": options, "games_per_pair": args.games,
           "seed": args.seed, "max_moves": args.max_moves,
           "level_effort": table.level_effort, "glance": table.glance, "pairs": shares,
           "ratings": ratings}
    if args.write:
        path = games.ai.RATINGS_FILE
        table = json.loads(path.read_text()) if path.exists() else {}
        table[args.game] = {"ratings": {n: ratings[n] for n in games.ai.LEVELS if n in ratings},
                            "anchors": {n: ratings[n] for n in ANCHORS if n in ratings},
                            "games_per_pair": args.games, "options": options,
                            "pairs": {k: {f: v for f, v in entry.items() if f != "from"}
                                      for k, entry in shares.items()}}
        path.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    return out


def table(args) -> dict:
    """games/ai/data/ratings.json as docs/ai.md's tables (markdown on stdout)."""
    data = json.loads(games.ai.RATINGS_FILE.read_text())
    below = {a: b for a, b in LADDER_PAIRS if a in games.ai.LEVELS and b != "random"}
    below["easy"] = "beginner"
    for name in games.names():
        entry = data.get(name)
        if entry is None:
            continue
        options = " ".join(f"{k}={v}" for k, v in entry.get("options", {}).items())
        counts = sorted({pair["games"] for pair in entry["pairs"].values()})
        count = (f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}")
        print(f"{games.get_game(name).short_title}{' (' + options + ')' if options else ''}, "
              f"{count} games a pair:\n")
        print("| player | rating | 95 % interval | against the one below | games | share | "
              "95 % interval |")
        print("|---|---|---|---|---|---|---|")
        rated = {**entry.get("anchors", {}), **entry["ratings"]}
        for who in ("random", "greedy", *games.ai.LEVELS):
            if who not in rated:
                continue
            r = rated[who]
            other = below.get(who) or ("random" if who == "greedy" else None)
            pair = entry["pairs"].get(f"{who} v {other}") if other else None
            if who == "beginner":
                pair = entry["pairs"].get("beginner v greedy")
                other = "greedy"
            cells = [f"`{who}`", str(round(r["rating"])),
                     "anchor" if who == "greedy" else f"{r['ci95'][0]}-{r['ci95'][1]}"]
            if pair:
                cells += [other, str(pair["games"]), f"{pair['share']:.2f}",
                          f"{pair['ci95'][0]:.2f}-{pair['ci95'][1]:.2f}"]
            else:
                cells += ["", "", "", ""]
            print("| " + " | ".join(cells) + " |")
        print()
    return {}


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
                move = our_move(state, budget, rng.randrange(1 << 30), None, args.level)
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
    return {"game": "tree-planting", "board": args.board, "ours_level": args.level,
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
    p.add_argument("--level", help="ours at this level (games.ai.LEVELS: its effort a move) "
                                   "instead of the bot's time")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("versus", help="any game against greedy, random or ourselves")
    p.add_argument("--game", default="treeblox")
    p.add_argument("--option", action="append", metavar="KEY=VALUE")
    p.add_argument("--opponent", default="greedy", help="greedy, random or self:SECONDS")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seconds", type=float, default=0.3, help="our time per move")
    p.add_argument("--level", help="ours at this level (games.ai.LEVELS: its effort a move) "
                                   "instead of --seconds")
    p.add_argument("--tuning", metavar="JSON",
                   help='our search options over the game\'s own, e.g. \'{"playout_cap": 12}\' '
                        "(a self:SECONDS opponent keeps the game's own)")
    p.add_argument("--max-moves", type=int, default=1000,
                   help="a game still on after this many moves (both players') is stopped "
                        "and scored as it stands; the JSON says how many were ('capped')")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("effort", help="each level's time a move")
    p.add_argument("--game", default="treeblox")
    p.add_argument("--option", action="append", metavar="KEY=VALUE")
    p.add_argument("--positions", type=int, default=6)
    p.add_argument("--levels", help="only these levels, e.g. beginner,easy")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("ladder", help="the levels against each other and the anchors")
    p.add_argument("--game", default="treeblox")
    p.add_argument("--option", action="append", metavar="KEY=VALUE")
    p.add_argument("--games", type=int, default=12, help="games per pair (colours alternate)")
    p.add_argument("--pairs", help="only these pairs, e.g. beginner-greedy,easy-beginner")
    p.add_argument("--max-moves", type=int, default=600)
    p.add_argument("--merge", metavar="JSON", action="append",
                   help="an earlier ladder's output (or --out file): its pairs not played "
                        "again join the fit; may be given more than once (the first file "
                        "that has a pair gives it)")
    p.add_argument("--add", metavar="JSON", action="append",
                   help="a run of the same levels (another seed): its pairs' games are added "
                        "to the same pairs' games (after --merge); more than once")
    p.add_argument("--out", metavar="JSON",
                   help="write the pairs played so far to this file after each pair "
                        "(for --merge: an interrupted run keeps what it played)")
    p.add_argument("--level-effort", metavar="JSON",
                   help="try levels of the game's own, as its table's level_effort would "
                        "declare them, e.g. '{\"hard\": {\"exact_free\": 20}}'")
    p.add_argument("--glance", metavar="JSON",
                   help="try a beginner's glance of the game's own, as its table's glance would "
                        "declare it, e.g. '{\"answer\": 0.3}'")
    p.add_argument("--write", action="store_true",
                   help="keep the ratings in games/ai/data/ratings.json")
    p.add_argument("--processes", type=int, default=1,
                   help="each level's search over this many processes, as a board's "
                        "computer_processes spreads it (the ratings were measured with 1)")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("table", help="the ratings file as docs/ai.md's tables")
    args = parser.parse_args()
    result = {"planting": planting, "versus": versus, "effort": effort,
              "ladder": ladder, "table": table}[args.what](args)
    if result:
        print(json.dumps(result))


if __name__ == "__main__":
    main()

"""Monte Carlo tree search (UCT) for any game behind the common interface (`games.base.State`).

Nothing here knows a game: it asks the state for `to_move`, `legal_moves`, `play`, `undo`,
`is_over`, `winner`, `scores` and `playout(rng, cap)` (the engine's fast random playout, which
records its moves so `undo` takes them back; games/base.py has a plain default), and uses
the extras games/base.py declares with a default: `position_key()` (a hashable position, which
lets transpositions share one node; None: no sharing) and, with progressive widening,
`move_prior(moves)` (which moves to look at first). What differs per game is options only,
which the game's table declares (games/ai/tuning/<game>.py, `search_options`).

The mover can move twice in a row (a Tree Planting capture, a Treeblox turn of two cubes): every
node remembers whose move it is, and a result is credited from that player's side.

Pure: no I/O, no threads; the time budget is read from an injected clock.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Callable, Mapping

from games.ai import tuning

#: Exploration constant of UCB1 for rewards in [0, 1].
EXPLORATION = 1.0
#: Rewards are mostly win/draw/loss; this much of them is the score margin, so that among
#: winning moves the search prefers the bigger win (and among losing ones the smaller loss).
MARGIN_WEIGHT = 0.1


def search_options(state: Any) -> dict[str, Any]:
    """The Search options for the game `state` is a position of, as its table declares them
    (games/ai/tuning/<game>.py: a game too wide, or whose playouts are too long, for plain UCT
    within seconds)."""
    return dict(tuning.of(state.game).search_options)


class Node:
    """The statistics of one position: per legal move, visits and total reward for the mover.

    Moves are kept best guess first (the prior's order, ties at random; no prior: at random).
    Without widening every move is tried once before UCB1 chooses; with it, only the first
    `width(visits)` moves take part, the next one joining as the node's visits grow
    (progressive widening), so a position with hundreds of moves still gets a deep tree."""

    __slots__ = ("mover", "moves", "n", "w", "child", "visits", "tried")

    def __init__(self, state: Any, rng: random.Random, prior: str | None = None):
        self.mover = state.to_move
        moves = list(state.legal_moves())
        rng.shuffle(moves)  # unvisited moves are tried in a random order (ties of the prior)
        if prior and len(moves) > 1:
            guess = state.move_prior(moves) if prior == "game" else greedy_prior(state, moves)
            if guess is not None:
                order = sorted(range(len(moves)), key=guess.__getitem__, reverse=True)
                moves = [moves[i] for i in order]
        self.moves = moves
        self.n = [0] * len(moves)
        self.w = [0.0] * len(moves)
        self.child: list[Node | None] = [None] * len(moves)
        self.visits = 0
        self.tried = 0

    def select(self, c: float, width: int, bias: float = 0.0) -> int:
        """The move to follow: the next untried one while fewer than `width` were tried, else
        the best by UCB1 among the first `width`, plus `bias` / (rank * sqrt(visits)) for the
        prior's order (the prior's first move the most): a bias that fades only as fast as
        the playouts' own noise, so that where the playouts cannot tell moves apart the
        prior's order decides, and only clear evidence overrides it."""
        width = min(width, len(self.moves))
        if self.tried < width:
            i = self.tried
            self.tried += 1
            return i
        log_n = math.log(self.visits)
        best, best_i = -1.0, 0
        n, w = self.n, self.w
        for i in range(self.tried):
            ni = n[i]
            u = w[i] / ni + c * math.sqrt(log_n / ni)
            if bias:
                u += bias / ((i + 1) * math.sqrt(ni))
            if u > best:
                best, best_i = u, i
        return best_i


#: Above any score margin: what `greedy_prior` adds for a move that wins the game at once.
WIN_PRIOR = 1_000_000


def greedy_prior(state: Any, moves: list) -> list[float]:
    """A prior any game has: the mover's score margin right after each move (one play and
    undo per move), a move that wins at once before all and one that loses after all. For
    games whose score moves during the game (Game for the Trees)."""
    me = state.to_move
    out = []
    for m in moves:
        state.play(m)
        a, b = state.scores()
        margin = a - b if me == 0 else b - a
        if state.is_over():  # a move that ends the game goes first if it wins, last if it loses
            winner = state.winner()
            margin += 0 if winner is None else WIN_PRIOR if winner == me else -WIN_PRIOR
        state.undo()
        out.append(margin)
    return out


def outcome(state: Any, player: int, margin_weight: float = MARGIN_WEIGHT) -> float:
    """The reward in [0, 1] of a finished (or abandoned) game for `player`: mostly the result
    (an abandoned one's by the game's `playout_value`, or by the scores as they stand), and
    `margin_weight` of it the score margin."""
    a, b = state.scores()
    value = None if state.is_over() else state.playout_value()
    if value is not None:  # a capped playout, valued by the game's rules
        win = value if player == 0 else 1.0 - value
    else:
        if state.is_over():
            winner = state.winner()
        else:
            winner = 0 if a > b else 1 if b > a else None
        win = 0.5 if winner is None else 1.0 if winner == player else 0.0
    margin = (a - b) if player == 0 else (b - a)
    total = abs(a) + abs(b) + 1
    return (1 - margin_weight) * win + margin_weight * (0.5 + 0.5 * margin / total)


class Search:
    """A UCT search rooted at a copy of `state`. Call `run` with a budget, then ask
    `best`, `stats`."""

    def __init__(self, state: Any, *, seed: int | None = None, exploration: float = EXPLORATION,
                 transpositions: bool = True,
                 widening: tuple[float, float] | None = None, prior: str | None = None,
                 playout_cap: int | None = None, safe_root: bool = False,
                 margin_weight: float = MARGIN_WEIGHT, prior_bias: float = 0.0,
                 playout_options: Mapping[str, Any] | None = None):
        """Options (a game's own: its table's `search_options`, games/ai/tuning/):
        `exploration`, UCB1's constant; `widening` (k, a): a node visited n times considers its
        first max(1, k * n**a) moves (None: all); `prior`: how moves are ordered for the
        widening, "game" (the state's `move_prior`), "greedy" (`greedy_prior`) or None (at
        random); `playout_cap`: stop the engine's playout after this many moves (its
        `playout(rng, cap=...)`) and score the game as it stands: many short playouts instead
        of a few long, noisy ones; `playout_options`: keyword arguments of the engine's
        playout, for a game whose playout can be played more than one way (Arbos: `choices`);
        `safe_root`: order the root's moves wins at once first, then those after which the
        opponent cannot win at once, the others last (decisive and anti-decisive moves,
        Teytaud & Teytaud 2010: two plies of plays, once per search, so that the widening
        reaches a defence before a move that loses); `margin_weight`: how much of a playout's
        reward is the score margin rather than the result (a game whose random playouts are
        won by whoever leads, whatever the move, needs the margin to tell moves apart)."""
        if not 0.0 <= margin_weight <= 1.0:
            raise ValueError(f"margin_weight {margin_weight!r}: expected 0 to 1")
        if prior not in (None, "game", "greedy"):
            raise ValueError(f"prior {prior!r}: expected None, 'game' or 'greedy'")
        self.state = state.copy()
        self.rng = random.Random(seed)
        self.c = exploration
        self.widening = widening
        self.prior = prior
        self.playout_cap = playout_cap
        self.playout_options = dict(playout_options or {})
        self.margin_weight = margin_weight
        self.prior_bias = prior_bias if prior else 0.0
        self.keyed = transpositions and self.state.position_key() is not None
        self.table: dict[Any, Node] = {}
        self.root = self._node()
        self.nodes = 1
        self.iterations = 0
        self.unsafe_root = safe_root  # ordered by the first `run`, within its budget

    def _order_root_safely(self, deadline: float, clock: Callable[[], float]) -> None:
        state, root = self.state, self.root
        me = root.mover
        wins, safe, losing = [], [], []
        moves = root.moves
        for k, m in enumerate(moves):
            if clock() >= deadline:  # out of time: the rest stay in the prior's order
                safe += moves[k:]
                break
            state.play(m)
            if state.is_over():
                winner = state.winner()
                (wins if winner == me else safe if winner is None else losing).append(m)
            elif state.to_move == me:
                safe.append(m)  # the mover moves again: no reply to fear yet
            else:
                lost = False
                for reply in state.legal_moves():
                    state.play(reply)
                    lost = state.is_over() and state.winner() == 1 - me
                    state.undo()
                    if lost:
                        break
                (losing if lost else safe).append(m)
            state.undo()
        root.moves = wins + safe + losing  # nothing visited yet: the statistics stay zero

    def _node(self) -> Node:
        if self.keyed:
            key = self.state.position_key()
            node = self.table.get(key)
            if node is None:
                node = self.table[key] = Node(self.state, self.rng, self.prior)
            return node
        return Node(self.state, self.rng, self.prior)

    def run(self, *, seconds: float, iterations: int | None = None,
            clock: Callable[[], float] = time.perf_counter, max_nodes: int = 200_000) -> int:
        """Search for `seconds` (or `iterations`, whichever ends first); returns iterations done.
        The tree stops growing at `max_nodes` nodes (later iterations only refine it)."""
        deadline = clock() + seconds
        if self.unsafe_root:
            self.unsafe_root = False
            self._order_root_safely(deadline - seconds / 2, clock)  # half the budget at most
        done = 0
        while iterations is None or done < iterations:
            if done and clock() >= deadline:  # every iteration: a playout may be slow
                break
            self._iterate(max_nodes)
            done += 1
        self.iterations += done
        return done

    def _iterate(self, max_nodes: int) -> None:
        state, rng = self.state, self.rng
        path: list[tuple[Node, int]] = []
        node = self.root
        played = 0
        seen = {id(node)}
        widening = self.widening
        while node.moves:
            node.visits += 1
            if widening is None:
                width = len(node.moves)
            else:
                width = max(1, int(widening[0] * node.visits ** widening[1]))
            i = node.select(self.c, width, self.prior_bias)
            path.append((node, i))
            state.play(node.moves[i])
            played += 1
            child = node.child[i]
            if child is None:
                if self.nodes < max_nodes:
                    node.child[i] = self._node()
                    self.nodes += 1
                break  # a new leaf: play out from it
            if id(child) in seen:
                break  # a repeated position in this line: play out from here
            seen.add(id(child))
            node = child
        # Play out from here to the end.
        before = len(state.moves)
        if not state.is_over():
            # cap None: the game's own default
            state.playout(rng, cap=self.playout_cap, **self.playout_options)
        extra = len(state.moves) - before
        r0 = outcome(state, 0, self.margin_weight)
        for _ in range(extra + played):
            state.undo()
        for node, i in path:
            node.n[i] += 1
            node.w[i] += r0 if node.mover == 0 else 1.0 - r0

    # --- answers ----------------------------------------------------------------------------

    def stats(self) -> list[tuple[Any, int, float]]:
        """(move, visits, mean reward for the mover) of every root move, most visited first."""
        root = self.root
        out = [(m, root.n[i], root.w[i] / root.n[i] if root.n[i] else 0.0)
               for i, m in enumerate(root.moves)]
        out.sort(key=lambda t: (-t[1], -t[2]))
        return out

    def best(self, noise: float = 0.0) -> Any:
        """The most visited move; with `noise` > 0, a move drawn with probability growing
        with its visits (noise 1: proportional to visits), for weaker, varied play."""
        stats = self.stats()
        if not stats:
            raise ValueError("no legal move: the game is over")
        if noise <= 0:
            if self.prior is not None:
                # Moves the search visited equally often it could not tell apart (their means
                # differ by noise): the prior's order decides, the root's moves' order. Where
                # the playouts' results saturate the widening lets in more moves the more it
                # searches, all visited alike, and the noise chose among ever more of them,
                # so that more search played worse (docs/ai.md, "Every game").
                root = self.root
                most = stats[0][1]
                return next(m for i, m in enumerate(root.moves) if root.n[i] == most)
            return stats[0][0]
        weights = [(n + 1) ** (1.0 / noise) for _, n, _ in stats]
        return self.rng.choices([m for m, _, _ in stats], weights=weights)[0]

"""Arbos: place the other player's seeds, grow spores into at most three trees, and score the
seeds of yours that two of your trees reach.

Rules: ../shared/rules/arbos.txt; every reading we chose is numbered in docs/games/arbos.md.

Cells. Rows A.. from the top, columns 1.. from the left: `C7` is row C, column 7. Inside, a
cell is an index `r * cols + c`; neighbours (side and corner: 8; side only: 4) are tuples made
once per board size and shared by every state.

Moves. One physical change per move, so that the board's reconcile sees one token at a time:
`seed C7` (setup: a seed of the other player), `C7` (a spore), `C7=` (a seed replaced by a
spore; two follow-up spores are then owed in the same turn), `xC7` (one of the mover's spores
removed while they have more than three trees), `pass`. A turn is therefore one or more
moves; `to_move` stays the same until the turn's action is complete.

Trees are kept incrementally: `_tree_of[i]` is the id of the tree a spore belongs to and
`_trees[p]` maps id -> set of cells. A placement joins the trees around it (the smaller ones
relabelled into the largest); a removal re-floods only the tree it was in. Every change is
recorded in the history so `undo` restores the sets exactly, without any flood fill.
"""

from __future__ import annotations

import hashlib
import random
import re
import secrets
from functools import lru_cache
from typing import Any, NamedTuple

from games.base import BadOptions, Game, IllegalMove, InvalidNotation, Reason, State
from games.plan import Piece, Plan, grid_plan

ROWS = "ABCDEFGHIJKLMNOPQRST"
MAX_SIDE = len(ROWS)  # the rules label 20 rows A..T and 20 columns 1..20
MIN_SIDE = 4
BOX_SEEDS, BOX_SPORES = 10, 80  # per player, in the box
BOX_CELLS = 400                 # the 20x20 board the box's counts are made for
MAX_TREES = 3
#: The physical board. The rules give no dimensions ("a Go board works too"); ours: cells of a
#: Go board's 22 mm, tokens 16 mm across (an LED fits in the cell's corner beside one), a
#: 5 x 2 mm magnet in each.
CELL_MM = 22.0
TOKEN_MM = (16.0, 4.0)   # diameter, thickness
TOKEN_MAGNET = "5 x 2 mm neodymium disc (N42), in the token's underside"
#: Two seeds need at least two empty cells between them along the row or the column: at
#: least 3 apart in the larger of the two directions (Chebyshev distance >= 3).
SEED_DISTANCE = 3
NAMED_BOARDS = ("20x20", "19x19", "18x18")
#: A playout stops after this many moves, finished or not (its default `cap`). Every game
#: ends within 2 x seeds + 6 x spores + 1 moves (reading 12: 501 on 20x20); a playout's game
#: of 20x20 ends in about 185 moves, so this only guards against a long one.
PLAYOUT_CAP = 400
#: Random draws of a cell a playout tries before it lists the legal cells outright (with
#: three trees, only the cells beside the mover's spores: a pass used to check every cell,
#: 44 % of a 20x20 playout's cell checks for under 2 passes in 138 moves).
_DRAWS = 48

#: The setup's two ways (reading 13): the board draws each seed's cell, or the placer chooses.
SETUPS = ("random", "chosen")
#: A drawn setup's seed is a whole number below this (what `secrets` draws when none is given).
SETUP_SEED_LIMIT = 2**32

SEED, SPORE, REPLACE, REMOVE, PASS_KIND = "seed", "spore", "replace", "remove", "pass"
#: The referee's move when a begun turn's time runs out (reading 10): never a player's choice.
TIMEOUT_KIND = "timeout"

# What a cell holds: EMPTY, or a code per (kind, owner).
EMPTY = 0
_SEED = (1, 2)   # _SEED[p]: a seed of player p
_SPORE = (3, 4)  # _SPORE[p]: a spore of player p
_KIND_TEXT = {1: "seed:0", 2: "seed:1", 3: "spore:0", 4: "spore:1"}

COLOURS = ("white", "black")

Cell = tuple[int, int]  # (row, column), from 0


def cell_name(cell: Cell) -> str:
    return f"{ROWS[cell[0]]}{cell[1] + 1}"


_CELL = re.compile(r"^([a-t])\s*(\d{1,2})$")
_CELL_HELP = "a cell is a row letter A..T and a column number 1..20, such as C7"


def parse_cell(text: str) -> Cell:
    """The cell `text` names (any letter case). Raises InvalidNotation."""
    m = _CELL.match(text.strip().lower())
    if not m or not 1 <= int(m.group(2)) <= MAX_SIDE:
        raise InvalidNotation(text, _CELL_HELP)
    return (ROWS.lower().index(m.group(1)), int(m.group(2)) - 1)


class Move(NamedTuple):
    """A move: kind and cell (None for a pass). Immutable and hashable."""

    kind: str
    cell: Cell | None = None

    def __str__(self) -> str:
        if self.kind == PASS_KIND:
            return "pass"
        if self.kind == TIMEOUT_KIND:
            return "time"
        name = cell_name(self.cell)
        return {SEED: "seed " + name, SPORE: name, REPLACE: name + "=", REMOVE: "x" + name}[self.kind]


PASS = Move(PASS_KIND)
TIMEOUT = Move(TIMEOUT_KIND)

_MOVE_HELP = ("a move is 'seed C7' (setup), 'C7' (a spore), 'C7=' (replace your seed at C7 by a "
              "spore), 'xC7' (remove your spore from C7), 'pass', or 'time' (the referee's, when "
              "a begun turn's time runs out)")


def parse_move(text: Any) -> Move:
    """The move `text` names. Raises InvalidNotation; `str(move)` gives the canonical text."""
    if isinstance(text, Move):
        return text
    if not isinstance(text, str):
        raise InvalidNotation(text, _MOVE_HELP)
    low = text.strip().lower()
    if low in ("pass", "end"):
        return PASS
    if low == "time":
        return TIMEOUT
    try:
        if low.startswith("seed"):
            return Move(SEED, parse_cell(low[4:]))
        if low.endswith("="):
            return Move(REPLACE, parse_cell(low[:-1]))
        if low.startswith("x"):
            return Move(REMOVE, parse_cell(low[1:]))
        return Move(SPORE, parse_cell(low))
    except InvalidNotation:
        raise InvalidNotation(text, _MOVE_HELP) from None


class Geometry:
    """One board size: cell names and neighbour tuples, shared by every state of that size."""

    def __init__(self, rows: int, cols: int):
        self.rows, self.cols = rows, cols
        self.size = rows * cols
        self.names = tuple(cell_name((r, c)) for r in range(rows) for c in range(cols))
        self.index = {n: i for i, n in enumerate(self.names)}
        nb8, nb4, near = [], [], []
        for r in range(rows):
            for c in range(cols):
                around = [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
                nb8.append(tuple(rr * cols + cc for rr, cc in around
                                 if 0 <= rr < rows and 0 <= cc < cols))
                nb4.append(tuple(rr * cols + cc for rr, cc in around
                                 if 0 <= rr < rows and 0 <= cc < cols and (rr == r or cc == c)))
                # Cells closer than SEED_DISTANCE, with their distance: what a seed here affects.
                reach = SEED_DISTANCE - 1
                near.append(tuple((rr * cols + cc, max(abs(rr - r), abs(cc - c)))
                                  for rr in range(r - reach, r + reach + 1)
                                  for cc in range(c - reach, c + reach + 1)
                                  if 0 <= rr < rows and 0 <= cc < cols and (rr, cc) != (r, c)))
        self.nb8, self.nb4, self.near = tuple(nb8), tuple(nb4), tuple(near)

    def cell(self, i: int) -> Cell:
        return divmod(i, self.cols)


@lru_cache(maxsize=32)
def _geometry(rows: int, cols: int) -> Geometry:
    return Geometry(rows, cols)


def box_counts(rows: int, cols: int) -> tuple[int, int]:
    """Seeds and spores per player for a board: the box's 10 and 80 on the three real boards
    (18x18 and up), scaled by the number of cells on smaller ones (reading 3)."""
    if rows >= 18 and cols >= 18:
        return BOX_SEEDS, BOX_SPORES
    cells = rows * cols
    seeds = max(1, int(BOX_SEEDS * cells / BOX_CELLS + 0.5))
    spores = max(4, int(BOX_SPORES * cells / BOX_CELLS + 0.5))
    return seeds, spores


class ArbosState(State):
    __slots__ = ("game", "geo", "_board_name", "_seeds_each", "_spores_each", "_board", "_occ",
                 "_seeds", "_tree_of", "_trees", "_next_id", "_spores_left", "_seed_dist",
                 "_dist_count", "_placed_seeds", "_history", "_to_move", "_phase", "_follow",
                 "_removing", "_passes", "_end", "_setup", "_setup_seed", "_draws")

    def __init__(self, game: "Arbos", board_name: str, rows: int, cols: int, seeds: int,
                 spores: int, setup: str = "chosen", setup_seed: int | None = None):
        self.game = game
        self._setup = setup
        self._setup_seed = setup_seed
        # A drawn setup: seed number k (0, 1, ...) -> the cell drawn for it. The position after
        # k seeds is fixed by the draws before it, so the cache holds for every state of the
        # game and copies share it (a write only ever stores the one cell that k draws).
        self._draws: dict[int, int] = {}
        self.geo = _geometry(rows, cols)
        self._board_name = board_name
        self._seeds_each, self._spores_each = seeds, spores
        n = self.geo.size
        self._board = [EMPTY] * n
        self._occ: dict[str, str] = {}          # site -> kind, kept with the board
        self._seeds: tuple[set[int], set[int]] = (set(), set())
        self._tree_of = [-1] * n                # tree id of the spore in a cell
        self._trees: tuple[dict[int, set[int]], dict[int, set[int]]] = ({}, {})
        self._next_id = 0
        self._spores_left = [spores, spores]
        # Setup only: each cell's distance to the nearest seed, capped at SEED_DISTANCE, and
        # how many free cells have each distance (to know the largest one any free cell has).
        self._seed_dist = [SEED_DISTANCE] * n
        self._dist_count = [0] * SEED_DISTANCE + [n]
        self._placed_seeds = 0
        self._history: list[tuple[Move, tuple, Any]] = []
        self._to_move = 0
        self._phase = "setup"
        self._follow = 0        # follow-up spores still owed after a replacement
        self._removing = False  # the mover has more than three trees and must remove spores
        self._passes = 0
        self._end: str | None = None

    # --- the game interface -------------------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self._to_move

    def legal_moves(self) -> list[Move]:
        """In reading order: seeds (setup), or removals, or spores then replacements then
        `pass` (the start of a turn); only spores while follow-ups are owed."""
        if self._end:
            return []
        geo, p = self.geo, self._to_move
        if self._phase == "setup":
            if self._setup == "random":
                return [Move(SEED, geo.cell(self._drawn()))]
            need = self._seed_needed()
            return [Move(SEED, geo.cell(i)) for i in range(geo.size)
                    if not self._board[i] and self._seed_dist[i] >= need]
        if self._removing:
            spore = _SPORE[p]
            return [Move(REMOVE, geo.cell(i)) for i in range(geo.size) if self._board[i] == spore]
        out = []
        if self._spores_left[p]:
            out = [Move(SPORE, geo.cell(i)) for i in range(geo.size) if self._placeable(p, i)]
        if self._follow:
            return out
        if self._spores_left[p]:
            out += [Move(REPLACE, geo.cell(i)) for i in sorted(self._seeds[p])]
        out.append(PASS)
        return out

    def moves_at(self, site: str) -> list[Move]:
        """The legal moves that change `site` (what reconcile tests for a change there)."""
        i = self.geo.index.get(site)
        if i is None or self._end:
            return []
        p, here = self._to_move, self._board[i]
        cell = self.geo.cell(i)
        if self._phase == "setup":
            if self._setup == "random":
                ok = i == self._drawn()
            else:
                ok = not here and self._seed_dist[i] >= self._seed_needed()
            return [Move(SEED, cell)] if ok else []
        if self._removing:
            return [Move(REMOVE, cell)] if here == _SPORE[p] else []
        if not self._spores_left[p]:
            return []
        if self._placeable(p, i):
            return [Move(SPORE, cell)]
        if here == _SEED[p] and not self._follow:
            return [Move(REPLACE, cell)]
        return []

    def play(self, move: Any) -> None:
        if type(move) is not Move:
            move = self.parse_move(move)
        i = self._check(move)  # raises before anything changes
        self._apply(move, i)

    def undo(self) -> Move:
        if not self._history:
            raise IndexError("no move to undo")
        move, turn, data = self._history.pop()
        (self._to_move, self._phase, self._follow, self._removing, self._passes,
         self._end) = turn
        kind = move.kind
        if kind == PASS_KIND:
            return move
        p = self._to_move
        if kind == TIMEOUT_KIND:
            for i, split in reversed(data):
                self._unsplit(p, i, split)
                self._set(i, _SPORE[p])
            return move
        i = move.cell[0] * self.geo.cols + move.cell[1]
        if kind == SEED:
            self._clear(i)
            self._seeds[1 - p].discard(i)
            self._placed_seeds -= 1
            dist, counts, board = self._seed_dist, self._dist_count, self._board
            for j, old in reversed(data):
                if not board[j]:  # free cells are counted by distance (i is free again)
                    if j != i:
                        counts[dist[j]] -= 1
                    counts[old] += 1
                dist[j] = old
        elif kind == SPORE:
            self._unjoin(p, i, data)
            self._clear(i)
            self._spores_left[p] += 1
        elif kind == REPLACE:
            self._unjoin(p, i, data)
            self._set(i, _SEED[p])
            self._seeds[p].add(i)
            self._spores_left[p] += 1
        else:  # REMOVE
            self._unsplit(p, i, data)
            self._set(i, _SPORE[p])
        return move

    def copy(self) -> "ArbosState":
        new = ArbosState.__new__(ArbosState)
        new.game, new.geo, new._board_name = self.game, self.geo, self._board_name
        new._seeds_each, new._spores_each = self._seeds_each, self._spores_each
        new._setup, new._setup_seed, new._draws = self._setup, self._setup_seed, self._draws
        new._board = self._board[:]
        new._occ = dict(self._occ)
        new._seeds = (set(self._seeds[0]), set(self._seeds[1]))
        new._tree_of = self._tree_of[:]
        new._trees = tuple({k: set(v) for k, v in t.items()} for t in self._trees)
        new._next_id = self._next_id
        new._spores_left = self._spores_left[:]
        new._seed_dist = self._seed_dist[:]
        new._dist_count = self._dist_count[:]
        new._placed_seeds = self._placed_seeds
        # History entries are never changed in place (sets in them are snapshots), so a
        # shallow copy is safe.
        new._history = self._history[:]
        (new._to_move, new._phase, new._follow, new._removing, new._passes,
         new._end) = self._turn()
        return new

    def playout(self, rng: Any = random, cap: int | None = None, choices: int = 1
                ) -> tuple[int, int]:
        """Play on with random legal moves until the game ends or `cap` moves are made (None:
        PLAYOUT_CAP); return the scores. Every move is recorded as usual, so `undo` takes them
        back. `choices`: a spore goes on the best (`_playout_worth`) of this many legal cells
        drawn at random, not on the first; 1, a uniformly random cell (the search's table,
        games/ai/tuning/arbos.py, says which it uses).

        Not uniform over `legal_moves()`, on purpose: uniformly random players almost never
        pass and keep making a fourth tree and removing a spore, so a uniform game runs to
        any cap at 0:0 and tells a search nothing. Here:
        - setup: a seed on a cell drawn uniformly from the legal ones (as uniform);
        - a turn's action, and each follow-up: a cell drawn uniformly from the legal spore
          cells and (for the action) the mover's seeds to replace, among those that leave the
          mover at most three trees; `pass` only when no such move exists (uniform would pass
          with probability 1/len(legal_moves()) and also make a fourth tree); a follow-up with
          no such cell takes any legal cell;
        - removals (after follow-ups that made a fourth tree): one of the mover's spores,
          uniformly (as uniform).
        So the players grow their trees until they run out of spores or room, and the game
        ends in a few hundred moves with scores that mean something. Cells are drawn at random
        and kept when legal (rejection, still uniform over the legal ones), with the full
        list made only after `_DRAWS` misses."""
        board, geo, trees_of = self._board, self.geo, self._trees
        size, nb8, cell = geo.size, geo.nb8, geo.cell
        randrange, apply, placeable = rng.randrange, self._apply, self._placeable
        draw = rng.random  # a cell: int(draw() * size), uniform to within size / 2**53
        worth = self._playout_worth

        def keeps_three(p: int, i: int) -> bool:
            # A spore at i joins the trees beside it into one: at most three after it?
            trees = trees_of[p]
            if len(trees) < MAX_TREES:
                return True
            spore = _SPORE[p]
            for n in nb8[i]:
                if board[n] == spore:
                    return True  # joins an existing tree: the count does not grow
            return False  # a fourth tree

        played = 0
        if cap is None:
            cap = PLAYOUT_CAP
        while self._end is None and played < cap:
            played += 1
            p = self._to_move
            if self._phase == "setup":
                if self._setup == "random":
                    i = self._drawn()
                    apply(Move(SEED, cell(i)), i)
                    continue
                need, dist = self._seed_needed(), self._seed_dist
                for _ in range(_DRAWS):
                    i = int(draw() * size)  # (half of randrange's cost)
                    if not board[i] and dist[i] >= need:
                        break
                else:
                    ok = [i for i in range(size) if not board[i] and dist[i] >= need]
                    i = ok[randrange(len(ok))]
                apply(Move(SEED, cell(i)), i)
                continue
            if self._removing:
                spores = sorted(j for t in trees_of[p].values() for j in t)
                i = spores[randrange(len(spores))]
                apply(Move(REMOVE, cell(i)), i)
                continue
            follow = self._follow
            seed = -1 if follow or not self._spores_left[p] else _SEED[p]
            kind = None
            if self._spores_left[p]:
                three = len(trees_of[p]) >= MAX_TREES
                found, best, best_worth = 0, -1, -1e9
                for _ in range(_DRAWS):
                    i = int(draw() * size)  # (half of randrange's cost)
                    here = board[i]
                    if here == seed or (not here and placeable(p, i)):
                        if keeps_three(p, i):
                            found += 1
                            if choices > 1:
                                w = worth(p, i)
                                if w > best_worth:
                                    best, best_worth = i, w
                            else:
                                best = i
                            if found >= choices:
                                break
                if found:
                    i = best
                    kind = REPLACE if board[i] else SPORE
                else:
                    if three:  # only a cell beside one of p's spores keeps three trees
                        near = {n for t in trees_of[p].values() for j in t for n in nb8[j]}
                        ok = sorted(i for i in near if board[i] == seed
                                    or (not board[i] and placeable(p, i)))
                    else:
                        ok = [i for i in range(size) if board[i] == seed or placeable(p, i)]
                    if not ok and follow:  # a follow-up is owed: any legal cell
                        ok = [i for i in range(size) if placeable(p, i)]
                    if ok:
                        i = ok[randrange(len(ok))]
                        kind = REPLACE if board[i] else SPORE
            if kind is None:
                apply(PASS, -1)  # not while follow-ups are owed: one always exists then
            else:
                apply(Move(kind, cell(i)), i)
        return self.scores()

    def _playout_worth(self, p: int, i: int) -> float:
        """What a playout's spore of p at cell i (or the replacement of p's seed there) is
        worth, as `move_prior` values a spore but from the cells around it only (a playout
        cannot afford the prior's distances): a seed of p's that is not scoring yet gaining a
        tree it lacks most, any growth of a tree a little, a replaced seed least."""
        board, nb8, tree_of = self._board, self.geo.nb8, self._tree_of
        if board[i]:
            return -4.0  # p's own seed, replaced
        spore, seed = _SPORE[p], _SEED[p]
        mine = {tree_of[n] for n in nb8[i] if board[n] == spore}
        value = 1.0 if len(mine) == 1 else -3.0 if mine else 0.0  # grows one, joins two
        for n in nb8[i]:
            if board[n] == seed:
                links = {tree_of[m] for m in nb8[n] if board[m] == spore}
                if len(links) < 2:
                    value += 4.0 if not mine or not mine <= links else 0.5
        return value

    def move_prior(self, moves: Any) -> list[float]:
        """For the search (games/base.py): a cheap guess per legal move, higher first. A point
        is one's seed touched by two of one's (at most three) trees, so, for a spore: most
        when it brings a seed that is not scoring yet a tree it lacks; then when it grows a
        tree closer to such a seed; then any growth; a fourth tree, a join of two trees that
        made a seed score, a replaced seed and a pass last. In the setup, the opponent's seed
        in a corner or on the edge (a corner seed can never score: the cells around it all
        touch). A removal: from the smallest tree."""
        board, nb8, cols = self._board, self.geo.nb8, self.geo.cols
        p = self._to_move
        spore, seed = _SPORE[p], _SEED[p]
        tree_of, trees = self._tree_of, self._trees[p]
        crowded = len(trees) >= MAX_TREES
        links = {s: {tree_of[n] for n in nb8[s] if board[n] == spore} for s in self._seeds[p]}
        wanting = [s for s, ids in links.items() if len(ids) < 2]
        # How near each tree comes to each wanting seed it does not touch (in king steps).
        gap: dict[tuple[int, int], int] = {}
        if wanting and self._phase == "play":
            for t, cells in trees.items():
                rc = [divmod(c, cols) for c in cells]
                for s in wanting:
                    if t not in links[s]:
                        sr, sc = divmod(s, cols)
                        gap[t, s] = min(max(abs(r - sr), abs(c - sc)) for r, c in rc)
        out = []
        for move in moves:
            kind = move.kind
            if kind == PASS_KIND:
                out.append(-5.0)
                continue
            r, c = move.cell
            i = r * cols + c
            if kind == SEED:
                out.append(-len(nb8[i]))
            elif kind == REMOVE:
                out.append(-len(trees[tree_of[i]]))
            elif kind == REPLACE:
                out.append(-4.0)
            else:
                mine = {tree_of[n] for n in nb8[i] if board[n] == spore}
                value = 1.0 if mine else -2.0 if crowded else 0.0
                if len(mine) > 1 and any(len(ids & mine) > 1 for ids in links.values()):
                    value -= 6.0  # one tree out of two that a seed scored with
                for n in nb8[i]:
                    if board[n] == seed and len(links[n]) < 2:
                        new = not mine <= links[n] if mine else not crowded
                        value += 4.0 if new else 0.5
                for t in mine:
                    for s in wanting:
                        g = gap.get((t, s))
                        if g is not None:
                            sr, sc = divmod(s, cols)
                            if max(abs(r - sr), abs(c - sc)) < g:
                                value += 1.0
                out.append(value)
        return out

    def is_over(self) -> bool:
        return self._end is not None

    def scores(self) -> tuple[int, int]:
        """Each player's own seeds linked to at least two of their trees."""
        return len(self.scoring_seeds(0)), len(self.scoring_seeds(1))

    def winner(self) -> int | None:
        """0 (white) or 1 (black) once the game is over: a tie goes to black."""
        if not self._end:
            return None
        a, b = self.scores()
        return 0 if a > b else 1

    def occupancy(self) -> dict[str, str]:
        """Cell -> `seed:0`, `seed:1` (whose seed), `spore:0` (white), `spore:1` (black)."""
        return dict(self._occ)

    def sites(self) -> list[str]:
        """Every cell, row A first, column 1 first."""
        return list(self.geo.names)

    def plan(self) -> Plan:
        """The cells CELL_MM square, row A at the top; each player's spores and seeds."""
        geo = self.geo
        token = f"{TOKEN_MM[0]:g} mm across, {TOKEN_MM[1]:g} mm thick"

        def tokens(name: str, count: int, note: str) -> Piece:
            return Piece(name, count, token, TOKEN_MAGNET, (TOKEN_MM[0], TOKEN_MM[0]),
                         round=True, note=note)

        pieces = (tokens("spore, white", self._spores_each, "white's spores"),
                  tokens("spore, black", self._spores_each, "black's spores"),
                  tokens("seed, green", 2 * self._seeds_each, "every seed looks the same"))
        rows = [list(geo.names[r * geo.cols:(r + 1) * geo.cols]) for r in range(geo.rows)]
        return grid_plan(rows, CELL_MM, pieces=pieces, dimensions=(
            (f"cells {CELL_MM:g} mm (a Go board's)", "ours"), (f"tokens {token}", "ours"),
            (f"{geo.rows}x{geo.cols} cells; {self._spores_each} spores and {self._seeds_each} "
             "seeds each", "the rules")))

    def end_turn_move(self) -> Move:
        """A turn is one move, so ending it early is passing."""
        return PASS

    def pass_move(self) -> Move:
        return PASS

    def timeout_move(self) -> Move | None:
        """When the turn's time runs out (reading 10): at the start of a turn, `pass`; inside a
        begun turn (a replacement's follow-ups owed, or spores to remove), `time`, which
        forfeits the follow-ups and takes off the mover's smallest trees beyond three; in the
        setup, None (the setup is no turn: the text gives the limit to a turn's actions)."""
        if self._end or self._phase == "setup":
            return None
        return TIMEOUT if self._follow or self._removing else PASS

    def parse_move(self, text: Any) -> Move:
        move = parse_move(text)
        if move.cell is not None and not (move.cell[0] < self.geo.rows
                                          and move.cell[1] < self.geo.cols):
            raise InvalidNotation(text, f"{cell_name(move.cell)} is not on this "
                                        f"{self.geo.rows}x{self.geo.cols} board")
        return move

    @property
    def moves(self) -> list[Move]:
        return [h[0] for h in self._history]

    def options(self) -> dict[str, Any]:
        out = {"board": self._board_name, "seeds": self._seeds_each, "spores": self._spores_each,
               "setup": self._setup}
        if self._setup == "random":
            out["setup_seed"] = self._setup_seed
        return out

    # --- Arbos's own questions (the board's lights come from these) -------------------------

    @property
    def phase(self) -> str:
        """"setup" (placing seeds), "play", or "over"."""
        return "over" if self._end else self._phase

    @property
    def end_reason(self) -> str | None:
        """None while playing; then "double-pass" or "no-placement"."""
        return self._end

    @property
    def follow_ups_left(self) -> int:
        """Follow-up spores still owed after a replacement this turn (0, 1 or 2)."""
        return self._follow

    @property
    def must_remove(self) -> bool:
        """The mover has more than three trees and must remove spores before the turn ends."""
        return self._removing and not self._end

    @property
    def setup(self) -> str:
        """"random" (the board draws each seed's cell) or "chosen" (the placer chooses)."""
        return self._setup

    def drawn_cell(self) -> str | None:
        """In a drawn setup, the cell where the next seed goes; None otherwise."""
        if self._setup != "random" or self._phase != "setup" or self._end:
            return None
        return self.geo.names[self._drawn()]

    def spores_left(self, player: int) -> int:
        return self._spores_left[player]

    def seeds_to_place(self, player: int) -> int:
        """Seeds of `player` still to be put down in the setup."""
        placed = (self._placed_seeds + player) // 2  # white places black's first
        return self._seeds_each - placed if self._phase == "setup" else 0

    def trees(self, player: int) -> list[list[str]]:
        """The player's trees, each a list of its cells in reading order; largest first, then
        in reading order of their first cell."""
        names = self.geo.names
        cells = [sorted(t) for t in self._trees[player].values()]
        cells.sort(key=lambda t: (-len(t), t[0]))
        return [[names[i] for i in t] for t in cells]

    def tree_count(self, player: int) -> int:
        return len(self._trees[player])

    def excess_trees(self) -> list[list[str]]:
        """While the mover must remove: their smallest trees beyond three (the cheapest to
        remove; the LEDs pulse these). Any of the mover's spores may be removed."""
        if not self.must_remove:
            return []
        return self.trees(self._to_move)[MAX_TREES:]

    def linked_trees(self, site: str) -> dict[int, list[int]]:
        """For a seed's cell: player -> ids of that player's trees it is linked to."""
        i = self.geo.index[site]
        out: dict[int, list[int]] = {}
        for p in (0, 1):
            ids = {self._tree_of[n] for n in self.geo.nb8[i] if self._board[n] == _SPORE[p]}
            if ids:
                out[p] = sorted(ids)
        return out

    def tree_id(self, site: str) -> int | None:
        """The id of the tree a spore's cell belongs to (stable while the tree is unchanged)."""
        i = self.geo.index[site]
        return self._tree_of[i] if self._board[i] in _SPORE else None

    def scoring_seeds(self, player: int) -> list[str]:
        """The player's own seeds linked to at least two of their trees, in reading order."""
        board, tree_of, nb8 = self._board, self._tree_of, self.geo.nb8
        spore = _SPORE[player]
        out = []
        for s in sorted(self._seeds[player]):
            ids = {tree_of[n] for n in nb8[s] if board[n] == spore}
            if len(ids) >= 2:
                out.append(self.geo.names[s])
        return out

    def legal_cells(self) -> dict[str, str]:
        """Where the mover may put a token now, by kind: "setup" (a seed), "seed" (a spore
        next to one of their seeds), "free" (a spore standing free), "replace" (a seed of
        theirs they may replace). Empty while they must remove, or when the game is over."""
        if self._end or self._removing:
            return {}
        names, p = self.geo.names, self._to_move
        if self._phase == "setup":
            if self._setup == "random":
                return {names[self._drawn()]: "setup"}
            need = self._seed_needed()
            return {names[i]: "setup" for i in range(self.geo.size)
                    if not self._board[i] and self._seed_dist[i] >= need}
        out: dict[str, str] = {}
        if not self._spores_left[p]:
            return out
        # The views ask for this every frame of a 400-cell board: mark the cells around the
        # mover's seeds and those beside the opponent's spores once, then one pass.
        board, nb8, nb4 = self._board, self.geo.nb8, self.geo.nb4
        near_seed = {n for i in self._seeds[p] for n in nb8[i]}
        blocked = {n for tree in self._trees[1 - p].values() for j in tree for n in nb4[j]}
        for i, here in enumerate(board):
            if here:
                continue
            if i in near_seed:
                out[names[i]] = "seed"
            elif i not in blocked:
                out[names[i]] = "free"
        if not self._follow:
            for i in self._seeds[p]:
                out[names[i]] = "replace"
        return out

    def can_put(self, player: int) -> bool:
        """Whether `player` could put a token on the board at the start of a turn: a spore
        left, and a free cell they may use or a seed of theirs to replace."""
        if not self._spores_left[player]:
            return False
        if self._seeds[player]:
            return True
        return any(self._placeable(player, i) for i in range(self.geo.size))

    # --- helpers --------------------------------------------------------------------------

    def _turn(self) -> tuple:
        return (self._to_move, self._phase, self._follow, self._removing, self._passes,
                self._end)

    def _set(self, i: int, code: int) -> None:
        self._board[i] = code
        self._occ[self.geo.names[i]] = _KIND_TEXT[code]

    def _clear(self, i: int) -> None:
        self._board[i] = EMPTY
        del self._occ[self.geo.names[i]]

    def _seed_needed(self) -> int:
        """The distance a new seed must keep from every other: 3 while any free cell allows
        it, else the largest any free cell allows (reading 2)."""
        counts = self._dist_count
        for d in range(SEED_DISTANCE, 0, -1):
            if counts[d]:
                return d
        return 0

    def _drawn(self) -> int:
        """A drawn setup (reading 13): the cell of the next seed, drawn uniformly among the
        cells the distance rule allows now, from the game's setup seed and the seed's number.
        SHA-256, not `random`, so that any Python on any board draws the same."""
        k = self._placed_seeds
        i = self._draws.get(k)
        if i is None:
            need, dist, board = self._seed_needed(), self._seed_dist, self._board
            allowed = [j for j in range(self.geo.size) if not board[j] and dist[j] >= need]
            digest = hashlib.sha256(f"arbos setup {self._setup_seed} {k}".encode()).digest()
            i = allowed[int.from_bytes(digest[:8], "big") % len(allowed)]
            self._draws[k] = i
        return i

    def _placeable(self, p: int, i: int) -> bool:
        """A free cell next to one of p's seeds, or not side by side with a spore of the other."""
        board = self._board
        if board[i]:
            return False
        seed = _SEED[p]
        for n in self.geo.nb8[i]:
            if board[n] == seed:
                return True
        other = _SPORE[1 - p]
        for n in self.geo.nb4[i]:
            if board[n] == other:
                return False
        return True

    def _check(self, move: Move) -> int:
        """Raise IllegalMove with a reason a player can read; else return the move's cell index."""
        if self._end:
            raise IllegalMove(move, Reason("the game is over"))
        p, kind = self._to_move, move.kind
        who = COLOURS[p].title()
        if kind == PASS_KIND:
            if self._phase == "setup":
                raise IllegalMove(move, Reason("the seeds must all be put down before anyone "
                                               "can pass"))
            if self._follow:
                raise IllegalMove(move, Reason("you replaced a seed: {n} more spore to place "
                                               "first", n=1) if self._follow == 1 else
                                  Reason("you replaced a seed: {n} more spores to place "
                                         "first", n=self._follow))
            if self._removing:
                raise IllegalMove(move, Reason("you have more than three trees: remove spores "
                                               "first"))
            return -1
        if kind == TIMEOUT_KIND:
            if not (self._follow or self._removing):
                raise IllegalMove(move, Reason("'time' ends a begun turn whose time ran out (a "
                                               "replacement's follow-ups owed, or spores to "
                                               "remove); at the start of a turn, time out is a "
                                               "pass"))
            return -1
        cell = move.cell
        if (kind not in (SEED, SPORE, REPLACE, REMOVE) or type(cell) is not tuple
                or len(cell) != 2 or not all(type(v) is int for v in cell)):
            raise InvalidNotation(tuple(move), _MOVE_HELP)
        r, c = cell
        if not (0 <= r < self.geo.rows and 0 <= c < self.geo.cols):
            raise IllegalMove(move, Reason("that cell is not on this {rows}x{cols} board",
                                           rows=self.geo.rows, cols=self.geo.cols))
        i = r * self.geo.cols + c
        name = self.geo.names[i]
        here = self._board[i]
        taken = Reason("{site} holds a {piece} of {player}", site=name,
                       piece=_KIND_TEXT[here].split(":")[0],
                       player=COLOURS[int(_KIND_TEXT[here][-1])].title()) if here else ""
        if self._phase == "setup":
            need = self._seed_needed()
            refused = i != self._drawn() if self._setup == "random" else self._seed_dist[i] < need
            if kind == SPORE and not here and refused:
                # A token put on a cell in the setup is meant as a seed (a presence sensor
                # cannot tell): why no seed may go there is the reason to give.
                kind = SEED
            if kind != SEED:
                raise IllegalMove(move, Reason("the setup comes first: put down a seed of your "
                                               "opponent"))
            if self._setup == "random" and i != self._drawn():
                drawn = self.geo.names[self._drawn()]
                raise IllegalMove(move, Reason("the board drew {site} for this seed: put "
                                               "{player}'s seed on {site}", site=drawn,
                                               player=COLOURS[1 - p].title()))
            if here:
                raise IllegalMove(move, taken)
            if self._seed_dist[i] < need:
                near = min(self._seeds[0] | self._seeds[1], key=lambda j: max(
                    abs(j // self.geo.cols - r), abs(j % self.geo.cols - c)), default=None)
                fields = dict(site=name, n=need - 1)
                if near is None:
                    raise IllegalMove(move, Reason(
                        "{site} is too close: seeds need at least {n} empty cell between them "
                        "along the row or the column", **fields) if need == 2 else Reason(
                        "{site} is too close: seeds need at least {n} empty cells between them "
                        "along the row or the column", **fields))
                raise IllegalMove(move, Reason(
                    "{site} is too close to {other}: seeds need at least {n} empty cell between "
                    "them along the row or the column", other=self.geo.names[near], **fields)
                    if need == 2 else Reason(
                    "{site} is too close to {other}: seeds need at least {n} empty cells between "
                    "them along the row or the column", other=self.geo.names[near], **fields))
            return i
        if kind == SEED:
            raise IllegalMove(move, Reason("the seeds are all down: the setup is over"))
        if self._removing:
            if kind != REMOVE:
                raise IllegalMove(move, Reason("{player} has {n} trees: remove your own spores "
                                               "until you have three", player=who,
                                               n=len(self._trees[p])))
            if here != _SPORE[p]:
                raise IllegalMove(move, Reason("{site} holds no spore of {player}", site=name,
                                               player=who))
            return i
        if kind == REMOVE:
            raise IllegalMove(move, Reason("spores come off only while you have more than three "
                                           "trees"))
        if not self._spores_left[p]:
            raise IllegalMove(move, Reason("{player} has no spores left", player=who))
        if kind == REPLACE:
            if self._follow:
                raise IllegalMove(move, Reason("a replacement's two follow-ups are spores, not "
                                               "another replacement"))
            if here != _SEED[p]:
                raise IllegalMove(move, Reason("{site} holds no seed of {player}: you may replace "
                                               "only your own seeds", site=name, player=who))
            return i
        if here:
            raise IllegalMove(move, taken)
        if not self._placeable(p, i):
            raise IllegalMove(move, Reason("{site} is beside a spore of {other} and next to no "
                                           "seed of {player}", site=name,
                                           other=COLOURS[1 - p].title(), player=who))
        return i

    def _apply(self, move: Move, i: int) -> None:
        p, kind = self._to_move, move.kind
        turn = self._turn()
        if kind == PASS_KIND:
            self._history.append((move, turn, None))
            self._passes += 1
            if self._passes >= 2:
                self._to_move = 1 - p
                self._end = "double-pass"
            else:
                self._next_turn()
            return
        if kind == TIMEOUT_KIND:
            # Follow-ups forfeited; the smallest trees beyond three come off, whole (those the
            # LEDs pulse), and their spores leave the game like any removed spore (reading 10).
            data = []
            for tree in self.trees(p)[MAX_TREES:]:
                for name in tree:
                    j = self.geo.index[name]
                    data.append((j, self._split(p, j)))
                    self._clear(j)
            self._history.append((move, turn, data))
            self._passes = 0  # the turn put a spore down (the replacement's, or a fourth tree)
            self._next_turn()
            return
        if kind == SEED:
            data = self._place_seed(1 - p, i)
            self._history.append((move, turn, data))
            if self._placed_seeds == 2 * self._seeds_each:
                self._phase = "play"
                self._to_move = 0  # white puts the first spore too
                if not (self.can_put(0) or self.can_put(1)):
                    self._end = "no-placement"
            else:
                self._to_move = 1 - p
            return
        if kind == REMOVE:
            # The spore leaves the game (reading 12): not back to the supply.
            data = self._split(p, i)
            self._clear(i)
            self._history.append((move, turn, data))
            if len(self._trees[p]) <= MAX_TREES:
                self._removing = False
                self._next_turn()
            return
        if kind == REPLACE:
            self._seeds[p].discard(i)
            self._clear(i)
        self._set(i, _SPORE[p])
        self._spores_left[p] -= 1
        self._history.append((move, turn, self._join(p, i)))
        if kind == REPLACE:
            self._follow = 2
        elif self._follow:
            self._follow -= 1
        if self._follow and not self._can_follow(p):
            self._follow = 0  # a follow-up nobody could make is forfeited (reading 6)
        if self._follow:
            return
        self._passes = 0
        if len(self._trees[p]) > MAX_TREES:
            self._removing = True
        else:
            self._next_turn()

    def _can_follow(self, p: int) -> bool:
        return bool(self._spores_left[p]) and any(self._placeable(p, i)
                                                  for i in range(self.geo.size))

    def _next_turn(self) -> None:
        p = 1 - self._to_move
        self._to_move = p
        self._follow = 0
        self._removing = False
        if not self.can_put(p) and not self.can_put(1 - p):
            self._end = "no-placement"

    def _place_seed(self, owner: int, i: int) -> list[tuple[int, int]]:
        """Put a seed down in the setup and update the distances; returns what undo needs."""
        self._set(i, _SEED[owner])
        self._seeds[owner].add(i)
        self._placed_seeds += 1
        dist, counts, board = self._seed_dist, self._dist_count, self._board
        changed = [(i, dist[i])]
        counts[dist[i]] -= 1  # the cell is no longer free
        dist[i] = 0
        for j, d in self.geo.near[i]:
            if d < dist[j]:
                changed.append((j, dist[j]))
                if not board[j]:
                    counts[dist[j]] -= 1
                    counts[d] += 1
                dist[j] = d
        return changed

    def _join(self, p: int, i: int) -> tuple:
        """Add the spore at i to p's trees, joining the trees it links; returns undo data."""
        tree_of, board, spore = self._tree_of, self._board, _SPORE[p]
        trees = self._trees[p]
        ids = {tree_of[n] for n in self.geo.nb8[i] if board[n] == spore}
        if not ids:
            tid = self._next_id
            self._next_id += 1
            trees[tid] = {i}
            tree_of[i] = tid
            return (tid, ())
        target = max(ids, key=lambda t: (len(trees[t]), -t))
        into = trees[target]
        merged = []
        for t in ids:
            if t != target:
                cells = trees.pop(t)
                merged.append((t, cells))
                for j in cells:
                    tree_of[j] = target
                into |= cells
        into.add(i)
        tree_of[i] = target
        return (target, tuple(merged))

    def _unjoin(self, p: int, i: int, data: tuple) -> None:
        target, merged = data
        trees, tree_of = self._trees[p], self._tree_of
        into = trees[target]
        into.discard(i)
        tree_of[i] = -1
        for t, cells in merged:
            into -= cells
            trees[t] = set(cells)  # the history keeps its own, unchanged
            for j in cells:
                tree_of[j] = t
        if not into:
            del trees[target]

    def _split(self, p: int, i: int) -> tuple:
        """Take the spore at i out of its tree, re-flooding only that tree; returns undo data."""
        trees, tree_of, nb8 = self._trees[p], self._tree_of, self.geo.nb8
        tid = tree_of[i]
        old = trees.pop(tid)
        tree_of[i] = -1
        rest = old - {i}
        new_ids = []
        while rest:
            start = rest.pop()
            comp, todo = {start}, [start]
            while todo:
                j = todo.pop()
                for n in nb8[j]:
                    if n in rest:
                        rest.discard(n)
                        comp.add(n)
                        todo.append(n)
            nid = tid if not new_ids else self._next_id
            if new_ids:
                self._next_id += 1
            new_ids.append(nid)
            trees[nid] = comp
            for j in comp:
                tree_of[j] = nid
        return (tid, old, tuple(new_ids))

    def _unsplit(self, p: int, i: int, data: tuple) -> None:
        tid, old, new_ids = data
        trees, tree_of = self._trees[p], self._tree_of
        for nid in new_ids:
            del trees[nid]
        trees[tid] = set(old)  # the history keeps its own, unchanged
        for j in old:
            tree_of[j] = tid

    def __repr__(self) -> str:
        a, b = self.scores()
        return (f"<ArbosState {self._board_name} moves={len(self._history)} phase={self.phase} "
                f"scores={a}:{b} to_move={COLOURS[self._to_move]}>")


_BOARD = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")


class Arbos(Game):
    name = "arbos"
    sgf_number = 7004   # GM[7004] (docs/records.md)
    short_title = "Arbos"
    description = ("place your opponent's seeds, grow spores into at most three trees; "
                   "score your seeds linked to two of them")
    #: The rules' example turn time limit; the referee applies it (config can change it).
    turn_seconds = 300.0

    def options(self) -> dict[str, str]:
        return {
            "board": Reason("20x20 (default), 19x19 or 18x18 (a Go board), or any RxC from "
                            "{least}x{least} to {most}x{most}", least=MIN_SIDE, most=MAX_SIDE),
            "seeds": Reason("seeds per player (default: 10, scaled by the cells on boards under "
                            "18x18)"),
            "spores": Reason("spores per player (default: 80, scaled by the cells on boards "
                             "under 18x18)"),
            "setup": Reason("random (default: the board draws the cell of each seed) or chosen "
                            "(the placer chooses it)"),
            "setup_seed": Reason("the draw of a random setup, a whole number 0..{most} (default: "
                                 "drawn for each new game, and kept with it)",
                                 most=SETUP_SEED_LIMIT - 1),
        }

    def boards(self) -> list[str]:
        return list(NAMED_BOARDS)

    #: A new game draws its setup afresh (games/base.py).
    drawn_options = frozenset({"setup_seed"})

    def new_state(self, board: Any = "20x20", seeds: Any = None, spores: Any = None,
                  setup: Any = "random", setup_seed: Any = None, **options: Any) -> ArbosState:
        if options:
            raise BadOptions(f"Arbos has no option {sorted(options)[0]!r}; it takes board, "
                             "seeds, spores, setup and setup_seed")
        if setup not in SETUPS:
            raise BadOptions(f"setup must be random (the board draws each seed's cell) or "
                             f"chosen (the placer chooses), not {setup!r}")
        if setup == "chosen" and setup_seed is not None:
            raise BadOptions(f"setup_seed {setup_seed!r} draws the cells of a random setup; "
                             "with setup chosen the players choose them")
        if setup == "random":
            setup_seed = _count("setup_seed", setup_seed, None, 0, SETUP_SEED_LIMIT - 1)
            if setup_seed is None:
                setup_seed = secrets.randbelow(SETUP_SEED_LIMIT)
        m = _BOARD.match(board) if isinstance(board, str) else None
        if not m:
            raise BadOptions(f"board must be RxC such as 20x20 or 19x19, not {board!r}")
        rows, cols = int(m.group(1)), int(m.group(2))
        if not (MIN_SIDE <= rows <= MAX_SIDE and MIN_SIDE <= cols <= MAX_SIDE):
            raise BadOptions(f"board {board!r}: rows and columns must be {MIN_SIDE}..{MAX_SIDE} "
                             "(rows are labelled A..T)")
        default_seeds, default_spores = box_counts(rows, cols)
        seeds = _count("seeds", seeds, default_seeds, 1, rows * cols // 4)
        spores = _count("spores", spores, default_spores, 1, rows * cols)
        return ArbosState(self, f"{rows}x{cols}", rows, cols, seeds, spores, setup, setup_seed)


def _count(name: str, value: Any, default: int | None, lo: int, hi: int) -> int | None:
    if value is None:
        return default
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if type(value) is not int or not lo <= value <= hi:
        where = "" if name == "setup_seed" else " on this board"
        raise BadOptions(f"{name} must be a whole number {lo}..{hi}{where}, not {value!r}")
    return value


GAME = Arbos()

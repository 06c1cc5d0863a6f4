"""Tree Planting: dots and boxes with rods in grooves and tree pegs in holes.

Rules: ../shared/rules/tree-planting.md; the readings we chose are in docs/games/tree-planting.md.

Representation (the hot path of every playout and search): a `Board` is immutable geometry
shared by all its states; each groove is a `Groove` object made once per board, so playing
a move allocates nothing. A state holds the drawn grooves as bits of one int, each player's
trees as bits of another, and the undrawn grooves as a list with an index, so that
`legal_moves` is one list copy and `play`/`undo` are O(1).
"""

from __future__ import annotations

import random
import re
from collections import deque
from functools import lru_cache
from typing import Any

from games.base import BadOptions, Game, IllegalMove, InvalidNotation, Reason, State
from games.plan import GROOVE, HOLE, Piece, Plan, Spot

# Ready-made boards, named by what players call them or by their square count. Each is a
# polyomino a maker can cut from one sheet; see docs/games/tree-planting.md for drawings.
NAMED_BOARDS: dict[str, str] = {
    "classic": "####/####/###.",  # 11 squares, 29 grooves: the traditional Beijing board
    "16": "####/####/####/####",  # 16 squares, 40 grooves
    "29": "######/######/######/######/#####.",  # 29 squares, 69 grooves
    "40": "########/########/########/########/########",  # 40 squares, 93 grooves
    "50": ".#######./#########/#########/#########/#########/.#######.",  # 50 squares, 115 grooves
    "64": "########/" * 7 + "########",  # 64 squares, 144 grooves
}
NAMED_BOARDS["11"] = NAMED_BOARDS["classic"]

#: The physical board, as the rules give it: each groove 40 mm long, 4 mm wide and 2 mm deep,
#: and the rods that lie in them 39 x 4 x 6 mm (length, width, height).
GROOVE_MM = (40.0, 4.0, 2.0)
ROD_MM = (39.0, 4.0, 6.0)
#: Ours (the rules give none): the post left at each corner of a square between the ends of
#: its grooves (so a square's side is 40 + 8 = 48 mm from corner to corner), the hole at a
#: square's centre and the tree peg that stands in it, and the magnets.
CORNER_MM = 8.0
TREE_HOLE_MM = 8.0
TREE_PEG_MM = (7.5, 25.0)         # diameter, height
ROD_MAGNET = "3 x 2 mm neodymium disc (N42), in the rod's underside at its middle"
PEG_MAGNET = "5 x 2 mm neodymium disc (N42), in the peg's foot"
#: Where a groove's and a hole's LED sit: beside the groove, inside the square below it or to
#: its right; up and to the right of the hole.
GROOVE_LED_MM = 7.0
HOLE_LED_MM = 10.0

_RECT = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")
_GROOVE = re.compile(r"^([hv])(\d+)\.(\d+)$")
_MAX_SIDE = 32  # a board larger than 32x32 is not a board anyone builds; keeps ints small


class Groove:
    """One groove (an edge of a square): where a rod lies. Made once per board."""

    __slots__ = ("board", "name", "index", "bit", "squares")

    def __init__(self, board: "Board", name: str, index: int):
        self.board = board
        self.name = name
        self.index = index
        self.bit = 1 << index
        #: (square bit, mask of the square's four grooves) for the one or two squares it borders
        self.squares: tuple[tuple[int, int], ...] = ()

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Groove({self.name!r})"

    def __reduce__(self):
        # Grooves pickle as their board spec and name (used by multiprocessing search).
        return (_groove_of, (self.board.spec, self.name))


def _groove_of(spec: str, name: str) -> Groove:
    return Board.get(spec).groove[name]


class Board:
    """The geometry of one board: squares, grooves, holes. Immutable; get it with Board.get."""

    def __init__(self, spec: str, name: str):
        self.spec = spec  # rows of '#'/'.' joined by '/'
        self.name = name  # what options() reports: the given name, or the spec
        rows = spec.split("/")
        self.rows = len(rows)
        self.cols = max(len(r) for r in rows)
        self.cells: list[tuple[int, int]] = [
            (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"
        ]
        cellset = set(self.cells)
        names: list[str] = []
        # Reading order: the horizontal grooves of a line, then the vertical ones below it.
        for r in range(self.rows + 1):
            names += [f"h{r}.{c}" for c in range(self.cols)
                      if (r, c) in cellset or (r - 1, c) in cellset]
            if r < self.rows:
                names += [f"v{r}.{c}" for c in range(self.cols + 1)
                          if (r, c) in cellset or (r, c - 1) in cellset]
        self.grooves: tuple[Groove, ...] = tuple(Groove(self, n, i) for i, n in enumerate(names))
        self.groove: dict[str, Groove] = {g.name: g for g in self.grooves}
        self.square_index = {cell: i for i, cell in enumerate(self.cells)}
        self.holes: tuple[str, ...] = tuple(f"t{r}.{c}" for r, c in self.cells)
        self.square_grooves: list[tuple[Groove, ...]] = []
        touching: dict[str, list[tuple[int, int]]] = {g.name: [] for g in self.grooves}
        for i, (r, c) in enumerate(self.cells):
            sides = tuple(self.groove[n] for n in
                          (f"h{r}.{c}", f"h{r + 1}.{c}", f"v{r}.{c}", f"v{r}.{c + 1}"))
            self.square_grooves.append(sides)
            mask = sum(g.bit for g in sides)
            for g in sides:
                touching[g.name].append((1 << i, mask))
        for g in self.grooves:
            g.squares = tuple(touching[g.name])
        self.all_edges = (1 << len(self.grooves)) - 1

    @staticmethod
    def get(board: str) -> "Board":
        """The board for a name, an `RxC` rectangle, or ASCII art (rows of # and . joined by /).

        Raises BadOptions for anything else, an empty board or a disconnected one.
        """
        if not isinstance(board, str):
            raise BadOptions(f"board must be a name, RxC or ASCII art, not {type(board).__name__}")
        return _board(board.strip())

    def draw(self) -> str:
        """The board as ASCII art, one row a line."""
        return "\n".join(self.spec.split("/"))


@lru_cache(maxsize=64)
def _board(text: str) -> Board:
    if text in NAMED_BOARDS:
        return Board(_check_shape(NAMED_BOARDS[text], text), text)
    m = _RECT.match(text)
    if m:
        rows, cols = int(m.group(1)), int(m.group(2))
        if not (1 <= rows <= _MAX_SIDE and 1 <= cols <= _MAX_SIDE):
            raise BadOptions(f"board {text!r}: rows and columns must be 1..{_MAX_SIDE}")
        return Board("/".join(["#" * cols] * rows), f"{rows}x{cols}")
    spec = text.replace("\n", "/").replace(" ", "")
    return Board(_check_shape(spec, text), spec.rstrip("/").strip("/"))


def _check_shape(spec: str, given: str) -> str:
    spec = spec.strip("/")
    known = ", ".join(sorted(set(NAMED_BOARDS) - {"11"}, key=lambda n: (n != "classic", n)))
    if not spec or set(spec) - set("#./"):
        raise BadOptions(
            f"board {given!r} is not a known board ({known}), an RxC rectangle such as 3x4, "
            "or ASCII art of '#' (a square) and '.' (none) with rows joined by '/'")
    rows = spec.split("/")
    if len(rows) > _MAX_SIDE or max(len(r) for r in rows) > _MAX_SIDE:
        raise BadOptions(f"board {given!r} is larger than {_MAX_SIDE}x{_MAX_SIDE}")
    cells = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"}
    if not cells:
        raise BadOptions(f"board {given!r} has no squares")
    # Edge-connected: every square reachable from the first through shared grooves.
    start = min(cells)
    seen, todo = {start}, deque([start])
    while todo:
        r, c = todo.popleft()
        for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    if len(seen) != len(cells):
        apart = sorted(cells - seen)[0]
        raise BadOptions(f"board {given!r} is not connected: square {apart} shares no groove "
                         f"with square {start}")
    return spec


class TreePlantingState(State):
    __slots__ = ("game", "board", "_edges", "_trees", "_to_move", "_history", "_free", "_pos")

    def __init__(self, game: "TreePlanting", board: Board):
        self.game = game
        self.board = board
        self._edges = 0
        self._trees = [0, 0]  # square bitmasks, one per player
        self._to_move = 0
        # (groove, mover, squares planted, the groove's index in _free when it was drawn)
        self._history: list[tuple[Groove, int, int, int]] = []
        self._free: list[Groove] = list(board.grooves)
        self._pos: list[int] = list(range(len(board.grooves)))

    # --- the game interface -----------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self._to_move

    def legal_moves(self) -> list[Groove]:
        """The undrawn grooves (in no particular order; sort by str for display)."""
        return self._free[:]

    def play(self, move: Any) -> None:
        g = move if type(move) is Groove and move.board is self.board else self._groove(move)
        edges = self._edges
        if edges & g.bit:
            if not self._free:
                raise IllegalMove(g, Reason("the game is over: every groove has a rod"))
            raise IllegalMove(g, Reason("groove {groove} already has a rod", groove=str(g)))
        edges |= g.bit
        self._edges = edges
        planted = 0
        for square, mask in g.squares:
            if edges & mask == mask:
                planted |= square
        mover = self._to_move
        # Swap-remove from the free list; undo swaps back, so order is restored exactly.
        free, pos = self._free, self._pos
        i = pos[g.index]
        last = free.pop()
        if last is not g:
            free[i] = last
            pos[last.index] = i
        self._history.append((g, mover, planted, i))
        if planted:
            self._trees[mover] |= planted  # and the mover draws again
        else:
            self._to_move = 1 - mover

    def undo(self) -> Groove:
        if not self._history:
            raise IndexError("no move to undo")
        g, mover, planted, i = self._history.pop()
        free, pos = self._free, self._pos
        if i == len(free):
            free.append(g)
        else:
            moved = free[i]
            free[i] = g
            pos[moved.index] = len(free)
            free.append(moved)
        pos[g.index] = i
        self._edges &= ~g.bit
        self._trees[mover] &= ~planted
        self._to_move = mover
        return g

    def copy(self) -> "TreePlantingState":
        new = TreePlantingState.__new__(TreePlantingState)
        new.game, new.board = self.game, self.board
        new._edges, new._trees, new._to_move = self._edges, self._trees[:], self._to_move
        new._history, new._free, new._pos = self._history[:], self._free[:], self._pos[:]
        return new

    def is_over(self) -> bool:
        return not self._free

    def scores(self) -> tuple[int, int]:
        return self._trees[0].bit_count(), self._trees[1].bit_count()

    def occupancy(self) -> dict[str, str]:
        """Rods in their grooves ("rod") and trees in their holes ("tree:0" / "tree:1")."""
        out = {g.name: "rod" for g in self.board.grooves if self._edges & g.bit}
        for player in (0, 1):
            trees = self._trees[player]
            for i, hole in enumerate(self.board.holes):
                if trees >> i & 1:
                    out[hole] = f"tree:{player}"
        return out

    def sites(self) -> list[str]:
        return [g.name for g in self.board.grooves] + list(self.board.holes)

    def parse_move(self, text: str) -> Groove:
        return self._groove(text)

    def plan(self) -> Plan:
        """The rules' board: squares GROOVE_MM[0] + CORNER_MM apart, a groove along each edge,
        a hole at each centre; a rod for every groove, and a peg of each player's colour for
        every square (either may plant them all)."""
        return board_plan(self.board)

    @property
    def moves(self) -> list[Groove]:
        return [h[0] for h in self._history]

    def options(self) -> dict[str, Any]:
        return {"board": self.board.name}

    def playout(self, rng: Any = random, cap: int | None = None) -> tuple[int, int]:
        """Finish the game with uniformly random moves (or stop after `cap` of them) and return
        the scores.

        The same distribution as repeating `play(rng.choice(legal_moves()))`, several times
        faster: choosing uniformly from what is left, move after move, is a uniformly random
        order of the undrawn grooves, so we sort them by random keys once and draw them in
        that order. Every move is recorded as usual, so `undo` takes them back.
        """
        free = self._free
        key = rng.random
        free.sort(key=lambda _: key())
        edges, trees, mover = self._edges, self._trees, self._to_move
        record = self._history.append
        pop = free.pop
        for _ in range(len(free) if cap is None else min(cap, len(free))):
            g = pop()  # from the end: its index in _free is len(free) after the pop
            edges |= g.bit
            planted = 0
            for square, mask in g.squares:
                if edges & mask == mask:
                    planted |= square
            record((g, mover, planted, len(free)))
            if planted:
                trees[mover] |= planted
            else:
                mover ^= 1
        if free:  # stopped at the cap: the grooves left were moved by the sort
            pos = self._pos
            for i, g in enumerate(free):
                pos[g.index] = i
        self._edges, self._to_move = edges, mover
        return trees[0].bit_count(), trees[1].bit_count()

    # --- Tree Planting's own questions (rendering and search use these) -------------------

    def drawn(self, groove: Groove | str) -> bool:
        g = groove if type(groove) is Groove and groove.board is self.board else self._groove(groove)
        return bool(self._edges & g.bit)

    def sides_drawn(self, square: int) -> int:
        """How many of square `square`'s four grooves hold a rod."""
        return sum(1 for g in self.board.square_grooves[square] if self._edges & g.bit)

    def owner(self, square: int) -> int | None:
        bit = 1 << square
        return 0 if self._trees[0] & bit else 1 if self._trees[1] & bit else None

    def last_mover(self) -> int | None:
        """Who played the last move (None before the first)."""
        return self._history[-1][1] if self._history else None

    def last_planted(self) -> list[str]:
        """The holes the last move planted (empty if it planted none)."""
        if not self._history:
            return []
        planted = self._history[-1][2]
        return [h for i, h in enumerate(self.board.holes) if planted >> i & 1]

    def gives_away(self, groove: Groove | str) -> bool:
        """Would drawing this groove, without completing a square, leave a square on three sides
        for the opponent? (Completing a square never gives anything away: the mover goes again.)"""
        g = groove if type(groove) is Groove and groove.board is self.board else self._groove(groove)
        edges = self._edges | g.bit
        completes = any(edges & mask == mask for _, mask in g.squares)
        return not completes and any((edges & mask).bit_count() == 3 for _, mask in g.squares)

    def moves_at(self, site: str) -> list[Groove]:
        """The legal moves that put a piece on `site` (for the daemon's reconcile)."""
        g = self.board.groove.get(site)
        return [g] if g is not None and not self._edges & g.bit else []

    def position_key(self) -> tuple[int, int, int, int]:
        """Everything that decides the rest of the game (for search transposition tables)."""
        return (self._edges, self._trees[0], self._trees[1], self._to_move)

    # --- helpers -------------------------------------------------------------------------

    def _groove(self, move: Any) -> Groove:
        if isinstance(move, Groove):
            move = move.name
        if not isinstance(move, str):
            raise InvalidNotation(move, "a move is a groove name such as h0.1 or v2.3")
        text = move.strip()
        g = self.board.groove.get(text)
        if g is not None:
            return g
        low = text.lower()
        if low in self.board.groove:
            return self.board.groove[low]
        if low.startswith("t") and _GROOVE.match("h" + low[1:]):
            raise InvalidNotation(text, "that is a hole: a tree is planted by drawing the "
                                        "fourth side of its square, not played as a move")
        if _GROOVE.match(low):
            raise InvalidNotation(text, f"this board has no groove {low}")
        raise InvalidNotation(text, "a move is a groove: h{row}.{col} (the top of square "
                                    "row,col) or v{row}.{col} (its left side), e.g. h0.1")

    def __repr__(self) -> str:
        a, b = self.scores()
        return (f"<TreePlantingState board={self.board.name} moves={len(self._history)} "
                f"trees={a}:{b} to_move={self._to_move}>")


def solve(state: TreePlantingState) -> tuple[int, list[Groove]]:
    """Perfect play from `state`: (the final margin of trees, player 0 minus player 1, and the
    moves that achieve it for the player to move). Exponential: for small boards and
    endgames (a transposition table on the drawn grooves keeps 4x4 endgames quick)."""
    memo: dict[int, int] = {}
    work = state.copy()

    def margin() -> int:
        # Trees the player to move will still gain minus those the opponent will, under
        # perfect play. It depends only on which grooves are drawn.
        edges = work._edges
        if edges in memo:
            return memo[edges]
        best = None
        for g in work.legal_moves():
            mover = work._to_move
            work.play(g)
            gained = work._history[-1][2].bit_count()
            rest = margin() if work._to_move == mover else -margin()
            work.undo()
            if best is None or gained + rest > best:
                best = gained + rest
        memo[edges] = best = best or 0
        return best

    sign = 1 if state.to_move == 0 else -1
    a, b = state.scores()
    best_moves = []
    target = margin()
    for g in sorted(work.legal_moves(), key=lambda g: g.index):
        mover = work._to_move
        work.play(g)
        gained = work._history[-1][2].bit_count()
        rest = margin() if work._to_move == mover else -margin()
        work.undo()
        if gained + rest == target:
            best_moves.append(g)
    return a - b + sign * target, best_moves


def board_plan(board: Board) -> Plan:
    """The physical board of `board` (`TreePlantingState.plan`)."""
    length, width, depth = GROOVE_MM
    pitch = length + CORNER_MM
    corner = CORNER_MM / 2   # the first corner's centre, from the playing area's edge
    spots = []
    for g in board.grooves:
        kind, r, c = g.name[0], *map(int, g.name[1:].split("."))
        along = kind == "h"
        x = corner + c * pitch + (pitch / 2 if along else 0)
        y = corner + r * pitch + (0 if along else pitch / 2)
        spots.append(Spot(g.name, x, y, GROOVE, length, width, depth, vertical=not along,
                          led=(0.0, GROOVE_LED_MM) if along else (GROOVE_LED_MM, 0.0)))
    for (r, c), hole in zip(board.cells, board.holes):
        spots.append(Spot(hole, corner + (c + 0.5) * pitch, corner + (r + 0.5) * pitch, HOLE,
                          TREE_HOLE_MM, TREE_HOLE_MM, led=(HOLE_LED_MM, -HOLE_LED_MM)))
    rod = "{:g} x {:g} x {:g} mm".format(*ROD_MM)
    squares = len(board.cells)
    pieces = (
        Piece("rod", len(board.grooves), rod, ROD_MAGNET, (ROD_MM[0], ROD_MM[2]),
              note="one for every groove; cut from 4 mm sheet, its profile 39 x 6 mm"),
        *(Piece(f"tree peg, player {p + 1}", squares, f"{TREE_PEG_MM[0]:g} mm across, "
                f"{TREE_PEG_MM[1]:g} mm tall", PEG_MAGNET, (TREE_PEG_MM[0], TREE_PEG_MM[0]),
                round=True, note="one for every square: either player may plant them all")
          for p in (0, 1)),
    )
    dimensions = (
        ("grooves {:g} mm long, {:g} mm wide, {:g} mm deep".format(*GROOVE_MM), "the rules"),
        (f"rods {rod}", "the rules"),
        ("a hole at each square's centre", "the rules"),
        (f"{CORNER_MM:g} mm between groove ends (squares {pitch:g} mm apart)", "ours"),
        (f"tree holes {TREE_HOLE_MM:g} mm across, through the top plate; pegs "
         f"{TREE_PEG_MM[0]:g} x {TREE_PEG_MM[1]:g} mm", "ours"),
    )
    return Plan(board.cols * pitch + CORNER_MM, board.rows * pitch + CORNER_MM, tuple(spots),
                pieces=pieces, dimensions=dimensions)


class TreePlanting(Game):
    name = "tree-planting"
    sgf_number = 7001   # GM[7001] (docs/records.md)
    short_title = "Tree Planting"
    description = "draw rods in the grooves; close a square to plant a tree and draw again"

    def options(self) -> dict[str, str]:
        return {"board": Reason("a named board ({boards}), an RxC rectangle such as 3x4, or ASCII "
                                "art such as ####/####/###.",
                                boards=", ".join(n for n in NAMED_BOARDS if n != "11"))}

    def boards(self) -> list[str]:
        return [n for n in NAMED_BOARDS if n != "11"]

    def new_state(self, board: str = "classic", **options: Any) -> TreePlantingState:
        if options:
            raise BadOptions(f"Tree Planting has no option {sorted(options)[0]!r}; "
                             "it takes only 'board'")
        return TreePlantingState(self, Board.get(board))


GAME = TreePlanting()

"""Treeblox: grow a tree of cubes above a 4x4 board; the leaves that see the sky score.

Rules: ../shared/rules/treeblox.md; the readings we chose are in docs/games/treeblox.md.

Geometry. Cubes sit on an integer lattice (x, y, z). Board columns a-d are x = 0..3, rows
1-4 are y = 0..3, and z = 0 is the layer of cubes standing in the board's 16 holes. A
branch offers a hole on each of its six faces whose neighbouring cell is free; the down
face only leads somewhere when the cell below is at z >= 0 (z < 0 is the table). Leaves
offer no holes. Trees may hang past the board's edges and grow without a height limit.

Moves. One placement per move (`La1`, `Bb2+1`, `B(-1,1,0)`) or `end`, which ends the turn
early (a pass when nothing was placed this turn). The turn passes by itself once the growth
rate is used up. One cube per move is one sensor change on the board and keeps search simple.

Match play (the rulebook's "Match play"): `play_match` totals a match's games, players
switching colours every game; `treeboard match` (board_driver/cli/rules.py) reads the records.

Representation: `_cells` maps each occupied cell to (player, kind); `_columns` keeps the
heights in each (x, y) column so that "is this leaf active" is one max(); each player's
leaves and branches are lists in placement order, so undo is a pop. Before each move the
turn bookkeeping is saved as one tuple; undo restores it, which keeps undo exact.
"""

from __future__ import annotations

import functools
import random
from itertools import chain, filterfalse
import re
from typing import Any, NamedTuple, Sequence

from games.base import BadOptions, Game, GameError, IllegalMove, InvalidNotation, Reason, State
from games.plan import HOLE, Piece, Plan, chess_rows, grid_plan

Cell = tuple[int, int, int]

LEAF, BRANCH, END_KIND = "leaf", "branch", "end"
COLOURS = ("dark", "light")
COLUMNS = "abcd"
SIZE = 4
MAX_CUBES = 16  # cubes of each kind per player in the box

#: The physical set. The rules give no dimensions; ours: linking cubes of 20 mm, so the board's
#: holes are 20 mm apart (a cube beside another fills the next lattice cell: the pitch must
#: be the cube's side), each hole 8 mm across for a cube's peg, through the top plate with the
#: hall sensor under it; the LED beside the hole, under the cube's corner.
CUBE_MM = 20.0
HOLE_MM = 8.0
HOLE_LED_MM = 6.5
#: One reading tells all four kinds (hardware/layouts/treeblox-adc.toml): the pole facing down
#: tells dark from light, the magnet's strength a branch from a leaf.
CUBE_MAGNETS = {"dark-branch": "8 x 3 mm neodymium disc (N42), south pole down",
                "dark-leaf": "5 x 1 mm neodymium disc (N35), south pole down",
                "light-leaf": "5 x 1 mm neodymium disc (N35), north pole down",
                "light-branch": "8 x 3 mm neodymium disc (N42), north pole down"}

#: The board's 16 holes, in reading order a1, b1, c1, d1, a2, ...
BOARD_HOLES: tuple[Cell, ...] = tuple((x, y, 0) for y in range(SIZE) for x in range(SIZE))
_BOARD = frozenset(BOARD_HOLES)


def cell_name(cell: Cell) -> str:
    """The text of a lattice cell: `b2` on the board, `b2+1` above it, `(x,y,z)` elsewhere."""
    x, y, z = cell
    if 0 <= x < SIZE and 0 <= y < SIZE:
        return f"{COLUMNS[x]}{y + 1}+{z}" if z else f"{COLUMNS[x]}{y + 1}"
    return f"({x},{y},{z})"


_GRID_CELL = re.compile(r"^([a-z])(-?\d+)(?:\+(\d+))?$")
_XYZ_CELL = re.compile(r"^\(\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*\)$")
_CELL_HELP = ("a cell is a board hole a1..d4, a cell above one such as b2+1 (one cube up), "
              "or (x,y,z) for any cell, with a1 = (0,0,0)")


def parse_cell(text: str) -> Cell:
    """The lattice cell `text` names (case-insensitive). Raises InvalidNotation."""
    low = text.strip().lower()
    m = _GRID_CELL.match(low)
    if m:
        col, row, up = m.group(1), int(m.group(2)), int(m.group(3) or 0)
        if col not in COLUMNS or not 1 <= row <= SIZE:
            raise InvalidNotation(text, f"{low[:len(m.group(1)) + len(m.group(2))]} is not on "
                                        "the board (a1..d4); name cells beside the board as "
                                        "(x,y,z), with a1 = (0,0,0)")
        return (COLUMNS.index(col), row - 1, up)
    m = _XYZ_CELL.match(low)
    if m:
        x, y, z = (int(g) for g in m.groups())
        if z < 0:
            raise InvalidNotation(text, "z below 0 is the table: cubes stand at z = 0 or above")
        return (x, y, z)
    raise InvalidNotation(text, _CELL_HELP)


class Move(NamedTuple):
    """A placement (kind "leaf" or "branch" at a cell) or END. Immutable and hashable."""

    kind: str
    cell: Cell | None = None

    def __str__(self) -> str:
        if self.kind == END_KIND:
            return "end"
        return ("L" if self.kind == LEAF else "B") + cell_name(self.cell)


#: Ends the turn early; with no placement this turn it is a pass.
END = Move(END_KIND)


def parse_move(text: str) -> Move:
    """The move `text` names: `end` (or `pass`), or L/B and a cell. Raises InvalidNotation."""
    if isinstance(text, Move):
        return text
    if not isinstance(text, str):
        raise InvalidNotation(text, "a move is text such as La1, Bb2+1, B(-1,0,0) or end")
    low = text.strip().lower()
    if low in ("end", "pass"):
        return END
    if low[:1] in ("l", "b") and len(low) > 1:
        kind = LEAF if low[0] == "l" else BRANCH
        try:
            cell = parse_cell(low[1:])
        except InvalidNotation as exc:
            raise InvalidNotation(text, exc.reason) from None
        return Move(kind, cell)
    raise InvalidNotation(text, "a move is L (leaf) or B (branch) and a cell, such as La1, "
                                "Bb2+1 or B(-1,0,0), or end to end the turn")


@functools.lru_cache(maxsize=None)  # pure; the cells a game can reach are a few thousand
def _neighbours(cell: Cell) -> tuple[Cell, ...]:
    """The face neighbours of a cell that lie above the table (z >= 0). Cached: every turn
    of a playout asks it of every branch (a third of a playout's time made the tuples)."""
    x, y, z = cell
    out = ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z), (x, y, z + 1))
    return out + ((x, y, z - 1),) if z > 0 else out


def _reading_order(cell: Cell) -> tuple[int, int, int]:
    return (cell[2], cell[1], cell[0])


class TreebloxState(State):
    __slots__ = ("game", "_cubes", "_cells", "_columns", "_leaves", "_branches", "_left",
                 "_history", "_to_move", "_phase", "_rate", "_turn_left", "_placed",
                 "_passes", "_end", "_loser")

    def __init__(self, game: "Treeblox", cubes: int):
        self.game = game
        self._cubes = cubes
        self._cells: dict[Cell, tuple[int, str]] = {}
        self._columns: dict[tuple[int, int], list[int]] = {}  # heights, in placement order
        self._leaves: tuple[list[Cell], list[Cell]] = ([], [])
        self._branches: tuple[list[Cell], list[Cell]] = ([], [])
        self._left = [{LEAF: cubes, BRANCH: cubes}, {LEAF: cubes, BRANCH: cubes}]
        self._history: list[tuple[Move, tuple]] = []  # (move, turn bookkeeping before it)
        # The turn: whose it is, its phase, the growth rate counted at its start, how many
        # more cubes it may place, how many it has placed, and passes in a row before it.
        self._to_move = 0
        self._phase = "first"
        self._rate = 1
        self._turn_left = 1
        self._placed = 0
        self._passes = 0
        self._end: str | None = None  # why the game ended, once it has
        self._loser: int | None = None  # who lost for having no active leaves

    # --- the game interface -----------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self._to_move

    def legal_moves(self) -> list[Move]:
        """Placements in reading order (lowest layer first, then row, then column), then `end`
        when the mover may end the turn or pass."""
        if self._end:
            return []
        p = self._to_move
        cells = self._cells
        if self._phase == "first":
            return [Move(LEAF, c) for c in BOARD_HOLES if c not in cells]
        left = self._left[p]
        kinds = [k for k in (LEAF, BRANCH) if left[k]]
        moves = [Move(k, c) for c in sorted(self._holes(p), key=_reading_order) for k in kinds]
        if self._phase == "main":
            moves.append(END)
        return moves

    def play(self, move: Any) -> None:
        if type(move) is not Move:
            move = parse_move(move)
        self._check(move)  # raises before anything changes
        self._apply(move)

    def playout(self, rng: Any = random, cap: int | None = None) -> tuple[int, int]:
        """Finish the game with random legal moves (or stop after `cap` of them) and return
        the scores.

        Uniformly random legal moves (the distribution of repeating
        `play(rng.choice(legal_moves()))`, faster: the moves are legal by construction, so
        they skip the check and the sort), but for one rule: a player who can shade the
        other's last active leaf, which wins at once, does (a decisive move, Teytaud &
        Teytaud 2010): uniform players almost never find that cube, so a search on uniform
        playouts valued a tree with one exposed leaf as safe (docs/ai.md, the ladder, what
        that cost). Every move is recorded as usual, so `undo` takes them back."""
        choice, apply = rng.choice, self._apply
        left = -1 if cap is None else cap
        while not self._end and left:
            left -= 1
            p = self._to_move
            if self._phase == "first":
                moves = [Move(LEAF, c) for c in BOARD_HOLES if c not in self._cells]
            elif (kill := self._killing_move(p)) is not None:
                apply(kill)
                continue
            else:
                # The same draw as choice([Move(k, c) for c in holes for k in kinds] (+ END)),
                # without making the moves not drawn: choice(range(n)) draws the index as
                # choice draws from a list of n (the same number from the same generator).
                kinds = [k for k in (LEAF, BRANCH) if self._left[p][k]]
                holes = list(self._holes(p))
                many = len(kinds)
                n = len(holes) * many
                i = choice(range(n + 1 if self._phase == "main" else n))
                apply(END if i == n else Move(kinds[i % many], holes[i // many]))
                continue
            apply(choice(moves))
        return self.scores()

    def _apply(self, move: Move) -> None:
        p = self._to_move
        self._history.append((move, self._turn()))
        if move.kind == END_KIND:
            self._end_turn()
            return
        kind, cell = move
        self._cells[cell] = (p, kind)
        column = self._columns.get(cell[:2])
        shaded = None  # the column's top cube, if this cube goes above it
        if column is None:
            self._columns[cell[:2]] = [cell[2]]
        else:
            top = max(column)
            if cell[2] > top:
                shaded = self._cells[(cell[0], cell[1], top)]
            column.append(cell[2])
        (self._leaves if kind == LEAF else self._branches)[p].append(cell)
        left = self._left[p]
        left[kind] -= 1
        if shaded is not None and shaded[1] == LEAF and not self._active_count(shaded[0]):
            # A tree with no active leaves ends the game at once, whoever shaded it and in
            # whichever phase (a cube is the only thing that shades a leaf, so this is the
            # one place to look). The opening cannot get here: first leaves shade nothing.
            self._loser = shaded[0]
            self._finish("no-active-leaves")
            return
        if self._phase == "final":
            self._turn_left -= 1
            if not self._turn_left or not self._has_hole(p):
                self._finish("final-growth")
            return
        self._placed += 1
        self._turn_left -= 1
        if not left[LEAF] and not left[BRANCH]:
            # Out of cubes: the opponent takes the final growth.
            self._start_turn(1 - p, final=True)
        elif not self._turn_left:
            self._end_turn()

    def undo(self) -> Move:
        if not self._history:
            raise IndexError("no move to undo")
        move, turn = self._history.pop()
        (self._to_move, self._phase, self._rate, self._turn_left, self._placed, self._passes,
         self._end, self._loser) = turn
        if move.kind != END_KIND:
            kind, cell = move
            p = self._to_move
            del self._cells[cell]
            column = self._columns[cell[:2]]
            column.pop()  # undo is last-in first-out, so this cube is the column's last
            if not column:
                del self._columns[cell[:2]]
            (self._leaves if kind == LEAF else self._branches)[p].pop()
            self._left[p][kind] += 1
        return move

    def copy(self) -> "TreebloxState":
        new = TreebloxState.__new__(TreebloxState)
        new.game, new._cubes = self.game, self._cubes
        new._cells = dict(self._cells)
        new._columns = {k: v[:] for k, v in self._columns.items()}
        new._leaves = (self._leaves[0][:], self._leaves[1][:])
        new._branches = (self._branches[0][:], self._branches[1][:])
        new._left = [dict(self._left[0]), dict(self._left[1])]
        new._history = self._history[:]
        (new._to_move, new._phase, new._rate, new._turn_left, new._placed, new._passes,
         new._end, new._loser) = self._turn()
        return new

    def is_over(self) -> bool:
        return self._end is not None

    def scores(self) -> tuple[int, int]:
        """Active leaves of each player (what the rules count at the end)."""
        return self._active_count(0), self._active_count(1)

    def occupancy(self) -> dict[str, str]:
        """Every cube: board holes by name (a1..d4), other cells by their lattice text
        (b2+1, (-1,0,0)); kinds dark-leaf, dark-branch, light-leaf, light-branch."""
        return {cell_name(c): f"{COLOURS[p]}-{k}" for c, (p, k) in self._cells.items()}

    def sites(self) -> list[str]:
        """The 16 board holes, the only cells with a sensor."""
        return [cell_name(c) for c in BOARD_HOLES]

    def plan(self) -> Plan:
        """The board's 4x4 holes a cube apart (CUBE_MM), and the 64 cubes with their magnets."""
        size = f"{CUBE_MM:g} mm cube"
        pieces = tuple(Piece(f"{kind.replace('-', ' ')} cube", MAX_CUBES, size, magnet,
                             (CUBE_MM, CUBE_MM), note="the magnet in the face that goes down")
                       for kind, magnet in CUBE_MAGNETS.items())
        return grid_plan(chess_rows(COLUMNS, SIZE), CUBE_MM, shape=HOLE, size=HOLE_MM,
                         led=(HOLE_LED_MM, -HOLE_LED_MM), pieces=pieces, dimensions=(
                             (f"cubes {CUBE_MM:g} mm, holes {CUBE_MM:g} mm apart", "ours"),
                             (f"holes {HOLE_MM:g} mm across, through the top plate", "ours"),
                             ("16 holes, 4x4; 16 cubes of each kind", "the rules")))

    def parse_move(self, text: str) -> Move:
        return parse_move(text)

    def end_turn_move(self) -> Move:
        """`end`: the turn ends after one cube; with none placed it is a pass."""
        return END

    def pass_move(self) -> Move:
        return END

    @property
    def moves(self) -> list[Move]:
        return [m for m, _ in self._history]

    def options(self) -> dict[str, Any]:
        return {"cubes": self._cubes}

    # --- Treeblox's own questions (the daemon lights the board with these) -------------

    @property
    def phase(self) -> str:
        """"first" (placing the first leaf), "main", "final" (final growth) or "over"."""
        return "over" if self._end else self._phase

    @property
    def in_final_growth(self) -> bool:
        return self._end is None and self._phase == "final"

    @property
    def end_reason(self) -> str | None:
        """None while playing; then "no-active-leaves", "double-pass" or "final-growth"."""
        return self._end

    @property
    def loser_without_leaves(self) -> int | None:
        """The player whose tree was left with no active leaves, which ended the game."""
        return self._loser

    @property
    def placements_left(self) -> int:
        """How many more cubes the mover may place this turn (in the final growth: all of
        their remaining cubes); 0 once the game is over."""
        return 0 if self._end else self._turn_left

    def growth_rate(self, player: int) -> int:
        """1 or 2. For the mover in the main phase, the rate counted at the start of this turn
        (placing or shading leaves mid-turn does not change it); otherwise what the player's
        active leaves now would give."""
        if player == self._to_move and self._phase == "main" and not self._end:
            return self._rate
        return 1 if self._active_count(player) < 3 else 2

    def active_leaves(self, player: int) -> list[Cell]:
        """The player's leaves with no cube anywhere above them in their column."""
        columns = self._columns
        return [c for c in self._leaves[player] if max(columns[c[:2]]) == c[2]]

    def available_holes(self, player: int) -> list[Cell]:
        """Free board holes and the free faces of the player's branches, in reading order."""
        return sorted(self._holes(player), key=_reading_order)

    def cubes_left(self, player: int) -> dict[str, int]:
        return dict(self._left[player])

    # --- helpers -------------------------------------------------------------------------

    def _turn(self) -> tuple:
        return (self._to_move, self._phase, self._rate, self._turn_left, self._placed,
                self._passes, self._end, self._loser)

    def _active_count(self, player: int) -> int:
        columns = self._columns
        n = 0
        for x, y, z in self._leaves[player]:  # (a loop, not sum over a generator: hot)
            if max(columns[x, y]) == z:
                n += 1
        return n

    def _holes(self, player: int) -> set[Cell]:
        # The free board holes, then the free faces of each branch, added in that order (a
        # set's order follows its additions, and the playout draws from it in that order), the
        # loops in C: every turn of a playout asks this.
        taken = self._cells.__contains__
        holes = set(filterfalse(taken, BOARD_HOLES))
        holes.update(filterfalse(taken, chain.from_iterable(map(_neighbours,
                                                                self._branches[player]))))
        return holes

    def _killing_move(self, p: int) -> Move | None:
        """A cube of p's that shades the other player's last active leaf (and so wins at
        once), or None: a free face of p's branches above that leaf in its column, a leaf
        there if p has one left, else a branch."""
        q = 1 - p
        columns = self._columns
        last = None
        for c in self._leaves[q]:
            if max(columns[c[:2]]) == c[2]:
                if last is not None:
                    return None  # two or more active leaves: no single cube wins
                last = c
        if last is None:
            return None
        left = self._left[p]
        kind = LEAF if left[LEAF] else BRANCH if left[BRANCH] else None
        if kind is None:
            return None
        x, y, z = last
        cells = self._cells
        for branch in self._branches[p]:
            if branch[0] - x in (-1, 0, 1) and branch[1] - y in (-1, 0, 1):
                for n in _neighbours(branch):
                    if n[0] == x and n[1] == y and n[2] > z and n not in cells:
                        return Move(kind, n)
        return None

    def _has_hole(self, player: int) -> bool:
        cells = self._cells
        if any(c not in cells for c in BOARD_HOLES):
            return True
        return any(n not in cells for b in self._branches[player] for n in _neighbours(b))

    def _is_hole(self, player: int, cell: Cell) -> bool:
        # Free, and a board hole or a face of one of the player's branches.
        if cell in self._cells:
            return False
        if cell in _BOARD:
            return True
        own = (player, BRANCH)
        return any(self._cells.get(n) == own for n in _neighbours(cell))

    def _start_turn(self, player: int, final: bool = False) -> None:
        self._to_move = player
        self._placed = 0
        if final:
            self._phase = "final"
        elif not self._leaves[player] and not self._branches[player]:
            self._phase, self._rate, self._turn_left = "first", 1, 1
            return
        else:
            self._phase = "main"
        # No check for a tree without active leaves here: the cube that shaded its last leaf
        # has already ended the game (see _apply).
        active = self._active_count(player)
        self._rate = 1 if active < 3 else 2
        if final:
            # The final growth is not capped by the growth rate: every cube goes in.
            left = self._left[player]
            self._turn_left = left[LEAF] + left[BRANCH]
            # (An opponent without cubes cannot happen: their running out would have been
            # the final growth. The check costs nothing and keeps the game finite.)
            if not self._turn_left or not self._has_hole(player):
                self._finish("final-growth")
        else:
            self._turn_left = self._rate

    def _end_turn(self) -> None:
        self._passes = self._passes + 1 if not self._placed else 0
        if self._passes >= 2:
            self._to_move = 1 - self._to_move
            self._finish("double-pass")
        else:
            self._start_turn(1 - self._to_move)

    def _finish(self, reason: str) -> None:
        self._end = reason
        self._turn_left = 0

    def _check(self, move: Move) -> None:
        """Raise IllegalMove with a reason a player can read if `move` is not allowed now."""
        if self._end:
            raise IllegalMove(move, Reason("the game is over"))
        p = self._to_move
        if move.kind == END_KIND:
            if self._phase == "first":
                raise IllegalMove(move, Reason("your first move must be a leaf in a board hole; "
                                               "it cannot be passed"))
            if self._phase == "final":
                raise IllegalMove(move, Reason("in the final growth you must place all your "
                                               "cubes while a hole is available"))
            return
        kind, cell = move
        if kind not in (LEAF, BRANCH) or type(cell) is not tuple or len(cell) != 3:
            raise InvalidNotation(tuple(move), "a placement is a leaf or a branch at an (x,y,z) "
                                               "cell")
        if self._phase == "first" and kind != LEAF:
            raise IllegalMove(move, Reason("your first move must be a leaf"))
        if not self._left[p][kind]:
            who = COLOURS[p].title()
            raise IllegalMove(move, Reason("{player} has no leaves left", player=who)
                              if kind == LEAF else
                              Reason("{player} has no branches left", player=who))
        if cell[2] < 0:
            raise IllegalMove(move, Reason("that cell is below the table"))
        piece = self._cells.get(cell)
        if piece is not None:
            raise IllegalMove(move, Reason("{site} is taken by a {colour} {piece}",
                                           site=cell_name(cell), colour=COLOURS[piece[0]],
                                           piece=piece[1]))
        if self._phase == "first":
            if cell not in _BOARD:
                raise IllegalMove(move, Reason("your first leaf goes into one of the 16 board "
                                               "holes"))
            return
        if self._is_hole(p, cell):
            return
        touching = [self._cells[n] for n in _neighbours(cell) if n in self._cells]
        if any(owner != p and k == BRANCH for owner, k in touching):
            raise IllegalMove(move, Reason("{site} is a face of a {colour} branch: you may only "
                                           "attach cubes to your own branches",
                                           site=cell_name(cell), colour=COLOURS[1 - p]))
        if touching:
            raise IllegalMove(move, Reason("no cube can be attached to a leaf"))
        site = cell_name(cell)
        raise IllegalMove(move, Reason("{site} is beside the board, not a board hole nor a "
                                       "face of one of your branches", site=site)
                          if cell[2] == 0 else
                          Reason("{site} is in the air, not a board hole nor a face of one of "
                                 "your branches", site=site))

    def __repr__(self) -> str:
        a, b = self.scores()
        return (f"<TreebloxState moves={len(self._history)} phase={self.phase} "
                f"active={a}:{b} to_move={COLOURS[self._to_move]}>")


class Treeblox(Game):
    name = "treeblox"
    sgf_number = 7002   # GM[7002] (docs/records.md)
    short_title = "Treeblox"
    description = "grow a tree of cubes above a 4x4 board; the most leaves open to the sky wins"
    piece_kinds = frozenset({"dark-leaf", "dark-branch", "light-leaf", "light-branch"})
    #: A match (below, `play_match`).
    match_rules = ("players switch colours every game (player 1 is Dark in game 1) and the "
                   "most active leaves over all games wins")

    def play_match(self, records: Sequence[Sequence[str]], sources: Sequence[str] | None = None,
                   cubes: int = MAX_CUBES) -> dict[str, Any]:
        """The match's summary (games/base.py; the module's `play_match`)."""
        return play_match(records, cubes, sources)

    def owner_of(self, kind: str) -> int | None:
        """"dark-leaf", "dark-branch" -> 0; "light-..." -> 1."""
        colour = kind.partition("-")[0]
        return COLOURS.index(colour) if colour in COLOURS else None

    def options(self) -> dict[str, str]:
        return {"cubes": Reason("leaves and branches each player starts with, of each kind: "
                                "1..{most} (default {most}, the box)", most=MAX_CUBES)}

    def new_state(self, cubes: Any = MAX_CUBES, **options: Any) -> TreebloxState:
        if options:
            raise BadOptions(f"Treeblox has no option {sorted(options)[0]!r}; "
                             "it takes only 'cubes'")
        if isinstance(cubes, str) and cubes.strip().isdigit():
            cubes = int(cubes)
        if type(cubes) is not int or not 1 <= cubes <= MAX_CUBES:
            raise BadOptions(f"cubes must be a whole number 1..{MAX_CUBES}, not {cubes!r}")
        return TreebloxState(self, cubes)


GAME = Treeblox()


# --- match play -------------------------------------------------------------------------------
# Players switch colours every game: player 1 is Dark in game 1, Light in game 2, and so on.
# After each game each player scores their active leaves; the totals decide the match.


class MatchError(GameError):
    """A game of the match that does not replay, or does not finish."""

    def __init__(self, game: int, where: str, reason: str):
        self.game = game
        self.reason = reason
        super().__init__(f"game {game}{f' ({where})' if where else ''}: {reason}")


def player_colours(game: int) -> tuple[str, str]:
    """The colours of (player 1, player 2) in game `game` (1-based)."""
    return ("dark", "light") if game % 2 else ("light", "dark")


def play_game(number: int, moves: Sequence[str], cubes: int = MAX_CUBES, where: str = ""
              ) -> dict[str, Any]:
    """Replay game `number` of a match and score it for player 1 and player 2."""
    state = GAME.new_state(cubes=cubes)
    for i, text in enumerate(moves, 1):
        try:
            state.play(text)
        except IllegalMove as exc:
            raise MatchError(number, where, f"move {i} ({text}): {exc.reason}") from None
    if not state.is_over():
        raise MatchError(number, where, f"the game is not over after its {len(moves)} moves "
                                        f"({COLOURS[state.to_move]} to move)")
    first = 0 if number % 2 else 1  # player 1's seat: Dark in odd games, Light in even
    scores = state.scores()
    winner = state.winner()
    return {
        "game": number,
        "colours": list(player_colours(number)),
        "leaves": [scores[first], scores[1 - first]],
        "winner": None if winner is None else (1 if winner == first else 2),
        "end": state.end_reason,
        "moves": len(moves),
    }


def result_text(totals: Sequence[int]) -> str:
    a, b = totals
    if a == b:
        return f"Draw at {a} active leaves each"
    margin = abs(a - b)
    return f"Player {1 if a > b else 2} won by {margin} point{'s' if margin != 1 else ''}"


def play_match(records: Sequence[Sequence[str]], cubes: int = MAX_CUBES,
               sources: Sequence[str] | None = None) -> dict[str, Any]:
    """The match summary for games given as lists of move texts, game 1 first.

    Raises MatchError naming the game (and its source, if given) that does not replay.
    """
    if not records:
        raise GameError("a match needs at least one game")
    rows = [play_game(i, moves, cubes, sources[i - 1] if sources else "")
            for i, moves in enumerate(records, 1)]
    totals = [sum(r["leaves"][0] for r in rows), sum(r["leaves"][1] for r in rows)]
    winner = 1 if totals[0] > totals[1] else 2 if totals[1] > totals[0] else None
    return {
        "game": GAME.name,
        "cubes": cubes,
        "games": rows,
        "totals": totals,
        "winner": winner,
        "margin": abs(totals[0] - totals[1]),
        "result": result_text(totals),
    }

"""Fangqi (方棋), the square game: place counters on the points of a grid, form 2x2 squares of
your own colour, and take your opponent's counters for them.

Rules: ../shared/rules/fangqi.txt; the readings we chose are in docs/games/fangqi.md.

Phases: placement (alternate until the board is full), the first removal (one counter each,
anywhere; on an odd board the second player takes one more), the square removal (one counter
for each square of your colour on the board, never from a square while another counter may be
taken), and movement (slide orthogonally over vacant points; each square the move forms takes
a counter). A player reduced to three counters or fewer loses.

Representation (the hot path of playouts): a `Grid` is immutable geometry shared by its
states; points are bit indices `row * cols + col` (a1 = 0, reading order). A state holds each
player's counters as one int, so "which counters stand in a square" is four shifts and ands.
Before each move the whole position (a dozen ints) is saved as one tuple; undo restores it,
which keeps undo exact and cheap.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from itertools import permutations
from typing import Any, NamedTuple

from games.base import BadOptions, Game, IllegalMove, InvalidNotation, Reason, State
from games.plan import CELL, POINT, Piece, Plan, chess_rows, grid_plan

COLOURS = ("black", "white")
FILES = "abcdefghijklmnopqrstuvwxyz"
MAX_SIDE = 26  # files are single letters a..z

#: The physical board. The rules give no dimensions ("often played on a designated section
#: of the Go board"); ours: points (or cells) 30 mm apart, room for a Go stone's 22 mm counter
#: with its LED beside it, and a 6 x 2 mm magnet in each counter.
PITCH_MM = 30.0
COUNTER_MM = (22.0, 5.0)   # diameter, thickness
COUNTER_MAGNET = "6 x 2 mm neodymium disc (N42), in the counter's underside"
#: The boards whose counters stand in cells, not on the crossings of lines.
CELL_BOARDS = frozenset({"8x8"})

#: Ready-made boards, as players name them: grids of squares (counters on their corners) and
#: the chequerboard (counters in its cells). Value: (rows, columns) of points.
NAMED_BOARDS: dict[str, tuple[int, int]] = {
    "6x6": (7, 7),   # 49 points: the common folk board (and part of a Go board)
    "6x7": (7, 8),   # 56 points: 6 rows of 7 squares, common in Ningxia
    "8x8": (8, 8),   # 64 cells of a chess or draughts board
}

PLACEMENT, FIRST_REMOVAL, SQUARE_REMOVAL, MOVEMENT, OVER = (
    "placement", "first-removal", "square-removal", "movement", "over")
PHASES = (PLACEMENT, FIRST_REMOVAL, SQUARE_REMOVAL, MOVEMENT)

#: Why a game ended.
REDUCED, BLOCKED, QUIET = "reduced", "blocked", "quiet-limit"
DEFAULT_QUIET_LIMIT = 50
#: What a stopped playout is worth (`FangqiState.playout_value`): a counter lead counts as a
#: win until this many quiet moves before the quiet limit, then less, down to the limit's
#: draw (docs/ai.md, "Strength", how it was chosen).
QUIET_STRETCH = 10
# The search's guess (FangqiState.move_prior), by how many of a 2x2 window's other three points
# hold one's own counters (_BUILD: completing one is a capture) or the opponent's (_BLOCK: the
# point they need), and what taking a counter does to the opponent's window, by how many of
# its four points they hold (_BREAK: four is a square broken).
_BUILD = (1, 3, 9, 200)
_BLOCK = (0, 1, 4, 100)
_BREAK = (0, 1, 4, 30, 120)
# A capture outweighs any building. A slide completes at most two squares (the point next to
# its target along the line is vacant after it, and is a corner of two of the target's four
# windows), so its target's windows are worth at most 2 * 200 + 2 * 100, and the point it
# left loses at most 4 * 200 (a counter in the middle of a 3x3 block): 10,000 outweighs both.
_TAKE = 10_000

_RECT = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*(p|points)?\s*$")
_POINT = r"([a-z])(\d{1,2})"
_MOVE = re.compile(rf"^(?:{_POINT}(?:-{_POINT})?)?((?:x{_POINT})*)$")
_CAPTURE = re.compile(_POINT)


class Grid:
    """The points of one board and what is next to what. Immutable; get it with Grid.get."""

    def __init__(self, rows: int, cols: int, name: str):
        self.rows, self.cols, self.name = rows, cols, name
        self.size = rows * cols
        self.full = (1 << self.size) - 1
        self.names: tuple[str, ...] = tuple(
            f"{FILES[i % cols]}{i // cols + 1}" for i in range(self.size))
        self.index: dict[str, int] = {n: i for i, n in enumerate(self.names)}
        # A 2x2 square is named by its lower-left point (its origin).
        origins = [r * cols + c for r in range(rows - 1) for c in range(cols - 1)]
        self.origin_mask = sum(1 << o for o in origins)
        self.square_mask = {o: (1 << o) | (1 << o + 1) | (1 << o + cols) | (1 << o + cols + 1)
                            for o in origins}
        # For each point, the squares it is a corner of: (origin bit, mask of the four points).
        self.squares_at: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple((1 << o, m) for o, m in self.square_mask.items() if m >> i & 1)
            for i in range(self.size))
        # For each point, the points in a straight line from it: up, down, right, left.
        rays = []
        for i in range(self.size):
            r, c = divmod(i, cols)
            rays.append(tuple(ray for ray in (
                tuple(rr * cols + c for rr in range(r + 1, rows)),
                tuple(rr * cols + c for rr in range(r - 1, -1, -1)),
                tuple(r * cols + cc for cc in range(c + 1, cols)),
                tuple(r * cols + cc for cc in range(c - 1, -1, -1)),
            ) if ray))
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(rays)
        # The same rays as (points, their mask, whether the points ascend: up and right), so
        # that how far a counter slides along one is a few operations on its mask.
        self.reach: tuple[tuple[tuple[tuple[int, ...], int, bool], ...], ...] = tuple(
            tuple((ray, sum(1 << t for t in ray), ray[0] > i) for ray in rays[i])
            for i in range(self.size))
        self.not_last_col = sum(1 << i for i in range(self.size) if i % cols != cols - 1)
        self.not_first_col = sum(1 << i for i in range(self.size) if i % cols != 0)

    @staticmethod
    def get(board: Any) -> "Grid":
        """The grid for a named board or `RxC` points. Raises BadOptions otherwise."""
        if not isinstance(board, str):
            raise BadOptions(f"board must be text such as 6x6, not {type(board).__name__}")
        return _grid(board.strip().lower())

    def in_square(self, mask: int) -> int:
        """The points of `mask` that are a corner of some 2x2 square wholly inside `mask`."""
        c = self.cols
        o = mask & (mask >> 1) & (mask >> c) & (mask >> (c + 1)) & self.origin_mask
        return o | (o << 1) | (o << c) | (o << (c + 1))

    def square_origins(self, mask: int) -> int:
        """The origins of the 2x2 squares wholly inside `mask`, as bits."""
        c = self.cols
        return mask & (mask >> 1) & (mask >> c) & (mask >> (c + 1)) & self.origin_mask

    def neighbours(self, mask: int) -> int:
        """The points orthogonally next to some point of `mask`."""
        c = self.cols
        return ((mask << c) | (mask >> c) | ((mask & self.not_last_col) << 1)
                | ((mask & self.not_first_col) >> 1)) & self.full

    def point(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            raise InvalidNotation(name, f"this board has no point {name}: files "
                                        f"a..{FILES[self.cols - 1]}, rows 1..{self.rows}")
        return i


@lru_cache(maxsize=64)
def _grid(text: str) -> Grid:
    if text in NAMED_BOARDS:
        return Grid(*NAMED_BOARDS[text], text)
    m = _RECT.match(text)
    if not m:
        raise BadOptions(f"board {text!r} is not a named board ({', '.join(NAMED_BOARDS)}) nor "
                         "RxC points such as 5x6 (rows x columns; 6x6p for six by six points)")
    rows, cols = int(m.group(1)), int(m.group(2))
    named = f"{rows}x{cols}"
    if named in NAMED_BOARDS and NAMED_BOARDS[named] != (rows, cols) and \
            text != f"{named}p":
        # "6 x 6" or "6x6points": the named board of 6x6 squares, or 6x6 points?
        nr, nc = NAMED_BOARDS[named]
        raise BadOptions(f"board {text!r} is ambiguous: {named} is the board of {named} squares "
                         f"({nr}x{nc} = {nr * nc} points), {named}p is {rows}x{cols} = "
                         f"{rows * cols} points; write {named} or {named}p")
    if not (2 <= rows <= MAX_SIDE and 2 <= cols <= MAX_SIDE):
        raise BadOptions(f"board {text!r}: rows and columns of points must be 2..{MAX_SIDE}")
    return Grid(rows, cols, f"{rows}x{cols}p" if f"{rows}x{cols}" in NAMED_BOARDS
                else f"{rows}x{cols}")


class Move(NamedTuple):
    """A placement (`to`), a removal (one capture, no `to`) or a slide (`frm` and `to`, with the
    captures its squares earn, in reading order). Points by name. Immutable and hashable."""

    frm: str | None
    to: str | None
    captures: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        if self.frm is not None:
            return "slide"
        return "place" if self.to is not None else "remove"

    def __str__(self) -> str:
        head = f"{self.frm}-{self.to}" if self.frm is not None else (self.to or "")
        return head + "".join("x" + c for c in self.captures)


class FangqiState(State):
    __slots__ = ("game", "grid", "_extra", "_repeat", "_quiet_limit", "_morris", "_counters", "_masks",
                 "_hand", "_to_move", "_phase", "_due", "_quiet", "_used", "_end", "_loser",
                 "_history")

    def __init__(self, game: "Fangqi", grid: Grid, extra_removal: bool, repeat_squares: bool,
                 quiet_limit: int, morris: bool = False, quiet_result: str = "draw"):
        self.game = game
        self.grid = grid
        self._morris = morris
        self._counters = quiet_result == "counters"  # the quiet limit won on counters (reading 15)
        self._extra = extra_removal
        self._repeat = repeat_squares
        self._quiet_limit = quiet_limit
        self._masks = [0, 0]
        # Counters in hand: half the points each, the first player one more on an odd board.
        self._hand = [(grid.size + 1) // 2, grid.size // 2]
        self._to_move = 0
        self._phase = PLACEMENT
        self._due = [0, 0]       # removals each player still has to make in a removal phase
        self._quiet = 0          # movement moves in a row without a capture
        self._used = [0, 0]      # square origins that have taken a counter (repeat_squares off)
        self._end: str | None = None
        self._loser: int | None = None
        self._history: list[tuple[Move, tuple]] = []

    # --- the game interface -----------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self._to_move

    def legal_moves(self) -> list[Move]:
        """Placements and removals in reading order; slides by counter, then direction (up,
        down, right, left), then distance, each with every choice of captures."""
        return self._moves()

    def play(self, move: Any) -> None:
        if type(move) is not Move:
            move = self.parse_move(move) if isinstance(move, str) else self._coerce(move)
        move = self._check(move)  # raises before anything changes
        self._apply(move)

    def undo(self) -> Move:
        if not self._history:
            raise IndexError("no move to undo")
        move, saved = self._history.pop()
        self._restore(saved)
        return move

    def copy(self) -> "FangqiState":
        new = FangqiState.__new__(FangqiState)
        new.game, new.grid = self.game, self.grid
        new._extra, new._repeat, new._quiet_limit = self._extra, self._repeat, self._quiet_limit
        new._counters = self._counters
        new._morris = self._morris
        new._history = self._history[:]
        new._restore(self._saved())
        return new

    def is_over(self) -> bool:
        return self._end is not None

    def scores(self) -> tuple[int, int]:
        """Counters each player still has, on the board and in hand."""
        m, h = self._masks, self._hand
        return m[0].bit_count() + h[0], m[1].bit_count() + h[1]

    def winner(self) -> int | None:
        # A reduced or blocked player loses whatever the count (on a tiny board both may have
        # three or fewer); the quiet limit is a draw (reading 15), or, with quiet_result
        # "counters", won by more counters.
        if self._loser is not None:
            return 1 - self._loser
        if self._end == QUIET and not self._counters:
            return None
        return super().winner()

    def playout_value(self) -> float | None:
        """What the search makes of a playout it stopped (its `playout_cap`), by reading 15:
        more counters wins only by going on to reduce the other to three, and the quiet limit
        draws. So a lead is worth a win (as the count alone said before) until the last
        QUIET_STRETCH quiet moves before the limit, and then shrinks to a draw at it (a
        capture restarts the count): the leader's 0.5 + 0.5 * min(1, moves left / stretch),
        0.5 level. With `quiet_result = "counters"`, None: more counters wins."""
        if self._counters:
            return None
        a, b = self.scores()
        if a == b:
            return 0.5
        left = self._quiet_limit - self._quiet
        lead = 0.5 * min(1.0, left / min(QUIET_STRETCH, self._quiet_limit))
        return 0.5 + lead if a > b else 0.5 - lead

    def occupancy(self) -> dict[str, str]:
        """Every counter on the board: point name -> "black" (player 0) or "white"."""
        names = self.grid.names
        out = {}
        for p in (0, 1):
            m = self._masks[p]
            while m:
                low = m & -m
                out[names[low.bit_length() - 1]] = COLOURS[p]
                m ^= low
        return out

    def sites(self) -> list[str]:
        """Every point of the board, in reading order (a1, b1, ..., a2, ...)."""
        return list(self.grid.names)

    def plan(self) -> Plan:
        """The grid's points PITCH_MM apart on engraved lines (the chequerboard: its cells), and
        each player's counters."""
        grid = self.grid
        size = grid.rows * grid.cols
        counter = f"{COUNTER_MM[0]:g} mm across, {COUNTER_MM[1]:g} mm thick"
        pieces = tuple(Piece(f"counter, {COLOURS[p]}", (size + 1 - p) // 2, counter,
                             COUNTER_MAGNET, (COUNTER_MM[0], COUNTER_MM[0]), round=True,
                             note="half the points each, black one more on an odd board")
                       for p in (0, 1))
        cells = grid.name in CELL_BOARDS
        return grid_plan(chess_rows(FILES[:grid.cols], grid.rows), PITCH_MM,
                         shape=CELL if cells else POINT, pieces=pieces, dimensions=(
                             (f"{'cells' if cells else 'points'} {PITCH_MM:g} mm apart", "ours"),
                             (f"counters {counter}", "ours"),
                             (f"{size} {'cells' if cells else 'points'}; counters half the "
                              "points each", "the rules")))

    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise InvalidNotation(text, "a move is text such as d4, xd4, d4-d7 or d4-d7xf2")
        low = text.strip().lower()
        m = _MOVE.match(low)
        if not m or not low:
            raise InvalidNotation(text, "a move is a point to place on (d4), x and a point to "
                                        "take (xd4), or a slide (d4-d7) with the counters its "
                                        "squares take (d4-d7xf2)")
        grid = self.grid
        first = f"{m.group(1)}{m.group(2)}" if m.group(1) else None
        second = f"{m.group(3)}{m.group(4)}" if m.group(3) else None
        caps = [a + b for a, b in _CAPTURE.findall(m.group(5))]
        for name in [first, second, *caps]:
            if name is not None:
                grid.point(name)
        if len(set(caps)) != len(caps):
            raise InvalidNotation(text, "the same counter is taken twice")
        caps_t = tuple(sorted(caps, key=grid.index.__getitem__))
        if second is not None:
            return Move(first, second, caps_t)
        if first is not None:
            if caps_t:
                raise InvalidNotation(text, "only a slide takes counters with it: d4-d7xf2; "
                                            "a removal is written xf2")
            return Move(None, first)
        if len(caps_t) != 1:
            raise InvalidNotation(text, "a removal takes one counter: xd4")
        return Move(None, None, caps_t)

    @property
    def moves(self) -> list[Move]:
        return [m for m, _ in self._history]

    def options(self) -> dict[str, Any]:
        return {"board": self.grid.name, "extra_removal": self._extra,
                "repeat_squares": self._repeat, "quiet_limit": self._quiet_limit,
                "morris": self._morris,
                "quiet_result": "counters" if self._counters else "draw"}

    def playout(self, rng: Any = random, cap: int | None = None) -> tuple[int, int]:
        """Finish the game with uniformly random legal moves (or stop after `cap` of them) and
        return the scores.

        The same distribution as repeating `play(rng.choice(legal_moves()))` (each legal move
        equally likely), faster: the moves are legal by construction, so they skip the check,
        and in movement only the chosen one is made. Every move is recorded as usual, so `undo`
        takes them back."""
        randrange, apply, names = rng.randrange, self._apply, self.grid.names
        left = -1 if cap is None else cap
        while self._end is None and left:
            left -= 1
            p = self._to_move
            if self._phase != MOVEMENT:
                placing = self._phase == PLACEMENT
                where = (self.grid.full & ~(self._masks[0] | self._masks[1]) if placing
                         else self._takeable_mask())
                for _ in range(randrange(where.bit_count())):  # the r-th point of `where`:
                    where &= where - 1                         # r lowest ones cleared
                name = names[(where & -where).bit_length() - 1]
                apply(Move(None, name) if placing else Move(None, None, (name,)))
                continue
            # Count the moves without making them (a slide that forms k squares is as many
            # moves as there are ways to take k counters), counter by counter, then make the
            # r-th: the draw of randrange(len(legal_moves())) over them, in their order.
            short = self._short(p)
            ways: dict[int, list[tuple[int, ...]]] = {}
            r = randrange(self._slide_total(p, short, ways))
            for i, w in self._slide_weights(p, short, ways):  # (until the r-th)
                if r < w:
                    break
                r -= w
            apply(self._slide_of(p, i, r, short, ways))
        return self.scores()

    # --- Fangqi's own questions (the daemon lights the board with these) ----------------

    @property
    def phase(self) -> str:
        """"placement", "first-removal", "square-removal", "movement", or "over"."""
        return OVER if self._end else self._phase

    @property
    def end_reason(self) -> str | None:
        """None while playing; then "reduced" (a player has three counters or fewer),
        "blocked" (the player to move cannot move) or "quiet-limit"."""
        return self._end

    def in_hand(self, player: int) -> int:
        return self._hand[player]

    def on_board(self, player: int) -> int:
        return self._masks[player].bit_count()

    def removals_due(self, player: int) -> int:
        """Counters the player still has to take in this removal phase (0 outside them)."""
        return self._due[player] if self._end is None else 0

    def takeable(self) -> list[str]:
        """The opponent's counters the mover may take now, in a removal phase (else empty)."""
        if self._end or self._phase not in (FIRST_REMOVAL, SQUARE_REMOVAL):
            return []
        return self._names(self._takeable_mask())

    def squares(self, player: int) -> list[str]:
        """The 2x2 squares of the player's colour on the board, by their lower-left point."""
        return self._names(self.grid.square_origins(self._masks[player]))

    def in_squares(self, player: int) -> list[str]:
        """The player's counters that are a corner of one of their squares."""
        return self._names(self.grid.in_square(self._masks[player]))

    def targets(self, point: str) -> list[str]:
        """Where the mover's counter on `point` may slide now (empty if none, or not now)."""
        if self._end or self._phase != MOVEMENT:
            return []
        i = self.grid.point(point)
        if not self._masks[self._to_move] >> i & 1:
            return []
        occ = self._masks[0] | self._masks[1]
        out = []
        for ray in self.grid.rays[i]:
            for t in ray:
                if occ >> t & 1:
                    break
                out.append(self.grid.names[t])
        return out

    def moves_at(self, site: str) -> list[Move]:
        """The legal moves that change `site` (for the daemon's reconcile)."""
        if site not in self.grid.index:
            return []
        return [m for m in self._moves() if site == m.frm or site == m.to or site in m.captures]

    def last_mover(self) -> int | None:
        return self._history[-1][1][2] if self._history else None

    def move_prior(self, moves: Any) -> list[float]:
        """For the search (games/base.py): a cheap guess per legal move, higher first, from the
        2x2 windows around the points a move touches. Placement: completing a square of one's
        own (a capture in the square removal), then blocking a window where the opponent has
        three, then growing a window the opponent is not in. Removal: the counter whose loss
        breaks the opponent's square or near-square. Movement: captures first, then a slide
        that blocks the opponent's three or builds one's own; leaving a block is a loss.
        Why: a capped playout from the placement ends before any counter is taken, so there
        the search has only this to tell points apart."""
        grid = self.grid
        index, squares_at = grid.index, grid.squares_at
        p = self._to_move
        mine, theirs = self._masks[p], self._masks[1 - p]

        def build(i: int, own: int, opp: int) -> int:
            """What a counter of `own`'s on point i does for `own`'s squares and against
            `opp`'s (windows counted with i itself left out)."""
            value = 0
            for _, w in squares_at[i]:
                w &= ~(1 << i)
                if not w & opp:
                    value += _BUILD[(w & own).bit_count()]
                if not w & own:
                    value += _BLOCK[(w & opp).bit_count()]
            return value

        def loss_to_them(c: int) -> int:
            """What the opponent loses with their counter on point c."""
            return sum(_BREAK[(w & theirs).bit_count()] for _, w in squares_at[c]
                       if not w & mine)

        out = []
        for m in moves:
            if m.frm is None and m.to is not None:  # placement
                out.append(build(index[m.to], mine, theirs))
            elif m.frm is None:  # a removal
                out.append(loss_to_them(index[m.captures[0]]))
            else:
                i, t = index[m.frm], index[m.to]
                rest = mine & ~(1 << i)
                value = build(t, rest, theirs) - build(i, rest, theirs)
                for c in m.captures:
                    value += _TAKE + loss_to_them(index[c])
                out.append(value)
        return out

    def position_key(self) -> tuple:
        """Everything that decides the rest of the game (for search transposition tables)."""
        return self._saved()

    # --- the moves ---------------------------------------------------------------------

    def _takeable_mask(self) -> int:
        q = self._masks[1 - self._to_move]
        if self._phase == FIRST_REMOVAL:
            return q
        return self._free(q)

    def _free(self, q: int) -> int:
        """The counters of `q` that may be taken after the first removal: those in no square
        (reading 9); with the Morris rule, any of them when all stand in squares."""
        free = q & ~self.grid.in_square(q)
        return free or q if self._morris else free

    def _capture_sets(self, opponent: int, k: int) -> list[tuple[int, ...]]:
        """Every set of `k` opponent counters that may be taken one after another (each
        takeable when its turn comes), as index tuples in reading order. By the text (no
        Morris rule) only counters in no square are taken, and a capture with none left is
        lost: fewer than `k`, down to the empty set."""
        grid = self.grid
        free = opponent & ~grid.in_square(opponent)
        if not self._morris:
            k = min(k, free.bit_count())
            if not k:
                return [()]
        first = free or opponent
        if k == 1:
            return [(low.bit_length() - 1,) for low in _bits(first)]
        found: set[tuple[int, ...]] = set()
        for low in _bits(first):
            i = low.bit_length() - 1
            for rest in self._capture_sets(opponent ^ low, k - 1):
                found.add(tuple(sorted((i, *rest))))
        return sorted(found)

    def _formed(self, p: int, mine_after: int, to: int) -> int:
        """Origins of the squares a counter arriving at `to` forms that take a counter."""
        formed = 0
        for obit, mask in self.grid.squares_at[to]:
            if mine_after & mask == mask:
                formed |= obit
        if not self._repeat:
            formed &= ~self._used[p]
        return formed

    def _moves(self) -> list[Move]:
        if self._end is not None:
            return []
        names = self.grid.names
        p = self._to_move
        masks = self._masks
        if self._phase == PLACEMENT:
            vacant = self.grid.full & ~(masks[0] | masks[1])
            return [Move(None, names[low.bit_length() - 1]) for low in _bits(vacant)]
        if self._phase != MOVEMENT:
            return [Move(None, None, (names[low.bit_length() - 1],))
                    for low in _bits(self._takeable_mask())]
        theirs = masks[1 - p]
        cache: dict[int, list[tuple[str, ...]]] = {}
        out = []
        for i, t, k in self._slides(p):
            if not k:
                out.append(Move(names[i], names[t]))
                continue
            sets = cache.get(k)
            if sets is None:
                sets = cache[k] = [tuple(names[j] for j in s)
                                   for s in self._capture_sets(theirs, k)]
            frm, to = names[i], names[t]
            out.extend(Move(frm, to, caps) for caps in sets)
        return out

    def _short(self, p: int) -> dict[int, list[int]]:
        """The squares of p's one counter short: vacant point -> the squares (masks) a counter
        of p's arriving there completes, unless it is one of their other three corners (with
        repeat_squares off, not those that have taken already)."""
        grid = self.grid
        mine = self._masks[p]
        vacant = grid.full & ~(mine | self._masks[1 - p])
        c = grid.cols
        # The origins of the squares with three corners p's and the fourth vacant.
        m1, m2, m3 = mine >> 1, mine >> c, mine >> (c + 1)
        v1, v2, v3 = vacant >> 1, vacant >> c, vacant >> (c + 1)
        origins = ((vacant & m1 & m2 & m3) | (mine & v1 & m2 & m3) | (mine & m1 & v2 & m3)
                   | (mine & m1 & m2 & v3)) & grid.origin_mask
        if not self._repeat:
            origins &= ~self._used[p]
        short: dict[int, list[int]] = {}
        square_mask = grid.square_mask
        while origins:
            low = origins & -origins
            origins ^= low
            mask = square_mask[low.bit_length() - 1]
            short.setdefault((mask & ~mine).bit_length() - 1, []).append(mask)
        return short

    def _slide_total(self, p: int, short: dict[int, list[int]],
                     ways: dict[int, list[tuple[int, ...]]]) -> int:
        """How many moves p's slides are, by whole-board operations: the points each counter
        reaches d steps along a line, for each line and d, and for each point one short of a
        square, the counters whose slide there takes (as many moves as the ways to take what
        it earns; `ways` as _slide_weights)."""
        grid = self.grid
        masks = self._masks
        mine, theirs = masks[p], masks[1 - p]
        occ = mine | theirs
        vacant = grid.full & ~occ
        c, right, left = grid.cols, grid.not_last_col, grid.not_first_col
        total = 0
        for step in (lambda m: m << c, lambda m: m >> c, lambda m: (m & right) << 1,
                     lambda m: (m & left) >> 1):
            reached = step(mine) & vacant
            while reached:
                total += reached.bit_count()
                reached = step(reached) & vacant
        reach = grid.reach
        for t, squares in short.items():
            for _, mask, ascending in reach[t]:
                block = mask & occ
                if not block:
                    continue
                low = block & -block if ascending else 1 << block.bit_length() - 1
                if low & mine:
                    sets = self._taking(squares, low, theirs, ways)
                    if sets is not None:
                        total += len(sets) - 1
        return total

    def _slide_weights(self, p: int, short: dict[int, list[int]],
                       ways: dict[int, list[tuple[int, ...]]]):
        """(counter, how many moves its slides are) for each counter of p's that can slide, in
        reading order, without listing the slides: a counter slides to the vacant points of
        each ray up to the first occupied one, and one slide is as many moves as there are
        ways to take what its squares earn (`ways`: k -> the capture sets, filled as they are
        needed)."""
        masks = self._masks
        theirs = masks[1 - p]
        occ = masks[p] | theirs
        spots = 0
        for t in short:
            spots |= 1 << t
        grid = self.grid
        reach = grid.reach
        m = masks[p] & grid.neighbours(grid.full & ~occ)  # (a crowded board: few can slide)
        while m:
            low = m & -m
            m ^= low
            i = low.bit_length() - 1
            w = 0
            for _, mask, ascending in reach[i]:
                block = mask & occ
                if not block:
                    free = mask
                elif ascending:  # the points below its lowest blocker
                    free = mask & ((block & -block) - 1)
                else:            # the points above its highest blocker
                    free = mask & ~((1 << block.bit_length()) - 1)
                w += free.bit_count()
                hits = free & spots
                while hits:
                    hit = hits & -hits
                    hits ^= hit
                    sets = self._taking(short[hit.bit_length() - 1], low, theirs, ways)
                    if sets is not None:
                        w += len(sets) - 1
            yield i, w

    def _taking(self, squares: list[int], low: int, theirs: int,
                ways: dict[int, list[tuple[int, ...]]]) -> list[tuple[int, ...]] | None:
        """The capture sets of a slide of the counter `low` onto a point one short of
        `squares` (None: it completes none, the counter being one of their corners), kept in
        `ways` by how many it takes."""
        k = 0
        for square in squares:
            if not square & low:
                k += 1
        if not k:
            return None
        sets = ways.get(k)
        if sets is None:
            sets = ways[k] = self._capture_sets(theirs, k)
        return sets

    def _slide_of(self, p: int, i: int, r: int, short: dict[int, list[int]],
                  ways: dict[int, list[tuple[int, ...]]]) -> Move:
        """The r-th move of counter i's slides, in legal_moves' order."""
        names = self.grid.names
        theirs = self._masks[1 - p]
        occ = self._masks[p] | theirs
        low = 1 << i
        for ray in self.grid.rays[i]:
            for t in ray:
                if occ >> t & 1:
                    break
                squares = short.get(t)
                sets = None if squares is None else self._taking(squares, low, theirs, ways)
                if sets is None:
                    if not r:
                        return Move(names[i], names[t])
                    r -= 1
                elif r < len(sets):
                    return Move(names[i], names[t], tuple(names[j] for j in sets[r]))
                else:
                    r -= len(sets)
        raise AssertionError(f"counter {names[i]} has fewer moves than drawn")

    def _slides(self, p: int) -> list[tuple[int, int, int]]:
        """Every slide of player p as (from, to, squares it forms that take), by counter, then
        direction (up, down, right, left), then distance."""
        grid = self.grid
        masks = self._masks
        mine = masks[p]
        occ = mine | masks[1 - p]
        short = self._short(p)
        rays = grid.rays
        out = []
        m = mine & grid.neighbours(grid.full & ~occ)  # those that can slide at all
        while m:
            low = m & -m
            m ^= low
            i = low.bit_length() - 1
            for ray in rays[i]:
                for t in ray:
                    if occ >> t & 1:
                        break
                    masks_t = short.get(t)
                    if masks_t is None:  # (most points: no square one counter short)
                        out.append((i, t, 0))
                        continue
                    k = 0
                    for mask in masks_t:
                        if not mask & low:
                            k += 1
                    out.append((i, t, k))
        return out

    def _apply(self, move: Move) -> None:
        """Play a move known to be legal."""
        self._history.append((move, self._saved()))
        grid = self.grid
        index = grid.index
        p = self._to_move
        q = 1 - p
        masks = self._masks
        if self._phase == PLACEMENT:
            masks[p] |= 1 << index[move.to]
            self._hand[p] -= 1
            self._to_move = q
            if not (self._hand[0] or self._hand[1]) or masks[0] | masks[1] == grid.full:
                self._start_first_removal()
            return
        if self._phase != MOVEMENT:
            masks[q] &= ~(1 << index[move.captures[0]])
            self._due[p] -= 1
            if masks[q].bit_count() <= 3:
                self._finish(REDUCED, q)
                return
            self._next_remover(p)
            return
        i, t = index[move.frm], index[move.to]
        mine = masks[p] ^ (1 << i) ^ (1 << t)
        masks[p] = mine
        if not self._repeat:  # a square formed has taken, even when its capture was lost
            self._used[p] |= self._formed(p, mine, t)
        if move.captures:
            for c in move.captures:
                masks[q] &= ~(1 << index[c])
            self._quiet = 0
            if masks[q].bit_count() <= 3:
                self._finish(REDUCED, q)
                return
        else:
            self._quiet += 1
        self._to_move = q
        if self._quiet >= self._quiet_limit:
            self._finish(QUIET, None)
        elif not self._can_move(q):
            self._finish(BLOCKED, q)

    # --- phases ------------------------------------------------------------------------

    def _first_remover(self) -> int:
        # Turns simply keep alternating (reading 2): whoever did not make the last placement
        # starts the first removal. On an odd board Black places last, so White starts; on an
        # even board, Black.
        return self.grid.size % 2

    def _start_first_removal(self) -> None:
        self._phase = FIRST_REMOVAL
        self._due = [1, 1]
        if self._extra and self.grid.size % 2:
            self._due[1] += 1
        self._to_move = self._first_remover()

    def _lose_empty_removals(self) -> None:
        """In the square removal, by the text: a player with removals due and no opponent
        counter outside a square loses them (reading 9); none can become free meanwhile."""
        if self._phase == SQUARE_REMOVAL and not self._morris:
            for r in (0, 1):
                if self._due[r] and not self._free(self._masks[1 - r]):
                    self._due[r] = 0

    def _next_remover(self, p: int) -> None:
        """After `p` removed a counter: the other player if they still have removals due, else
        `p` again, else the next phase."""
        q = 1 - p
        self._lose_empty_removals()
        if self._due[q]:
            self._to_move = q
        elif self._due[p]:
            self._to_move = p
        elif self._phase == FIRST_REMOVAL:
            self._start_square_removal()
        else:
            self._start_movement()

    def _start_square_removal(self) -> None:
        self._phase = SQUARE_REMOVAL
        grid = self.grid
        origins = [grid.square_origins(m) for m in self._masks]
        self._due = [origins[0].bit_count(), origins[1].bit_count()]
        if not self._repeat:
            self._used = origins  # these squares have taken their counters
        self._lose_empty_removals()
        first = 1 - self._to_move  # whoever did not make the last removal (reading 2)
        if self._due[first]:
            self._to_move = first
        elif self._due[1 - first]:
            self._to_move = 1 - first
        else:
            self._start_movement()

    def _start_movement(self) -> None:
        self._phase = MOVEMENT
        # Whoever did not make the last removal starts (reading 2): turns keep alternating.
        self._to_move = 1 - self._to_move
        if not self._can_move(self._to_move):
            self._finish(BLOCKED, self._to_move)

    def _can_move(self, p: int) -> bool:
        grid = self.grid
        vacant = grid.full & ~(self._masks[0] | self._masks[1])
        return bool(grid.neighbours(self._masks[p]) & vacant)

    def _finish(self, reason: str, loser: int | None) -> None:
        self._end = reason
        self._loser = loser
        self._due = [0, 0]

    # --- checking ----------------------------------------------------------------------

    def _coerce(self, move: Any) -> Move:
        if isinstance(move, tuple) and len(move) == 3:
            return self.parse_move(str(Move(*move)))
        raise InvalidNotation(move, "a move is text such as d4, xd4, d4-d7 or d4-d7xf2")

    def _check(self, move: Move) -> Move:
        """The move in canonical form, or IllegalMove with a reason a player can read."""
        if self._end:
            raise IllegalMove(move, Reason("the game is over"))
        grid = self.grid
        for name in (move.frm, move.to, *move.captures):
            if name is not None and name not in grid.index:
                raise InvalidNotation(move, f"this board has no point {name}")
        caps = tuple(sorted(set(move.captures), key=grid.index.__getitem__))
        if len(caps) != len(move.captures):
            raise IllegalMove(move, Reason("the same counter is taken twice"))
        move = Move(move.frm, move.to, caps)
        p, q = self._to_move, 1 - self._to_move
        masks = self._masks
        occ = masks[0] | masks[1]
        who = COLOURS[p].title()
        if self._phase == PLACEMENT:
            if move.kind != "place":
                raise IllegalMove(move, Reason("it is the placement phase: {player} places a "
                                               "counter on a vacant point, e.g. d4", player=who))
            if occ >> grid.index[move.to] & 1:
                raise IllegalMove(move, Reason("{site} is not vacant", site=move.to))
            return move
        if self._phase in (FIRST_REMOVAL, SQUARE_REMOVAL):
            if move.kind != "remove":
                fields = dict(player=who, other=COLOURS[q].title(), site=self.takeable()[0])
                raise IllegalMove(move, Reason("it is the first removal: {player} takes one of "
                                               "{other}'s counters, e.g. x{site}", **fields)
                                  if self._phase == FIRST_REMOVAL else
                                  Reason("it is the square removal: {player} takes one of "
                                         "{other}'s counters, e.g. x{site}", **fields))
            i = grid.index[caps[0]]
            if not masks[q] >> i & 1:
                raise IllegalMove(move, Reason("{site} holds no {colour} counter", site=caps[0],
                                               colour=COLOURS[q]))
            if not self._takeable_mask() >> i & 1:
                if not self._morris:
                    raise IllegalMove(move, Reason("{site} stands in a {colour} square: a counter "
                                                   "in a square is never taken after the first "
                                                   "removal", site=caps[0], colour=COLOURS[q]))
                raise IllegalMove(move, Reason("{site} stands in a {colour} square; take a "
                                               "counter that is in no square first",
                                               site=caps[0], colour=COLOURS[q]))
            return move
        if move.kind != "slide":
            # (the example is a slide legal here: a fixed one may name a row the board lacks)
            example = next((str(m) for m in self.legal_moves()), "a1-a2")
            raise IllegalMove(move, Reason("it is the movement phase: {player} slides a counter, "
                                           "e.g. {example}", player=who, example=example))
        i, t = grid.index[move.frm], grid.index[move.to]
        if not masks[p] >> i & 1:
            raise IllegalMove(move, Reason("{site} holds no {colour} counter", site=move.frm,
                                           colour=COLOURS[p]))
        line = next((ray for ray in grid.rays[i] if t in ray), None)
        if line is None:
            raise IllegalMove(move, Reason("a counter slides along a line of the board, not "
                                           "diagonally or to itself"))
        for j in line[:line.index(t) + 1]:
            if occ >> j & 1:
                raise IllegalMove(move, Reason("{site} is in the way", site=grid.names[j]) if j != t
                                  else Reason("{site} is not vacant", site=move.to))
        mine = masks[p] ^ (1 << i) ^ (1 << t)
        formed = self._formed(p, mine, t).bit_count()
        k = formed
        if not self._morris:  # only counters in no square are taken; the rest is lost
            k = min(k, (masks[q] & ~grid.in_square(masks[q])).bit_count())
        if len(caps) != k:
            if not formed:
                raise IllegalMove(move, Reason("this move forms no square, so it takes nothing"))
            if not k:
                raise IllegalMove(move, Reason("this move forms a square, but every {colour} "
                                               "counter stands in a square: none may be taken, "
                                               "so it takes nothing", colour=COLOURS[q]))
            fields = dict(n=formed, k=k, colour=COLOURS[q])
            said = (Reason("this move forms {n} square: it takes exactly {k} {colour} counter",
                           **fields) if formed == 1 else
                    Reason("this move forms {n} squares: it takes exactly {k} {colour} counter",
                           **fields) if k == 1 else
                    Reason("this move forms {n} squares: it takes exactly {k} {colour} counters",
                           **fields))
            if k < formed:
                said = Reason("{reason} (every other {colour} counter stands in a square)",
                              reason=said, colour=COLOURS[q])
            raise IllegalMove(move, said)
        for c in caps:
            if not masks[q] >> grid.index[c] & 1:
                raise IllegalMove(move, Reason("{site} holds no {colour} counter", site=c,
                                               colour=COLOURS[q]))
        if not self._takeable_in_turn(masks[q], caps):
            if not self._morris:
                raise IllegalMove(move, Reason("a counter standing in a square is never taken "
                                               "after the first removal"))
            raise IllegalMove(move, Reason("a counter standing in a square may be taken only "
                                           "when no {colour} counter outside a square is left",
                                           colour=COLOURS[q]))
        return move

    def _takeable_in_turn(self, opponent: int, caps: tuple[str, ...]) -> bool:
        """Can the captures be taken in some order, each takeable when its turn comes?"""
        grid = self.grid
        for order in permutations(grid.index[c] for c in caps):
            q = opponent
            for i in order:
                if not self._free(q) >> i & 1:
                    break
                q &= ~(1 << i)
            else:
                return True
        return False

    # --- helpers -----------------------------------------------------------------------

    def _saved(self) -> tuple:
        return (self._masks[0], self._masks[1], self._to_move, self._phase, self._due[0],
                self._due[1], self._quiet, self._used[0], self._used[1], self._end, self._loser,
                self._hand[0], self._hand[1])

    def _restore(self, s: tuple) -> None:
        self._masks = [s[0], s[1]]
        self._to_move, self._phase = s[2], s[3]
        self._due = [s[4], s[5]]
        self._quiet = s[6]
        self._used = [s[7], s[8]]
        self._end, self._loser = s[9], s[10]
        self._hand = [s[11], s[12]]

    def _names(self, mask: int) -> list[str]:
        names = self.grid.names
        return [names[low.bit_length() - 1] for low in _bits(mask)]

    def __repr__(self) -> str:
        a, b = self.scores()
        return (f"<FangqiState board={self.grid.name} moves={len(self._history)} "
                f"phase={self.phase} counters={a}:{b} to_move={COLOURS[self._to_move]}>")


def _bits(mask: int):
    """The set bits of `mask`, lowest first, each as an int with that one bit set."""
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise BadOptions(f"{name} must be true or false, not {value!r}")


class Fangqi(Game):
    name = "fangqi"
    sgf_number = 7003   # GM[7003] (docs/records.md)
    short_title = "Fangqi"
    description = ("place counters, form 2x2 squares of your colour, take your opponent's "
                   "counters; three left loses")

    def owner_of(self, kind: str) -> int | None:
        """"black" -> 0, "white" -> 1."""
        return COLOURS.index(kind) if kind in COLOURS else None

    def options(self) -> dict[str, str]:
        return {
            "board": Reason("6x6 (7x7 points, the default), 6x7 (7 rows of 8 points), 8x8 (64 "
                            "cells), or RxC points such as 5x6 (2..26 each; 6x6p for six by six "
                            "points)"),
            "extra_removal": Reason("true (default): on a board with an odd number of points the "
                                    "second player takes one more counter in the first removal; "
                                    "false: not"),
            "repeat_squares": Reason("true (default): a square formed again takes again; false: "
                                     "each square (its four points) takes for its player only "
                                     "once"),
            "quiet_limit": Reason("movement moves in a row without a capture that end the game "
                                  "(1..1000, default {default})", default=DEFAULT_QUIET_LIMIT),
            "morris": Reason("false (default, the text): a counter in a square is never taken "
                             "after the first removal, and a capture with none outside squares "
                             "is lost; true: when all stand in squares, any may be taken (Nine "
                             "Men's Morris)"),
            "quiet_result": Reason("draw (default, the text: only a player reduced to three "
                                   "loses) or counters (more counters wins) when the quiet limit "
                                   "ends the game"),
        }

    def boards(self) -> list[str]:
        return list(NAMED_BOARDS)

    def new_state(self, board: Any = "6x6", extra_removal: Any = True, repeat_squares: Any = True,
                  quiet_limit: Any = DEFAULT_QUIET_LIMIT, morris: Any = False,
                  quiet_result: Any = "draw", **options: Any) -> FangqiState:
        if options:
            raise BadOptions(f"Fangqi has no option {sorted(options)[0]!r}; it takes "
                             + ", ".join(self.options()))
        if isinstance(quiet_limit, str) and quiet_limit.strip().isdigit():
            quiet_limit = int(quiet_limit)
        if type(quiet_limit) is not int or not 1 <= quiet_limit <= 1000:
            raise BadOptions(f"quiet_limit must be a whole number 1..1000, not {quiet_limit!r}")
        if quiet_result not in ("draw", "counters"):
            raise BadOptions(f"quiet_result must be draw (the quiet limit ends the game drawn) or "
                             f"counters (more counters wins), not {quiet_result!r}")
        return FangqiState(self, Grid.get(board), _flag("extra_removal", extra_removal),
                           _flag("repeat_squares", repeat_squares), quiet_limit,
                           _flag("morris", morris), quiet_result)


GAME = Fangqi()

"""Game for the Trees: pieces grow instead of moving, and keep growing by momentum.

Rules: ../shared/rules/game-for-the-trees.txt and momentum-notes.md; our words and every
reading we chose: docs/games/game-for-the-trees.md (reading numbers below refer to it).

Representation. Squares are indices 0..63 (a1 = 0, b1 = 1, ..., h8 = 63). Each holds a cell,
an immutable tuple (terrain, owner, root, kind): terrain BARE/GRASS/UNDER/HUCK/TREE, owner
0, 1 or -1 (nobody), and for a tree square the index of its tree's root and its kind letter
(B Birch, A Ash, E Beech, P Pine). A tree is named by its root square for its whole life.
Chains (momentum) are (square, dx, dy) triples, oldest first; a chain's owner is its
square's. Before each turn the whole position (a tuple of 64 cells, the chains, the leap
flags, the turn bookkeeping) is saved, so undo restores it exactly.

A turn runs in `_Turn`: the action's immediate part (stop, retreat), then the growths in the
chosen order, each checked on the board as it is then, then the attacks on tree squares,
resolved together in board order (reading 12).
"""

from __future__ import annotations

import functools
import itertools
import operator
import random
import re
from typing import Any, Iterator, NamedTuple

from games.base import BadOptions, Game, IllegalMove, InvalidNotation, Reason, State
from games.plan import Piece, Plan, chess_rows, grid_plan
from treeboard.exc import TreeboardError

BARE, GRASS, UNDER, HUCK, TREE = range(5)
TERRAIN_NAMES = ("bare", "grass", "underbrush", "huckleberry", "tree")
KIND_NAMES = {"B": "Birch", "A": "Ash", "E": "Beech", "P": "Pine"}
PLAYERS = ("White", "Black")
FILES = "abcdefgh"
SIZE = 8
DEFAULT_LIMIT = 200
MAX_LIMIT = 10_000

Cell = tuple  # (terrain, owner, root, kind)
EMPTY: Cell = (BARE, -1, -1, "")
NEUTRAL: Cell = (UNDER, -1, -1, "")
#: A square that is not a tree's is always (terrain, owner, -1, ""): a Huckleberry square,
#: a player's grass or underbrush is one value, which the board's `count` and `in` find at C
#: speed (the checks after every turn of every playout).
_HUCKS: tuple[Cell, Cell] = ((HUCK, 0, -1, ""), (HUCK, 1, -1, ""))
_OWNER = operator.itemgetter(1)

_KING = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)
_ORTH = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
#: A tree kind's unit directions (sliders) or leaps (Ash): also its links (reading 5).
_TREE_STEPS = {"B": _ORTH, "E": _DIAG, "P": _KING, "A": _KNIGHT}
_SLIDERS = frozenset("BEP")


#: The physical board. The rules give no dimensions; ours: squares of 30 mm, whose LEDs (one,
#: or a 2x2 cluster) sit at the centre, where the position shows, and whose reed lies 8 mm below
#: the centre; a wand with a magnet in its tip for the touches.
SQUARE_MM = 30.0
SENSOR_BELOW_MM = 8.0
WAND_MM = (10.0, 120.0)   # diameter, length
WAND_MAGNET = "10 x 3 mm neodymium disc (N42), in the wand's tip"


def square_name(i: int) -> str:
    return f"{FILES[i % SIZE]}{i // SIZE + 1}"


def parse_square(text: str) -> int:
    """The index of a square named a1..h8 (any case). Raises InvalidNotation."""
    low = text.strip().lower()
    if len(low) == 2 and low[0] in FILES and low[1] in "12345678":
        return FILES.index(low[0]) + SIZE * (int(low[1]) - 1)
    raise InvalidNotation(text, Reason("a square is a file a..h and a rank 1..8, such as e4"))


@functools.lru_cache(maxsize=None)  # pure: 64 squares x the steps of the kinds; in every turn
def _at(i: int, dx: int, dy: int) -> int | None:
    x, y = i % SIZE + dx, i // SIZE + dy
    return x + SIZE * y if 0 <= x < SIZE and 0 <= y < SIZE else None


def _unit(dx: int, dy: int) -> tuple[int, int]:
    return ((dx > 0) - (dx < 0), (dy > 0) - (dy < 0))


@functools.lru_cache(maxsize=None)  # pure, and at most a few hundred different steps
def _direction(dx: int, dy: int) -> tuple[int, int]:
    """Which way a growth goes (reading 10): a line's unit step, or a knight's whole leap."""
    if dx and dy and abs(dx) != abs(dy):
        return (dx, dy)
    return _unit(dx, dy)


@functools.lru_cache(maxsize=None)  # pure; 64 squares x 64 steps at most
def _path(src: int, dx: int, dy: int) -> tuple[int, ...]:
    """The squares a growth passes before its target (none for a single step or a leap)."""
    n = max(abs(dx), abs(dy))
    if n <= 1 or abs(dx) not in (0, n) or abs(dy) not in (0, n):
        return ()
    ux, uy = _unit(dx, dy)
    return tuple(src + ux * k + SIZE * uy * k for k in range(1, n))


def _is_step(cell: Cell, dx: int, dy: int) -> bool:
    """Can the piece in `cell` grow by (dx, dy) at all, geometry only?"""
    if cell[0] != TREE:
        return max(abs(dx), abs(dy)) == 1
    kind = cell[3]
    if kind == "A":
        return (dx, dy) in _KNIGHT
    if not (dx or dy):
        return False
    straight = dx == 0 or dy == 0
    diagonal = abs(dx) == abs(dy)
    return {"B": straight, "E": diagonal, "P": straight or diagonal}[kind]


@functools.lru_cache(maxsize=None)  # pure: 5 kinds of growth x 64 squares
def _steps_of(kind: str, src: int) -> tuple[tuple[int, int, int, tuple[int, ...]], ...]:
    """Every (dst, dx, dy, path) a tree of `kind` ("": grass or underbrush) on `src` reaches
    by geometry."""
    out = []
    if kind in ("", "A"):
        for dx, dy in (_KNIGHT if kind else _KING):
            dst = _at(src, dx, dy)
            if dst is not None:
                out.append((dst, dx, dy, ()))
        return tuple(out)
    for ux, uy in _TREE_STEPS[kind]:
        for n in range(1, SIZE):
            dst = _at(src, ux * n, uy * n)
            if dst is None:
                break
            out.append((dst, ux * n, uy * n, _path(src, ux * n, uy * n)))
    return tuple(out)


@functools.lru_cache(maxsize=None)  # pure: 4 kinds of tree x 64 squares
def _rays_of(kind: str, src: int) -> tuple[tuple[tuple[int, int, int, tuple[int, ...]], ...], ...]:
    """`_steps_of(kind, src)` cut into rays: one per direction, nearest square first (an Ash's
    leaps are rays of one). Same steps, same order."""
    rays: list[list] = []
    for step in _steps_of(kind, src):
        dst, dx, dy, path = step
        if rays and kind != "A" and _direction(dx, dy) == _direction(rays[-1][0][1],
                                                                     rays[-1][0][2]):
            rays[-1].append(step)
        else:
            rays.append([step])
    return tuple(tuple(r) for r in rays)


@functools.lru_cache(maxsize=None)  # pure: 4 kinds of tree x 64 squares
def _links(kind: str, sq: int) -> tuple[int, ...]:
    """The squares a tree square of `kind` on `sq` links to (reading 5): one of its steps."""
    return tuple(n for dx, dy in _TREE_STEPS[kind] if (n := _at(sq, dx, dy)) is not None)


#: The squares around each square (`_steps_of("", src)`'s targets, in its order).
_NEAR: tuple[tuple[int, ...], ...] = tuple(tuple(step[0] for step in _steps_of("", src))
                                           for src in range(SIZE * SIZE))


@functools.lru_cache(maxsize=None)  # pure: 4 kinds of tree x 64 squares
def _ray_squares(kind: str, src: int) -> tuple[tuple[tuple[int, int], tuple[int, ...]], ...]:
    """`_rays_of(kind, src)` as (direction, its squares nearest first): a square's path is
    the squares before it on its ray."""
    return tuple((_direction(ray[0][1], ray[0][2]), tuple(step[0] for step in ray))
                 for ray in _rays_of(kind, src))


def _underbrush(cell: Cell) -> bool:
    return cell[0] == UNDER or cell[0] == HUCK


def _letter(cell: Cell) -> str:
    return cell[3] if cell[0] == TREE else "H" if cell[0] == HUCK else ""


# --- moves ------------------------------------------------------------------------------------

GROW, LEAP, STOP, RETREAT = "grow", "leap", "stop", "retreat"


class Move(NamedTuple):
    """One turn: an action and, when it is not the default, the order of the turn's growths.

    `order` is None (the default order and takers) or a tuple of (src, dst, mark) items, mark
    ">" a growth, "x" the growth that takes a killed square, "^" the leap."""

    action: str
    src: int
    dst: int = -1
    letter: str = ""
    order: tuple | None = None

    def __str__(self) -> str:
        # One word, no spaces: `treeboard replay` reads moves as whitespace-separated words.
        if self.action == GROW:
            text = f"{self.letter}{square_name(self.src)}-{square_name(self.dst)}"
        elif self.action == LEAP:
            text = f"H{square_name(self.src)}^{square_name(self.dst)}"
        elif self.action == STOP:
            text = f"stop:{square_name(self.src)}>{square_name(self.dst)}"
        else:
            text = f"retreat:{square_name(self.src)}"
        if self.order is not None:
            text += "/" + ",".join(f"{square_name(a)}{m}{square_name(b)}"
                                   for a, b, m in self.order)
        return text


_SQ = r"([a-h][1-8])"
_GROW_RE = re.compile(rf"^([baepguh]?)\s*{_SQ}\s*-\s*{_SQ}$")
_LEAP_RE = re.compile(rf"^h\s*{_SQ}?\s*\^\s*{_SQ}$")
_STOP_RE = re.compile(rf"^stop\s*[:\s]\s*{_SQ}\s*>\s*{_SQ}$")
_RETREAT_RE = re.compile(rf"^retreat\s*[:\s]\s*{_SQ}$")
_ITEM_RE = re.compile(rf"^{_SQ}([>x^]){_SQ}$")
_HELP = Reason("a turn is a growth such as a2-a3 or Ab1-d2, a leap He1^c3, stop:d2>f3, or "
               "retreat:d5, optionally followed by an order such as /g2>f3,d2>f3")


def _parse_text(text: str) -> tuple[str, int, int, str, tuple | None]:
    """(action, src, dst, letter as written, order) from a move's text; letters are checked
    against the position by the state."""
    if not isinstance(text, str):
        raise InvalidNotation(text, _HELP)
    low = " ".join(text.strip().lower().split())
    head, sep, tail = low.partition("/")
    head = head.strip()
    order = None
    if sep:
        items = []
        for word in tail.replace(",", " ").split():
            m = _ITEM_RE.match(word)
            if not m:
                raise InvalidNotation(text, Reason("{word} is no growth of an order; write "
                                                   "from>to, fromxto for the taker, or from^to", word=repr(word)))
            items.append((parse_square(m.group(1)), parse_square(m.group(3)), m.group(2)))
        if not items:
            raise InvalidNotation(text, Reason("an order after '/' lists the turn's growths"))
        order = tuple(items)
    if m := _GROW_RE.match(head):
        return GROW, parse_square(m.group(2)), parse_square(m.group(3)), m.group(1).upper(), order
    if m := _LEAP_RE.match(head):
        src = parse_square(m.group(1)) if m.group(1) else -1
        return LEAP, src, parse_square(m.group(2)), "H", order
    if m := _STOP_RE.match(head):
        return STOP, parse_square(m.group(1)), parse_square(m.group(2)), "", order
    if m := _RETREAT_RE.match(head):
        return RETREAT, parse_square(m.group(1)), -1, "", order
    raise InvalidNotation(text, _HELP)


# --- one turn ---------------------------------------------------------------------------------

class _Fail(TreeboardError):
    """A turn that cannot be played as given; the message is a sentence for the player."""


class _Item(NamedTuple):
    """A growth of this turn: a chain's continuation (chain >= 0, its index), the new growth
    (chain == -1) or the leap (chain == -2). `cell` is the piece that grows: if its square
    holds anything else when the growth's turn comes, the piece is no longer there."""

    src: int
    dst: int
    dx: int
    dy: int
    chain: int
    cell: Cell

    @property
    def mark(self) -> str:
        return "^" if self.chain == -2 else ">"

    @property
    def key(self) -> tuple[int, int, str]:
        # A turn's growths are told apart by from, to and mark: the leap and a Huckleberry
        # chain may go from one square to the same square (two growths, one key without it).
        return (self.src, self.dst, self.mark)

    def touches(self) -> set[int]:
        # What the growth reads: its source, the squares it passes, its target.
        return {self.src, self.dst, *_path(self.src, self.dx, self.dy)}

    def writes(self) -> set[int]:
        # What it may change: its target and the squares it passes (and with a square, the
        # chains growing from it: those growths read their source). Its source only reads.
        return {self.dst, *_path(self.src, self.dx, self.dy)}


class _Turn:
    """The working copy of one turn. `grow` runs the growths, `finish` the attacks."""

    __slots__ = ("board", "chains", "leap", "counts", "mover", "pending", "new_ok")

    def __init__(self, board, chains, leap, counts, mover):
        self.board = list(board)
        self.chains: list = list(chains)   # None marks a chain that ended this turn
        self.leap = list(leap)
        # The position's `_counts`, kept by `_set`, and a last slot that counts nobody's
        # squares (an owner of -1 indexes it).
        self.counts = [*counts, 0]
        self.mover = mover
        self.pending: list[tuple[int, _Item, int]] = []   # (target, item, attacking root)
        self.new_ok = False

    def copy(self) -> "_Turn":
        new = _Turn.__new__(_Turn)
        new.board, new.chains, new.leap = self.board[:], self.chains[:], self.leap[:]
        new.counts, new.mover = self.counts[:], self.mover
        new.pending, new.new_ok = self.pending[:], self.new_ok
        return new

    def key(self) -> tuple:
        # The attacks are resolved together at the end, in board order (reading 12), so the
        # order they were made in changes nothing: orders that differ only in it are one.
        return (tuple(self.board), tuple(self.chains),
                tuple(sorted((t, it.key, r) for t, it, r in self.pending)), self.new_ok)

    def _set(self, sq: int, cell: Cell) -> None:
        # A square that changes ends every chain growing from it (reading 9).
        board, counts = self.board, self.counts
        old = board[sq]
        board[sq] = cell
        if old[1] != cell[1]:
            counts[old[1]] -= 1
            counts[cell[1]] += 1
        if old[0] == HUCK:
            counts[2 + old[1]] -= 1
        if cell[0] == HUCK:
            counts[2 + cell[1]] += 1
        chains = self.chains
        for i, ch in enumerate(chains):
            if ch is not None and ch[0] == sq:
                chains[i] = None

    def _add_chain(self, index: int, dst: int, dx: int, dy: int) -> None:
        # A chain whose next step leaves the board has stopped already (reading 8).
        chain = (dst, dx, dy) if _at(dst, dx, dy) is not None else None
        if index >= 0:
            self.chains[index] = chain
        elif chain is not None:
            self.chains.append(chain)

    # -- the action's immediate part

    def stop(self, src: int, dst: int) -> None:
        for i, ch in enumerate(self.chains):
            if ch is not None and ch[0] == src and _at(src, ch[1], ch[2]) == dst \
                    and self.board[src][1] == self.mover:
                self.chains[i] = None
                return
        raise _Fail(Reason("you have no chain growing from {site} to {target}", site=square_name(src), target=square_name(dst)))

    def retreat(self, sq: int) -> None:
        cell = self.board[sq]
        t, owner = cell[0], cell[1]
        if owner != self.mover:
            raise _Fail(Reason("{site} is not yours", site=square_name(sq)))
        if t == GRASS:
            self._set(sq, EMPTY)
        elif t == UNDER:
            self._set(sq, (GRASS, owner, -1, ""))
        elif t == HUCK:
            if self.counts[2 + owner] == 1:
                raise _Fail(Reason("your last Huckleberry square cannot retreat (reading 13)"))
            self._set(sq, (GRASS, owner, -1, ""))
        else:
            if cell[2] == sq:
                raise _Fail(Reason("{site} is the root of the {kind}: "
                                   "a root cannot retreat (reading 13)", site=square_name(sq), kind=KIND_NAMES[cell[3]]))
            self._leave(sq, cell, killed=False)
            self._prune(cell, killed=False)

    def _leave(self, sq: int, cell: Cell, killed: bool) -> None:
        # What a tree square leaves behind: bare ground for a Pine, else underbrush, neutral
        # when killed and the owner's on a voluntary retreat.
        if cell[3] == "P":
            self._set(sq, EMPTY)
        else:
            self._set(sq, NEUTRAL if killed else (UNDER, cell[1], -1, ""))

    def _prune(self, tree: Cell, killed: bool) -> None:
        """Remove the squares of `tree` no longer linked to its root (all of them when the
        root itself is gone)."""
        root = tree[2]
        board = self.board
        mine = {i for i, c in enumerate(board) if c[0] == TREE and c[2] == root}
        alive = set()
        if root in mine:
            alive.add(root)
            todo = [root]
            kind = tree[3]
            while todo:
                for n in _links(kind, todo.pop()):
                    if n in mine and n not in alive:
                        alive.add(n)
                        todo.append(n)
        for sq in sorted(mine - alive):
            self._leave(sq, board[sq], killed)

    # -- the growths

    def grow(self, item: _Item) -> None:
        """Run one growth in its place in the order. A chain that cannot grow stops; the new
        growth or leap that cannot raises _Fail."""
        board, mover = self.board, self.mover
        new = item.chain < 0
        if item.chain >= 0:
            if self.chains[item.chain] is None:
                return  # its square changed earlier this turn: the chain is gone
            self.chains[item.chain] = None  # re-added below if it grows
        src, dst = item.src, item.dst
        cell, target = board[src], board[dst]
        if cell is not item.cell and cell != item.cell:
            if new:
                raise _Fail(Reason("{site} was grown over earlier in this turn's order", site=square_name(src)))
            return
        if item.chain == -2:
            if cell[0] != HUCK or cell[1] != mover:
                raise _Fail(Reason("{site} is not one of your Huckleberry squares", site=square_name(src)))
            if target[0] != GRASS or target[1] != mover:
                raise _Fail(Reason("the Huckleberry leaps only onto your own grass; "
                                   "{site} is {what}", site=square_name(dst), what=_describe(target)))
            self._set(dst, (HUCK, mover, -1, ""))
            self.leap[mover] = True
            self.new_ok = True
            return
        if cell[1] != mover or cell[0] == BARE:
            if new:
                raise _Fail(Reason("{site} holds {what}, nothing of yours "
                                   "to grow", site=square_name(src), what=_describe(cell)))
            return
        t = cell[0]
        if t == GRASS:
            ok = target[0] == BARE
        elif t == UNDER or t == HUCK:
            ok = target[0] == GRASS
        else:
            path = _path(src, item.dx, item.dy)
            for q in path:
                if board[q][0] != UNDER and board[q][0] != HUCK:
                    if new:
                        raise _Fail(Reason("{site} is {what}: "
                                           "a tree grows only through underbrush", site=square_name(q), what=_describe(board[q])))
                    return
            if target[0] == TREE:
                if target[2] == cell[2]:
                    if new:
                        raise _Fail(Reason("{site} is already this tree's", site=square_name(dst)))
                    return
                # An attack: decided with the turn's other attacks at the end (reading 12).
                self.pending.append((dst, item, cell[2]))
                return
            ok = _underbrush(target)
            if ok:
                for q in path:
                    self._set(q, cell)
        if not ok:
            if new:  # (the sentence made only here: most growths succeed, a playout's many)
                need = (Reason("grass grows only onto bare ground") if t == GRASS else
                        Reason("underbrush grows only onto grass") if t != TREE else
                        Reason("trees grow only onto underbrush"))
                raise _Fail(Reason("{need}; {site} is {what}", need=need, site=square_name(dst), what=_describe(target)))
            return
        self._set(dst, cell)  # the grown square is the piece's: its terrain, owner, tree
        self._add_chain(item.chain, dst, item.dx, item.dy)
        if new:
            self.new_ok = True

    # -- the attacks

    def attacked(self) -> list[int]:
        return sorted({p[0] for p in self.pending})

    def valid_attackers(self, target: int) -> list[tuple[_Item, int]]:
        """The attacks on `target` that still count: the attacker still holds its source and
        its path is still underbrush, and the square is still a square of another tree."""
        board = self.board
        victim = board[target]
        if victim[0] != TREE:
            return []
        out = []
        for t, item, root in self.pending:
            if t != target or root == victim[2]:
                continue
            src = board[item.src]
            if src[0] == TREE and src[2] == root and all(
                    _underbrush(board[q]) for q in _path(item.src, item.dx, item.dy)):
                out.append((item, root))
        return out

    def kill(self, target: int, taker: _Item, root: int, attackers: list) -> None:
        """Two or more trees killed `target`: the taker takes it (and its path)."""
        board = self.board
        victim = board[target]
        grower = board[taker.src]
        for q in _path(taker.src, taker.dx, taker.dy):
            self._set(q, grower)
        self._set(target, grower)
        self._prune(victim, killed=True)
        self._add_chain(taker.chain, target, taker.dx, taker.dy)
        if any(item.chain < 0 for item, _ in attackers):
            self.new_ok = True

    def result(self) -> tuple:
        return (tuple(self.board), tuple(filter(None, self.chains)),  # (None: an ended one)
                tuple(self.leap), tuple(self.counts[:4]))


def _describe(cell: Cell) -> str:
    t, owner = cell[0], cell[1]
    if t == BARE:
        return Reason("bare ground")
    if t == TREE:
        return Reason("a {player} {kind}", player=PLAYERS[owner], kind=KIND_NAMES[cell[3]])
    if owner < 0:
        return Reason("neutral {terrain}", terrain=TERRAIN_NAMES[t])
    return Reason("{player} {terrain}", player=PLAYERS[owner], terrain=TERRAIN_NAMES[t])


# --- the state --------------------------------------------------------------------------------

class GameForTheTreesState(State):
    __slots__ = ("game", "_opts", "_board", "_chains", "_leap", "_counts", "_to_move", "_turns",
                 "_end", "_winner", "_history", "_results")

    def __init__(self, game: "GameForTheTrees", opts: dict, board: tuple, chains: tuple,
                 to_move: int):
        self.game = game
        self._opts = opts
        self._board: tuple = board
        self._chains: tuple = chains
        self._leap: tuple = (False, False)
        owners = list(map(_OWNER, board))
        #: (White's squares, Black's, White's Huckleberry squares, Black's): the scores and
        #: the end, kept by each turn's `_Turn._set` instead of counted after every turn.
        self._counts: tuple = (owners.count(0), owners.count(1),
                               board.count(_HUCKS[0]), board.count(_HUCKS[1]))
        self._to_move = to_move
        self._turns = 0
        self._end: str | None = None
        self._winner: int | None = None
        self._history: list[tuple[Move, tuple]] = []
        self._results: tuple | None = None  # the last legal_moves' results (see there)
        self._check_end(None)

    # --- the game interface -------------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self._to_move

    def legal_moves(self) -> list[Move]:
        """Growths and leaps, then stops, then retreats, each once per different result
        (reading 18); in square order within each."""
        if self._end:
            return []
        out: list[Move] = []
        cache: dict = {}
        results: dict = {}
        chain_items = self._chain_items()
        for action, src, dst in self._actions():
            out.extend(self._turns_of(action, src, dst, cache, results, chain_items))
        # Each turn's result, for `play` to reuse while the position is this one (the
        # position's tuples themselves, which only a play or an undo replaces): the search
        # plays every legal move once right after listing them (its greedy prior).
        self._results = (self._board, self._chains, self._leap, self._to_move, results)
        return out

    def play(self, move: Any) -> None:
        if type(move) is not Move:
            move = self.parse_move(move)
        if self._end:
            raise IllegalMove(move, Reason("the game is over"))
        result = self._known(move)
        if result is None:
            try:
                result = self._run(move).result()
            except _Fail as exc:
                raise IllegalMove(move, exc.args[0]) from None
        self._push(move, result)

    def _known(self, move: Move) -> tuple | None:
        """The result of `move` if the last `legal_moves` was of this position and found it."""
        known = self._results
        if (known is not None and known[0] is self._board and known[1] is self._chains
                and known[2] is self._leap and known[3] == self._to_move):
            return known[4].get(move)  # a turn legal_moves found: its result, not rerun
        return None

    def _push(self, move: Move, result: tuple) -> None:
        """Make `result` (board, chains, leap, counts) of `move` the position."""
        self._history.append((move, self._snapshot()))
        self._board, self._chains, self._leap, self._counts = result
        self._turns += 1
        mover = self._to_move
        self._to_move = 1 - mover
        self._check_end(mover)

    def playout(self, rng: Any = random, cap: int | None = None) -> tuple[int, int]:
        """Finish the game with random turns (or stop after `cap` of them) and return the
        scores; every turn is recorded, so `undo` takes them back. Much faster than choosing
        among `legal_moves()` (which tries every order of every action): it picks a random
        candidate action and plays it in the default order, and only when no candidate works
        that way asks legal_moves.
        Not the same distribution as a uniform choice among distinct turns: a random game
        for search, which is what it is for."""
        randrange = rng.randrange
        left = -1 if cap is None else cap
        while not self._end and left:
            left -= 1
            actions = self._actions()  # (a new list: drawn from below)
            chain_items = self._chain_items()
            # Candidates in a random order, drawn one at a time (as a shuffle, but the first
            # draw usually plays: no need to order them all).
            while actions:
                k = randrange(len(actions))
                action, src, dst = actions[k]
                actions[k] = actions[-1]
                actions.pop()
                letter = _letter(self._board[src]) if action == GROW else \
                    "H" if action == LEAP else ""
                if self._hopeless(action, src, dst, chain_items):
                    continue  # (what `_run` would find, at once)
                move = Move(action, src, dst, letter)
                result = self._known(move)
                if result is None:
                    try:  # (as `play` would, without its checks: `_actions` made the move)
                        result = self._run(move, chain_items).result()
                    except _Fail:
                        continue
                self._push(move, result)
                break
            else:
                self.play(rng.choice(self.legal_moves()))
        return self.scores()

    def undo(self) -> Move:
        if not self._history:
            raise IndexError("no move to undo")
        move, snap = self._history.pop()
        (self._board, self._chains, self._leap, self._counts, self._to_move, self._turns,
         self._end, self._winner) = snap
        return move

    def copy(self) -> "GameForTheTreesState":
        new = GameForTheTreesState.__new__(GameForTheTreesState)
        new.game, new._opts = self.game, self._opts
        (new._board, new._chains, new._leap, new._counts, new._to_move, new._turns, new._end,
         new._winner) = self._snapshot()
        new._history = self._history[:]
        new._results = None
        return new

    def is_over(self) -> bool:
        return self._end is not None

    def scores(self) -> tuple[int, int]:
        """Squares each player holds (of any terrain)."""
        return self._counts[0], self._counts[1]

    def winner(self) -> int | None:
        return self._winner if self._end else None

    def occupancy(self) -> dict[str, str]:
        """Empty: the board holds no pieces; the position lives on the LEDs (touch input)."""
        return {}

    def sites(self) -> list[str]:
        return [square_name(i) for i in range(SIZE * SIZE)]

    def plan(self) -> Plan:
        """The 8x8 squares (SQUARE_MM), LEDs at their centres; a magnet wand for each player."""
        wand = f"{WAND_MM[0]:g} mm dowel, {WAND_MM[1]:g} mm long"
        pieces = (Piece("magnet wand", 2, wand, WAND_MAGNET, (WAND_MM[0], WAND_MM[0]), round=True,
                        note="one for each player: a touch is the wand's tip on a square"),)
        return grid_plan(chess_rows(FILES, SIZE), SQUARE_MM, led=(0.0, 0.0),
                         sensor=(0.0, SENSOR_BELOW_MM), pieces=pieces, dimensions=(
                             (f"squares {SQUARE_MM:g} mm", "ours"), (f"wands: {wand}", "ours"),
                             ("8x8 squares; the pieces are on the LEDs, touched", "the rules")))

    def parse_move(self, text: str) -> Move:
        if type(text) is Move:
            return text
        action, src, dst, letter, order = _parse_text(text)
        board = self._board
        if action == GROW:
            have = _letter(board[src])
            if letter in ("G", "U"):
                if board[src][0] not in (GRASS, UNDER):
                    raise InvalidNotation(text, Reason("{site} holds "
                                                       "{what}, not grass or underbrush", site=square_name(src), what=_describe(board[src])))
                letter = ""
            elif letter and letter != have:
                raise InvalidNotation(text, Reason("{site} holds {what}, "
                                                   "not {piece}", site=square_name(src), what=_describe(board[src]), piece=_letter_name(letter)))
            letter = have
        elif action == LEAP and src < 0:
            # Left out, the leap's square is the one its order names, else the first.
            named = [a for a, _, m in order or () if m == "^"]
            hucks = [i for i, c in enumerate(board) if c[0] == HUCK and c[1] == self._to_move]
            src = named[0] if named else hucks[0] if hucks else dst
        return Move(action, src, dst, letter, order)

    @property
    def moves(self) -> list[Move]:
        return [m for m, _ in self._history]

    def options(self) -> dict[str, Any]:
        return dict(self._opts)

    # --- Game for the Trees' own questions (the views and the touch input use these) -----

    def square(self, name: str | int) -> dict[str, Any]:
        """What a square holds: terrain, owner (None: nobody), tree kind, its root, is_root."""
        i = parse_square(name) if isinstance(name, str) else name
        t, owner, root, kind = self._board[i]
        return {"terrain": TERRAIN_NAMES[t], "owner": owner if owner >= 0 else None,
                "kind": KIND_NAMES.get(kind), "root": square_name(root) if root >= 0 else None,
                "is_root": t == TREE and root == i}

    def chains(self, player: int) -> list[str]:
        """The player's chains, oldest first, as "from>to"."""
        return [f"{square_name(s)}>{square_name(_at(s, dx, dy))}"
                for s, dx, dy in self._chains if self._board[s][1] == player]

    def leap_used(self, player: int) -> bool:
        return self._leap[player]

    def huckleberry_count(self, player: int) -> int:
        return self._counts[2 + player]

    @property
    def end_reason(self) -> str | None:
        """None while playing; "huckleberry", "mutual", "stalemate" or "limit"."""
        return self._end

    def moves_from(self, name: str | int) -> list[Move]:
        """The legal turns that start on this square: its growths and leap, the stops of its
        chains, its retreat (in that order)."""
        i = parse_square(name) if isinstance(name, str) else name
        if self._end:
            return []
        out: list[Move] = []
        cache: dict = {}
        chain_items = self._chain_items()
        for action, src, dst in self._actions(only=i):
            out.extend(self._turns_of(action, src, dst, cache, None, chain_items))
        return out

    def touch_moves(self, site: str) -> list[tuple[Move, str | None]]:
        """For the touch input (board_driver/referee/touch.py): each turn that starts by tapping
        `site`, with the square to tap next (its target; a stop: the chain's next square),
        or None for a retreat, made by holding the square."""
        return [(m, None if m.action == RETREAT else square_name(m.dst))
                for m in self.moves_from(site)]

    def touch_stops(self, move: Move) -> bool:
        """A stop ends a chain's growth: the board lights its square as a warning."""
        return move.action == STOP

    # --- helpers ------------------------------------------------------------------------

    def _snapshot(self) -> tuple:
        return (self._board, self._chains, self._leap, self._counts, self._to_move, self._turns,
                self._end, self._winner)

    def _actions(self, only: int | None = None) -> list[tuple[str, int, int]]:
        """Candidate actions: every growth the geometry allows whose squares are suitable now
        or touched by one of the mover's chains (an earlier growth could prepare them), the
        leap, every stop, every retreat. A list, built at once: every turn of a playout lists
        them all to draw one (a generator's resumption per candidate cost a tenth of the
        search)."""
        out: list[tuple[str, int, int]] = []
        add = out.append
        board, mover, chains = self._board, self._to_move, self._chains
        # The mover's squares, found once (a playout's turn lists its candidates by them:
        # the growths, the leap and the retreats; the other squares have none).
        if only is None:
            mine = [sq for sq, cell in enumerate(board) if cell[1] == mover]
        else:
            mine = [only] if board[only][1] == mover else []
        ours = [ch for ch in chains if board[ch[0]][1] == mover]
        chain_sq: set[int] = set()
        growing: set[tuple[int, int, int]] = set()
        sources: set[int] = set()   # (squares with a chain: only their growths are checked)
        for s, dx, dy in ours:
            growing.add((s, *_direction(dx, dy)))
            sources.add(s)
            chain_sq |= {s, _at(s, dx, dy), *_path(s, dx, dy)}
        # What `_suitable` says, walked ray by ray: this is the engine's hottest loop (every
        # turn of a playout lists its candidates), and a ray blocked by a square that is not
        # underbrush ends there unless a chain could clear it first. (A square of the mover's
        # is never bare: bare ground is nobody's.)
        retreats = []
        for src in mine:
            cell = board[src]
            t = cell[0]
            if t != TREE:
                retreats.append((RETREAT, src, -1))
                want = BARE if t == GRASS else GRASS
                if src in sources:  # (a chain from here: not its own direction again)
                    for dst, dx, dy, _ in _steps_of("", src):
                        if (src, dx, dy) not in growing and (board[dst][0] == want
                                                             or dst in chain_sq):
                            add((GROW, src, dst))
                elif chain_sq:
                    out += [(GROW, src, dst) for dst in _NEAR[src]
                            if board[dst][0] == want or dst in chain_sq]
                else:
                    out += [(GROW, src, dst) for dst in _NEAR[src] if board[dst][0] == want]
                continue
            root = cell[2]
            if root != src:
                retreats.append((RETREAT, src, -1))
            chained = src in sources
            for (ux, uy), ray in _ray_squares(cell[3], src):
                if chained and (src, ux, uy) in growing:
                    continue
                if not chain_sq:
                    for dst in ray:  # underbrush, then at most one square of another tree
                        target = board[dst]
                        kind = target[0]
                        if kind == UNDER or kind == HUCK:
                            add((GROW, src, dst))
                            continue
                        if kind == TREE and target[2] != root:
                            add((GROW, src, dst))
                        break
                    continue
                # With chains: also every square a chain touches, or beyond one on the ray
                # (`crossed`: a chain's square lies on its path).
                clear, crossed = True, False
                for dst in ray:
                    if crossed:
                        add((GROW, src, dst))
                        continue
                    target = board[dst]
                    kind = target[0]
                    if dst in chain_sq:
                        crossed = True
                        add((GROW, src, dst))
                    elif clear and (kind == UNDER or kind == HUCK or
                                    kind == TREE and target[2] != root):
                        add((GROW, src, dst))
                    if kind != UNDER and kind != HUCK:
                        clear = False
        if not self._leap[mover]:
            hucks = [sq for sq in mine if board[sq][0] == HUCK]
            if hucks and (only is None or only in hucks):
                src = hucks[0] if only is None else only
                # The mover's grass (its squares) and the chains' squares, in board order.
                grass = {sq for sq in (mine if only is None else range(64))
                         if board[sq][0] == GRASS and board[sq][1] == mover}
                for dst in sorted(grass | chain_sq):
                    add((LEAP, src, dst))
        for s, dx, dy in ours:
            if only is None or s == only:
                add((STOP, s, _at(s, dx, dy)))
        out += retreats  # (every square but a root)
        return out

    def _chain_items(self) -> list[tuple[int, _Item]]:
        """The growths of the mover's chains (index, item), oldest first: every turn's."""
        board, mover = self._board, self._to_move
        return [(i, _Item(s, _at(s, dx, dy), dx, dy, i, board[s]))
                for i, (s, dx, dy) in enumerate(self._chains) if board[s][1] == mover]

    def _start(self, action: str, src: int, dst: int,
               chain_items: list[tuple[int, _Item]] | None = None) -> tuple[_Turn, list[_Item]]:
        """The turn after its action's immediate part, and its growths in the default order
        (the new growth or leap first, then the chains oldest first). `chain_items`: the
        position's `_chain_items()`, given for an action `_actions` listed (whose growth's
        geometry it checked already), found once for all of them."""
        turn = _Turn(self._board, self._chains, self._leap, self._counts, self._to_move)
        items: list[_Item] = []
        if action == STOP:
            turn.stop(src, dst)
        elif action == RETREAT:
            turn.retreat(src)
        elif action == GROW and chain_items is not None:
            cell = self._board[src]
            items.append(_Item(src, dst, dst % SIZE - src % SIZE, dst // SIZE - src // SIZE,
                               -1, cell))
        elif action == GROW:
            cell = self._board[src]
            dx, dy = dst % SIZE - src % SIZE, dst // SIZE - src // SIZE
            if cell[1] != self._to_move or cell[0] == BARE:
                raise _Fail(Reason("{site} holds {what}, nothing of yours "
                                   "to grow", site=square_name(src), what=_describe(cell)))
            if not _is_step(cell, dx, dy):
                raise _Fail(Reason("{what} cannot grow from {site} to "
                                   "{target}: {how}", what=_describe(cell), site=square_name(src), target=square_name(dst), how=_how(cell)))
            for s, cdx, cdy in self._chains:
                if s == src and _direction(cdx, cdy) == _direction(dx, dy):
                    raise _Fail(Reason("{site} is already growing that way "
                                       "(towards {target})", site=square_name(src), target=square_name(_at(s, cdx, cdy))))
            items.append(_Item(src, dst, dx, dy, -1, cell))
        elif action == LEAP:
            if self._leap[self._to_move]:
                raise _Fail(Reason("the Huckleberry has leapt already: once per game"))
            items.append(_Item(src, dst, 0, 0, -2, self._board[src]))
        # (the immediate part only ends chains: a stopped one, those of a square given up)
        chains = turn.chains
        items += [it for i, it in (self._chain_items() if chain_items is None else chain_items)
                  if chains[i] is not None]
        return turn, items

    def _hopeless(self, action: str, src: int, dst: int,
                  chain_items: list[tuple[int, _Item]]) -> bool:
        """Is the candidate action (of `_actions`) no turn, whatever its order, as running
        the turn would find (often at its end)? `_actions` lists every square a chain's
        growth could prepare, and every square of another tree a tree reaches, most of which
        no turn takes. A turn's growths only raise a square's terrain (`_inert`); a tree
        needs underbrush, or a second tree attacking the square (reading 11); a square that
        is not underbrush changes only by a growth onto it. And the last Huckleberry square
        cannot retreat (reading 13)."""
        board = self._board
        if action != GROW:
            return (action == RETREAT and board[src][0] == HUCK
                    and self._counts[2 + self._to_move] == 1)
        cell, target = board[src], board[dst]
        kind = target[0]
        if cell[0] != TREE:  # grass needs bare ground, underbrush grass
            return kind != BARE if cell[0] == GRASS else kind != BARE and kind != GRASS
        if kind == TREE and target[2] == cell[2]:
            return True  # its own tree's square
        # A square on its way that is not underbrush, and that no chain grows onto, stays so.
        for q in _path(src, dst % SIZE - src % SIZE, dst // SIZE - src // SIZE):
            if board[q][0] != UNDER and board[q][0] != HUCK and not any(
                    it.dst == q for _, it in chain_items):
                return True
        if kind == UNDER or kind == HUCK:
            return False
        # Bare ground, grass, another tree's square: only a chain's growth onto it can make
        # it underbrush or attack it too.
        return not any(it.dst == dst and (kind != TREE or it.cell[0] == TREE)
                       for _, it in chain_items)

    def _run(self, move: Move, chain_items: list[tuple[int, _Item]] | None = None) -> _Turn:
        """Play `move` on a working copy and return it; raises _Fail. `chain_items`: as
        `_start`'s (for a move of an action `_actions` listed)."""
        turn, items = self._start(move.action, move.src, move.dst, chain_items)
        takers: dict[tuple[int, int, str], bool] = {}
        if move.order is not None:
            by_key = {it.key: it for it in items}
            given = [(a, b, "^" if m == "^" else ">") for a, b, m in move.order]
            if sorted(given) != sorted(by_key) or len(set(given)) != len(given):
                want = " ".join(f"{square_name(it.src)}{it.mark}{square_name(it.dst)}"
                                for it in items)
                raise _Fail(Reason("the order must list each growth of this turn once: {want}", want=want))
            items = [by_key[k] for k in given]
            takers = {(a, b, "^" if m == "^" else ">"): m == "x" for a, b, m in move.order}
        for item in items:
            turn.grow(item)
        turn, chosen = next(_resolutions(turn, takers if move.order is not None else None))
        for key, mark in takers.items():
            if mark and key not in chosen:
                raise _Fail(Reason("{site}x{target} takes no square: "
                                   "x marks the attacker that takes a square two trees killed", site=square_name(key[0]), target=square_name(key[1])))
        if move.action in (GROW, LEAP) and not turn.new_ok:
            raise _Fail(Reason("a new growth onto a tree square needs a second tree attacking it "
                               "this turn (reading 11)"))
        return turn

    def _turns_of(self, action: str, src: int, dst: int, cache: dict | None = None,
                  results: dict | None = None,
                  chain_items: list[tuple[int, _Item]] | None = None) -> list[Move]:
        """The distinct turns of one action of `_actions`: the default order first, then
        every order and choice of takers that gives a different result (reading 18). `cache`
        keeps what the position's actions share: each group's different orders (the chains'
        own groups are the same for every action whose growth does not touch them), and
        whether the chains' growths commute. `results` gets each turn's result
        (`_Turn.result`), for `play`; `chain_items`: the position's `_chain_items()`, found
        once for all its actions."""
        if chain_items is None:
            chain_items = self._chain_items()
        if self._hopeless(action, src, dst, chain_items):
            return []
        try:
            turn0, items = self._start(action, src, dst, chain_items)
        except _Fail:
            return []
        letter = _letter(self._board[src]) if action == GROW else "H" if action == LEAP else ""
        # Growths that touch a common square can give different results in different orders;
        # the others commute. Group them, and find each group's different orders.
        if len(items) < 2 or (action != RETREAT and cache is not None
                              and _commute(action, items, chain_items, self._board, cache)):
            groups = None  # (each growth its own group, found without grouping them)
        else:
            groups = _groups(items, turn0.board)
        if groups is None or len(groups) == len(items):
            # Every growth commutes with every other (most turns): one order, the default.
            try:
                for item in items:
                    turn0.grow(item)
            except _Fail:
                return []
            if turn0.pending:  # attacks: a result per choice of takers
                return self._turns_in(action, src, dst, letter, turn0, items, [items], results,
                                      grown=True)
            if action in (GROW, LEAP) and not turn0.new_ok:
                return []
            move = Move(action, src, dst, letter, None)  # (one result: nothing to compare)
            if results is not None:
                results[move] = turn0.result()
            return [move]
        per_group = []
        for g in groups:
            if len(g) == 1:
                per_group.append([g])
                continue
            # A group reads and changes only its own squares and its own chains, so its
            # different orders depend on nothing else: the other actions' groups of the same
            # growths on the same squares (a stop or retreat elsewhere) share them.
            squares = sorted(set().union(*(it.touches() for it in g)))
            key = (tuple(g), tuple(turn0.board[q] for q in squares),
                   tuple(turn0.chains[it.chain] for it in g if it.chain >= 0),
                   tuple(turn0.leap))
            orders = cache.get(key) if cache is not None else None
            if orders is None:
                orders = _distinct_orders(turn0, g)
                if cache is not None:
                    cache[key] = orders
            per_group.append(orders)
        position = {it.key: k for k, it in enumerate(items)}
        orders = []
        for combo in itertools.product(*per_group):
            order = list(items)
            for group, chosen in zip(groups, combo):
                slots = sorted(position[it.key] for it in group)
                for slot, it in zip(slots, chosen):
                    order[slot] = it
            orders.append(order)
        return self._turns_in(action, src, dst, letter, turn0, items, orders, results)

    @staticmethod
    def _turns_in(action: str, src: int, dst: int, letter: str, turn0: _Turn,
                  items: list[_Item], orders: list, results: dict | None,
                  grown: bool = False) -> list[Move]:
        """`_turns_of`'s turns for the given orders of the growths (`items`: the default
        order), each different result once. `grown`: turn0 is the one order's grown already."""
        out: list[Move] = []
        seen: set = set()
        # One order and no attack to resolve: one result, nothing to tell apart (a result's
        # key is the whole board, costly to hash).
        single = len(orders) == 1
        for order in orders:
            turn = turn0.copy() if len(orders) > 1 else turn0  # (one order: turn0's own)
            try:
                if not grown:
                    for item in order:
                        turn.grow(item)
            except _Fail:
                continue
            first = True
            for done, takers in _resolutions(turn, None, every=True):
                default = first and order == items
                first = False
                if action in (GROW, LEAP) and not done.new_ok:
                    continue
                key = done.result()
                if not (single and not turn.pending):
                    if key in seen:
                        continue
                    seen.add(key)
                if default:
                    out.append(Move(action, src, dst, letter, None))
                else:
                    out.append(Move(action, src, dst, letter, tuple(
                        (it.src, it.dst, "x" if it.key in takers else it.mark)
                        for it in order)))
                if results is not None:
                    results[out[-1]] = key  # (board, chains, leap, counts) after this turn
        return out

    def _check_end(self, mover: int | None) -> None:
        # After every turn of every playout: the search's hottest check.
        h = self._counts[2:]
        if not h[0] and not h[1]:
            self._end, self._winner = "mutual", None
        elif not h[0] or not h[1]:
            self._end, self._winner = "huckleberry", 0 if h[0] else 1
        elif self._turns >= self._opts["limit"]:
            a, b = self.scores()
            self._end, self._winner = "limit", 0 if a > b else 1 if b > a else None
        elif not self._has_turn():
            self._end, self._winner = "stalemate", 1 - self._to_move

    def _has_turn(self) -> bool:
        # Cheap cases first: a Huckleberry square given up, a chain stopped, a square given up.
        board, mover = self._board, self._to_move
        if self._counts[2 + mover] > 1:
            return True
        for s, _, _ in self._chains:
            if board[s][1] == mover:
                return True
        if (GRASS, mover, -1, "") in board or (UNDER, mover, -1, "") in board or any(
                c[0] == TREE and c[1] == mover and c[2] != i for i, c in enumerate(board)):
            return True
        cache: dict = {}
        chain_items = self._chain_items()
        return any(True for a in self._actions()
                   for _ in self._turns_of(*a, cache, None, chain_items))


def _resolutions(turn: _Turn, takers: dict | None,
             every: bool = False) -> Iterator[tuple[_Turn, frozenset]]:
    """The attacks of a turn resolved, in board order (reading 12). With `takers` (from
    an order) the marked attackers take; else the first in the order, or with `every`,
    one result per choice of takers: (the turn, the keys of its takers)."""
    if not turn.pending:  # no attack (most turns): the turn as it stands, no taker
        yield turn, frozenset()
        return

    def go(t: _Turn, targets: list[int], chosen: tuple) -> Iterator[tuple[_Turn, tuple]]:
        if not targets:
            yield t, chosen
            return
        target, rest = targets[0], targets[1:]
        attackers = t.valid_attackers(target)
        if len({root for _, root in attackers}) < 2:
            yield from go(t, rest, chosen)
            return
        if takers is not None:
            marked = [a for a in attackers if takers.get(a[0].key)]
            if len(marked) > 1:
                raise _Fail(Reason("only one attacker takes {site}", site=square_name(target)))
            options = marked or attackers[:1]
        else:
            options = attackers if every else attackers[:1]
        for item, root in options:
            nxt = t.copy()
            nxt.kill(target, item, root, attackers)
            yield from go(nxt, rest, chosen + (item.key,))
    for t, chosen in go(turn, turn.attacked(), ()):
        yield t, frozenset(chosen)


def _suitable(board, cell: Cell, path: list[int], dst: int) -> bool:
    """Could the piece in `cell` grow onto dst over path on this board (ignoring chains)?"""
    t = cell[0]
    target = board[dst]
    if t == GRASS:
        return target[0] == BARE
    if t in (UNDER, HUCK):
        return target[0] == GRASS
    if not all(_underbrush(board[q]) for q in path):
        return False
    if target[0] == TREE:
        return target[2] != cell[2]  # an attack; whether a second tree joins is checked later
    return _underbrush(target)


def _inert(item: _Item, board) -> bool:
    """Can this grass or underbrush growth never happen in this turn, whatever the order?
    A turn's growths only raise a square's terrain (bare, grass, underbrush, tree; kills come
    after them), so grass never finds bare ground where there is none at the start, nor
    underbrush grass where there is underbrush or a tree."""
    t = item.cell[0]
    if item.chain == -2 or t == TREE:
        return False
    target = board[item.dst][0]
    return target != BARE if t == GRASS else target not in (BARE, GRASS)


def _groups(items: list[_Item], board=None) -> list[list[_Item]]:
    """The growths split into groups that may not commute, in item order: two growths depend
    on each other when one may change a square the other reads (transitively). Two growths
    that only read a common square (two chains of one source square) commute, and a growth
    that cannot happen (`_inert` on the turn's starting `board`) commutes with everything:
    the result of a turn is the same in either order, so only the orders within a group need
    trying."""
    if len(items) < 2:  # (a turn without chains: nothing to order)
        return [items] if items else []
    groups: list[tuple[frozenset[int], frozenset[int], list[_Item]]] = []
    merges = False
    for item in items:
        if board is not None and _inert(item, board):
            groups.append((_NOTHING, _NOTHING, [item]))
            continue
        reads, writes = _reach(item.src, item.dst, item.dx, item.dy)
        merged = [g for g in groups if g[1] & reads or g[0] & writes]
        if not merged:
            groups.append((reads, writes, [item]))
            continue
        merges = True
        for g in merged:
            groups.remove(g)
            reads |= g[0]
            writes |= g[1]
        members = [it for g in merged for it in g[2]] + [item]
        groups.append((reads, writes, sorted(members, key=items.index)))
    if not merges:  # (most turns) one group a growth, already in item order
        return [g[2] for g in groups]
    return sorted((g[2] for g in groups), key=lambda g: items.index(g[0]))


_NOTHING: frozenset[int] = frozenset()
_CHAINS = object()  # (`_turns_of`'s cache: what `_commute` found of the chains' growths)


def _commute(action: str, items: list[_Item], chain_items: list, board, cache: dict) -> bool:
    """Does every growth of a grow, leap or stop turn (`items`, on the position's `board`)
    commute with every other, as `_groups` would find? Found from the chains' growths, whose
    squares are the same for every such turn of the position (grouped once, in `cache`):
    if they commute, a stop's (some of them) do, and a new growth's or leap's when it shares
    none of their squares."""
    known = cache.get(_CHAINS)
    if known is None:
        chains = [it for _, it in chain_items]
        live = [_reach(it.src, it.dst, it.dx, it.dy) for it in chains if not _inert(it, board)]
        known = cache[_CHAINS] = (len(_groups(chains, board)) == len(chains),
                                  frozenset().union(*(r for r, _ in live)),
                                  frozenset().union(*(w for _, w in live)))
    apart, reads, writes = known
    if not apart:
        return False
    if action == STOP:
        return True
    new = items[0]
    if _inert(new, board):
        return True
    new_reads, new_writes = _reach(new.src, new.dst, new.dx, new.dy)
    return not (new_writes & reads or new_reads & writes)


@functools.lru_cache(maxsize=None)  # pure: a growth's squares, at most 64 x 64 x a few steps
def _reach(src: int, dst: int, dx: int, dy: int) -> tuple[frozenset[int], frozenset[int]]:
    """What a growth reads and what it may change (`_Item.touches`, `_Item.writes`)."""
    path = _path(src, dx, dy)
    return frozenset((src, dst, *path)), frozenset((dst, *path))


def _distinct_orders(start: _Turn, group: list[_Item]) -> list[list[_Item]]:
    """One order of `group` for each different result of running it alone from `start`,
    the given (default) order's result first. Breadth first over the set of growths done,
    keeping one order per (growths done, position so far): orders that reach the same
    position with the same growths left are merged as soon as they meet, so the work grows
    with the number of different positions, not with the number of orders."""
    layer: dict[tuple, tuple[list[_Item], _Turn]] = {(0, None): ([], start.copy())}
    for _ in group:
        nxt: dict = {}
        for (done, _), (order, t) in layer.items():
            for k, it in enumerate(group):
                if done >> k & 1:
                    continue
                t2 = t.copy()
                try:
                    t2.grow(it)
                except _Fail:
                    continue
                key = (done | 1 << k, t2.key())
                if key not in nxt:
                    nxt[key] = (order + [it], t2)
        layer = nxt
    results: dict[tuple, list[_Item]] = {}
    first = start.copy()
    try:
        for it in group:
            first.grow(it)
        results[first.key()] = group
    except _Fail:
        pass
    for order, t in layer.values():
        results.setdefault(t.key(), order)
    return list(results.values())


def _how(cell: Cell) -> str:
    if cell[0] != TREE:
        return Reason("it grows one square in any direction, like a king")
    return {"B": Reason("a Birch grows like a rook"), "A": Reason("an Ash grows like a knight"),
            "E": Reason("a Beech grows like a bishop"), "P": Reason("a Pine grows like a queen")}[cell[3]]


def _letter_name(letter: str) -> str:
    return {"H": Reason("a Huckleberry"), **{k: Reason("a {kind}", kind=v) for k, v in KIND_NAMES.items()}}.get(
        letter, repr(letter))


# --- positions --------------------------------------------------------------------------------

_FIRST_RANK = "BAEPHEAB"
_CHARS = {".": (BARE, -1), "G": (GRASS, 0), "g": (GRASS, 1), "U": (UNDER, 0), "u": (UNDER, 1),
          "N": (UNDER, -1), "n": (UNDER, -1), "H": (HUCK, 0), "h": (HUCK, 1)}


def start_position() -> str:
    ranks = [_FIRST_RANK.lower(), "u" * 8, "g" * 8, "." * 8, "." * 8, "G" * 8, "U" * 8,
             _FIRST_RANK]
    return "/".join(ranks)


def _build(position: str, roots: str, chains: str) -> tuple[tuple, tuple]:
    """The board and chains a `position` option describes. Raises BadOptions naming the
    square and what was expected."""
    if not isinstance(position, str):
        raise BadOptions(f"position must be text, not {position!r}")
    ranks = position.strip().split("/")
    if len(ranks) != SIZE or any(len(r) != SIZE for r in ranks):
        raise BadOptions("position: expected 8 ranks of 8 squares joined by '/', rank 8 first "
                         f"(got {len(ranks)} ranks of lengths {[len(r) for r in ranks]})")
    cells: list = [None] * 64
    trees: dict[int, str] = {}
    for r, text in enumerate(ranks):
        for f, ch in enumerate(text):
            i = f + SIZE * (SIZE - 1 - r)
            if ch in _CHARS:
                t, owner = _CHARS[ch]
                cells[i] = (t, owner, -1, "")
            elif ch.upper() in KIND_NAMES:
                cells[i] = None
                trees[i] = ch
            else:
                raise BadOptions(f"position: square {square_name(i)} is {ch!r}; expected one "
                                 "of . G U N H B A E P (upper case White, lower case Black)")
    try:
        root_list = [parse_square(w) for w in roots.replace(",", " ").split()] if roots else []
    except InvalidNotation as exc:
        raise BadOptions(f"roots: {exc.reason}") from None
    for r in root_list:
        if r not in trees:
            raise BadOptions(f"roots: {square_name(r)} holds no tree in the position")
    # Each group of linked squares of one kind and owner needs exactly one root.
    unassigned = set(trees)
    for sq in sorted(trees):
        if sq not in unassigned:
            continue
        ch = trees[sq]
        group, todo = {sq}, [sq]
        while todo:
            s = todo.pop()
            for dx, dy in _TREE_STEPS[ch.upper()]:
                n = _at(s, dx, dy)
                if n is not None and trees.get(n) == ch and n not in group:
                    group.add(n)
                    todo.append(n)
        mine = [r for r in root_list if r in group]
        if len(group) == 1 and not mine:
            mine = [sq]
        if len(mine) != 1:
            what = "no root" if not mine else f"{len(mine)} roots"
            raise BadOptions(f"position: the {KIND_NAMES[ch.upper()]} on "
                             f"{' '.join(square_name(s) for s in sorted(group))} has {what}; "
                             "name exactly one in roots")
        owner = 0 if ch.isupper() else 1
        for s in group:
            cells[s] = (TREE, owner, mine[0], ch.upper())
        unassigned -= group
    board = tuple(cells)
    out = []
    try:
        words = chains.replace(",", " ").split() if chains else []
        for word in words:
            m = _ITEM_RE.match(word.lower())
            if not m or m.group(2) != ">":
                raise BadOptions(f"chains: {word!r} is not from>to, such as d5>e6")
            s, d = parse_square(m.group(1)), parse_square(m.group(3))
            dx, dy = d % SIZE - s % SIZE, d // SIZE - s // SIZE
            if board[s][1] < 0 or board[s][0] == BARE or not _is_step(board[s], dx, dy):
                raise BadOptions(f"chains: {word} is no growth of what {square_name(s)} holds "
                                 f"({_describe(board[s])})")
            out.append((s, dx, dy))
    except InvalidNotation as exc:
        raise BadOptions(f"chains: {exc.reason}") from None
    for p in (0, 1):
        if not any(c[0] == HUCK and c[1] == p for c in board):
            raise BadOptions(f"position: {PLAYERS[p]} needs a Huckleberry square (H for "
                             "White, h for Black)")
    return board, tuple(out)


class GameForTheTrees(Game):
    name = "game-for-the-trees"
    sgf_number = 7005   # GM[7005] (docs/records.md)
    #: The board holds no pieces: its sensors are taps (board_driver/referee/touch.py).
    input_mode = "touch"
    short_title = "Game for the Trees"
    description = ("grass, underbrush and trees grow across an 8x8 board by momentum; lose "
                   "your Huckleberry and you lose")

    def options(self) -> dict[str, str]:
        return {
            "limit": Reason("turns before the game ends by count of squares, 1..{most} "
                            "(default {default})", most=MAX_LIMIT, default=DEFAULT_LIMIT),
            "position": Reason("a starting position: 8 ranks (8 first) joined by '/', one of "
                               ". G U N H B A E P a square, upper case White (default: the "
                               "text's)"),
            "roots": Reason("the roots of the position's trees, e.g. 'c4 d4' (one-square trees "
                            "need none)"),
            "chains": Reason("chains of the position, e.g. 'd5>e6'"),
            "first": Reason("0 (White) or 1 (Black) to move first in a position (default 0)"),
        }

    def new_state(self, limit: Any = DEFAULT_LIMIT, position: Any = None, roots: Any = "",
                  chains: Any = "", first: Any = 0, **options: Any) -> GameForTheTreesState:
        if options:
            raise BadOptions(f"Game for the Trees has no option {sorted(options)[0]!r}; it "
                             f"takes {', '.join(self.options())}")
        if isinstance(limit, str) and limit.strip().isdigit():
            limit = int(limit)
        if type(limit) is not int or not 1 <= limit <= MAX_LIMIT:
            raise BadOptions(f"limit must be a whole number 1..{MAX_LIMIT}, not {limit!r}")
        if isinstance(first, str) and first.strip() in ("0", "1"):
            first = int(first)
        if first not in (0, 1) or type(first) is bool:
            raise BadOptions(f"first must be 0 or 1, not {first!r}")
        opts: dict[str, Any] = {"limit": limit}
        if position is None:
            if roots or chains or first:
                raise BadOptions("roots, chains and first describe a position: give one")
            board, chain_list = _build(start_position(), "", "")
        else:
            if not isinstance(roots, str) or not isinstance(chains, str):
                raise BadOptions("roots and chains are text, such as 'c4 d4' and 'd5>e6'")
            board, chain_list = _build(position, roots, chains)
            opts.update(position=position, roots=roots, chains=chains, first=first)
        return GameForTheTreesState(self, opts, board, chain_list, first)


GAME = GameForTheTrees()

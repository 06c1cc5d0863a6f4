"""Tree Planting, solved exactly: alpha-beta over the drawn grooves, in strings-and-coins terms.

A square is a coin; each groove not yet drawn is a string from a coin to its neighbour, or to
the ground on the board's edge. Drawing a groove cuts a string; a coin with no strings left is
planted. The rest of the game depends only on which grooves are drawn, so a position's value
is the margin of trees the player to move still gains over the opponent under perfect play.

What keeps the search small:
- Forced captures. A capturable coin (three sides drawn) whose last string goes to the ground,
  or to a coin that is capturable too, is taken at once: declining it only hands the opponent
  the same coin with the same position. Otherwise only the captures and, for a coin whose
  neighbour has two strings, the double-dealing move (cutting the neighbour's other string,
  handing over the pair to keep control) need searching; any other move is worse than
  capturing first and then making it (proof sketched at `_forced`).
- One sacrifice per chain or loop: wherever a chain is opened, the opponent's answers worth
  searching end in the same positions (proof at `_sacrifices`); a chain of two is opened in
  the middle (the hard-hearted handout). Opening a chain of three or more gains at most
  2 - k, a loop 4 - k, so such a move is skipped where a searched one already does as well.
- A transposition table keyed by the canonical position (board symmetries while at most
  SYMMETRIC_DRAWN grooves are drawn, and the ground strings of a corner coin are
  interchangeable), holding lower and upper bounds and the best move (in the key's frame, so a
  symmetric image's move is mapped back, not lost). Positions
  the long-chain theory settles are stored too.
- Move ordering: the table's best move, then safe moves from the centre out, then (listed
  only when no safe move cut off) the sacrifices, shortest chain first.
- The loony endgame: when every coin left has exactly two strings, the position is a set of
  independent chains and loops and the mover must open one; its value follows from the
  long-chain theory (the controller takes all but two of a chain, all but four of a loop, when
  that pays) without search.

Pure: no I/O, no threads; a deadline (a clock reading and the clock) may bound the search.

The game's table (games/ai/tuning/tree_planting.py) names this module its exact solver:
`games.ai` and `treeboard solve` ask it only `exact_values`, `out_of_reach` and `solve`
(at the end of this module), and catch `OutOfTime` and `BookError`.
"""

from __future__ import annotations

import os
from functools import cached_property, lru_cache
from typing import Any, Callable

from games.ai.book import BookError  # noqa: F401  (raised through here: see above)
from games.tree_planting import Board, Groove, TreePlantingState
from treeboard.exc import TreeboardError

INF = 1 << 10

#: Positions are keyed by their least symmetric image only while at most this many grooves are
#: drawn. A symmetric image of a position is reached again mostly from a symmetric start (the
#: empty board, the first moves): on the 4x4 board's random positions (10 drawn) keying every
#: node by symmetry saved 2 % of the nodes and cost 40 % of the time; on the 3x3 board from
#: empty, 12 keeps all but 11 % of what symmetry saves (benchmarks/solver.py --reach).
SYMMETRIC_DRAWN = 12


class OutOfTime(TreeboardError):
    """The search passed its deadline; nothing it returned so far is exact."""


# --- the long-chain theory --------------------------------------------------------------------

@lru_cache(maxsize=1 << 16)
def loony_value(chains: tuple[int, ...], loops: tuple[int, ...]) -> int:
    """The margin the player to move gains when the position is only independent chains (each
    ending on the ground or the board's edge at both ends) and loops, and every move opens one.

    Opening a chain of n coins: the opponent takes all n and moves on, or (n >= 3) takes n - 2
    and hands back the last two, so the opener moves on. A chain of one or two is taken whole
    (two opened in the middle leaves no double deal). A loop of n: all n, or n - 4 and four back.
    Sorted tuples, so equal sets of components share one cache entry.
    """
    if not chains and not loops:
        return 0
    best = -INF
    for i, n in enumerate(chains):
        if i and chains[i - 1] == n:
            continue  # the same length again: the same result
        rest = loony_value(chains[:i] + chains[i + 1:], loops)
        value = -(n + rest)  # opponent takes all and must open the next one
        if n >= 3:
            value = min(value, 2 + rest - (n - 2))  # opponent keeps control
        best = max(best, value)
    for i, n in enumerate(loops):
        if i and loops[i - 1] == n:
            continue
        rest = loony_value(chains, loops[:i] + loops[i + 1:])
        value = min(-(n + rest), 4 + rest - (n - 4))
        best = max(best, value)
    return best


# --- the solver ---------------------------------------------------------------------------------

class Solver:
    """Exact values of Tree Planting positions on one board. Keeps its transposition table
    between calls, so asking about successive positions of one game gets cheaper.

    `max_entries` bounds the table (it is cleared when full: the values stay exact, only
    later searches get slower).

    This is the pure-Python solver: the fallback where the compiled core is not built, and
    the reference the compiled one (`CompiledSolver`, below) is tested against.
    `solver_for` hands out the compiled one where it can."""

    #: The computer asks for exact values when at most this many grooves are free (or the
    #: book holds the position): the 3x3 board from empty takes about a second here.
    exact_free = 24
    #: Beyond this many free grooves (outside a book) no exact answer is within reach,
    #: however long it runs: each groove more multiplies the work.
    reach_free = 30

    def __init__(self, board: Board, *, max_entries: int = 4_000_000):
        self.board = board
        self._deadline: float | None = None
        self._clock: Callable[[], float] | None = None
        grooves = board.grooves
        n_sq = len(board.cells)
        self.full = board.all_edges
        self.all_squares = (1 << n_sq) - 1
        self.sq_mask = [sum(g.bit for g in sides) for sides in board.square_grooves]
        # For each groove: the squares it borders, as (square bit, mask of its four grooves).
        self.adj = [g.squares for g in grooves]
        self.adj_sq = [sum(b for b, _ in g.squares) for g in grooves]
        # other[g][s]: the square across groove g from square s (-1 for the ground).
        index_of_bit = {1 << i: i for i in range(n_sq)}
        self.other: list[dict[int, int]] = []
        for g in grooves:
            sq = [index_of_bit[b] for b, _ in g.squares]
            self.other.append({s: (sq[1 - k] if len(sq) == 2 else -1) for k, s in enumerate(sq)})
        self.bit_index = {g.bit: g.index for g in grooves}
        self.ground_pairs = self._ground_pairs()
        # The normal form of a position: of each square's edge grooves (all lead to the
        # ground, so interchangeable), the lowest ones drawn. Squares with two such grooves
        # as (low bit, high bit) pairs (cheaper); with three or four as (mask, count -> bits).
        self.edge_sets = [sorted(g.index for g in sides if len(g.squares) == 1)
                          for sides in board.square_grooves]
        self.normal_pairs = [(1 << e[0], 1 << e[1]) for e in self.edge_sets if len(e) == 2]
        self.normal_sets = [(sum(1 << g for g in e), [sum(1 << g for g in e[:m])
                                                      for m in range(len(e) + 1)])
                            for e in self.edge_sets if len(e) > 2]
        #: Each non-identity symmetry as a permutation of groove indices, mapping a square's
        #: edge grooves in order (so a normal position's image is normal), and its inverse.
        self.symmetries = self._symmetries()
        self.inverse = [[p.index(g) for g in range(len(p))] for p in self.symmetries]
        #: Per groove, the edge grooves of its square when it is one (normalising may have
        #: moved a drawn one among them), else 0.
        self.edge_mates = [0] * len(grooves)
        for e in self.edge_sets:
            if len(e) >= 2:
                for g in e:
                    self.edge_mates[g] = sum(1 << h for h in e)
        self._chunks = (len(grooves) + 11) // 12
        #: Per symmetry, one 4096-entry table per 12 grooves: the image of those bits.
        self.sym_tables = [self._image_tables(p) for p in self.symmetries]
        self.order = self._centre_out()
        # A set of grooves listed centre-out by lookup: the order cut into runs of 8, and per
        # run a dict from each subset of its grooves (as a mask) to that subset, in order.
        self.order_runs = []
        for lo in range(0, len(self.order), 8):
            run = self.order[lo:lo + 8]
            table = {}
            for sub in range(1 << len(run)):
                chosen = [g for k, g in enumerate(run) if sub >> k & 1]
                table[sum(1 << g for g in chosen)] = chosen
            self.order_runs.append((sum(1 << g for g in run), table))
        self.sq_bits_masks = [(1 << i, m) for i, m in enumerate(self.sq_mask)]
        #: The grooves of a set of squares, by lookup: per 8 squares, each subset -> its grooves.
        self.square_runs = []
        for lo in range(0, n_sq, 8):
            masks = self.sq_mask[lo:lo + 8]
            table = [0] * (1 << len(masks))
            for x in range(1, len(table)):
                low = x & -x
                table[x] = table[x ^ low] | masks[low.bit_length() - 1]
            self.square_runs.append(table)
        self._start(max_entries)

    def _start(self, max_entries: int) -> None:
        """The search's own state: its table and its count of nodes (the compiled core,
        `CompiledSolver`, keeps both in C)."""
        self.max_entries = max_entries
        self.table: dict[int, int] = {}
        self.nodes = 0

    # --- geometry --------------------------------------------------------------------------

    def _ground_pairs(self) -> list[tuple[int, int]]:
        """(low bit, high bit) of the two edge grooves of each corner square: interchangeable."""
        pairs = []
        for sides in self.board.square_grooves:
            edge = [g for g in sides if len(g.squares) == 1]
            if len(edge) >= 2:
                # Any two of a square's edge grooves may swap; canonise each adjacent pair.
                edge.sort(key=lambda g: g.index)
                for a, b in zip(edge, edge[1:]):
                    pairs.append((a.bit, b.bit))
        return pairs

    def _symmetries(self) -> list[list[int]]:
        """Each non-identity symmetry of the board's squares, as a permutation of grooves."""
        b = self.board
        cells = set(b.cells)
        rows, cols = b.rows, b.cols
        maps = []
        candidates = [
            lambda r, c: (r, cols - 1 - c),
            lambda r, c: (rows - 1 - r, c),
            lambda r, c: (rows - 1 - r, cols - 1 - c),
        ]
        if rows == cols:
            candidates += [
                lambda r, c: (c, r),
                lambda r, c: (cols - 1 - c, rows - 1 - r),
                lambda r, c: (c, rows - 1 - r),
                lambda r, c: (cols - 1 - c, r),
            ]
        for f in candidates:
            if {f(r, c) for r, c in cells} != cells:
                continue
            perm = [0] * len(b.grooves)
            for i, (r, c) in enumerate(b.cells):
                j = b.square_index[f(r, c)]
                # Match each side of square i to the side of square j holding the same
                # neighbour (the image of the neighbour across that side).
                for g in b.square_grooves[i]:
                    across = [s for s in g.squares if s[0] != 1 << i]
                    if across:
                        k = across[0][0].bit_length() - 1
                        target = b.square_index[f(*b.cells[k])]
                        h = next(h for h in b.square_grooves[j]
                                 if any(s[0] == 1 << target for s in h.squares))
                        perm[g.index] = h.index
                # The edge grooves (all to the ground, so any matching will do) in index
                # order onto the image's in index order: normal positions map to normal ones.
                for g, h in zip(self.edge_sets[i], self.edge_sets[j]):
                    perm[g] = h
            maps.append(perm)
        return maps

    def _centre_out(self) -> list[int]:
        b = self.board
        cr = sum(r for r, _ in b.cells) / len(b.cells) + 0.5
        cc = sum(c for _, c in b.cells) / len(b.cells) + 0.5

        def where(g: Groove) -> tuple[float, float]:
            kind, rest = g.name[0], g.name[1:]
            r, c = (int(x) for x in rest.split("."))
            return (r, c + 0.5) if kind == "h" else (r + 0.5, c)

        return sorted(range(len(b.grooves)),
                      key=lambda i: (abs(where(b.grooves[i])[0] - cr)
                                     + abs(where(b.grooves[i])[1] - cc), i))

    def _image_tables(self, perm: list[int]) -> list[list[int]]:
        tables = []
        for lo in range(0, len(perm), 12):
            single = [1 << perm[g] if g < len(perm) else 0 for g in range(lo, lo + 12)]
            table = [0] * 4096
            for x in range(1, 4096):
                low = x & -x
                table[x] = table[x ^ low] | single[low.bit_length() - 1]
            tables.append(table)
        return tables

    def canonical(self, edges: int) -> int:
        """The table's key of a position: the least of its symmetric images in normal form;
        on a board without symmetry, the position itself."""
        return self._key(edges)[0]

    def _normal(self, edges: int) -> int:
        """The equal position with the lowest of each square's edge grooves drawn (the same
        squares capturable, the same two-string coins)."""
        for lo, hi in self.normal_pairs:
            if edges & hi and not edges & lo:
                edges ^= lo | hi
        for mask, lowest in self.normal_sets:
            x = edges & mask
            if x:
                edges ^= x ^ lowest[x.bit_count()]
        return edges

    def _key(self, edges: int) -> tuple[int, int]:
        """(canonical key, index of the symmetry mapping the normal form onto it, -1 for
        none). Normalise first: the symmetries map normal positions to normal ones."""
        if not self.sym_tables or edges.bit_count() > SYMMETRIC_DRAWN:
            # No symmetry (or past SYMMETRIC_DRAWN): the key is the position itself.
            # (Normalising the corners merged no positions on the classic board from empty,
            # and cost 7 % of its time.)
            return edges, -1
        edges = self._normal(edges)
        best, which = edges, -1
        chunks = self._chunks
        if chunks == 2:
            a, b = edges & 4095, edges >> 12
            for i, (t0, t1) in enumerate(self.sym_tables):
                image = t0[a] | t1[b]
                if image < best:
                    best, which = image, i
        elif chunks == 3:
            a, b, c = edges & 4095, edges >> 12 & 4095, edges >> 24
            for i, (t0, t1, t2) in enumerate(self.sym_tables):
                image = t0[a] | t1[b] | t2[c]
                if image < best:
                    best, which = image, i
        else:
            for i, tables in enumerate(self.sym_tables):
                image, e = 0, edges
                for t in tables:
                    image |= t[e & 4095]
                    e >>= 12
                if image < best:
                    best, which = image, i
        return best, which

    def table_move(self, edges: int, entry: int) -> int:
        """The best move a table entry names, as a free groove of `edges` (-1 for none): the
        entry holds it in the key's frame."""
        g = (entry >> 24) - 1
        if g < 0:
            return -1
        which = self._key(edges)[1]
        if which >= 0:
            g = self.inverse[which][g]
        return self._free_mate(edges, g)

    def _free_mate(self, edges: int, g: int) -> int:
        """g, or where normalising moved it (drawn here), a free groove equal to it: another
        edge groove of its square; -1 for none."""
        if not edges >> g & 1:
            return g
        free = self.edge_mates[g] & ~edges
        return (free & -free).bit_length() - 1

    # --- positions -----------------------------------------------------------------------------

    def threes(self, edges: int) -> int:
        out = 0
        for s, mask in enumerate(self.sq_mask):
            if (edges & mask).bit_count() == 3:
                out |= 1 << s
        return out

    def twos(self, edges: int) -> int:
        """The coins with two strings left (two sides drawn), as a mask of squares."""
        out = 0
        for bit, mask in self.sq_bits_masks:
            if (edges & mask).bit_count() == 2:
                out |= bit
        return out

    def play(self, edges: int, threes: int, g: int) -> tuple[int, int, int]:
        """(edges, threes, squares planted) after drawing groove index g."""
        edges, threes, _, gained = self._step(edges, threes, 0, g)
        return edges, threes, gained

    def _step(self, edges: int, threes: int, twos: int, g: int) -> tuple[int, int, int, int]:
        """(edges, threes, twos, squares planted) after drawing groove g: `play` keeping the
        two-string coins too. (The search's two hot loops have it inlined: calling it for each
        forced capture made the classic board from empty up to 7 % slower.)"""
        edges |= 1 << g
        gained = 0
        for sq, mask in self.adj[g]:
            n = (edges & mask).bit_count()
            if n == 4:
                gained += 1
                threes &= ~sq
            elif n == 3:
                threes |= sq
                twos &= ~sq
            elif n == 2:
                twos |= sq
        return edges, threes, twos, gained

    # --- search ------------------------------------------------------------------------------

    def value(self, edges: int, *, deadline: float | None = None,
              clock: Callable[[], float] | None = None) -> int:
        """The margin the player to move gains from here on, under perfect play."""
        self._deadline, self._clock = deadline, clock
        return self._known(edges, self.threes(edges))

    def _mtdf(self, edges: int, threes: int) -> int:
        """The exact value by null-window searches (MTD(f)): each answers "at least beta?",
        cheaply, and the margin's parity (that of the coins left) halves the steps."""
        left = sum(1 for m in self.sq_mask if edges & m != m)
        lo, hi = -left, left
        guess = left & 1
        while lo < hi:
            beta = guess + 1 if guess == lo else guess
            guess = self._search(edges, threes, beta - 1, beta)
            if guess < beta:
                hi = guess
            else:
                lo = guess
        return lo

    def move_values(self, edges: int, *, deadline: float | None = None,
                    clock: Callable[[], float] | None = None) -> dict[int, int]:
        """Groove index -> the margin the mover gains over the rest of the game by drawing it
        (squares it plants, plus or minus the value after it)."""
        self._deadline, self._clock = deadline, clock
        threes = self.threes(edges)
        out = {}
        free = self.full & ~edges
        while free:
            low = free & -free
            free ^= low
            g = low.bit_length() - 1
            e2, t2, gained = self.play(edges, threes, g)
            rest = self._known(e2, t2)
            out[g] = gained + rest if gained else -rest
        return out

    def best_moves(self, edges: int, *, first_only: bool = False,
                   **kw) -> tuple[int, list[int]]:
        """(value, the groove indices that reach it), searching the others with a null window.
        With `first_only`, the first best groove found (the table's move is tried first)."""
        self._deadline, self._clock = kw.get("deadline"), kw.get("clock")
        book = self.book
        if book is not None and edges.bit_count() < book.depth:
            # Every move's value is in the book: no search at all.
            values = self.move_values(edges)
            value = max(values.values())
            best = sorted(g for g, v in values.items() if v == value)
            return value, best[:1] if first_only else best
        value = self._known(edges, self.threes(edges))
        threes = self.threes(edges)
        best = []
        order = [g for g in self.order if not edges >> g & 1]
        entry = self.table.get(self.canonical(edges))
        hint = self.table_move(edges, entry) if entry is not None else -1
        if hint in order and first_only:
            order.remove(hint)
            order.insert(0, hint)
        for g in order:
            e2, t2, gained = self.play(edges, threes, g)
            if gained:
                ok = gained + self._search(e2, t2, value - gained - 1, value - gained) >= value
            else:
                ok = -self._search(e2, t2, -value, -value + 1) >= value
            if ok:
                best.append(g)
                if first_only:
                    break
        return value, sorted(best)

    # --- the opening book ----------------------------------------------------------------------

    @cached_property
    def book(self):
        """The board's opening book (`games.ai.book`), loaded on first use; None for a board
        without one. Set it to None for a solver that searches everything."""
        from games.ai.book import book_for

        return book_for(self.board)

    def in_book(self, edges: int) -> bool:
        book = self.book
        return book is not None and book.covers(edges)

    def _known(self, edges: int, threes: int) -> int:
        """The exact value: from the opening book where it holds the position, else searched."""
        book = self.book
        value = None if book is None else book.value(edges)  # None past the book's depth
        return self._mtdf(edges, threes) if value is None else value

    def _tick(self) -> None:
        if self._deadline is not None and self._clock() > self._deadline:
            raise OutOfTime
        if len(self.table) > self.max_entries:
            self.table.clear()

    def _forced(self, edges: int, threes: int) -> tuple[int | None, list[int]]:
        """With a capturable coin on the board: (the one move to play, []) or (None, the moves
        worth searching).

        Why the rest can go: let C be capturable through groove g. A move M that captures
        nothing, and is not the double deal h (the other string of C's two-string neighbour),
        captures nothing after g either; declining C with M lets the opponent take C and face
        the very position we would face after "g then M", one tree richer. So M is never
        better than g first. If C's last string goes to the ground or to a coin that is
        capturable as well, g touches nothing else, so no line through another capture can
        exploit C either: g is the move."""
        sq_mask, other = self.sq_mask, self.other
        moves = []
        deals = 0
        t = threes
        while t:
            low = t & -t
            t ^= low
            s = low.bit_length() - 1
            g = (sq_mask[s] & ~edges).bit_length() - 1
            d = other[g][s]
            if d < 0:
                return g, []
            n = (edges & sq_mask[d]).bit_count()
            if n == 3:
                return g, []
            moves.append(g)
            if n == 2:
                h = (sq_mask[d] & ~edges & ~(1 << g)).bit_length() - 1
                if self._ends_chain(edges, d, h):
                    moves.append(h)
                    deals += 1
        if not deals:
            return moves[0], []  # captures only: they commute, so any one will do
        return None, list(dict.fromkeys(moves))

    def _ends_chain(self, edges: int, d: int, h: int) -> bool:
        """Is cutting h (the other string of two-string coin d, next to a capturable coin) a
        double deal worth searching? Only where it hands over the pair and nothing more (h
        leads to the ground or to a coin keeping two strings or more), or, in an opened loop,
        exactly two pairs (all but four). Cutting inside a longer chain hands over the pair
        and an opened chain, which is never better than taking one more coin first and
        double-dealing one step later."""
        e = self.other[h][d]
        if e < 0:
            return True
        n = (edges & self.sq_mask[e]).bit_count()
        if n != 2:
            return True  # e keeps two or more strings, or h captures e
        f_string = (self.sq_mask[e] & ~edges & ~(1 << h)).bit_length() - 1
        f = self.other[f_string][e]
        return f >= 0 and (edges & self.sq_mask[f]).bit_count() == 3

    def _search(self, edges: int, threes: int, alpha: int, beta: int, twos: int = -1) -> int:
        """The value of `edges` for the mover, exact strictly between alpha and beta, else a
        bound on that side. `threes`, `twos`: the coins with one and with two strings left
        (kept up to date move by move; `twos` found here when not given)."""
        if twos < 0:
            # Called from outside: start from the normal form (an equal position), so that
            # the entry points' positions share entries with the searches' own.
            twos = self.twos(edges)
            edges = self._normal(edges)
        got = 0  # trees planted by forced captures at this node, added to what it returns
        moves = None
        later = 0  # two-string coins whose chains' sacrifices are still to list
        if threes:
            # Forced captures in a loop: each plants, so the mover stays.
            forced, moves = self._forced(edges, threes)
            while forced is not None:
                edges |= 1 << forced  # `play`, inlined
                for sq, mask in self.adj[forced]:
                    n = (edges & mask).bit_count()
                    if n == 4:
                        got += 1
                        threes &= ~sq
                    elif n == 3:
                        threes |= sq
                        twos &= ~sq
                    elif n == 2:
                        twos |= sq
                if not threes:
                    moves = None
                    break
                forced, moves = self._forced(edges, threes)
            alpha, beta = alpha - got, beta - got
            if edges == self.full:
                return got
        self.nodes += 1
        if not self.nodes & 4095:
            self._tick()
        # The table first: a stored bound often settles the node before any move is listed.
        # (The key: `_key`, inlined where no symmetry applies: the position itself.)
        if self.sym_tables and edges.bit_count() <= SYMMETRIC_DRAWN:
            key, which = self._key(edges)
        else:
            key, which = edges, -1
        entry = self.table.get(key)
        first = -1
        if entry is None and threes:
            v = self._loony(edges)
            if v is not None:
                # Exact, and no move to name: stored so the next visit skips the walk.
                self.table[key] = (v + INF) | (v + INF) << 12
                return got + v
        if entry is not None:
            lo, hi, first = (entry & 4095) - INF, (entry >> 12 & 4095) - INF, (entry >> 24) - 1
            if lo >= beta:
                return got + lo
            if hi <= alpha:
                return got + hi
            if lo == hi:
                return got + lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        else:
            lo, hi = -INF, INF
            if moves is None:
                moves, later = self._safe(edges, twos)
                if not moves:
                    v = self._loony(edges)
                    if v is not None:
                        self.table[key] = (v + INF) | (v + INF) << 12
                        return got + v
                    moves, later = [g for _, g, _ in self._sacrifices(edges, later)], 0
        a0, b0 = alpha, beta
        best, best_move = -INF, -1
        search = self._search
        if first >= 0:
            # The entry holds its move in the key's frame: map it back to this position's.
            if which >= 0:
                first = self.inverse[which][first]
            if edges >> first & 1:
                first = self._free_mate(edges, first)
        if first >= 0:
            # The table's best move first, before the others are even listed.
            e2, t2, w2, gained = self._step(edges, threes, twos, first)
            if gained:
                v = gained + search(e2, t2, alpha - gained, beta - gained, w2)
            else:
                v = -search(e2, t2, -beta, -alpha, w2)
            best, best_move = v, first
            if v > alpha:
                alpha = v
        if best < beta:
            if moves is None:
                moves, later = self._safe(edges, twos)
            adj = self.adj
            # The safe moves, then (listed only when none of them cut off) the sacrifices.
            while True:
                for g in moves:
                    if g == first:
                        continue
                    # `play`, inlined: this loop is the solver's innermost.
                    e2 = edges | 1 << g
                    t2, w2, gained = threes, twos, 0
                    for sq, mask in adj[g]:
                        n = (e2 & mask).bit_count()
                        if n == 4:
                            gained += 1
                            t2 &= ~sq
                        elif n == 3:
                            t2 |= sq
                            w2 &= ~sq
                        elif n == 2:
                            w2 |= sq
                    if gained:
                        v = gained + search(e2, t2, alpha - gained, beta - gained, w2)
                    else:
                        v = -search(e2, t2, -beta, -alpha, w2)
                    if v > best:
                        best, best_move = v, g
                        if v > alpha:
                            alpha = v
                            if alpha >= beta:
                                break
                else:
                    if later:
                        moves, later = self._worth(self._sacrifices(edges, later), best), 0
                        continue
                break
        if best <= a0:
            hi = min(hi, best)
            best_move = first  # an upper bound names no best move; keep the old hint
        elif best >= b0:
            lo = max(lo, best)
        else:
            lo = hi = best
        if which >= 0 and best_move >= 0:
            best_move = self.symmetries[which][best_move]  # stored in the key's frame
        self.table[key] = (lo + INF) | (hi + INF) << 12 | (best_move + 1) << 24
        return got + best

    def _safe(self, edges: int, twos: int) -> tuple[list[int], int]:
        """(the safe free grooves, centre-out; `twos`, the two-string coins, whose chains
        `_sacrifices` opens). Of a corner coin's two edge grooves only one is listed (they
        lead to equal positions). Only called with no capturable coin on the board."""
        # The grooves of squares with two sides drawn: drawing one gives a square away.
        risky, w = 0, twos
        for table in self.square_runs:
            risky |= table[w & 255]
            w >>= 8
        taken = edges | risky
        for lo, hi in self.ground_pairs:
            if not edges & (lo | hi):
                taken |= hi
        safe_mask = self.full & ~taken
        if not safe_mask:
            return [], twos
        out = []
        for run, table in self.order_runs:
            x = safe_mask & run
            if x:
                out += table[x]
        return out, twos

    def _sacrifices(self, edges: int, twos: int) -> list[int]:
        """One groove to open each chain (a maximal run of two-string coins, ending on the
        ground or at coins with three or more strings) and each loop, shortest first.

        Why one is enough (with no capturable coin on the board, as here): wherever a chain of
        k coins is opened, the opponent's only answers worth searching (`_forced`) end in the
        same two positions: all k taken with every string of the chain cut, or k - 2 taken and
        the last pair handed back as an isolated domino (the same position up to where the
        domino lies). Opening a chain of two in the middle leaves the opponent only the first;
        at an end, both: so the middle (the hard-hearted handout) is never worse. A chain of
        one, or a loop (every opening is the same graph), has one answer set wherever opened.
        """
        sq_mask, other = self.sq_mask, self.other
        found = []
        while twos:
            low = twos & -twos
            s = low.bit_length() - 1
            twos ^= low
            a_b = sq_mask[s] & ~edges
            a = a_b & -a_b
            b = (a_b ^ a).bit_length() - 1
            a = a.bit_length() - 1
            # Walk from s through a as far as the two-string coins go.
            path = [a]
            via, cur = a, other[a][s]
            while cur >= 0 and twos >> cur & 1:
                twos ^= 1 << cur
                via = (sq_mask[cur] & ~edges & ~(1 << via)).bit_length() - 1
                path.append(via)
                cur = other[via][cur]
            if cur == s:
                # A loop: all its openings are one; the opener makes at most 4 - k.
                k = len(path)
                found.append((k, a, 4 - k))
                continue
            back = [b]
            via, cur = b, other[b][s]
            while cur >= 0 and twos >> cur & 1:
                twos ^= 1 << cur
                via = (sq_mask[cur] & ~edges & ~(1 << via)).bit_length() - 1
                back.append(via)
                cur = other[via][cur]
            k = len(path) + len(back) - 1  # coins: strings minus one
            if k == 2:
                # the middle string: the one of s's strings leading to the other coin
                g = a if len(path) == 2 else b
            else:
                g = path[-1]  # an end string: the opponent captures in one direction only
            found.append((k, g, 2 - k if k >= 3 else INF))
        found.sort()
        return found

    def _worth(self, sacrifices: list[tuple[int, int, int]], best: int) -> list[int]:
        """The sacrifices that may beat `best`, a value some move already makes. Opening a
        chain of k >= 3 is a loony move: the opponent may take all (the opener gets
        -(k + R), R the rest's value) or all but two (-(k - 2) + 2 + R), so the opener gets at
        most the mean, 2 - k, whatever R is; a loop of k, at most 4 - k (all, or all but
        four). (Leaving out those below alpha instead, with their bound as the node's,
        searched more: 3x3 from empty 94k -> 121k nodes; such loose bounds cost re-searches.)"""
        return [g for _, g, most in sacrifices if most > best]

    def _loony(self, edges: int) -> int | None:
        """The value by the long-chain theory when every coin left has one or two strings: the
        position is then independent chains and loops, some perhaps opened (a coin with one
        string is capturable). The mover takes every opened piece, and may hand back the last
        two coins of an opened chain or the last four of an opened loop to make the opponent
        open the next; then the closed chains and loops follow (`loony_value`)."""
        sq_mask, other = self.sq_mask, self.other
        ones, twos = [], []
        for s, mask in enumerate(sq_mask):
            n = (edges & mask).bit_count()
            if n == 2:
                twos.append(s)
            elif n == 3:
                ones.append(s)
            elif n != 4:
                return None
        seen = set()
        opened_chains, opened_loops = [], []
        for s in ones:
            if s in seen:
                continue
            # Walk from this capturable end to the ground or to another capturable end.
            seen.add(s)
            count, free_end = 1, False
            via = (sq_mask[s] & ~edges).bit_length() - 1
            cur = other[via][s]
            while cur >= 0:
                seen.add(cur)
                count += 1
                rest = sq_mask[cur] & ~edges & ~(1 << via)
                if not rest:
                    free_end = True
                    break
                via = rest.bit_length() - 1
                cur = other[via][cur]
            (opened_loops if free_end else opened_chains).append(count)
        chains, loops = [], []
        for s in twos:
            if s in seen:
                continue
            # Walk both ways from s along its strings; a chain reaches the ground at both ends.
            seen.add(s)
            count, closed = 1, False
            for g in self._strings(edges, s):
                cur, via = other[g][s], g
                while cur >= 0 and cur != s:
                    seen.add(cur)
                    count += 1
                    via = (sq_mask[cur] & ~edges & ~(1 << via)).bit_length() - 1
                    cur = other[via][cur]
                if cur == s:
                    closed = True
                    break
            (loops if closed else chains).append(count)
        rest_value = loony_value(tuple(sorted(chains)), tuple(sorted(loops)))
        if not ones:
            return rest_value
        taken = sum(opened_chains) + sum(opened_loops)
        best = taken + rest_value  # take everything, then open the next piece
        handed = (2 if any(n >= 2 for n in opened_chains)
                  else 4 if any(n >= 4 for n in opened_loops) else 0)
        if handed:
            best = max(best, taken - 2 * handed - rest_value)
        return best

    def _strings(self, edges: int, s: int) -> list[int]:
        free = self.sq_mask[s] & ~edges
        out = []
        while free:
            low = free & -free
            free ^= low
            out.append(low.bit_length() - 1)
        return out


# --- the compiled core ---------------------------------------------------------------------
#
# `CompiledSolver` is `Solver` with `_search` (and so the transposition table and the node
# count) in C (games/ai/tree_planting_core.c): the same nodes, move ordering, bounds, keys and
# symmetries, many times faster. Everything around the search (MTD(f), every move's value, the
# best moves, the opening book) is the Python solver's own code, and the pure-Python `Solver`
# stays the reference: tests/games/test_ai_tree_planting_core.py checks the core against it.
#
# The core is an optional C extension (setup.py): `pip install` builds it where a C compiler and
# Python's headers are (build-essential and python3-dev: ./dev installs them), and without them
# installs without it; then `core()` says "python" and why, and the Python solver answers (with
# a shorter reach: docs/ai.md, "Reach"). TREEBOARD_SOLVER_CORE=python in the environment chooses
# the Python solver even where the core is built (to compare, or to rule the core out).

try:
    from games.ai import tree_planting_core as _core
except ImportError as exc:  # not built (no compiler when installed): the Python solver answers
    _core = None
    _why_not = f"the compiled core is not built ({exc})"
else:
    _why_not = ""

#: The environment variable that chooses the Python solver although the core is built.
CHOOSE_ENV = "TREEBOARD_SOLVER_CORE"


def core() -> tuple[str, str]:
    """("compiled", the core's file) or ("python", why not compiled): which search
    `solver_for` gives to boards that fit the core."""
    if os.environ.get(CHOOSE_ENV, "").strip().lower() == "python":
        return "python", f"{CHOOSE_ENV}=python"
    if _core is None:
        return "python", _why_not
    return "compiled", _core.__file__


def fits(board: Board) -> bool:
    """Whether the core can hold this board: a position is one 64-bit word, so at most 64
    grooves (every named board up to `16`; the 29-square board and larger keep Python)."""
    return _core is not None and len(board.grooves) <= _core.MAX_GROOVES


def compiled_for(board: Board) -> bool:
    """Whether `solver_for` gives this board the compiled search."""
    return core()[0] == "compiled" and fits(board)


class CompiledSolver(Solver):
    """`Solver` with the search in C. Its `table` is the core itself (`get`, `len`, `clear`):
    a fixed array holding `max_entries` entries (16 bytes each), where a new entry may push
    out an old one instead of the whole table being cleared when full."""

    #: About 20 times the Python solver's speed (the same nodes) reaches 6 grooves further:
    #: 30 free grooves on the 16-square board take 0.14 s median and 0.26 s at most here
    #: (docs/ai.md, "Reach"), so a Pi 4's slower core still answers in about a second, well
    #: within the share of its cap a level gives the solver.
    exact_free = 30
    #: Each two grooves more multiply the work by about 5 to 8: 32 free take 0.8 s median here
    #: (5 s at most), 34 about 4 s (5 s at most of 4), 36 would take half a minute or more.
    reach_free = 34

    def _start(self, max_entries: int) -> None:
        if _core is None:
            raise RuntimeError(_why_not)
        self._core = _core.Core(self.geometry(), max_entries, OutOfTime)
        self._max_entries = max_entries

    def geometry(self) -> dict[str, Any]:
        """The Python solver's tables, as the core reads them (plain lists of ints)."""
        index_of_bit = {1 << i: i for i in range(len(self.board.cells))}
        return {
            "full": self.full,
            "sq_mask": list(self.sq_mask),
            "adj": [[index_of_bit[b] for b, _ in g.squares] for g in self.board.grooves],
            "normal_pairs": [b for pair in self.normal_pairs for b in pair],
            # each set's mask and its lowest 0..4 grooves (a square has at most four)
            "normal_sets": [x for mask, lowest in self.normal_sets
                            for x in [mask, *lowest, *[0] * (5 - len(lowest))]],
            "ground_pairs": [b for pair in self.ground_pairs for b in pair],
            "symmetries": self.symmetries,
            "inverse": self.inverse,
            "edge_mates": self.edge_mates,
            "order": self.order,
            "symmetric_drawn": SYMMETRIC_DRAWN,
        }

    @property
    def table(self):
        return self._core

    @property
    def nodes(self) -> int:
        return self._core.nodes

    @nodes.setter
    def nodes(self, value: int) -> None:
        self._core.nodes = value

    @property
    def max_entries(self) -> int:
        return self._max_entries

    @max_entries.setter
    def max_entries(self, value: int) -> None:
        # A larger table is a new, empty one: asked for rarely (`treeboard solve` after a game).
        if value != self._max_entries:
            self._core.resize(value)
            self._max_entries = value

    def _search(self, edges: int, threes: int, alpha: int, beta: int, twos: int = -1) -> int:
        # Called from outside only (the core recurses in C); `twos` is found there.
        return self._core.search(edges, threes, alpha, beta, self._deadline, self._clock)


# --- one solver per board, shared by every caller in the process --------------------------------

_solvers: dict[str, Solver] = {}

#: The table of the solvers the computer player and the hints share: about 100 bytes an
#: entry. On the classic board the opening book (games/ai/book.py, 16.5 MB) answers the
#: searches that needed millions of entries, and a whole game adds a few thousand; a process
#: with the book and this table full peaks at 70 MB (400,000 entries: 101 MB, past the dict's
#: next resize), within the 100 MB a Pi Zero 2 W can spare (benchmarks/book.py). A 3x3 hint
#: from empty takes 46,000. (The classic board from empty without the book fills 1.1 million
#: entries; `treeboard solve` allows that many.) The compiled core holds the same number in a
#: fixed array of 16-byte entries: 8 MB (524,288 entries, the next power of two).
PLAYER_TABLE_ENTRIES = 300_000


#: Solvers kept at once, the most recently asked for: a board (the computer's worker process)
#: runs for months, and each kept solver may hold a full table.
KEPT_SOLVERS = 2


def solver_for(board: Board, max_entries: int = PLAYER_TABLE_ENTRIES) -> Solver:
    """The process's solver for this board (its table kept between calls, for the last
    KEPT_SOLVERS boards asked about)."""
    s = _solvers.pop(board.spec, None)
    if s is None:
        if compiled_for(board):
            s = CompiledSolver(board, max_entries=max_entries)
        else:
            s = Solver(board, max_entries=max_entries)
        while len(_solvers) >= KEPT_SOLVERS:
            del _solvers[next(iter(_solvers))]  # the least recently asked for
    _solvers[board.spec] = s  # (re)inserted last: dicts keep insertion order
    s.max_entries = max(s.max_entries, max_entries)
    return s


# --- what the computer and `treeboard solve` ask (games/ai/tuning/__init__.py, exact_solver) ----

#: The computer tries the solver when at most this many grooves are free, or when the board's
#: opening book holds the position (`games.ai.book`); otherwise the MCTS gets the whole
#: budget. The pure-Python solver's: the compiled core reaches further
#: (`CompiledSolver.exact_free`); each solver says its own.
EXACT_FREE_GROOVES = Solver.exact_free
#: Beyond this many free grooves (and outside an opening book) no exact answer is within
#: reach, however long it runs (the Python solver's; `CompiledSolver.reach_free` the core's):
#: a 4x4 board from empty (40 free) would take far longer than anyone waits.
REACH_FREE_GROOVES = Solver.reach_free


def exact_values(state: TreePlantingState, *, deadline: float, clock: Callable[[], float],
                 only_best: bool = False, free: int | None = None) -> dict[Groove, int] | None:
    """Groove -> the final tree margin for the mover under perfect play after it, in board
    order (the computer takes the first best, or draws among them), or None when the
    position is too large (more than `free` grooves free; without `free`, more than the
    solver's `exact_free` outside the book) or the deadline passes first. With `only_best`,
    just the best grooves (each other groove needs only a null-window test, not its exact
    value; the first found will do)."""
    solver = solver_for(state.board)
    edges = state.position_key()[0]
    if free is not None:
        if len(state.legal_moves()) > free:
            return None  # a level that sees only the last `free` grooves exactly
    elif len(state.legal_moves()) > solver.exact_free and not solver.in_book(edges):
        return None
    a, b = state.scores()
    so_far = a - b if state.to_move == 0 else b - a
    try:
        if only_best:
            value, best = solver.best_moves(edges, first_only=True, deadline=deadline,
                                            clock=clock)
            values = dict.fromkeys(best, value)
        else:
            values = solver.move_values(edges, deadline=deadline, clock=clock)
    except OutOfTime:
        return None
    grooves = state.board.grooves
    return {grooves[g]: so_far + v for g, v in sorted(values.items())}


def out_of_reach(state: TreePlantingState) -> str | None:
    """Why no exact answer for `state` is within reach however long the solver runs (for
    `treeboard solve`), or None. Raises BookError when the board's shipped book is missing or
    damaged."""
    free = len(state.legal_moves())
    solver = solver_for(state.board)
    if free <= solver.reach_free or solver.in_book(state.position_key()[0]):
        return None
    return (f"{free} grooves are free (the solver reaches about {solver.reach_free}, the "
            "classic board through its opening book)")


def solve(state: TreePlantingState, *, deadline: float | None = None,
          clock: Callable[[], float] | None = None) -> tuple[int, list[Groove]]:
    """(the final tree margin for the player to move under perfect play, the best grooves in
    board order). Raises OutOfTime past `deadline` (read from `clock`), saying how many
    grooves were free."""
    solver = solver_for(state.board, max_entries=4_000_000)
    edges = state.position_key()[0]
    try:
        rest, best = solver.best_moves(edges, deadline=deadline, clock=clock)
    except OutOfTime:
        raise OutOfTime(f"{len(state.legal_moves())} grooves free") from None
    a, b = state.scores()
    so_far = a - b if state.to_move == 0 else b - a
    grooves = state.board.grooves
    return so_far + rest, [grooves[g] for g in sorted(best)]


def search_core(state: TreePlantingState) -> str:
    """Which search answers `state`'s board: "compiled" (the C core) or "python"."""
    return "compiled" if isinstance(solver_for(state.board), CompiledSolver) else "python"


# --- puzzles (games/ai/puzzles.py asks a game's exact solver these two) -------------------------

def walk_to_endgame(state: TreePlantingState, rng: Any, free: int) -> None:
    """Play on until at most `free` grooves are free: a random groove that hands nothing over
    while there is one (squares closed are taken as they come), so the game reaches its chain
    endgame."""
    while not state.is_over() and len(state.legal_moves()) > free:
        legal = state.legal_moves()
        safe = [g for g in legal if not state.gives_away(g)]
        state.play(rng.choice(safe or legal))


def puzzle_theme(state: TreePlantingState, groove: Groove) -> str:
    """What a puzzle's one winning groove teaches: taking a square of a chain
    ("chain-endgame"), the double deal that gives two squares to keep control ("sacrifice"),
    the last groove that hands nothing over ("long-chain": the other side must open the
    chains), or else opening the chain that gives least ("chain-endgame")."""
    board = state.board
    sides = [i for i, s in enumerate(board.square_grooves) if groove in s]
    if any(state.sides_drawn(i) == 3 for i in sides):
        return "chain-endgame"
    for i in sides:
        if state.sides_drawn(i) != 2:
            continue
        free = [g for g in board.square_grooves[i] if g is not groove and not state.drawn(g)]
        if len(free) == 1 and any(j != i and free[0] in other and state.sides_drawn(j) == 3
                                  for j, other in enumerate(board.square_grooves)):
            return "sacrifice"
    if not state.gives_away(groove):
        state.play(groove)
        try:
            if all(state.gives_away(g) for g in state.legal_moves()):
                return "long-chain"
        finally:
            state.undo()
    return "chain-endgame"

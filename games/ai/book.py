"""The opening book: exact values of the early positions of a Tree Planting board, read from
package data (`games/ai/data/<name>.book`, built by `tools/build_book.py`).

The search needs seconds from the start of the classic board and milliseconds a few grooves
later; the book answers the first `depth` layers (every position with at most that many
grooves drawn) by a lookup, so with the endgame search every position is answered quickly.

A position's future depends only on its set of drawn grooves, so the book holds one value per
set: the margin the player to move still gains under perfect play. Layer k holds the sets of
k grooves in colexicographic order (the order of their bitmasks as integers), so a set's place
in its layer is its combinatorial rank: the sum of C(c_i, i + 1) over its grooves
c_0 < c_1 < ... (0-based i).

File format (all of it checked on loading; anything wrong raises BookError naming the file
and what was expected, never a wrong value):

    TREEBOOK 1\\n
    {"board": spec, "grooves": n, "depth": K, "layers": [C(n, 0), ..., C(n, K)],
     "sha256": hex digest of the values}\\n
    the values, one signed byte each, layer after layer, lzma-compressed

Loaded lazily, on the first question about its board, then kept (one byte a position:
16.5 MB for the classic board to depth 9). No other I/O; no threads.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import threading
from importlib import resources
from math import comb
from pathlib import Path

from treeboard.exc import TreeboardError

MAGIC = b"TREEBOOK 1\n"

#: The boards with a shipped book: board spec -> file name under games/ai/data/.
BOOKS: dict[str, str] = {"####/####/###.": "classic.book"}


class BookError(TreeboardError):
    """A book file that is missing, truncated or corrupted (the message names the file)."""


def colex_rank(edges: int) -> int:
    """The place of this set of grooves among the sets of as many grooves, in colex order."""
    rank, i = 0, 0
    while edges:
        low = edges & -edges
        edges ^= low
        i += 1
        rank += comb(low.bit_length() - 1, i)
    return rank


class Book:
    """The exact values of the positions of one board with at most `depth` grooves drawn."""

    def __init__(self, board_spec: str, grooves: int, depth: int, values):
        self.board_spec = board_spec
        self.grooves = grooves
        self.depth = depth
        self.values = values
        self.offsets = [0]
        for k in range(depth):
            self.offsets.append(self.offsets[-1] + comb(grooves, k))

    def covers(self, edges: int) -> bool:
        return edges.bit_count() <= self.depth

    def value(self, edges: int) -> int | None:
        """The margin the mover gains from here under perfect play; None past the book."""
        k = edges.bit_count()
        if k > self.depth:
            return None
        return self.values[self.offsets[k] + colex_rank(edges)]


def load(path, board_spec: str, grooves: int) -> Book:
    """Read and check a book file (a path, or a package resource) for the board with this
    spec and number of grooves."""
    if isinstance(path, str):
        path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise BookError(f"{path}: the opening book of board {board_spec!r} is missing "
                        "(rebuild it with tools/build_book.py, see docs/ai.md)") from None
    return parse(raw, str(path), board_spec, grooves)


def parse(raw: bytes, name: str, board_spec: str, grooves: int) -> Book:
    """The book in `raw` (the bytes of the file `name`), checked against the board."""
    if not raw.startswith(MAGIC):
        raise BookError(f"{name}: not a book file (expected it to start with {MAGIC!r})")
    end = raw.find(b"\n", len(MAGIC))
    if end < 0:
        raise BookError(f"{name}: truncated in its header (expected a JSON line after "
                        f"{MAGIC!r})")
    try:
        head = json.loads(raw[len(MAGIC):end])
        spec, n, depth = head["board"], head["grooves"], head["depth"]
        layers, digest = head["layers"], head["sha256"]
    except (ValueError, KeyError, TypeError) as e:
        raise BookError(f"{name}: bad header (expected JSON with board, grooves, depth, "
                        f"layers, sha256): {e}") from None
    if spec != board_spec or n != grooves:
        raise BookError(f"{name}: a book of board {spec!r} ({n} grooves), expected board "
                        f"{board_spec!r} ({grooves} grooves)")
    if not isinstance(depth, int) or not 0 <= depth <= n:
        raise BookError(f"{name}: depth {depth!r}, expected a number of grooves 0..{n}")
    expected = [comb(n, k) for k in range(depth + 1)]
    if layers != expected:
        raise BookError(f"{name}: layer sizes {layers!r}, expected {expected} "
                        f"(C({n}, k) for k = 0..{depth})")
    total = sum(expected)
    data = _decompress(raw[end + 1:], total, name)
    if hashlib.sha256(data).hexdigest() != digest:
        raise BookError(f"{name}: the values do not match the header's sha256 (corrupted)")
    values = memoryview(data).toreadonly().cast("b")  # signed bytes, no copy
    return Book(spec, n, depth, values)


def _decompress(packed: bytes, total: int, name: str) -> bytearray:
    """Exactly `total` bytes from the lzma stream, decompressed in pieces straight into their
    buffer: `lzma.decompress` would hold the whole output twice while joining its pieces
    (the book is the largest thing in the process on a board with 512 MB)."""
    out = bytearray(total)
    dec = lzma.LZMADecompressor()
    pos = 0
    try:
        while not dec.eof:
            piece = dec.decompress(packed, max_length=1 << 20)
            packed = b""
            if not piece and dec.needs_input:
                break  # the stream ended early
            if pos + len(piece) > total:
                raise BookError(f"{name}: more values than the header's {total}")
            out[pos:pos + len(piece)] = piece
            pos += len(piece)
    except lzma.LZMAError as e:
        raise BookError(f"{name}: the values do not decompress ({e}): the file is "
                        "truncated or corrupted") from None
    if not dec.eof or pos != total:
        raise BookError(f"{name}: {pos} values, expected {total}: the file is truncated or "
                        "corrupted")
    return out


_books: dict[str, Book] = {}  # at most one per entry of BOOKS
_lock = threading.Lock()  # the web page's review and the computer's worker may both ask


def book_for(board) -> Book | None:
    """The board's book, loaded on the first call and kept; None for a board without one.
    Raises BookError when the board's shipped book file is missing or damaged."""
    spec = board.spec
    name = BOOKS.get(spec)
    if name is None:
        return None  # not remembered: any number of drawn boards may ask
    book = _books.get(spec)
    if book is None:
        with _lock:
            book = _books.get(spec)
            if book is None:
                book = _books[spec] = load(resources.files("games.ai").joinpath("data", name),
                                           spec, len(board.grooves))
    return book

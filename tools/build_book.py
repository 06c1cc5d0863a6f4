"""Build the opening book of a Tree Planting board: the exact value of every position with at
most DEPTH grooves drawn, written as `games/ai/data/<board>.book` (format: games/ai/book.py).

    python tools/build_book.py [--board classic] [--depth 9] [--out PATH]

Needs numpy (`pip install -e '.[build]'`); the book itself is read without it.

Retrograde, over every set of drawn grooves (2^29 for the classic board: one signed byte each,
512 MiB, a few minutes on one core): a position's future depends only on its drawn grooves,
so V(all drawn) = 0 and V(e) = the best, over the free grooves g, of `trees + V(e | g)` when
drawing g plants trees (the mover moves again), else `-V(e | g)`. Layer by layer, the most
grooves drawn first, so each e | g is known before e. Deterministic: the same board and depth
give the same file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import sys
import time
from math import comb
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.ai.book import BOOKS, MAGIC  # noqa: E402
from games.tree_planting import Board  # noqa: E402

#: lzma's best, with a 4 MiB window: the loader needs that much memory for it (the default
#: 64 MiB would make loading the book the process's peak); the file grows by a tenth.
FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": 1 << 22}]
#: The largest board this builds: 2^30 bytes of values and the layers' index arrays.
MAX_GROOVES = 30


def layer(n: int, k: int, popcounts: np.ndarray) -> np.ndarray:
    """Every set of k of n grooves, as bitmasks in increasing order (= colex order)."""
    return np.flatnonzero(popcounts == k).astype(np.uint32)


def all_values(board: Board, *, log=print) -> np.ndarray:
    """The value of every set of drawn grooves, indexed by its bitmask (int8)."""
    n = len(board.grooves)
    if n > MAX_GROOVES:
        raise ValueError(f"board {board.name!r} has {n} grooves; the builder takes at most "
                         f"{MAX_GROOVES} (2^n values in memory)")
    values = np.zeros(1 << n, dtype=np.int8)
    popcounts = np.bitwise_count(np.arange(1 << n, dtype=np.uint32)).astype(np.uint8)
    # For each groove, the masks of the squares it borders (one or two).
    sides = [[mask for _, mask in g.squares] for g in board.grooves]
    for k in range(n - 1, -1, -1):
        start = time.process_time()
        masks = layer(n, k, popcounts)
        best = np.full(len(masks), -128, dtype=np.int8)
        for g in range(n):
            bit = np.uint32(1 << g)
            child = masks | bit
            after = values[child]
            trees = np.zeros(len(masks), dtype=np.int8)
            for m in sides[g]:
                m = np.uint32(m)
                trees += (child & m) == m
            # A groove already drawn gives child == e itself: masked out below.
            v = np.where(trees > 0, trees + after, -after)
            v[(masks & bit) != 0] = -128
            np.maximum(best, v, out=best)
        values[masks] = best
        log(f"  layer {k:2d}: {len(masks):>10,} positions, {time.process_time() - start:.1f} s")
    return values


def book_bytes(board: Board, values: np.ndarray, depth: int) -> bytes:
    """The book file: the header, then layers 0..depth of `values`, lzma-compressed."""
    n = len(board.grooves)
    popcounts = np.bitwise_count(np.arange(1 << n, dtype=np.uint32)).astype(np.uint8)
    data = b"".join(values[layer(n, k, popcounts)].tobytes() for k in range(depth + 1))
    head = {"board": board.spec, "grooves": n, "depth": depth,
            "layers": [comb(n, k) for k in range(depth + 1)],
            "sha256": hashlib.sha256(data).hexdigest()}
    return (MAGIC + json.dumps(head).encode() + b"\n"
            + lzma.compress(data, filters=FILTERS))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="classic")
    ap.add_argument("--depth", type=int, default=9,
                    help="the book holds every position with at most this many grooves drawn")
    ap.add_argument("--out", type=Path, help="default: games/ai/data/<the board's book>")
    args = ap.parse_args(argv)
    board = Board.get(args.board)
    out = args.out
    if out is None:
        if board.spec not in BOOKS:
            ap.error(f"board {args.board!r} has no entry in games.ai.book.BOOKS: give --out")
        out = ROOT / "games" / "ai" / "data" / BOOKS[board.spec]
    n = len(board.grooves)
    if not 0 <= args.depth <= n:
        ap.error(f"--depth {args.depth}: expected 0..{n}")
    wall, cpu = time.perf_counter(), time.process_time()
    print(f"board {board.name} ({board.spec}): {n} grooves, {1 << n:,} positions")
    values = all_values(board)
    print(f"value of the empty board: {int(values[0])}")
    blob = book_bytes(board, values, args.depth)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(blob)
    kept = sum(comb(n, k) for k in range(args.depth + 1))
    print(f"wrote {out}: layers 0..{args.depth}, {kept:,} values, {len(blob):,} bytes; "
          f"{time.process_time() - cpu:.0f} s CPU, {time.perf_counter() - wall:.0f} s wall")


if __name__ == "__main__":
    main()

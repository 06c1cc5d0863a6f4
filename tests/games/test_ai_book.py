"""The opening book: its builder against the solver on small boards, its ranking, the shipped
classic book against the solver, and what a damaged book file does."""

from __future__ import annotations

import json
import random
import sys
from math import comb
from pathlib import Path

import pytest

import games
import games.ai
from games.ai import book as book_mod
from games.ai import tree_planting as tree_planting_ai
from games.ai.book import MAGIC, BookError, book_for, colex_rank, load, parse
from games.ai.tree_planting import Solver, solve
from games.tree_planting import Board

np = pytest.importorskip("numpy")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import build_book  # noqa: E402

GAME = games.get_game("tree-planting")
CLASSIC = Board.get("classic")


def test_colex_rank_is_the_place_among_sets_of_as_many_grooves():
    n = 10
    seen = {k: 0 for k in range(n + 1)}
    for edges in range(1 << n):  # increasing bitmasks: colex order within each size
        k = edges.bit_count()
        assert colex_rank(edges) == seen[k]
        seen[k] += 1
    assert seen == {k: comb(n, k) for k in range(n + 1)}


@pytest.mark.parametrize("board", ["2x2", "1x3"])
def test_builder_matches_the_solver_on_every_position(board):
    b = Board.get(board)
    values = build_book.all_values(b, log=lambda *a: None)
    solver = Solver(b)
    solver.book = None
    assert [solver.value(e) for e in range(1 << len(b.grooves))] == values.tolist()


def test_builder_matches_the_solver_on_2x3():
    b = Board.get("2x3")
    values = build_book.all_values(b, log=lambda *a: None)
    solver = Solver(b)
    solver.book = None
    rng = random.Random(5)
    for e in [0] + rng.sample(range(1 << len(b.grooves)), 300):
        assert values[e] == solver.value(e), bin(e)


@pytest.fixture(scope="module")
def small_book() -> tuple[Board, np.ndarray, bytes]:
    b = Board.get("2x3")
    values = build_book.all_values(b, log=lambda *a: None)
    return b, values, build_book.book_bytes(b, values, 6)


def test_a_written_book_reads_back_every_value(small_book, tmp_path):
    b, values, blob = small_book
    path = tmp_path / "2x3.book"
    path.write_bytes(blob)
    book = load(path, b.spec, len(b.grooves))
    assert book.depth == 6
    for e in range(1 << len(b.grooves)):
        if e.bit_count() <= 6:
            assert book.value(e) == values[e]
        else:
            assert book.value(e) is None and not book.covers(e)
    # Deterministic: the same board and depth give the same bytes.
    assert build_book.book_bytes(b, values, 6) == blob


def _header(blob: bytes) -> dict:
    return json.loads(blob[len(MAGIC):blob.index(b"\n", len(MAGIC))])


def _with_header(blob: bytes, head: dict) -> bytes:
    return MAGIC + json.dumps(head).encode() + blob[blob.index(b"\n", len(MAGIC)):]


def test_damaged_books_are_refused_naming_the_file(small_book, tmp_path):
    b, _, blob = small_book
    spec, n = b.spec, len(b.grooves)
    bad_sha = _with_header(blob, {**_header(blob), "sha256": "0" * 64})
    bad_layers = _with_header(blob, {**_header(blob), "layers": [1, 17]})
    cases = {
        "truncated": (blob[:-40], "truncated or corrupted"),
        "cut in the header": (blob[:len(MAGIC) + 5], "truncated in its header"),
        "not a book": (b"hello" + blob, "not a book file"),
        "values changed": (bad_sha, "do not match the header's sha256"),
        "layers": (bad_layers, "expected [1, 17, 136"),
        "header": (MAGIC + b"{nope\n" + blob, "bad header"),
        "too many values": (_with_header(blob, {**_header(blob), "depth": 5, "layers": [
            comb(n, k) for k in range(6)]}), "more values than the header's"),
    }
    for what, (raw, message) in cases.items():
        path = tmp_path / f"{what}.book"
        path.write_bytes(raw)
        with pytest.raises(BookError) as e:
            load(path, spec, n)
        assert str(path) in str(e.value) and message in str(e.value), what
    with pytest.raises(BookError, match="a book of board '##/##'.*expected board '###/###'"):
        parse(build_book.book_bytes(Board.get("2x2"), np.zeros(1 << 12, np.int8), 2), "x",
              spec, n)
    missing = tmp_path / "none.book"
    with pytest.raises(BookError, match=f"{missing}: the opening book of board .* is missing"):
        load(missing, spec, n)


def test_a_missing_shipped_book_is_an_error_not_a_slow_or_wrong_answer(monkeypatch):
    # `treeboard solve` without its book: tests/board_driver/test_ai_commands.py.
    b = Board.get("2x3")
    monkeypatch.setitem(book_mod.BOOKS, b.spec, "no-such.book")
    monkeypatch.setattr(book_mod, "_books", {})
    monkeypatch.setattr(tree_planting_ai, "_solvers", {})  # solvers keep the book they found
    with pytest.raises(BookError, match=r"no-such\.book: the opening book of board '###/###'"):
        book_for(b)
    with pytest.raises(BookError):
        Solver(b).value(0)


def as_players_play(drawn: int, rng: random.Random):
    """A classic position after `drawn` grooves, none giving a square away while one can."""
    state = GAME.new_state(board="classic")
    for _ in range(drawn):
        free = list(state.legal_moves())
        safe = [g for g in free if not state.gives_away(g)]
        state.play(rng.choice(safe or free))
    return state


def test_the_shipped_classic_book_agrees_with_the_search():
    book = book_for(CLASSIC)
    assert book is not None and book.depth >= 5
    search = Solver(CLASSIC)
    search.book = None
    rng = random.Random(11)
    for drawn in (book.depth, book.depth, book.depth - 1):
        edges = as_players_play(drawn, rng).position_key()[0]
        assert book.value(edges) == search.value(edges)
    # The last layer's positions: the book's value, its children's by search.
    state = as_players_play(book.depth, rng)
    edges = state.position_key()[0]
    with_book = Solver(CLASSIC)
    values = with_book.move_values(edges)
    assert max(values.values()) == book.value(edges) == with_book.value(edges)
    assert with_book.best_moves(edges) == search.best_moves(edges)


def test_the_classic_board_is_exact_from_the_start():
    state = GAME.new_state(board="classic")
    book = book_for(CLASSIC)
    rows = games.ai.analyse(state, seconds=0.01)
    assert len(rows) == 29 and all(r.exact for r in rows)
    values = {str(r.move): r.value for r in rows}
    # Each move's value from the book's next layer, worked out here from its definition.
    for g in CLASSIC.grooves:
        assert values[g.name] == -book.value(g.bit)  # one groove never plants a tree
    value, best = solve(state)
    assert value == book.value(0) == rows[0].value
    assert [g.name for g in best] == sorted((k for k, v in values.items() if v == value),
                                            key=lambda name: CLASSIC.groove[name].index)
    assert str(games.ai.best_move(state, seconds=0.01)) in {g.name for g in best}
    # After two moves (still past the solver's own limit of free grooves): still exact.
    state.play(CLASSIC.grooves[0])
    state.play(CLASSIC.grooves[28])
    assert all(r.exact for r in games.ai.analyse(state, seconds=0.01))

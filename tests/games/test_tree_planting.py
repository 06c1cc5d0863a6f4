"""Tree Planting: boards, rules, errors, round trips, and exact values from a brute force."""

from __future__ import annotations

import json
import random
from functools import lru_cache

import pytest
from hypothesis import given, strategies as st

import games
from games.tree_planting import NAMED_BOARDS, Board, solve

GAME = games.get_game("tree-planting")


def new(board="classic"):
    return GAME.new_state(board=board)


# --- boards -------------------------------------------------------------------------------

def test_classic_board_has_11_squares_and_29_grooves():
    s = new()
    assert len(s.board.cells) == 11
    assert len(s.board.grooves) == 29
    assert len(s.legal_moves()) == 29
    assert s.board.draw() == "####\n####\n###."


@pytest.mark.parametrize("name,squares", [("16", 16), ("29", 29), ("40", 40), ("50", 50), ("64", 64)])
def test_named_boards_have_the_common_sizes(name, squares):
    assert len(new(name).board.cells) == squares


def test_rectangle_and_ascii_art_boards():
    rect = new("3x4")
    assert (rect.board.rows, rect.board.cols, len(rect.board.grooves)) == (3, 4, 31)
    assert rect.options() == {"board": "3x4"}
    art = new("##/#.")
    assert sorted(map(str, art.legal_moves())) == sorted(
        ["h0.0", "h0.1", "h1.0", "h1.1", "h2.0", "v0.0", "v0.1", "v0.2", "v1.0", "v1.1"])
    assert art.options() == {"board": "##/#."}


def test_groove_notation_at_the_edges_of_the_board():
    s = new("2x3")
    names = {str(g) for g in s.legal_moves()}
    assert "h2.2" in names  # bottom edge of the last row
    assert "v1.3" in names  # right edge of the last column
    assert "h3.0" not in names and "v0.4" not in names


@pytest.mark.parametrize("board,words", [
    ("", "is not a known board"),
    ("....", "no squares"),
    ("#./.#", "not connected"),
    ("##/x#", "is not a known board"),
    ("0x3", "rows and columns"),
    ("99x2", "rows and columns"),
])
def test_bad_boards_are_refused_with_a_clear_error(board, words):
    with pytest.raises(games.BadOptions, match=words):
        new(board)


def test_unknown_option_is_refused():
    with pytest.raises(games.BadOptions, match="no option 'size'"):
        GAME.new_state(size=3)


# --- rules --------------------------------------------------------------------------------

def test_a_move_that_plants_nothing_passes_the_turn():
    s = new()
    s.play("h0.0")
    assert s.to_move == 1
    assert s.scores() == (0, 0)


def test_fourth_side_plants_a_tree_and_the_mover_draws_again():
    s = new()
    for m in ["h0.0", "h1.0", "v0.0"]:
        s.play(m)
    assert s.to_move == 1
    s.play("v0.1")  # player 1 closes square (0, 0)
    assert s.scores() == (0, 1)
    assert s.to_move == 1  # and goes again
    assert s.occupancy()["t0.0"] == "tree:1"
    assert s.last_planted() == ["t0.0"]


def test_one_groove_closing_two_squares_plants_two_trees_and_one_more_move():
    s = new("1x2")
    for m in ["h0.0", "h0.1", "h1.0", "h1.1", "v0.0", "v0.2"]:
        s.play(m)
    mover = s.to_move
    s.play("v0.1")
    assert s.scores()[mover] == 2
    assert s.is_over()
    assert s.winner() == mover


def test_game_ends_when_every_groove_is_drawn_and_most_trees_wins():
    s = new("1x1")
    s.play_all(["h0.0", "h1.0", "v0.0"])
    assert not s.is_over() and s.winner() is None
    s.play("v0.1")
    assert s.is_over()
    assert s.scores() == (0, 1)  # moves alternate 0, 1, 0, 1: player 1 drew the fourth side
    assert s.winner() == 1
    assert s.legal_moves() == []


def test_draw_reports_no_winner():
    # 2x1 board: find a full game ending 1:1 by search, then check winner() is None.
    rng = random.Random(3)
    for _ in range(200):
        s = new("1x2")
        s.playout(rng)
        if s.scores() == (1, 1):
            assert s.is_over() and s.winner() is None
            return
    pytest.fail("no drawn game found in 200 random games")


def test_occupancy_lists_rods_and_trees_with_owner():
    s = new("1x1")
    s.play_all(["h0.0", "h1.0"])
    assert s.occupancy() == {"h0.0": "rod", "h1.0": "rod"}
    s.play_all(["v0.0", "v0.1"])
    assert s.occupancy() == {"h0.0": "rod", "h1.0": "rod", "v0.0": "rod", "v0.1": "rod",
                             "t0.0": "tree:1"}
    assert set(s.sites()) == {"h0.0", "h1.0", "v0.0", "v0.1", "t0.0"}


def test_gives_away_flags_the_third_side():
    s = new("1x2")
    s.play_all(["h0.0", "h1.0"])
    assert s.gives_away("v0.0")       # square 0 would have three sides
    assert not s.gives_away("h0.1")   # square 1 would have one
    s.play("v0.0")
    assert not s.gives_away("v0.1")   # it completes square 0: the mover goes again


# --- errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("text,words", [
    ("h9.9", "no groove h9.9"),
    ("x1", "a move is a groove"),
    ("", "a move is a groove"),
    ("t0.0", "that is a hole"),
])
def test_bad_notation_is_refused_and_changes_nothing(text, words):
    s = new()
    s.play("h0.0")
    before = s.to_json()
    with pytest.raises(games.InvalidNotation, match=words):
        s.play(text)
    assert s.to_json() == before


def test_a_drawn_groove_cannot_be_drawn_again():
    s = new()
    s.play("h0.0")
    before = s.copy()
    with pytest.raises(games.IllegalMove, match="already has a rod") as info:
        s.play("h0.0")
    assert isinstance(info.value, ValueError)
    assert s == before and s.legal_moves() == before.legal_moves()


def test_no_move_after_the_game_is_over():
    s = new("1x1")
    s.play_all(["h0.0", "h1.0", "v0.0", "v0.1"])
    with pytest.raises(games.IllegalMove, match="game is over"):
        s.play("h0.0")


def test_undo_with_no_moves_raises_index_error():
    with pytest.raises(IndexError):
        new().undo()


def test_non_string_move_is_refused():
    with pytest.raises(games.InvalidNotation):
        new().play(42)


def test_moves_from_another_state_of_the_same_board_are_accepted():
    a, b = new("3x4"), new("3x4")
    g = a.legal_moves()[0]
    b.play(g)
    assert str(b.moves[0]) == str(g)
    c = new("classic")
    c.play(new("2x2").parse_move("h0.0"))  # same name exists on classic
    with pytest.raises(games.InvalidNotation):
        new("1x1").play(new("classic").parse_move("h3.2"))


# --- round trips and properties -------------------------------------------------------------

def test_json_round_trip_and_replay_object_shape():
    s = new()
    s.play_all(["h0.0", "h1.0", "v0.0", "v0.1"])
    data = json.loads(s.to_json())
    assert set(data) == {"game", "board", "moves", "scores", "to_move", "over", "winner"}
    t = games.load_state(s.to_json())
    assert t == s and t.scores() == s.scores() and t.to_move == s.to_move


@pytest.mark.parametrize("text,words", [
    ("not json", "not JSON"),
    ("[1]", "JSON object"),
    ('{"game": "chess"}', "no known game"),
    ('{"game": "tree-planting", "board": "classic", "moves": ["h0.0", "h0.0"]}', "move 2"),
    ('{"game": "tree-planting", "moves": "h0.0"}', "list of move texts"),
])
def test_bad_saved_games_are_refused(text, words):
    with pytest.raises(games.GameError, match=words):
        games.load_state(text)


boards = st.sampled_from(["1x1", "1x3", "2x2", "3x3", "classic", "##./.##/..#", "16", "#.#/###"])


# Notation, undo, copy, JSON and playout round trips: tests/games/test_conformance.py, for
# every game.

@given(board=boards, seed=st.integers(0, 2**32 - 1), cut=st.floats(0, 1))
def test_random_games_keep_trees_equal_to_completed_squares(board, seed, cut):
    rng = random.Random(seed)
    s = new(board)
    stop = int(len(s.board.grooves) * cut)
    while not s.is_over() and len(s.moves) < stop:
        s.play(rng.choice(s.legal_moves()))
        # trees == completed squares, each owned once
        done = sum(1 for i in range(len(s.board.cells)) if s.sides_drawn(i) == 4)
        assert sum(s.scores()) == done
        assert all(s.owner(i) is not None for i in range(len(s.board.cells))
                   if s.sides_drawn(i) == 4)


@given(board=boards, seed=st.integers(0, 2**32 - 1))
def test_a_playout_plays_to_the_end(board, seed):
    s = new(board)
    s.playout(random.Random(seed))
    assert s.is_over()


# --- exact game values from an independent brute force ---------------------------------------

def brute_force_value(cells: list[tuple[int, int]]) -> int:
    """Final margin (first player minus second) under perfect play, written from the rules
    alone: squares as sets of edge names, no code shared with the engine."""
    squares = [frozenset({("h", r, c), ("h", r + 1, c), ("v", r, c), ("v", r, c + 1)})
               for r, c in cells]
    edges = frozenset().union(*squares)

    @lru_cache(maxsize=None)
    def best(drawn: frozenset) -> int:  # margin the player to move gains from here on
        if drawn == edges:
            return 0
        results = []
        for e in edges - drawn:
            after = drawn | {e}
            gained = sum(1 for sq in squares if e in sq and sq <= after)
            results.append(gained + best(after) if gained else -best(after))
        return max(results)

    return best(frozenset())


@pytest.mark.parametrize("board", ["1x1", "1x2", "1x3", "2x2", "##/#.", "#./##/.#"])
def test_solver_matches_an_independent_brute_force(board):
    s = new(board)
    margin, best = solve(s)
    assert margin == brute_force_value(Board.get(board).cells)
    # every move the solver calls best really reaches that margin
    for g in best:
        t = s.copy()
        t.play(g)
        m2, _ = solve(t)
        assert m2 == margin


def test_known_small_values():
    assert solve(new("1x1"))[0] == -1   # 4 grooves: the second player draws the fourth
    assert solve(new("2x2"))[0] == brute_force_value(Board.get("2x2").cells)


def test_named_boards_match_their_drawings_in_the_docs():
    from pathlib import Path
    doc = (Path(__file__).parents[2] / "docs/games/tree-planting.md").read_text()
    for name, spec in NAMED_BOARDS.items():
        if name != "11":
            assert "\n".join(spec.split("/")) in doc, f"board {name} is not drawn in the docs"

"""Fangqi: every rule and every reading of docs/games/fangqi.md, on hand-built positions."""

from __future__ import annotations

import json

import pytest

import games
from fangqi_positions import SLIDE, position
from games.base import BadOptions, GameError, IllegalMove, InvalidNotation
from games.fangqi import GAME, Move


def fill(picture: list[str], **options):
    """A state just after placement: `picture` rows top first, B black, W white. Black's and
    White's counters are placed alternately in reading order (bottom row first)."""
    rows = len(picture)
    cols = len(picture[0])
    state = GAME.new_state(board=f"{rows}x{cols}p", **options)
    black, white = [], []
    for r, line in enumerate(reversed(picture)):
        for c, ch in enumerate(line):
            (black if ch == "B" else white).append(f"{'abcdefghijklmnopqrstuvwxyz'[c]}{r + 1}")
    order = [m for pair in zip(black, white) for m in pair] + black[len(white):]
    state.play_all(order)
    return state


def names(moves) -> list[str]:
    return [str(m) for m in moves]


# A 4x4 board (even: Black removes first). Black has the square a1-b2, White a3-b4.
FOUR = [
    "WWBW",
    "WWBB",
    "BBWW",
    "BBWB",
]


# --- boards, counters, options -------------------------------------------------------------

@pytest.mark.parametrize("board,rows,cols", [("6x6", 7, 7), ("6x7", 7, 8), ("8x8", 8, 8),
                                             ("5x6", 5, 6), ("6x6p", 6, 6), ("2x2", 2, 2)])
def test_boards_are_named_or_points(board, rows, cols):
    state = GAME.new_state(board=board)
    assert (state.grid.rows, state.grid.cols) == (rows, cols)
    assert len(state.sites()) == rows * cols
    assert state.sites()[:2] == ["a1", "b1"] and state.sites()[-1] == f"{'abcdefgh'[cols - 1]}{rows}"


@pytest.mark.parametrize("board", ["6 x 6", "6x6points", "6x6 points", "6 x 6p",
                                   "6 x 7", "6x7points"])
def test_board_names_that_could_mean_squares_or_points_are_refused(board):
    # 6x6 is the folk board of 6x6 squares (49 points); 6x6p is 6x6 points (36): a spelling
    # that could be either is refused, naming both.
    with pytest.raises(BadOptions, match=r"ambiguous: 6x[67] is the board of .* points\), "
                                         r"6x[67]p is"):
        GAME.new_state(board=board)


@pytest.mark.parametrize("board,rows,cols", [("6x6", 7, 7), (" 6X6 ", 7, 7), ("6x6p", 6, 6),
                                             ("8 x 8", 8, 8), ("5 x 6", 5, 6)])
def test_unambiguous_board_names_still_work(board, rows, cols):
    state = GAME.new_state(board=board)
    assert (state.grid.rows, state.grid.cols) == (rows, cols)


@pytest.mark.parametrize("board,black,white", [("6x6", 25, 24), ("6x7", 28, 28), ("8x8", 32, 32),
                                               ("3x3", 5, 4)])
def test_each_player_has_half_the_points_black_one_more_on_odd(board, black, white):
    state = GAME.new_state(board=board)
    assert (state.in_hand(0), state.in_hand(1)) == (black, white)
    assert state.scores() == (black, white)


@pytest.mark.parametrize("options,words", [
    ({"board": "9"}, "not a named board"),
    ({"board": "1x5"}, "2..26"),
    ({"board": "27x3"}, "2..26"),
    ({"board": 66}, "must be text"),
    ({"extra_removal": "maybe"}, "extra_removal must be true or false"),
    ({"repeat_squares": 1}, "repeat_squares must be true or false"),
    ({"quiet_limit": 0}, "quiet_limit must be a whole number 1..1000"),
    ({"quiet_limit": "many"}, "quiet_limit"),
    ({"quiet_result": "counter"}, "quiet_result must be draw .* or counters"),
    ({"colour": "red"}, "no option 'colour'"),
])
def test_bad_options_are_refused_by_name(options, words):
    with pytest.raises(BadOptions, match=words):
        GAME.new_state(**options)


def test_options_as_text_from_a_layout_or_the_command_line():
    state = GAME.new_state(board="4x4", extra_removal="false", repeat_squares="False",
                           quiet_limit="7", morris="true", quiet_result="counters")
    assert state.options() == {"board": "4x4", "extra_removal": False, "repeat_squares": False,
                               "quiet_limit": 7, "morris": True, "quiet_result": "counters"}
    assert GAME.new_state().options()["quiet_result"] == "draw"
    assert "fangqi" in games.names()


# --- placement -----------------------------------------------------------------------------

def test_placement_alternates_on_vacant_points_until_the_board_is_full():
    state = GAME.new_state(board="3x3")
    assert state.phase == "placement" and len(state.legal_moves()) == 9
    state.play("b2")
    assert state.to_move == 1 and state.occupancy() == {"b2": "black"}
    with pytest.raises(IllegalMove, match="b2 is not vacant"):
        state.play("b2")
    with pytest.raises(IllegalMove, match="placement phase"):
        state.play("b2-b3")
    state.play_all(["a1", "c3", "a2", "a3", "b1", "b3", "c1"])
    assert state.phase == "placement" and state.to_move == 0 and state.in_hand(0) == 1
    state.play("c2")
    assert state.phase == "first-removal"
    assert state.in_hand(0) == state.in_hand(1) == 0


# --- the first removal ---------------------------------------------------------------------

def test_reading_2_even_board_black_removes_first_and_from_anywhere():
    state = fill(FOUR)
    assert state.phase == "first-removal" and state.to_move == 0
    # reading 11: anywhere, square members included
    assert state.takeable() == ["c1", "c2", "d2", "a3", "b3", "a4", "b4", "d4"]
    with pytest.raises(IllegalMove, match="a1 holds no white counter"):
        state.play("xa1")
    with pytest.raises(IllegalMove, match="takes one of White's counters"):
        state.play("a1")
    state.play("xa4")
    assert state.to_move == 1 and state.removals_due(0) == 0 and state.removals_due(1) == 1
    state.play("xd1")
    assert state.phase == "square-removal"


ODD = [  # 3x3 points: Black 5, White 4
    "BWB",
    "WBW",
    "BWB",
]


def test_readings_2_3_4_odd_board_white_starts_and_takes_one_more_alternately():
    state = fill(["BWBWB", "WBWBW", "BWBWB"])  # 15 points: Black 8, White 7
    assert state.phase == "first-removal" and state.to_move == 1
    assert state.removals_due(1) == 2 and state.removals_due(0) == 1
    state.play("xa1")
    assert state.to_move == 0  # alternately: White, Black, White
    state.play("xb1")
    assert state.to_move == 1 and state.removals_due(1) == 1 and state.removals_due(0) == 0
    state.play("xc1")
    # no squares on a chequered board: straight on to movement; White made the last removal,
    # so Black moves first: turns keep alternating (reading 2)
    assert state.phase == "movement" and state.to_move == 0
    assert state.scores() == (6, 6)


def test_reading_2_turns_alternate_into_the_square_removal_on_an_odd_board():
    # 15 points: Black 8, White 7; two squares each (with the Morris rule every counter in
    # them may be taken, so the square removal has its removals to make)
    state = fill(["BBWWW", "BBWWW", "BBBWB"], morris=True)
    state.play_all(["xe1", "xd1", "xc1"])  # first removal: White, Black, White
    assert state.phase == "square-removal"
    assert state.removals_due(0) == 2 and state.removals_due(1) == 2
    assert state.to_move == 0  # White took the last first removal: Black now, not White again
    state.play("xe2")
    assert state.to_move == 1
    state.play_all(["xa1", "xe3"])
    assert state.to_move == 1 and state.removals_due(1) == 1
    state.play("xb1")  # the a1 square is broken: b1 stands in none
    assert state.phase == "movement" and state.to_move == 0  # White removed last: Black moves


def test_reading_13_reduced_to_three_loses_at_once_mid_phase():
    state = fill(ODD)  # 3x3: Black 5, White 4
    state.play("xa1")
    state.play("xb1")  # White is down to three
    assert state.phase == "over" and state.end_reason == "reduced" and state.winner() == 0
    assert state.removals_due(1) == 0 and state.legal_moves() == []


def test_reading_4_the_extra_removal_can_be_turned_off():
    state = fill(ODD, extra_removal=False)
    assert state.removals_due(1) == 1 and state.removals_due(0) == 1


# --- the square removal --------------------------------------------------------------------

def test_reading_5_squares_are_counted_after_the_first_removal():
    state = fill(FOUR)
    assert state.squares(0) == ["a1"] and state.squares(1) == ["a3"]
    state.play("xa4")   # Black breaks White's square
    state.play("xd1")
    assert state.phase == "square-removal"
    assert state.removals_due(0) == 1 and state.removals_due(1) == 0
    assert state.to_move == 0


def test_square_members_are_protected_and_the_removal_alternates():
    state = fill(FOUR)
    state.play_all(["xd4", "xd1"])
    assert state.removals_due(0) == state.removals_due(1) == 1 and state.to_move == 0
    assert state.takeable() == ["c1", "c2", "d2"]  # a3 b3 a4 b4 stand in White's square
    with pytest.raises(IllegalMove, match="a3 stands in a white square"):
        state.play("xa3")
    state.play("xc2")
    assert state.to_move == 1 and state.takeable() == ["c3", "d3", "c4"]
    state.play("xc4")
    assert state.phase == "movement" and state.to_move == 0  # reading 2


def test_reading_6_a_2x3_block_is_two_squares_and_3x3_four():
    state = fill([
        "BBBW",
        "BBBW",
        "BBBW",
        "WWWW",
        "WBWW",
    ])  # 20 points: Black 10, White 10
    assert len(state.squares(0)) == 4
    state = fill([
        "BBBW",
        "BBBW",
        "WWWB",
        "WBWW",
    ])
    assert state.squares(0) == ["a3", "b3"]


def test_no_squares_means_straight_to_movement():
    state = fill([
        "BWBW",
        "WBWB",
        "BWBW",
        "WBWB",
    ])
    state.play_all(["xa1", "xb1"])
    assert state.phase == "movement" and state.to_move == 0


def test_reading_9_a_counter_in_a_square_is_never_taken_and_the_capture_is_lost():
    # By the text (the default): "counters that are not themselves part of a 2x2 square".
    state = fill([
        "BBWW",
        "BBWW",
        "BBWW",
        "BBWW",
    ])
    state.play_all(["xc1", "xa1"])
    assert state.removals_due(0) == 2 and state.removals_due(1) == 2
    assert state.takeable() == ["d1"]
    with pytest.raises(IllegalMove, match="never taken after the first removal"):
        state.play("xc2")
    state.play("xd1")
    assert state.takeable() == ["b1"]
    state.play("xb1")
    # Every counter left stands in a square: both players' other removals are lost.
    assert state.phase == "movement" and state.removals_due(0) == state.removals_due(1) == 0


def test_reading_9_with_the_morris_rule_any_may_be_taken_when_all_are_in_squares():
    state = fill([
        "BBWW",
        "BBWW",
        "BBWW",
        "BBWW",
    ], morris=True)
    state.play_all(["xc1", "xa1"])  # White's square c1 broken: d1 is free now
    # Black has squares a2, a3 (a1 gone) => 2; White has c2, c3 => 2
    assert state.removals_due(0) == 2 and state.removals_due(1) == 2
    assert state.takeable() == ["d1"]
    state.play("xd1")
    assert state.takeable() == ["b1"]  # Black's only counter outside a square
    state.play("xb1")
    assert state.takeable() == ["c2", "d2", "c3", "d3", "c4", "d4"]  # all in squares: any
    state.play("xc2")
    assert state.takeable() == ["a2", "b2", "a3", "b3", "a4", "b4"]


# --- movement (hand-built positions) --------------------------------------------------------

def test_slides_go_any_distance_along_a_line_over_vacant_points():
    state = position([
        "W..W",
        "....",
        "B...",
        "W..B",
    ])
    assert state.targets("a2") == ["a3", "b2", "c2", "d2"]  # up, down, right, left
    assert state.targets("d1") == ["d2", "d3", "c1", "b1"]
    assert state.targets("a1") == []  # White's
    with pytest.raises(IllegalMove, match="diagonally"):
        state.play("d1-c2")
    with pytest.raises(IllegalMove, match="movement phase"):
        state.play("xa1")
    with pytest.raises(IllegalMove, match="a1 holds no black counter"):
        state.play("a1-b1")
    with pytest.raises(IllegalMove, match="d4 is not vacant"):
        state.play("d1-d4")
    state.play("d1-b1")
    assert state.occupancy() == {"a1": "white", "b1": "black", "a2": "black", "a4": "white",
                                 "d4": "white"}
    assert state.to_move == 1 and state.targets("a1") == []


def test_a_slide_cannot_pass_an_occupied_point():
    state = position(SLIDE)
    with pytest.raises(IllegalMove, match="a2 is in the way"):
        state.play("a1-a3")
    with pytest.raises(IllegalMove, match="c3 is in the way"):
        state.play("c1-c4")
    assert state.moves == []


def test_a_move_that_forms_a_square_takes_one_counter_outside_squares():
    state = position(SLIDE)
    assert state.squares(1) == ["a3", "b3"]
    assert sorted(names(state.legal_moves())) == [
        "a1-b1", "b2-b1", "b2-c2", "c1-b1xd1", "c1-b1xd2", "c1-b1xd3", "c1-c2"]
    with pytest.raises(IllegalMove, match="forms 1 square: it takes exactly 1 white counter"):
        state.play("c1-b1")
    with pytest.raises(IllegalMove, match="forms no square, so it takes nothing"):
        state.play("c1-c2xd1")
    with pytest.raises(IllegalMove, match="never taken after the first removal"):
        state.play("c1-b1xa3")
    with pytest.raises(IllegalMove, match="no white counter outside a square is left"):
        position(SLIDE, morris=True).play("c1-b1xa3")
    with pytest.raises(IllegalMove, match="c2 holds no white counter"):
        state.play("c1-b1xc2")
    state.play("c1-b1xd2")
    assert "d2" not in state.occupancy() and state.to_move == 1


# b1-b2 lands in the middle of a 3-wide block: it completes a2 and b2 at once. White's d3 e3
# d4 e4 is a square; e1 is White's only counter outside it.
DOUBLE = [
    "...WW",
    "BBBWW",
    "B.B..",
    ".B..W",
]


def test_reading_9_two_squares_with_one_counter_outside_squares_take_one():
    state = position(DOUBLE)  # by the text: e1 only; the second capture is lost
    forming = [m for m in state.legal_moves() if m.frm == "b1" and m.to == "b2"]
    assert names(forming) == ["b1-b2xe1"]
    with pytest.raises(IllegalMove, match="takes exactly 1 white counter"):
        state.play("b1-b2xe1xd3")
    state.play("b1-b2xe1")
    assert not state.is_over() and state.to_move == 1


def test_reading_7_10_two_squares_take_two_one_after_another():
    state = position(DOUBLE, morris=True)
    forming = [m for m in state.legal_moves() if m.frm == "b1" and m.to == "b2"]
    assert names(forming) == ["b1-b2xe1xd3", "b1-b2xe1xe3", "b1-b2xe1xd4", "b1-b2xe1xe4"]
    with pytest.raises(IllegalMove, match="takes exactly 2"):
        state.play("b1-b2xe1")
    with pytest.raises(IllegalMove, match="outside a square"):
        state.play("b1-b2xd3xe3")
    state.play("b1-b2xe4xe1")  # any order in the text; reading order in the move
    assert str(state.moves[-1]) == "b1-b2xe1xe4"
    assert state.is_over() and state.end_reason == "reduced" and state.winner() == 0


REPEAT = [
    "W.W.W",
    "....W",
    "BB...",
    "B.B.W",
]


@pytest.mark.parametrize("repeat", [True, False])
def test_reading_12_reforming_a_square_takes_again_unless_repeat_squares_is_off(repeat):
    state = position(REPEAT, repeat_squares=repeat)
    state.play("c1-b1xe1")
    state.play("a4-a3")
    state.play("b1-c1")  # out of the square
    state.play("a3-a4")
    forming = [m for m in state.legal_moves() if m.frm == "c1" and m.to == "b1"]
    if repeat:
        assert len(forming) == 4 and all(len(m.captures) == 1 for m in forming)
    else:
        assert names(forming) == ["c1-b1"]
        with pytest.raises(IllegalMove, match="forms no square"):
            state.play("c1-b1xe3")


def test_reading_14_a_player_who_cannot_move_loses():
    state = position([
        "WBWB",
        "BBBB",
        "WBW.",
    ])
    assert names(state.legal_moves()) == ["d2-d1"]
    state.play("d2-d1")
    assert state.is_over() and state.end_reason == "blocked"
    assert state.winner() == 0 and state.legal_moves() == []
    with pytest.raises(IllegalMove, match="the game is over"):
        state.play("a1-a2")


QUIET = ["W..W", "....", "B..W", "B..W"]  # White has 4 counters, Black 2


def test_reading_15_quiet_moves_end_the_game_drawn_however_many_counters():
    # The text's one way to win is to reduce the opponent to three: the quiet limit, ours,
    # ends a game nobody won, whatever the counters (4:2 here).
    state = position(QUIET, quiet_limit=3)
    state.play_all(["a2-b2", "d1-c1", "b2-b3"])
    assert state.is_over() and state.end_reason == "quiet-limit"
    assert state.scores() == (2, 4) and state.winner() is None
    state.undo()
    assert not state.is_over() and state.winner() is None
    saved = games.load_state(position(QUIET, quiet_limit=3).to_json())
    assert saved.options()["quiet_result"] == "draw"


def test_reading_15_option_counters_gives_the_quiet_limit_to_more_counters():
    state = position(QUIET, quiet_limit=3, quiet_result="counters")
    state.play_all(["a2-b2", "d1-c1", "b2-b3"])
    assert state.end_reason == "quiet-limit" and state.winner() == 1
    assert state.copy().winner() == 1
    state = position(["B..W", "....", "W..B"], quiet_limit=1, quiet_result="counters")
    state.play("a3-b3")
    assert state.end_reason == "quiet-limit" and state.winner() is None  # 2:2, a draw


def test_a_capture_resets_the_quiet_count():
    state = position(REPEAT, quiet_limit=2)
    state.play("a2-a3")
    state.play("a4-b4")  # two quiet moves, one by each player
    assert state.is_over() and state.end_reason == "quiet-limit"
    state = position(REPEAT, quiet_limit=2)
    state.play("c1-b1xe1")
    state.play("a4-a3")
    assert not state.is_over()


# --- undo, copies, notation, JSON -----------------------------------------------------------

def test_undo_restores_every_phase_exactly():
    state = fill(FOUR)
    before = (state.summary(), state.occupancy(), names(state.legal_moves()))
    state.play_all(["xd4", "xd1", "xc2", "xc4"])
    assert state.phase == "movement"
    for _ in range(4):
        state.undo()
    assert (state.summary(), state.occupancy(), names(state.legal_moves())) == before
    while state.moves:
        state.undo()
    assert state == GAME.new_state(board="4x4")
    with pytest.raises(IndexError):
        state.undo()


def test_copy_is_independent():
    state = fill(FOUR)
    other = state.copy()
    other.play("xd4")
    assert state.phase == "first-removal" and len(state.moves) == 16 and len(other.moves) == 17
    assert state.to_move == 0


@pytest.mark.parametrize("text,move", [
    ("d4", Move(None, "d4")),
    (" XD4 ", Move(None, None, ("d4",))),
    ("d4-d7", Move("d4", "d7")),
    ("d4-d7xg5xf2", Move("d4", "d7", ("f2", "g5"))),
])
def test_notation_round_trips(text, move):
    state = GAME.new_state()
    assert state.parse_move(text) == move
    assert state.parse_move(str(move)) == move


@pytest.mark.parametrize("text,words", [
    ("d", "a move is a point"),
    ("", "a move is a point"),
    ("h1", "no point h1: files a..g, rows 1..7"),
    ("d4xe5", "only a slide takes counters"),
    ("xd4xe5", "a removal takes one counter"),
    ("d4-d7xf2xf2", "taken twice"),
    ("d4-d9", "no point d9"),
])
def test_bad_notation_is_named(text, words):
    state = GAME.new_state()
    with pytest.raises(InvalidNotation, match=words):
        state.parse_move(text)
    with pytest.raises(IllegalMove):
        state.play(text)
    assert state.moves == []


def test_json_round_trip_and_bad_saves():
    state = fill(FOUR, repeat_squares=False)
    state.play_all(["xd4", "xd1"])
    saved = state.to_json()
    again = games.load_state(saved)
    assert again == state and again.options()["repeat_squares"] is False
    assert again.phase == "square-removal"
    data = json.loads(saved)
    data["moves"].append("xa1")  # Black to take, but a1 holds Black's own counter
    with pytest.raises(GameError, match=r"saved move 19 \('xa1'\) does not replay"):
        games.load_state(data)


def test_moves_at_lists_the_moves_that_change_a_point():
    state = position(SLIDE)
    assert sorted(names(state.moves_at("b1"))) == ["a1-b1", "b2-b1", "c1-b1xd1", "c1-b1xd2", "c1-b1xd3"]
    assert names(state.moves_at("d2")) == ["c1-b1xd2"]
    assert sorted(names(state.moves_at("c1"))) == ["c1-b1xd1", "c1-b1xd2", "c1-b1xd3", "c1-c2"]
    assert state.moves_at("z9") == []
    placing = GAME.new_state(board="3x3")
    assert names(placing.moves_at("b2")) == ["b2"]


def test_playout_chooses_each_legal_move_equally_often():
    import random
    from collections import Counter

    rng = random.Random(4)
    first = Counter()
    for _ in range(1400):
        state = position(SLIDE, quiet_limit=1)  # one move and the game is over
        state.playout(rng)
        first[str(state.moves[0])] += 1
    assert sorted(first) == sorted(names(position(SLIDE).legal_moves()))
    assert all(140 <= n <= 260 for n in first.values()), first  # 200 each, within 4 sigma


# --- the search's guess (move_prior) ------------------------------------------------------------

def top(state) -> str:
    moves = state.legal_moves()
    prior = state.move_prior(moves)
    assert len(prior) == len(moves)
    return str(max(zip(prior, names(moves)))[1])


def test_prior_places_to_complete_a_square_then_to_block_one():
    state = GAME.new_state(board="4x4")
    state.play_all(["a1", "d4", "a2", "d3", "b1", "c4"])  # Black to move, a1 a2 b1 ready
    assert top(state) == "b2"
    state = GAME.new_state(board="4x4")
    state.play_all(["a1", "d4", "a2", "d3", "b1"])  # White to move: b2 is Black's square
    assert top(state) == "b2"


def test_prior_takes_the_counter_that_breaks_a_square_first():
    state = fill(FOUR)  # first removal, Black first: White's only square is a3-b4
    assert state.phase == "first-removal"
    assert top(state) in {"xa3", "xa4", "xb3", "xb4"}


def test_prior_puts_a_slide_that_takes_first_and_a_block_next():
    state = position(SLIDE)  # Black's c1-b1 forms the square a1 b1 a2 b2 and takes
    assert top(state).startswith("c1-b1x")
    # White to move with no capture: the slide onto b1, the point Black's a1 a2 b2 need,
    # comes first.
    state = position([
        "....",
        "W...",
        "BB..",
        "B.W.",
    ], to_move=1)
    assert top(state) == "c1-b1"


def test_a_stopped_playout_values_a_lead_by_reading_15_not_by_the_count():
    # The search's capped playouts stop mid-game: White's lead of 4:2 is worth a win with
    # the quiet count fresh, less as it runs out, and a draw at the limit (reading 15);
    # with quiet_result "counters" the count decides, as the rules then do.
    from games.ai.mcts import MARGIN_WEIGHT, outcome

    state = position(QUIET, quiet_limit=4)
    assert state.scores() == (2, 4) and state.playout_value() == 0.0  # White 1.0
    state.play_all(["a2-b2", "d1-c1"])  # two quiet moves of four
    assert state.playout_value() == 0.25
    state.play("b2-b3")
    assert state.playout_value() == 0.375
    white = outcome(state, 1)
    assert white == pytest.approx((1 - MARGIN_WEIGHT) * 0.625 + MARGIN_WEIGHT * (0.5 + 0.5 * 2 / 7))
    assert position(["B..W", "....", "W..B"], quiet_limit=4).playout_value() == 0.5  # level
    # With the usual limit the lead is a win until the last QUIET_STRETCH (10) moves of it.
    state = position(QUIET, quiet_limit=50)
    state.play_all(["a2-b2", "d1-c1", "b2-b3"])
    assert state.playout_value() == 0.0
    state = position(QUIET, quiet_limit=12)
    state.play_all(["a2-b2", "d1-c1", "b2-b3"])  # 9 quiet moves left of 12
    assert state.playout_value() == pytest.approx(0.5 - 0.5 * 9 / 10)
    counting = position(QUIET, quiet_limit=4, quiet_result="counters")
    counting.play_all(["a2-b2", "d1-c1", "b2-b3"])
    assert counting.playout_value() is None and outcome(counting, 1) > 0.9

"""Treeblox rules: every rule of ../shared/rules/treeblox.md and every reading in
docs/games/treeblox.md, with the reason each rejected move gives."""

from __future__ import annotations

import json
import random

import pytest

import games
from games.base import BadOptions, GameError, IllegalMove, InvalidNotation
from games.treeblox import END, GAME, Move, cell_name, parse_cell

DARK, LIGHT = 0, 1


def new(moves: str = "", **options):
    state = GAME.new_state(**options)
    state.play_all(moves.split())
    return state


def snapshot(state) -> tuple:
    """Everything a caller can see, to check that a rejected move changed nothing."""
    return (state.summary(), state.occupancy(), [str(m) for m in state.legal_moves()],
            state.phase, state.placements_left, state.growth_rate(0), state.growth_rate(1),
            state.cubes_left(0), state.cubes_left(1), state.available_holes(0),
            state.available_holes(1), state.active_leaves(0), state.active_leaves(1))


def rejects(state, move, reason: str, error=IllegalMove) -> None:
    before = snapshot(state)
    with pytest.raises(error) as info:
        state.play(move)
    assert reason in info.value.reason
    assert snapshot(state) == before


# Three leaves each, then Dark to move at growth rate 2.
THREE_EACH = "La1 Ld4 La2 Ld3 La3 Ld2"


# --- notation -------------------------------------------------------------------------

@pytest.mark.parametrize("text, kind, cell", [
    ("La1", "leaf", (0, 0, 0)),
    ("Bd4", "branch", (3, 3, 0)),
    ("Bb2+1", "branch", (1, 1, 1)),
    ("Lc3+12", "leaf", (2, 2, 12)),
    ("B(-1,0,0)", "branch", (-1, 0, 0)),
    ("L(4,3,2)", "leaf", (4, 3, 2)),
    ("B(0,-1,0)", "branch", (0, -1, 0)),
    ("L(2,4,1)", "leaf", (2, 4, 1)),
])
def test_canonical_notation_round_trips(text, kind, cell):
    move = GAME.new_state().parse_move(text)
    assert move == Move(kind, cell)
    assert str(move) == text


@pytest.mark.parametrize("text, canonical", [
    ("lb2+1", "Lb2+1"), ("BA1", "Ba1"), (" La1 ", "La1"), ("Lb2+0", "Lb2"),
    ("B(1, 1, 1)", "Bb2+1"), ("L(0,0,0)", "La1"), ("END", "end"), ("pass", "end"),
])
def test_notation_is_forgiving_and_str_gives_the_canonical_form(text, canonical):
    assert str(GAME.new_state().parse_move(text)) == canonical


@pytest.mark.parametrize("text, reason", [
    ("", "a move is L (leaf) or B (branch)"),
    ("X", "a move is L (leaf) or B (branch)"),
    ("La", "a cell is a board hole"),
    ("Le1", "not on the board"),
    ("La5", "not on the board"),
    ("La0", "not on the board"),
    ("La1+", "a cell is a board hole"),
    ("La1+-1", "a cell is a board hole"),
    ("L(0,0,-1)", "z below 0 is the table"),
    ("L(0,0)", "a cell is a board hole"),
    (5, "a move is text"),
])
def test_bad_notation_is_invalid_notation_and_changes_nothing(text, reason):
    state = new("La1 Ld4")
    rejects(state, text, reason, InvalidNotation)


def test_moves_are_immutable_hashable_and_named_by_cell_text():
    move = Move("leaf", (0, 0, 0))
    assert {move, Move("leaf", (0, 0, 0)), END} == {move, END}
    with pytest.raises(AttributeError):
        move.kind = "branch"
    assert cell_name((1, 1, 0)) == "b2" and cell_name((1, 1, 3)) == "b2+3"
    assert cell_name((-1, 2, 0)) == "(-1,2,0)" and parse_cell("(-1,2,0)") == (-1, 2, 0)
    state = new()
    assert state.parse_move("end") is END and str(END) == "end"


# --- first turn -----------------------------------------------------------------------

def test_first_move_is_a_leaf_in_any_of_the_16_holes_dark_first():
    state = new()
    assert state.to_move == DARK and state.phase == "first"
    assert [str(m) for m in state.legal_moves()] == [
        f"L{c}{r}" for r in "1234" for c in "abcd"]
    rejects(state, "Ba1", "your first move must be a leaf")
    rejects(state, "end", "your first move must be a leaf in a board hole")
    rejects(state, "La1+1", "your first leaf goes into one of the 16 board holes")
    rejects(state, "L(-1,0,0)", "your first leaf goes into one of the 16 board holes")
    state.play("Lb2")
    assert state.to_move == LIGHT and state.phase == "first"
    assert len(state.legal_moves()) == 15
    rejects(state, "Lb2", "b2 is taken by a dark leaf")
    state.play("Lc3")
    # Light had no leaf on its first turn and did not lose for that; now the main phase.
    assert state.to_move == DARK and state.phase == "main" and not state.is_over()


# --- growth rate ----------------------------------------------------------------------

def test_growth_rate_is_one_below_three_active_leaves_and_two_from_three():
    state = new("La1 Ld4")
    assert state.growth_rate(DARK) == 1 and state.placements_left == 1
    state.play("La2")  # rate 1: the turn passes by itself
    assert state.to_move == LIGHT
    state.play_all("Ld3 La3".split())  # Dark's third leaf, placed at rate 1: the turn passes
    assert state.to_move == LIGHT and state.placements_left == 1
    state.play("Ld2")
    assert state.to_move == DARK and state.growth_rate(DARK) == 2 and state.placements_left == 2
    state.play("Bb1")
    assert state.to_move == DARK and state.placements_left == 1
    state.play("Bb1+1")
    assert state.to_move == LIGHT and state.growth_rate(LIGHT) == 2


def test_growth_rate_is_counted_at_the_start_of_the_turn_and_self_shading_counts():
    state = new(THREE_EACH + " Bb1 Bb1+1 end")
    assert state.to_move == DARK and state.growth_rate(DARK) == 2
    state.play("Ba1+1")  # Dark shades its own leaf a1: two active leaves now...
    assert state.active_leaves(DARK) == [(0, 1, 0), (0, 2, 0)]
    # ...but the rate of this turn was counted at its start, so a second cube may follow.
    assert state.growth_rate(DARK) == 2 and state.placements_left == 1
    assert state.to_move == DARK
    state.play("Ba2+1")  # shades a2 too
    state.play("end")  # Light passes
    assert state.to_move == DARK and state.scores() == (1, 3)
    assert state.growth_rate(DARK) == 1 and state.placements_left == 1


def test_growth_rate_of_the_player_not_moving_follows_their_leaves_now():
    state = new("La1 Ld4 La2 Ld3 La3")
    assert state.to_move == LIGHT and state.growth_rate(DARK) == 2
    assert state.growth_rate(LIGHT) == 1


# --- available holes ------------------------------------------------------------------

def test_a_branch_offers_up_and_four_sides_but_no_down_face_at_board_level():
    state = new("Lc3 Ld4 Bb2")  # Light to move
    assert state.available_holes(DARK) == sorted(
        [c for c in state.available_holes(LIGHT)] + [(1, 1, 1)], key=lambda c: (c[2], c[1], c[0]))
    assert (1, 1, 1) not in state.available_holes(LIGHT)
    assert all(z >= 0 for _, _, z in state.available_holes(DARK))


def test_trees_hang_past_the_edge_and_the_cells_beside_the_board_belong_to_the_branch():
    state = new("La2 Ld4 Ba1")  # Dark branch in the corner
    beside = {(-1, 0, 0), (0, -1, 0)}
    assert beside <= set(state.available_holes(DARK))
    assert not beside & set(state.available_holes(LIGHT))
    rejects(state, "L(-1,0,0)", "(-1,0,0) is a face of a dark branch: you may only attach "
                                "cubes to your own branches")
    rejects(state, "L(-1,3,0)", "(-1,3,0) is beside the board, not a board hole")
    rejects(state, "Lb3+2", "b3+2 is in the air")
    state.play("end")
    state.play("B(-1,0,0)")
    state.play("end")
    state.play("B(-2,0,0)")
    assert state.occupancy()["(-2,0,0)"] == "dark-branch"


def test_a_branch_above_the_table_offers_its_down_face():
    state = new("La2 Ld4 Ba1 end Ba1+1 end B(-1,0,1) end B(-2,0,1) end")
    # (-2,0,0) lies beside the board at board level: only the branch above reaches it.
    assert (-2, 0, 0) in state.available_holes(DARK)
    state.play("L(-2,0,0)")
    assert state.occupancy()["(-2,0,0)"] == "dark-leaf"
    assert state.occupancy()["a1+1"] == "dark-branch"


def test_leaves_offer_no_holes():
    state = new("La1 Ld4 Ba2 end")
    rejects(state, "La1+1", "no cube can be attached to a leaf")
    rejects(state, "B(-1,0,0)", "no cube can be attached to a leaf")
    assert (0, 0, 1) not in state.available_holes(DARK)
    assert (0, 1, 1) in state.available_holes(DARK)  # the branch's up face


def test_cubes_go_only_on_your_own_branches():
    state = new("La1 Ld4 Bb1 Bd3")
    rejects(state, "Ld3+1", "d3+1 is a face of a light branch")
    state.play("Lb1+1")
    rejects(state, "Lb1+2", "no cube can be attached to a leaf")
    rejects(state, "Bb1+1", "b1+1 is taken by a dark leaf")


def test_a_free_board_hole_stays_available_under_a_cube_and_is_shaded_at_once():
    # Dark's branch at b2+2 hangs over the free hole b2, one cell apart.
    state = new(THREE_EACH + " Bb1 Bb1+1 end Bb1+2 Bb2+2")
    assert state.to_move == LIGHT and (1, 1, 0) in state.available_holes(LIGHT)
    state.play("Lb2")
    assert (1, 1, 0) not in state.active_leaves(LIGHT)
    assert state.scores() == (3, 3)


# --- turns, passing, ending -----------------------------------------------------------

def test_placing_fewer_than_the_growth_rate_or_passing_is_allowed():
    state = new(THREE_EACH)
    assert END in state.legal_moves()
    state.play_all("Bb1 end".split())  # one cube at rate 2, then end
    assert state.to_move == LIGHT and not state.is_over()
    state.play("end")  # a pass
    assert state.to_move == DARK and not state.is_over()
    state.play("Bb1+1")
    state.play("end")
    assert not state.is_over()  # a placement came between the two passes


def test_two_consecutive_turns_without_a_placement_end_the_game():
    state = new("La1 Ld4 La2 end")
    assert not state.is_over()
    state.play("end")
    assert state.is_over() and state.end_reason == "double-pass" and state.phase == "over"
    assert state.scores() == (2, 1) and state.winner() == DARK
    assert state.legal_moves() == []
    rejects(state, "Lb2", "the game is over")
    rejects(state, "end", "the game is over")


def test_equal_active_leaves_is_a_draw():
    state = new("La1 Ld4 end end")
    assert state.is_over() and state.scores() == (1, 1) and state.winner() is None


def test_a_player_with_no_available_hole_must_pass():
    # Eight leaves each fill the board; no branch anywhere, so no hole is left.
    state = new("La1 Ld4 La2 Ld3 La3 Ld2 Lb1 Lb2 Ld1 Lc4 Lb3 La4 Lc3 Lc2 Lb4 end Lc1",
                cubes=8)
    assert state.to_move == LIGHT and state.placements_left == 1
    assert state.available_holes(LIGHT) == [] and state.legal_moves() == [END]
    state.play("end")
    assert state.legal_moves() == [END]
    rejects(state, "Ba1+1", "no cube can be attached to a leaf")
    state.play("end")
    state.play("end")
    assert state.end_reason == "double-pass" and state.scores() == (8, 8)


def test_shading_the_last_active_leaf_of_a_tree_ends_the_game_at_once():
    state = new("La1 Ld4 Bc4 Bb2 Bc4+1 Bb3")
    state.play("Bd4+1")  # Dark shades Light's only leaf
    assert state.is_over() and state.end_reason == "no-active-leaves"
    assert state.loser_without_leaves == LIGHT and state.to_move == DARK
    assert state.scores() == (1, 0) and state.winner() == DARK
    assert state.summary()["winner"] == DARK
    state.undo()
    assert not state.is_over() and state.loser_without_leaves is None


def test_the_game_ends_mid_turn_when_the_first_of_two_cubes_shades_the_last_leaf():
    # Dark has rate 2; its first cube shades Light's only leaf: the second is never placed.
    state = new("Lc3 Lb4 Lb2 end Lb3 Ba2 Ba4 Ba4+1 Bb1", cubes=6)
    assert state.to_move == DARK and state.placements_left == 2
    state.play("Lb4+1")
    assert state.is_over() and state.end_reason == "no-active-leaves"
    assert state.placements_left == 0 and state.legal_moves() == []
    assert state.scores() == (4, 0) and state.winner() == DARK
    rejects(state, "Bc1", "the game is over")


def test_shading_your_own_last_leaf_in_the_final_growth_ends_it_there():
    # Light, in the final growth with four cubes to place, covers its only active leaf: the
    # game ends before Light can grow new leaves on top (the rules: "the game ends
    # immediately"; before, Light played on).
    state = new("Ld4 Lb4 La1 La4 Ld3 Bc4 Bc1 Lb3 Bc4+1 Bd1 B(3,-1,0) Bb2 Lb1 B(2,-1,0) Bb4+1 Bd2",
                cubes=5)
    assert state.in_final_growth and state.to_move == LIGHT and state.placements_left == 4
    assert state.active_leaves(LIGHT) == [(0, 3, 0)]
    state.play("Ba4+1")
    assert state.is_over() and state.end_reason == "no-active-leaves"
    assert state.loser_without_leaves == LIGHT and state.cubes_left(LIGHT) == {"leaf": 3, "branch": 0}
    assert state.scores() == (5, 0) and state.winner() == DARK
    rejects(state, "La4+2", "the game is over")


def test_the_result_after_a_tree_loses_its_leaves_is_the_count():
    state = new("La1 Ld4 Bc4 Bb2 Bc4+1 Bb3 Bd4+1")
    assert state.winner() == DARK  # 1 to 0
    state._leaves[DARK].clear()  # a position the rules cannot reach: count 0 to 0
    assert state.scores() == (0, 0) and state.winner() is None


def test_a_leaf_shaded_mid_turn_only_counts_at_the_start_of_its_owners_turn():
    # Light shades its own leaf and then grows a new one: never loses.
    state = new("La1 Ld4 end Bc4 end Bc4+1 end Ld4+1")
    assert not state.is_over() and state.active_leaves(LIGHT) == [(3, 3, 1)]


# --- cubes and the final growth -------------------------------------------------------

def test_no_cubes_of_that_kind_left():
    state = new("La1 Lb1", cubes=1)
    assert state.cubes_left(DARK) == {"leaf": 0, "branch": 1}
    assert {m.kind for m in state.legal_moves()} == {"branch", "end"}
    rejects(state, "La2", "Dark has no leaves left")
    state.play("Ba2")
    # Dark ran out: Light grows its last cube in the final growth.
    assert state.in_final_growth and state.to_move == LIGHT and state.placements_left == 1
    rejects(state, "Lc1", "Light has no leaves left")


def test_final_growth_places_every_cube_uncapped_and_cannot_pass():
    state = new("La1 Ld4 La2 end La3 end Bb1 Bb2 end", cubes=3)
    assert state.to_move == DARK and state.growth_rate(DARK) == 2 and state.phase == "main"
    state.play("Bc1")  # Dark's last cube
    assert state.phase == "final" and state.in_final_growth and state.to_move == LIGHT
    assert state.cubes_left(LIGHT) == {"leaf": 2, "branch": 3}
    assert state.growth_rate(LIGHT) == 1 and state.placements_left == 5
    assert END not in state.legal_moves()
    for i, move in enumerate(["Bd3", "Bd3+1", "Bd3+2", "Ld3+3", "Lc4"]):
        assert state.to_move == LIGHT and state.placements_left == 5 - i
        rejects(state, "end", "in the final growth you must place all your cubes")
        state.play(move)
    assert state.is_over() and state.end_reason == "final-growth"
    assert state.scores() == (3, 3) and state.winner() is None


def test_final_growth_ends_when_no_hole_is_left():
    # Found by random search (cubes=8): Light's leaves are all on the board, which is full,
    # and Light has no branch, so the final growth ends at once with 8 branches unplaced.
    state = new("Lc1 Lb2 Bb1 Lc3 Ld3 La4 Lb3 Lc2 Ld1 Ba3 La1 Lc4 Ld4 Lb4 La2 Ld2 end "
                "B(-1,2,0) Bb1+1 end La1+1 L(1,-1,0) end B(-1,1,0) Bb1+2 end Bb1+3", cubes=8)
    assert state.to_move == DARK and state.cubes_left(DARK) == {"leaf": 0, "branch": 1}
    state.play("Bc1+2")
    assert state.is_over() and state.end_reason == "final-growth"
    assert state.cubes_left(LIGHT) == {"leaf": 0, "branch": 8}
    assert state.available_holes(LIGHT) == []


def test_the_last_cube_that_shades_the_opponents_last_leaf_leaves_no_final_growth():
    state = new("La1 Ld4 Bc4 Bb2 Bc4+1 Bb3", cubes=2)
    state.play("Ld4+1")  # Dark's last cube shades Light's only leaf
    assert state.is_over() and state.end_reason == "no-active-leaves"
    assert state.winner() == DARK and state.cubes_left(LIGHT) == {"leaf": 1, "branch": 0}


# --- what the board shows -------------------------------------------------------------

def test_occupancy_names_board_holes_and_lattice_cells_and_sites_are_the_holes():
    state = new("La1 Ld4 Ba2 Bc4 B(-1,1,0) Bc4+1")
    assert state.occupancy() == {
        "a1": "dark-leaf", "d4": "light-leaf", "a2": "dark-branch", "c4": "light-branch",
        "(-1,1,0)": "dark-branch", "c4+1": "light-branch"}
    assert state.sites() == [f"{c}{r}" for r in "1234" for c in "abcd"]
    assert "b3" not in state.occupancy()


# --- options, JSON, undo --------------------------------------------------------------

def test_options():
    assert set(GAME.options()) == {"cubes"}
    assert new().options() == {"cubes": 16} and new().cubes_left(LIGHT) == {"leaf": 16,
                                                                            "branch": 16}
    assert new(cubes="4").options() == {"cubes": 4}
    for bad in (0, 17, "x", True, 2.0, None):
        with pytest.raises(BadOptions, match="cubes must be a whole number 1..16"):
            GAME.new_state(cubes=bad)
    with pytest.raises(BadOptions, match="no option 'board'"):
        GAME.new_state(board="classic")


def test_json_round_trips_through_the_registry():
    state = new(THREE_EACH + " Bb1 Bb1+1 end B(1,-1,0) Ba1+1", cubes=5)
    data = json.loads(state.to_json())
    assert data["game"] == "treeblox" and data["cubes"] == 5
    assert data["moves"][-2:] == ["B(1,-1,0)", "Ba1+1"]
    again = games.load_state(state.to_json())
    assert again == state and again.occupancy() == state.occupancy()
    assert snapshot(again) == snapshot(state)
    data["moves"].append("Ld4+1")
    with pytest.raises(GameError, match=r"saved move 12 \('Ld4\+1'\) does not replay"):
        GAME.state_from_json(data)


def test_undo_restores_exactly_and_copy_is_independent():
    state = new(THREE_EACH)
    fresh = new()
    before = snapshot(state)
    other = state.copy()
    state.play_all("Bb1 Bb1+1 end Ba1+1 Ba2+1 end".split())
    assert snapshot(other) == before
    for _ in range(6):
        state.undo()
    assert snapshot(state) == before
    while state.moves:
        state.undo()
    assert snapshot(state) == snapshot(fresh)
    with pytest.raises(IndexError):
        state.undo()


def test_undo_after_the_game_ended_reopens_it():
    state = new("La1 Ld4 Bc4 Bb2 Bc4+1 Bb3 Bd4+1")
    assert state.is_over()
    assert str(state.undo()) == "Bd4+1"
    assert not state.is_over() and state.to_move == DARK and state.winner() is None


def test_random_playouts_terminate():
    for seed in range(30):
        rng = random.Random(seed)
        state = new()
        while not state.is_over():
            state.play(rng.choice(state.legal_moves()))
            assert len(state.moves) <= 3 * 64
        assert state.end_reason in ("no-active-leaves", "double-pass", "final-growth")


def test_playout_finishes_with_legal_recorded_moves():
    for seed in range(10):
        state = new("La1 Ld4", cubes=6)
        scores = state.playout(random.Random(seed))
        assert state.is_over() and scores == state.scores()
        replayed = new(" ".join(map(str, state.moves)), cubes=6)  # every move was legal
        assert replayed == state and replayed.end_reason == state.end_reason
        while len(state.moves) > 2:
            state.undo()
        assert state == new("La1 Ld4", cubes=6)


def test_a_move_object_that_names_no_placement_is_invalid_notation():
    state = new("La1 Ld4")
    rejects(state, Move("tree", (0, 1, 0)), "a placement is a leaf or a branch", InvalidNotation)
    rejects(state, Move("leaf", (0, 1)), "a placement is a leaf or a branch", InvalidNotation)


def test_a_playout_shades_the_last_active_leaf_whenever_it_can():
    # The search's playouts are uniform but for the decisive move: Dark, to move, can shade
    # Light's only leaf d4 from its branch c4+1 (d4+1), and every playout does, at once;
    # a uniform one would rarely.
    state = new("La1 Ld4 Bc4 Bb2 Bc4+1 Bb3")
    assert state.to_move == DARK and len(state.legal_moves()) > 10
    for seed in range(20):
        state.playout(random.Random(seed), cap=1)
        assert str(state.moves[-1]) == "Ld4+1" and state.end_reason == "no-active-leaves"
        state.undo()
    # With two active leaves no single cube wins: the playout stays uniform.
    state = new("La1 Ld4 Bc4 Lb2 Bc4+1 Bb3")
    played = set()
    for seed in range(20):
        state.playout(random.Random(seed), cap=1)
        played.add(str(state.undo()))
    assert len(played) > 5

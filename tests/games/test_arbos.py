"""Arbos: every rule and every reading of docs/games/arbos.md (numbers in the test names),
with hand-made positions."""

from __future__ import annotations

import pytest

import games
from games.arbos import GAME, PASS, Move, box_counts, cell_name, parse_cell, parse_move
from games.base import BadOptions, GameError, IllegalMove, InvalidNotation

# An 8x8 board with two seeds each: white puts black's seeds on A1 and A7, black puts white's
# on D4 and H8 (all at least three apart).
SETUP = ["seed A1", "seed D4", "seed A7", "seed H8"]


def small(*moves, **options):
    options.setdefault("board", "8x8")
    options.setdefault("seeds", 2)
    options.setdefault("setup", "chosen")  # these positions choose their seeds' cells
    state = GAME.new_state(**options)
    state.play_all(moves)
    return state


def white_alone(*spores):
    """After SETUP, white places each spore while black passes in between (a pass by black
    then a placement by white never makes two passes in a row)."""
    moves = list(SETUP)
    for i, spore in enumerate(spores):
        if i:
            moves.append("pass")
        moves.append(spore)
    return moves


# --- the board, options and notation ----------------------------------------------------------

def test_registered_and_default_board():
    state = games.get_game("arbos").new_state()
    assert state.options() == {"board": "20x20", "seeds": 10, "spores": 80, "setup": "random",
                               "setup_seed": state.options()["setup_seed"]}
    assert len(state.sites()) == 400 and state.sites()[:2] == ["A1", "A2"]
    assert state.sites()[-1] == "T20" and state.sites()[20] == "B1"
    assert state.phase == "setup" and state.to_move == 0 and state.occupancy() == {}


@pytest.mark.parametrize("board, seeds, spores", [
    ("20x20", 10, 80), ("19x19", 10, 80), ("18x18", 10, 80),  # reading 3: the box
    ("10x10", 3, 20), ("8x8", 2, 13), ("6x6", 1, 7), ("4x4", 1, 4),
    # halves round up: 10x10 is 2.5 seeds -> 3 and 9x20 4.5 -> 5 (Python's round: 2 and 4)
    ("9x20", 5, 36), ("5x4", 1, 4),
    # a rectangle gets the box only when both sides are 18 or more
    ("18x20", 10, 80), ("20x18", 10, 80), ("17x20", 9, 68), ("20x17", 9, 68), ("18x17", 8, 61),
])
def test_3_counts_are_the_box_on_real_boards_and_scaled_on_small_ones(board, seeds, spores):
    state = GAME.new_state(board=board)
    assert (state.options()["seeds"], state.options()["spores"]) == (seeds, spores)
    rows, cols = (int(n) for n in board.split("x"))
    assert box_counts(rows, cols) == (seeds, spores)


def test_counts_can_be_given_and_bad_options_are_refused():
    assert GAME.new_state(board="6x6", seeds="2", spores=5, setup="chosen").options() == {
        "board": "6x6", "seeds": 2, "spores": 5, "setup": "chosen"}
    for bad, match in [({"board": "21x21"}, "4..20"), ({"board": "3x8"}, "4..20"),
                       ({"board": "big"}, "RxC"), ({"board": 20}, "RxC"),
                       ({"seeds": 0}, "seeds"), ({"seeds": 101}, "seeds"),
                       ({"spores": "many"}, "spores"), ({"colour": "red"}, "no option"),
                       ({"setup": "drawn"}, "random .* or chosen"),
                       ({"setup_seed": -1}, "setup_seed must be a whole number 0..4294967295"),
                       ({"setup_seed": 2**32}, "setup_seed"), ({"setup_seed": "x"}, "setup_seed"),
                       ({"setup": "chosen", "setup_seed": 3}, "with setup chosen")]:
        with pytest.raises(BadOptions, match=match):
            GAME.new_state(**bad)


@pytest.mark.parametrize("text, canonical", [
    ("seed C7", "seed C7"), ("SEED c7", "seed C7"), ("seedc7", "seed C7"),
    ("C7", "C7"), (" t20 ", "T20"), ("c7=", "C7="), ("xC7", "xC7"), ("XC7", "xC7"),
    ("pass", "pass"), ("end", "pass"),
])
def test_notation_round_trips(text, canonical):
    move = parse_move(text)
    assert str(move) == canonical and parse_move(str(move)) == move


@pytest.mark.parametrize("text", ["", "seed", "U1", "A21", "A0", "C7==", "xx", "C", "7C", 7])
def test_text_naming_no_move_is_invalid_notation(text):
    with pytest.raises(InvalidNotation, match="a move is"):
        parse_move(text)


def test_a_cell_off_a_smaller_board_is_invalid_notation():
    with pytest.raises(InvalidNotation, match="not on this 8x8 board"):
        small().parse_move("I1")
    assert cell_name(parse_cell("h8")) == "H8"


# --- setup ---------------------------------------------------------------------------------

def test_11_setup_players_place_each_others_seeds_white_first():
    state = small("seed A1")
    assert state.occupancy() == {"A1": "seed:1"}  # white put down one of black's seeds
    assert state.to_move == 1 and state.seeds_to_place(1) == 1 and state.seeds_to_place(0) == 2
    state.play("seed D4")
    assert state.occupancy()["D4"] == "seed:0" and state.to_move == 0
    state.play_all(["seed A7", "seed H8"])
    assert state.phase == "play" and state.to_move == 0  # white puts the first spore too
    assert state.seeds_to_place(0) == state.seeds_to_place(1) == 0


@pytest.mark.parametrize("second, legal", [
    ("A2", False), ("A3", False), ("A4", True),   # two empty cells along the row
    ("C1", False), ("D1", True),                  # along the column
    ("B2", False), ("C3", False), ("C4", True),   # diagonal: the larger direction counts
    ("D2", True),
])
def test_2_seeds_need_two_empty_cells_between_them(second, legal):
    state = small("seed A1")
    if legal:
        state.play("seed " + second)
    else:
        with pytest.raises(IllegalMove, match="too close to A1: seeds need"):
            state.play("seed " + second)
    assert ("seed " + second in map(str, state.legal_moves())) is False  # taken or too close


def test_2_the_distance_relaxes_only_when_no_free_cell_allows_it():
    # 6x6 with three seeds each: after A1 A4 D1 D4 no free cell is three away from all four.
    seeds = [(0, 0), (0, 3), (3, 0), (3, 3)]
    state = small(*("seed " + cell_name(c) for c in seeds), board="6x6", seeds=3)

    def spacing(cell):
        return min(max(abs(cell[0] - r), abs(cell[1] - c)) for r, c in seeds)

    free = [(r, c) for r in range(6) for c in range(6) if (r, c) not in seeds]
    best = max(spacing(c) for c in free)
    assert best == 2
    legal = {str(m) for m in state.legal_moves()}
    assert legal == {"seed " + cell_name(c) for c in free if spacing(c) == best}
    with pytest.raises(IllegalMove, match="at least 1 empty cell between"):
        state.play("seed B2")
    state.play(sorted(legal)[0])
    assert state.phase == "setup"


def test_setup_refuses_everything_but_seeds_and_play_refuses_seeds():
    state = small()
    for text, match in [("A1", "setup comes first"), ("pass", "seeds must all be put down"),
                        ("A1=", "setup comes first"), ("xA1", "setup comes first")]:
        with pytest.raises(IllegalMove, match=match):
            state.play(text)
    state.play_all(SETUP)
    with pytest.raises(IllegalMove, match="setup is over"):
        state.play("seed E1")


# --- placing spores -----------------------------------------------------------------------------

def test_1_kinds_of_placement_and_the_opponents_side():
    state = small(*SETUP, "B4")  # white spore at B4
    # black: C4 is side by side with white's B4 and next to no black seed: refused
    with pytest.raises(IllegalMove, match="beside a spore of White"):
        state.play("C4")
    # black: C5 touches B4 only at a corner: a free-standing spore is fine there
    assert "C5" in map(str, state.legal_moves())
    # a cell beside white's spore but next to black's own seed is allowed (kind a wins)
    state3 = small(*SETUP, "B2")
    # black's B1: beside white's B2 (side) yet next to black's seed A1: allowed
    assert state3.legal_cells()["B1"] == "seed"
    state3.play("B1")
    assert state3.occupancy()["B1"] == "spore:1"


def test_1_a_spore_may_stand_beside_the_opponents_seed():
    state = small(*SETUP)
    assert state.legal_cells()["B1"] == "free"  # next to black's seed A1, white may still go
    state.play("B1")
    assert state.occupancy()["B1"] == "spore:0" and state.to_move == 1


def test_occupied_cells_and_empty_supply_are_refused():
    state = small(*SETUP, spores=1)
    with pytest.raises(IllegalMove, match="holds a seed of Black"):
        state.play("A1")
    state.play("E5")
    state.play("B3")
    assert state.spores_left(0) == 0 and state.spores_left(1) == 0
    assert state.is_over() and state.end_reason == "no-placement"


def test_a_player_without_a_legal_placement_must_pass():
    state = small(*SETUP, "E5", spores=1)  # black has one spore, white none
    assert state.to_move == 1 and not state.is_over()
    state.play("pass")
    # white cannot put a token (no spores); black can: white's only move is a pass
    assert state.to_move == 0 and state.legal_moves() == [PASS]
    state.play("pass")
    assert state.is_over() and state.end_reason == "double-pass"


# --- replacing a seed ----------------------------------------------------------------------

def test_replacement_then_two_follow_ups_in_the_same_turn():
    state = small(*SETUP)
    state.play("D4=")
    assert state.occupancy()["D4"] == "spore:0" and state.to_move == 0
    assert state.follow_ups_left == 2 and state.spores_left(0) == 12
    assert all(m.kind == "spore" for m in state.legal_moves())  # no pass, no replacement
    for text, match in [("pass", "2 more spores"), ("H8=", "not another replacement")]:
        with pytest.raises(IllegalMove, match=match):
            state.play(text)
    state.play("F6")
    assert state.follow_ups_left == 1 and state.to_move == 0
    state.play("F6" if False else "B8")
    assert state.follow_ups_left == 0 and state.to_move == 1
    assert state.occupancy()["D4"] == "spore:0" and "D4" not in state.legal_cells()
    assert [str(m) for m in state.moves[-3:]] == ["D4=", "F6", "B8"]


def test_replacement_only_of_your_own_seeds_and_the_seed_leaves_the_game():
    state = small(*SETUP)
    with pytest.raises(IllegalMove, match="no seed of White"):
        state.play("A1=")  # black's seed
    state.play_all(["H8=", "G7", "G6"])
    assert state.scoring_seeds(0) == [] and state.occupancy()["D4"] == "seed:0"
    assert "H8" not in [s for s, k in state.occupancy().items() if k.startswith("seed")]


def test_6_a_follow_up_nobody_can_make_is_forfeited():
    state = small(*SETUP, spores=2)
    state.play("D4=")
    state.play("F6")  # the last spore: the second follow-up is forfeited, the turn ends
    assert state.spores_left(0) == 0 and state.to_move == 1 and state.follow_ups_left == 0


def test_takeback_of_a_replacement_puts_the_seed_back():
    state = small(*SETUP)
    state.play("D4=")
    assert str(state.undo()) == "D4="
    assert state.occupancy()["D4"] == "seed:0" and state.spores_left(0) == 13
    assert state.follow_ups_left == 0 and "D4=" in map(str, state.legal_moves())


# --- trees and the limit of three --------------------------------------------------------------

def test_4_trees_link_by_side_and_corner_and_seeds_do_not_join_trees():
    state = small(*white_alone("C3", "E5"))  # both next to white's seed D4, not to each other
    assert state.tree_count(0) == 2
    assert state.linked_trees("D4") == {0: sorted({state.tree_id("C3"), state.tree_id("E5")})}
    state.play_all(["pass", "D5"])  # D5 touches E5 by side and C3? no: D5-C3 is two apart
    assert state.tree_count(0) == 2
    state.play_all(["pass", "C4"])  # C4 touches C3 and D5 (corner): one tree now
    assert state.tree_count(0) == 1 and state.trees(0) == [["C3", "C4", "D5", "E5"]]


def test_5_more_than_three_trees_must_be_removed_in_the_same_turn():
    state = small(*white_alone("B3", "B5", "F3"))
    state.play_all(["pass", "F5"])  # white's fourth tree
    assert state.tree_count(0) == 4 and state.must_remove and state.to_move == 0
    assert {str(m) for m in state.legal_moves()} == {"xB3", "xB5", "xF3", "xF5"}
    assert state.excess_trees() == [["F5"]]  # the smallest beyond three; ties: reading order
    for text, match in [("pass", "remove spores first"), ("C8", "remove your own spores"),
                        ("xA1", "no spore of White")]:
        with pytest.raises(IllegalMove, match=match):
            state.play(text)
    assert state.legal_cells() == {}
    before = state.spores_left(0)
    state.play("xB3")  # the mover's choice: any of their spores
    assert state.spores_left(0) == before  # a removed spore leaves the game (reading 12)
    assert state.tree_count(0) == 3 and not state.must_remove and state.to_move == 1
    assert "B3" not in state.occupancy()


def test_5_a_removal_that_splits_a_tree_asks_for_more():
    # a white tree B3-C3-D3... build C2-C3-C4 (a line), then two more trees, then a fourth
    state = small(*white_alone("C2", "C3", "C4", "F2", "F6"))
    assert state.tree_count(0) == 3
    state.play_all(["pass", "H2"])
    assert state.must_remove and state.tree_count(0) == 4
    state.play("xC3")  # the line splits in two: five trees
    assert state.tree_count(0) == 5 and state.must_remove and state.to_move == 0
    state.play("xH2")
    assert state.tree_count(0) == 4 and state.must_remove
    state.play("xC2")
    assert state.tree_count(0) == 3 and state.to_move == 1
    assert state.undo() == Move("remove", parse_cell("C2"))
    state.undo()
    state.undo()
    assert state.trees(0)[0] == ["C2", "C3", "C4"]


def test_5_the_limit_is_checked_when_the_replacement_and_its_follow_ups_are_done():
    # white has three trees; the replacement's spore at D4 is a fourth for a moment, and the
    # follow-ups join it to the others before the turn's action is complete
    state = small(*white_alone("B2", "B6", "F2"))
    state.play("pass")
    state.play("D4=")
    assert state.tree_count(0) == 4 and not state.must_remove
    state.play("C3")  # D4 joins B2's tree
    state.play("E3")  # and F2's
    assert state.tree_count(0) == 2 and state.to_move == 1


# --- the end and the score -----------------------------------------------------------------

def test_7_two_passes_in_a_row_end_the_game_and_a_placement_between_resets():
    state = small(*SETUP)
    state.play_all(["pass", "E5", "pass"])
    assert not state.is_over()
    state.play("pass")
    assert state.is_over() and state.end_reason == "double-pass" and state.legal_moves() == []
    with pytest.raises(IllegalMove, match="game is over"):
        state.play("F6")


def test_12_spores_removed_for_the_limit_leave_the_game_so_stalling_ends():
    # Issue 23: White, with three trees, puts a lone spore (a fourth tree), takes it off and
    # passes: the board is as it was, yet the turn was no pass. Each such turn now costs a
    # spore for good, so the supply runs out and the game ends.
    state = GAME.new_state(board="6x6", setup="chosen")
    state.play_all(["seed A1", "seed F6", "C1", "pass", "C3", "pass", "C5", "pass"])
    spores = state.spores_left(0)
    for k in range(spores):
        assert state.spores_left(0) == spores - k and not state.is_over()
        state.play_all(["E3", "xE3", "pass"])  # Black passes each time
    assert state.spores_left(0) == 0 and state.legal_moves() == [PASS]
    state.play("pass")  # White's only move: two passes in a row
    assert state.is_over() and state.end_reason == "double-pass"
    state = GAME.new_state(board="20x20", seeds=1, setup="chosen")
    state.play_all(["seed A1", "seed F6", "C1", "pass", "C3", "pass", "C5", "pass"])
    for _ in range(77):  # 77 spores left: 77 such turns at most
        state.play_all(["E3", "xE3", "pass"])
    state.play("pass")
    assert state.is_over()


def test_12_every_game_ends_by_the_supply():
    # Whatever the players do, each turn that is not a pass takes at least one spore out of
    # the supply for good, and nothing puts one back: random games (removals as often as
    # they can) end within (spores of both + 1) turns that place, plus passes between them.
    import random

    for seed in range(20):
        rng = random.Random(seed)
        state = GAME.new_state(board="6x6", setup="chosen")
        moves = 0
        while not state.is_over():
            state.play(rng.choice(state.legal_moves()))
            moves += 1
            assert moves < 10_000
        # 2 seeds; at most 14 spores put down (each from the supply, for good), as many
        # removed; a pass follows a placing turn or starts the game (else two end it)
        assert moves <= 2 + 14 + 14 + 15


def test_8_scoring_counts_own_seeds_linked_to_two_trees():
    state = small(*white_alone("C3", "E5"))
    assert state.scoring_seeds(0) == ["D4"] and state.scores() == (1, 0)
    # black's trees next to black's seed A7 (an edge seed): A6 and A8 are two trees
    state.play_all(["A6", "pass", "A8"])
    assert state.scoring_seeds(1) == ["A7"] and state.scores() == (1, 1)


def test_8_other_players_trees_and_one_tree_do_not_score():
    # white's two trees touching black's seed A7 count for nobody
    state = small(*white_alone("A6", "A8", "C3"))
    assert state.linked_trees("A7") == {0: sorted({state.tree_id("A6"), state.tree_id("A8")})}
    assert state.scores() == (0, 0)  # D4 has one white tree (C3)
    # a corner seed's neighbours all touch each other: one tree at most, it never scores
    state.play_all(["A2", "pass", "B1"])
    assert state.tree_count(1) == 1 and state.scoring_seeds(1) == []


def test_8_a_tie_goes_to_black():
    state = small(*SETUP, "pass", "pass")
    assert state.scores() == (0, 0) and state.winner() == 1
    state = small(*white_alone("C3", "E5"), "pass", "pass")
    assert state.scores() == (1, 0) and state.winner() == 0
    assert small(*SETUP).winner() is None  # not over


# --- moves_at, the interface -----------------------------------------------------------------

def test_moves_at_is_exactly_the_legal_moves_changing_a_site():
    for moves in [[], SETUP, SETUP + ["D4="], white_alone("B3", "B5", "F3") + ["pass", "F5"]]:
        state = small(*moves)
        expected = {}
        for m in state.legal_moves():
            if m.cell is not None:
                expected.setdefault(cell_name(m.cell), []).append(m)
        for site in state.sites():
            assert state.moves_at(site) == expected.get(site, []), (moves, site)
    assert small().moves_at("Z9") == []


def test_9_an_illegal_move_is_refused_changing_nothing_and_json_round_trips():
    state = small(*white_alone("C3", "E5"))
    before = (state.summary(), state.occupancy(), state.trees(0))
    for bad in ["C3", "D4", "xC3", "seed B2", "C3="]:
        with pytest.raises(IllegalMove):
            state.play(bad)
    assert (state.summary(), state.occupancy(), state.trees(0)) == before
    again = games.load_state(state.to_json())
    assert again == state and again.occupancy() == state.occupancy()
    with pytest.raises(GameError, match="does not replay"):
        GAME.state_from_json({"game": "arbos", "board": "8x8", "seeds": 2, "moves": ["A1"]})


def test_undo_with_nothing_to_undo():
    with pytest.raises(IndexError):
        small().undo()


# --- reading 13: the drawn setup -----------------------------------------------------------------

def drawn_setup(state) -> list[str]:
    """Put every seed where the board draws it; the cells, in order."""
    cells = []
    while state.phase == "setup":
        cells.append(state.drawn_cell())
        assert [str(m) for m in state.legal_moves()] == [f"seed {cells[-1]}"]
        state.play(f"seed {cells[-1]}")
    return cells


def test_13_the_setup_is_drawn_by_default_from_the_games_seed():
    state = GAME.new_state(board="8x8", setup_seed=7)
    assert state.setup == "random" and state.options()["setup_seed"] == 7
    # Pinned: the draw is SHA-256 of the seed and the seed's number, the same on every board
    # and Python (a remote game's two boards, a journal replayed after an upgrade).
    assert drawn_setup(state) == ["B6", "D2", "H7", "E7"]
    assert state.phase == "play" and state.drawn_cell() is None
    assert drawn_setup(GAME.new_state(board="8x8", setup_seed=8)) == ["G8", "H2", "B4", "B8"]
    # A game without a seed draws one, and keeps it: the same seed draws the same cells.
    fresh = GAME.new_state(board="8x8")
    again = GAME.new_state(**fresh.options())
    assert drawn_setup(fresh) == drawn_setup(again)


def test_13_each_draw_is_a_cell_the_distance_rule_allows_and_every_such_cell_is_drawn():
    firsts, seconds = set(), set()
    for seed in range(400):
        state = GAME.new_state(board="8x8", setup_seed=seed)
        allowed = [m.cell for m in GAME.new_state(board="8x8", setup="chosen").legal_moves()]
        assert parse_cell(state.drawn_cell()) in allowed
        firsts.add(state.drawn_cell())
        state.play(f"seed {state.drawn_cell()}")
        chosen = GAME.new_state(board="8x8", setup="chosen")
        chosen.play(state.moves[0])
        assert parse_cell(state.drawn_cell()) in [m.cell for m in chosen.legal_moves()]
        seconds.add(state.drawn_cell())
    assert len(firsts) == 64  # uniform among all 64 free cells: 400 draws reach every one
    assert len(seconds) > 50


def test_13_a_seed_elsewhere_than_drawn_is_refused_naming_the_cell():
    state = GAME.new_state(board="8x8", setup_seed=7)
    with pytest.raises(IllegalMove, match=r"^seed A1: the board drew B6 for this seed: "
                                          r"put Black's seed on B6$"):
        state.play("seed A1")
    assert state.moves == [] and state.drawn_cell() == "B6"
    state.play("seed B6")
    with pytest.raises(IllegalMove, match="put White's seed on D2"):
        state.play("seed H8")
    assert state.moves_at("D2") == [Move("seed", parse_cell("D2"))] and state.moves_at("H8") == []
    assert state.legal_cells() == {"D2": "setup"}


def test_13_json_and_a_replay_keep_the_draw():
    state = GAME.new_state(board="8x8")
    cells = drawn_setup(state)
    state.play_all(["C3", "pass"])
    again = games.load_state(state.to_json())
    assert again == state and again.options() == state.options()
    assert [str(m) for m in again.moves[:4]] == [f"seed {c}" for c in cells]
    half = GAME.new_state(**state.options())
    half.play_all(state.moves[:2])
    assert half.drawn_cell() == cells[2]
    for _ in range(4):
        state.undo()
    assert state.drawn_cell() == cells[2]  # undo comes back to the same draw


def test_13_setup_chosen_keeps_the_free_placement():
    state = GAME.new_state(board="8x8", setup="chosen")
    assert state.options() == {"board": "8x8", "seeds": 2, "spores": 13, "setup": "chosen"}
    assert len(state.legal_moves()) == 64 and state.drawn_cell() is None
    state.play_all(SETUP)
    assert state.phase == "play"


def test_13_the_playout_puts_the_seeds_where_they_are_drawn():
    import random

    state = GAME.new_state(board="8x8", setup_seed=8)
    state.playout(random.Random(1))
    assert [str(m) for m in state.moves[:4]] == ["seed G8", "seed H2", "seed B4", "seed B8"]


# --- reading 10: a begun turn's time runs out ------------------------------------------------------

def test_10_timeout_is_pass_at_the_start_of_a_turn_and_none_in_the_setup():
    state = small("seed A1")
    assert state.timeout_move() is None  # the setup is no turn
    state.play_all(SETUP[1:])
    assert state.timeout_move() == PASS
    with pytest.raises(IllegalMove, match="time out is a pass"):
        state.play("time")
    assert "time" not in map(str, state.legal_moves())


def test_10_timeout_forfeits_the_follow_ups():
    state = small(*SETUP)
    state.play("D4=")
    assert str(state.timeout_move()) == "time" and parse_move("TIME") == state.timeout_move()
    assert "time" not in map(str, state.legal_moves())  # no player's choice: the referee's
    state.play("time")
    assert state.to_move == 1 and state.follow_ups_left == 0 and state.spores_left(0) == 12
    state.play("pass")  # the timed-out turn put a spore down: one pass does not end the game
    assert not state.is_over()
    state.undo()
    assert str(state.undo()) == "time"
    assert state.to_move == 0 and state.follow_ups_left == 2


def test_10_timeout_takes_off_the_smallest_trees_beyond_three():
    # A replacement made a fourth tree (H8, joined by G7) and its last follow-up was not made.
    state = small(*white_alone("B3", "B5", "F3"), "pass", "H8=", "G7")
    assert state.follow_ups_left == 1 and state.tree_count(0) == 4
    before = state.occupancy()
    state.play("time")
    # trees G7-H8 (2), B3, B5, F3 (1 each): the last one-spore tree in reading order goes
    assert state.trees(0) == [["G7", "H8"], ["B3"], ["B5"]] and state.to_move == 1
    assert "F3" not in state.occupancy() and state.spores_left(0) == 13 - 5  # it left the game
    state.undo()
    assert state.occupancy() == before and state.follow_ups_left == 1 and state.tree_count(0) == 4
    # spores to remove: the same rule
    state = small(*white_alone("B3", "B5", "F3"), "pass", "F5")
    assert state.must_remove and state.timeout_move() == parse_move("time")
    state.play("time")
    assert state.trees(0) == [["B3"], ["B5"], ["F3"]] and not state.must_remove
    assert state.to_move == 1
    again = games.load_state(state.to_json())  # the journal replays it
    assert again == state and again.occupancy() == state.occupancy()

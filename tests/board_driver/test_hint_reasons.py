"""A hint says why, in one sentence from the game's own view (`views.hint_reason`): each
reason against a position built by hand (or from a recorded game), per game."""

from __future__ import annotations

import pytest

import games
from board_driver import views

FANGQI_MOVEMENT = ("c2 g6 b3 g4 f1 b1 d7 e2 d2 e1 b7 f6 g3 g7 e3 e4 g5 c3 c7 b2 e7 c6 e6 f2 c5 "
                   "a1 d4 f3 e5 a6 d3 b5 f5 a7 a2 a4 f7 c1 g1 d1 a3 b6 d5 c4 g2 f4 d6 a5 b4")
# Movement: the mover's slide d5-e5 completes a square and takes a counter.
FANGQI_SLIDE = ("g3 c2 g4 c7 d1 f1 e6 b2 b5 e7 e1 g6 e3 c1 e2 d6 c6 d2 b3 g1 d5 e4 b1 a6 g2 a4 d7 "
                "f7 a7 a2 g7 e5 f2 d4 a1 c5 d3 c4 f5 f3 b7 c3 g5 f4 f6 b4 a3 a5 b6 xe1 xe5 xd7")
GFT_HUCK = ("retreat:h2 retreat:b7 d2-c3 a7-b7 He1^h2 He8^g6 h3-g4 retreat:e6 e3-e4 d6-e6 e2-d3 "
            "Ag8-e7 e3-d4 stop:e7>c6 Pd1-e2 retreat:e7 b3-b4 h7-h6 Pe2-e1 Hg6-f6 retreat:f3 "
            "retreat:g7 c3-b4 stop:e6>d6 e3-f4 retreat:c7 f5-g5 retreat:f7 e4-f3 h6-h5 "
            "retreat:e2 Ec8-b7 retreat:d3 d7-d6 retreat:b3 a7-a6 retreat:b2 h6-g5 Pe1-c3 "
            "He6-f7 retreat:c2 retreat:e8 retreat:e1 f4-e5 retreat:a3 Ag8-e7 Ba1-a2 e3-d3 "
            "Pc3-e3 f4-e4")
GFT_END = (GFT_HUCK + " Pe3-g5 Hf7-g7 retreat:f3 b6-a5 c5-d5 d4-c5 stop:d5>e5 a5-a4 Pc3-e5 "
           "d7-c7 Pe5-e4 retreat:h6 Pg7-g6 retreat:c5 b4-b5 retreat:h6 retreat:f5 retreat:b6 "
           "Pf6-d6 c7-c6")

CASES = [
    # Tree Planting, 2x2. Square 0.0 is h0.0 h1.0 v0.0 v0.1, square 0.1 h0.1 h1.1 v0.1 v0.2.
    ("tree-planting", {"board": "2x2"}, "h0.0 v0.0 h1.0", "v0.1",
     "v0.1 closes a square: plant your tree and move again."),
    ("tree-planting", {"board": "2x2"}, "h0.0 v0.0", "h1.0", "h1.0 hands over a square."),
    ("tree-planting", {"board": "2x2"}, "h0.0 v0.0", "h2.1",
     "h2.1 hands nothing over: 7 safe grooves are left after it."),
    # Only v1.1 and v0.2 keep everything back; after v1.1 every groove hands something over.
    ("tree-planting", {"board": "2x2"}, "h1.0 v0.0 h1.1 h0.0 h0.1", "v1.1",
     "v1.1 is the last safe groove: after it player 1 must open a chain."),
    # Square 0.0 can be taken (v0.1); v0.2 declines it and its neighbour: the double deal.
    ("tree-planting", {"board": "2x2"}, "h1.0 v0.0 h1.1 h0.0 h0.1", "v0.2",
     "v0.2 leaves the last squares of the chain to player 1: then player 1 must open the "
     "next chain (the long-chain rule)."),
    ("tree-planting", {"board": "2x2"}, "h1.0 v0.0 h1.1 h0.0 h0.1 v1.2 v0.2 v1.1", "v1.0",
     "v1.0 hands over a square, the least any groove gives now: every groove hands "
     "something over."),
    # Fangqi, placement on 7x7 points: Black a1 b1 a2, White f6 f5 e6.
    ("fangqi", {}, "a1 f6 b1 f5 a2 e6", "b2", "b2 completes your square."),
    ("fangqi", {}, "a1 f6 b1 f5 a2", "b2", "b2 blocks Black's three."),
    ("fangqi", {}, "a1 f6 b1 f5 a2", "e5", "e5 makes three of a square: one more point "
                                          "completes it."),
    ("fangqi", {}, "a1 f6 b1 f5 a2", "c4", None),
    ("fangqi", {}, FANGQI_MOVEMENT, "xd5", "xd5 breaks Black's square."),
    ("fangqi", {}, FANGQI_SLIDE, "d5-e5xc1", "d5-e5xc1 completes your square and takes c1."),
    # Treeblox: Dark's branches reach over Light's only active leaf, b2.
    ("treeblox", {}, "Lb1 Lb2 Ld3 Bb3 Bc2 Bb4 Bd2 Bd4 Bc2+1 Ba4", "Lb2+1",
     "Lb2+1 shades Light's last active leaf."),
    ("treeblox", {}, "Lb1 Ld4", "Bc1", "Bc1 opens a hole more for your tree."),
    ("treeblox", {}, "Lb1", "La4", "La4 adds an active leaf: you will have 1."),
    # Arbos, 8x8: each places the other's seeds, White first: Black's G8 and G3, White's D1, B7.
    ("arbos", {"board": "8x8", "setup": "chosen"}, "seed G8, seed D1", "seed A1",
     "seed A1 puts Black's seed in a corner, where it can never score."),
    ("arbos", {"board": "8x8", "setup": "chosen"}, "seed G8, seed D1, seed G3, seed B7", "A6",
     "A6 links your seed B7 to a tree: one more tree makes it score."),
    ("arbos", {"board": "8x8", "setup": "chosen"}, "seed G8, seed D1, seed G3, seed B7, A3, F5, G4, D5, E4, A1, H7, "
                                "xA3, F2, xD5, B2, xH7", "F4", "F4 links your seed G3 to a second tree: it scores."),
    # Game for the Trees, from the start and from a recorded game.
    ("game-for-the-trees", {}, "", "a3-a4", "a3-a4 gains a square: you will hold 25."),
    ("game-for-the-trees", {}, GFT_HUCK, "Pe3-e6", "Pe3-e6 takes one of Black's Huckleberries."),
    ("game-for-the-trees", {}, GFT_END, "Pe6-f7", "Pe6-f7 wins: Black has no Huckleberry left."),
]


@pytest.mark.parametrize("game,options,moves,move,expected", CASES,
                         ids=[f"{c[0]}:{c[3]}" for c in CASES])
def test_a_hints_reason_matches_the_position(game, options, moves, move, expected):
    state = games.get_game(game).new_state(**options)
    state.play_all(moves.split(", ") if "," in moves else moves.split())  # Arbos: "seed C7"
    before = state.to_json()
    assert views.hint_reason(state, state.parse_move(move)) == expected
    assert state.to_json() == before  # asked, not changed


def test_no_reason_once_the_game_is_over():
    state = games.get_game("tree-planting").new_state(board="1x1")
    state.play_all(["h0.0", "h1.0", "v0.0", "v0.1"])
    assert views.hint_reason(state, "h0.0") is None


def test_the_hint_worker_answers_the_reason_of_its_best_move():
    from board_driver.referee.seats import advice

    state = games.get_game("tree-planting").new_state(board="2x2")
    state.play_all(["h0.0", "v0.0", "h1.0"])
    sites, reason, move = advice(state.to_json(), 5.0)
    # Exact: closing square 0.0 (v0.1) is the best move, and the reason says so.
    assert sites["v0.1"] == "best"
    assert reason == "v0.1 closes a square: plant your tree and move again."
    # In the board's language: the worker is another process, told it with the position.
    assert move == "v0.1"
    _, chinese, _ = advice(state.to_json(), 5.0, "zh")
    assert chinese != reason and "v0.1" in chinese and not chinese.isascii()

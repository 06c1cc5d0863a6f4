"""Treeblox match play (games/treeblox.py, pure): colours switch every game, active leaves
total. The `treeboard match` command is tested in tests/board_driver/test_cli_match.py."""

from __future__ import annotations

import pytest

from games.treeblox import MatchError, play_match

DARK_TWO_LIGHT_ONE = "La1 Ld4 La2 end end".split()  # double pass: Dark 2, Light 1
DARK_THREE_LIGHT_ONE = "La1 Ld4 La2 end La3 end end".split()
DARK_KILLS = "La1 Ld4 Bc4 Bb2 Bc4+1 Bb3 Bd4+1".split()  # Light has no leaf: Dark 1, Light 0


def test_colours_switch_every_game_and_leaves_are_totalled_per_player():
    summary = play_match([DARK_TWO_LIGHT_ONE, DARK_KILLS, DARK_TWO_LIGHT_ONE])
    rows = summary["games"]
    assert [r["colours"] for r in rows] == [["dark", "light"], ["light", "dark"],
                                           ["dark", "light"]]
    assert [r["leaves"] for r in rows] == [[2, 1], [0, 1], [2, 1]]
    assert [r["winner"] for r in rows] == [1, 2, 1]
    assert [r["end"] for r in rows] == ["double-pass", "no-active-leaves", "double-pass"]
    assert summary["totals"] == [4, 3] and summary["winner"] == 1 and summary["margin"] == 1
    assert summary["result"] == "Player 1 won by 1 point"


def test_a_match_can_be_drawn_and_a_margin_is_plural():
    summary = play_match([DARK_TWO_LIGHT_ONE] * 2)
    assert summary["totals"] == [3, 3] and summary["winner"] is None
    assert summary["result"] == "Draw at 3 active leaves each"
    summary = play_match([DARK_TWO_LIGHT_ONE, DARK_THREE_LIGHT_ONE] * 2)
    assert [r["leaves"] for r in summary["games"]] == [[2, 1], [1, 3], [2, 1], [1, 3]]
    assert summary["totals"] == [6, 8] and summary["winner"] == 2
    assert summary["result"] == "Player 2 won by 2 points"


def test_a_game_that_does_not_replay_or_finish_is_an_error_naming_it():
    with pytest.raises(MatchError,
                       match=r"game 2 \(b.txt\): move 3 \(La1\): a1 is taken by a dark leaf"):
        play_match([DARK_KILLS, ["La1", "Ld4", "La1"]], sources=["a.txt", "b.txt"])
    with pytest.raises(MatchError, match="game 1: the game is not over after its 2 moves"):
        play_match([["La1", "Ld4"]])

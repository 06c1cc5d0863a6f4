"""Treeblox says why a cube is no move where the cube is the reason (its colour on the other
player's turn, its kind), on the board's sensors and in an entry; its help says how to win;
the page offers only the hint modes its pictures show. English and Chinese; traced boards."""

from __future__ import annotations

import io

import pytest

import games
from board_driver import views
from board_driver.cli.sim import Terminal
from tests.board_driver.test_board_words import board, state_json  # noqa: F401 (a fixture)
from tests.board_driver.test_tree_planting_words import english  # noqa: F401 (the fixture)


def said_after(t, *steps):
    terminal = Terminal(io.StringIO(), clock=t.clock)
    terminal.start(t.session)
    for verb, *args in steps:
        t.step(verb, args)
        terminal(t.session)
    return terminal.out.getvalue().splitlines()


def test_a_cube_of_the_other_colour_is_said_to_be_the_reason(board):
    t = board(layout="treeblox-adc")
    said = said_after(t, ("place", "a1", "dark-leaf"), ("place", "b1", "dark-leaf"))
    assert "not a move: b1: that is a Dark leaf, and it is Light's turn" in said
    assert not any("no move puts a piece there" in line for line in said)
    record = t.step("lift", ["b1"])
    assert record["corrections"] == []
    # an entry above the board on the other player's turn, and one the rules refuse
    t.step("place", ["b1", "light-leaf"])
    with pytest.raises(games.IllegalMove) as refused:
        t.door.enter("a2+1", "light-leaf")                  # Dark's turn
    assert refused.value.reason == "a2+1: that is a Light leaf, and it is Dark's turn"
    with pytest.raises(games.IllegalMove) as refused:
        t.door.enter("a2+1", "dark-leaf")                   # nothing holds it up
    assert "a2+1 is in the air" in refused.value.reason
    with pytest.raises(games.IllegalMove) as refused:
        t.door.enter("a1+1", "dark-branch")                 # on a leaf: no cube goes there
    assert refused.value.reason == "no cube can be attached to a leaf"


def test_in_chinese(board, english):
    t = board(layout="treeblox-adc", language="zh")
    said = said_after(t, ("place", "a1", "dark-leaf"), ("place", "b1", "dark-leaf"))
    assert "不是一步棋：b1：那是一个深色叶，现在轮到浅色" in said
    record = t.step("wait", ["0"])
    t.step("lift", ["b1"])
    t.step("place", ["b1", "light-leaf"])
    with pytest.raises(games.IllegalMove) as refused:
        t.door.enter("a2+1", "light-leaf")
    assert refused.value.reason == "a2+1：那是一个浅色叶，现在轮到深色"


def test_the_help_says_how_to_win_and_the_page_offers_the_hints_it_shows(board):
    assert "To win: have more leaves that see the sky" in views.game_help("treeblox")
    t = board(layout="treeblox-adc", moves="safe")
    state = state_json(t)
    assert state["hints"] == ["off", "legal", "best"] and state["hint"] == "legal"
    with pytest.raises(ValueError, match="hint mode must be one of off, legal, best"):
        t.door.set_hint_mode("safe")

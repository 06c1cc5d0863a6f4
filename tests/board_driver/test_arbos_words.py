"""Arbos says each situation in one true sentence: a takeback of a removal says to put the spore
back (never "lift its pieces", never after the board was drawn), and the page asks the same;
the terminal's key says which colour each player is on the LEDs without reading as a
contradiction, and lists a seed's cells only while a seed may go somewhere. English and
Chinese; traced boards."""

from __future__ import annotations

import io

from board_driver.cli.sim import Terminal
from board_driver.web.snapshot import takeback_question
from tests.board_driver.test_arbos_board import CHOSEN, GAME, LAYOUT, play
from tests.board_driver.test_board_words import board  # noqa: F401 (the fixture)
from tests.board_driver.test_tree_planting_words import english  # noqa: F401 (the fixture)

TO_THE_REMOVAL = GAME[:GAME.index("xF2") + 1]


def arbos(board, **overrides):
    return board(layout=LAYOUT, turn_seconds=0, game_options=CHOSEN, **overrides)


def test_a_removal_taken_back_says_to_put_the_spore_back(board):
    t = arbos(board)
    play(t, *TO_THE_REMOVAL)
    assert takeback_question(t.moment()) == "Take back xF2? Then put White's spore back on F2."
    terminal = Terminal(io.StringIO(), clock=t.clock)
    terminal.start(t.session)
    t.door.takeback()
    terminal(t.session)
    said = terminal.out.getvalue().splitlines()
    assert said[1] == "takeback of xF2: put White's spore back on F2"    # (after "resumed")
    assert "lift its pieces" not in terminal.out.getvalue()
    assert said[-1] == "  correct F2: put White's spore here"


def test_in_chinese(board, english):
    t = arbos(board, language="zh")
    play(t, *TO_THE_REMOVAL)
    assert takeback_question(t.moment()) == "悔棋 xF2？然后把白方的孢子放回 F2。"
    t.door.takeback()
    assert t.step("wait", ["0"])["said"] == ["悔棋：移走 F 二：把白方的孢子放回 F 二"]


def test_the_key_names_the_led_colours_and_only_the_cells_shown(board):
    t = arbos(board)
    terminal = Terminal(io.StringIO(), clock=t.clock)
    terminal.start(t.session)
    terminal.draw(t.session)
    setup = terminal.out.getvalue().splitlines()[-2]
    assert "the LEDs show White in blue, Black in yellow" in setup
    assert "drawn blue" not in setup and ", s a seed may go here" in setup
    play(t, *GAME[:6])                       # the seeds are down: no seed may go anywhere now
    terminal.draw(t.session)
    later = terminal.out.getvalue().splitlines()[-2]
    assert "a seed may go here" not in later and ", + next to your seed" in later

"""Fangqi's two numbers are said to be counters left (in the sim's status line, the spoken
score and the page), not a score from the first move; the sim's help lists accept and refuse
(a remote game's takeback request). English and Chinese."""

from __future__ import annotations

from tests.board_driver.test_board_words import board, state_json  # noqa: F401 (a fixture)
from tests.board_driver.test_tree_planting_words import english  # noqa: F401 (the fixture)
from tests.board_driver.test_words import sim

LAYOUT = "fangqi-7x7-matrix"


def test_the_numbers_are_counters_left(tmp_path):
    out = sim(tmp_path, "place c3", "repeat", "quit", language="en", layout=LAYOUT)
    said = out.splitlines()
    assert "counters left 25:24, Black to move" in said
    assert "counters left 25 to 24, White to move" in said      # repeat: as the voice says it
    assert "score 25" not in out
    assert "| takeback | accept | refuse (the other board's takeback request, in a remote " \
           "game) |" in out


def test_in_chinese(tmp_path):
    out = sim(tmp_path, "quit", layout=LAYOUT)
    assert "剩余棋子 25:24，轮到黑方" in out and "比分 25:24" not in out
    assert "accept | refuse（远程对局中，同意或拒绝对方棋盘的悔棋请求）" in out


def test_the_page_says_what_the_numbers_count(board, english):
    state = state_json(board(layout=LAYOUT))
    assert state["score_name"] == "counters left" and state["game"]["scores"] == [25, 24]
    assert state_json(board(language="zh"))["score_name"] == "比分"   # any other game: score

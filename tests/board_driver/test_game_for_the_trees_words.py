"""Game for the Trees, a board with no pieces, in true words: English says a retreat and a stop
in words as Chinese does (never the notation `retreat:h6`); the computer's move is not to be
"put on the board"; `new` lifts nothing and says nothing of pieces; the legend speaks of no
piece to put. Traced boards and the sim."""

from __future__ import annotations

from board_driver import views
from tests.board_driver.test_board_words import board  # noqa: F401 (the fixture)
from tests.board_driver.test_words import sim

LAYOUT = "game-for-the-trees-matrix"
TAPS = ["tap a3", "tap a4", "hold h6", "tap h6", "takeback", "legend", "new", "quit"]


def test_english_says_the_moves_in_words(tmp_path):
    out = sim(tmp_path, *TAPS, language="en", layout=LAYOUT)
    said = out.splitlines()
    assert "selected a3: tap a4 b4 to grow there; hold a3: retreat from a3; tap a3 again to " \
           "cancel" in said
    assert "move 2: retreat from h6 (White to move)" in said
    assert "takeback of retreat from h6" in said
    assert "retreat:" not in out
    assert "lifted 0 pieces" not in out and "new game of Game for the Trees" in said
    legend = out[out.index("the LEDs (type legend"):out.index("new game of")]
    assert "put that piece here" not in legend


def test_and_chinese(tmp_path):
    out = sim(tmp_path, *TAPS, layout=LAYOUT)
    assert "第 2 步：撤退 h6（轮到白方）" in out and "悔棋：撤退 h6" in out
    assert "拿走了 0 枚棋子" not in out


def test_the_computers_move_is_not_put_on_a_board_without_pieces(board):
    t = board(layout=LAYOUT)
    t.referee.set_seats(("human", "computer:easy"))
    t.step("tap", ["a3"])
    t.step("tap", ["a4"])
    t.referee.play_for_seat("h6-h5", t.clock(), "computer")
    said = t.step("wait", ["0"])["said"]
    assert said and not any("put it on the board" in line for line in said)
    assert not any(e["name"] == "blinking" for e in views.legend(t.referee.state, t.moment()))

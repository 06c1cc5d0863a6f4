"""The on-board menu said in true sentences (the README's Fangqi recipe, in the sim): the corner
pieces, played as the game's first moves until the menu opens, are said to be its corners in
one sentence; `show` and `legend` show the menu while it is open (its sites, its colours; the
page's legend too); applying it says the new game's settings, and its pieces are one sentence
to lift, never "not a move"; leaving says nothing changed. English and Chinese."""

from __future__ import annotations

from board_driver.referee.menu import HOLD_S
from tests.board_driver.test_menu import board, open_menu, put, site_of  # noqa: F401
from tests.board_driver.test_words import sim

RECIPE = ["place a1", "place g7", "wait 2000", "show", "legend", "place c1", "place b2",
          "place a3", "wait 300"]


def test_the_readmes_menu_recipe_in_true_sentences(tmp_path):
    out = sim(tmp_path, *RECIPE, "quit", language="en", layout="fangqi-7x7-matrix")
    said = out.splitlines()
    assert "the menu's corners, not moves: took back a1 and g7" in said
    assert not any(line.startswith("takeback of") for line in said)
    # show and legend during the menu: its sites and its colours, not the game's
    shown = said.index("the menu: a1 and g7 are its corners (lift both pieces to leave)")
    assert "  b1: two people play (chosen)" in said[shown:]
    assert "  c1: the computer plays White" in said[shown:]
    assert "  a3: apply: a new game with these choices" in said[shown:]
    legend = said[said.index("the LEDs (type legend to see this again):"):]
    assert any("white: the menu's corners: lift both pieces to leave" in x for x in legend[:3])
    assert any("yellow: who plays (bright: the choice made)" in x for x in legend[:3])
    assert not any("Black: pieces, turn and score" in x for x in legend[:8])
    # applied: the new game's settings, then its pieces to lift in one sentence
    applied = said.index("menu applied, a new game: the computer plays White (medium), "
                         "clock 5+3, hints safe")
    assert said[applied + 1] == "new game of Fangqi"
    assert "  lift the pieces on a1, a3, b2, c1 and g7 to begin" in said[applied:]
    assert "not a move" not in out and "correct a1" not in out
    assert "menu: closed" not in out


def test_in_chinese(tmp_path):
    out = sim(tmp_path, *RECIPE, "quit", layout="fangqi-7x7-matrix")
    said = out.splitlines()
    assert "这是菜单的两个角，不是走棋：已悔回 a1和g7" in said
    assert "菜单：a1和g7 是它的两个角（两枚棋子都拿起就退出）" in said
    assert "  a2: 棋钟：无（已选）" in said
    assert "菜单已应用，新的一局：电脑执白方（中等），棋钟 5+3，提示 安全" in said
    assert "  先拿走 a1，a3，b2，c1和g7 上的棋子再开始" in said
    assert "不是一步棋" not in out and "棋钟 none" not in out


def test_the_voice_says_what_the_menu_applied_and_the_page_shows_its_legend(board):
    from tests.board_driver.test_board_words import state_json

    t = board("fangqi-7x7-matrix")
    opened = open_menu(t, None)
    assert opened["said"][0] == "the menu's corners, not moves: took back A one and G seven"
    legend = state_json(t)["legend"]
    assert [e["name"] for e in legend] == ["corner", "menu-seats", "menu-level", "menu-clock",
                                           "menu-hints", "menu-apply", "menu-puzzle"]
    put(t, site_of(t, "clock", "10"), None)
    applied = put(t, site_of(t, "apply"), None)
    assert applied["said"] == ["menu applied, a new game: two people play, clock 10, hints safe",
                               "new game of Fangqi",
                               "lift the pieces on A one, A three, C two and G seven to begin"]


def test_leaving_the_menu_says_nothing_changed(board):
    t = board("fangqi-7x7-matrix")
    open_menu(t, None)
    first, last = t.referee.menu.corners
    t.step("lift", [first])
    left = t.step("lift", [last])
    assert left["said"] == ["menu: closed, nothing changed"]
    assert t.step("wait", [str(int(HOLD_S * 1000))])["game"]["moves"] == []

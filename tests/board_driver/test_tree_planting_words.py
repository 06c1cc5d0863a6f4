"""Tree Planting says each situation in one true sentence, in English and Chinese: a rod put
before the tree its player owes waits and counts once the tree is in (people, as against the
computer); a tree put is said; the computer's last rod is owed before the end is said, and
drawn as owed; the terminal drawing labels each row and column once, and has no stray corner;
the voice names rows and squares as the screen does, from 0. Traced boards (simulated
time)."""

from __future__ import annotations

import io

import pytest

from board_driver import views
from board_driver.cli.sim import Terminal
from board_driver.config import DEFAULT_COLOURS
from board_driver.views import words
from board_driver.views.base import Moment
from tests.board_driver.test_board_words import board, state_json  # noqa: F401 (a fixture)

CLOSE_00 = ("h0.0", "v0.0", "h1.0", "v0.1")   # player 2 closes square 0.0 with v0.1


@pytest.fixture
def english():
    yield
    words.use("en")   # (a Tracer speaks its config's language from then on)


def watched(t):
    terminal = Terminal(io.StringIO(), clock=t.clock)
    terminal.start(t.session)
    return terminal


def step(t, terminal, *lines):
    for line in lines:
        verb, *args = line.split()
        t.step(verb, args)
        terminal(t.session)
    return terminal.out.getvalue().splitlines()


def test_a_rod_before_the_owed_tree_waits_and_counts_once_the_tree_is_in(board):
    t = board()
    terminal = watched(t)
    said = step(t, terminal, *(f"place {s}" for s in CLOSE_00), "place h0.1")
    assert "not a move yet: h0.1: first put player 2's tree on t0.0; then it counts" in said
    assert not any("more than one place" in line for line in said)
    assert "  h0.1: the next move: it counts once t0.0 is in place" in said
    assert "  correct h0.1: take the piece off" not in said      # no mistake: it waits
    assert [c.site for c in t.referee.corrections] == ["t0.0"]   # only the tree lights
    fixes = state_json(t)["fixes"]
    assert [(f["site"], f["waiting"]) for f in fixes] == [("t0.0", False), ("h0.1", True)]
    said = step(t, terminal, "place t0.0")
    assert said.count("player 2's tree in place on t0.0") == 1
    assert "move 5: h0.1 (player 1 to move)" in said              # never lifted: it counts
    assert [str(m) for m in t.referee.state.moves][-1] == "h0.1"


def test_in_chinese_too(board, english):
    t = board(language="zh")
    terminal = watched(t)
    said = step(t, terminal, *(f"place {s}" for s in CLOSE_00), "place h0.1", "place t0.0")
    assert "还不算一步：h0.1：先把二号玩家的树放到 t0.0；之后这一步才算数" in said
    assert "二号玩家的树已放在 t0.0" in said
    record = t.step("wait", ["0"])
    assert views.say_site(t.referee.state, "h0.1") == "零号行一号格的上槽"


def test_a_tree_put_is_said(board):
    t = board()
    terminal = watched(t)
    said = step(t, terminal, *(f"place {s}" for s in CLOSE_00), "place t0.0")
    assert said[-1] != "" and "player 2's tree in place on t0.0" in said
    # spoken as the screen names it
    record = t.step("place", ["h0.1"])
    assert record["said"] == ["player 2: the top groove of row zero, square one"]


def test_the_computers_last_rod_is_owed_before_the_end(board):
    t = board(game_options={"board": "1x1"})
    t.referee.set_seats(("human", "computer:easy"))
    terminal = watched(t)
    step(t, terminal, "place h0.0")
    t.referee.play_for_seat("v0.0", t.clock(), "computer")
    step(t, terminal, "place v0.0", "place h1.0")
    t.referee.play_for_seat("v0.1", t.clock(), "computer")     # the last groove: over in the game
    record = t.step("wait", ["0"])
    assert record["said"] == ["player 2: the right groove of row zero, square zero; "
                              "put it on the board"]   # no end yet
    terminal(t.session)
    said = terminal.out.getvalue().splitlines()
    assert "move 4: v0.1; player 2's move: put it on the board" in said
    assert not any(line.startswith("game over") for line in said)
    assert "score 0:1; the last move is still to put on the board" in said
    assert "  make the computer's move at v0.1: put a rod here" in said   # drawn as owed
    assert t.moment().over_since is None                          # no winner's animation yet
    said = step(t, terminal, "place v0.1")
    assert not any(line.startswith("game over") for line in said)
    record = t.step("place", ["t0.0"])
    assert record["said"][-1] == "game over, 0 to 1: player 2 wins"    # the voice, now
    terminal(t.session)
    assert terminal.out.getvalue().splitlines()[-1].startswith("game over: 0:1, player 2 wins")
    assert t.moment().over_since is not None and not t.referee.corrections
    record = t.step("lift", ["v0.1"])                  # clearing the board asks nothing back
    assert record["corrections"] == []


def test_the_drawing_labels_each_row_and_column_once():
    import games

    state = games.get_game("tree-planting").new_state()
    text = views.terminal(state, Moment.still(dict(DEFAULT_COLOURS), moves="off"),
                          views.Paint(False))
    lines = text.splitlines()
    assert lines[0] == "      0   1   2   3"
    assert lines[1] == "h0  +···+···+···+···+"
    assert lines[2] == "  0 : · : · : · : · :"
    assert lines[6] == "  2 : · : · : · :"
    assert lines[7] == "h3  +···+···+···+"                 # no stray corner at the bottom right
    assert lines[8] == "    v0  v1  v2  v3  v4"
    assert not any(line != line.rstrip() for line in lines)
    big = games.get_game("tree-planting").new_state(board="12x12")
    text = views.terminal(big, Moment.still(dict(DEFAULT_COLOURS), moves="off"),
                          views.Paint(False)).splitlines()
    assert text[-4].startswith(" 11 :") and text[-3].startswith("h12 +")


def test_an_unknown_site_is_refused_in_the_boards_language(tmp_path):
    from board_driver.referee.actions import ActionError
    from board_driver.referee.tracer import run_trace
    from tests.board_driver.test_words import sim

    out = sim(tmp_path, "place v9.9", "quit")
    assert "  ? 'v9.9' 不是布局 tree-planting-classic-pins 上的位置，现在也没有哪一步能在那里放棋子" \
        in out.splitlines()
    assert "is no site of layout" not in out
    # a trace's error, a command line's, stays English
    from board_driver.config import sim_config

    with pytest.raises(ActionError, match="'v9.9' is no site of layout"):
        list(run_trace(["place v9.9"], sim_config(journal=str(tmp_path / "t.sqlite"))))
